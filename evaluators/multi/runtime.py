"""The shared-join runtime behind both multi-pattern evaluators (MCEP Sections 3.1 and 5).

A global plan (:mod:`cep.global_plans`) is a DAG of nodes; this runtime evaluates it by instance,
as the single-pattern tree evaluator does (JQPG Section 2.3, ZStream), but with nodes shared:

* every stream event enters once and goes to the leaves of its type (MCEP 3.1: "the arrival of an
  event of type T only triggers the traversal of instances associated with states in l_T"); a leaf
  passing its one-variable filters makes an instance ``(mn, mx, j)`` (the event's window key twice
  and its stream position) -- a Kleene leaf every new subset ending with it;
* a new instance of a node is combined with the live instances of its sibling under *every* parent
  of the node (a shared node has several); a combination that passes the parent's checks -- its
  window, the rule that one event fills one variable, the SEQ pairs and the conditions placed on it
  (:class:`cep.global_plans.ClauseShape`) -- becomes a parent instance, is stored if the parent has
  parents itself, and goes up in turn;
* a node whose owners have different windows keeps the widest (its instances live that long), and
  every parent checks its own window when it combines, every owner its own at its root: a match of
  the wider window never leaks into a narrower pattern;
* a filter node (one child: a weak sub-tree of an owner, :mod:`cep.global_plans`; MOTTO's OTT
  ``Filter_sc`` and condition filters) passes each new child instance that fits its window and
  satisfies its SEQ pairs and conditions, unchanged, up to its own parents: it is "joined" with a
  constant one-item sibling (:data:`_ONE`), so the propagation loop is the same for both kinds, and
  each filtered instance counts one unit of ``work``; a child stores its instances only if some
  parent is a join (a filter reads only the new instance);
* at an owner's root (its "final state", possibly an internal node) the owner's own window is
  checked, then what no shared node knows: its negated variables (the match is held until its
  release point and checked against every event of the negated type, :func:`cep.semantics.
  negation_kills`), strict or partition contiguity (:func:`cep.semantics.strategy_filter_ok`), and
  skip-till-next-match selection over the pattern's clauses (:func:`cep.semantics.select_next_match`,
  at the end of the stream).

The lazy multi-pattern NFA over an MPT is this runtime over left-deep trees: the prefix node of
``O[:k]`` is the NFA state holding instances of that prefix, the leaf of ``O[k]`` the buffer of the
event type the state waits for; an arriving event advances the instances of the states waiting for
its type, and a new instance at once fetches the buffered events of its next type (lazy evaluation,
MCEP 2 / [42]).  Instances are kept per node ("stored in a hash table according to their associated
state"), leaves per event type ("state lists").

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
enumerating subsets only for the parents and owners that need them (:func:`_anchors`).  With the
same option a join is not attempted from a child whose every slot must strictly precede every slot
of its sibling (:func:`_dead_links`: e.g. a new ``SEQ(s, t+)`` instance against the stored ``e`` of
``SEQ(s, t+, e)``): the new instance holds the arriving event, which no stored instance follows.
On by default: the matches are the same either way (tests/multi/test_anchored_kleene.py), while a
Kleene leaf no longer stores the subsets no earlier element precedes, so the multi-pattern
experiments' ``work`` and ``peak_partial_matches`` of plans with a Kleene element after others drop
(``anchor_kleene=False`` gives the plain leaf).

``work`` counts the candidate combinations of the joins (every stored sibling instance a new
instance meets, the single-pattern engine's measure); a run stops with :class:`cep.WorkLimitError`
past ``max_work``.  A join does not look at all of them: where a slot of the new instance must
precede a slot of the sibling it starts at the first sibling instance recent enough
(:meth:`_JoinSource.first_candidate`), and a parent whose instances are only counted at its owners
counts them without building them (:func:`_propagation`); ``work`` and the matches are the same.
Stored instances whose window has passed are dropped every :data:`COMPACT_EVERY` events; scans skip
them before that by the window check.  ``peak_partial_matches`` counts the stored instances of
internal nodes and Kleene subsets, expired ones included until dropped.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import time
from collections import defaultdict
from dataclasses import dataclass, field
from operator import itemgetter
from typing import ClassVar, Sequence

from cep.conditions import comparison_source, expression_divides
from cep.errors import PartialMatchLimitError, PlanError, WorkLimitError
from cep.events import Event
from cep.global_plans import GlobalPlan, SharedNode
from cep.matches import Match
from cep.pattern import SeqOrder, Strategy, WindowKind
from cep.semantics import (
    canonical_key,
    negation_kills,
    partition_positions,
    select_next_match,
    strategy_filter_ok,
)

COMPACT_EVERY = 32


class _One:
    """The sibling of a filter node's child: one dummy item, so that ``join(x, items)`` runs once."""

    items: ClassVar[list] = [None]


_ONE = _One()


