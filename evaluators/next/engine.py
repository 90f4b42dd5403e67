"""The streaming operator engine for NEXT patterns: one object per operator, events pushed through.

    result = run_queries([p1, p2, ...], stream, share=True)
    result.queries[i].count / .matches        # composite events of query i
    result.operators                           # per operator: kind, AOT key, CPU seconds, items in/out

Each pattern's operator tree (:func:`cep.next_algebra.operator_tree`, the grouping is the plan) is
compiled into operator objects, as NEXT deploys one automaton per operator (Section 5, Fig. 8).
With ``share=True`` operators with equal abstract operator trees (:func:`cep.next_algebra.aot`) are
built once and feed every query that contains them -- the reuse of Section 4.4.  The engine walks
the stream in *instants* (all events with one timestamp, or a timer point); at each instant the
operators that received items run children-first.  A next operator keeps one waiting instance per
left item and, when right items arrive, completes every instance whose successor they are: the
bursts of Section 4.2.  Items are tuples ``(times, slots, failed, guard)``; ``slots`` follows the
operator's variable order (``aot``'s), so predicates index tuples instead of building bindings.

CPU per operator is *measured*: the thread CPU time (``time.thread_time_ns``) of every call of the
operator, minus the measured cost of reading that clock; the dispatch between operators is counted
apart (``dispatch_cpu_s``).  This is what NEXT's CPU capacity model consumes
(:mod:`algorithms.next.capacity`).
"""

from __future__ import annotations

import heapq
import math
import pickle
import statistics
import time
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from typing import Callable, Sequence

import cep.next_algebra as algebra
from cep.conditions import Comparison, comparison_source, expression_divides
from cep.events import Event
from cep.matches import Match
from evaluators.timing import no_cyclic_gc

NEG_INF = -math.inf
_clock = time.thread_time_ns


def clock_overhead_ns(samples: int = 2000) -> float:
    """The median cost of one ``thread_time_ns`` reading (subtracted from every timed call)."""
    costs = []
    for _ in range(samples):
        a = _clock()
        b = _clock()
        costs.append(b - a)
    return float(statistics.median(costs))


def _key(times: tuple) -> tuple:
    return tuple(reversed(times)) + (math.inf,)


def _condition_function(c: Comparison, args: tuple[str, ...]) -> Callable[..., bool]:
    """``f(*events)`` for one comparison, one event per variable of ``args`` (a division by zero
    makes it false), generated from the condition (:func:`cep.conditions.comparison_source`)."""
    names = {v: f"_v{i}" for i, v in enumerate(args)}
    body = comparison_source(c, lambda a: f"{names[a.var]}.attrs[{a.name!r}]")
    src = f"def _cond({', '.join(names[v] for v in args)}):\n"
    if expression_divides(c.left) or expression_divides(c.right):
        src += f"    try:\n        return {body}\n    except ZeroDivisionError:\n        return False\n"
    else:
        src += f"    return {body}\n"
    ns: dict = {}
    exec(compile(src, f"<condition {c}>", "exec"), ns)  # noqa: S102 - generated from our own AST
    return ns["_cond"]


def _compile(conds: Sequence[Comparison], order: Sequence[str]) -> Callable[[tuple], bool] | None:
    """One callable over a slots tuple: every condition whose slots are all bound holds."""
    if not conds:
        return None
    pos = {v: i for i, v in enumerate(order)}
    parts = []
    for c in conds:
        args = tuple(sorted(c.variables))
        parts.append((_condition_function(c, args), tuple(pos[v] for v in args)))

    def check(slots: tuple) -> bool:
        for fn, idx in parts:
            vals = [slots[i] for i in idx]
            if any(v is None for v in vals):
                continue
            if not fn(*vals):
                return False
        return True

    return check


# ---- operators ----------------------------------------------------------------------------------------
class Operator:
    """Base of the operator objects; ``step(t, inputs)`` gets one list of items per input edge."""

    kind = "operator"
    n_inputs = 1
    eager = False  # stateless per item: run as soon as items arrive, ``step(t, edge, items)``

    def __init__(self, node: algebra.OpNode, order: tuple[str, ...], key: tuple) -> None:
        self.node = node
        self.order = order
        self.key = key
        self.window = node.window
        self.parents: list[tuple["Operator", int]] = []
        self.sinks: list["QueryResult"] = []
        self.inputs: list["Operator"] = []
        self.topo = -1
        self.cpu_ns = 0
        self.calls = 0
        self.items_in = 0
        self.items_out = 0

    def step(self, t: float, inputs: list[list]) -> list:
        raise NotImplementedError

    def later(self) -> list[tuple[float, list]]:
        """Items this operator emits at later instants (timers); drained by the engine."""
        return []


