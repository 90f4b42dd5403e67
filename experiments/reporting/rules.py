"""The one rule set of the report's verdicts: every claim of a paper has a direction and a size, our data
give a paired effect with its 95% confidence interval, and where the interval lies decides.

Effects are *paired*: the ratio of two methods' metric on the same workload and the same stream (or, for
a trend, the slope of log(metric) against log(parameter) fitted over workloads).  ``n`` counts
independent workloads: methods pooled in one claim give one observation per workload (the geometric
mean of their ratios there), so two methods with identical plans are not counted twice.  Intervals are
Student-t intervals of the mean of the logarithms (of the slope, for trends).

A claim of an effect ``> 1`` of at least ``c`` (``c = 1.5`` for "greatly", a stated smallest meaningful
effect such as 1.1 for a bare "beats", the paper's number where it gives one), with the CI [lo, hi]:

* **holds**: lo > 1 and hi >= c -- a real effect, consistent with the claimed size;
* **partly**: lo > 1 and hi < c -- a real effect, smaller than claimed;
* **does not hold**: lo <= 1 and hi < c -- the claimed size is excluded (hi < 1: the effect is reversed);
* **not measurable**: lo <= 1 and hi >= c -- the data cannot decide; the report says about how many
  workloads would decide it, from the observed variance.

An equivalence claim ("comparable") with a band ``b``: holds when the CI lies inside [1/b, b], does not
hold when it lies wholly outside, not measurable otherwise.  A trend claim is the same four-way rule on
the slope (null 0, claimed slope ``c``), and "like 1/x^c" or "linear" is an equivalence on the slope.

A capped run (stopped at the partial-match or work cap) processed a known part of the stream in a known
time: its throughput is an upper bound, so a ratio over it is a *lower bound* (and one of it over
another an *upper bound*).  Bounds enter the interval as their values; a verdict stands only when the
bounds cannot overturn it: lower bounds can support ``holds`` and the real effect of ``partly`` (the size
may be larger), upper bounds can support ``does not hold``; any other verdict resting on bounds is
``not measurable``.  No verdict without an interval: fewer than two independent workloads are
``not checkable``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy import stats as st

HOLDS, PARTLY, FAILS, NOT_MEASURABLE, UNCHECKED = "holds", "partly", "does not hold", "not measurable", "not checkable"
VERDICTS = (HOLDS, PARTLY, FAILS, NOT_MEASURABLE, UNCHECKED)
CONFIDENCE = 0.95

#: stated sizes of the papers' words (a claim without a number)
GREATLY = 1.5  # "greatly", "clearly", "significantly", "far"
BEATS = 1.1  # a bare "beats", "outperforms", "improves"
COMPARABLE = 1.25  # the band of "comparable", "similar", "the same"


@dataclass(frozen=True)
class Interval:
    """A paired effect: its estimate and 95% CI on the scale the claim is stated on (a ratio, or a
    slope), the number of independent workloads, and how many of them are lower / upper bounds."""

    estimate: float
    lo: float
    hi: float
    n: int
    scale: str = "ratio"  # "ratio" (log-t interval, exponentiated) or "slope"
    lower_bounds: int = 0
    upper_bounds: int = 0
    log_sd: float = math.nan  # sd of the log ratios (ratio) or the slope's standard error x sqrt(n) (slope)

    def text(self) -> str:
        if self.n == 0:
            return "no data"
        unit = "x" if self.scale == "ratio" else ""
        head = f"{_num(self.estimate)}{unit}"
        body = head if self.n < 2 else f"{head} [{_num(self.lo)}, {_num(self.hi)}]"
        bounds = []
        if self.lower_bounds:
            bounds.append(f"{self.lower_bounds} lower bounds")
        if self.upper_bounds:
            bounds.append(f"{self.upper_bounds} upper bounds")
        return f"{body} (n={self.n}{', ' + ', '.join(bounds) if bounds else ''})"


def _num(x: float) -> str:
    if not math.isfinite(x):
        return "n/a"
    if abs(x) >= 1e4 or (abs(x) < 1e-2 and x != 0):
        return f"{x:.3g}"
    return f"{x:.2f}"


def _t(n: int) -> float:
    return float(st.t.ppf(0.5 + CONFIDENCE / 2, n - 1)) if n > 1 else math.inf


def ratio_interval(ratios: Sequence[float], *, lower: Sequence[bool] | None = None, upper: Sequence[bool] | None = None) -> Interval:
    """The geometric mean of positive finite ``ratios`` and the exponentiated Student-t 95% CI of their
    logarithms; ``lower``/``upper`` flag the ratios that are bounds (from capped runs)."""
    r = np.asarray(ratios, dtype=float)
    keep = np.isfinite(r) & (r > 0)
    lower = np.asarray(lower if lower is not None else [False] * len(r), dtype=bool)[keep]
    upper = np.asarray(upper if upper is not None else [False] * len(r), dtype=bool)[keep]
    logs = np.log(r[keep])
    n = len(logs)
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, 0)
    m = float(logs.mean())
    if n == 1:
        return Interval(math.exp(m), math.nan, math.nan, 1, lower_bounds=int(lower.sum()), upper_bounds=int(upper.sum()))
    sd = float(logs.std(ddof=1))
    half = _t(n) * sd / math.sqrt(n)
    return Interval(math.exp(m), math.exp(m - half), math.exp(m + half), n, "ratio", int(lower.sum()), int(upper.sum()), sd)


def slope_interval(x: Sequence[float], y: Sequence[float]) -> Interval:
    """The least-squares slope of log(y) on log(x) over the positive finite pairs (one pair per
    workload), with its Student-t 95% CI (n - 2 degrees of freedom)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    lx, ly = np.log(x[keep]), np.log(y[keep])
    n = len(lx)
    if n < 3 or np.ptp(lx) == 0:
        return Interval(math.nan, math.nan, math.nan, n, "slope")
    fit = st.linregress(lx, ly)
    half = float(st.t.ppf(0.5 + CONFIDENCE / 2, n - 2)) * fit.stderr
    return Interval(float(fit.slope), float(fit.slope - half), float(fit.slope + half), n, "slope", log_sd=fit.stderr * math.sqrt(n))