class _RNode:
    """A node of the global plan at run time: its compiled functions, its stored instances
    (``items``; a Kleene leaf's growing subsets ``grow``), its parents' joins (``ups``) and the
    owners whose root it is (``roots``, split into ``fast`` and ``slow`` per run)."""

    __slots__ = ("node", "span", "store", "items", "grow", "ups", "roots", "accept", "kleene", "lo", "hi", "strict",
                 "timekey", "fast", "slow", "internal", "anchor", "anchors", "enum", "ext", "join", "klo", "khi", "whole",
                 "final")

    def __init__(self, node: SharedNode) -> None:
        self.node = node
        self.items: list = []
        self.grow: list = []
        self.ups: list = []
        self.roots: list = []
        self.anchor = None  # (Kleene side, Kleene child, sibling child) of a start-anchored node
        self.anchors: list = []  # a Kleene leaf's start-anchored parents
        self.enum = True  # whether a Kleene leaf builds its subsets


def _anchors(nodes) -> dict[int, tuple[int, SharedNode, SharedNode]]:
    """The start-anchored nodes (see the module docstring): node id -> (Kleene side, Kleene leaf,
    sibling), for an internal node of strict SEQ order one child of which is a Kleene leaf (not the
    other child too) that every slot of the other child must precede."""
    out = {}
    for n in nodes:
        if n.leaf is not None or n.right is None or n.left is n.right:  # (right None: a one-child node)
            continue
        for side, k, p in ((1, n.right, n.left), (0, n.left, n.right)):
            if k.leaf is None or not k.leaf.kleene or not _strict(k):
                continue
            ks = n.left.size if side == 1 else 0
            ps = range(n.left.size) if side == 1 else range(1, n.size)
            pairs = set(n.pairs)
            if all((u, ks) in pairs for u in ps):
                out[n.id] = (side, k, p)
                break
    return out


def _dead_links(nodes) -> frozenset[tuple[int, int]]:
    """``(node id, side)`` of the children whose every slot must strictly precede every slot of the
    sibling: a new instance of such a child holds the arriving event, which no stored sibling
    instance follows in time, so the join on that side never yields anything."""
    out = set()
    for n in nodes:
        if n.leaf is not None or n.right is None or not n.pairs or not _strict(n):
            continue
        pairs = set(n.pairs)
        nl = n.left.size
        left, right = range(nl), range(nl, n.size)
        if all((u, v) in pairs for u in left for v in right):
            out.add((n.id, 0))
        if all((u, v) in pairs for u in right for v in left):
            out.add((n.id, 1))
    return frozenset(out)


def _strict(n: SharedNode) -> bool:
    """Whether a node checks strict SEQ order (every leaf of a node has its owners' SEQ order)."""
    while n.leaf is None:
        n = n.left
    return n.leaf.seq_order == SeqOrder.STRICT.value


def _compile_join(node: SharedNode, span: float, seq_strict: bool, side: int, timekey: bool | None) -> str:
    """``join_<id>_<side>(x, items)``: the parent instances of a new instance ``x`` of the child on
    ``side`` (0 left, 1 right) with every sibling instance in ``items`` -- the new instance's slots
    and attributes read once, the checks inlined in one loop; a condition that divides is false
    where it divides by zero -- and ``count_<id>_<side>(x, items)``, how many there are (for a parent
    whose instances are only counted, :func:`_propagation`).  The checks over a Kleene slot (a loop
    over its events) come after the others.  Where a slot of ``x`` must precede a slot of the
    sibling, the loop starts at the first sibling instance whose newest event can follow it
    (:meth:`_JoinSource.first_candidate`); the instances before it fail that SEQ pair.  ``timekey``:
    whether every node's window key is a timestamp (False: every one a stream position; None: mixed,
    no search)."""
    js = _JoinSource(node, side)
    checks = js.distinct_checks() + js.order_checks(seq_strict)
    guarded: list[str] = []
    for c in node.conds:
        (guarded if expression_divides(c.left) or expression_divides(c.right) else checks).append(js.condition(c))
    checks.sort(key=lambda c: c.startswith("all("))  # stable: the loops over Kleene events last
    head = [f"def join_{node.id}_{side}(x, items):", "    out = []; app = out.append", "    x0 = x[0]; x1 = x[1]; xt = x[2:]"]
    first = "" if timekey is None else js.first_candidate(timekey)
    body = [f"    for y in (items[{first}:] if SORTED else items):" if first else "    for y in items:",
            "        y0 = y[0]; y1 = y[1]",
            "        mn = x0 if x0 < y0 else y0; mx = x1 if x1 > y1 else y1",
            f"        if mx - mn > {span!r}: continue"]
    for c in checks:
        body.append(f"        if not ({c}): continue")
    for c in guarded:
        body += ["        try:", f"            ok = {c}", "        except ZeroDivisionError:", "            ok = False",
                 "        if not ok: continue"]
    hoisted = [f"    {k} = {v}" for k, v in js.hoisted.items()]
    join = head + hoisted + body + ["        app((mn, mx) + xt + y[2:])" if side == 0 else "        app((mn, mx) + y[2:] + xt)",
                                    "    return out"]
    count = [f"def count_{node.id}_{side}(x, items):", "    n = 0", *head[2:], *hoisted, *body, "        n += 1", "    return n"]
    return "\n".join(join) + "\n\n" + "\n".join(count)


