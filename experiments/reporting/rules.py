"""The one rule set of the report's verdicts: every claim of a paper has a direction and a size taken from
the paper's sentence, our data give a paired effect with its 95% confidence interval over independent
units, and where the interval lies decides.

**Units.**  An effect is *paired*: the ratio of two methods' metric on the same unit (a pattern on its
stream in JQPG; a seeded workload and its stream elsewhere), or, for a trend, the slope of log(metric) on
log(parameter).  ``n`` counts independent units, one value per unit: values of one unit at several sweep
points, or of several pooled methods, are one observation (their geometric mean, :func:`per_unit`); a
trend over a parameter swept *within* a unit is one slope per unit, the interval taken over units
(:func:`paired_slope_interval`).  Intervals are Student-t intervals of the mean of the logarithms (of the
slope, for trends).

**Outcomes.**  A claim of an effect ``> 1`` of at least ``c`` (the paper's number; GREATLY for "greatly",
"considerably", "significantly"; BEATS for a bare "outperforms"; 1 -- a direction only -- for "slightly"),
with the CI [lo, hi]:

* **holds**: lo > 1 and hi >= c -- a real effect, consistent with the claimed size;
* **partly**: lo > 1 and hi < c -- a real effect, smaller than claimed;
* **no effect**: lo <= 1 <= hi < c -- the claimed size is excluded, and no effect either way is shown;
* **reversed**: hi < 1 -- the effect is real and the other way;
* **not measurable**: lo <= 1 and hi >= c -- the data cannot decide; the report says about how many units
  would decide it, from the observed variance.

An equivalence claim ("comparable") with a band ``b``: holds when the CI lies inside [1/b, b], reversed
(a real difference where the paper says none) when it lies wholly outside, not measurable otherwise;
"comparable or better" holds above 1/b and is reversed below it.  A trend claim is the same rule on the
slope (null 0, claimed slope ``c``).

**Censored units.**  A run stopped at a cap is a bound in a known direction: its throughput is at most all
events over its time to the cap, its work and peak at least the cap's; a ratio over it is a lower or an
upper bound.  An effect with bounds is decided by a method valid for censored paired data: its estimate
is the median ratio and its interval the sign-test (binomial order-statistic) 95% interval of the median,
computed twice -- with every bound set to the least favourable value its direction allows each way (a
lower bound to +inf or its value, an upper bound to its value or 0) -- so that the interval's ends are
known to lie in ranges [lo_min, lo_max] and [hi_min, hi_max] whatever the censored values are (order
statistics are monotone in every value).  A verdict that every end in those ranges gives is decided; only
one the bounds could overturn stays *not measurable*, and then a higher cap, not more units, decides it.
No verdict without an interval: fewer than two units are ``not checkable``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Hashable, Iterable, Sequence

import numpy as np
from scipy import stats as st

HOLDS, PARTLY, NO_EFFECT, REVERSED, NOT_MEASURABLE, UNCHECKED = (
    "holds", "partly", "no effect", "reversed", "not measurable", "not checkable")
VERDICTS = (HOLDS, PARTLY, NO_EFFECT, REVERSED, NOT_MEASURABLE, UNCHECKED)
#: the verdicts that say a claim does not hold
FAILED = (NO_EFFECT, REVERSED)
CONFIDENCE = 0.95

#: stated sizes of the papers' words (a claim without a number)
GREATLY = 1.5  # "greatly", "clearly", "considerably", "significantly", "substantially", "convincing", "much"
BEATS = 1.1  # a bare "beats", "outperforms", "improves", "better"
DIRECTION = 1.0  # "slightly", "in most cases": the direction only
COMPARABLE = 1.25  # the band of "comparable", "similar", "the same"

#: the method statement the report's header prints
METHOD = (
    "Censored units (runs stopped at a cap, each a bound in a known direction) are decided by the sign-test "
    "(binomial order-statistic) 95% interval of the median ratio, computed with every bound set to the least "
    "favourable value its direction allows each way: a verdict every allowed value supports is decided, one "
    "the bounds could overturn stays not measurable (a higher cap, not more units, would decide it). Units "
    "without bounds: the Student-t interval of the mean log ratio (geometric mean).")


@dataclass(frozen=True)
class Interval:
    """A paired effect: its estimate and 95% CI on the scale the claim is stated on (a ratio, or a
    slope), the number of independent units, and how many of them are lower / upper bounds.

    ``lo_range`` / ``hi_range`` are set for an interval over censored units: the ranges the CI's ends
    take over every value the bounds allow (the ``lo`` and ``hi`` shown are those with each bound at its
    own value); ``method`` is ``"t"`` (mean) or ``"sign"`` (median)."""

    estimate: float
    lo: float
    hi: float
    n: int
    scale: str = "ratio"  # "ratio" (log-t interval, exponentiated) or "slope"
    lower_bounds: int = 0
    upper_bounds: int = 0
    log_sd: float = math.nan  # sd of the log ratios (ratio) or of the slopes (slope)
    method: str = "t"
    lo_range: tuple[float, float] | None = None
    hi_range: tuple[float, float] | None = None

    @property
    def censored(self) -> bool:
        return bool(self.lower_bounds or self.upper_bounds)

    def text(self) -> str:
        if self.n == 0:
            return "no data"
        unit = "x" if self.scale == "ratio" else ""
        head = f"{'median ' if self.method == 'sign' else ''}{_num(self.estimate)}{unit}"
        body = head if self.n < 2 else f"{head} [{_num(self.lo)}, {_num(self.hi)}]"
        extra = []
        if self.lower_bounds:
            extra.append(f"{self.lower_bounds} lower bounds")
        if self.upper_bounds:
            extra.append(f"{self.upper_bounds} upper bounds")
        if self.method == "sign" and self.n < sign_test_min():
            extra.append(f"sign test: too few units for its interval, {sign_test_min()} would give one")
        elif self.method == "sign" and self.lo_range and self.hi_range:
            extra.append(f"sign test; the bounds allow lo in [{_num(self.lo_range[0])}, {_num(self.lo_range[1])}], "
                         f"hi in [{_num(self.hi_range[0])}, {_num(self.hi_range[1])}]")
        return f"{body} (n={self.n}{', ' + ', '.join(extra) if extra else ''})"


def _num(x: float) -> str:
    if math.isnan(x):
        return "n/a"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if abs(x) >= 1e4 or (abs(x) < 1e-2 and x != 0):
        return f"{x:.3g}"
    return f"{x:.2f}"


def _t(n: int) -> float:
    return float(st.t.ppf(0.5 + CONFIDENCE / 2, n - 1)) if n > 1 else math.inf


# ---- intervals over units -------------------------------------------------------------------------
def sign_test_rank(n: int) -> int:
    """The 1-based rank k of the sign-test interval [x_(k), x_(n-k+1)] of the median of n values: the
    largest k with P(Binomial(n, 1/2) <= k - 1) <= (1 - CONFIDENCE) / 2; 0 when n is too small for one
    (below 6 values at 95%)."""
    if n < 1:
        return 0
    k = int(st.binom.ppf((1 - CONFIDENCE) / 2, n, 0.5))
    while k >= 1 and st.binom.cdf(k - 1, n, 0.5) > (1 - CONFIDENCE) / 2:
        k -= 1
    while st.binom.cdf(k, n, 0.5) <= (1 - CONFIDENCE) / 2:
        k += 1
    return k


def sign_test_min() -> int:
    """The fewest values with a sign-test 95% interval of their median (6)."""
    return next(n for n in range(1, 100) if sign_test_rank(n) >= 1)


def _sign_ci(values: np.ndarray) -> tuple[float, float]:
    """The sign-test 95% interval of the median of ``values`` (infinite ends where n is too small)."""
    v = np.sort(values)
    k = sign_test_rank(len(v))
    if k < 1:
        return -math.inf, math.inf
    return float(v[k - 1]), float(v[len(v) - k])


def _interval(values: Sequence[float], lower: Sequence[bool], upper: Sequence[bool], scale: str) -> Interval:
    """The interval of one value per unit on the additive scale (logs of ratios, or slopes): the t
    interval of the mean without bounds, the censored sign-test interval of the median with them; the
    result exponentiated for ``scale="ratio"``."""
    x = np.asarray(values, dtype=float)
    lo_b = np.asarray(lower, dtype=bool)
    up_b = np.asarray(upper, dtype=bool)
    n = len(x)
    back = np.exp if scale == "ratio" else (lambda v: v)
    nl, nu = int(lo_b.sum()), int(up_b.sum())
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, 0, scale)
    sd = float(x.std(ddof=1)) if n > 1 else math.nan
    if not (nl or nu):
        m = float(x.mean())
        if n == 1:
            return Interval(float(back(m)), math.nan, math.nan, 1, scale, log_sd=sd)
        half = _t(n) * sd / math.sqrt(n)
        return Interval(float(back(m)), float(back(m - half)), float(back(m + half)), n, scale, log_sd=sd)
    med = float(np.median(x))
    if n == 1:
        return Interval(float(back(med)), math.nan, math.nan, 1, scale, nl, nu, sd, "sign")
    lo, hi = _sign_ci(x)
    low_side = np.where(up_b, -math.inf, x)  # least favourable to a large effect: upper bounds at 0
    high_side = np.where(lo_b, math.inf, x)  # most favourable: lower bounds at +inf
    lo_min, hi_min = _sign_ci(low_side)
    lo_max, hi_max = _sign_ci(high_side)
    with np.errstate(over="ignore"):
        return Interval(float(back(med)), float(back(lo)), float(back(hi)), n, scale, nl, nu, sd, "sign",
                        (float(back(lo_min)), float(back(lo_max))), (float(back(hi_min)), float(back(hi_max))))


def ratio_interval(ratios: Sequence[float], *, lower: Sequence[bool] | None = None, upper: Sequence[bool] | None = None) -> Interval:
    """One ratio per unit: the geometric mean of the positive finite ``ratios`` and the exponentiated
    Student-t 95% CI of their logarithms; with ``lower``/``upper`` flags on ratios that are bounds (from
    capped runs), the censored sign-test interval of the median (module docstring)."""
    r = np.asarray(ratios, dtype=float)
    keep = np.isfinite(r) & (r > 0)
    lower = np.asarray(lower if lower is not None else [False] * len(r), dtype=bool)[keep]
    upper = np.asarray(upper if upper is not None else [False] * len(r), dtype=bool)[keep]
    return _interval(np.log(r[keep]), lower, upper, "ratio")


def slope_values_interval(slopes: Sequence[float], *, lower: Sequence[bool] | None = None, upper: Sequence[bool] | None = None) -> Interval:
    """One slope per unit: the t interval of their mean, or with bounds the censored sign-test interval
    of their median."""
    s = np.asarray(slopes, dtype=float)
    keep = np.isfinite(s)
    lower = np.asarray(lower if lower is not None else [False] * len(s), dtype=bool)[keep]
    upper = np.asarray(upper if upper is not None else [False] * len(s), dtype=bool)[keep]
    return _interval(s[keep], lower, upper, "slope")


@dataclass(frozen=True)
class Observation:
    """One value of a unit: a ratio (or a slope), and whether it is a lower or an upper bound."""

    unit: Hashable
    value: float
    lower: bool = False
    upper: bool = False


@dataclass(frozen=True)
class UnitEffect:
    """An effect over units (:func:`per_unit`) and the units left out: a unit whose values hold bounds
    of both directions bounds nothing."""

    interval: Interval
    left_out: int = 0
    values: dict = field(default_factory=dict)  # unit -> (pooled value, lower, upper)


def per_unit(observations: Iterable[Observation], *, scale: str = "ratio") -> UnitEffect:
    """One observation per independent unit from several values of each (sweep points of one seed,
    methods pooled, alphas of one pattern): their geometric mean (ratios) or mean (slopes).  A unit's
    value is a lower bound when some of its values are lower bounds and none an upper one (and the other
    way round); one holding bounds of both directions is left out (counted)."""
    groups: dict = {}
    for o in observations:
        v = float(o.value)
        if not math.isfinite(v) or (scale == "ratio" and v <= 0):
            continue
        groups.setdefault(o.unit, []).append(o)
    values, left = {}, 0
    for unit in sorted(groups, key=str):
        obs = groups[unit]
        lo, up = any(o.lower for o in obs), any(o.upper for o in obs)
        if lo and up:
            left += 1
            continue
        xs = [math.log(o.value) if scale == "ratio" else o.value for o in obs]
        m = float(np.mean(xs))
        values[unit] = (math.exp(m) if scale == "ratio" else m, lo, up)
    vals = list(values.values())
    make = ratio_interval if scale == "ratio" else slope_values_interval
    interval = make([v for v, _, _ in vals], lower=[a for _, a, _ in vals], upper=[b for _, _, b in vals])
    return UnitEffect(interval, left, values)


def slope_interval(x: Sequence[float], y: Sequence[float]) -> Interval:
    """The least-squares slope of log(y) on log(x) over the positive finite pairs, one pair per unit (a
    parameter that differs *between* units, such as a pattern's size), with its Student-t 95% CI (n - 2
    degrees of freedom)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    lx, ly = np.log(x[keep]), np.log(y[keep])
    n = len(lx)
    if n < 3 or np.ptp(lx) == 0:
        return Interval(math.nan, math.nan, math.nan, n, "slope")
    fit = st.linregress(lx, ly)
    half = float(st.t.ppf(0.5 + CONFIDENCE / 2, n - 2)) * fit.stderr
    return Interval(float(fit.slope), float(fit.slope - half), float(fit.slope + half), n, "slope", log_sd=fit.stderr * math.sqrt(n))


