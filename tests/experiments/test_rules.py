"""The report's rule set (experiments/reporting/rules.py): known intervals through every verdict branch."""

from __future__ import annotations

import math

import numpy as np
import pytest

from experiments.reporting import rules
from experiments.reporting.rules import (
    FAILS,
    HOLDS,
    NOT_MEASURABLE,
    PARTLY,
    UNCHECKED,
    Interval,
)


def ratio(est, lo, hi, n=20, sd=0.5, lower=0, upper=0):
    return Interval(est, lo, hi, n, "ratio", lower, upper, sd)


@pytest.mark.parametrize("lo, hi, c, verdict", [
    (1.2, 3.0, 1.5, HOLDS),            # a real effect, consistent with the claimed size
    (1.2, 1.4, 1.5, PARTLY),           # a real effect, smaller than claimed
    (0.9, 1.4, 1.5, FAILS),            # the claimed size is excluded
    (0.5, 0.9, 1.5, FAILS),            # reversed
    (0.9, 2.0, 1.5, NOT_MEASURABLE),   # cannot decide
    (1.01, 1.05, 1.0, HOLDS),          # a bare direction (c = 1): any real effect holds
])
def test_at_least_four_way(lo, hi, c, verdict):
    v = rules.at_least(ratio(math.sqrt(lo * hi), lo, hi), c)
    assert v.verdict == verdict
    assert (v.needed is not None) == (verdict == NOT_MEASURABLE)


def test_the_review_cases_are_decided():
    # DP-B/DP-LD 0.82x [0.71, 0.94] against "greatly outperform": the data say it does not hold
    assert rules.at_least(ratio(0.82, 0.71, 0.94), rules.GREATLY).verdict == FAILS
    # TRIVIAL/ZSTREAM 0.86x [0.76, 0.97] against "the trivial plan performs best"
    assert rules.at_least(ratio(0.86, 0.76, 0.97), rules.BEATS).verdict == FAILS
    # GRETA 8.7x against "3 orders of magnitude": a real effect, smaller than claimed
    assert rules.at_least(ratio(8.7, 5.8, 13.1), 1000).verdict == PARTLY


def test_not_measurable_says_how_many_workloads_would_decide():
    sd, n = 1.0, 10
    v = rules.at_least(ratio(1.3, 0.6, 2.8, n=n, sd=sd), 1.5)
    assert v.verdict == NOT_MEASURABLE
    assert v.needed == math.ceil((1.96 * sd / math.log(1.3)) ** 2)
    assert f"about {v.needed} workloads" in v.ours


def test_fewer_than_two_workloads_is_not_checkable():
    assert rules.at_least(rules.ratio_interval([2.0]), 1.1).verdict == UNCHECKED
    assert rules.at_least(rules.ratio_interval([]), 1.1).verdict == UNCHECKED


def test_ratio_interval_is_the_log_t_interval():
    from scipy import stats

    r = [1.0, 2.0, 4.0, 8.0]
    e = rules.ratio_interval(r)
    logs = np.log(r)
    half = stats.t.ppf(0.975, 3) * logs.std(ddof=1) / 2
    assert e.n == 4 and e.estimate == pytest.approx(math.exp(logs.mean()))
    assert e.lo == pytest.approx(math.exp(logs.mean() - half)) and e.hi == pytest.approx(math.exp(logs.mean() + half))
    assert rules.ratio_interval([1.0, 0.0, math.nan, -2, math.inf, 3.0]).n == 2  # only positive finite ratios


@pytest.mark.parametrize("lo, hi, verdict", [
    (0.9, 1.1, HOLDS), (1.3, 1.6, FAILS), (0.5, 0.7, FAILS), (0.9, 1.4, NOT_MEASURABLE),
])
def test_comparable_within_a_band(lo, hi, verdict):
    assert rules.comparable(ratio(math.sqrt(lo * hi), lo, hi), 1.25).verdict == verdict