class _JoinSource:
    """The expressions of a join function (:func:`_compile_join`) over the node's slots: a slot of
    the new instance ``x`` (and, unless Kleene, its attributes and timestamp) is read once before the
    loop into a name of ``hoisted``; a slot of the sibling instance ``y`` is read in the loop."""

    def __init__(self, node: SharedNode, side: int) -> None:
        self.node = node
        self.nl = node.left.size
        self.kinds = node.slot_kleene
        self.xs = range(0, self.nl) if side == 0 else range(self.nl, node.size)
        self.hoisted: dict[str, str] = {}

    def val(self, i: int) -> str:
        """Slot ``i``: an event index, or a tuple of them for a Kleene slot."""
        local = i if i < self.nl else i - self.nl
        if i in self.xs:
            name = f"xs{i}"
            if name not in self.hoisted:
                self.hoisted[name] = f"x[{local + 2}]"
            return name
        return f"y[{local + 2}]"

    def attr(self, i: int, a: str) -> str:
        """Attribute ``a`` of the event in (non-Kleene) slot ``i``."""
        if i in self.xs and not self.kinds[i]:
            name = f"xa{i}_{abs(hash(a)) % 10**8}"
            if name not in self.hoisted:
                self.hoisted[name] = f"AT[{self.val(i)}][{a!r}]"
            return name
        return f"AT[{self.val(i)}][{a!r}]"

    def distinct_checks(self) -> list[str]:
        """One event fills one variable: slots of the same type on the two sides hold different events."""
        kinds, types = self.kinds, self.node.slot_types
        out = []
        for i in range(self.nl):
            for j in range(self.nl, self.node.size):
                if types[i] != types[j]:
                    continue
                a, b = self.val(i), self.val(j)
                if kinds[i] and kinds[j]:
                    out.append(f"set({a}).isdisjoint({b})")
                elif kinds[i]:
                    out.append(f"{b} not in {a}")
                elif kinds[j]:
                    out.append(f"{a} not in {b}")
                else:
                    out.append(f"{a} != {b}")
        return out

    def order_checks(self, seq_strict: bool) -> list[str]:
        """The node's SEQ pairs ``(u, v)``: the last event of slot ``u`` before the first of ``v``."""
        kinds = self.kinds
        op = "<" if seq_strict else "<="
        out = []
        for u, v in self.node.pairs:
            last = f"{self.val(u)}[-1]" if kinds[u] else self.val(u)
            first = f"{self.val(v)}[0]" if kinds[v] else self.val(v)
            out.append(f"{self._ts(u, last)} {op} {self._ts(v, first)}")
        return out

    def first_candidate(self, timekey: bool) -> str:
        """The index of the first sibling instance that can pass the SEQ pairs ``(u, v)`` with ``u`` a
        slot of the new instance ``x`` and ``v`` one of the sibling's ("" when there is none).

        A node's stored instances are in arrival order, and an instance made at event ``j`` has ``j``'s
        window key as its largest (``y[1]``: every instance made at ``j`` holds ``j``, the instances it
        joined are older), so ``y[1]`` never decreases along ``items`` in a stream in timestamp order
        (``SORTED``, checked once per run).  Slot ``v`` of ``y`` starts no later than ``y[1]``, so ``y``
        passes ``(u, v)`` only if ``y[1]`` is at least ``u``'s last timestamp (time windows) or the
        first stream position with that timestamp (count windows): a binary search on ``y[1]``."""
        kinds = self.kinds
        bounds = []
        for u, v in self.node.pairs:
            if u in self.xs and v not in self.xs:
                bounds.append(self._ts(u, f"{self.val(u)}[-1]" if kinds[u] else self.val(u)))
        if not bounds:
            return ""
        bounds = list(dict.fromkeys(bounds))
        bound = bounds[0] if len(bounds) == 1 else f"max({', '.join(bounds)})"
        if not timekey:
            bound = f"bisect_left(TS, {bound})"
        return f"bisect_left(items, {bound}, key=NEWEST)"

    def _ts(self, i: int, event: str) -> str:
        """The timestamp of ``event`` of slot ``i`` (hoisted for a non-Kleene slot of ``x``)."""
        if i in self.xs and not self.kinds[i]:
            self.hoisted.setdefault(f"xt{i}", f"TS[{self.val(i)}]")
            return f"xt{i}"
        return f"TS[{event}]"

    def condition(self, c) -> str:
        """A condition placed on the node; over a Kleene slot it holds for every element."""
        loops: list[tuple[str, str]] = []

        def render(at):
            i = int(at.var[1:])
            if self.kinds[i]:
                name = f"_k{i}"
                if name not in [n for n, _ in loops]:
                    loops.append((name, self.val(i)))
                return f"AT[{name}][{at.name!r}]"
            return self.attr(i, at.name)

        body = comparison_source(c, render)
        if loops:
            body = "all(" + body + "".join(f" for {n} in {s}" for n, s in loops) + ")"
        return body


def _compile_filter(node: SharedNode, span: float, seq_strict: bool) -> str:
    """``join_<id>_0(x, items)`` of a filter node: ``[x]`` if the child instance ``x`` fits the
    node's window and passes its SEQ pairs and conditions (over the child's slots), else ``[]``."""
    kinds = node.slot_kleene
    slot_of = {f"_{i}": f"x[{i + 2}]" for i in range(node.size)}
    kleene_of = {f"_{i}": kinds[i] for i in range(node.size)}
    op = "<" if seq_strict else "<="
    checks = [f"x[1] - x[0] <= {span!r}"]
    for u, v in node.pairs:
        last = f"x[{u + 2}][-1]" if kinds[u] else f"x[{u + 2}]"
        first = f"x[{v + 2}][0]" if kinds[v] else f"x[{v + 2}]"
        checks.append(f"TS[{last}] {op} TS[{first}]")
    checks += [_cond_source(c, slot_of, kleene_of) for c in node.conds]
    cond = " and ".join(f"({c})" for c in checks)
    return (f"def join_{node.id}_0(x, items):\n    try:\n        return [x] if {cond} else []\n"
            "    except ZeroDivisionError:\n        return []")


