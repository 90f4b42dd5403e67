"""The shared-join runtime behind both multi-pattern evaluators (MCEP Sections 3.1 and 5).

A global plan (:mod:`cep.global_plans`) is a DAG of nodes; this runtime evaluates it by instance,
as the single-pattern tree evaluator does (JQPG Section 2.3, ZStream), but with nodes shared:

* every stream event enters once and goes to the leaves of its type (MCEP 3.1: "the arrival of an
  event of type T only triggers the traversal of instances associated with states in l_T"); a leaf
  passing its one-variable filters makes an instance (the event's window key as its oldest and
  newest key, the event's position as its one slot) -- a Kleene leaf every new subset ending with it;
* a new instance of a node is combined with the instances of its sibling under *every* parent of
  the node (a shared node has several); a combination that passes the parent's checks -- its
  window, the rule that one event fills one variable, the SEQ pairs and the conditions placed on it
  (:class:`cep.global_plans.ClauseShape`) -- becomes a parent instance, is stored if the parent has
  parents itself, and goes up in turn;
* a node whose owners have different windows keeps the widest (its instances live that long), and
  every parent checks its own window when it combines, every owner its own at its root: a match of
  the wider window never leaks into a narrower pattern;
* a filter node (one child: a weak sub-tree of an owner, :mod:`cep.global_plans`; MOTTO's OTT
  ``Filter_sc`` and condition filters) passes each new child instance that fits its window and
  satisfies its SEQ pairs and conditions, unchanged, up to its own parents; each filtered instance
  counts one unit of ``work``; a child stores its instances only if some parent is a join;
* at an owner's root (its "final state", possibly an internal node) the owner's own window is
  checked, then what no shared node knows: strict or partition contiguity
  (:func:`cep.semantics.strategy_filter_ok`), its negated variables -- every event of the negated
  type before the match's release point (:func:`cep.semantics.release_point`) and within the window
  is tried (:func:`cep.semantics.negation_kills`); the whole stream is at hand, so the check is made
  at once rather than by holding the match -- and skip-till-next-match selection over the pattern's
  clauses (:func:`cep.semantics.select_next_match`, at the end of the stream).

The lazy multi-pattern NFA over an MPT is this runtime over left-deep trees: the prefix node of
``O[:k]`` is the NFA state holding instances of that prefix, the leaf of ``O[k]`` the buffer of the
event type the state waits for; an arriving event advances the instances of the states waiting for
its type, and a new instance at once fetches the buffered events of its next type (lazy evaluation,
MCEP 2 / [42]).

**Candidates** (what ``work`` counts).  A join examines only the sibling instances that its window
and its SEQ pairs allow: a node's instances are kept in arrival order, so their newest keys never
decrease, and a join binary-searches them for the first one recent enough -- within the parent's
window of the new instance's oldest key, and after every event of the new instance that must precede
one of the sibling's -- and, where a slot of the sibling is its latest and must precede a slot of the
new instance, for the last one early enough.  Where the parent has an equality condition between
the two sides, the sibling's instances are also kept in hash buckets of that condition's value and
the join walks the new instance's bucket, newest first, down to the first instance too old.  The
instances made at the arriving event are never candidates (both would hold that event).  So
``work`` -- the candidates examined, each one unit -- counts the combinations within the window and
the order, as the cost models' partial-match counts do (MCEP 3.3, Appendix C), before the
conditions' selectivities.

**Start-anchored Kleene** (``anchor_kleene``, the default; the two-step trend engine
:mod:`evaluators.trends.two_step` relies on it).  A Kleene leaf alone builds every subset of its events in the
window, whether or not an event of the elements before it precedes them.  When a node joins a Kleene
leaf ``K`` with a sibling ``P`` whose every slot must precede ``K`` (a SEQ's earlier elements joined
first, as a left-deep order plan does) under strict SEQ order, the node instead grows its
instances as an NFA state with a Kleene self-loop: a new event ``j`` of ``K`` makes ``(x, (j,))``
for every sibling instance ``x`` it joins with, and extends every stored ``(x, T)`` of such an ``x``
whose last event is strictly earlier to ``(x, T + (j,))``.  This is exact: a new sibling instance holds the
arriving event, which no stored ``K`` event follows in time, so (strict order) the sibling's side
never joins ``K``'s subsets; and the node's checks on a Kleene slot hold element by element
(``all(...)``, distinctness, the precedence of ``first(T)``), so checking ``j`` against ``x`` and
``last(T) < j`` decides ``(x, T + (j,))``.  The leaf keeps
enumerating subsets only for the parents and owners that need them.  With the same option a join is
not attempted from a child whose every slot must strictly precede every slot of its sibling
(:func:`evaluators.multi.plan_arrays.dead_links`: e.g. a new ``SEQ(s, t+)`` instance against the
stored ``e`` of ``SEQ(s, t+, e)``): the new instance holds the arriving event, which no stored
instance follows.  The matches are the same either way (tests/multi/test_anchored_kleene.py), while a
Kleene leaf no longer stores the subsets no earlier element precedes (``anchor_kleene=False`` gives
the plain leaf).

**Where it runs.**  The per-event loop is one numba kernel compiled once for every plan and cached on
disk (:mod:`evaluators.multi.kernel`), reading the plan and the stream as arrays
(:mod:`evaluators.multi.plan_arrays`, :mod:`evaluators.multi.stream_arrays`); this module prepares
them, turns the matches written out into :class:`cep.Match` values and makes the
skip-till-next-match selection.  There is no second, Python, path: the brute-force matcher
(:mod:`evaluators.brute_force`) is the reference it is tested against.

Metrics: ``work`` (candidates examined; a run stops with :class:`cep.WorkLimitError` past
``max_work``), ``peak_partial_matches`` (the stored instances of internal nodes, Kleene subsets and
anchored Kleene tuples, expired ones included until they are dropped every
:data:`~evaluators.multi.kernel.COMPACT_EVERY` events; past ``max_partial_matches`` the run stops with
:class:`cep.PartialMatchLimitError`), ``partial_matches_created`` (instances of internal nodes made,
counted ones included), ``elapsed_s`` (the kernel and the reading back of matches) and ``decode_s``
(turning the stream into arrays, untimed in ``elapsed_s``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from cep.errors import PartialMatchLimitError, PlanError, WorkLimitError
from cep.events import Event
from cep.global_plans import GlobalPlan
from cep.matches import Match
from cep.pattern import Strategy
from cep.semantics import canonical_key, select_next_match

import evaluators.multi.kernel as kernel
from evaluators.multi.plan_arrays import K_ROOT0, K_ROOT1, K_STORE, K_TIME, K_UP0, K_UP1, encode_plan
from evaluators.multi.stream_arrays import StreamArrays, Vocabulary, prepare_stream

COMPACT_EVERY = kernel.COMPACT_EVERY
_NO_CAP = 2**62
_ready = False


@dataclass
class MultiResult:
    """Per-pattern matches (lists of :class:`cep.Match`, when collected) and counts, plus metrics."""

    matches_by_pattern: list[list[Match]]
    counts: list[int]
    metrics: dict
    evaluator: str


class _Stamps:
    """A stream seen only through its timestamps (what :func:`cep.semantics.canonical_key` reads)."""

    def __init__(self, ts: np.ndarray) -> None:
        self.ts = ts

    def __len__(self) -> int:
        return len(self.ts)

    def __getitem__(self, i: int) -> Event:
        return Event("", float(self.ts[i]), {}, int(i))


def kernel_ready(plan_tables: tuple, stream: StreamArrays, n_types: int, consts: np.ndarray) -> None:
    """Load the kernel (compiling it, the first time on a machine) and run it once on the first
    events of the stream under tight caps, before anything is timed: a process's first call is
    slower than the next ones."""
    global _ready
    if _ready:
        return
    head = stream.slice(0, min(len(stream), 64))
    n_nodes = plan_tables[0].shape[0]
    n_owners = plan_tables[4].shape[0]
    z = np.zeros(n_nodes)
    kernel.run_kernel(plan_tables, head.kernel_tuple(n_types, consts),
                      (z, z, np.zeros(n_owners, np.int64), np.zeros(n_owners, np.int64), np.zeros(n_nodes, np.int64),
                       np.asarray([0, 1_000, 10_000, 1], np.int64)))
    _ready = True


class MultiRuntime:
    """Compile a global plan for a workload and run it over a stream (see the module docstring)."""

    def __init__(self, patterns: Sequence, gplan: GlobalPlan, *, name: str, anchor_kleene: bool = True) -> None:
        self.patterns = list(patterns)
        self.g = gplan
        self.name = name
        missing = [o for o in gplan.clauses if o not in gplan.plans]
        if missing:
            raise PlanError(f"the global plan has no local plan for clause {missing[0]}")
        self.plan = encode_plan(gplan, anchor_kleene=anchor_kleene)
        self.vocab: Vocabulary = self.plan.vocab
        #: the start-anchored nodes: node id -> (Kleene side, Kleene leaf id, sibling id)
        self.anchored = self.plan.anchored

    def prepare(self, stream) -> StreamArrays:
        """The stream as this workload's arrays (:func:`evaluators.multi.stream_arrays.prepare_stream`)."""
        return stream if isinstance(stream, StreamArrays) else prepare_stream(stream, self.vocab)

    # ---- running -------------------------------------------------------------------------------
    def run(self, stream, *, collect_matches: bool = True,
            max_partial_matches: int | None = None, max_work: int | None = None,
            first_from: int = 0, first_to: int | None = None, scan_from: int = 0) -> MultiResult:
        """Detect over ``stream`` (events, an ``EventStream``, ``EventColumns`` or
        :class:`StreamArrays`).  Only the events from position ``scan_from`` on enter the plan (the
        ones before it are there for negation checks alone), and only matches whose first event is at
        a position in ``[first_from, first_to)`` are reported (default: all) -- the partition of plan
        migration (:func:`evaluators.multi.engine.evaluate_segments`).  With time windows the first
        event is the earliest timestamp, so a bound inside the stream must fall between two
        timestamps."""
        t_dec = time.perf_counter()
        sa = self.prepare(stream)
        self.plan.programs.check_text(set(sa.text_columns))
        consts = self.plan.programs.consts.array(sa.text_codes)
        S = sa.kernel_tuple(len(self.vocab.types), consts)
        decode_s = time.perf_counter() - t_dec
        n = len(sa)
        first_to = n if first_to is None else min(first_to, n)
        clauses = self.g.clauses
        if (first_from > 0 or first_to < n or scan_from > 0) and any(sp.strategy is Strategy.NEXT for sp in clauses.values()):
            raise PlanError("skip-till-next-match selects over the whole stream: it cannot be split between plans")
        if scan_from > first_from:
            raise PlanError(f"matches from position {first_from} are reported but the scan starts at {scan_from}")
        TS = sa.ts
        for b in (first_from, first_to):
            if 0 < b < n and TS[b - 1] == TS[b]:
                raise PlanError(f"position {b} splits events of one timestamp ({TS[b]}): no first-event partition there")
        R = self._settings(TS, n, first_from, first_to, scan_from, collect_matches, max_partial_matches, max_work)
        P = self.plan.tables
        kernel_ready(P, sa, len(self.vocab.types), consts)
        t0 = time.perf_counter()
        status, processed, C, counts, outo, outs, kprev, klast, wbn, cbn = kernel.run_kernel(P, S, R)
        self.work_by_node = {nid: int(wbn[i]) for nid, i in self.plan.node_index.items()}
        self.created_by_node = {nid: int(cbn[i]) for nid, i in self.plan.node_index.items()}
        if status == kernel.STATUS_PARTIAL_MATCHES:
            raise PartialMatchLimitError(f"more than {max_partial_matches:,} live partial matches", processed=int(processed))
        if status == kernel.STATUS_WORK:
            raise WorkLimitError(f"the joins examined more than {max_work:,} candidate combinations", processed=int(processed))
        counts = [int(c) for c in counts]
        found: list[list] = [[] for _ in self.patterns]
        if len(outo):
            self._read_out(outo, outs, kprev, klast, TS, counts, found, collect_matches)
        elapsed = time.perf_counter() - t0
        metrics = {
            "events": n,
            "matches": sum(counts),
            "matches_by_pattern": list(counts),
            "throughput_eps": n / elapsed if elapsed > 0 else float("inf"),
            "elapsed_s": elapsed,
            "decode_s": decode_s,
            "peak_partial_matches": int(C[kernel.C_PEAK]),
            "work": int(C[kernel.C_WORK]),
            "partial_matches_created": int(C[kernel.C_CREATED]),
            "nodes": len(self.g.nodes),
        }
        return MultiResult(found, counts, metrics, self.name)

    def _settings(self, TS, n, first_from, first_to, scan_from, collect_matches, cap, wcap) -> tuple:
        """The run's settings ``R`` of :func:`evaluators.multi.kernel.run_kernel`."""
        NI = self.plan.tables[0]
        N = NI.shape[0]
        t_lo = TS[first_from] if first_from > 0 else -np.inf
        t_hi = TS[first_to] if first_to < n else np.inf
        timek = NI[:, K_TIME].astype(bool)
        klo = np.where(timek, t_lo, -np.inf if first_from <= 0 else float(first_from)) if N else np.zeros(0)
        khi = np.where(timek, t_hi, np.inf if first_to >= n else float(first_to)) if N else np.zeros(0)
        owners = self.plan.owners
        clauses = self.g.clauses
        ofast = np.zeros(max(1, len(owners)), np.int64)
        oout = np.zeros(max(1, len(owners)), np.int64)
        for i, o in enumerate(owners):
            sp = clauses[o]
            ofast[i] = sp.strategy is Strategy.ANY and not sp.negated and not collect_matches
            oout[i] = collect_matches or sp.strategy is Strategy.NEXT
        rooto = self.plan.tables[11]
        nmat = np.zeros(N, np.int64)
        for u in range(N):
            slow = any(not ofast[rooto[q]] for q in range(NI[u, K_ROOT0], NI[u, K_ROOT1]))
            nmat[u] = NI[u, K_STORE] or NI[u, K_UP1] > NI[u, K_UP0] or slow
        prm = np.asarray([scan_from, _NO_CAP if cap is None else cap, _NO_CAP if wcap is None else wcap,
                          max(1, len(self.patterns))], np.int64)
        return (np.ascontiguousarray(klo, np.float64), np.ascontiguousarray(khi, np.float64), ofast, oout, nmat, prm)

    def _read_out(self, outo, outs, kprev, klast, TS, counts, found, collect_matches) -> None:
        """The matches the kernel wrote out: collected per pattern, or (skip-till-next-match)
        selected per pattern over its clauses' candidates in canonical order."""
        owners, ovars, okl = self.plan.owners, self.plan.owner_vars, self.plan.owner_kleene
        clauses = self.g.clauses
        kp = kprev.tolist()
        kl = klast.tolist()
        rows = outs.tolist()
        next_keyed: dict[int, list] = {}
        stamps = _Stamps(TS)
        for o, row in zip(outo.tolist(), rows):
            vs = ovars[o]
            kls = okl[o]
            pos = {}
            for s, v in enumerate(vs):
                x = row[s]
                if kls[s]:
                    els = []
                    while x >= 0:
                        els.append(kl[x])
                        x = kp[x]
                    pos[v] = tuple(reversed(els))
                else:
                    pos[v] = (x,)
            m = Match(tuple((v, pos[v]) for v in sorted(pos)))
            owner = owners[o]
            p = owner[0]
            sp = clauses[owner]
            if sp.strategy is Strategy.NEXT:
                binding = {v: tuple(Event("", float(TS[i]), {}, i) for i in ps) if kls[vs.index(v)]
                           else Event("", float(TS[ps[0]]), {}, ps[0]) for v, ps in pos.items()}
                next_keyed.setdefault(p, []).append((canonical_key(sp, binding, stamps), m, m.positions))
                continue
            counts[p] += 1
            found[p].append(m)
        for p, cands in next_keyed.items():
            sel = select_next_match(cands)
            counts[p] += len(sel)
            if collect_matches:
                found[p].extend(sel)