class FilterOp(Operator):
    kind = algebra.FILTER
    eager = True

    def __init__(self, node, order, key):
        super().__init__(node, order, key)
        self.check = _compile(node.filters, order)

    def step(self, t, edge, items):
        check = self.check
        return [it for it in items if check(it[1])]


class UnionOp(Operator):
    kind = algebra.UNION
    n_inputs = 2
    eager = True

    def __init__(self, node, order, key, widths: tuple[int, int]):
        super().__init__(node, order, key)
        self.pad_right = (None,) * widths[1]
        self.pad_left = (None,) * widths[0]

    def step(self, t, edge, items):
        if edge == 0:
            pr = self.pad_right
            return [(it[0], it[1] + pr, it[2], it[3]) for it in items]
        pl = self.pad_left
        return [(it[0], pl + it[1], it[2], it[3]) for it in items]


class NextOp(Operator):
    """``E1 ; E2``: instances wait for the immediate successor (complete-history order)."""

    kind = algebra.NEXT
    n_inputs = 2

    def __init__(self, node, order, key):
        super().__init__(node, order, key)
        self.skip = _compile(node.skip, order)
        self.fail = _compile(node.fail, order)
        self.waiting: list = []  # left items, in order of their end time
        self.ends: list[float] = []
        self.steps = 0

    def step(self, t, inputs):
        left, right = inputs
        out: list = []
        w = self.window
        if right and self.waiting:
            if self.skip is None and len(right) == 1:
                r = right[0]
                n = bisect_left(self.ends, r[0][0])  # instances that ended before r started
                self._emit(self.waiting[:n], [r], out)
                del self.waiting[:n]
                del self.ends[:n]
            else:
                self._resolve_general(right, out)
        for it in left:
            self.waiting.append(it)
            self.ends.append(it[0][-1])
        self.steps += 1
        if self.steps & 255 == 0 and self.waiting and t - self.waiting[0][0][0] > w:
            keep = [(it, e) for it, e in zip(self.waiting, self.ends) if t - it[0][0] <= w]
            self.waiting = [it for it, _ in keep]
            self.ends = [e for _, e in keep]
        return out

    def _emit(self, lefts, rights, out) -> None:
        w, fail = self.window, self.fail
        for l in lefts:
            lt, ls, lf, lg = l
            lte = lt[-1]
            for r in rights:
                times = lt + r[0]
                if times[-1] - times[0] > w:
                    continue
                slots = ls + r[1]
                failed = lf or r[2] or r[3] > lte or (fail is not None and not fail(slots))
                out.append((times, slots, failed, lg))

    def _resolve_general(self, right, out) -> None:
        """Several right items (or skip predicates): each instance takes the first item in the
        complete-history order that starts after it (and passes the skip predicates), with its ties."""
        ranked = sorted(right, key=lambda r: _key(r[0]))
        keys = [_key(r[0]) for r in ranked]
        keep, keep_ends = [], []
        skip = self.skip
        if skip is None:
            # in key order, the first item starting after an instance is where the running maximum
            # of the start times first exceeds the instance's end
            starts, m = [], NEG_INF
            for r in ranked:
                m = r[0][0] if r[0][0] > m else m
                starts.append(m)
            for l, lte in zip(self.waiting, self.ends):
                i = bisect_right(starts, lte)
                if i == len(ranked):
                    keep.append(l)
                    keep_ends.append(lte)
                    continue
                j = i + 1
                while j < len(ranked) and keys[j] == keys[i]:
                    j += 1
                self._emit([l], ranked[i:j], out)
            self.waiting, self.ends = keep, keep_ends
            return
        for l, lte in zip(self.waiting, self.ends):
            best = None
            chosen = []
            for r, k in zip(ranked, keys):
                if best is not None and k != best:
                    break
                if r[0][0] > lte and skip(l[1] + r[1]):
                    best = k
                    chosen.append(r)
            if chosen:
                self._emit([l], chosen, out)
            else:
                keep.append(l)
                keep_ends.append(lte)
        self.waiting, self.ends = keep, keep_ends