def test_trends_are_judged_on_the_slope_of_log_metric_against_log_parameter():
    x = np.repeat([1, 2, 4, 8, 16], 4).astype(float)
    rng = np.random.default_rng(0)
    grows = x ** 0.8 * np.exp(rng.normal(0, 0.05, len(x)))
    e = rules.slope_interval(x, grows)
    assert e.scale == "slope" and e.lo < 0.8 < e.hi
    assert rules.at_least(e, 0.2).verdict == HOLDS
    assert rules.at_least(rules.invert(e), 0.2).verdict == FAILS  # "falls with": reversed
    flat = np.exp(rng.normal(0, 0.05, len(x)))
    assert rules.comparable(rules.slope_interval(x, flat), 0.1, target=0.0).verdict == HOLDS  # "does not change"
    assert rules.comparable(e, 0.1, target=1.0).verdict == FAILS  # not linear: 0.8, outside 1 +- 0.1
    assert rules.comparable(e, 0.3, target=1.0).verdict == HOLDS  # "roughly linear" within 1 +- 0.3


def test_bounds_stand_only_where_they_cannot_overturn_the_verdict():
    # lower bounds (capped baselines): they can only raise the real effect
    assert rules.at_least(ratio(3.0, 2.0, 4.0, lower=2), 1.5).verdict == HOLDS
    assert rules.at_least(ratio(1.3, 1.1, 1.4, lower=2), 1.5).verdict == PARTLY
    assert rules.at_least(ratio(0.8, 0.6, 1.1, lower=2), 1.5).verdict == NOT_MEASURABLE
    # upper bounds: they can only lower it
    assert rules.at_least(ratio(0.8, 0.6, 1.1, upper=2), 1.5).verdict == FAILS
    assert rules.at_least(ratio(3.0, 2.0, 4.0, upper=2), 1.5).verdict == NOT_MEASURABLE


def test_more_workloads_are_advised_only_where_they_could_decide():
    """The sizing advice ("about N workloads would decide it") names only a verdict the bounds would let
    stand: never with bounds on both sides (jqpg_fig3's DP-LD over EFREQ at standard: 4.11x [3.54, 4.78]
    with 104 lower and 1 upper bound was told 438 workloads), and with one-sided bounds only toward the
    side they cannot overturn."""
    mixed = rules.at_least(ratio(4.11, 3.54, 4.78, n=437, lower=104, upper=1), 1.5)
    assert mixed.verdict == NOT_MEASURABLE and mixed.needed is None
    assert "a higher cap, not more workloads" in mixed.ours
    open_mixed = rules.at_least(ratio(1.3, 0.6, 2.8, n=10, sd=1.0, lower=1, upper=1), 1.5)
    assert open_mixed.verdict == NOT_MEASURABLE and open_mixed.needed is None
    # an open interval above 1 with lower bounds: more workloads would show a real effect, which stands
    assert rules.at_least(ratio(1.3, 0.6, 2.8, n=10, sd=1.0, lower=2), 1.5).needed is not None
    # the same with upper bounds: a real effect would be withheld
    assert rules.at_least(ratio(1.3, 0.6, 2.8, n=10, sd=1.0, upper=2), 1.5).needed is None
    # a lower-bounds "does not hold" withheld by its bounds: no advice, and the text says why
    held = rules.at_least(ratio(0.8, 0.6, 1.1, lower=2), 1.5)
    assert held.verdict == NOT_MEASURABLE and held.needed is None and "higher cap" in held.ours
    both = rules.not_worse(ratio(0.9, 0.5, 1.6, n=10, sd=1.0, lower=1, upper=1))
    assert both.verdict == NOT_MEASURABLE and both.needed is None
    assert rules.not_worse(ratio(0.9, 0.5, 1.6, n=10, sd=1.0)).needed is not None


def test_pooling_counts_a_workload_once():
    same = {"w1": 2.0, "w2": 4.0}
    pooled = rules.pooled({"SA-EDGE": same, "TS-EDGE": dict(same)})
    assert pooled == {"w1": 2.0, "w2": 4.0}
    assert rules.pooled({"A": {"w1": 2.0}, "B": {"w1": 8.0, "w2": 1.0}}) == {"w1": 4.0, "w2": 1.0}


def test_every_method_has_a_style_no_other_method_has():
    from collections import Counter

    from experiments.reporting.plotstyle import ALGORITHM_STYLE

    pairs = Counter((s.color, s.marker) for s in ALGORITHM_STYLE.values())
    assert [p for p, k in pairs.items() if k > 1] == []


