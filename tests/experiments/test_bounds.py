"""Capped runs as bounds (experiments/reporting/bounds.py): a capped cell's throughput is at most all
events over its time to the cap, a ratio over it is a lower bound, and a bound can decide a claim."""

from __future__ import annotations

import pandas as pd

from experiments.reporting import rules
from experiments.reporting.bounds import (
    UPPER,
    bound_notes,
    bounded_ratios,
    throughput_bounds,
    with_bounds,
)


def _rows(cells):
    """Result rows of the store's schema: (pattern, algorithm, status, {metric: value})."""
    out = []
    for pid, alg, status, metrics in cells:
        for m, v in metrics.items():
            out.append({"dataset": "d", "pattern_id": pid, "algorithm": alg, "x_name": "events_per_minute", "x_value": 1000.0,
                        "cell_id": f"{pid}-{alg}", "metric": m, "value": v, "status": status})
    return pd.DataFrame(out)


CAP = "capped: two-step: more than 100 constructed trends"
DF = _rows([
    ("p1", "hamlet", "ok", {"throughput_eps": 50_000.0, "events": 2000}),
    ("p1", "two-step", CAP, {"throughput_eps": None, "events": 2000, "capped_elapsed_s": 0.5, "processed_events": 100}),
    ("p2", "hamlet", "ok", {"throughput_eps": 40_000.0, "events": 2000}),
    ("p2", "two-step", "ok", {"throughput_eps": 1_000.0, "events": 2000}),
    ("p3", "hamlet", CAP, {"throughput_eps": None, "events": 2000, "capped_elapsed_s": 1.0}),
    ("p3", "two-step", CAP, {"throughput_eps": None, "events": 2000, "capped_elapsed_s": 2.0}),
])


def test_a_capped_cell_bounds_its_throughput_from_above():
    b = throughput_bounds(DF)
    assert set(b["pattern_id"]) == {"p1", "p3"}
    p1 = b[(b["pattern_id"] == "p1")].iloc[0]
    # all 2,000 events over the 0.5 s it ran: the full run takes at least that long
    assert p1["throughput_eps"] == 4000.0 and p1["bound"] == UPPER


def test_ratios_over_a_bound_are_lower_bounds_and_two_bounds_are_left_out():
    ratios, lower, upper = bounded_ratios(with_bounds(DF), "hamlet", "two-step", ("dataset", "pattern_id"))
    assert sorted(zip(ratios, lower, upper)) == [(12.5, True, False), (40.0, False, False)]
    back, lo2, up2 = bounded_ratios(with_bounds(DF), "two-step", "hamlet", ("dataset", "pattern_id"))
    assert sorted(zip(back, lo2, up2)) == [(0.025, False, False), (0.08, False, True)]


def test_a_bound_can_decide_a_claim_only_on_its_side():
    # lower bounds all far above c: the claim holds whatever the real values are
    # (eight units: the sign-test interval of a median needs six or more)
    e = rules.ratio_interval([40.0, 50.0, 60.0, 45.0, 55.0, 42.0, 58.0, 48.0], lower=[True, True] + [False] * 6)
    assert rules.at_least(e, 7).verdict == rules.HOLDS
    # lower bounds all below c: the real values may lie above c -- a real effect, its size open
    e = rules.ratio_interval([2.0, 2.2, 2.1, 2.3, 1.9, 2.05, 2.15, 2.25], lower=[True] * 8)
    assert rules.at_least(e, 7).verdict == rules.NOT_MEASURABLE
    # lower bounds under 1 decide nothing
    e = rules.ratio_interval([0.5, 0.6, 0.55, 0.52, 0.58, 0.54, 0.56, 0.57], lower=[True] * 8)
    assert rules.at_least(e, 7).verdict == rules.NOT_MEASURABLE


def test_notes_name_the_bounds_and_the_processed_share():
    notes = bound_notes(DF)
    assert any("two-step capped in 2 cells" in n and "<= 1,000-4,000 events/s" in n for n in notes)