def semilog_slope_interval(x: Sequence[float], y: Sequence[float]) -> Interval:
    """The least-squares slope of log(y) on x itself (a parameter that can be 0, such as a ratio r in
    [0, 1]), with its Student-t 95% CI; one pair per unit."""
    return slope_interval(np.exp(np.asarray(x, dtype=float)), y)


def unit_slope(x: Sequence[float], y: Sequence[float], bounds: Sequence[str | None] | None = None, *,
               semilog: bool = False) -> tuple[float, bool, bool] | None:
    """The least-squares slope of log(y) on log(x) (on x itself with ``semilog``) over one unit's points,
    and whether it is a lower or an upper bound: a point's y that is an upper bound (``"upper"``) pulls
    the slope up where its x lies above the unit's mean x and down below it (the slope is linear in each
    log y with weight x_i - mean x), so the slope is a bound when all its bounded points push one way;
    None when the unit has fewer than two distinct x or bounded points pushing both ways."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    b = np.asarray(bounds if bounds is not None else [None] * len(x), dtype=object)
    keep = np.isfinite(x) & np.isfinite(y) & (y > 0) & ((x > 0) | semilog)
    if keep.sum() < 2:
        return None
    lx = x[keep] if semilog else np.log(x[keep])
    ly, b = np.log(y[keep]), b[keep]
    if np.ptp(lx) == 0:
        return None
    w = lx - lx.mean()
    slope = float(np.dot(w, ly - ly.mean()) / np.dot(w, w))
    # a y that is an upper bound with w > 0 (or a lower bound with w < 0): the real slope is at most this
    down = any((bb == "upper" and wi > 0) or (bb == "lower" and wi < 0) for bb, wi in zip(b, w))
    up = any((bb == "lower" and wi > 0) or (bb == "upper" and wi < 0) for bb, wi in zip(b, w))
    if down and up:
        return None
    return round(slope, 12), up, down  # (slope, a lower bound, an upper bound); below: float rounding


def paired_slope_interval(series: Sequence[tuple], *, semilog: bool = False) -> Interval:
    """A trend over a parameter that varies *within* each unit (one seed's workloads at every swept value,
    one pattern's plans of different costs): one slope of log(y) on log(x) per unit (:func:`unit_slope`;
    ``series`` holds each unit's ``(x, y)`` or ``(x, y, bounds)``), and the interval over units -- so
    ``n`` counts units, not points; a unit whose bounded points make its slope a bound enters as one."""
    slopes, lower, upper = [], [], []
    for s in series:
        r = unit_slope(s[0], s[1], s[2] if len(s) > 2 else None, semilog=semilog)
        if r is None:
            continue
        slopes.append(r[0])
        lower.append(r[1])
        upper.append(r[2])
    return slope_values_interval(slopes, lower=lower, upper=upper)


# ---- verdicts ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Verdict:
    verdict: str
    effect: Interval
    rule: str
    needed: int | None = None  # about how many units would decide a not-measurable claim
    by_bounds: bool = False  # not measurable because its bounds could overturn every verdict it reaches

    @property
    def held_by_bounds(self) -> bool:
        """Not measurable because of its bounds: a higher cap, not more units, would decide it."""
        return self.verdict == NOT_MEASURABLE and self.by_bounds

    @property
    def ours(self) -> str:
        text = self.effect.text()
        if self.verdict == NOT_MEASURABLE and self.needed:
            text += f"; about {self.needed} units would decide it"
        elif self.held_by_bounds:
            text += "; its bounds keep it open: a higher cap, not more units, would decide it"
        return text


def _log(v: float, scale: str) -> float:
    if scale != "ratio":
        return v
    return math.log(v) if v > 0 else -math.inf


def _needed(effect: Interval, gap: float) -> int | None:
    """About how many units would decide the claim if the mean and spread stayed as observed: the n at
    which a 95% interval of half-width 1.96 sd / sqrt(n) clears ``gap`` -- and, for a censored effect,
    at least the units a sign-test interval needs (:func:`sign_test_min`)."""
    floor = max(effect.n + 1, sign_test_min() if effect.method == "sign" else 0)
    if effect.n < 2 or not math.isfinite(effect.log_sd) or effect.log_sd == 0 or not gap > 0:
        return floor if effect.method == "sign" and effect.n < sign_test_min() else None
    return max(floor, math.ceil((1.96 * effect.log_sd / gap) ** 2))


def _decide(effect: Interval, rule: Callable[[float, float], str]) -> tuple[str, bool]:
    """The verdict of ``rule`` (a function of the CI's ends on the additive scale) over every interval the
    bounds allow: the verdict itself when all give it, else (NOT_MEASURABLE, True)."""
    lo, hi = _log(effect.lo, effect.scale), _log(effect.hi, effect.scale)
    if not (effect.lo_range and effect.hi_range):
        return rule(lo, hi), False
    los = [_log(v, effect.scale) for v in effect.lo_range]
    his = [_log(v, effect.scale) for v in effect.hi_range]
    seen = {rule(a, b) for a in los for b in his}
    if len(seen) == 1:
        return seen.pop(), False
    return NOT_MEASURABLE, True


def _checkable(effect: Interval) -> bool:
    return effect.n >= 2 and not math.isnan(effect.lo) and not math.isnan(effect.hi)


def at_least(effect: Interval, c: float, *, what: str = "") -> Verdict:
    """An effect above 1 of at least ``c`` (a ratio), or a slope above 0 of at least ``c`` (a trend)."""
    ratio = effect.scale == "ratio"
    null_txt, c_txt = ("1", f"{_num(c)}x") if ratio else ("0", _num(c))
    rule_txt = (f"effect > {null_txt}, at least {c_txt}{' ' + what if what else ''}: holds if lo > {null_txt} and hi >= c; "
                f"partly if lo > {null_txt} and hi < c; no effect if lo <= {null_txt} <= hi < c; reversed if hi < {null_txt}")
    if not _checkable(effect):
        return Verdict(UNCHECKED, effect, rule_txt)
    claimed = _log(c, effect.scale)

    def rule(lo: float, hi: float) -> str:
        if lo > 0:
            return HOLDS if hi >= claimed else PARTLY
        if hi < 0:
            return REVERSED
        return NO_EFFECT if hi < claimed else NOT_MEASURABLE

    v, by_bounds = _decide(effect, rule)
    needed = None
    if v == NOT_MEASURABLE and not by_bounds:
        m = _log(effect.estimate, effect.scale)
        needed = _needed(effect, m if m > 0 else claimed - m)
    return Verdict(v, effect, rule_txt, needed, by_bounds)


def invert(e: Interval) -> Interval:
    """The effect the other way round (B over A instead of A over B; a slope's negative), so that a claim
    of a decrease is judged as an increase."""
    if e.scale == "ratio":
        flip = (lambda v: 1 / v if v != 0 else math.inf)
        lo_r = (flip(e.hi_range[1]), flip(e.hi_range[0])) if e.hi_range else None
        hi_r = (flip(e.lo_range[1]), flip(e.lo_range[0])) if e.lo_range else None
        return Interval(flip(e.estimate), flip(e.hi), flip(e.lo), e.n, "ratio", e.upper_bounds, e.lower_bounds, e.log_sd,
                        e.method, lo_r, hi_r)
    lo_r = (-e.hi_range[1], -e.hi_range[0]) if e.hi_range else None
    hi_r = (-e.lo_range[1], -e.lo_range[0]) if e.lo_range else None
    return Interval(-e.estimate, -e.hi, -e.lo, e.n, "slope", e.upper_bounds, e.lower_bounds, e.log_sd, e.method, lo_r, hi_r)


def comparable(effect: Interval, b: float = COMPARABLE, *, target: float | None = None) -> Verdict:
    """An effect equal to ``target`` (a ratio of 1, or a slope) within a band ``b``: holds inside
    [target/b, target*b] (a ratio) or [target-b, target+b] (a slope), reversed wholly outside."""
    if effect.scale == "ratio":
        t = 1.0 if target is None else target
        lo_band, hi_band = t / b, t * b
        rule_txt = (f"comparable: holds if the CI lies inside [{_num(lo_band)}, {_num(hi_band)}], "
                    "reversed (a real difference) if wholly outside")
    else:
        t = 0.0 if target is None else target
        lo_band, hi_band = t - b, t + b
        rule_txt = (f"slope {_num(t)} +- {_num(b)}: holds if its CI lies inside [{_num(lo_band)}, {_num(hi_band)}], "
                    "reversed if wholly outside")
    if not _checkable(effect):
        return Verdict(UNCHECKED, effect, rule_txt)
    lo_l, hi_l = _log(lo_band, effect.scale), _log(hi_band, effect.scale)

    def rule(lo: float, hi: float) -> str:
        if lo >= lo_l and hi <= hi_l:
            return HOLDS
        if lo > hi_l or hi < lo_l:
            return REVERSED
        return NOT_MEASURABLE

    v, by_bounds = _decide(effect, rule)
    needed = None
    if v == NOT_MEASURABLE and not by_bounds:
        m = _log(effect.estimate, effect.scale)
        gap = min(m - lo_l, hi_l - m) if lo_l < m < hi_l else min(abs(m - lo_l), abs(m - hi_l))
        needed = _needed(effect, gap)
    return Verdict(v, effect, rule_txt, needed, by_bounds)


def not_worse(effect: Interval, b: float = COMPARABLE) -> Verdict:
    """"Comparable or superior" (non-inferiority): an effect of at least ``1/b``.  Holds when the CI lies
    above 1/b, reversed when it lies wholly below, not measurable otherwise."""
    floor = 1 / b
    rule_txt = f"comparable or better: holds if lo >= {_num(floor)}, reversed if hi < {_num(floor)}"
    if not _checkable(effect):
        return Verdict(UNCHECKED, effect, rule_txt)
    f = math.log(floor)

    def rule(lo: float, hi: float) -> str:
        return HOLDS if lo >= f else REVERSED if hi < f else NOT_MEASURABLE

    v, by_bounds = _decide(effect, rule)
    needed = _needed(effect, abs(_log(effect.estimate, "ratio") - f)) if v == NOT_MEASURABLE and not by_bounds else None
    return Verdict(v, effect, rule_txt, needed, by_bounds)


def pooled(ratios_by_method: dict[str, dict[object, float]]) -> dict[object, float]:
    """One observation per unit from several methods' ratios (keyed by unit): their geometric mean where
    the unit has them, so methods with identical plans count once, not twice."""
    units = sorted({w for r in ratios_by_method.values() for w in r}, key=str)
    out = {}
    for w in units:
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

#: the verdicts from worst to best: the weakest part of a claim made of several decides it
_RANK = (REVERSED, NO_EFFECT, UNCHECKED, NOT_MEASURABLE, PARTLY, HOLDS)


def all_of(parts: Sequence[Verdict]) -> Verdict:
    """A claim made of several parts ("at every r", "over both baselines") holds only as far as its
    weakest part: one part that is reversed or shows no effect decides it, then a part that cannot be
    checked or decided; the verdict carries that part's effect and rule (of equal verdicts, the one whose
    interval reaches lowest)."""
    if not parts:
        return Verdict(UNCHECKED, Interval(math.nan, math.nan, math.nan, 0), "no parts")
    weakest = min(parts, key=lambda v: (_RANK.index(v.verdict), v.effect.lo if math.isfinite(v.effect.lo) else math.inf))
    return Verdict(weakest.verdict, weakest.effect, "every part must hold; the weakest decides: " + weakest.rule,
                   weakest.needed, weakest.by_bounds)


def worst(verdicts: Sequence[str]) -> str:
    """The worst of several verdicts (the order of :func:`all_of`)."""
    return min(verdicts, key=_RANK.index) if verdicts else UNCHECKED


@dataclass(frozen=True)
class CountInterval(Interval):
    """A deterministic count of disagreements over ``n`` cells (no run-to-run noise: no interval)."""

    def text(self) -> str:
        return f"{int(self.estimate)} of {self.n} differ" if self.n else "no data"


def none_differ(differing: int, total: int, what: str = "cells") -> Verdict:
    """A deterministic equality ("detects the same matches"): holds if no cell differs, reversed if one
    does; with no cells, not checkable."""
    e = CountInterval(float(differing), float(differing), float(differing), int(total), "count")
    rule = f"deterministic equality: holds if none of the {what} differ, reversed if one does"
    if total == 0:
        return Verdict(UNCHECKED, e, rule)
    return Verdict(HOLDS if differing == 0 else REVERSED, e, rule)