# ---- the rules appended for the JQPG, NEXT and MOTTO sections ------------------------------------------
@pytest.mark.parametrize("lo, hi, verdict", [
    (0.85, 1.3, HOLDS),            # comparable or better: the CI stays above 1/1.25
    (0.5, 0.7, FAILS),             # worse than the band allows
    (0.7, 1.1, NOT_MEASURABLE),    # reaches below 1/1.25 and above it
])
def test_not_worse_is_non_inferiority(lo, hi, verdict):
    v = rules.not_worse(ratio(math.sqrt(lo * hi), lo, hi), rules.COMPARABLE)
    assert v.verdict == verdict
    assert (v.needed is not None) == (verdict == NOT_MEASURABLE)


def test_not_worse_with_bounds_keeps_only_the_side_they_cannot_move():
    # lower bounds can only rise: a "does not hold" on them could be overturned
    assert rules.not_worse(ratio(0.6, 0.5, 0.7, lower=3)).verdict == NOT_MEASURABLE
    assert rules.not_worse(ratio(1.1, 0.9, 1.3, lower=3)).verdict == HOLDS


def test_all_of_is_decided_by_the_weakest_part():
    holds = rules.at_least(ratio(2.0, 1.8, 2.2), 1.5)
    partly = rules.at_least(ratio(1.2, 1.1, 1.3), 1.5)
    fails = rules.at_least(ratio(0.8, 0.7, 0.9), 1.5)
    assert rules.all_of([holds, partly]).verdict == PARTLY
    v = rules.all_of([holds, partly, fails])
    assert v.verdict == FAILS and v.effect == fails.effect
    unchecked = rules.at_least(ratio(2.0, math.nan, math.nan, n=1), 1.5)
    assert rules.all_of([holds, unchecked]).verdict == UNCHECKED
    assert rules.all_of([fails, unchecked]).verdict == FAILS  # one excluded part decides
    assert rules.all_of([]).verdict == UNCHECKED
    strong = rules.at_least(ratio(5.0, 4.0, 6.0), 1.5)
    assert rules.all_of([strong, holds]).effect == holds.effect  # the part nearest to failing is shown


def test_semilog_slope_is_the_slope_of_log_y_on_x_itself():
    x = np.array([0.0, 0.25, 0.5, 0.75, 1.0] * 3)
    noise = np.array([1.0, 1.01, 0.99] * 5)
    e = rules.semilog_slope_interval(x, np.exp(0.7 * x) * noise)
    assert e.scale == "slope" and e.lo < 0.7 < e.hi and e.hi - e.lo < 0.1
    assert rules.at_least(e, rules.TREND).verdict == HOLDS
    flat = rules.semilog_slope_interval(x, noise)
    assert rules.at_least(flat, rules.TREND).verdict == FAILS


def test_none_differ_is_a_deterministic_equality_that_can_fail():
    assert rules.none_differ(0, 18).verdict == HOLDS
    v = rules.none_differ(2, 18, "cells")
    assert v.verdict == FAILS and v.ours == "2 of 18 differ" and "cells" in v.rule
    assert rules.none_differ(0, 0).verdict == UNCHECKED


def test_paired_slope_interval_counts_workloads_and_their_spread():
    """One slope per workload (its own points), the interval over workloads: n is the number of
    workloads, and workloads that disagree give an interval that contains 0."""
    x = [1.0, 2.0, 4.0, 8.0]
    same = rules.paired_slope_interval([(x, [10 * v ** 0.5 for v in x]) for _ in range(3)])
    assert same.n == 3 and same.estimate == pytest.approx(0.5) and same.lo == pytest.approx(0.5)
    split = rules.paired_slope_interval([(x, [v ** 0.5 for v in x]), (x, [v ** -0.5 for v in x]), (x, [1.0] * 4)])
    assert split.n == 3 and split.lo < 0 < split.hi
    assert rules.at_least(split, rules.TREND).verdict == NOT_MEASURABLE
    assert rules.paired_slope_interval([(x, [1.0, 2.0, 3.0, 4.0])]).n == 1  # one workload: no interval
