"""NEXT's cost algebra (Section 4.2, Table 1): worst-case rate, detection time, burst size and burst
rate of every operator, and each operator's CPU cost in events processed per second.

Sources are Poisson with rate ``mu`` (NEXT assumption 3): ``DT = 1/mu``, bursts of size 1 at rate
``mu``.  Per operator (Table 1; predicates and selectivities ignored, assumptions 2 and 3):

=========  ================  =====================  ==============================  =====================
operator   rate mu_s         detection time DT      burst size b_size               burst rate b_rate
=========  ================  =====================  ==============================  =====================
E_theta    mu(E)             DT(E)                  b_size(E)                       b_rate(E)
E1 \\ E2    mu(E1)            DT(E1)                 b_size(E1)                      b_rate(E1)
E1 | E2    mu(E1) + mu(E2)   1/(b_rate1 + b_rate2)  b_size1 b_rate1 + b_size2 b_rate2  b_rate1 + b_rate2
E1 ; E2    mu(E1)            DT(E1) + DT(E2)        b_size(E1) b_rate(E1) DT(E2)    1/max(DT(E1), DT(E2))
E @ t      mu(E)             DT(E) + t              b_size(E)                       b_rate(E)
=========  ================  =====================  ==============================  =====================

CPU per operator: filter ``mu(E)``; exception and union ``mu(E1) + mu(E2)``; time ``mu(E)``; next

    cost(E1;E2) = mu(E1) + DT(E2)/DT(E1) b_size(E1) b_size(E2) b_rate(E2)
                  + max(b_rate(E2) - b_rate(E1), 0) b_size(E2)

and ``cost(Q) = sum of CPU(o)`` over the operators of Q.  Table 1 prints the union's burst size as
``b_size1 b_rate1 + b_size2 b_rate2`` (a rate, not a count); we implement it as printed.  Products
with a zero factor are zero (a source of rate 0 never fires; its DT is infinite).

Iteration: Table 1 leaves its rate "unbounded" and Section 4.2 leaves its costs to future work.  For
a bounded iteration ``E+{lo,hi}`` we use (our extension, stated here once): ``L = min(hi, 1 + mu W)``
live runs per element (W the window), CPU ``mu L`` (each element extends every live run), rate
``mu (L - lo + 1)``, burst size ``b_size(E) (L - lo + 1)``, burst rate and DT those of E.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cep.next_algebra as algebra
from cep.statistics import Statistics


@dataclass(frozen=True)
class Chars:
    """The Table 1 characteristics of an operator's output stream."""

    rate: float  # mu_s: worst-case events per second
    dt: float  # detection time: mean seconds between detections
    bsize: float  # burst size
    brate: float  # bursts per second


def _prod(*xs: float) -> float:
    """A product in which a zero factor wins over an infinite one (a stream that never fires)."""
    if any(x == 0 for x in xs):
        return 0.0
    return math.prod(xs)


def _inv(x: float) -> float:
    return math.inf if x == 0 else (0.0 if math.isinf(x) else 1.0 / x)


def source_chars(rate: float) -> Chars:
    return Chars(rate, _inv(rate), 1.0, rate)


def union_chars(a: Chars, b: Chars) -> Chars:
    br = a.brate + b.brate
    return Chars(a.rate + b.rate, _inv(br), _prod(a.bsize, a.brate) + _prod(b.bsize, b.brate), br)


def next_chars(a: Chars, b: Chars) -> Chars:
    return Chars(a.rate, a.dt + b.dt, _prod(a.bsize, a.brate, b.dt), _inv(max(a.dt, b.dt)))


def next_cost(a: Chars, b: Chars) -> float:
    """CPU of ``E1 ; E2`` with E1, E2 of characteristics ``a``, ``b`` (NEXT Section 4.2)."""
    ratio = 0.0 if (b.dt == 0 or math.isinf(a.dt)) else (math.inf if a.dt == 0 else b.dt / a.dt)
    return a.rate + _prod(ratio, a.bsize, b.bsize, b.brate) + _prod(max(b.brate - a.brate, 0.0), b.bsize)


def _union_cost(a: Chars, b: Chars) -> float:
    return a.rate + b.rate


def _iteration_live_runs(e: algebra.Iteration, rate: float, window: float) -> float:
    cap = 1.0 + rate * window
    return cap if e.max_size is None else min(float(e.max_size), cap)


@dataclass(frozen=True)
class OperatorCost:
    """One operator's estimate: its output characteristics and its CPU (events per second)."""

    node: algebra.OpNode
    chars: Chars
    cpu: float


def estimate(node: algebra.OpNode, stats: Statistics) -> list[OperatorCost]:
    """Characteristics and CPU of every node of an operator tree, children before parents (a bare
    source has CPU 0: it is a stream, not an operator)."""
    out: list[OperatorCost] = []
    _estimate(node, stats, out)
    return out


def _estimate(node: algebra.OpNode, stats: Statistics, out: list[OperatorCost]) -> Chars:
    kids = [_estimate(c, stats, out) for c in node.children]
    k = node.kind
    if k in (algebra.SOURCE, algebra.FILTER):
        ch = source_chars(stats.rate(node.expr.type))
        cpu = 0.0 if k == algebra.SOURCE else ch.rate
    elif k == algebra.UNION:
        ch, cpu = union_chars(*kids), _union_cost(*kids)
    elif k == algebra.NEXT:
        ch, cpu = next_chars(*kids), next_cost(*kids)
    elif k == algebra.EXCEPT:
        ch, cpu = kids[0], kids[0].rate + kids[1].rate
    elif k == algebra.TIME:
        e = kids[0]
        ch, cpu = Chars(e.rate, e.dt + node.expr.seconds, e.bsize, e.brate), e.rate
    else:
        e = kids[0]
        live = _iteration_live_runs(node.expr, e.rate, node.window)
        outs = max(live - node.expr.min_size + 1, 0.0)
        ch, cpu = Chars(_prod(e.rate, outs), e.dt, _prod(e.bsize, outs), e.brate), _prod(e.rate, live)
    out.append(OperatorCost(node, ch, cpu))
    return ch


def query_cost(pattern: algebra.NextPattern, stats: Statistics) -> float:
    """``cost(Q)``: the sum of the CPU estimates of the pattern's operators (NEXT Section 4.2)."""
    stats.require_types(pattern.event_types)
    return sum(o.cpu for o in estimate(pattern.operators, stats))


def expr_chars(e: algebra.Expr, stats: Statistics, window: float = 60.0) -> Chars:
    """Characteristics of an expression without predicates (what rewriting compares)."""
    p = algebra.NextPattern(e, window=_window(window))
    return estimate(p.operators, stats)[-1].chars


def _window(seconds: float):
    from cep.pattern import Window

    return Window.seconds(seconds)
