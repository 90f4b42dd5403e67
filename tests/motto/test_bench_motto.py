"""``python -m experiments bench motto`` (MOTTO Figure 14a's measurement): one JSON row per seed and
workload size, the exact searches agreeing and annealing never below them; one-line errors."""

from __future__ import annotations

import json

import pytest

from experiments.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_rows_per_seed_and_size_with_both_exact_searches_agreeing(capsys):
    # --budget inf: no clock, so both branch and bounds finish and annealing evaluates all its neighbours
    code, out, _ = run(capsys, "bench", "motto", "--sizes", "3,6", "--seeds", "0,1", "--budget", "inf",
                       "--sa-neighbours", "500", "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [(r["seed"], r["queries"]) for r in rows] == [(0, 3), (0, 6), (1, 3), (1, 6)]
    for r in rows:
        assert r["bb_exact"] and r["milp_exact"]
        assert r["bb_cost/trivial"] == pytest.approx(r["milp_cost/trivial"])
        assert r["milp_cost/trivial"] - 1e-9 <= r["sa_cost/trivial"] <= 1.0 + 1e-9
        assert r["vertices"] == 1 + r["queries"] + r["steiner"]  # the root q_0, the queries, the Steiner vertices
        assert r["sa_neighbours"] == (500 if r["steiner"] else 0)  # the annealing's whole budget, with no clock


def test_the_table_is_printed_without_json(capsys):
    code, out, _ = run(capsys, "bench", "motto", "--sizes", "3", "--budget", "inf", "--sa-neighbours", "100",
                       "--no-combinatorial")
    lines = out.splitlines()
    assert code == 0 and lines[0] == "budget inf s, r = 1" and lines[1].split()[:2] == ["seed", "queries"]
    assert "milp_exact" in lines[1] and "bb_exact" not in lines[1]  # the skipped search has no column
    assert lines[2].split()[lines[1].split().index("milp_exact")] == "True"


@pytest.mark.parametrize("argv, message", [(["--sizes", "x"], "--sizes"), (["--sizes", "0"], "--sizes"),
                                           (["--seeds", "-1"], "--seeds"), (["--budget", "0"], "--budget")])
def test_bad_options_are_one_line_errors(capsys, argv, message):
    code, _, err = run(capsys, "bench", "motto", *argv)
    assert code == 2 and message in err and err.count("\n") == 1
