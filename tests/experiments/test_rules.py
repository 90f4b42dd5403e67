"""The report's rule set (experiments/reporting/rules.py): known intervals through every verdict branch."""

from __future__ import annotations

import math

import numpy as np
import pytest

from experiments.reporting import rules
from experiments.reporting.rules import (
    HOLDS,
    NO_EFFECT,
    NOT_MEASURABLE,
    PARTLY,
    REVERSED,
    UNCHECKED,
    Interval,
)


def ratio(est, lo, hi, n=20, sd=0.5, lower=0, upper=0):
    return Interval(est, lo, hi, n, "ratio", lower, upper, sd)


@pytest.mark.parametrize("lo, hi, c, verdict", [
    (1.2, 3.0, 1.5, HOLDS),            # a real effect, consistent with the claimed size
    (1.2, 1.4, 1.5, PARTLY),           # a real effect, smaller than claimed
    (0.9, 1.4, 1.5, NO_EFFECT),        # the claimed size is excluded, no effect either way shown
    (0.5, 0.9, 1.5, REVERSED),         # a real effect the other way
    (0.95, 1.05, 1.0, NOT_MEASURABLE), # a bare direction: an interval spanning 1 cannot exclude it
    (0.9, 2.0, 1.5, NOT_MEASURABLE),   # cannot decide
    (1.01, 1.05, 1.0, HOLDS),          # a bare direction (c = 1): any real effect holds
])
def test_at_least_every_outcome(lo, hi, c, verdict):
    v = rules.at_least(ratio(math.sqrt(lo * hi), lo, hi), c)
    assert v.verdict == verdict
    assert (v.needed is not None) == (verdict == NOT_MEASURABLE)


def test_the_review_cases_are_decided():
    # DP-B/DP-LD 0.82x [0.71, 0.94] against "greatly outperform": the data say it does not hold
    assert rules.at_least(ratio(0.82, 0.71, 0.94), rules.GREATLY).verdict == REVERSED
    # TRIVIAL/ZSTREAM 0.86x [0.76, 0.97] against "the trivial plan performs best"
    assert rules.at_least(ratio(0.86, 0.76, 0.97), rules.BEATS).verdict == REVERSED
    # an interval spanning 1 below the claimed size: no effect, not reversed
    assert rules.at_least(ratio(1.01, 0.9, 1.12), rules.GREATLY).verdict == NO_EFFECT
    # GRETA 8.7x against "3 orders of magnitude": a real effect, smaller than claimed
    assert rules.at_least(ratio(8.7, 5.8, 13.1), 1000).verdict == PARTLY


def test_not_measurable_says_how_many_workloads_would_decide():
    sd, n = 1.0, 10
    v = rules.at_least(ratio(1.3, 0.6, 2.8, n=n, sd=sd), 1.5)
    assert v.verdict == NOT_MEASURABLE
    assert v.needed == math.ceil((1.96 * sd / math.log(1.3)) ** 2)
    assert f"about {v.needed} units" in v.ours


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
    (0.9, 1.1, HOLDS), (1.3, 1.6, REVERSED), (0.5, 0.7, REVERSED), (0.9, 1.4, NOT_MEASURABLE),
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
    assert rules.at_least(rules.invert(e), 0.2).verdict == REVERSED  # "falls with": reversed
    flat = np.exp(rng.normal(0, 0.05, len(x)))
    assert rules.comparable(rules.slope_interval(x, flat), 0.1, target=0.0).verdict == HOLDS  # "does not change"
    assert rules.comparable(e, 0.1, target=1.0).verdict == REVERSED  # not linear: 0.8, outside 1 +- 0.1
    assert rules.comparable(e, 0.3, target=1.0).verdict == HOLDS  # "roughly linear" within 1 +- 0.3


def _censored(values, lower=(), upper=()):
    """Ratios with the units at the indices ``lower`` / ``upper`` flagged as lower / upper bounds."""
    n = len(values)
    return rules.ratio_interval(values, lower=[i in lower for i in range(n)], upper=[i in upper for i in range(n)])


