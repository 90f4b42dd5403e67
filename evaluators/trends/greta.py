"""GRETA: non-shared online trend aggregation (HAMLET Section 3.2, Equations 1-3; Poppe et al. VLDB'17).

Each query keeps its own graph per partition (group and equivalence values): the vertices are the
events the query matched, stored per pattern element; an edge joins a predecessor event ``e'`` to
``e`` when ``e'`` is of a predecessor type ``pt(E, q)``, strictly earlier, in the same partition and
not separated from ``e`` by a negated event.  When ``e`` arrives, its intermediate aggregate is
computed from its predecessors (Equation 2: ``count(e,q) = start(e,q) + sum of count(e',q)`` over
``pe(e,q)``) by visiting every stored predecessor vertex, as GRETA does -- no trend is constructed,
and the cost is quadratic in the matched events per query (Equation 4: ``k * n^2``).  The vertices
are stored as columns (:class:`_Graph`), so that visit is a ``sum`` over a contiguous run of a list,
as the reference Java GRETA's loop over its vertex list (the same compiled predicates as HAMLET).  Final aggregates
add up the end-type events (Equation 3).

Windows: the stream is cut into panes whose length is the gcd of all windows and slides
(Section 3.1); a vertex keeps one aggregate per pane a trend through it may start in, and a trend that
starts in pane ``sp`` and ends in pane ``ep`` counts in every window that holds both.  Vertices older
than a window are dropped.

``max_work`` caps the predecessor vertices visited (the terms of Equation 2's sums, the quadratic work of
Equation 4), checked after each timestamp's events (:class:`~cep.errors.WorkLimitError`; the events of
the earlier timestamps are the ones processed): the paper's GRETA fails at 40K events per minute
(Figure 10(b)), and a capped run is a bound.
"""

from __future__ import annotations

import time
from bisect import bisect_left
from typing import Sequence

from cep.errors import WorkLimitError
from cep.trends import TrendQuery
from evaluators.trends.common import Clock, TrendResult, add_result, compile_queries, PaneClock, timestamp_groups


class _Graph:
    """One query's graph in one partition.

    The vertices of each pattern element are stored by start pane ``sp`` as columns: their time stamps
    (ascending: vertices arrive in time order) and one list per slot of the aggregate state.  An
    event's predecessors of an element are then one contiguous run of each column -- strictly earlier
    (``bisect`` on the time stamps) and not before the latest negated event of the gap -- and Equation 2's
    sum over them visits every one of those vertices (``sum``/``min``/``max`` over the run).  A vertex
    whose pane has left every window is dropped with its start panes (all of them are older)."""

    __slots__ = ("cols", "not_ts", "pane", "panes")

    def __init__(self, n_elements: int) -> None:
        self.cols: list[dict] = [{} for _ in range(n_elements)]  # per element: {sp: (ts list, [slot lists])}
        self.panes: list[list[int]] = [[] for _ in range(n_elements)]  # per element: each vertex's pane, in order
        self.not_ts: dict[int, float] = {}  # gap after element i -> latest negated event's ts
        self.pane = None


def _reducers(kinds: list[str]) -> list:
    """Per slot of the aggregate state, how a run of vertices' values adds up (count and sums add)."""
    return [sum] + [sum if k == "sum" else (min if k == "min" else max) for k in kinds]


def run_greta(queries: Sequence[TrendQuery], stream, *, max_work: int | None = None) -> TrendResult:
    clock = Clock()
    events = list(stream)
    pane, compiled = compile_queries(queries)
    states: list[dict] = [{} for _ in compiled]
    graphs: list[dict] = [{} for _ in compiled]
    preds = [[cq.pred_elements(i) for i in range(len(cq.types))] for cq in compiled]
    reducers = [_reducers(cq.agg.kinds) for cq in compiled]
    stored = peak = work = 0
    lat: list[float] = []
    pane_clock = PaneClock(pane)
    done = 0  # events of the groups processed so far (what a capped run has processed)
    for group in timestamp_groups(events):
        t0 = time.perf_counter()
        ts = group[0].ts
        cur = pane_clock(ts)
        for cq, gs, st, pe, red in zip(compiled, graphs, states, preds, reducers):
            agg = cq.agg
            oldest = cur - cq.L + 1
            new: list[tuple] = []
            kills: list[tuple] = []
            for e in group:
                i = cq.elem_of_type.get(e.type)
                hit = i is not None and cq.filters[i](e.attrs)
                neg = [after for after, f in cq.negs_of_type.get(e.type, ()) if f(e.attrs)]
                if not hit and not neg:
                    continue
                key = cq.partition_key(e.attrs)
                g = gs.get(key)
                if g is None:
                    g = gs[key] = _Graph(len(cq.types))
                if g.pane != cur:
                    for cols, vp in zip(g.cols, g.panes):
                        if vp and vp[0] < oldest:
                            n_old = bisect_left(vp, oldest)
                            stored -= n_old
                            del vp[:n_old]
                            for sp in [sp for sp in cols if sp < oldest]:
                                del cols[sp]
                    g.pane = cur
                for after in neg:
                    kills.append((g, after))
                if not hit:
                    continue
                # Equation 2: every predecessor vertex, a contiguous run of each start pane's columns
                pred: dict = {}
                for src in pe[i]:
                    bound = g.not_ts.get(src) if src != i else None
                    for sp, (tss, slots) in g.cols[src].items():
                        if sp < oldest:
                            continue
                        hi = bisect_left(tss, ts)
                        lo = 0 if bound is None else bisect_left(tss, bound)
                        if lo >= hi:
                            continue
                        work += hi - lo
                        s = [r(col[lo:hi]) for r, col in zip(red, slots)]
                        acc = pred.get(sp)
                        if acc is None:
                            pred[sp] = s
                        else:
                            agg.add(acc, s)
                mine: dict = {}
                if i == 0:
                    pred.setdefault(cur, None)
                for sp, p in pred.items():
                    s = agg.extend(p, 1 if (i == 0 and sp == cur) else 0, i, e.attrs)
                    if s is not None:
                        mine[sp] = s
                if mine:
                    new.append((g, i, key, mine))
            for g, after in kills:
                g.not_ts[after] = ts
            for g, i, key, mine in new:
                cols = g.cols[i]
                for sp, s in mine.items():
                    c = cols.get(sp)
                    if c is None:
                        c = cols[sp] = ([], [[] for _ in s])
                    c[0].append(ts)
                    for col, v in zip(c[1], s):
                        col.append(v)
                g.panes[i].append(cur)
                stored += 1
                if i == len(cq.types) - 1:
                    grp = cq.group_of(key)
                    for sp, s in mine.items():
                        add_result(cq, st, grp, sp, cur, s)
        if max_work is not None and work > max_work:
            raise WorkLimitError(f"greta: more than {max_work:,} predecessor vertices visited", processed=done)
        peak = max(peak, stored)
        done += len(group)
        lat.append((time.perf_counter() - t0) * 1000.0)
    res = TrendResult(list(queries), compiled, states, "greta", len(events), clock.elapsed())
    res.latencies_ms = lat
    res.extra["peak_vertices"] = peak
    res.extra["work"] = work
    return res
