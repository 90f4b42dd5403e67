"""Who wins at one point of a regime map, by the report's rule set (:mod:`experiments.reporting.rules`).

Every use of the rule set by the maps (:mod:`experiments.reporting.maps`, the map section of the report and
``advise``) is here, so that a change of the rules reaches them in one place.  A point's effect is the
paired ratio of side A over side B (oriented so that above 1 favours A) over its independent workloads,
with its 95% interval (:func:`~experiments.reporting.rules.ratio_interval`, capped runs as bounds); then

* **tie** when the interval lies inside the band of "comparable" (:func:`~experiments.reporting.rules.comparable`,
  1/1.25 to 1.25), whether or not it excludes 1: a difference the interval bounds below 1.25x is not a win;
* **A wins** otherwise when the claim "A beats B" holds or partly holds (lo > 1: a real effect,
  :func:`~experiments.reporting.rules.at_least` with the smallest meaningful effect ``BEATS``);
* **B wins** when the same holds the other way round (:func:`~experiments.reporting.rules.invert`);
* **open** otherwise: the data cannot tell; ``needed`` says about how many workloads would decide it at the
  observed spread (none when bounds, not workloads, keep it open);
* **no data** without a single workload.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import experiments.reporting.rules as rules

A_WINS, B_WINS, TIE, OPEN, NO_DATA = "A wins", "B wins", "tie", "open", "no data"
OUTCOMES = (A_WINS, B_WINS, TIE, OPEN, NO_DATA)
#: the smallest effect that counts as a win, and the band of a tie
WIN_SIZE, TIE_BAND = rules.BEATS, rules.COMPARABLE


@dataclass(frozen=True)
class PointVerdict:
    """A point's effect (A over B, with its interval) and its outcome."""

    effect: rules.Interval
    outcome: str
    needed: int | None = None  # about how many workloads would decide an open point

    @property
    def decided(self) -> bool:
        """Whether the interval decides a winner."""
        return self.outcome in (A_WINS, B_WINS)

    def text(self) -> str:
        return self.effect.text()


def judge(ratios: Sequence[float], *, lower: Sequence[bool] | None = None, upper: Sequence[bool] | None = None) -> PointVerdict:
    """The verdict of one point from its per-workload ratios of A over B (``lower``/``upper``: the ratios that
    are bounds, from capped runs)."""
    e = rules.ratio_interval(ratios, lower=lower, upper=upper)
    if e.n == 0:
        return PointVerdict(e, NO_DATA)
    if rules.comparable(e, TIE_BAND).verdict == rules.HOLDS:
        return PointVerdict(e, TIE)
    a = rules.at_least(e, WIN_SIZE)
    if a.verdict in (rules.HOLDS, rules.PARTLY):
        return PointVerdict(e, A_WINS)
    b = rules.at_least(rules.invert(e), WIN_SIZE)
    if b.verdict in (rules.HOLDS, rules.PARTLY):
        return PointVerdict(e, B_WINS)
    toward = a if e.n >= 2 and math.isfinite(e.estimate) and e.estimate >= 1 else b
    return PointVerdict(e, OPEN, toward.needed)


def rule_text() -> str:
    """The rule, in words, for the maps' captions."""
    return (f"a tie where the 95% interval of the paired effect lies within [{1 / TIE_BAND:.2f}, {TIE_BAND:g}]; "
            f"a mark where it does not and decides the winner (it excludes 1, one way or the other); open otherwise")