def test_sign_test_rank_is_the_binomial_order_statistic():
    from scipy import stats

    for n in (6, 10, 20, 50, 437):
        k = rules.sign_test_rank(n)
        assert stats.binom.cdf(k - 1, n, 0.5) <= 0.025 < stats.binom.cdf(k, n, 0.5)
    assert rules.sign_test_rank(5) == 0  # too few values for a 95% interval


def test_a_few_bounds_that_cannot_move_the_median_interval_are_decided():
    """DP-LD over EFREQ, 4.09x with 1 upper bound among 437 workloads: setting that bound anywhere below its
    value moves the sign-test interval by at most one order statistic, so the verdict is decided."""
    rng = np.random.default_rng(1)
    r = np.exp(rng.normal(math.log(4.0), 0.3, 437))
    e = _censored(r, upper={0})
    assert e.method == "sign" and e.upper_bounds == 1 and e.lo_range and e.hi_range
    v = rules.at_least(e, rules.GREATLY)
    assert v.verdict == HOLDS and not v.held_by_bounds
    # tree over order plans, 0.80x with a few lower bounds well below 1: reversed whatever the bounds are
    r = np.exp(rng.normal(math.log(0.8), 0.2, 60))
    v = rules.at_least(_censored(r, lower={1, 2}), rules.GREATLY)
    assert v.verdict == REVERSED and not v.held_by_bounds


def test_bounds_that_could_overturn_the_verdict_keep_it_open():
    """Ten units, four of them lower bounds at ratios below 1: their real values may lie anywhere above, so
    the median interval may lie below 1 (reversed) or above it (holds) -- the claim must stay open, and a
    higher cap, not more units, would decide it."""
    values = [0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.6, 0.65, 0.62, 0.68]
    e = _censored(values, lower={6, 7, 8, 9})
    v = rules.at_least(e, rules.GREATLY)
    assert v.verdict == NOT_MEASURABLE and v.held_by_bounds and v.needed is None
    assert "a higher cap, not more units" in v.ours
    assert e.lo_range[0] < 1 < e.hi_range[1]
    # the same ratios measured (no bounds): reversed
    assert rules.at_least(rules.ratio_interval(values), rules.GREATLY).verdict == REVERSED


def test_bounds_decide_only_the_side_they_cannot_move():
    up = [2.0, 2.2, 2.4, 2.6, 2.8, 3.0, 3.2, 3.4, 3.6, 3.8]
    # lower bounds on a real effect only raise it: holds stands
    assert rules.at_least(_censored(up, lower={0, 1, 2}), 1.5).verdict == HOLDS
    # upper bounds on the same values could put the median anywhere below: open
    v = rules.at_least(_censored(up, upper={5, 6, 7, 8, 9}), 1.5)
    assert v.verdict == NOT_MEASURABLE and v.held_by_bounds
    # upper bounds below 1 only lower a reversed effect further: reversed stands
    down = [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.52]
    assert rules.at_least(_censored(down, upper={0, 1}), 1.5).verdict == REVERSED
    # bounds of both kinds on one comparable claim: decided only if every allowed interval agrees
    near = [0.95, 1.0, 1.05, 1.02, 0.98, 1.01, 0.99, 1.03, 0.97, 1.0, 1.04, 0.96]
    assert rules.comparable(_censored(near, lower={0}, upper={1}), 1.25).verdict == HOLDS
    wide = rules.comparable(_censored(near, lower={0, 2, 3, 5, 7, 10}, upper={1}), 1.25)
    assert wide.verdict == NOT_MEASURABLE and wide.held_by_bounds


def test_not_worse_with_bounds():
    below = [0.6, 0.62, 0.58, 0.65, 0.55, 0.6, 0.61, 0.59, 0.63, 0.57]
    assert rules.not_worse(_censored(below, upper={0})).verdict == REVERSED
    assert rules.not_worse(_censored(below, lower={0, 1, 2, 3, 4, 5})).verdict == NOT_MEASURABLE


