"""Arithmetic on costs held as natural logarithms.

Plan costs are sums of products of window counts, and a Kleene closure turns a count ``k`` into
``2**k`` (JQPG Section 4), so realistic costs overflow float64 (``2**54000`` for 45 events/s over 20
minutes).  Cost models therefore compute ``log(cost)``; a cost of exactly 0 (a selectivity of 0, a
rate of 0) is ``-inf``, and ``+inf`` never arises from finite statistics.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

NEG_INF = float("-inf")

# Largest log-value whose exponential is a finite float64 (log(1.797e308) = 709.78).
LOG_FLOAT_MAX = math.log(np.finfo(np.float64).max)


class CostOverflowWarning(RuntimeWarning):
    """A cost was converted to float but exceeds the float range: the float is ``inf``; use the
    log-space value (``log_cost``) instead."""


def log_add(a: float, b: float) -> float:
    """``log(exp(a) + exp(b))`` for scalars, exact at ``-inf``."""
    if a == NEG_INF:
        return b
    if b == NEG_INF:
        return a
    hi, lo = (a, b) if a >= b else (b, a)
    return hi + math.log1p(math.exp(lo - hi))


def log_sum(values) -> float:
    """``log(sum(exp(values)))`` of a sequence; ``-inf`` for an empty one or all ``-inf``."""
    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        return NEG_INF
    m = float(x.max())
    if m == NEG_INF:
        return NEG_INF
    return m + math.log(float(np.exp(x - m).sum()))


def log_sum_rows(x: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
    """Row-wise ``log(sum(exp(x)))`` of a 2-D array (entries outside ``where`` ignored)."""
    x = np.asarray(x, dtype=np.float64)
    if where is not None:
        x = np.where(where, x, NEG_INF)
    m = x.max(axis=1)
    safe = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        out = safe + np.log(np.exp(x - safe[:, None]).sum(axis=1))
    return np.where(m == NEG_INF, NEG_INF, out)


def log_of(x: float) -> float:
    """``log(x)`` for ``x >= 0`` (``-inf`` at 0)."""
    return math.log(x) if x > 0 else NEG_INF


def exp_cost(log_cost: float, *, warn: bool = True) -> float:
    """The float value of a log-space cost: finite whenever it fits float64; otherwise ``inf`` with
    a :class:`CostOverflowWarning` (unless ``warn`` is false), never silently."""
    if log_cost > LOG_FLOAT_MAX:
        if warn:
            warnings.warn(
                f"cost e^{log_cost:.6g} exceeds the float range; returning inf (use the log cost)",
                CostOverflowWarning,
                stacklevel=3,
            )
        return math.inf
    return math.exp(log_cost)


def format_log_cost(log_cost: float) -> str:
    """A cost for people: ``1.234e+05`` when it fits a float, ``10^12345.6`` otherwise."""
    if log_cost == NEG_INF:
        return "0"
    if log_cost > LOG_FLOAT_MAX:
        return f"10^{log_cost / math.log(10):.6g}"
    return f"{math.exp(log_cost):.6g}"
