"""``python -m experiments bench density``: both engines run the same events of the dense replay and create
the same partial matches; a run the partial-match cap stops has created more than ``cap`` of them."""

from __future__ import annotations

import json
import subprocess

import pytest

from experiments.bench.baseline import REPO
from experiments.cli import main


def _rows(capsys, *argv):
    code = main(["bench", "density", "--events-per-window", "60", "--cap", "2000", "--repeats", "1", "--json", *argv])
    out, _ = capsys.readouterr()
    assert code == 0
    return [json.loads(line) for line in out.splitlines()]


def test_a_row_per_pattern_and_plan_stopped_past_the_cap(capsys):
    rows = _rows(capsys, "--no-baseline")
    assert [(r["pattern"][8:11], r["planner"], r["evaluator"]) for r in rows] == [
        ("SEQ", "DP-LD", "nfa"), ("SEQ", "DP-B", "tree"), ("AND", "DP-LD", "nfa"), ("AND", "DP-B", "tree")]
    for r in rows:
        # 60 events per type per window make every plan hold more than 2,000 partial matches at once
        assert r["stopped_by"] == "partial matches" and r["processed_events"] < r["events"]
        assert r["partial_matches_created"] >= 2001  # more than the cap were live at once
        assert r["partial_matches_per_s"] == pytest.approx(r["partial_matches_created"] / r["elapsed_s"])
        assert 0 < r["processed_events"] <= r["events"]


def test_the_earlier_engine_creates_the_same_partial_matches(capsys):
    try:
        subprocess.run(["git", "-C", str(REPO), "rev-parse", "--verify", "f697127^{commit}"], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout holding f697127: the earlier engine needs it")
    rows = _rows(capsys, "--max-work", "2e5")
    assert rows and all(r["same_partial_matches"] for r in rows), [(r["partial_matches_created"], r["baseline_partial_matches_created"]) for r in rows]
    assert all(r["ratio_to_baseline"] > 0 for r in rows)
