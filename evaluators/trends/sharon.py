"""SHARON-style flattening: Kleene patterns as sets of fixed-length sequences (HAMLET Section 5.1).

SHARON aggregates event sequences online but has no Kleene closure; as in the HAMLET paper, each
``E+`` is flattened into the fixed-length sequences ``E``, ``E E``, ..., ``E^l`` for every length up to
``l``, the longest match of ``E+``.  We take ``l`` exact -- the most events of ``E`` one query matches in
one window and partition -- so the results equal the other engines' (the paper estimates it).  Each
fixed-length sequence is aggregated online without construction (A-Seq style prefix counters:
an event at position ``j`` extends the prefixes that end at position ``j - 1``), per window; the
query's result is the sum over its sequences.  ``max_positions`` caps the flattened workload and
``max_work`` the prefix extensions (:class:`~cep.errors.WorkLimitError`).
"""

from __future__ import annotations

import itertools
import time
from fractions import Fraction
from typing import Sequence

from cep.errors import WorkLimitError
from cep.trends import TrendQuery, windows_of
from evaluators.trends.common import Clock, TrendResult, compile_queries, timestamp_groups

DEFAULT_MAX_POSITIONS = 2_000_000


def _flatten(cq, counts: dict[int, int]) -> list[list[int]]:
    """Every fixed-length sequence of element indices: Kleene element i repeated 1..counts[i] times."""
    ranges = [range(1, counts.get(i, 1) + 1) if k else range(1, 2) for i, k in enumerate(cq.kleene)]
    out = []
    for lens in itertools.product(*ranges):
        out.append([i for i, n in enumerate(lens) for _ in range(n)])
    return out


def run_sharon(queries: Sequence[TrendQuery], stream, *, max_positions: int = DEFAULT_MAX_POSITIONS,
               max_work: int | None = None) -> TrendResult:
    clock = Clock()
    events = list(stream)
    _p, compiled = compile_queries(queries)
    states: list[dict] = [dict() for _ in compiled]
    sequences = 0
    work = 0
    lat: list[float] = []


    def processed(qi: int, lo) -> int:
        """Events processed when a cap stops query ``qi``'s window starting at ``lo``: the earlier
        queries' whole stream and this query's events before the window, as a share of all queries'."""
        return (qi * len(events) + sum(1 for e in events if Fraction(e.ts) < lo)) // len(compiled)

    for qi, (cq, st) in enumerate(zip(compiled, states)):
        q, agg = cq.query, cq.agg
        ks = sorted({k for e in events for k in windows_of(q, e.ts)})
        for k in ks:
            t0 = time.perf_counter()
            lo, hi = k * q.slide, k * q.slide + q.window
            parts: dict = {}
            for e in events:
                if lo <= Fraction(e.ts) < hi:
                    i = cq.elem_of_type.get(e.type)
                    hit = i is not None and cq.filters[i](e.attrs)
                    neg = [a for a, f in cq.negs_of_type.get(e.type, ()) if f(e.attrs)]
                    if hit or neg:
                        parts.setdefault(cq.partition_key(e.attrs), []).append((e, i if hit else None, neg))
            for key, evs in parts.items():
                counts: dict[int, int] = {}
                for _e, i, _n in evs:
                    if i is not None and cq.kleene[i]:
                        counts[i] = counts.get(i, 0) + 1
                seqs = _flatten(cq, counts)
                sequences += len(seqs)
                if sum(len(s) for s in seqs) > max_positions:
                    raise WorkLimitError(f"sharon: more than {max_positions:,} flattened sequence positions",
                                         processed=processed(qi, lo))
                total = None
                for seq in seqs:
                    pos_of: dict[int, list[int]] = {}
                    for j, ei in enumerate(seq):
                        pos_of.setdefault(ei, []).append(j)
                    c: list = [None] * len(seq)
                    for grp in timestamp_groups([x[0] for x in evs]):
                        info = {id(x[0]): x for x in evs}
                        adds, kills = [], []
                        for e in grp:
                            _e, i, neg = info[id(e)]
                            for a in neg:
                                # the last position of element a: prefixes ending there are cut
                                kills.append(max(pos_of[a]))
                            if i is None:
                                continue
                            js = pos_of.get(i, ())
                            work += len(js)
                            if max_work is not None and work > max_work:
                                raise WorkLimitError(f"sharon: more than {max_work:,} prefix extensions", processed=processed(qi, lo))
                            for j in js:
                                prev = c[j - 1] if j > 0 else None
                                s = agg.extend(prev, 1 if j == 0 else 0, i, e.attrs)
                                if s is not None:
                                    adds.append((j, s))
                        for j in kills:
                            c[j] = None
                        for j, s in adds:
                            if c[j] is None:
                                c[j] = list(s)
                            else:
                                agg.add(c[j], s)
                    if c[-1] is not None:
                        if total is None:
                            total = list(c[-1])
                        else:
                            agg.add(total, c[-1])
                if total is not None:
                    g = cq.group_of(key)
                    cur = st.get((k, g))
                    if cur is None:
                        st[(k, g)] = total
                    else:
                        agg.add(cur, total)
            lat.append((time.perf_counter() - t0) * 1000.0)
    res = TrendResult(list(queries), compiled, states, "sharon", len(events), clock.elapsed())
    res.latencies_ms = lat
    res.extra["sequences"] = sequences
    return res
