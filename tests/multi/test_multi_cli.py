"""``plan --patterns`` and ``detect --patterns``: a workload file with one global plan; per-pattern
counts equal what each pattern alone reports; one-line errors."""

from __future__ import annotations

import functools
import json

import pytest

from cep.parser import parse_pattern_file
from evaluators.brute_force import brute_force_matches
from experiments.cli import main
from experiments.data.readers import read_events

WORKLOAD = """
PATTERN SEQ(MSFT a, DRIV b, ORLY c) WHERE a.high < b.high WITHIN 3 minutes
PATTERN SEQ(MSFT a, DRIV b, CBRL d) WHERE a.high < b.high WITHIN 5 minutes
PATTERN AND(MSFT a, DRIV b) WHERE a.high < b.high WITHIN 2 minutes
PATTERN SEQ(MSFT a, DRIV b) WHERE a.low < b.low WITHIN 2 minutes
PATTERN SEQ(MSFT a, DRIV b, NOT(ORLY n), CBRL d) WHERE a.high < b.high WITHIN 4 minutes
"""


@pytest.fixture()
def medium(data_dir):
    return data_dir / "nasdaq" / "NASDAQ_MEDIUM.txt"


@pytest.fixture()
def workload(tmp_path):
    p = tmp_path / "wl.txt"
    p.write_text(WORKLOAD)
    return p


@pytest.fixture()
def stats_file(tmp_path):
    p = tmp_path / "stats.json"
    p.write_text(json.dumps({"rates": {"MSFT": 1.0, "DRIV": 0.2, "ORLY": 0.5, "CBRL": 2.0}, "selectivities": {"a,b": 0.4}}))
    return p


@functools.lru_cache(maxsize=None)
def _alone(medium: str, workload: str) -> list[int]:
    stream = read_events(medium).to_events()
    return [len(brute_force_matches(p, stream)) for p in parse_pattern_file(workload)]


def test_detect_estimates_statistics_from_the_events_by_default(medium, workload, capsys):
    assert main(["detect", "--patterns", str(workload), "--data", str(medium), "--planner", "TS-EDGE",
                 "--time-limit", "0.2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["matches_by_pattern"] == _alone(str(medium), str(workload))


@pytest.mark.parametrize("planner", ["SA-EDGE", "TS-EDGE-PREFIX", "GREEDY"])
def test_detect_counts_per_pattern_equal_each_pattern_alone(planner, medium, workload, stats_file, capsys):
    assert main(["detect", "--patterns", str(workload), "--data", str(medium), "--planner", planner,
                 "--time-limit", "0.3", "--stats", str(stats_file), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("matches_by_pattern", "matches", "events", "throughput_eps", "peak_partial_matches", "planner"):
        assert key in out
    want = _alone(str(medium), str(workload))
    assert out["matches_by_pattern"] == want and out["matches"] == sum(want) and out["events"] == 1652
    assert out["planner"] == planner
    assert out["evaluator"] == ("multi-nfa" if planner in ("TS-EDGE-PREFIX", "TRIVIAL", "GREEDY") else "multi-tree")


def test_plan_prints_shared_nodes_costs_and_neighbours_evaluated(workload, stats_file, capsys):
    assert main(["plan", "--patterns", str(workload), "--planner", "SA-EDGE", "--time-limit", "0.3",
                 "--stats", str(stats_file)]) == 0
    text = capsys.readouterr().out
    assert "shared nodes" in text and "trivial global plan" in text and "neighbours evaluated" in text
    assert main(["plan", "--patterns", str(workload), "--planner", "TS-VERTEX4", "--time-limit", "0.3",
                 "--stats", str(stats_file), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["cost"] <= d["initial_cost"] * (1 + 1e-9) and d["trivial_cost"] > 0 and d["neighbours_per_s"] > 0
    assert len(d["plans"]) == 5 and d["kind"] == "tree"


def test_plan_with_a_single_pattern_planner_shares_nothing(workload, stats_file, capsys):
    assert main(["plan", "--patterns", str(workload), "--planner", "TRIVIAL", "--stats", str(stats_file), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["cost"] == pytest.approx(d["trivial_cost"]) and not [s for s in d["shared_nodes"] if s["size"] > 1]


@pytest.mark.parametrize("argv, msg", [
    (["--planner", "SA-NOPE"], "unknown planner"),
    (["--planner", "all"], "one planner"),
    (["--planner", "SA-EDGE", "--time-limit", "0"], "positive"),
])
def test_errors_are_one_line(argv, msg, workload, stats_file, capsys):
    assert main(["plan", "--patterns", str(workload), "--stats", str(stats_file), *argv]) == 2
    err = capsys.readouterr().err
    assert msg in err and err.count("\n") == 1
