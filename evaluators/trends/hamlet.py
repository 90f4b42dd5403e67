"""The HAMLET executor: shared online trend aggregation (HAMLET Section 3.3, Algorithm 1; Section 4.2).

**Merged template** (Section 3.1).  Queries whose trends share partition attributes (grouping and
equivalence) form one template; a Kleene type ``E`` that is ``E+`` in two or more of its queries is
*shareable* by them (Definition 3.1), whatever their aggregates: COUNT(*), COUNT(v), SUM, AVG, MIN and
MAX all propagate through a shared graphlet as tuple coefficients (:mod:`evaluators.trends.coefficients`;
Definition 3.2 asks that the aggregation functions can be shared, and with tuples every pair can).
Other queries run in the same executor, non-shared.

**Graphlets and bursts** (Definitions 3.6, 4.1).  Per partition, consecutive events of one shareable
type with no event of another type of the template in between form a burst; a burst is buffered until
it is complete (an event of another type, or a new pane) and then becomes one graphlet -- shared by
the queries the sharing policy chooses for it (static: all of them; dynamic: the optimizer of
:mod:`algorithms.trends`, injected as a policy), and non-shared for the others.

**Shared graphlets** (Algorithm 1, lines 7-20; Definitions 3.9, 3.11; Tables 3-5;
:func:`evaluators.trends.kernels._share`).  A shared graphlet starts with a graphlet-level snapshot
``x`` whose value per query is that query's intermediate count at the graphlet's start (Equation 5: the
start term plus the sums of its predecessor types, previous graphlets of ``E`` included).  Each event's
count is a map snapshot -> coefficient, propagated once for all sharing queries (Table 3: x, 2x, 4x,
8x).  An event matched by only some of the sharing queries (their predicates differ) gets an event-level
snapshot ``z``: its value per query is that query's count of the event (zero where the query does not
match it), and later events propagate ``z`` (so the snapshot sits at the unmatched event, not at each
later event whose predecessor sets differ only by it: see
tests/trends/test_engines.py::test_table_5_snapshot_values).  At the end of the graphlet each query's sum
is evaluated from the snapshot values, which is also where a split (the snapshot replaced by its
per-query value, Section 4.2) or a later merge (a new snapshot that consolidates the per-query sums)
happen.  Within a graphlet the coefficient of an event is kept as a running sum over the earlier
events, so each event costs one update per snapshot in play.  A coefficient is the count of paths for
COUNT(*), a short tuple for the other aggregates (:mod:`evaluators.trends.coefficients`).

**Non-shared** events (types that are not shared, queries outside the sharing set) follow
Equations 1-3 per query with running sums per predecessor edge.  Panes (the gcd of windows and
slides) bound every graphlet; aggregates are kept per pane a trend may start in, as in GRETA.

**Execution** (:mod:`evaluators.trends.kernels`).  The per-event loop is compiled, its state in arrays
(:mod:`evaluators.trends.tables`: one row per template and event, partitions, the predicates each row
satisfies; exact numbers as rows of limbs).  Where a burst ends, how long it is and what the policy sees
of it depend on the stream alone, never on the counts, so a run is three steps: the kernel *scans* the
rows for the bursts, the policy decides each (in Python, timed as ``decision_seconds``), and the kernel
*executes* with the decisions.  A timestamp's latency is the kernels' time on its events, the decisions
made at it, and an equal share of the run's batch work (building the tables, decoding the results).

**State meter** (``meter=True``; HAMLET Figure 12 compares the memory of dynamic and static sharing).
The executor's state is its running-sum vectors per partition, query and predecessor edge; the burst
it buffers (an event reference and a mask per event); and, while a shared graphlet propagates, its
snapshot values (per snapshot, per sharing query, a state per pane slot) and one coefficient per
snapshot (Section 3.3: this is what static sharing grows and dynamic sharing bounds).  A slot's state
is one number for a COUNT(*)-only query and its aggregate tuple otherwise; a coefficient is the
graphlet's tuple (:mod:`evaluators.trends.coefficients`).  ``peak_memory_bytes`` is the largest count of
those numbers and references held at once, at 8 bytes each (the width of the paper's Java longs,
doubles and references), checked after every shared graphlet's propagation, at every burst and at the
end.  The results of closed windows are output, not state, and are not counted.  The count is
deterministic, and costs a sum over the sharing queries per shared graphlet, so it runs in the
timed run.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Protocol, Sequence

import numpy as np

import evaluators.trends.kernels as K
from cep.trends import TrendQuery
from evaluators.trends.coefficients import coefficient_keys
from evaluators.trends.common import Clock, TrendResult, compile_queries, kernel_latencies
from evaluators.trends.tables import (StreamTables, WorkloadTables, decode_results, decode_rows, entry_value, limbs_for,
                                      state_values, stream_tables)

#: bytes per number or reference the state meter counts (see the module docstring)
WORD_BYTES = 8


@dataclass
class BurstInfo:
    """What a sharing policy sees of a complete burst (HAMLET Definition 4.1, 4.2 notation).

    ``candidates``: the queries that could share it (their ``E+`` is shareable); ``masks``: per event
    of the burst, the bit set of candidates (bit j = candidates[j]) that match it; ``b`` events in the
    burst, ``n`` events of the partition in the current pane so far (the burst included), ``g`` events in the graphlets a
    new snapshot reads, ``t`` event types per query; ``keys`` per candidate the aggregates it keeps
    beside its count (:func:`burst_keys`), None when every candidate is COUNT(*)-only."""

    type: str
    candidates: tuple[int, ...]
    masks: list[int]
    b: int
    n: int
    g: int
    t: int
    keys: tuple[frozenset, ...] | None = None


def burst_keys(cands, etype: str) -> tuple[frozenset, ...] | None:
    """Per candidate query, its aggregate entries beside the count: ``(True, kind, attr)`` for one of
    the shared type ``etype`` (entries of the graphlet's tuple coefficients, shared by the queries
    that have the same, :mod:`evaluators.trends.coefficients`) and ``(False, kind,
    element, attr)`` for another element's; None if every candidate is COUNT(*)-only."""
    if all(cq.agg.count_only for cq in cands):
        return None
    out = []
    for cq in cands:
        i = cq.elem_of_type[etype]
        out.append(frozenset((True, kind, attr) if ei == i else (False, kind, ei, attr) for kind, ei, attr in cq.agg.specs))
    return tuple(out)