def _cond_source(cond, slot_of, kleene_of) -> str:
    """A condition over slot names ``_i`` as source; Kleene slots hold for every element."""
    loops = []

    def render(a):
        src, k = slot_of[a.var], kleene_of[a.var]
        if k:
            name = f"_k{a.var[1:]}"
            if name not in [n for n, _ in loops]:
                loops.append((name, src))
            return f"AT[{name}][{a.name!r}]"
        return f"AT[{src}][{a.name!r}]"

    body = comparison_source(cond, render)
    if loops:
        body = "all(" + body + "".join(f" for {n} in {s}" for n, s in loops) + ")"
    return body


@dataclass
class MultiResult:
    """Per-pattern matches (lists of :class:`cep.Match`, when collected) and counts, plus metrics."""

    matches_by_pattern: list[list[Match]]
    counts: list[int]
    metrics: dict
    evaluator: str
    source: str = field(default="", repr=False)


class MultiRuntime:
    """Compile a global plan for a workload and run it over a stream (see the module docstring)."""

    def __init__(self, patterns: Sequence, gplan: GlobalPlan, *, name: str, anchor_kleene: bool = True) -> None:
        self.patterns = list(patterns)
        self.g = gplan
        self.name = name
        missing = [o for o in gplan.clauses if o not in gplan.plans]
        if missing:
            raise PlanError(f"the global plan has no local plan for clause {missing[0]}")
        self.rnodes: dict[int, _RNode] = {node.id: _runtime_node(node, gplan) for node in gplan.nodes.values()}
        keys = {rn.timekey for rn in self.rnodes.values()}
        timekey = keys.pop() if len(keys) == 1 else None
        self.source = "\n\n".join(_node_source(rn, timekey) for rn in self.rnodes.values())
        self._code = compile(self.source or "pass", "<multi-plan>", "exec")  # once: a run only binds TS, AT
        self.by_type: dict[str, list[_RNode]] = defaultdict(list)
        for rn in self.rnodes.values():
            if rn.node.leaf is not None:
                self.by_type[rn.node.leaf.type].append(rn)
        for o, root in gplan.roots.items():
            self.rnodes[root.id].roots.append(o)
        self.anchored = _anchors(gplan.nodes.values()) if anchor_kleene else {}
        self.dead = _dead_links(gplan.nodes.values()) if anchor_kleene else frozenset()
        for nid, (side, k, p) in self.anchored.items():
            rn = self.rnodes[nid]
            rn.anchor = (side, self.rnodes[k.id], self.rnodes[p.id])
            self.rnodes[k.id].anchors.append(rn)
        for rn in self.rnodes.values():
            if rn.kleene and rn.anchors:  # subsets only for the owners and parents that use them
                rn.enum = bool(rn.roots) or any(
                    pid not in self.anchored or self.anchored[pid][0] != side for pid, side in rn.node.parents)
        self._stored = [rn for rn in self.rnodes.values() if rn.store or rn.kleene]  # what compaction scans
        self._anchored_nodes = [rn for rn in self.rnodes.values() if rn.anchor is not None]

    # ---- running -------------------------------------------------------------------------------
    def run(self, stream: Sequence[Event], *, collect_matches: bool = True,
            max_partial_matches: int | None = None, max_work: int | None = None,
            first_from: int = 0, first_to: int | None = None, scan_from: int = 0) -> MultiResult:
        """Detect over ``stream``.  Only the events from position ``scan_from`` on enter the plan (the
        ones before it are there for negation checks alone), and only matches whose first event is at
        a position in ``[first_from, first_to)`` are reported (default: all) -- the partition of plan
        migration (:func:`evaluators.multi.engine.evaluate_segments`).  With time windows the first
        event is the earliest timestamp, so a bound inside the stream must fall between two
        timestamps."""
        n = len(stream)
        first_to = n if first_to is None else min(first_to, n)
        clauses = self.g.clauses
        if (first_from > 0 or first_to < n or scan_from > 0) and any(sp.strategy is Strategy.NEXT for sp in clauses.values()):
            raise PlanError("skip-till-next-match selects over the whole stream: it cannot be split between plans")
        if scan_from > first_from:
            raise PlanError(f"matches from position {first_from} are reported but the scan starts at {scan_from}")
        TS = [e.ts for e in stream]
        for b in (first_from, first_to):
            if 0 < b < n and TS[b - 1] == TS[b]:
                raise PlanError(f"position {b} splits events of one timestamp ({TS[b]}): no first-event partition there")
        t_lo = TS[first_from] if first_from > 0 else -float("inf")
        t_hi = TS[first_to] if first_to < n else float("inf")
        whole = first_from <= 0 and first_to >= n
        for rn in self.rnodes.values():
            rn.klo, rn.khi = (t_lo, t_hi) if rn.timekey else (first_from, first_to)
            rn.whole = whole
        self._bind(TS, [e.attrs for e in stream])
        self._split_roots(collect_matches)
        tally = _Tally(len(self.patterns))
        held = _Held()
        binding_of, accept = _acceptor(clauses, stream, collect_matches, tally)
        owner_info = {o: (clauses[o], self.g.root_vars[o], clauses[o].window.span_limit) for o in self.g.roots}
        emit = _root_check(owner_info, _partition_positions(stream, clauses), binding_of, accept, held)
        release = _negation_release(owner_info, stream, binding_of, accept)
        cap = float("inf") if max_partial_matches is None else max_partial_matches
        wcap = float("inf") if max_work is None else max_work
        live = [0, 0, 0]  # live, peak, work (candidate combinations the joins examined)
        push = _propagation(tally.counts, emit, live, cap, wcap)
        t0 = time.perf_counter()
        self._scan(stream, TS, push, release, held, live, cap, wcap, scan_from)
        held.release_all(release, n)
        tally.select_next(collect_matches)
        elapsed = time.perf_counter() - t0
        metrics = {
            "events": n,
            "matches": sum(tally.counts),
            "matches_by_pattern": list(tally.counts),
            "throughput_eps": n / elapsed if elapsed > 0 else float("inf"),
            "elapsed_s": elapsed,
            "peak_partial_matches": live[1],
            "work": live[2],
            "nodes": len(self.g.nodes),
        }
        return MultiResult(tally.found, tally.counts, metrics, self.name, self.source)

    def _bind(self, TS: list, AT: list) -> None:
        """Bind the compiled plan to a stream's timestamps ``TS`` and attributes ``AT`` and empty
        every node's stores; wire each node to its parents as ``(parent, join, sibling)`` -- except
        the parents that :func:`_anchored` grows and the links that never join (:func:`_dead_links`)."""
        env = {"TS": TS, "AT": AT, "SORTED": all(a <= b for a, b in itertools.pairwise(TS)),
               "bisect_left": bisect.bisect_left, "NEWEST": itemgetter(1)}
        exec(self._code, env)  # noqa: S102 - generated from our own plan
        for rn in self.rnodes.values():
            rn.accept = env.get(f"accept_{rn.node.id}")
            rn.items = []
            rn.grow = []
            rn.ext = {}
            if rn.anchor is not None:
                rn.join = env[f"join_{rn.node.id}_{rn.anchor[0]}"]
        for rn in self.rnodes.values():
            rn.ups = []
            for (pid, side), (parent, _) in rn.node.parents.items():
                if pid in self.anchored or (pid, side) in self.dead:  # grown by _anchored / never joins
                    continue
                prn = self.rnodes[parent.id]
                sib = _ONE if parent.is_filter else self.rnodes[(parent.right if side == 0 else parent.left).id]
                rn.ups.append((prn, env[f"join_{parent.id}_{side}"], sib, env.get(f"count_{parent.id}_{side}")))

    def _split_roots(self, collect_matches: bool) -> None:
        """Split each node's owners into those counted inline at the root (``fast``: skip-till-any-match,
        no negation, matches not collected -- they need nothing beyond their window) and those checked
        by the root check (``slow``)."""
        clauses = self.g.clauses
        for rn in self.rnodes.values():
            rn.fast = []
            rn.slow = []
            for o in rn.roots:
                sp = clauses[o]
                if sp.strategy is Strategy.ANY and not sp.negated and not collect_matches:
                    rn.fast.append((o[0], sp.window.span_limit, sp.window.span_limit >= rn.span))
                else:
                    rn.slow.append(o)
            rn.final = not rn.store and not rn.ups and not rn.slow
        for rn in self.rnodes.values():  # a final parent all of whose owners take every instance: count only
            rn.ups = [(prn, join, sib, count if prn.final and prn.whole and all(w for _, _, w in prn.fast) else None)
                      for prn, join, sib, count in rn.ups]

    def _scan(self, stream: Sequence[Event], TS: list, push, release, held: "_Held", live: list,
              cap: float, wcap: float, scan_from: int) -> None:
        """The one pass over the stream (MCEP 3.1).  At event ``j``: release the held matches whose
        release point ``j`` passes; every :data:`COMPACT_EVERY` events drop the expired instances;
        then the event enters the leaves of its type -- a leaf passing its filters pushes the
        instance ``(k, k, j)``, a Kleene leaf its new subsets (:func:`_kleene`) and the new instances
        of its start-anchored parents (:func:`_anchored`).  The events before ``scan_from`` are skipped."""
        pend_ts, pend_pos = held.by_time, held.by_position
        by_type = self.by_type
        stored = self._stored
        anchored = self._anchored_nodes
        for j in range(scan_from, len(stream)):
            e = stream[j]
            tj = TS[j]
            if pend_ts or pend_pos:
                while pend_ts and pend_ts[0][0] < tj:
                    item = heapq.heappop(pend_ts)
                    if item[1] <= j:
                        release(item[3], item[4], j)
                    else:
                        heapq.heappush(pend_pos, (item[1], item[2], item[3], item[4]))
                while pend_pos and pend_pos[0][0] <= j:
                    item = heapq.heappop(pend_pos)
                    release(item[2], item[3], j)
            if j % COMPACT_EVERY == 0 and j:
                _compact(stored, anchored, j, tj, live)
            leaves = by_type.get(e.type)
            if not leaves:
                continue
            for rn in leaves:
                if not rn.accept(j):
                    continue
                k = tj if rn.timekey else j
                if not rn.kleene:
                    push(rn, (k, k, j))
                    continue
                if rn.enum:
                    _kleene(rn, j, k, TS, push, live)
                for an in rn.anchors:
                    _anchored(an, j, k, TS, push, live, cap, wcap)


