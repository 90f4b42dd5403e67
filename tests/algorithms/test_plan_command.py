"""``python -m experiments plan`` and ``bench planners``: output, JSON keys, and one-line errors."""

from __future__ import annotations

import json
import time

import pytest

from algorithms import plan_cost, planner_names
from cep import OrderPlan, Statistics, TreePlan, parse_pattern, to_dnf
from experiments.cli import main

FIG2 = "PATTERN SEQ(A a, B b, C c) WHERE a.x = c.x WITHIN 10 seconds"


def write_stats(tmp_path, rates=None, sels=None):
    path = tmp_path / "stats.json"
    path.write_text(json.dumps({"rates": rates or {"A": 1.0, "B": 1.0, "C": 1.0}, "selectivities": sels or {"a,c": 0.001}}))
    return str(path)


def _tree(x):
    """A tree plan from its JSON form (nested lists)."""
    return tuple(_tree(y) for y in x) if isinstance(x, list) else x


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_plan_prints_the_tree_with_parentheses_and_its_cost(tmp_path, capsys):
    code, out, err = run(capsys, "plan", FIG2, "--planner", "DP-B", "--stats", write_stats(tmp_path))
    assert code == 0 and err == ""
    line = next(l for l in out.splitlines() if "DP-B" in l)
    assert "((a, c), b)" in line and "31.1" in line


def test_plan_json_has_the_documented_keys_for_orders_and_trees(tmp_path, capsys):
    stats = write_stats(tmp_path)
    start = time.perf_counter()
    code, out, _ = run(capsys, "plan", FIG2, "--planner", "all", "--stats", stats, "--alpha", "0.5", "--json")
    wall = time.perf_counter() - start
    rows = [json.loads(l) for l in out.splitlines()]
    assert code == 0 and [r["planner"] for r in rows] == planner_names()
    sp = to_dnf(parse_pattern(FIG2))[0]
    for r in rows:
        assert {"planner", "kind", "plan", "cost", "plan_time_s"} <= set(r)
        if r["kind"] == "order":
            assert sorted(r["plan"]) == ["a", "b", "c"]
            plan = OrderPlan(tuple(r["plan"]))
        else:
            assert len(r["plan"]) == 2 and r["kind"] == "tree"
            plan = TreePlan(_tree(r["plan"]))
        # the printed cost is the printed plan's, under the statistics and alpha given
        assert r["cost"] == pytest.approx(plan_cost(sp, plan, Statistics.load(stats), alpha=0.5))
        assert r["params"]["alpha"] == 0.5
    # each planner's time is its own share of the command's
    assert 0 < sum(r["plan_time_s"] for r in rows) < wall
    assert next(r for r in rows if r["planner"] == "DP-B")["plan"] == [["a", "c"], "b"]


def test_plan_passes_planner_parameters(tmp_path, capsys):
    code, out, _ = run(capsys, "plan", FIG2, "--planner", "II-RANDOM", "--stats", write_stats(tmp_path), "--param", "restarts=4", "--json", "--seed", "9")
    row = json.loads(out)
    assert code == 0 and row["params"]["restarts"] == 4 and row["params"]["seed"] == 9


def test_plan_computes_statistics_from_an_events_file(tmp_path, capsys):
    """A rare (5 events in 59 s), B medium (15), C frequent (40); a.x = c.x holds for 1 pair in 17."""
    events = tmp_path / "events.csv"
    kinds = ["C", "C", "C", "C", "B", "A", "C", "C", "C", "C", "B", "B"]
    rows = ["type,ts,x"] + [f"{kinds[k % 12]},{k},{k % 7}" for k in range(60)]
    events.write_text("\n".join(rows) + "\n")
    code, out, err = run(capsys, "plan", FIG2, "--planner", "DP-LD,EFREQ", "--dataset", str(events), "--json")
    assert code == 0, err
    dp, ef = (json.loads(line) for line in out.splitlines())
    # by frequency alone: a, b, c; with the selective a-c condition, DP-LD joins c before b
    assert (dp["planner"], dp["plan"]) == ("DP-LD", ["a", "c", "b"]) and (ef["planner"], ef["plan"]) == ("EFREQ", ["a", "b", "c"])
    assert dp["cost"] == pytest.approx(2.0446704, rel=1e-6) and dp["cost"] < ef["cost"]


def test_plan_names_the_selectivities_a_statistics_file_lacks(tmp_path, capsys):
    pattern = "PATTERN SEQ(A a, B b, C c) WHERE a.x = c.x AND a.x < b.x WITHIN 10 seconds"
    code, out, err = run(capsys, "plan", pattern, "--planner", "DP-B", "--stats", write_stats(tmp_path))
    assert code == 0 and "((a, c), b)" in out
    assert err.count("warning:") == 1 and "no selectivity for variables a,b (a.x < b.x): using 1.0" in err


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--planner", "DP-X"], "unknown planner 'DP-X'"),
        (["--planner", "GREEDY", "--param", "restarts=2"], "restarts"),
        (["--planner", "DP-B", "--alpha", "-1"], "alpha"),
    ],
)
def test_bad_options_are_one_line_errors_with_status_2(tmp_path, capsys, extra, message):
    code, out, err = run(capsys, "plan", FIG2, "--stats", write_stats(tmp_path), *extra)
    assert code == 2 and message in err and err.startswith("error: ") and err.count("\n") == 1


@pytest.mark.parametrize(
    "rates, sels, message",
    [
        ({"A": 1.0, "B": 1.0}, {}, "'C'"),
        ({"A": 1.0, "B": 1.0, "C": 1.0}, {"a,c": -0.1}, "'a,c'"),
        ({"A": 1.0, "B": 1.0, "C": 1.0}, {"a,c": 1.5}, "'a,c'"),
        ({"A": -2.0, "B": 1.0, "C": 1.0}, {}, "'A'"),
    ],
)
def test_bad_statistics_are_one_line_errors_with_status_2(tmp_path, capsys, rates, sels, message):
    code, out, err = run(capsys, "plan", FIG2, "--planner", "DP-B", "--stats", write_stats(tmp_path, rates, sels or {"b": 1.0}))
    assert code == 2 and message in err and err.startswith("error: ") and err.count("\n") == 1


def test_bench_planners_prints_time_and_normalized_cost_per_planner_and_size(capsys):
    code, out, _ = run(capsys, "bench", "planners", "--sizes", "3-4", "--patterns", "2", "--json", "--planners", "EFREQ,GREEDY,DP-B")
    rows = [json.loads(l) for l in out.splitlines()]
    assert code == 0 and [(r["size"], r["planner"]) for r in rows] == [(s, p) for s in (3, 4) for p in ("EFREQ", "GREEDY", "DP-B")]
    for r in rows:
        assert r["mean_normalized_cost"] > 0
        if r["planner"] == "EFREQ":
            assert r["mean_normalized_cost"] == 1.0
    # DP-B is exact, so never worse than EFREQ's order taken as a left-deep tree
    assert all(r["mean_normalized_cost"] >= 1.0 - 1e-12 for r in rows if r["planner"] == "DP-B")


def test_bench_rejects_bad_sizes(capsys):
    code, _, err = run(capsys, "bench", "planners", "--sizes", "x-3")
    assert code == 2 and "--sizes" in err
