"""What happens around the generated hot loop: preparing the columns, reporting matches in the
canonical order, skip-till-next-match selection, releasing matches held for negation, trimming.

Reporting (cep.semantics, "Release" and "Selection strategies").  The loop hands over full matches
in batches that share a release point: after each event, the matches whose last event it is
(phase 1); before an event, the parked matches with negation whose release point it is (phase 0).
Every later batch has a larger ``(release, phase)``, so sorting each batch by the canonical key
reports the matches of the whole run in canonical order -- the brute-force matcher's order.

Skip-till-next-match is the greedy selection in that order: a match is accepted iff none of its
events belongs to an accepted match.  Pruning is safe: once an event is consumed, every match not
yet reported that contains it has a larger canonical key than the accepting match (it is reported
in this or a later batch), so the selection would reject it; hence partial matches and buffered
events containing consumed events can be dropped at once (:meth:`Runtime.purge`) without changing
the result, and the evaluators do so to keep their state small.

Release positions are stream positions: when the stream was filtered to the pattern's event types,
the release point of a parked match (the first stream position after its last timestamp, and past
the window for a trailing or unordered negation) is found in the full stream's timestamps, so the
order is the same as on the unfiltered stream; partition positions (partition contiguity) are
computed on the full stream too.
"""

from __future__ import annotations

import bisect
import time
from dataclasses import dataclass

import numpy as np

from cep.columnar import EventColumns
from cep.errors import PartialMatchLimitError, WorkLimitError
from cep.matches import Match
from cep.pattern import Strategy, WindowKind

from evaluators.codegen import BUFFERED_EVENT_BYTES, ListSpec, Program, node_entry_bytes


@dataclass
class Prepared:
    """The pattern's events as the loop's lists (``P`` holds their positions in the full stream)."""

    T: list
    TS: list
    P: list
    columns: list
    PA: list | None
    PP: list | None
    full_ts: np.ndarray
    n_total: int


def prepare(program: Program, cols: EventColumns) -> Prepared:
    """Keep the events of the pattern's types; decode the attributes its conditions use."""
    code_of = {t: i for i, t in enumerate(program.type_names)}
    lut = np.asarray([code_of.get(t, -1) for t in cols.type_names] or [-1], dtype=np.int64)
    pcode = lut[cols.codes] if len(cols) else np.zeros(0, np.int64)
    idx = np.flatnonzero(pcode >= 0)
    needs = _attribute_types(program)
    columns = []
    for a in program.attributes:
        rows = idx[np.isin(pcode[idx], [code_of[t] for t in needs[a]])]
        if len(rows) == len(idx):
            columns.append(cols.column(a, idx))
        else:  # only some of the pattern's types need it: others may lack it
            vals = [None] * len(idx)
            where = np.searchsorted(idx, rows).tolist()
            for w, v in zip(where, cols.column(a, rows)):
                vals[w] = v
            columns.append(vals)
    PA = PP = None
    if program.strategy is Strategy.PARTITION:
        full = cols.column_or_none(program.partition_attribute)
        seen: dict = {}
        ppos = []
        for v in full:
            k = seen.get(v, 0)
            ppos.append(k)
            seen[v] = k + 1
        il = idx.tolist()
        PA = [full[i] for i in il]
        PP = [ppos[i] for i in il]
    return Prepared(pcode[idx].tolist(), cols.ts[idx].tolist(), idx.tolist(), columns, PA, PP, cols.ts, len(cols))


def _attribute_types(program: Program) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {a: set() for a in program.attributes}
    for jp in program.plans:
        for c in jp.sp.conditions:
            for at in c.attributes:
                out[at.name].add(jp.sp.type_of(at.var))
    return out