@dataclass(frozen=True)
class Verdict:
    verdict: str
    effect: Interval
    rule: str
    needed: int | None = None  # about how many workloads would decide a not-measurable claim

    @property
    def held_by_bounds(self) -> bool:
        """Not measurable because of its bounds: a higher cap, not more workloads, would decide it."""
        return self.verdict == NOT_MEASURABLE and not self.needed and bool(self.effect.lower_bounds or self.effect.upper_bounds)

    @property
    def ours(self) -> str:
        text = self.effect.text()
        if self.verdict == NOT_MEASURABLE and self.needed:
            text += f"; about {self.needed} workloads would decide it"
        elif self.held_by_bounds:
            text += "; its bounds keep it open: a higher cap, not more workloads, would decide it"
        return text


def _log(v: float, scale: str) -> float:
    return math.log(v) if scale == "ratio" else v


def _needed(effect: Interval, null: float, claimed: float) -> int | None:
    """About how many workloads would decide the claim if the mean and spread stayed as observed: the n
    at which the CI excludes the null (mean above it) or the claimed size (mean below it)."""
    if effect.n < 2 or not math.isfinite(effect.log_sd) or effect.log_sd == 0:
        return None
    m = _log(effect.estimate, effect.scale)
    gap = m - null if m > null else claimed - m
    if gap <= 0:
        return None
    return max(effect.n + 1, math.ceil((1.96 * effect.log_sd / gap) ** 2))


def _open_interval(v: str, effect: Interval) -> bool:
    """Whether more workloads could decide verdict ``v``: only an open interval, and never with bounds on
    both sides (no verdict of theirs stands)."""
    return v == NOT_MEASURABLE and not (effect.lower_bounds and effect.upper_bounds)


def at_least(effect: Interval, c: float, *, what: str = "") -> Verdict:
    """An effect above 1 of at least ``c`` (a ratio), or a slope above 0 of at least ``c`` (a trend)."""
    scale = effect.scale
    null = 0.0
    claimed = _log(c, scale)
    rule = (f"effect > {1 if scale == 'ratio' else 0}, at least {_num(c)}{'x' if scale == 'ratio' else ''}"
            f"{' ' + what if what else ''}: holds if lo > {1 if scale == 'ratio' else 0} and hi >= c; partly if lo > "
            f"{1 if scale == 'ratio' else 0} and hi < c; does not hold if lo <= {1 if scale == 'ratio' else 0} and hi < c")
    if effect.n < 2 or not math.isfinite(effect.lo):
        return Verdict(UNCHECKED, effect, rule)
    lo, hi = _log(effect.lo, scale), _log(effect.hi, scale)
    if lo > null:
        v = HOLDS if hi >= claimed else PARTLY
    else:
        v = FAILS if hi < claimed else NOT_MEASURABLE
    needed = _needed(effect, null, claimed) if v == NOT_MEASURABLE else None
    if needed is not None:  # the verdict more workloads would reach, if the bounds let it stand
        above = _log(effect.estimate, scale) > null
        target = HOLDS if above else FAILS
        needed = needed if _with_bounds(target, effect) == target else None
    v = _with_bounds(v, effect)
    return Verdict(v, effect, rule, needed if v == NOT_MEASURABLE else None)