class IterationOp(Operator):
    """``E +{lo,hi}``: one run per start element, extended by each immediate successor."""

    kind = algebra.ITERATION

    def __init__(self, node, order, key):
        super().__init__(node, order, key)
        self.lo = node.expr.min_size
        self.hi = node.expr.max_size
        self.runs: list[tuple[tuple, tuple]] = []  # (times, events)

    def step(self, t, inputs):
        elems = inputs[0]
        lo, hi, w = self.lo, self.hi, self.window
        out = []
        runs = []
        for times, evs in self.runs:
            if t - times[0] > w:
                continue
            for it in elems:
                nt, ne = times + it[0], evs + it[1]
                n = len(ne)
                if n >= lo:
                    out.append((nt, (ne,), False, NEG_INF))
                if hi is None or n < hi:
                    runs.append((nt, ne))
        for it in elems:
            if lo <= 1:
                out.append((it[0], (it[1],), False, NEG_INF))
            if hi is None or hi > 1:
                runs.append((it[0], it[1]))
        self.runs = runs
        return out


class ExceptOp(Operator):
    """``E \\ F``: items of E get the latest start of an F result that ended before them as guard."""

    kind = algebra.EXCEPT
    n_inputs = 2

    def __init__(self, node, order, key, f_order: tuple[str, ...]):
        super().__init__(node, order, key)
        self.lam = _compile(node.lam, order + f_order)
        self.latest = NEG_INF  # without lambda: the latest start of any F result so far
        self.fails: list = []  # with lambda: recent F results

    def step(self, t, inputs):
        xs, fs = inputs
        out = []
        if xs:
            if self.lam is None:
                g0 = self.latest
                out = [(x[0], x[1], x[2], x[3] if x[3] >= g0 else g0) for x in xs]
            else:
                lam = self.lam
                for x in xs:
                    g = x[3]
                    for f in self.fails:
                        if f[0][0] > g and lam(x[1] + f[1]):
                            g = f[0][0]
                    out.append((x[0], x[1], x[2], g))
        for f in fs:
            if f[2] or f[3] > f[0][0]:
                continue  # not a result of F
            if self.lam is None:
                if f[0][0] > self.latest:
                    self.latest = f[0][0]
            else:
                self.fails.append(f)
        if self.fails and t - self.fails[0][0][0] > self.window:
            self.fails = [f for f in self.fails if t - f[0][0] <= self.window]
        return out


class TimeOp(Operator):
    """``E @ s``: each item of E again at ``te + s``, with that timer point appended."""

    kind = algebra.TIME

    def __init__(self, node, order, key):
        super().__init__(node, order, key)
        self.seconds = node.expr.seconds
        self.pending: list = []

    def step(self, t, inputs):
        s, w = self.seconds, self.window
        for it in inputs[0]:
            fire = it[0][-1] + s
            if fire - it[0][0] <= w:
                self.pending.append((fire, (it[0] + (fire,), it[1], it[2], it[3])))
        return []

    def later(self):
        out, self.pending = self.pending, []
        return out


@dataclass
class QueryResult:
    """What one query detected: the count, and the matches when collected."""

    name: str
    variables: tuple[str, ...]
    root: Operator | None
    count: int = 0
    matches: list[Match] = field(default_factory=list)
    collect: bool = True

    def accept(self, items: list) -> None:
        for times, slots, failed, guard in items:
            if failed or guard > times[0]:
                continue
            self.count += 1
            if self.collect:
                self.matches.append(Match.from_binding({v: x for v, x in zip(self.variables, slots) if x is not None}))


@dataclass
class OperatorStats:
    """Measured facts of one operator: CPU seconds, calls, items in and out, and its AOT digest."""

    digest: str
    kind: str
    cpu_s: float
    calls: int
    items_in: int
    items_out: int
    queries: tuple[int, ...]


@dataclass
class RunResult:
    queries: list[QueryResult]
    operators: list[OperatorStats]
    events: int
    stream_seconds: float
    elapsed_s: float
    operator_cpu_s: float  # CPU of the operators' own steps (0 when not measured)
    dispatch_cpu_s: float  # the rest: the engine handing items on (includes clock readings when measured)
    total_cpu_s: float  # thread CPU of the whole run

    @property
    def detections(self) -> int:
        return sum(q.count for q in self.queries)


