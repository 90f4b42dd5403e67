"""GRETA: non-shared online trend aggregation (HAMLET Section 3.2, Equations 1-3; Poppe et al. VLDB'17).

Each query keeps its own graph per partition (group and equivalence values): the vertices are the
events the query matched, stored per pattern element; an edge joins a predecessor event ``e'`` to
``e`` when ``e'`` is of a predecessor type ``pt(E, q)``, strictly earlier, in the same partition and
not separated from ``e`` by a negated event.  When ``e`` arrives, its intermediate aggregate is
computed from its predecessors (Equation 2: ``count(e,q) = start(e,q) + sum of count(e',q)`` over
``pe(e,q)``) by visiting every stored predecessor vertex, as GRETA does -- no trend is constructed,
and the cost is quadratic in the matched events per query (Equation 4: ``k * n^2``).  The loop is
compiled (:func:`evaluators.trends.kernels.greta_kernel`, on the rows of :mod:`evaluators.trends.tables`,
the same predicates and exact numbers as HAMLET's): per query, partition and element the vertices are
kept in time order, each with its state per pane slot, so an event's predecessors are one contiguous
run (found by binary search on the time stamps and the gap's latest negated event) that Equation 2's
sum visits vertex by vertex, as the reference Java GRETA loops over its vertex list; the sum adds each
vertex's limbs into 64-bit lanes and carries once.  Final aggregates add up the end-type events
(Equation 3).

Windows: the stream is cut into panes whose length is the gcd of all windows and slides
(Section 3.1); a vertex keeps one aggregate per pane a trend through it may start in, and a trend that
starts in pane ``sp`` and ends in pane ``ep`` counts in every window that holds both.  Vertices older
than a window are dropped when their graph next takes an event (``peak_vertices`` is the most stored
at once, after a timestamp).  A timestamp's latency is the kernel's time on it plus an equal share of
the run's batch work (building the tables, decoding the results).

``max_work`` caps the predecessor vertices visited (the terms of Equation 2's sums, the quadratic work of
Equation 4), checked after each timestamp's events (:class:`~cep.errors.WorkLimitError`; the events of
the earlier timestamps are the ones processed): the paper's GRETA fails at 40K events per minute
(Figure 10(b)), and a capped run is a bound.
"""

from __future__ import annotations

import time
from typing import Sequence

import numpy as np

import evaluators.trends.kernels as K
from cep.errors import WorkLimitError
from cep.trends import TrendQuery
from evaluators.trends.common import Clock, TrendResult, compile_queries, kernel_latencies
from evaluators.trends.tables import WorkloadTables, decode_results, limbs_for, stream_tables


def run_greta(queries: Sequence[TrendQuery], stream, *, max_work: int | None = None) -> TrendResult:
    pane, compiled = compile_queries(queries)
    wt = WorkloadTables(compiled)
    _load_kernel()
    clock = Clock()
    events = list(stream)
    tabs = stream_tables(wt, events, pane)
    limbs = limbs_for(tabs.bound_bits)
    while True:
        try:
            keys, rows, stats, cycles, kernel_s = _run(wt, tabs, limbs, -1 if max_work is None else max_work)
            break
        except OverflowError:  # the bound was too small (never expected): more room, same results
            limbs *= 2
    if stats[K.G_CAPPED] >= 0:
        done = int(np.count_nonzero(tabs.event_group < stats[K.G_CAPPED]))
        raise WorkLimitError(f"greta: more than {max_work:,} predecessor vertices visited", processed=done)
    states = decode_results(wt, tabs, keys, rows)
    elapsed = clock.elapsed()
    res = TrendResult(list(queries), compiled, states, "greta", len(events), elapsed)
    res.latencies_ms = kernel_latencies(cycles, kernel_s, elapsed)
    res.extra["peak_vertices"] = int(stats[K.G_PEAK])
    res.extra["work"] = int(stats[K.G_WORK])
    return res