def invert(e: Interval) -> Interval:
    """The effect the other way round (B over A instead of A over B; a slope's negative), so that a claim
    of a decrease is judged as an increase."""
    if e.scale == "ratio":
        return Interval(1 / e.estimate, 1 / e.hi, 1 / e.lo, e.n, "ratio", e.upper_bounds, e.lower_bounds, e.log_sd)
    return Interval(-e.estimate, -e.hi, -e.lo, e.n, "slope", e.upper_bounds, e.lower_bounds, e.log_sd)


def comparable(effect: Interval, b: float = COMPARABLE, *, target: float | None = None) -> Verdict:
    """An effect equal to ``target`` (a ratio of 1, or a slope) within a band ``b``: holds inside
    [target/b, target*b] (a ratio) or [target-b, target+b] (a slope), does not hold wholly outside."""
    if effect.scale == "ratio":
        t = 1.0 if target is None else target
        lo_band, hi_band = t / b, t * b
        rule = f"comparable: holds if the CI lies inside [{_num(lo_band)}, {_num(hi_band)}], does not hold if wholly outside"
    else:
        t = 0.0 if target is None else target
        lo_band, hi_band = t - b, t + b
        rule = f"slope {_num(t)} +- {_num(b)}: holds if its CI lies inside [{_num(lo_band)}, {_num(hi_band)}], does not hold if wholly outside"
    if effect.n < 2 or not math.isfinite(effect.lo):
        return Verdict(UNCHECKED, effect, rule)
    if effect.lo >= lo_band and effect.hi <= hi_band:
        v = HOLDS
    elif effect.lo > hi_band or effect.hi < lo_band:
        v = FAILS
    else:
        v = NOT_MEASURABLE
    open_interval = _open_interval(v, effect)
    if (effect.lower_bounds or effect.upper_bounds) and v != NOT_MEASURABLE:
        # a bound lies on one side of its real value: only a verdict on the side it cannot move stands
        if not (v == FAILS and ((effect.lo > hi_band and not effect.upper_bounds) or (effect.hi < lo_band and not effect.lower_bounds))):
            v = NOT_MEASURABLE
    needed = None
    if open_interval and math.isfinite(effect.log_sd) and effect.log_sd > 0:
        m = _log(effect.estimate, effect.scale)
        lo_l, hi_l = _log(lo_band, effect.scale), _log(hi_band, effect.scale)
        gap = min(m - lo_l, hi_l - m) if lo_l < m < hi_l else min(abs(m - lo_l), abs(m - hi_l))
        needed = max(effect.n + 1, math.ceil((1.96 * effect.log_sd / gap) ** 2)) if gap > 0 else None
    return Verdict(v, effect, rule, needed)


def _with_bounds(v: str, e: Interval) -> str:
    """What a verdict of :func:`at_least` is worth when some of its ratios are bounds."""
    if e.lower_bounds and e.upper_bounds:
        return NOT_MEASURABLE if v not in (NOT_MEASURABLE,) else v
    if e.lower_bounds:  # real ratios are at least these: holds and a real effect (partly) stand
        return v if v in (HOLDS, PARTLY) else NOT_MEASURABLE
    if e.upper_bounds:  # real ratios are at most these: only an excluded size stands
        return v if v == FAILS else NOT_MEASURABLE
    return v


def pooled(ratios_by_method: dict[str, dict[object, float]]) -> dict[object, float]:
    """One observation per workload from several methods' ratios (keyed by workload): their geometric
    mean where the workload has them, so methods with identical plans count once, not twice."""
    workloads = sorted({w for r in ratios_by_method.values() for w in r}, key=str)
    out = {}
    for w in workloads:
        vals = [r[w] for r in ratios_by_method.values() if w in r and r[w] > 0 and math.isfinite(r[w])]
        if vals:
            out[w] = float(np.exp(np.mean(np.log(vals))))
    return out


#: the stated size of a bare trend ("grows with", "falls as", "improves with", "scales with"): the slope
#: of log(metric) on log(parameter) at which the metric moves by BEATS per doubling of the parameter
#: (a tenfold parameter: 1.37x); on a semi-log slope (a parameter r in [0, 1]) BEATS from r = 0 to 1
TREND = math.log(BEATS) / math.log(2)
#: the band of "linear" on a log-log slope (1 +- LINEAR) and of "flat" (0 +- LINEAR)
LINEAR = 0.2

