"""SHARON-style flattening: Kleene patterns as sets of fixed-length sequences (HAMLET Section 5.1).

SHARON aggregates event sequences online but has no Kleene closure; as in the HAMLET paper, each
``E+`` is flattened into the fixed-length sequences ``E``, ``E E``, ..., ``E^l`` for every length up to
``l``, the longest match of ``E+``.  We take ``l`` exact -- the most events of ``E`` one query matches in
one window and partition -- so the results equal the other engines' (the paper estimates it).  Each
fixed-length sequence is aggregated online without construction (A-Seq style prefix counters:
an event at position ``j`` extends the prefixes that end at position ``j - 1``), per window; the
query's result is the sum over its sequences.  ``max_positions`` caps the flattened workload and
``max_work`` the prefix extensions (:class:`~cep.errors.WorkLimitError`).

Data structures (the same care as HAMLET's and GRETA's): the events are routed once per query -- the
compiled predicates of :mod:`evaluators.trends.common`, panes by :class:`PaneClock` -- into windows
and partitions.  A partition's flattened sequences are one flat layout of positions (:class:`_Layout`:
numpy arrays of each position's element, built with ``np.repeat`` from the sequences' run lengths),
and their prefix counters are numpy columns (int64 where the count provably fits, see
:func:`_aggregate`; otherwise exact Python numbers, object dtype: counts pass 2**63): an event of
element ``i`` extends every position of ``i`` in every sequence at once (a gather of the predecessor
positions and an add), which is the same work -- one prefix extension per position -- counted the
same way.  The cap is checked from that count before a partition's work, so a capped run stops
before the partition that would pass it.
"""

from __future__ import annotations

import itertools
import math
import time
from bisect import bisect_left
from collections.abc import Sequence

import numpy as np

from cep.errors import WorkLimitError
from cep.trends import TrendQuery, number
from evaluators.trends.common import (
    Clock,
    CompiledQuery,
    PaneClock,
    TrendResult,
    compile_queries,
)

DEFAULT_MAX_POSITIONS = 2_000_000
INT64_EVENTS = 63  # fewer events than this have fewer than 2**63 trends: their counts fit in int64


def _flatten(kleene: tuple[bool, ...], counts: tuple[int, ...]) -> np.ndarray:
    """Every fixed-length sequence as its run lengths per element (one row per sequence): Kleene element
    i repeated 1..counts[i] times (once if it matched nothing), every other element once."""
    ranges = [range(1, max(n, 1) + 1) if k else range(1, 2) for k, n in zip(kleene, counts)]
    return np.array(list(itertools.product(*ranges)), dtype=np.int64).reshape(-1, len(ranges))


class _Layout:
    """The flattened sequences' positions end to end: per element its positions (``at``), which of them
    start a sequence (``first``: no prefix before them), its predecessor positions (``prev``), and per
    negated gap the last position of the element before it (``kill``: prefixes ending there are cut)."""

    def __init__(self, lens: np.ndarray) -> None:
        self.lens = lens
        self.occ = [int(x) for x in lens.sum(axis=0)]  # per element, its positions in all sequences
        n_seq, n_el = lens.shape
        flat = lens.ravel()
        elem = np.repeat(np.tile(np.arange(n_el), n_seq), flat)
        size = len(elem)
        ends = np.cumsum(lens.sum(axis=1))
        starts = ends - lens.sum(axis=1)
        first = np.zeros(size, dtype=bool)
        first[starts] = True
        run_end = np.ones(size, dtype=bool)  # the last position of an element's run in its sequence
        run_end[:-1] = (elem[1:] != elem[:-1]) | first[1:]
        self.size = size
        self.last = ends - 1
        self.at = [np.flatnonzero(elem == i) for i in range(n_el)]
        self.first = [first[a] for a in self.at]
        self.prev = [a - 1 for a in self.at]
        self.kill = [np.flatnonzero((elem == i) & run_end) for i in range(n_el)]


def _identity(kind: str):
    return 0 if kind == "sum" else (math.inf if kind == "min" else -math.inf)