def _runtime_node(node: SharedNode, g: GlobalPlan) -> _RNode:
    """A node's run-time record: the widest window of its owners (``span``), their SEQ order and
    window kind, whether it stores its instances (some parent is a join: a filter reads only the new
    instance) and, for a leaf, its Kleene bounds."""
    rn = _RNode(node)
    users = [g.clauses[o] for o in node.users]
    rn.span = max(sp.window.span_limit for sp in users)
    rn.strict = any(sp.seq_order is SeqOrder.STRICT for sp in users)
    rn.timekey = users[0].window.kind is WindowKind.TIME
    rn.store = any(not p.is_filter for p, _ in node.parents.values())
    rn.kleene = node.leaf is not None and node.leaf.kleene
    rn.internal = node.leaf is None
    if node.leaf is not None:
        rn.lo, rn.hi = node.leaf.min_size, node.leaf.max_size
    return rn


def _node_source(rn: _RNode, timekey: bool | None) -> str:
    """The generated functions of a node: ``accept_<id>(j)`` of a leaf (its one-variable filters),
    ``join_<id>_0`` of a filter node (:func:`_compile_filter`), ``join_<id>_0`` and ``join_<id>_1``
    of a join (:func:`_compile_join`)."""
    node = rn.node
    if node.leaf is not None:
        conds = " and ".join(_cond_source(c, {"_0": "j"}, {"_0": False}) for c in node.leaf.filters) or "True"
        return (f"def accept_{node.id}(j):\n    try:\n        return {conds}\n"
                "    except ZeroDivisionError:\n        return False")
    if node.is_filter:
        return _compile_filter(node, rn.span, rn.strict)
    return _compile_join(node, rn.span, rn.strict, 0, timekey) + "\n\n" + _compile_join(node, rn.span, rn.strict, 1, timekey)