class SharingPolicy(Protocol):
    """Decides, per burst, which candidate queries share its graphlet (indices into candidates)."""

    name: str

    def decide(self, burst: BurstInfo) -> frozenset[int]: ...


class StaticSharing:
    """Share every shareable Kleene sub-pattern by all its queries, always (decided at compile time)."""

    name = "hamlet-static"

    def decide(self, burst: BurstInfo) -> frozenset[int]:
        return frozenset(range(len(burst.candidates)))


class NoSharing:
    """Never share: every query runs its own graphlets (non-shared online aggregation)."""

    name = "hamlet-nonshared"

    def decide(self, burst: BurstInfo) -> frozenset[int]:
        return frozenset()


class HamletExecutor:
    """Runs a workload over a stream with a sharing policy; see the module docstring."""

    def __init__(self, queries: Sequence[TrendQuery], policy: SharingPolicy | None = None, name: str | None = None,
                 meter: bool = False) -> None:
        self.queries = list(queries)
        self.policy = policy if policy is not None else StaticSharing()
        self.name = name or getattr(self.policy, "name", "hamlet")
        self.pane, self.compiled = compile_queries(self.queries)
        self.tables = WorkloadTables(self.compiled)
        wt = self.tables
        #: per shareable type of a template: (type, candidates, t, keys) as the policy sees them
        self.shareable = []
        for si, t in enumerate(wt.si_type):
            cands = [self.compiled[q] for q in wt.si_cand[wt.si_ptr[si]:wt.si_ptr[si + 1]]]
            self.shareable.append((t, tuple(cq.index for cq in cands), max(len(cq.types) for cq in cands), burst_keys(cands, t)))
        self.trace: list | None = None  # set to [] to record shared graphlets (tests: Tables 3-5)
        self.meter = meter
        # one non-shared graphlet's vectors (total, run, pend) of the widest query: held while it is computed
        self._nonshared_words = max((3 * cq.L * _width(cq) for cq in self.compiled), default=0)
        _load_kernels()

    def run(self, stream) -> TrendResult:
        """Run over ``stream`` (module docstring: scan, decide, execute)."""
        clock = Clock()
        events = list(stream)
        tabs = stream_tables(self.tables, events, self.pane)
        limbs = limbs_for(tabs.bound_bits)
        while True:
            try:
                out = self._run(tabs, limbs, events)
                break
            except OverflowError:  # the bound was too small (never expected): more room, same results
                limbs *= 2
        stats, cycles, decided, kernel_s, states, trace = out
        if self.trace is not None:
            self.trace.extend(trace)
        elapsed = clock.elapsed()
        res = TrendResult(self.queries, self.compiled, states, self.name, len(events), elapsed,
                          peak_memory_bytes=WORD_BYTES * int(stats[K.S_PEAK]) if self.meter else None)
        res.latencies_ms = kernel_latencies(cycles, kernel_s, elapsed, decided)
        res.snapshots = int(stats[K.S_SNAPSHOTS])
        res.extra.update(graphlets=int(stats[K.S_GRAPHLETS]), shared_graphlets=int(stats[K.S_SHARED]),
                         decisions=int(stats[K.S_DECISIONS]), decision_seconds=float(decided.sum()))
        return res

    # ---- one run at a given row width ----------------------------------------------------------------
    def _run(self, tabs: StreamTables, limbs: int, events):
        wt = self.tables
        width1 = limbs + 1
        P = len(tabs.part_tpl)
        nr = len(tabs.r_ev)
        ST = (tabs.r_ev, tabs.r_ts, tabs.r_pane, tabs.r_type, tabs.hit, tabs.neg_ptr, tabs.neg_q, tabs.neg_after,
              tabs.r_vidx, tabs.r_vsign, tabs.r_vrank, tabs.value_rows(width1))
        part_roff = np.concatenate(([0], np.cumsum(tabs.part_rows)[:-1])).astype(np.int64) if P else np.zeros(0, np.int64)
        nq_of = np.diff(wt.tpl_qptr)
        part_eoff = np.concatenate(([0], np.cumsum(nq_of[tabs.part_tpl] * wt.EMAX)[:-1])).astype(np.int64) if P else np.zeros(0, np.int64)
        n_edges = int((nq_of[tabs.part_tpl] * wt.EMAX).sum()) if P else 0
        TP = (tabs.part_tpl, np.arange(P, dtype=np.int64), part_eoff, part_roff, wt.bt_ptr, wt.bt_q, wt.si_of, wt.si_ptr,
              wt.si_cand, wt.si_CR, wt.si_ckind, wt.si_nkeys, wt.si_key_kind, wt.si_key_attr, wt.si_key_row, wt.si_reads,
              wt.NT, wt.EMAX, max(P, 1), wt.tpl_qptr, wt.tpl_q)
        SEG = (tabs.seg_lo, tabs.seg_hi, tabs.seg_part, tabs.seg_group)
        cycles = np.zeros(tabs.groups, np.int64)
        cap = nr + 1
        B = (np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros(cap + 1, np.int64), np.zeros(cap, np.int64),
             np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros(cap, np.int64),
             np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(1, np.int64))
        t0 = time.perf_counter()
        A = self._arrays(P, nr, n_edges, cycles, width1)
        K.hamlet_kernel(K.SCAN, wt.Q, TP, ST, A, B, SEG, self._nonshared_words, width1, False)
        kernel_s = time.perf_counter() - t0
        nb = int(A[7][K.S_BURSTS])
        ch_ptr, ch_c, psnap, decided = self._decide(tabs, B, nb)
        B = B[:7] + (ch_ptr, ch_c, psnap)
        t0 = time.perf_counter()
        A = self._arrays(P, nr, n_edges, cycles, width1)
        keys, rows, hdr, trows = K.hamlet_kernel(K.EXEC, wt.Q, TP, ST, A, B, SEG, self._nonshared_words, width1,
                                                 self.trace is not None)
        kernel_s += time.perf_counter() - t0
        states = decode_results(wt, tabs, keys, rows)
        trace = self._trace(tabs, hdr, trows, B, events) if self.trace is not None else []
        return A[7], cycles, decided, kernel_s, states, trace

    def _arrays(self, P: int, nr: int, n_edges: int, cycles, width1: int):
        """The kernel's state arrays (the tuple ``A`` of :mod:`evaluators.trends.kernels`)."""
        one = np.zeros(width1, np.uint32)
        one[0] = one[1] = 1
        return (np.full(P, K.NO_PANE, np.int64), np.zeros(P, np.int64), np.zeros(P, np.int64), np.full(P, -1, np.int64),
                np.zeros(P, np.int64), np.zeros(max(nr, 1), np.int64), np.full(max(n_edges, 1), -1, np.int64),
                np.zeros(K.N_STATS, np.int64), np.zeros(max(nr, 1), np.int64), np.zeros(len(self.compiled), np.bool_),
                np.zeros(self.tables.NT, np.int64), cycles, one)

    def _decide(self, tabs: StreamTables, B, nb: int):
        """The policy's decision on each scanned burst: the chosen candidates (local indices, only when two
        or more), the state meter's words per snapshot of the chosen set, and each decision's seconds
        added to the timestamp group where the burst completed."""
        wt = self.tables
        b_part, b_type, b_ptr, b_rows, b_n, b_g, b_group = B[:7]
        ch_ptr = np.zeros(nb + 1, np.int64)
        ch: list[int] = []
        psnap = np.zeros(max(nb, 1), np.int64)
        decided = np.zeros(tabs.groups, np.float64)
        masks_of = _row_masks(wt, tabs)
        cache: dict = {}
        b_part, b_type, b_n, b_g, b_group, b_ptr = (x.tolist() for x in (b_part[:nb], b_type[:nb], b_n[:nb], b_g[:nb], b_group[:nb], b_ptr[:nb + 1]))
        part_tpl = tabs.part_tpl.tolist()
        for bi in range(nb):
            si = int(wt.si_of[part_tpl[b_part[bi]], b_type[bi]])
            etype, cands, t, keys = self.shareable[si]
            rows = b_rows[b_ptr[bi]:b_ptr[bi + 1]]
            info = BurstInfo(etype, cands, masks_of[si](rows), len(rows), b_n[bi], b_g[bi], t, keys)
            t0 = time.perf_counter()
            chosen = self.policy.decide(info)
            decided[b_group[bi]] += time.perf_counter() - t0
            picked = sorted(chosen) if len(chosen) >= 2 else []
            ch.extend(picked)
            ch_ptr[bi + 1] = len(ch)
            key = (si, tuple(picked))
            w = cache.get(key)
            if w is None:
                shared = [self.compiled[cands[j]] for j in picked]
                w = cache[key] = sum(cq.L * _width(cq) for cq in shared) + _coefficient_width(shared, etype)
            psnap[bi] = w
        return ch_ptr, np.array(ch, np.int64), psnap, decided

    def _trace(self, tabs: StreamTables, hdr: np.ndarray, trows: np.ndarray, B, events) -> list[dict]:
        """The shared graphlets (module docstring), in the format of the tests of Tables 3-5: per graphlet its type, its queries, per event its coefficients and per
        snapshot its value per query and pane slot."""
        wt = self.tables
        graphs: dict[int, dict] = {}
        layout: dict[int, tuple] = {}
        out = []
        o = 0
        for h in hdr.tolist():
            kind, gid = h[0], h[1]
            rows = trows[o:o + h[6]]
            o += h[6]
            if kind == 2:
                bi = h[2]
                si = int(wt.si_of[tabs.part_tpl[B[0][bi]], B[1][bi]])
                cands = self.shareable[si][1]
                chosen = [cands[j] for j in B[8][B[7][bi]:B[7][bi + 1]]]
                etype = wt.si_type[si]
                keys = coefficient_keys([self.compiled[q] for q in chosen], etype)
                layout[gid] = (si, chosen, all(self.compiled[q].agg.count_only for q in chosen), keys)
                graphs[gid] = {"type": etype, "queries": chosen, "coefficients": [], "snapshots": []}
                out.append(graphs[gid])
                continue
            si, chosen, count_only, keys = layout[gid]
            g = graphs[gid]
            if kind == 0:
                c = _coefficient_value(wt, tabs, si, keys, rows)
                coef = c[0] if count_only else c
                pos = events[h[2]].pos
                if g["coefficients"] and g["coefficients"][-1][0] == pos and h[3] not in g["coefficients"][-1][1]:
                    g["coefficients"][-1][1][h[3]] = coef
                else:
                    g["coefficients"].append((pos, {h[3]: coef}))
            else:
                s, kk, sl = h[2], h[3], h[4]
                q = chosen[kk]
                while len(g["snapshots"]) <= s:
                    g["snapshots"].append({})
                vec = g["snapshots"][s].setdefault(q, [None] * self.compiled[q].L)
                st = state_values(wt, tabs, q, decode_rows(rows), rows)
                vec[sl] = (st[0] if st is not None else 0) if self.compiled[q].agg.count_only else st
        return out


