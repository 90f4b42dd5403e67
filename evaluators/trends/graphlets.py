"""HAMLET's shared graphlets: one propagation for every query that shares a burst (HAMLET Section 3.3,
Algorithm 1 lines 7-20; Definitions 3.9 and 3.11; Tables 3-5).

A shared graphlet starts with a graphlet-level snapshot ``x`` whose value per query is that query's
intermediate count at the graphlet's start (Equation 5: the start term plus the sums of its
predecessor types, previous graphlets of ``E`` included; the executor computes it).  Each event's
count is a map snapshot -> coefficient, propagated once for all sharing queries (Table 3: x, 2x, 4x,
8x).  An event matched by only some of the sharing queries (their predicates differ) gets an
event-level snapshot ``z``: its value per query is that query's count of the event (zero where the
query does not match it), and later events propagate ``z`` (so the snapshot sits at the unmatched
event, not at each later event whose predecessor sets differ only by it: see
tests/trends/test_engines.py::test_table_5_snapshot_values).  At the end of the graphlet each
query's sum is evaluated from the snapshot values, which is also where a split (the snapshot
replaced by its per-query value, Section 4.2) or a later merge (a new snapshot that consolidates the
per-query sums) happen.  Within a graphlet the coefficient of an event is kept as a running sum over
the earlier events, so each event costs one update per snapshot in play.

For COUNT(*)-only sharing sets a coefficient is an int (:func:`propagate_counts`); otherwise it is a
tuple (count, then per aggregated attribute of ``E`` a path sum / least / greatest value,
:mod:`evaluators.trends.coefficients`) and a snapshot value is a full aggregate state
(:func:`propagate_aggregates`).
"""

from __future__ import annotations

from dataclasses import dataclass

from evaluators.trends.coefficients import GraphletAlgebra


@dataclass
class Propagated:
    """What a shared graphlet yields: per sharing query (in the order given) its summed state per
    pane slot (``totals``), the snapshot values (``values[s][query index]``; ``s = 0`` is the
    graphlet-level snapshot x, every later one an event-level snapshot z), and, when traced, per
    event its position and coefficients ``{snapshot: coefficient}``."""

    totals: list[list]
    values: list[dict]
    coefficients: list


def propagate_counts(shared, bits, sel: int, events, masks, start: dict, trace: bool = False) -> Propagated:
    """A shared graphlet of COUNT(*)-only queries ``shared`` (query ``shared[k]`` is bit ``bits[k]``
    of the burst's ``masks``; ``sel`` the bits of all of them): int coefficients, Equation 2 once for
    all queries while an event matches all of them, an event-level snapshot where it does not
    (Definition 3.11).  ``start``: per query, its snapshot x (Equation 5)."""
    values = [start]
    S: dict = {}  # coefficients summed over the graphlet's events so far (committed timestamps)
    coefficients: list = []
    pend: dict = {}
    last_ts = None
    for e, m in zip(events, masks):
        m &= sel
        if not m:
            continue
        if e.ts != last_ts:
            if pend:
                for s, c in pend.items():
                    S[s] = S.get(s, 0) + c
                pend = {}
            last_ts = e.ts
        if m == sel:  # same predecessors for every sharing query: share the propagation (Eq. 2)
            for s, c in S.items():
                pend[s] = pend.get(s, 0) + c
            pend[0] = pend.get(0, 0) + 1
            if trace:
                coef = dict(S)
                coef[0] = coef.get(0, 0) + 1
                coefficients.append((e.pos, coef))
        else:  # predicates differ: an event-level snapshot z (Definition 3.11)
            values.append(_count_snapshot(shared, bits, m, S, values))
            z = len(values) - 1
            pend[z] = pend.get(z, 0) + 1
            if trace:
                coefficients.append((e.pos, {z: 1}))
    for s, c in pend.items():
        S[s] = S.get(s, 0) + c
    return Propagated(_count_totals(shared, S, values), values, coefficients)


def _count_snapshot(shared, bits, m: int, S: dict, values: list) -> dict:
    """The value of an event-level snapshot z per query: for a query matching the event (bit set in
    ``m``) its count of the event, the snapshots' values times the coefficients ``S`` of the earlier
    events plus x (Table 5); zero for the others."""
    zval = {}
    for cq, b in zip(shared, bits):
        if m >> b & 1:
            v = list(values[0][cq.index])
            for s, c in S.items():
                sv = values[s][cq.index]
                for sl in range(cq.L):
                    v[sl] += c * sv[sl]
            zval[cq.index] = v
        else:
            zval[cq.index] = [0] * cq.L
    return zval