class _Tally:
    """Per pattern of one run: the matches counted, the matches collected, and the skip-till-next-match
    candidates ``(canonical key, match, positions)`` awaiting the selection at the end of the stream."""

    __slots__ = ("counts", "found", "next_keyed")

    def __init__(self, n_patterns: int) -> None:
        self.counts = [0] * n_patterns
        self.found: list[list] = [[] for _ in range(n_patterns)]
        self.next_keyed: list[list] = [[] for _ in range(n_patterns)]

    def select_next(self, collect_matches: bool) -> None:
        """Skip-till-next-match over each pattern's candidates (:func:`cep.semantics.select_next_match`)."""
        for p, cands in enumerate(self.next_keyed):
            if cands:
                sel = select_next_match(cands)
                self.counts[p] += len(sel)
                if collect_matches:
                    self.found[p].extend(sel)


class _Held:
    """Matches held for a negation check until their release point: a heap by release time
    ``(ts, pos, seq, owner, instance)`` (``seq`` orders ties by arrival), and, once that time has
    passed, a heap by release position ``(pos, seq, owner, instance)``."""

    __slots__ = ("by_time", "by_position")

    def __init__(self) -> None:
        self.by_time: list = []
        self.by_position: list = []

    def release_all(self, release, n: int) -> None:
        """At the end of the stream (position ``n``), release every match still held."""
        for item in sorted(self.by_time):
            release(item[3], item[4], n)
        for item in sorted(self.by_position):
            release(item[2], item[3], n)


def _acceptor(clauses: dict, stream: Sequence[Event], collect_matches: bool, tally: _Tally):
    """``binding_of(vs, inst)`` (an instance's slots as a binding variable -> event or tuple of
    events) and ``accept(o, vs, inst, binding=None)``: a match of clause ``o`` that passed every check
    is counted (and collected), or, under skip-till-next-match, kept with its canonical key for the
    selection at the end of the stream."""
    counts, found, next_keyed = tally.counts, tally.found, tally.next_keyed

    def binding_of(vs, inst):
        b = {}
        for k, v in enumerate(vs):
            s = inst[k + 2]
            b[v] = tuple(stream[i] for i in s) if isinstance(s, tuple) else stream[s]
        return b

    def accept(o, vs, inst, binding=None):
        sp = clauses[o]
        p = o[0]
        if sp.strategy is Strategy.ANY and not collect_matches:
            counts[p] += 1
            return
        if binding is None:
            binding = binding_of(vs, inst)
        m = Match.from_binding(binding)
        if sp.strategy is Strategy.NEXT:
            next_keyed[p].append((canonical_key(sp, binding, stream), m, m.positions))
            return
        counts[p] += 1
        if collect_matches:
            found[p].append(m)

    return binding_of, accept


