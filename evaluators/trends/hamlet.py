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

**Shared graphlets** (Algorithm 1, lines 7-20; Definitions 3.9, 3.11).  A graphlet shared by some
queries propagates each event's count once for all of them, as coefficients of snapshots
(:mod:`evaluators.trends.graphlets`); the executor gives it each query's count at the graphlet's
start (Equation 5) and commits each query's total at the end.

**Non-shared** events (types that are not shared, queries outside the sharing set) follow
Equations 1-3 per query with running sums per predecessor edge.  Panes (the gcd of windows and
slides) bound every graphlet; aggregates are kept per pane a trend may start in, as in GRETA.

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

from cep.trends import TrendQuery
from evaluators.trends.common import Clock, PaneClock, TrendResult, add_result, compile_queries, timestamp_groups
from evaluators.trends.graphlets import propagate_aggregates, propagate_counts

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
    that have the same, :class:`~evaluators.trends.coefficients.GraphletAlgebra`) and ``(False, kind,
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


class _QState:
    """Per query and partition: one running-sum vector per predecessor edge (slot = pane mod L)."""

    __slots__ = ("vs",)

    def __init__(self) -> None:
        self.vs: dict = {}


class _Part:
    """One partition of a template: its pane, the burst being buffered, its queries' running sums."""

    __slots__ = ("tpl", "pane", "run_type", "run", "qs", "n", "since", "words")

    def __init__(self, tpl: "_Template") -> None:
        self.tpl = tpl
        self.pane = None
        self.run_type = None
        self.run: list = []
        self.qs: dict[int, _QState] = {}
        self.n = 0  # events of the partition in the current pane window (for the benefit model)
        self.since = 0  # events since the last burst of the shareable type
        self.words = 0  # numbers in the running-sum vectors of its queries (the state meter)


class _Template:
    """A set of queries with the same partition attributes (one merged template)."""

    def __init__(self, compiled) -> None:
        self.queries = compiled
        self.types = set()
        for cq in compiled:
            self.types.update(cq.types)
            self.types.update(cq.negs_of_type)
        kle: dict[str, list] = {}
        for cq in compiled:
            for i, t in enumerate(cq.types):
                if cq.kleene[i]:
                    kle.setdefault(t, []).append(cq)
        self.shareable = {t: qs for t, qs in kle.items() if len(qs) >= 2}
        self.keys = {t: burst_keys(qs, t) for t, qs in self.shareable.items()}  # for the benefit model
        # candidates' filters on the shared type, grouped into classes of identical predicates (an
        # aggregated attribute of the type is part of the filter: it must be a number)
        self.classes: dict[str, list[tuple]] = {}
        for t, qs in self.shareable.items():
            by_conds: dict = {}
            for j, cq in enumerate(qs):
                i = cq.elem_of_type[t]
                key = (cq.query.elements[i].conditions, tuple(sorted(set(cq.agg.required.get(i, [])))))
                if key not in by_conds:
                    by_conds[key] = (cq.filters[i], 0)
                f, m = by_conds[key]
                by_conds[key] = (f, m | (1 << j))
            self.classes[t] = list(by_conds.values())
        self.parts: dict = {}
        self.by_type: dict[str, list] = {}
        for cq in compiled:
            for t in set(cq.types) | set(cq.negs_of_type):
                self.by_type.setdefault(t, []).append(cq)
        self.partition_attributes = compiled[0].query.partition_attributes


class HamletExecutor:
    """Runs a workload over a stream with a sharing policy; see the module docstring."""

    def __init__(self, queries: Sequence[TrendQuery], policy: SharingPolicy | None = None, name: str | None = None,
                 meter: bool = False) -> None:
        self.queries = list(queries)
        self.policy = policy if policy is not None else StaticSharing()
        self.name = name or getattr(self.policy, "name", "hamlet")
        self.pane, self.compiled = compile_queries(self.queries)
        groups: dict = {}
        for cq in self.compiled:
            groups.setdefault(cq.query.partition_attributes, []).append(cq)
        self.templates = [_Template(qs) for qs in groups.values()]
        self.states: list[dict] = [dict() for _ in self.compiled]
        self.snapshots = 0
        self.graphlets = 0
        self.shared_graphlets = 0
        self.decisions = 0
        self.decision_seconds = 0.0
        self.trace: list | None = None  # set to [] to record shared graphlets (tests: Tables 3-5)
        self.meter = meter
        self.peak_words = 0
        # one non-shared graphlet's vectors (total, run, pend) of the widest query: held while it is computed
        self._nonshared_words = max((3 * cq.L * _width(cq) for cq in self.compiled), default=0)

    # ---- driver -----------------------------------------------------------------------------------
    def run(self, stream) -> TrendResult:
        """Run over ``stream``: per timestamp group, per template, the events of each partition
        (:meth:`_route`); at the end the bursts still buffered.  A group's latency is the time from
        taking it to having processed it."""
        clock = Clock()
        events = list(stream)
        lat: list[float] = []
        clock_pane = PaneClock(self.pane)
        for group in timestamp_groups(events):
            t0 = time.perf_counter()
            cur = clock_pane(group[0].ts)
            for tpl in self.templates:
                attrs = tpl.partition_attributes
                by_part: dict = {}
                for e in group:
                    if e.type in tpl.types:
                        a = e.attrs
                        try:
                            key = tuple(a[x] for x in attrs)
                        except KeyError:
                            continue
                        by_part.setdefault(key, []).append(e)
                for key, evs in by_part.items():
                    self._route(tpl, key, evs, cur)
            lat.append((time.perf_counter() - t0) * 1000.0)
        t0 = time.perf_counter()
        for tpl in self.templates:
            for key, part in tpl.parts.items():
                if part.run:
                    self._flush(part, key)
        if lat:
            lat[-1] += (time.perf_counter() - t0) * 1000.0
        elapsed = clock.elapsed()
        if self.meter:
            self._held(0)
        res = TrendResult(self.queries, self.compiled, self.states, self.name, len(events), elapsed,
                          peak_memory_bytes=WORD_BYTES * self.peak_words if self.meter else None)
        res.latencies_ms = lat
        res.snapshots = self.snapshots
        res.extra.update(graphlets=self.graphlets, shared_graphlets=self.shared_graphlets, decisions=self.decisions,
                         decision_seconds=self.decision_seconds)
        return res

    def _route(self, tpl: _Template, key, evs: list, cur: int) -> None:
        """A partition's events of one timestamp, in pane ``cur``: events of one shareable type extend
        the partition's burst (Definition 4.1); anything else ends the burst and is processed at once
        (:meth:`_generic`)."""
        part = tpl.parts.get(key)
        if part is None:
            part = tpl.parts[key] = _Part(tpl)
        if part.pane != cur:
            self._advance(part, key, cur)
        t = evs[0].type
        single = all(e.type == t for e in evs)
        if single and t in tpl.shareable:
            if part.run_type != t and part.run:
                self._flush(part, key)
            part.run_type = t
            part.run.extend(evs)
        else:
            if part.run:
                self._flush(part, key)
            self._generic(tpl, part, key, evs, cur)
            other = sum(1 for e in evs if e.type not in tpl.shareable)
            part.n += other
            part.since += other

    def _advance(self, part: _Part, key, cur: int) -> None:
        """A partition enters pane ``cur``: its burst is complete (panes bound every graphlet), and
        the slots of the panes no window holding ``cur`` starts in are emptied (slot = start pane mod L)."""
        if part.run:
            self._flush(part, key)
        old = part.pane
        if old is not None:
            for qi, st in part.qs.items():
                cq = self.compiled[qi]
                L = cq.L
                if cur - old >= L:
                    dead = range(L)
                else:
                    dead = [sp % L for sp in range(old - L + 1, cur - L + 1)]
                z = 0 if cq.agg.count_only else None
                for v in st.vs.values():
                    for sl in dead:
                        v[sl] = z
        part.pane = cur
        part.n = 0

    # ---- a timestamp group with several types: nothing in it precedes anything else in it ---------
    def _generic(self, tpl: _Template, part: _Part, key, events: list, cur: int) -> None:
        """Every event is computed against the state before the group, then all are committed; the
        events of a shareable type form a burst of their own (an event of another type ends it)."""
        defer: list = []
        kills: list = []
        bursts: dict[str, list] = {}
        for e in events:
            if e.type in tpl.shareable:
                bursts.setdefault(e.type, []).append(e)
                continue
            for cq in tpl.by_type.get(e.type, ()):
                i = cq.elem_of_type.get(e.type)
                if i is not None and cq.filters[i](e.attrs):
                    self._nonshared(part, key, cq, i, [e], cur, defer)
                    self.graphlets += 1
                for after, f in cq.negs_of_type.get(e.type, ()):
                    if f(e.attrs):
                        kills.append((cq, after))
        for etype, evs in bursts.items():
            self._burst(tpl, part, key, etype, evs, cur, defer, kills)
        self._apply(part, key, defer, kills, cur)

    def _apply(self, part: _Part, key, defer: list, kills: list, cur: int) -> None:
        """Commit what a group or a burst computed: first the negations its events satisfy (each
        empties the edge it guards), then each element's summed vector (:meth:`_commit`)."""
        for cq, after in kills:
            st = part.qs.get(cq.index)
            if st is not None and (after, after + 1) in st.vs:
                st.vs[(after, after + 1)] = cq.empty_slots()
        for cq, i, total in defer:
            self._commit(part, key, cq, i, total, cur)

    # ---- a complete burst of a shareable type -----------------------------------------------------
    def _flush(self, part: _Part, key) -> None:
        """The partition's buffered burst is complete: compute it (:meth:`_burst`) and commit it."""
        events, etype = part.run, part.run_type
        part.run, part.run_type = [], None
        if not events:
            return
        defer: list = []
        kills: list = []
        self._burst(part.tpl, part, key, etype, events, part.pane, defer, kills)
        self._apply(part, key, defer, kills, part.pane)

    def _burst(self, tpl: _Template, part: _Part, key, etype: str, events: list, cur: int, defer: list,
               kills: list) -> None:
        """One complete burst: the policy decides which candidates share its graphlet (Section 4.2),
        the other queries get graphlets of their own; commits go to ``defer``."""
        cands = tpl.shareable[etype]
        masks = _burst_masks(tpl.classes[etype], events)
        if self.meter:
            self._held(2 * len(events) + self._nonshared_words)
        info = BurstInfo(etype, tuple(cq.index for cq in cands), masks, len(events), part.n + len(events), part.since,
                         max(len(cq.types) for cq in cands), tpl.keys[etype])
        chosen = self._decide(info)
        part.n += len(events)
        part.since = 0
        shared = [cands[j] for j in sorted(chosen)] if len(chosen) >= 2 else []
        self._outside_sharing(tpl, part, key, etype, events, {cq.index for cq in shared}, cur, defer, kills)
        if shared:
            self._share(part, shared, sorted(chosen), events, masks, cur, defer)

    def _decide(self, info: BurstInfo) -> frozenset[int]:
        """The sharing policy's decision about a burst, timed and counted."""
        t0 = time.perf_counter()
        chosen = self.policy.decide(info)
        self.decision_seconds += time.perf_counter() - t0
        self.decisions += 1
        return chosen

    def _outside_sharing(self, tpl: _Template, part: _Part, key, etype: str, events: list, shared_ids: set,
                         cur: int, defer: list, kills: list) -> None:
        """A burst for the queries that do not share it: each one a graphlet of its own over the
        events it matches (Equations 1-3), and the negations the burst's events satisfy."""
        for cq in tpl.by_type.get(etype, ()):
            i = cq.elem_of_type.get(etype)
            if i is not None and cq.index not in shared_ids:
                mine = [e for e in events if cq.filters[i](e.attrs)]
                if mine:
                    self._nonshared(part, key, cq, i, mine, cur, defer)
                    self.graphlets += 1
            for after, f in cq.negs_of_type.get(etype, ()):
                if any(f(e.attrs) for e in events):
                    kills.append((cq, after))

    def _share(self, part: _Part, shared: list, bits: list, events: list, masks: list, cur: int, defer: list) -> None:
        """One graphlet shared by the queries ``shared`` (Algorithm 1, lines 7-20): its graphlet-level
        snapshot is each query's count at the graphlet's start (Equation 5); the propagation is
        :func:`~evaluators.trends.graphlets.propagate_counts` when every query is COUNT(*)-only,
        :func:`~evaluators.trends.graphlets.propagate_aggregates` otherwise; each query's total goes
        to ``defer``."""
        self.graphlets += 1
        self.shared_graphlets += 1
        sel = 0
        for b in bits:
            sel |= 1 << b
        etype = events[0].type
        start = {cq.index: _incoming(part, cq, cq.elem_of_type[etype], cur) for cq in shared}
        propagate = propagate_counts if all(cq.agg.count_only for cq in shared) else propagate_aggregates
        g = propagate(shared, bits, sel, events, masks, start, self.trace is not None)
        self.snapshots += len(g.values)
        if self.meter:
            per_snapshot = sum(cq.L * _width(cq) for cq in shared) + _coefficient_width(shared, etype)
            self._held(2 * len(events) + len(g.values) * per_snapshot)
        for cq, total in zip(shared, g.totals):
            defer.append((cq, cq.elem_of_type[etype], total))
        if self.trace is not None:
            self.trace.append({"type": etype, "queries": [cq.index for cq in shared], "coefficients": g.coefficients,
                               "snapshots": [{q: [x if x is None or isinstance(x, int) else list(x) for x in v]
                                              for q, v in val.items()} for val in g.values]})

    def _held(self, transient: int) -> None:
        """The state meter: the running-sum vectors of every partition plus ``transient`` words held
        beside them now; keeps the peak."""
        words = transient + sum(part.words for tpl in self.templates for part in tpl.parts.values())
        if words > self.peak_words:
            self.peak_words = words

    # ---- non-shared online aggregation of one element's events for one query ---------------------
    def _nonshared(self, part: _Part, key, cq, i: int, events: list, cur: int, defer: list | None) -> None:
        """Equations 1-3 with running sums: events all of element i, in timestamp order."""
        agg = cq.agg
        base = _incoming(part, cq, i, cur)
        kleene = cq.kleene[i]
        L = cq.L
        if agg.count_only:
            total = [0] * L
            run = [0] * L  # sum of this element's earlier events in the batch (Kleene self edges)
            last_ts = None
            pend = [0] * L
            for e in events:
                if kleene and e.ts != last_ts:
                    if last_ts is not None:
                        for sl in range(L):
                            run[sl] += pend[sl]
                        pend = [0] * L
                    last_ts = e.ts
                for sl in range(L):
                    c = base[sl] + run[sl]
                    pend[sl] += c
                    total[sl] += c
        else:
            total = [None] * L
            run = [None] * L
            pend = [None] * L
            last_ts = None
            for e in events:
                if kleene and e.ts != last_ts:
                    if last_ts is not None:
                        _add_vec(agg, run, pend)
                        pend = [None] * L
                    last_ts = e.ts
                for sl in range(L):
                    p = _sum_states(agg, base[sl], run[sl])
                    s = agg.extend(p, 0, i, e.attrs) if p is not None else None
                    if s is not None:
                        pend[sl] = s if pend[sl] is None else _added(agg, pend[sl], s)
                        total[sl] = list(s) if total[sl] is None else _added(agg, total[sl], s)
        if defer is not None:
            defer.append((cq, i, total))
        else:
            self._commit(part, key, cq, i, total, cur)

    def _commit(self, part: _Part, key, cq, i: int, total: list, cur: int) -> None:
        """Add an element's new events (their summed vector) to its successor edges and results."""
        agg = cq.agg
        succ = []
        if cq.kleene[i]:
            succ.append((i, i))
        if i + 1 < len(cq.types):
            succ.append((i, i + 1))
        for edge in succ:
            v = _edge_vector(part, cq, edge)
            if agg.count_only:
                for sl, x in enumerate(total):
                    if x:
                        v[sl] += x
            else:
                _add_vec(agg, v, total)
        if i == len(cq.types) - 1:
            grp = cq.group_of(key)
            L = cq.L
            st = self.states[cq.index]
            for sl, x in enumerate(total):
                if x:
                    sp = cur - ((cur - sl) % L)
                    add_result(cq, st, grp, sp, cur, x)


def run_hamlet(queries: Sequence[TrendQuery], stream, *, policy: SharingPolicy | None = None, name: str | None = None,
               meter: bool = False) -> TrendResult:
    """Run the HAMLET executor (static sharing unless a policy is given; ``meter``: count its peak state)."""
    return HamletExecutor(queries, policy, name, meter=meter).run(stream)


def _width(cq) -> int:
    """Numbers in one pane slot's state of query ``cq``: its count, and its aggregates' entries."""
    return 1 if cq.agg.count_only else len(cq.agg.zero())


def _coefficient_width(shared, etype: str) -> int:
    """Numbers in a shared graphlet's coefficient: the count and one entry per distinct (kind, attribute)
    the sharing queries aggregate on ``etype`` (:class:`~evaluators.trends.coefficients.GraphletAlgebra`)."""
    keys = {(kind, attr) for cq in shared for kind, ei, attr in cq.agg.specs if ei == cq.elem_of_type[etype]}
    return 1 + len(keys)


def _burst_masks(classes: list[tuple], events: list) -> list[int]:
    """Per event of a burst, the bit set of the candidate queries that match it (``classes``: the
    candidates' filters grouped by identical predicates, each with the bits of its queries)."""
    if len(classes) == 1:
        f, m = classes[0]
        return [m if f(e.attrs) else 0 for e in events]
    masks = []
    for e in events:
        m = 0
        for f, cm in classes:
            if f(e.attrs):
                m |= cm
        masks.append(m)
    return masks


# ---- vectors per query and partition (slot = start pane mod L) -------------------------------------
def _edge_vector(part: _Part, cq, edge) -> list:
    """The running-sum vector of query ``cq`` on predecessor edge ``edge`` (created empty)."""
    st = part.qs.get(cq.index)
    if st is None:
        st = part.qs[cq.index] = _QState()
    v = st.vs.get(edge)
    if v is None:
        v = st.vs[edge] = cq.empty_slots()
        part.words += cq.L * _width(cq)
    return v


def _incoming(part: _Part, cq, i: int, cur: int) -> list:
    """Sum of the predecessor-edge vectors into element i, plus the start term (Eq. 1)."""
    out = None
    st = part.qs.get(cq.index)
    for src in cq.pred_elements(i):
        v = st.vs.get((src, i)) if st is not None else None
        if v is None:
            continue
        if out is None:
            out = list(v) if cq.agg.count_only else [None if x is None else list(x) for x in v]
        elif cq.agg.count_only:
            for sl, x in enumerate(v):
                out[sl] += x
        else:
            _add_vec(cq.agg, out, v)
    if out is None:
        out = cq.empty_slots()
    if i == 0:
        sl = cur % cq.L
        if cq.agg.count_only:
            out[sl] += 1
        else:
            out[sl] = _plus_start(cq.agg, out[sl])
    return out


# ---- aggregate-state helpers (general RETURN clauses; COUNT(*) uses plain ints) ----------------------
def _add_vec(agg, a: list, b: list) -> None:
    for sl, x in enumerate(b):
        if x is None:
            continue
        if a[sl] is None:
            a[sl] = list(x)
        else:
            agg.add(a[sl], x)


def _added(agg, a: list, b: list) -> list:
    agg.add(a, b)
    return a


def _sum_states(agg, a, b):
    if a is None:
        return b
    if b is None:
        return a
    out = list(a)
    agg.add(out, b)
    return out


def _plus_start(agg, state):
    z = agg.zero()
    z[0] = 1
    if state is None:
        return z
    out = list(state)
    agg.add(out, z)
    return out
