"""Adaptive re-planning loses no match (MCEP 6.2.3): a stream run as segments of different global
plans (:func:`evaluators.multi.evaluate_segments`) reports, per pattern, exactly what one pass of one
plan over the whole stream reports -- the matches that span a re-planning point included."""

from __future__ import annotations

from pathlib import Path

import pytest

from algorithms.multi import plan_workload
from cep.events import Event, EventStream
from cep.parser import parse_patterns
from evaluators.multi import evaluate_segments, evaluate_workload
from experiments.data.readers import read_events
from experiments.data.statistics import estimate_workload_statistics

ROOT = Path(__file__).resolve().parents[2]

# prefixes and sub-conjunctions to share, a negation inside a SEQ and one that may follow the last
# event (its matches are held past the segment's end), a Kleene event, and count windows
WORKLOAD = """
PATTERN SEQ(MSFT a, DRIV b, ORLY c) WHERE a.high < b.high WITHIN 5 minutes
PATTERN SEQ(MSFT a, DRIV b, CBRL c) WHERE a.high < b.high WITHIN 4 minutes
PATTERN SEQ(MSFT a, NOT(CBRL x), DRIV b) WHERE a.high < b.high WITHIN 5 minutes
PATTERN SEQ(MSFT a, DRIV b, NOT(ORLY x)) WHERE a.low < b.low WITHIN 3 minutes
PATTERN AND(MSFT a, KL(DRIV b){1,2}, ORLY c) WITHIN 2 minutes
PATTERN SEQ(DRIV a, MSFT b, CBRL c) WHERE a.high < c.high WITHIN 25 events
PATTERN SEQ(DRIV a, MSFT b, NOT(ORLY x)) WITHIN 12 events
"""

PLANNERS = ["SA-EDGE", "TRIVIAL", "TS-EDGE-PREFIX", "DP-B", "SA-VERTEX4"]
STARTS = [0, 317, 700, 701, 1150, 1400]


@pytest.fixture(scope="module")
def setting():
    stream = read_events(ROOT / "data" / "nasdaq" / "NASDAQ_MEDIUM.txt")
    pats = parse_patterns(WORKLOAD)
    stats = estimate_workload_statistics(stream, pats, seed=0)
    plans = {name: plan_workload(pats, name, stats, seed=0, max_steps=300).plan for name in PLANNERS}
    return stream, pats, plans


def test_segments_of_different_plans_report_the_matches_of_one_pass(setting):
    stream, pats, plans = setting
    one_pass = {name: evaluate_workload(pats, g, stream, collect_matches=False).counts for name, g in plans.items()}
    expected = one_pass["SA-EDGE"]
    assert all(c == expected for c in one_pass.values())  # every plan finds the same matches
    assert all(c > 0 for c in expected)
    segments = [(s, plans[PLANNERS[i % len(PLANNERS)]]) for i, s in enumerate(STARTS)]
    res = evaluate_segments(pats, segments, stream)
    assert res.counts == expected
    assert res.metrics["events"] == len(stream) and res.metrics["replayed_events"] > 0


def test_the_segments_cross_matches_that_chunks_alone_would_lose(setting):
    """The boundaries above do cut matches: running each segment's events alone finds fewer."""
    stream, pats, plans = setting
    bounds = STARTS[1:] + [len(stream)]
    alone = [0] * len(pats)
    for a, b in zip(STARTS, bounds):
        part = EventStream([Event(e.type, e.ts, e.attrs) for e in stream.events[a:b]])
        for i, c in enumerate(evaluate_workload(pats, plans["SA-EDGE"], part, collect_matches=False).counts):
            alone[i] += c
    full = evaluate_workload(pats, plans["SA-EDGE"], stream, collect_matches=False).counts
    assert sum(alone) < sum(full)


def test_segments_must_cover_the_stream_from_its_start(setting):
    from cep.errors import PlanError

    stream, pats, plans = setting
    with pytest.raises(PlanError):
        evaluate_segments(pats, [(5, plans["DP-B"])], stream)
    with pytest.raises(PlanError):
        evaluate_segments(pats, [(0, plans["DP-B"]), (0, plans["TRIVIAL"])], stream)


def test_adaptive_and_static_cells_report_identical_counts_across_replanning_points():
    """mcep_fig13's reshuffled real-data stream, re-planned at several points: static (one plan, one
    pass) and adaptive (a new plan per drift) report identical per-pattern counts."""
    from hydra import compose, initialize_config_dir

    from experiments.exps.mcep_figs import ADAPTIVE_CELL, build_specs

    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base="1.3"):
        cfg = compose("config", overrides=[
            "+exp=mcep_fig13", "runner=serial", "exp.datasets=[nasdaq]", "exp.scales.quick.seeds=[0]", "exp.scales.quick.windows=3",
            "exp.scales.quick.events_per_window=5", "exp.scales.quick.values.reshuffle_every=[250]",
            "exp.scales.quick.base.search_steps=200", "exp.scales.quick.base.workload_size=5",
            "exp.scales.quick.base.chunk=150", "exp.scales.quick.base.drift=0.5",
        ])
    specs = {s["algorithm"]: s for s in build_specs(cfg) if s["x_name"] == "reshuffle_every"}
    def run(spec):
        from evaluators.multi import evaluate_segments

        stream = ADAPTIVE_CELL.stream(spec)
        pats = ADAPTIVE_CELL.workload(spec, stream)
        (p,) = ADAPTIVE_CELL.plan(spec, pats, ADAPTIVE_CELL.statistics(spec, stream, pats)).values()
        return evaluate_segments(pats, p.plan, stream), p.metrics["replans"]

    static, _ = run(specs["static"])
    adaptive, replans = run(specs["adaptive"])
    assert replans >= 2 and adaptive.metrics["segments"] >= 3
    assert static.metrics["segments"] == 1
    assert sum(static.counts) > 0
    assert adaptive.counts == static.counts