_LOADED = False


def _load_kernels() -> None:
    """Load (or, the first time on a machine, compile) the kernels once per process, on a tiny run, so that
    no timed run pays for it (:mod:`evaluators.trends.kernels`; ``bench hamlet`` prints what it costs)."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    from cep.events import Event, EventStream
    from cep.parser import parse_patterns

    qs = parse_patterns("RETURN COUNT(*), SUM(b.x), MIN(b.x) PATTERN SEQ(A a, B b+) WHERE b.x > 0 WITHIN 4 seconds\n"
                        "RETURN COUNT(*) PATTERN SEQ(C c, B b+, NOT(D d), E e) WITHIN 4 seconds")
    s = EventStream([Event(t, float(i // 2), {"x": i % 3}) for i, t in enumerate("ACBBBDBEAB")])
    ex = HamletExecutor(qs)
    ex.trace = []
    ex.run(s)


def run_hamlet(queries: Sequence[TrendQuery], stream, *, policy: SharingPolicy | None = None, name: str | None = None,
               meter: bool = False) -> TrendResult:
    """Run the HAMLET executor (static sharing unless a policy is given; ``meter``: count its peak state)."""
    return HamletExecutor(queries, policy, name, meter=meter).run(stream)


def _width(cq) -> int:
    """Numbers in one pane slot's state of query ``cq``: its count, and its aggregates' entries."""
    return 1 if cq.agg.count_only else len(cq.agg.zero())


def _coefficient_width(shared, etype: str) -> int:
    """Numbers in a shared graphlet's coefficient: the count and one entry per distinct (kind, attribute)
    the sharing queries aggregate on ``etype`` (:func:`~evaluators.trends.coefficients.coefficient_keys`)."""
    return 1 + len(coefficient_keys(shared, etype))


def _row_masks(wt: WorkloadTables, tabs: StreamTables) -> list:
    """Per shareable type, a function from a burst's rows to their masks (bit j: candidate j matches the
    event), the bits computed once for every row of the type."""
    out = []
    for si in range(len(wt.si_type)):
        cands = wt.si_cand[wt.si_ptr[si]:wt.si_ptr[si + 1]]
        sub = tabs.hit[:, cands]
        if len(cands) <= 62:
            vals = sub.astype(np.int64) @ (np.int64(1) << np.arange(len(cands), dtype=np.int64))
            out.append(lambda rows, v=vals: v[rows].tolist())
        else:
            pats, inv = np.unique(sub, axis=0, return_inverse=True)
            ints = np.array([int.from_bytes(np.packbits(p, bitorder="little").tobytes(), "little") for p in pats], dtype=object)
            per_row = ints[inv.reshape(-1)]
            out.append(lambda rows, v=per_row: v[rows].tolist())
    return out


def _coefficient_value(wt: WorkloadTables, tabs: StreamTables, si: int, keys: list, rows) -> list:
    """A coefficient of shared graphlet layout ``si`` restricted to the chosen set's ``keys``."""
    ints = decode_rows(rows)
    union = wt.si_keys[si]
    return [ints[0]] + [entry_value(tabs, kind, a, ints, rows, int(wt.si_key_row[si, union.index((kind, a))]), wt.attr_index)
                        for kind, a in keys]