def _partition_positions(stream: Sequence[Event], clauses: dict) -> dict:
    """Per partition attribute of a partition-contiguity clause, its events' positions within their
    partition (:func:`cep.semantics.partition_positions`)."""
    out = {}
    for sp in clauses.values():
        if sp.strategy is Strategy.PARTITION and sp.partition_attribute not in out:
            out[sp.partition_attribute] = partition_positions(stream, sp.partition_attribute)
    return out


def _root_check(owner_info: dict, part_pos: dict, binding_of, accept, held: _Held):
    """``emit(o, inst)``: an instance at the root of owner ``o`` (its final state) -- dropped outside
    the owner's own window or against its strict or partition contiguity
    (:func:`cep.semantics.strategy_filter_ok`); accepted if the owner has no negated variable, else
    held until its release point: the last positive event (the window's end after the first one for
    a negation with no later positive neighbour, :attr:`cep.dnf.SimplePattern.unbounded_negations`)."""
    pend_ts = held.by_time
    seq = [0]

    def emit(o, inst):
        sp, vs, span = owner_info[o]
        if inst[1] - inst[0] > span:
            return
        if sp.strategy in (Strategy.STRICT, Strategy.PARTITION):
            binding = binding_of(vs, inst)
            if not strategy_filter_ok(sp, binding, part_pos.get(sp.partition_attribute)):
                return
        if not sp.negated:
            accept(o, vs, inst)
            return
        binding = binding_of(vs, inst)
        evs = [e for x in binding.values() for e in (x if isinstance(x, tuple) else (x,))]
        max_ts = max(e.ts for e in evs)
        max_pos = max(e.pos for e in evs)
        ts_thr, pos_thr = max_ts, max_pos + 1
        if sp.unbounded_negations:
            if sp.window.kind is WindowKind.TIME:
                ts_thr = max(ts_thr, min(e.ts for e in evs) + sp.window.size)
            else:
                pos_thr = max(pos_thr, min(e.pos for e in evs) + int(sp.window.size))
        seq[0] += 1
        heapq.heappush(pend_ts, (ts_thr, pos_thr, seq[0], o, inst))

    return emit


def _negation_release(owner_info: dict, stream: Sequence[Event], binding_of, accept):
    """``release(o, inst, r)``: a held match of owner ``o`` at its release position ``r`` -- dropped
    if an event of a negated type before ``r`` and within the window kills it
    (:func:`cep.semantics.negation_kills`), else accepted."""
    type_pos: dict[str, list[int]] = defaultdict(list)
    type_ts: dict[str, list[float]] = defaultdict(list)
    if any(sp.negated for sp, _, _ in owner_info.values()):
        for e in stream:
            type_pos[e.type].append(e.pos)
            type_ts[e.type].append(e.ts)

    def release(o, inst, r):
        sp, vs, _ = owner_info[o]
        binding = binding_of(vs, inst)
        evs = [e for x in binding.values() for e in (x if isinstance(x, tuple) else (x,))]
        kind = sp.window.kind
        lim = sp.window.span_limit
        keys = [e.ts if kind is WindowKind.TIME else e.pos for e in evs]
        lo_k, hi_k = max(keys) - lim, min(keys) + lim
        for neg in sp.negated:
            ps = type_pos.get(sp.type_of(neg), [])
            if kind is WindowKind.TIME:
                tl = type_ts[sp.type_of(neg)]
                a = bisect.bisect_left(tl, lo_k)
                b = bisect.bisect_right(tl, hi_k)
                cand = (x for x in ps[a:b] if x < r)
            else:
                a = bisect.bisect_left(ps, lo_k)
                b = bisect.bisect_right(ps, hi_k)
                cand = (x for x in ps[a:b] if x < r)
            for x in cand:
                if negation_kills(sp, binding, neg, stream[x]):
                    return
        accept(o, vs, inst, binding)

    return release


def _propagation(counts: list, emit, live: list, cap: float, wcap: float):
    """``push(rn, inst)``: a new instance of node ``rn`` is stored if a parent joins it (an internal
    node's counts as a live partial match, against ``cap``); if its first event's key is in the
    node's ``[klo, khi)`` (:meth:`MultiRuntime.run`) it is reported at the owners whose root ``rn``
    is (counted inline, or checked by ``emit``); and it is joined with the stored instances of its
    sibling under every parent, each result pushed in turn (MCEP 3.1) -- or, for a parent that is
    only the root of owners counted inline (``final``: it stores nothing, joins nothing further and
    checks nothing at its root), counted at those owners all at once, without building the instances
    where every such owner's window is the parent's and every match is reported (``count``, a run
    with no first-event range, :meth:`MultiRuntime._split_roots`).
    ``live[2]`` counts the sibling instances scanned, against ``wcap``."""

    def push(rn, inst):
        if rn.store:
            rn.items.append(inst)
            if rn.internal:
                live[0] += 1
                if live[0] > live[1]:
                    live[1] = live[0]
                    if live[1] > cap:
                        raise PartialMatchLimitError(f"more than {cap:,} live partial matches")
        if rn.klo <= inst[0] < rn.khi:
            for p, span, wide in rn.fast:
                if wide or inst[1] - inst[0] <= span:
                    counts[p] += 1
            for o in rn.slow:
                emit(o, inst)
        for prn, join, sib, count in rn.ups:
            items = sib.items
            if items:
                live[2] += len(items)
                if live[2] > wcap:
                    raise WorkLimitError(f"the joins examined more than {wcap:,} candidate combinations")
                if count is not None:  # a final parent whose owners take every instance it makes
                    n = count(inst, items)
                    if n:
                        for p, _, _ in prn.fast:
                            counts[p] += n
                    continue
                zs = join(inst, items)
                if not prn.final:
                    for z in zs:
                        push(prn, z)
                elif zs:  # what pushing each would do: count it at the owners it ends
                    if not prn.whole:
                        zs = [z for z in zs if prn.klo <= z[0] < prn.khi]
                    for p, span, wide in prn.fast:
                        counts[p] += len(zs) if wide else sum(z[1] - z[0] <= span for z in zs)

    return push