def _count_totals(shared, S: dict, values: list) -> list[list]:
    """Per query, its sum over the graphlet's events: the summed coefficients times its snapshot values."""
    totals = []
    for cq in shared:
        total = [0] * cq.L
        for s, c in S.items():
            sv = values[s][cq.index]
            for sl in range(cq.L):
                total[sl] += c * sv[sl]
        totals.append(total)
    return totals


def propagate_aggregates(shared, bits, sel: int, events, masks, start: dict, trace: bool = False) -> Propagated:
    """:func:`propagate_counts` for any RETURN clause: coefficients are tuples (count, and per
    aggregated attribute of the shared type a sum / least / greatest value over the paths,
    :class:`~evaluators.trends.coefficients.GraphletAlgebra`); snapshot values are full aggregate
    states per pane slot."""
    etype = events[0].type
    alg = GraphletAlgebra(shared, etype)
    elem = {cq.index: cq.elem_of_type[etype] for cq in shared}
    values = [start]
    S: dict = {}
    pend: dict = {}
    coefficients: list = []
    last_ts = None
    unit = alg.unit()
    for e, m in zip(events, masks):
        m &= sel
        if not m:
            continue
        if e.ts != last_ts:
            _merge_coefs(alg, S, pend)
            pend = {}
            last_ts = e.ts
        # the predecessors' coefficients: the snapshot x directly, and every earlier event
        preds = {s: list(c) for s, c in S.items()}
        if 0 in preds:
            alg.add(preds[0], unit)
        else:
            preds[0] = list(unit)
        if m == sel:  # shared propagation (Equation 2 once for all sharing queries)
            vals = alg.values(e.attrs)
            coef = {s: alg.step(p, vals) for s, p in preds.items()}
        else:  # an event-level snapshot (Definition 3.11): the event's state per query
            values.append(_aggregate_snapshot(alg, shared, bits, elem, m, preds, values, e))
            coef = {len(values) - 1: list(unit)}
        _merge_coefs(alg, pend, coef)
        if trace:
            coefficients.append((e.pos, {s: tuple(c) for s, c in coef.items()}))
    _merge_coefs(alg, S, pend)
    return Propagated(_aggregate_totals(alg, shared, S, values), values, coefficients)


def _aggregate_snapshot(alg: GraphletAlgebra, shared, bits, elem: dict, m: int, preds: dict, values: list, e) -> dict:
    """The value of an event-level snapshot z per query: for a query matching event ``e`` its state
    of the event -- the predecessors' coefficients ``preds`` evaluated on its snapshot values, summed,
    and extended by ``e`` (Equation 2) -- per pane slot; no trend for the others."""
    zval = {}
    for cq, b in zip(shared, bits):
        if m >> b & 1:
            agg, i = cq.agg, elem[cq.index]
            vec = []
            for sl in range(cq.L):
                acc = None
                for s, p in preds.items():
                    acc = _plus(agg, acc, alg.evaluate(cq, p, values[s][cq.index][sl]))
                if agg.count_only:
                    vec.append(acc)
                else:
                    vec.append(agg.extend(acc, 0, i, e.attrs) if acc is not None else None)
            zval[cq.index] = vec
        else:
            zval[cq.index] = cq.empty_slots()
    return zval


def _aggregate_totals(alg: GraphletAlgebra, shared, S: dict, values: list) -> list[list]:
    """Per query, its state summed over the graphlet's events: the summed coefficients evaluated on
    its snapshot values (evaluation distributes over the coefficients' addition)."""
    totals = []
    for cq in shared:
        agg = cq.agg
        total = cq.empty_slots()
        for s, c in S.items():
            sv = values[s][cq.index]
            for sl in range(cq.L):
                total[sl] = _plus(agg, total[sl], alg.evaluate(cq, c, sv[sl]))
        totals.append(total)
    return totals


def _plus(agg, a, b):
    """a + b for two states of one query (None is no trend; a COUNT(*)-only state is an int); may
    reuse ``a``."""
    if agg.count_only:
        return (a or 0) + b
    if a is None:
        return b
    if b is None:
        return a
    agg.add(a, b)
    return a


def _merge_coefs(alg, into: dict, coefs: dict) -> None:
    """into += coefs, snapshot by snapshot (tuples added entry-wise)."""
    for s, c in coefs.items():
        cur = into.get(s)
        if cur is None:
            into[s] = list(c)
        else:
            alg.add(cur, c)