def test_per_unit_gives_one_value_per_unit():
    """Sweep points of one seed are one observation (their geometric mean); a unit with a lower-bounded
    point is a lower bound; one with bounds both ways is left out."""
    obs = [rules.Observation("s1", 2.0), rules.Observation("s1", 8.0),
           rules.Observation("s2", 1.0), rules.Observation("s2", 4.0, lower=True),
           rules.Observation("s3", 3.0, lower=True), rules.Observation("s3", 3.0, upper=True),
           rules.Observation("s4", 2.0)]
    u = rules.per_unit(obs)
    assert u.left_out == 1 and set(u.values) == {"s1", "s2", "s4"}
    assert u.values["s1"][0] == pytest.approx(4.0) and u.values["s2"] == (pytest.approx(2.0), True, False)
    assert u.interval.n == 3 and u.interval.lower_bounds == 1


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
    (0.5, 0.7, REVERSED),          # worse than the band allows
    (0.7, 1.1, NOT_MEASURABLE),    # reaches below 1/1.25 and above it
])
def test_not_worse_is_non_inferiority(lo, hi, verdict):
    v = rules.not_worse(ratio(math.sqrt(lo * hi), lo, hi), rules.COMPARABLE)
    assert v.verdict == verdict
    assert (v.needed is not None) == (verdict == NOT_MEASURABLE)


def test_all_of_is_decided_by_the_weakest_part():
    holds = rules.at_least(ratio(2.0, 1.8, 2.2), 1.5)
    partly = rules.at_least(ratio(1.2, 1.1, 1.3), 1.5)
    fails = rules.at_least(ratio(0.8, 0.7, 0.9), 1.5)
    none = rules.at_least(ratio(1.0, 0.9, 1.1), 1.5)
    assert rules.all_of([holds, partly]).verdict == PARTLY
    v = rules.all_of([holds, partly, fails])
    assert v.verdict == REVERSED and v.effect == fails.effect
    assert rules.all_of([holds, none]).verdict == NO_EFFECT
    unchecked = rules.at_least(ratio(2.0, math.nan, math.nan, n=1), 1.5)
    assert rules.all_of([holds, unchecked]).verdict == UNCHECKED
    assert rules.all_of([fails, unchecked]).verdict == REVERSED  # one excluded part decides
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
    assert rules.at_least(flat, rules.TREND).verdict == NO_EFFECT


def test_none_differ_is_a_deterministic_equality_that_can_fail():
    assert rules.none_differ(0, 18).verdict == HOLDS
    v = rules.none_differ(2, 18, "cells")
    assert v.verdict == REVERSED and v.ours == "2 of 18 differ" and "cells" in v.rule
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


def test_a_trend_is_fitted_per_unit_and_bounded_points_bound_its_slope():
    """Each unit's slope from its own points; a capped point at the top of the sweep whose y is an upper
    bound makes the unit's slope an upper bound -- and the censored interval then decides a falling trend
    (every allowed slope is lower) but not a rising one."""
    x = [1.0, 2.0, 4.0, 8.0]
    falling = [(x, [8 / v * (1 + 0.01 * i) for v in x], [None, None, None, "upper"]) for i in range(8)]
    e = rules.paired_slope_interval(falling)
    assert e.n == 8 and e.upper_bounds == 8 and e.method == "sign"
    assert rules.at_least(rules.invert(e), rules.TREND).verdict == HOLDS
    rising = [(x, [v * (1 + 0.01 * i) for v in x], [None, None, None, "upper"]) for i in range(8)]
    v = rules.at_least(rules.paired_slope_interval(rising), rules.TREND)
    assert v.verdict == NOT_MEASURABLE and v.held_by_bounds


def test_too_few_censored_units_for_a_rank_interval_ask_for_more():
    """Four units, all lower bounds far above 1: the sign test has no 95% interval below six units, so the
    claim stays open and the row asks for six (not for a higher cap)."""
    v = rules.at_least(_censored([60.0, 70.0, 80.0, 65.0], lower={0, 1, 2, 3}), 1.0)
    assert v.verdict == NOT_MEASURABLE and not v.held_by_bounds and v.needed == 6
    assert "too few units" in v.ours
    assert rules.sign_test_min() == 6
