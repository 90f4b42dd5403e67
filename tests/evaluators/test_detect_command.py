"""``python -m experiments detect``: JSON metrics, the matches file, the default evaluator, and
one-line errors that leave no half-written output."""

from __future__ import annotations

import json

import pytest

from cep import parse_pattern
from evaluators.brute_force import brute_force_matches
from experiments.cli import main
from experiments.data.readers import read_events

PATTERN = "PATTERN SEQ(MSFT a, DRIV b, ORLY c) WHERE a.high < b.high AND b.high < c.high WITHIN 3 minutes"


@pytest.fixture()
def medium(data_dir):
    return data_dir / "nasdaq" / "NASDAQ_MEDIUM.txt"


def test_json_output_and_matches_file(medium, tmp_path, capsys):
    out = tmp_path / "m.jsonl"
    assert main(["detect", PATTERN, "--data", str(medium), "--planner", "DP-B", "--out", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    for key in ("matches", "events", "throughput_eps", "peak_partial_matches", "peak_memory_bytes",
                "latency_ms_mean", "latency_ms_p95", "elapsed_s", "planner", "evaluator", "plan"):
        assert key in report
    assert report["planner"] == "DP-B" and report["evaluator"] == "tree" and report["events"] == 1652
    want = brute_force_matches(parse_pattern(PATTERN), read_events(medium).to_events())
    lines = out.read_text().splitlines()
    assert report["matches"] == len(lines) == len(want) > 0
    assert [json.loads(line) for line in lines] == [m.as_dict() for m in want]


def test_order_planner_runs_on_the_nfa_by_default_and_on_the_tree_on_request(medium, capsys):
    assert main(["detect", PATTERN, "--data", str(medium), "--planner", "GREEDY", "--json", "--no-memory"]) == 0
    nfa = json.loads(capsys.readouterr().out)
    assert nfa["evaluator"] == "nfa" and nfa["peak_memory_bytes"] is None
    assert main(["detect", PATTERN, "--data", str(medium), "--planner", "GREEDY", "--evaluator", "tree", "--json", "--no-memory"]) == 0
    tree = json.loads(capsys.readouterr().out)
    assert tree["evaluator"] == "tree" and tree["matches"] == nfa["matches"]


def test_text_output_and_statistics_file(medium, tmp_path, capsys):
    stats = tmp_path / "stats.json"
    stats.write_text(json.dumps({"rates": {"MSFT": 0.001, "DRIV": 0.02, "ORLY": 0.05}}))
    assert main(["detect", PATTERN, "--data", str(medium), "--planner", "DP-LD", "--stats", str(stats), "--no-memory"]) == 0
    captured = capsys.readouterr()
    text = captured.out
    assert "evaluator: nfa" in text and "throughput:" in text and "events: 1,652" in text
    # the file's rates, not the data's, chose the plan: MSFT rarest first (the data would start
    # with ORLY), and the cost is Cost_ord under them over 3 minutes with no selectivity known:
    # 0.18 + 0.18 * 3.6 + 0.18 * 3.6 * 9 = 6.66
    assert "plan (DP-LD, order): a, b, c   cost 6.66" in text
    assert "no selectivity for variables a,b" in captured.err and "no selectivity for variables b,c" in captured.err


def test_parquet_data_by_dataset_name(capsys):
    p = "PATTERN SEQ(AAPL a, MSFT b) WHERE a.diff < b.diff WITHIN 10 minutes"
    assert main(["detect", p, "--data", "nasdaq", "--planner", "DP-B", "--json", "--no-memory"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["events"] > 100_000 and report["data"].endswith("nasdaq_5min_sample.parquet")


@pytest.mark.parametrize(
    "content, message",
    [
        ("MSFT,200802010900,1,2,3,4,5\nDRIV,200802010901,1,oops,3,4,5\n", "row 2: field high: 'oops' is not a number"),
        ("MSFT,200802010900,1,2,3,4,5\nDRIV,200802010859,1,2,3,4,5\n", "row 2: field timestamp: 200802010859 is earlier"),
    ],
)
def test_bad_events_file_is_a_one_line_error_and_leaves_out_untouched(tmp_path, capsys, content, message):
    data = tmp_path / "bad.txt"
    data.write_text(content)
    out = tmp_path / "m.jsonl"
    out.write_text("previous results\n")
    assert main(["detect", PATTERN, "--data", str(data), "--planner", "DP-B", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: {data}: {message}")
    assert out.read_text() == "previous results\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.txt", "m.jsonl"]


def test_partial_match_cap_is_a_one_line_error_and_writes_nothing(medium, tmp_path, capsys):
    out = tmp_path / "m.jsonl"
    p = "PATTERN AND(MSFT a, DRIV b, ORLY c, CBRL d) WITHIN 30 minutes"
    code = main(["detect", p, "--data", str(medium), "--planner", "DP-B", "--out", str(out), "--max-partial-matches", "50"])
    assert code == 2
    err = capsys.readouterr().err
    assert "crossed the cap of 50" in err and "--max-partial-matches" in err and err.count("\n") == 1
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_detect_needs_exactly_one_pattern(medium, capsys):
    two = "PATTERN SEQ(A a, B b) WITHIN 1 s; PATTERN SEQ(C c, D d) WITHIN 1 s"
    assert main(["detect", two, "--data", str(medium)]) == 2
    assert "exactly one pattern" in capsys.readouterr().err