def _run(wt: WorkloadTables, tabs, limbs: int, max_work: int):
    """One kernel run at a given row width: its results, statistics, cycles per timestamp and seconds."""
    width1 = limbs + 1
    nq = len(wt.compiled)
    P = len(tabs.part_tpl)
    elmax = int(wt.qnel.max())
    # partitions of a template are consecutive ids; a query's graphs are one per partition of its template
    tpl_pbase = np.zeros(len(wt.templates) + 1, np.int64)
    for t in range(len(wt.templates)):
        ids = np.flatnonzero(tabs.part_tpl == t)
        tpl_pbase[t] = ids[0] if len(ids) else 0
    tpl_np = np.bincount(tabs.part_tpl, minlength=len(wt.templates)).astype(np.int64) if P else np.zeros(len(wt.templates), np.int64)
    q_tpl = np.zeros(nq, np.int64)
    for t in range(len(wt.templates)):
        q_tpl[wt.tpl_q[wt.tpl_qptr[t]:wt.tpl_qptr[t + 1]]] = t
    g_off = np.concatenate(([0], np.cumsum(tpl_np[q_tpl])[:-1])).astype(np.int64)
    n_graphs = int(tpl_np[q_tpl].sum())
    # vertex room per (graph, element): the rows the element matches in that partition
    cap = np.zeros(max(n_graphs * elmax, 1), np.int64)
    hits_of = np.zeros(nq, np.int64)
    for q in range(nq):
        rows = np.flatnonzero(tabs.hit[:, q])
        i = wt.elem_of_type[q, tabs.r_type[rows]]
        vid = (g_off[q] + tabs.r_part[rows] - tpl_pbase[q_tpl[q]]) * elmax + i
        cap += np.bincount(vid, minlength=len(cap))
        hits_of[q] = len(rows)
    v_off = np.concatenate(([0], np.cumsum(cap)[:-1])).astype(np.int64)
    nv = max(int(cap.sum()), 1)
    f_off = np.concatenate(([0], np.cumsum(hits_of)[:-1])).astype(np.int64)
    if len(tabs.r_ev):
        eg = tabs.event_group[tabs.r_ev]
        cut = np.flatnonzero(eg[1:] != eg[:-1]) + 1
        grp_lo = np.concatenate(([0], cut)).astype(np.int64)
        grp_hi = np.concatenate((cut, [len(eg)])).astype(np.int64)
        grp_id = eg[grp_lo]
    else:
        grp_lo = grp_hi = grp_id = np.zeros(0, np.int64)
    G = (tabs.r_tpl, tabs.r_part, grp_lo, grp_hi, grp_id, wt.tpl_qptr, wt.tpl_q, tpl_pbase, g_off, v_off, elmax, f_off, max(P, 1))
    ST = (tabs.r_ev, tabs.r_ts, tabs.r_pane, tabs.r_type, tabs.hit, tabs.neg_ptr, tabs.neg_q, tabs.neg_after,
          tabs.r_vidx, tabs.r_vsign, tabs.r_vrank, tabs.value_rows(width1))
    stats = np.zeros(4, np.int64)
    stats[K.G_CAPPED] = -1
    cycles = np.zeros(tabs.groups, np.int64)
    one = np.zeros(width1, np.uint32)
    one[0] = one[1] = 1
    GS = (np.full(max(n_graphs, 1), K.NO_PANE, np.int64), np.full(max(n_graphs * elmax, 1), -np.inf), v_off.copy(), v_off.copy(),
          np.zeros(nv), np.zeros(nv, np.int64), np.zeros(nv, np.int64), np.zeros(max(int(hits_of.sum()), 1), np.int64),
          np.zeros(nq, np.int64), stats, cycles, one)
    t0 = time.perf_counter()
    keys, rows = K.greta_kernel(wt.Q, G, ST, GS, width1, max_work)
    return keys, rows, stats, cycles, time.perf_counter() - t0


_LOADED = False


def _load_kernel() -> None:
    """Load (or compile) the kernel once per process, outside any timed run (:mod:`evaluators.trends.kernels`)."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    from cep.events import Event, EventStream
    from cep.parser import parse_patterns

    qs = parse_patterns("RETURN COUNT(*), SUM(b.x), MIN(b.x) PATTERN SEQ(A a, B b+, NOT(D d), E e) WITHIN 4 seconds")
    run_greta(qs, EventStream([Event(t, float(i // 2), {"x": i % 3}) for i, t in enumerate("ABBDBEAB")]))
