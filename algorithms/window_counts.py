"""Expected numbers of events inside one window: the ``W * r_i`` of every JQPG cost formula.

* Time window ``WITHIN W seconds``: ``W * r_i`` (JQPG Section 3.1: "the expected number of primitive
  events of type T_i arriving within the time window W is W * r_i").
* Count window ``WITHIN N events``: the expected number of events of type ``T_i`` among the last ``N``
  stream events, ``N * r_i / R`` with ``R`` the sum of the rates of every type in the statistics
  (the stream's total rate when the statistics were computed from the stream).
* Kleene closure ``KL(T_i)`` (JQPG Section 4): the power-set type ``T_i'`` whose events are the
  subsets of the ``k = W * r_i`` events of ``T_i`` in a window, so ``W * r_i' = 2**k`` and
  ``r_i' = 2**(r_i * W) / W``.  With a size bound ``KL(T){lo,hi}`` only subsets of ``lo..hi`` events
  count: the expected number of such subsets when the number ``N`` of events in a window is
  Poisson with mean ``k``, ``E[sum_{s=lo}^{hi} C(N, s)] = sum_{s=lo}^{hi} k**s / s!`` (well defined
  for the fractional ``k`` of sparse types, where ``C(floor(k), s)`` would be 0 and would make every
  plan cost nothing); an unbounded closure keeps the paper's ``2**k`` whatever ``lo``.
  Everything is returned as a natural logarithm so that realistic windows do not overflow.
"""

from __future__ import annotations

import math

import numpy as np

from cep.dnf import KLEENE, SimplePattern
from cep.pattern import Window, WindowKind
from cep.statistics import Statistics


def _total_rate(stats: Statistics) -> float:
    """The sum of all arrival rates in the statistics (events per second)."""
    return float(sum(stats.rates.values()))


def window_event_count(event_type: str, stats: Statistics, window: Window) -> float:
    """Expected number of events of ``event_type`` in one window (``W * r`` or ``N * r / R``)."""
    r = stats.rate(event_type)
    if window.kind is WindowKind.TIME:
        return window.size * r
    total = _total_rate(stats)
    return window.size * r / total if total > 0 else 0.0


def window_total_count(stats: Statistics, window: Window) -> float:
    """Expected number of stream events of any type in one window (``W * R`` or ``N``)."""
    if window.kind is WindowKind.TIME:
        return window.size * _total_rate(stats)
    return float(window.size)


def kleene_log_rate(rate: float, window_seconds: float) -> float:
    """``log r'`` with ``r' = 2**(r * W) / W``, the rate of the power-set type (JQPG Section 4).

    >>> round(kleene_log_rate(5.0, 10.0) - (50 * math.log(2) - math.log(10)), 12)
    0.0
    """
    return rate * window_seconds * math.log(2.0) - math.log(window_seconds)


def _log_subset_count(k: float, min_size: int = 1, max_size: int | None = None) -> float:
    """``log`` of the number of subsets of ``k`` events that a Kleene closure accepts (see module doc)."""
    if max_size is None:
        return k * math.log(2.0)
    if k <= 0.0 or max_size < min_size:
        return -math.inf
    log_k = math.log(k)
    return np.logaddexp.reduce([s * log_k - math.lgamma(s + 1.0) for s in range(min_size, max_size + 1)])


def log_window_counts(sp: SimplePattern, stats: Statistics) -> dict[str, float]:
    """For each positive variable of ``sp``: log of the expected number of its "events" in a window
    (primitive events, or accepted subsets for a Kleene variable)."""
    out: dict[str, float] = {}
    for name in sp.positive:
        v = sp.var[name]
        k = window_event_count(v.type, stats, sp.window)
        out[name] = _log_subset_count(k, v.min_size, v.max_size) if v.kind == KLEENE else (math.log(k) if k > 0 else -math.inf)
    return out