_RANK = (FAILS, UNCHECKED, NOT_MEASURABLE, PARTLY, HOLDS)


def not_worse(effect: Interval, b: float = COMPARABLE) -> Verdict:
    """"Comparable or superior" (non-inferiority): an effect of at least ``1/b``.  Holds when the CI lies
    above 1/b, does not hold when it lies wholly below, not measurable otherwise."""
    floor = 1 / b
    rule = f"comparable or better: holds if lo >= {_num(floor)}, does not hold if hi < {_num(floor)}"
    if effect.n < 2 or not math.isfinite(effect.lo):
        return Verdict(UNCHECKED, effect, rule)
    v = HOLDS if effect.lo >= floor else FAILS if effect.hi < floor else NOT_MEASURABLE
    open_interval = _open_interval(v, effect)
    if effect.lower_bounds or effect.upper_bounds:
        v = v if (v == HOLDS and not effect.upper_bounds) or (v == FAILS and not effect.lower_bounds) else NOT_MEASURABLE
    needed = None
    if open_interval and math.isfinite(effect.log_sd) and effect.log_sd > 0:
        gap = abs(math.log(effect.estimate) - math.log(floor))
        needed = max(effect.n + 1, math.ceil((1.96 * effect.log_sd / gap) ** 2)) if gap > 0 else None
    return Verdict(v, effect, rule, needed)


def all_of(parts: Sequence[Verdict]) -> Verdict:
    """A claim made of several parts ("at every r", "over both baselines") holds only as far as its
    weakest part: one part that does not hold decides it, then a part that cannot be checked or
    decided; the verdict carries that part's effect and rule (of equal verdicts, the one whose interval
    reaches lowest)."""
    if not parts:
        return Verdict(UNCHECKED, Interval(math.nan, math.nan, math.nan, 0), "no parts")
    weakest = min(parts, key=lambda v: (_RANK.index(v.verdict), v.effect.lo if math.isfinite(v.effect.lo) else math.inf))
    return Verdict(weakest.verdict, weakest.effect, "every part must hold; the weakest decides: " + weakest.rule, weakest.needed)


def semilog_slope_interval(x: Sequence[float], y: Sequence[float]) -> Interval:
    """The least-squares slope of log(y) on x itself (a parameter that can be 0, such as a ratio r in
    [0, 1]), with its Student-t 95% CI; one pair per workload."""
    return slope_interval(np.exp(np.asarray(x, dtype=float)), y)


@dataclass(frozen=True)
class CountInterval(Interval):
    """A deterministic count of disagreements over ``n`` cells (no run-to-run noise: no interval)."""

    def text(self) -> str:
        return f"{int(self.estimate)} of {self.n} differ" if self.n else "no data"


def none_differ(differing: int, total: int, what: str = "cells") -> Verdict:
    """A deterministic equality ("detects the same matches"): holds if no cell differs, does not hold
    if one does; with no cells, not checkable."""
    e = CountInterval(float(differing), float(differing), float(differing), int(total), "count")
    rule = f"deterministic equality: holds if none of the {what} differ, does not hold if one does"
    if total == 0:
        return Verdict(UNCHECKED, e, rule)
    return Verdict(HOLDS if differing == 0 else FAILS, e, rule)



def paired_slope_interval(series: Sequence[tuple[Sequence[float], Sequence[float]]]) -> Interval:
    """A trend over a parameter that varies *within* each workload (the same workload planned with
    longer searches, the same stream reshuffled more often): one slope of log(y) on log(x) per
    workload (``series`` holds each workload's (x, y); at least two distinct positive x), and the
    Student-t 95% CI of their mean, so ``n`` counts workloads, not points."""
    slopes = []
    for x, y in series:
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        keep = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
        if keep.sum() >= 2 and np.ptp(np.log(x[keep])) > 0:
            slopes.append(round(float(np.polyfit(np.log(x[keep]), np.log(y[keep]), 1)[0]), 12))  # below: float rounding
    n = len(slopes)
    if n < 2:
        return Interval(slopes[0] if slopes else math.nan, math.nan, math.nan, n, "slope")
    m, sd = float(np.mean(slopes)), float(np.std(slopes, ddof=1))
    half = _t(n) * sd / math.sqrt(n)
    return Interval(m, m - half, m + half, n, "slope", log_sd=sd)