# ---- compiling and running -------------------------------------------------------------------------------
class Engine:
    """Compiled operators of several NEXT patterns over one stream (see the module docstring)."""

    def __init__(self, patterns: Sequence[algebra.NextPattern], *, share: bool = True, collect: bool = True) -> None:
        self.ops: list[Operator] = []
        self.by_key: dict[tuple, Operator] = {}
        self.source_consumers: dict[str, list[tuple[Operator, int]]] = {}
        self.source_sinks: dict[str, list[QueryResult]] = {}
        self.share = share
        self.queries: list[QueryResult] = []
        self.op_queries: dict[int, set[int]] = {}
        for qi, p in enumerate(patterns):
            root = p.operators
            key, order = algebra.aot(root)
            op = self._build(root, qi)
            q = QueryResult(p.name or f"Q{qi + 1}", order, op, collect=collect)
            if op is None:  # a bare source
                self.source_sinks.setdefault(root.expr.type, []).append(q)
            else:
                op.sinks.append(q)
            self.queries.append(q)

    def _build(self, node: algebra.OpNode, qi: int) -> Operator | None:
        """The operator of ``node`` (None for a bare source, whose items the engine makes)."""
        if node.kind == algebra.SOURCE:
            return None
        key, order = algebra.aot(node)
        if self.share and key in self.by_key:
            op = self.by_key[key]
            self._mark(op, qi)
            return op
        if node.kind == algebra.FILTER:
            op: Operator = FilterOp(node, order, key)
            inputs = [(algebra.OpNode(algebra.SOURCE, node.expr, (), node.variables), None)]
        else:
            kids = list(node.children)
            if node.kind == algebra.UNION and algebra.aot(kids[1])[0] < algebra.aot(kids[0])[0]:
                kids = [kids[1], kids[0]]
            inputs = [(c, self._build(c, qi)) for c in kids]
            if node.kind == algebra.UNION:
                op = UnionOp(node, order, key, (len(algebra.aot(kids[0])[1]), len(algebra.aot(kids[1])[1])))
            elif node.kind == algebra.NEXT:
                op = NextOp(node, order, key)
            elif node.kind == algebra.ITERATION:
                op = IterationOp(node, order, key)
            elif node.kind == algebra.EXCEPT:
                op = ExceptOp(node, order, key, algebra.aot(kids[1])[1])
            else:
                op = TimeOp(node, order, key)
        for edge, (c, cop) in enumerate(inputs):
            if cop is None:
                self.source_consumers.setdefault(c.expr.type, []).append((op, edge))
            else:
                cop.parents.append((op, edge))
        op.inputs = [cop for _, cop in inputs if cop is not None]
        op.topo = len(self.ops)
        self.ops.append(op)
        if self.share:
            self.by_key[key] = op
        self._mark(op, qi)
        return op

    def _mark(self, op: Operator, qi: int) -> None:
        qs = self.op_queries.setdefault(op.topo, set())
        if qi in qs:
            return
        qs.add(qi)
        for c in op.inputs:
            self._mark(c, qi)

    def run(self, stream: Sequence[Event], *, measure: bool = True) -> RunResult:
        overhead = int(clock_overhead_ns()) if measure else 0
        clock = _clock
        ops = self.ops
        pending: dict[int, list[list]] = {}
        heap: list[int] = []
        timers: list[tuple[float, int, int, list]] = []  # (time, seq, op topo, items)
        seq = 0
        start_wall = time.perf_counter()
        start_cpu = clock()
        op_cpu = [0]
        n = len(stream)
        i = 0
        heappush, heappop = heapq.heappush, heapq.heappop

        def emit(op: Operator, t: float, out: list) -> None:
            op.items_out += len(out)
            for q in op.sinks:
                q.accept(out)
            for parent, edge in op.parents:
                push(parent, edge, t, out)

        def push(op: Operator, edge: int, t: float, items: list) -> None:
            if op.eager:
                op.items_in += len(items)
                op.calls += 1
                if measure:
                    c0 = clock()
                    out = op.step(t, edge, items)
                    spent = clock() - c0 - overhead
                    if spent > 0:
                        op.cpu_ns += spent
                        op_cpu[0] += spent
                else:
                    out = op.step(t, edge, items)
                if out:
                    emit(op, t, out)
                return
            slot = pending.get(op.topo)
            if slot is None:
                slot = pending[op.topo] = [[], []]
                heappush(heap, op.topo)
            slot[edge].extend(items)

        consumers, source_sinks = self.source_consumers, self.source_sinks
        while i < n or timers:
            t_stream = stream[i].ts if i < n else math.inf
            t = min(t_stream, timers[0][0] if timers else math.inf)
            if t_stream == t:
                j = i
                by_type: dict[str, list] = {}
                while j < n and stream[j].ts == t:
                    e = stream[j]
                    by_type.setdefault(e.type, []).append(((t,), (e,), False, NEG_INF))
                    j += 1
                i = j
                for typ, items in by_type.items():
                    for q in source_sinks.get(typ, ()):
                        q.accept(items)
                    for op, edge in consumers.get(typ, ()):
                        push(op, edge, t, items)
            while timers and timers[0][0] == t:
                _, _, topo, items = heappop(timers)
                emit(ops[topo], t, items)
            while heap:
                topo = heappop(heap)
                op = ops[topo]
                inputs = pending.pop(topo)
                op.items_in += len(inputs[0]) + len(inputs[1])
                op.calls += 1
                if measure:
                    c0 = clock()
                    out = op.step(t, inputs)
                    spent = clock() - c0 - overhead
                    if spent > 0:
                        op.cpu_ns += spent
                        op_cpu[0] += spent
                else:
                    out = op.step(t, inputs)
                if op.kind is algebra.TIME:
                    for fire, item in op.later():
                        heappush(timers, (fire, seq, topo, [item]))
                        seq += 1
                if out:
                    emit(op, t, out)
        op_cpu_total = op_cpu[0]
        total_cpu = _clock() - start_cpu
        elapsed = time.perf_counter() - start_wall
        stats = [
            OperatorStats(
                algebra.aot_digest(op.key), op.kind, op.cpu_ns / 1e9, op.calls, op.items_in, op.items_out,
                tuple(sorted(self.op_queries.get(op.topo, ()))),
            )
            for op in ops
        ]
        span = stream[-1].ts - stream[0].ts if n > 1 else 0.0
        return RunResult(self.queries, stats, n, span, elapsed, op_cpu_total / 1e9,
                         max(0.0, (total_cpu - op_cpu_total) / 1e9), total_cpu / 1e9)