class Runtime:
    """State of one evaluation run; the generated loop reads its lists and calls its methods."""

    def __init__(self, program: Program, data: Prepared, *, cap: float, collect_matches: bool, record_latency: bool = True,
                 work_cap: float = float("inf")) -> None:
        self.program = program
        self.T, self.TS, self.P, self.columns = data.T, data.TS, data.P, data.columns
        self.PA, self.PP = data.PA, data.PP
        self.KEY = data.TS if program.window_kind is WindowKind.TIME else data.P
        self.full_ts = data.full_ts
        self.n_total = data.n_total
        self.n = len(data.T)
        self.cnt = [0] * (self.n + 1)  # live partial matches by smallest event index
        self.cntb = [0] * (self.n + 1)  # live buffered events by event index
        self.byt = [0] * (self.n + 1) if program.meter else None  # bytes of live state by smallest index
        self.peakbytes = None
        self.B: list = []
        self.lists = {ls.name: [] for ls in program.lists}
        self.pending = {c.index: [] for c in program.clauses if c.pending}
        self.span_limit = program.span_limit
        self.window_size = program.span_limit
        self.position_span = program.position_span
        self.cap = cap
        self.work_cap = work_cap
        self.work = 0  # candidate combinations examined by the joins
        self.live = 0  # live partial matches
        self.buf = 0  # live buffered events
        self.peak = 0  # peak of live partial matches
        self.peakb = 0  # peak of live buffered events
        self.peaks = 0  # peak of their sum: the evaluator's state
        self.tot = 0  # sum over events of the live partial matches after each (for their mean)
        self.purged = 0  # partial matches purged for a consumed event (skip-till-next-match)
        self.fp = 0
        self.npend = 0
        self.relT = float("inf")
        self.perf = time.perf_counter
        self.bisect_right = bisect.bisect_right
        self.collect = collect_matches
        self.record_latency = record_latency
        self.next = program.strategy is Strategy.NEXT
        self.consumed = bytearray(self.n) if self.next else None
        self.matches: list[Match] = []
        self.n_matches = 0
        self.latencies: list[tuple[float, int]] = []  # (latency in seconds, number of matches)
        self.latency_work = 0  # sum over reported matches of their latency work (evaluators.engine)
        self._clauses = {c.index: c for c in program.clauses}
        self._sort_keys, self._makers = program.make_report(self.P, _new_match)
        self._specs = [(self.lists[ls.name], ls) for ls in program.lists if ls.layout != "negation"]
        self._neg_buffers = [self.lists[ls.name] for ls in program.lists if ls.layout == "negation"]

    # ---- the run -------------------------------------------------------------------------------
    def run(self) -> None:
        self.program.run(self)
        self.release(None, self.fp, self.work)

    # ---- called by the generated loop ----------------------------------------------------------
    def flush(self, j: int, t0: float, lw: int, fp: int) -> tuple[int, int, int]:
        """Report the matches completed by event ``j`` (phase 1), taken from the stream at ``t0``
        after which the joins examined ``lw`` candidates; returns the live partial matches, buffered
        events and metered bytes purged (skip-till-next-match)."""
        batch = self.B[:]
        self.B.clear()
        return self._report(batch, t0, lw, fp)

    def release(self, j: int | None, fp: int, work: int) -> tuple[int, int, int]:
        """Release the parked matches whose release point is event ``j`` (all of them at the end of
        the stream, ``j`` None), before ``j`` is processed (phase 0), when the joins have examined
        ``work`` candidates so far; returns what was purged, as :meth:`flush` does."""
        out = []
        relT = float("inf")
        for k, pd in self.pending.items():
            keep = []
            for e in pd:
                if j is None or (self.TS[j] > e[0] and self.P[j] >= e[1]):
                    out.append(e)
                else:
                    keep.append(e)
                    relT = min(relT, e[0])
            pd[:] = keep
        self.npend = sum(len(pd) for pd in self.pending.values())
        self.relT = relT
        if not out:
            return 0, 0, 0
        groups: dict[int, tuple[list, list, list]] = {}
        for rel_t, rel_p, k, slots, t_arr, w_arr in out:
            r = min(max(int(np.searchsorted(self.full_ts, rel_t, side="right")), int(rel_p)), self.n_total)
            entries, times, works = groups.setdefault(r, ([], [], []))
            entries.append((k, *slots))
            times.append(t_arr)
            works.append(work - w_arr)
        pm = pb = pby = 0
        for r in sorted(groups):
            a, b, c = self._report(*groups[r], fp)
            pm += a
            pb += b
            pby += c
        return pm, pb, pby

    def trim(self, j: int, fp: int) -> None:
        """Drop expired instances from the front of every list (expiry itself is exact via ``cnt``)."""
        for lst, spec in self._specs:
            if spec.layout == "event":
                k = bisect.bisect_left(lst, fp)
            else:
                k = 0
                while k < len(lst) and lst[k][0] < fp:
                    k += 1
            if k:
                del lst[:k]
        if self._neg_buffers:
            # a negated event kills only together with events of a live binding: keep 2 windows
            horizon = self.KEY[j] - 2 * self.span_limit
            k0 = bisect.bisect_left(self.KEY, horizon)
            for nb in self._neg_buffers:
                k = bisect.bisect_left(nb, k0)
                if k:
                    del nb[:k]

    def work_exceeded(self, work: int) -> None:
        raise WorkLimitError(
            f"{self.program.kind} evaluator: its joins examined {work} candidate combinations, past the cap of {self.work_cap:.0f}; "
            "raise it with max_work= (command line: --max-work) or shrink the window"
        )

    def cap_exceeded(self, live: int) -> None:
        raise PartialMatchLimitError(
            f"{self.program.kind} evaluator: {live} live partial matches crossed the cap of {self.cap:.0f}; "
            "raise it with max_partial_matches= (command line: --max-partial-matches) or shrink the window"
        )

    # ---- reporting -----------------------------------------------------------------------------
    def _report(self, batch: list, times, works, fp: int) -> tuple[int, int, int]:
        """Report one batch of entries ``(k, slot, ...)`` sharing a release point, in canonical
        order; ``times`` is the arrival time of each entry's last event, ``works`` the candidates
        the joins examined since (a list, one per entry, or one value for all)."""
        per_entry = isinstance(times, list)
        if len(batch) > 1 and (self.collect or self.next):  # the order matters only for these
            sk = self._sort_keys
            if per_entry:
                order = sorted(range(len(batch)), key=lambda i: sk[batch[i][0]](batch[i]))
                batch = [batch[i] for i in order]
                times = [times[i] for i in order]
                works = [works[i] for i in order]
            else:
                batch.sort(key=lambda e: sk[e[0]](e))
        purged = (0, 0, 0)
        if self.next:
            batch, times, works, purged = self._select_next(batch, times, works, fp)
        self.latency_work += sum(works) if per_entry else works * len(batch)
        if self.record_latency:
            now = self.perf()
            if per_entry:
                self.latencies.extend((now - t, 1) for t in times)
            elif batch:
                self.latencies.append((now - times, len(batch)))
        self.n_matches += len(batch)
        if self.collect:
            mk = self._makers
            self.matches.extend([mk[e[0]](e) for e in batch])
        return purged

    def _select_next(self, batch: list, times, works, fp: int):
        """Skip-till-next-match: accept in order the entries none of whose events is consumed."""
        consumed = self.consumed
        per_entry = isinstance(times, list)
        accepted, acc_times, acc_works = [], [], []
        newly: set[int] = set()
        for i, e in enumerate(batch):
            evs = _events_of(e[1:], self._clauses[e[0]].kleene)
            if any(consumed[x] for x in evs):
                continue
            for x in evs:
                consumed[x] = 1
            newly.update(evs)
            accepted.append(e)
            if per_entry:
                acc_times.append(times[i])
                acc_works.append(works[i])
        purged = self.purge(newly, fp) if newly else (0, 0, 0)
        if per_entry:
            return accepted, acc_times, acc_works, purged
        return accepted, times, works, purged

    def purge(self, consumed: set[int], fp: int) -> tuple[int, int, int]:
        """Drop stored instances that contain a consumed event (skip-till-next-match); returns how
        many live partial matches and buffered events that removed, and their metered bytes."""
        pm = pb = pby = 0
        cnt, cntb, byt = self.cnt, self.cntb, self.byt
        for lst, spec in self._specs:
            keep = []
            for inst in lst:
                if spec.layout == "event":
                    hit, m = inst in consumed, inst
                elif spec.layout == "kleene":
                    hit, m = not consumed.isdisjoint(inst), inst[0]
                else:
                    m = inst[0]
                    hit = False
                    for s, kl in zip(inst[1:], spec.slot_kinds):
                        if (not consumed.isdisjoint(s)) if kl else (s in consumed):
                            hit = True
                            break
                if hit:
                    if m >= fp:
                        if spec.layout == "event":
                            cntb[m] -= 1
                            pb += 1
                        else:
                            cnt[m] -= 1
                            pm += 1
                        if byt is not None:
                            size = entry_bytes(spec, inst)
                            byt[m] -= size
                            pby += size
                else:
                    keep.append(inst)
            if len(keep) != len(lst):
                lst[:] = keep
        self.purged += pm
        return pm, pb, pby

    def partial_matches_created(self) -> int:
        """The partial matches the run created (instances of internal plan nodes and Kleene leaves,
        live, expired or purged), counted after the run at no cost to the loop: the loop adds each new
        one to ``cnt`` and expiry leaves ``cnt`` alone, so ``cnt`` loses only the purged ones (the
        ``partial_matches_created`` metric of :func:`evaluators.engine.run_program`)."""
        return sum(self.cnt) + self.purged


def entry_bytes(spec: ListSpec, inst) -> int:
    """The metered bytes of one state entry (as the generated code counts them)."""
    if spec.layout == "event":
        return BUFFERED_EVENT_BYTES
    if spec.layout == "kleene":
        return 48 + 8 * len(inst)
    return node_entry_bytes(len(inst) - 1)


def _new_match(bindings) -> Match:
    """``Match(bindings)`` without the NamedTuple constructor's Python-level call (twice as fast)."""
    return tuple.__new__(Match, (bindings,))


def _events_of(slots, kleene) -> list[int]:
    out = []
    for s, kl in zip(slots, kleene):
        if kl:
            out.extend(s)
        else:
            out.append(s)
    return out
