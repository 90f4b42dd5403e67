"""Snapshot coefficients of a shared graphlet for every aggregate (HAMLET Sections 2.1 and 3.3).

For COUNT(*) an event's count in a shared graphlet of type ``E`` is a linear expression in the
snapshots, ``count(e) = sum_s c_s * value(s, q)`` (Table 3: x, 2x, 4x, 8x), and the coefficients
``c_s`` are the same for every sharing query.  The other aggregates of Section 2.1 propagate the same
way once a coefficient is a short tuple instead of one number.  Take the trends that reach ``e`` from a
snapshot ``s`` through a path ``P`` of graphlet events (Equation 2 unrolled):

* ``COUNT(*)``: ``c * value(s).count``, ``c`` the number of paths (the COUNT(*) coefficient);
* ``SUM(E.a)`` (``COUNT(E)`` is ``SUM`` of 1): every trend of ``s`` extended by every path, so
  ``c * value(s).sum + d * value(s).count`` with ``d`` the sum of ``a`` over all paths' events:
  ``d(e) = sum of d(e') over the predecessors e' + a(e) * c(e)``;
* ``MIN(E.a)`` / ``MAX(E.a)``: ``min(value(s).min, mn)`` with ``mn`` the least ``a`` on some path,
  ``mn(e) = min(a(e), mn(e') over the predecessors)``;
* ``AVG(E.a)`` is ``SUM(E.a) / COUNT(E)`` (Section 3.1), two of the above;
* an aggregate of another element ``E'`` is fixed before the graphlet: ``c * value(s).sum``
  (sums), ``value(s).min`` (min / max).

So a coefficient is ``[c, acc_1, ..., acc_r]``, one ``acc`` per distinct ``(kind, E.a)`` that some
sharing query aggregates on ``E``; it is propagated once for all sharing queries, and each query reads
only its own entries when it evaluates a snapshot expression (:meth:`GraphletAlgebra.evaluate`).
Coefficients add entry-wise (``c``, ``d`` add; ``mn`` / ``mx`` take the min / max), and evaluation
distributes over that addition, so a graphlet's total is evaluated once from its summed coefficients.
This is why the executor can share a Kleene sub-pattern among queries whatever their aggregates
(Definition 3.2's "aggregation functions can be shared": with a tuple per coefficient, every pair of
the aggregates above can).
"""

from __future__ import annotations

from collections.abc import Sequence

from cep.trends import number
from evaluators.trends.common import AggregateSum

INF = float("inf")


class GraphletAlgebra(AggregateSum):
    """The coefficient layout of one shared graphlet of type ``etype`` for the queries ``shared``."""

    def __init__(self, shared: Sequence, etype: str) -> None:
        keys: list[tuple[str, str | None]] = []
        self.reads: dict[int, list[tuple[int, str, int]]] = {}  # query index -> (slot, kind, entry or 0)
        for cq in shared:
            i = cq.elem_of_type[etype]
            ops = []
            for j, (kind, ei, attr) in enumerate(cq.agg.specs, 1):
                entry = 0
                if ei == i:
                    if (kind, attr) not in keys:
                        keys.append((kind, attr))
                    entry = 1 + keys.index((kind, attr))
                ops.append((j, kind, entry))
            self.reads[cq.index] = ops
        self.keys = keys
        self.kinds = [k for k, _ in keys]
        self.identity = [0 if k == "sum" else (INF if k == "min" else -INF) for k in self.kinds]

    def unit(self) -> list:
        """The coefficient of the snapshot itself: ``e = s`` (one path, nothing added yet)."""
        return [1] + self.identity

    def values(self, attrs: dict) -> list:
        """The entries' attribute values of one event (1 for COUNT(E))."""
        return [1 if a is None else number(attrs[a]) for _, a in self.keys]

    def step(self, pred: list, vals: list) -> list:
        """The coefficient of an event whose predecessors' coefficients sum to ``pred`` (Equation 2)."""
        c = pred[0]
        out = [c]
        for j, k in enumerate(self.kinds, 1):
            v = vals[j - 1]
            p = pred[j]
            if k == "sum":
                out.append(p + v * c)
            elif k == "min":
                out.append(min(p, v))
            else:
                out.append(max(p, v))
        return out

    def evaluate(self, cq, coef: list, state: list | None) -> list | None:
        """The state of query ``cq`` that ``coef`` times the snapshot value ``state`` stands for (a
        COUNT(*)-only query's state is its count, an int)."""
        if cq.agg.count_only:
            return coef[0] * state
        if state is None:
            return None
        c = coef[0]
        cnt = c * state[0]
        if cnt == 0:
            return None
        out = [cnt]
        for slot, kind, entry in self.reads[cq.index]:
            x = state[slot]
            if kind == "sum":
                out.append(c * x + coef[entry] * state[0] if entry else c * x)
            elif not entry:
                out.append(x)
            elif kind == "min":
                out.append(min(x, coef[entry]))
            else:
                out.append(max(x, coef[entry]))
        return out