def _aggregate(cq: CompiledQuery, entries: list, lay: _Layout):
    """The partition's window through every flattened sequence at once: the prefix counters' states
    (count column, one column per aggregate slot), events in timestamp groups (a group's extensions read
    the states before it; negations cut first, then the extensions add).  The summed state of every
    sequence's full matches, or None if none.

    A count is at most the number of subsets of the partition's events, so a COUNT(*)-only query
    over fewer than 63 events counts in int64; otherwise every column holds exact Python numbers."""
    agg = cq.agg
    kinds = agg.kinds
    ids = [_identity(k) for k in kinds]
    cnt = np.zeros(lay.size, dtype=np.int64 if agg.count_only and len(entries) < INT64_EVENTS else object)
    acc = [np.full(lay.size, z, dtype=object) for z in ids]
    for _ts, grp in itertools.groupby(entries, key=lambda x: x[0].ts):
        kills, adds = [], []
        for _e, i, neg, attrs in grp:
            kills.extend(lay.kill[a] for a in neg)
            if i is None:
                continue
            at, first, prev = lay.at[i], lay.first[i], lay.prev[i]
            pc = cnt[prev]
            pc[first] = 1  # a sequence's first position starts a prefix (Equation 1's start term)
            ps = []
            for s, z in zip(acc, ids):
                col = s[prev]
                col[first] = z
                ps.append(col)
            for j, kind, attr in agg.by_element.get(i, ()):
                v = 1 if attr is None else number(attrs[attr])
                col = ps[j - 1]
                if kind == "sum":
                    ps[j - 1] = col + v * pc
                else:  # MIN/MAX of the prefixes that exist (a zero count keeps the identity)
                    ext = np.minimum(col, v) if kind == "min" else np.maximum(col, v)
                    ps[j - 1] = np.where(pc != 0, ext, col)
            adds.append((at, pc, ps))
        for ks in kills:
            cnt[ks] = 0
            for s, z in zip(acc, ids):
                s[ks] = z
        for at, pc, ps in adds:
            cnt[at] += pc
            for s, kind, col in zip(acc, kinds, ps):
                s[at] = s[at] + col if kind == "sum" else (np.minimum(s[at], col) if kind == "min" else np.maximum(s[at], col))
    if not acc:
        n = int(cnt[lay.last].sum())
        return [n] if n else None
    total = None
    for j in lay.last:  # the sequences' full matches, summed in sequence order
        if cnt[j]:
            st = [int(cnt[j])] + [s[j] for s in acc]
            if total is None:
                total = st
            else:
                agg.add(total, st)
    return total


def _route(cq: CompiledQuery, events, panes) -> dict[int, dict[tuple, list]]:
    """Per window (every window holding an event), per partition in order of its first event there, the
    query's events: ``(event, element or None, negated gaps, attrs)`` for those it matches or negates."""
    windows: dict[int, dict] = {}
    attrs = cq.query.partition_attributes
    last = None
    for e, c in zip(events, panes):
        if c != last:
            ks = cq.windows_of_span(c, c)
            for k in ks:
                windows.setdefault(k, {})
            last = c
        a = e.attrs
        i = cq.elem_of_type.get(e.type)
        hit = i is not None and cq.filters[i](a)
        neg = [g for g, f in cq.negs_of_type.get(e.type, ()) if f(a)]
        if hit or neg:
            key = tuple(a[x] for x in attrs)
            entry = (e, i if hit else None, neg, a)
            for k in ks:
                windows[k].setdefault(key, []).append(entry)
    return dict(sorted(windows.items()))


def run_sharon(queries: Sequence[TrendQuery], stream, *, max_positions: int = DEFAULT_MAX_POSITIONS,
               max_work: int | None = None) -> TrendResult:
    clock = Clock()
    events = list(stream)
    pane, compiled = compile_queries(queries)
    pane_clock = PaneClock(pane)
    panes = [pane_clock(e.ts) for e in events]
    states: list[dict] = [{} for _ in compiled]
    layouts: dict[tuple, _Layout] = {}  # by the Kleene flags and counts: partitions alike share one
    sequences = 0
    work = 0
    lat: list[float] = []

    def processed(qi: int, k: int) -> int:
        """Events processed when a cap stops query ``qi``'s window ``k``: the earlier queries' whole
        stream and this query's events before the window, as a share of all queries'."""
        return (qi * len(events) + bisect_left(panes, k * compiled[qi].sigma)) // len(compiled)

    for qi, (cq, st) in enumerate(zip(compiled, states)):
        kleene = tuple(cq.kleene)
        for k, parts in _route(cq, events, panes).items():
            t0 = time.perf_counter()
            for key, evs in parts.items():
                counts = [0] * len(cq.kleene)
                for _e, i, _n, _a in evs:
                    if i is not None:
                        counts[i] += 1
                shape = (kleene, tuple(n if kl else 0 for n, kl in zip(counts, kleene)))
                lay = layouts.get(shape)
                if lay is None:
                    lens = _flatten(*shape)
                    if int(lens.sum()) > max_positions:
                        raise WorkLimitError(f"sharon: more than {max_positions:,} flattened sequence positions",
                                             processed=processed(qi, k))
                    lay = layouts[shape] = _Layout(lens)
                sequences += len(lay.lens)
                # one prefix extension per position of the event's element in every sequence
                work += sum(n * o for n, o in zip(counts, lay.occ))
                if max_work is not None and work > max_work:
                    raise WorkLimitError(f"sharon: more than {max_work:,} prefix extensions", processed=processed(qi, k))
                total = _aggregate(cq, evs, lay)
                if total is not None:
                    g = cq.group_of(key)
                    cur = st.get((k, g))
                    if cur is None:
                        st[(k, g)] = total
                    else:
                        cq.agg.add(cur, total)
            lat.append((time.perf_counter() - t0) * 1000.0)
    res = TrendResult(list(queries), compiled, states, "sharon", len(events), clock.elapsed())
    res.latencies_ms = lat
    res.extra["sequences"] = sequences
    return res
