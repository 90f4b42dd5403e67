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
only its own entries when it evaluates a snapshot expression (:func:`evaluators.trends.kernels.eval_add`).
Coefficients add entry-wise (``c``, ``d`` add; ``mn`` / ``mx`` take the min / max), and evaluation
distributes over that addition, so a graphlet's total is evaluated once from its summed coefficients.

:func:`coefficient_layout` lays a coefficient out as rows for the kernels: the count, then per entry a
``SUM`` as two rows (positive and negative parts) and a ``MIN``/``MAX`` as one (a rank).  The layout of a
shareable type is the union over all its candidate queries, so one layout serves whichever of them a
burst's policy chooses; the entries of the chosen queries are :func:`coefficient_keys`.
This is why the executor can share a Kleene sub-pattern among queries whatever their aggregates
(Definition 3.2's "aggregation functions can be shared": with a tuple per coefficient, every pair of
the aggregates above can).
"""

from __future__ import annotations

from collections.abc import Sequence

import evaluators.trends.kernels as K

_KIND = {"sum": K.A_SUM, "min": K.A_MIN, "max": K.A_MAX}


def coefficient_keys(queries: Sequence, etype: str) -> list[tuple[str, str | None]]:
    """The entries beside the count of a coefficient shared by ``queries`` on type ``etype``: each distinct
    (kind, attribute) one of them aggregates on ``etype``, in order of first appearance."""
    keys: list[tuple[str, str | None]] = []
    for cq in queries:
        i = cq.elem_of_type[etype]
        for kind, ei, a in cq.agg.specs:
            if ei == i and (kind, a) not in keys:
                keys.append((kind, a))
    return keys


def coefficient_layout(queries: Sequence, etype: str) -> tuple[list[tuple[str, str | None]], list[int], list[int], list[list[int]]]:
    """The rows of a coefficient of a graphlet of ``etype`` that any of ``queries`` may share: its entries
    (:func:`coefficient_keys`), each entry's first row, every row's kind, and per query, per aggregate of
    its RETURN clause (``cq.agg.specs``), the first row of the entry it reads (-1: an aggregate of another
    element, which a coefficient does not touch)."""
    keys = coefficient_keys(queries, etype)
    kinds = [K.K_COUNT]
    rows = []
    for kind, _ in keys:
        rows.append(len(kinds))
        kinds += [K.K_POS, K.K_NEG] if kind == "sum" else [K.K_MIN if kind == "min" else K.K_MAX]
    reads = []
    for cq in queries:
        i = cq.elem_of_type[etype]
        reads.append([rows[keys.index((kind, a))] if ei == i else -1 for kind, ei, a in cq.agg.specs])
    return keys, rows, kinds, reads