def run_queries(patterns: Sequence[algebra.NextPattern], stream: Sequence[Event], *, share: bool = True,
                collect: bool = True, measure: bool = True) -> RunResult:
    """Compile ``patterns`` (sharing equal operators when ``share``) and run them over ``stream``.

    The cyclic garbage collector is paused during the run (:func:`evaluators.timing.no_cyclic_gc`:
    the engine builds no reference cycles, and the collector's periodic scans of the many live
    tuples would be charged to whichever operator triggered them)."""
    engine = Engine(patterns, share=share, collect=collect)
    with no_cyclic_gc():
        return engine.run(stream, measure=measure)


def detect(pattern: algebra.NextPattern, stream: Sequence[Event]) -> list[Match]:
    """The composite events of one pattern, sorted (the engine's answer to the reference's)."""
    return sorted(run_queries([pattern], stream, measure=False).queries[0].matches)


def network_cost(items: Sequence, repeats: int = 200) -> tuple[float, float]:
    """Measured CPU seconds to send and to receive one event between nodes: pickling an item into
    bytes, and unpickling it (the marshalling a NEXT operator's Output and Input processes do,
    Fig. 8), per item, median over ``repeats`` passes over ``items``."""
    assert items, "network_cost needs sample items"
    overhead = clock_overhead_ns()
    send, recv = [], []
    for _ in range(repeats):
        c0 = _clock()
        blobs = [pickle.dumps(it, protocol=5) for it in items]
        c1 = _clock()
        for b in blobs:
            pickle.loads(b)
        c2 = _clock()
        send.append((c1 - c0 - overhead) / len(items))
        recv.append((c2 - c1 - overhead) / len(items))
    return statistics.median(send) / 1e9, statistics.median(recv) / 1e9


def sample_items(stream: Sequence[Event], sizes: Sequence[int] = (1, 2, 3, 4, 6)) -> list:
    """Items of the sizes composite events have (``sizes`` consecutive events each), for
    :func:`network_cost`."""
    out = []
    for k in sizes:
        evs = tuple(stream[:k])
        if len(evs) == k:
            out.append((tuple(e.ts for e in evs), evs, False, NEG_INF))
    return out