def _compact(stored: list, anchored: list, j: int, tj: float, live: list) -> None:
    """At event ``j`` (timestamp ``tj``): drop the stored instances, Kleene subsets and anchored
    Kleene tuples whose window has passed, and take the partial matches among them off ``live[0]``."""
    for rn in stored:
        thr = (tj if rn.timekey else j) - rn.span
        before = len(rn.items)
        rn.items = [x for x in rn.items if x[0] >= thr]
        if rn.node.leaf is None:
            live[0] -= before - len(rn.items)
        if rn.kleene:
            gb = len(rn.grow)
            rn.grow = [x for x in rn.grow if x[0] >= thr]
            live[0] -= gb - len(rn.grow)
    for rn in anchored:
        live[0] -= _expire(rn, (tj if rn.timekey else j) - rn.span)


def _kleene(rn: _RNode, j: int, k: float, TS, push, live) -> None:
    """Every subset of a Kleene leaf's events ending with event ``j`` (JQPG Section 4)."""
    hi = rn.hi
    span = rn.span
    strict = rn.strict
    new = [(k, k, (j,))]
    tj = TS[j]
    for s in rn.grow:
        if k - s[0] > span:
            continue
        el = s[2]
        if hi is not None and len(el) >= hi:
            continue
        last = TS[el[-1]]
        if (last < tj) if strict else (last <= tj):
            new.append((s[0], k, el + (j,)))
    for s in new:
        if hi is None or len(s[2]) < hi:
            rn.grow.append(s)
            live[0] += 1
            if live[0] > live[1]:
                live[1] = live[0]
    for s in new:
        if len(s[2]) >= rn.lo:
            push(rn, s)


def _anchored(rn: _RNode, j: int, k: float, TS, push, live, cap, wcap) -> None:
    """A start-anchored node's new instances at event ``j`` of its Kleene leaf (module docstring):
    ``(x, (j,))`` for every sibling instance ``x`` the node's join accepts with ``j``, and ``(x, T +
    (j,))`` for every stored ``T`` of such an ``x`` whose last event is strictly earlier.  ``rn.ext``
    maps the sibling's slots to ``[mn, [T, ...]]``, the Kleene tuples that may still grow; they count
    as partial matches unless the node stores them for its parents already (``push``)."""
    side, kl, sib = rn.anchor
    items = sib.items
    if not items:
        return
    live[2] += len(items)
    lo, hi = kl.lo, kl.hi
    tj = TS[j]
    ext = rn.ext
    counted = not rn.store
    out = []
    one = (j,)
    for z in rn.join((k, k, one), items):
        key = z[2:-1] if side == 1 else z[3:]
        got = ext.get(key)
        if got is None:
            got = ext[key] = [z[0], []]
            ts = [one]
        else:
            old = got[1]
            live[2] += len(old)
            ts = [one] + [t + one for t in old if TS[t[-1]] < tj]
        mn = got[0]
        if hi is None and lo == 1:
            got[1].extend(ts)
            if counted:
                live[0] += len(ts)
        else:
            for t in ts:
                if hi is None or len(t) < hi:
                    got[1].append(t)
                    live[0] += counted or len(t) < lo
            ts = [t for t in ts if len(t) >= lo]
        if side == 1:
            out += [(mn, k) + key + (t,) for t in ts]
        else:
            out += [(mn, k, t) + key for t in ts]
    if live[0] > live[1]:
        live[1] = live[0]
        if live[1] > cap:
            raise PartialMatchLimitError(f"more than {cap:,} live partial matches")
    if live[2] > wcap:
        raise WorkLimitError(f"the joins examined more than {wcap:,} candidate combinations")
    if rn.roots or rn.ups:
        for x in out:
            push(rn, x)
    elif rn.store:  # what push does for a node nobody joins or reports from
        rn.items += out
        live[0] += len(out)
        if live[0] > live[1]:
            live[1] = live[0]
            if live[1] > cap:
                raise PartialMatchLimitError(f"more than {cap:,} live partial matches")


def _expire(rn: _RNode, thr: float) -> int:
    """Drop a start-anchored node's growing Kleene tuples whose sibling instance left the window;
    the number of counted partial matches dropped."""
    gone = [key for key, (mn, _) in rn.ext.items() if mn < thr]
    lo = rn.anchor[1].lo
    n = 0
    for key in gone:
        ts = rn.ext.pop(key)[1]
        n += len(ts) if not rn.store else sum(len(t) < lo for t in ts)
    return n
