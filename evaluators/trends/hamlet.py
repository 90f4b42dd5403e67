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

**Snapshots** (Definitions 3.9, 3.11; Tables 3-5).  A shared graphlet starts with a graphlet-level
snapshot ``x`` whose value per query is that query's intermediate count at the graphlet's start
(Equation 5: the start term plus the sums of its predecessor types, previous graphlets of ``E``
included).  Each event's count is a map snapshot -> coefficient, propagated once for all sharing
queries (Table 3: x, 2x, 4x, 8x).  An event matched by only some of the sharing queries (their
predicates differ) gets an event-level snapshot ``z``: its value per query is that query's count of
the event (zero where the query does not match it), and later events propagate ``z`` (so the
snapshot sits at the unmatched event, not at each later event whose predecessor sets differ only by
it: see tests/trends/test_engines.py::test_table_5_snapshot_values).  At the end of
the graphlet each query's sum is evaluated from the snapshot values, which is also where a split
(the snapshot replaced by its per-query value, Section 4.2) or a later merge (a new snapshot that
consolidates the per-query sums) happen.  Within a graphlet the coefficient of an event is kept as a
running sum over the earlier events, so each event costs one update per snapshot in play.  For
COUNT(*)-only sharing sets a coefficient is an int (:meth:`HamletExecutor._shared`); otherwise it is
a tuple (count, then per aggregated attribute of ``E`` a path sum / least / greatest value) and a
snapshot value is a full aggregate state (:meth:`HamletExecutor._shared_general`).

**Non-shared** events (types that are not shared, queries outside the sharing set) follow
Equations 1-3 per query with running sums per predecessor edge.  Panes (the gcd of windows and
slides) bound every graphlet; aggregates are kept per pane a trend may start in, as in GRETA.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Protocol, Sequence

