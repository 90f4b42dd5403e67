"""The literal reference: enumerate every trend of every window and group, then aggregate.

It applies the definitions of :mod:`cep.trends` one by one -- a trend is built event by event (each
strictly later than the previous; a Kleene element takes one or more events; a NOT kills a step over
a negated event strictly between) inside the events of one window and one partition -- and is meant
for tiny inputs only (the number of trends is exponential).  The other engines are tested against it.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from cep.trends import TrendQuery, number, windows_of
from evaluators.trends.common import INF, Clock, TrendResult, compile_queries

MAX_TRENDS = 200_000


def enumerate_trends(cq, events) -> list[list[tuple[int, object]]]:
    """All trends of query ``cq`` among ``events`` (one window, one partition), each a list of
    (element index, event)."""
    n_el = len(cq.types)
    matched = []  # (index in events, element, event)
    negs = []  # (after, ts)
    for e in events:
        i = cq.elem_of_type.get(e.type)
        if i is not None and cq.filters[i](e.attrs):
            matched.append((i, e))
        for after, f in cq.negs_of_type.get(e.type, ()):
            if f(e.attrs):
                negs.append((after, e.ts))
    out: list[list] = []

    def blocked(i_from: int, t_from: float, t_to: float) -> bool:
        return any(after == i_from and t_from < t < t_to for after, t in negs)

    def grow(trend: list) -> None:
        i, last = trend[-1]
        if i == n_el - 1:
            out.append(list(trend))
            if len(out) > MAX_TRENDS:
                raise RuntimeError("reference: too many trends for a tiny input")
        for j, e in matched:
            if e.ts <= last.ts:
                continue
            if (j == i and cq.kleene[i]) or (j == i + 1 and not blocked(i, last.ts, e.ts)):
                trend.append((j, e))
                grow(trend)
                trend.pop()

    for j, e in matched:
        if j == 0:
            grow([(0, e)])
    return out


def _state_of(cq, trends) -> list:
    agg = cq.agg
    state = [len(trends)]
    for kind, ei, attr in agg.specs:
        vals = [1 if attr is None else number(e.attrs[attr]) for tr in trends for (j, e) in tr if j == ei]
        if kind == "sum":
            state.append(sum(vals))
        elif kind == "min":
            state.append(min(vals, default=INF))
        else:
            state.append(max(vals, default=-INF))
    return state


def run_reference(queries: Sequence[TrendQuery], stream) -> TrendResult:
    clock = Clock()
    events = list(stream)
    _p, compiled = compile_queries(queries)
    states = []
    for cq in compiled:
        q = cq.query
        st: dict = {}
        ks = sorted({k for e in events for k in windows_of(q, e.ts)})
        for k in ks:
            lo, hi = k * q.slide, k * q.slide + q.window
            parts: dict = {}
            for e in events:
                if lo <= Fraction(e.ts) < hi and all(a in e.attrs for a in q.partition_attributes):
                    parts.setdefault(cq.partition_key(e.attrs), []).append(e)
            by_group: dict = {}
            for key, evs in parts.items():
                by_group.setdefault(cq.group_of(key), []).extend(enumerate_trends(cq, evs))
            for g, trends in by_group.items():
                if trends:
                    st[(k, g)] = _state_of(cq, trends)
        states.append(st)
    return TrendResult(list(queries), compiled, states, "reference", len(events), clock.elapsed())