from cep.trends import TrendQuery
from evaluators.trends.coefficients import GraphletAlgebra
from evaluators.trends.common import Clock, PaneClock, TrendResult, add_result, compile_queries, timestamp_groups


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
    __slots__ = ("pane", "run_type", "run", "qs", "n", "since")

    def __init__(self) -> None:
        self.pane = None
        self.run_type = None
        self.run: list = []
        self.qs: dict[int, _QState] = {}
        self.n = 0  # events of the partition in the current pane window (for the benefit model)
        self.since = 0  # events since the last burst of the shareable type


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

    def __init__(self, queries: Sequence[TrendQuery], policy: SharingPolicy | None = None, name: str | None = None) -> None:
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

    # ---- vectors per query (slot = start pane mod L) ---------------------------------------------
    @staticmethod
    def _zero(cq):
        return [0] * cq.L if cq.agg.count_only else [None] * cq.L

    def _vec(self, part: _Part, cq, edge) -> list:
        st = part.qs.get(cq.index)
        if st is None:
            st = part.qs[cq.index] = _QState()
        v = st.vs.get(edge)
        if v is None:
            v = st.vs[edge] = self._zero(cq)
        return v

    def _base(self, part: _Part, cq, i: int, cur: int) -> list:
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
            out = self._zero(cq)
        if i == 0:
            sl = cur % cq.L
            if cq.agg.count_only:
                out[sl] += 1
            else:
                out[sl] = _plus_start(cq.agg, out[sl])
        return out

    def _commit(self, part: _Part, key, cq, i: int, total: list, cur: int) -> None:
        """Add an element's new events (their summed vector) to its successor edges and results."""
        agg = cq.agg
        succ = []
        if cq.kleene[i]:
            succ.append((i, i))
        if i + 1 < len(cq.types):
            succ.append((i, i + 1))
        for edge in succ:
            v = self._vec(part, cq, edge)
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

    def _advance(self, part: _Part, key, cur: int) -> None:
        if part.pane == cur:
            return
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

    # ---- non-shared processing of one element's events for one query ----------------------------
    def _nonshared(self, part: _Part, key, cq, i: int, events: list, cur: int, defer: list | None) -> None:
        """Equations 1-3 with running sums: events all of element i, in timestamp order."""
        agg = cq.agg
        base = self._base(part, cq, i, cur)
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

    def _apply(self, part, key, defer, kills, cur) -> None:
        for cq, after in kills:
            st = part.qs.get(cq.index)
            if st is not None and (after, after + 1) in st.vs:
                st.vs[(after, after + 1)] = self._zero(cq)
        for cq, i, total in defer:
            self._commit(part, key, cq, i, total, cur)

    # ---- a complete burst of a shareable type -----------------------------------------------------
    def _flush(self, part: _Part, key) -> None:
        events, etype = part.run, part.run_type
        part.run, part.run_type = [], None
        if not events:
            return
        defer: list = []
        kills: list = []
        self._burst(self._tpl_of_part[id(part)], part, key, etype, events, part.pane, defer, kills)
        self._apply(part, key, defer, kills, part.pane)

    def _burst(self, tpl, part: _Part, key, etype: str, events: list, cur: int, defer: list, kills: list) -> None:
        """Decide (the policy) and compute one complete burst; commits go to ``defer``."""
        cands = tpl.shareable[etype]
        classes = tpl.classes[etype]
        if len(classes) == 1:
            f, m = classes[0]
            masks = [m if f(e.attrs) else 0 for e in events]
        else:
            masks = []
            for e in events:
                m = 0
                for f, cm in classes:
                    if f(e.attrs):
                        m |= cm
                masks.append(m)
        info = BurstInfo(etype, tuple(cq.index for cq in cands), masks, len(events), part.n + len(events), part.since,
                         max(len(cq.types) for cq in cands), tpl.keys[etype])
        t0 = time.perf_counter()
        chosen = self.policy.decide(info)
        self.decision_seconds += time.perf_counter() - t0
        self.decisions += 1
        part.n += len(events)
        part.since = 0
        shared = [cands[j] for j in sorted(chosen)] if len(chosen) >= 2 else []
        # queries outside the sharing set: their own graphlets
        shared_ids = {cq.index for cq in shared}
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
        if shared and all(cq.agg.count_only for cq in shared):
            self._shared(part, key, shared, sorted(chosen), events, masks, cur, defer)
        elif shared:
            self._shared_general(part, key, shared, sorted(chosen), events, masks, cur, defer)

    def _open_shared(self, bits) -> int:
        """Count a new shared graphlet; the bit mask of its queries."""
        self.graphlets += 1
        self.shared_graphlets += 1
        sel = 0
        for b in bits:
            sel |= 1 << b
        return sel

    def _shared(self, part, key, shared, bits, events, masks, cur, defer) -> None:
        """One shared graphlet for the queries ``shared`` (Algorithm 1, lines 7-20)."""
        sel = self._open_shared(bits)
        etype = events[0].type
        # graphlet-level snapshot x (Eq. 5): per query, its count at the graphlet's start
        values: list[dict] = [{cq.index: self._base(part, cq, cq.elem_of_type[etype], cur) for cq in shared}]
        self.snapshots += 1
        S: dict = {}  # coefficients summed over the graphlet's events so far (committed timestamps)
        events_coefs: list = []
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
                if self.trace is not None:
                    coef = dict(S)
                    coef[0] = coef.get(0, 0) + 1
                    events_coefs.append((e.pos, coef))
            else:  # predicates differ: an event-level snapshot z (Definition 3.11)
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
                values.append(zval)
                self.snapshots += 1
                z = len(values) - 1
                pend[z] = pend.get(z, 0) + 1
                if self.trace is not None:
                    events_coefs.append((e.pos, {z: 1}))
        for s, c in pend.items():
            S[s] = S.get(s, 0) + c
        for cq in shared:
            total = [0] * cq.L
            for s, c in S.items():
                sv = values[s][cq.index]
                for sl in range(cq.L):
                    total[sl] += c * sv[sl]
            defer.append((cq, cq.elem_of_type[etype], total))
        if self.trace is not None:
            self.trace.append({"type": etype, "queries": [cq.index for cq in shared], "coefficients": events_coefs,
                               "snapshots": [{q: list(v) for q, v in val.items()} for val in values]})

    def _shared_general(self, part, key, shared, bits, events, masks, cur, defer) -> None:
        """:meth:`_shared` for any RETURN clause: coefficients are tuples (count, and per aggregated
        attribute of the shared type a sum / least / greatest value over the paths,
        :mod:`evaluators.trends.coefficients`); snapshot values are full aggregate states per pane slot."""
        sel = self._open_shared(bits)
        etype = events[0].type
        alg = GraphletAlgebra(shared, etype)
        elem = {cq.index: cq.elem_of_type[etype] for cq in shared}
        values: list[dict] = [{cq.index: self._base(part, cq, elem[cq.index], cur) for cq in shared}]
        self.snapshots += 1
        S: dict = {}
        pend: dict = {}
        events_coefs: list = []
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
                        zval[cq.index] = self._zero(cq)
                values.append(zval)
                self.snapshots += 1
                coef = {len(values) - 1: list(unit)}
            _merge_coefs(alg, pend, coef)
            if self.trace is not None:
                events_coefs.append((e.pos, {s: tuple(c) for s, c in coef.items()}))
        _merge_coefs(alg, S, pend)
        for cq in shared:
            agg = cq.agg
            total = self._zero(cq)
            for s, c in S.items():
                sv = values[s][cq.index]
                for sl in range(cq.L):
                    total[sl] = _plus(agg, total[sl], alg.evaluate(cq, c, sv[sl]))
            defer.append((cq, elem[cq.index], total))
        if self.trace is not None:
            self.trace.append({"type": etype, "queries": [cq.index for cq in shared], "coefficients": events_coefs,
                               "snapshots": [{q: [x if x is None or isinstance(x, int) else list(x) for x in v] for q, v in val.items()}
                                             for val in values]})

    # ---- driver -----------------------------------------------------------------------------------
    def run(self, stream) -> TrendResult:
        clock = Clock()
        events = list(stream)
        self._tpl_of_part: dict = {}
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
                    part = tpl.parts.get(key)
                    if part is None:
                        part = tpl.parts[key] = _Part()
                        self._tpl_of_part[id(part)] = tpl
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
            lat.append((time.perf_counter() - t0) * 1000.0)
        t0 = time.perf_counter()
        for tpl in self.templates:
            for key, part in tpl.parts.items():
                if part.run:
                    self._flush(part, key)
        if lat:
            lat[-1] += (time.perf_counter() - t0) * 1000.0
        res = TrendResult(self.queries, self.compiled, self.states, self.name, len(events), clock.elapsed())
        res.latencies_ms = lat
        res.snapshots = self.snapshots
        res.extra.update(graphlets=self.graphlets, shared_graphlets=self.shared_graphlets, decisions=self.decisions,
                         decision_seconds=self.decision_seconds)
        return res


def run_hamlet(queries: Sequence[TrendQuery], stream, *, policy: SharingPolicy | None = None, name: str | None = None) -> TrendResult:
    """Run the HAMLET executor (static sharing unless a policy is given)."""
    return HamletExecutor(queries, policy, name).run(stream)


# ---- aggregate-state helpers (general RETURN clauses; COUNT(*) uses plain ints) ----------------------
def _add_vec(agg, a: list, b: list) -> None:
    for sl, x in enumerate(b):
        if x is None:
            continue
        if a[sl] is None:
            a[sl] = list(x)
        else:
            agg.add(a[sl], x)


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
