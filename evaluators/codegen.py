"""Compile join plans into one specialised Python function: the per-event hot loop.

Profiling the interpreted design (instance objects, condition callables, dict bindings) showed the
time going to attribute lookups, calls and allocation rather than to the joins themselves, so the
evaluators generate the loop instead: for each event type one block, for each variable of that type
the join path from its leaf to the root unrolled into nested ``for`` loops over the sibling
buffers, with every check of :mod:`evaluators.join_plan` inlined as a comparison between list
lookups.  In the generated code

  * an event is its index ``j`` into the filtered stream; ``TS``, ``KEY`` (the window key: timestamp
    or stream position), ``P`` (stream position) and the attribute columns ``A0, A1, ...`` are lists;
  * a leaf buffer of a variable holds event indices; a Kleene leaf holds tuples of indices in stream
    order (every subset, JQPG Section 4: KL); an internal node holds tuples ``(m, slot, ...)`` where
    ``m`` is the smallest event index of the instance and the slots follow the node's leaf order;
  * ``fp`` is the window frontier: the first index whose key lies within the window of the newest
    event; an instance with ``m < fp`` has expired (``cnt[m]`` counts live partial matches by ``m``
    and ``cntb[m]`` live buffered events, so expiry subtracts them from ``live`` and ``buf`` exactly,
    while the lists are trimmed lazily).  Under strict contiguity a match spans at most as many
    stream positions as it has events, so the frontier also moves past every index more than that
    many positions back (``CSPAN``);
  * ``work`` counts the candidate combinations the joins examine (the entries of every sibling list
    a join scans), so that a run whose joins examine too many stops at a cap, as one that stores
    too many partial matches does; the cap is checked before every scan, so that no single event
    can complete an unbounded number of matches; ``w0`` holds ``work`` as event ``j`` arrived, so
    that the runtime learns the candidates examined from a match's last event to its report (its
    latency work, :func:`evaluators.engine.latency_work_mean`);
  * a full match of clause ``k`` is appended to ``B`` as ``(k, slots)`` (slots in the clause's
    positive-variable order), or, when the clause has negated variables, parked in ``PDk`` until its
    release point (:mod:`cep.semantics`, "Release") with its last event's ``t0`` and ``w0``.

A join path nested deeper than :data:`MAX_NESTING` loops (Python allows 20 nested blocks) continues
in a generated function ``UP<k>_<node>`` that takes the new instance of that node, so patterns of
any size compile.

The runtime (:mod:`evaluators.runtime`) orders, selects and reports what the loop produces.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from cep.conditions import Attr, Comparison, comparison_source, expression_divides
from cep.pattern import SeqOrder, Strategy, WindowKind

from evaluators.join_plan import JoinNode, JoinPlan


#: the deepest loop nesting of a join path before it continues in a function of its own
MAX_NESTING = 15


@dataclass
class ListSpec:
    """A stored list of the generated code, for the runtime's trimming and purging.  Entries of an
    "event" list are buffered events (``cntb``); entries of "kleene" and "node" lists are partial
    matches (``cnt``); "negation" lists are not state of the match search."""

    name: str
    layout: str  # "event" (event indices), "kleene" (tuples of indices), "node" (tuples (m, slots...)), "negation"
    slot_kinds: tuple[bool, ...] = ()  # for "node": True where a slot is a Kleene tuple


@dataclass
class ClauseInfo:
    """What the runtime needs of one clause: its positive variables (the slots of its matches, with
    which are Kleene) and the name of its list of parked matches if it has negated variables."""

    index: int
    positive: tuple[str, ...]
    kleene: tuple[bool, ...]
    has_negation: bool
    pending: str  # name of its pending list ("" when no negation)


@dataclass
class Program:
    """A compiled pattern: the generated ``run(rt)`` (and its source), the report functions, and what
    :mod:`evaluators.runtime` needs to prepare the columns and lists the generated code reads."""

    source: str
    run: object
    type_names: tuple[str, ...]  # pattern type code -> type name
    attributes: tuple[str, ...]  # attribute column index -> attribute name
    lists: list[ListSpec]
    clauses: list[ClauseInfo]
    window_kind: WindowKind
    span_limit: float
    position_span: int | None  # strict contiguity: the largest position span of a match (None: unbounded)
    strategy: Strategy
    partition_attribute: str | None
    kind: str
    plans: list[JoinPlan] = field(default_factory=list)
    meter: bool = False
    report_source: str = ""
    make_report: object = None


class _Src:
    """Lines of generated source at a current indentation depth: ``src(line)`` appends one."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.depth = 0

    def __call__(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def indent(self) -> None:
        self.depth += 1

    def dedent(self, k: int = 1) -> None:
        self.depth -= k

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


#: bytes of state entries in CPython 3.11 (64-bit): a list slot is 8, a tuple of n items 40 + 8n,
#: an int above 256 is 28 (an event index, kept alive by the buffer that holds it)
BUFFERED_EVENT_BYTES = 8 + 28


def node_entry_bytes(slots: int) -> int:
    """A partial match ``(m, slot, ...)`` with ``slots`` slots: its list slot and its tuple."""
    return 8 + 40 + 8 * (slots + 1)


KLEENE_ENTRY_BYTES = "(48 + 8 * len(s))"  # list slot + tuple of the subset's indices


class _Names:
    """Identifiers of the generated code."""

    def __init__(self, meter: bool = False) -> None:
        self.meter = meter
        self.attrs: dict[str, int] = {}
        self.helpers: list[str] = []  # source of helper functions (defined inside run)
        self.n_helpers = 0

    def attr(self, name: str) -> str:
        return f"A{self.attrs.setdefault(name, len(self.attrs))}"


def compile_program(plans: list[JoinPlan], *, kind: str, meter: bool = False) -> Program:
    """Generate and compile the hot loop for the clauses of one pattern (one join plan each).

    ``meter``: also count the bytes of the state (``nbytes``, peak ``peakbytes``; entry sizes as
    :data:`BUFFERED_EVENT_BYTES` and :func:`node_entry_bytes`) -- for an untimed memory run."""
    sp0 = plans[0].sp
    names = _Names(meter)
    type_names = _type_names(plans)
    lists: list[ListSpec] = []
    clause_gens = [_ClauseGen(jp, names, lists) for jp in plans]
    position_span = _position_span(plans)
    blocks = _event_blocks(clause_gens, type_names)  # first: it names the columns and helpers run binds
    text = _run_source(blocks, clause_gens, names, lists, position_span)
    report_text = _report_source(clause_gens)
    return Program(
        report_source=report_text,
        make_report=_define(report_text, f"<report functions for {sp0.name}>", "make_report"),
        source=text,
        run=_define(text, f"<{kind} evaluator for {sp0.name}>", "run"),
        type_names=tuple(type_names),
        attributes=tuple(names.attrs),
        lists=lists,
        clauses=[cg.info for cg in clause_gens],
        window_kind=sp0.window.kind,
        span_limit=float(sp0.window.span_limit),
        position_span=position_span,
        strategy=sp0.strategy,
        partition_attribute=sp0.partition_attribute,
        kind=kind,
        plans=list(plans),
        meter=meter,
    )


def _define(text: str, filename: str, name: str) -> Callable:
    """Compile generated source and return the function ``name`` it defines."""
    ns: dict = {}
    exec(compile(text, filename, "exec"), ns)  # noqa: S102 - generated from our own plan
    return ns[name]


def _type_names(plans: list[JoinPlan]) -> list[str]:
    """The event types of the clauses in order of first mention: a type's code in the generated
    code is its index here."""
    type_names: list[str] = []
    for jp in plans:
        for v in jp.sp.variables:
            if v.type not in type_names:
                type_names.append(v.type)
    return type_names


def _event_blocks(clause_gens: list["_ClauseGen"], type_names: list[str]) -> _Src:
    """The per-event dispatch: for each event type code ``c`` one block, in which every negated
    variable of the type buffers the event (and kills parked matches) before every positive variable
    of the type runs its join path up to the root."""
    blocks = _Src()
    blocks.depth = 2
    for code, tname in enumerate(type_names):
        blocks(f"{'if' if code == 0 else 'elif'} c == {code}:  # {tname!r}")
        blocks.indent()
        start = len(blocks.lines)
        for cg in clause_gens:
            for n in cg.sp.negated:
                if cg.sp.type_of(n) == tname:
                    cg.negation_block(blocks, n)
        for cg in clause_gens:
            for v in cg.sp.positive:
                if cg.sp.type_of(v) == tname:
                    cg.leaf_block(blocks, v)
        if len(blocks.lines) == start:
            blocks("pass")
        blocks.dedent()
    return blocks


def _run_source(blocks: _Src, clause_gens: list["_ClauseGen"], names: _Names, lists: list[ListSpec],
                position_span: int | None) -> str:
    """``def run(rt)``: the runtime's state bound to locals, the loop over the events (window
    frontier, release of parked matches, the event's block, bookkeeping), the state stored back."""
    meter = names.meter
    src = _Src()
    src("def run(rt):")
    src.indent()
    _bind_state(src, clause_gens, names, lists)
    src("for j in range(rt.n):")
    src.indent()
    src("t0 = perf(); w0 = work")
    _advance_frontier(src, meter, position_span)
    if any(cg.info.pending for cg in clause_gens):
        _release_parked(src, meter)
    src("c = T[j]")
    src.lines.extend(blocks.lines)
    _bookkeeping(src, meter)
    src.dedent()
    src("rt.live = live; rt.buf = buf; rt.peak = peak; rt.peakb = peakb; rt.peaks = peaks; rt.tot = tot")
    src("rt.fp = fp; rt.npend = npend; rt.relT = relT; rt.work = work")
    if meter:
        src("rt.peakbytes = peakbytes")
    return src.text()


def _bind_state(src: _Src, clause_gens: list["_ClauseGen"], names: _Names, lists: list[ListSpec]) -> None:
    """The runtime's columns, lists, counters and callbacks as locals of ``run`` (a local is the
    cheapest lookup), then the helper functions, defined inside ``run`` to share them."""
    src("TS = rt.TS; KEY = rt.KEY; T = rt.T; P = rt.P; cnt = rt.cnt; cntb = rt.cntb; B = rt.B")
    if names.meter:
        src("byt = rt.byt; nbytes = 0; peakbytes = 0")
    src("PA = rt.PA; PP = rt.PP")
    for name, i in names.attrs.items():
        src(f"A{i} = rt.columns[{i}]  # {name!r}")
    for ls in lists:
        src(f"{ls.name} = rt.lists[{ls.name!r}]")
    for cg in clause_gens:
        if cg.info.pending:
            src(f"{cg.info.pending} = rt.pending[{cg.k}]")
    src("perf = rt.perf; rt_flush = rt.flush; rt_release = rt.release; rt_trim = rt.trim; rt_cap = rt.cap_exceeded")
    src("bisect_right = rt.bisect_right")
    src("cap = rt.cap; SPAN = rt.span_limit; W = rt.window_size; CSPAN = rt.position_span")
    src("live = rt.live; buf = rt.buf; peak = rt.peak; peakb = rt.peakb; peaks = rt.peaks; tot = rt.tot")
    src("fp = rt.fp; npend = rt.npend; relT = rt.relT; j = 0; t0 = 0.0; work = rt.work; w0 = work; wcap = rt.work_cap; rt_work = rt.work_exceeded")
    for h in names.helpers:
        for line in h.splitlines():
            src(line)


def _advance_frontier(src: _Src, meter: bool, position_span: int | None) -> None:
    """Move the window frontier ``fp`` past the events that left the window of event ``j`` (and,
    under strict contiguity, past those more than ``CSPAN`` positions back), subtracting their
    partial matches and buffered events from ``live`` and ``buf``."""
    expire = ["    live -= cnt[fp]", "    buf -= cntb[fp]"] + (["    nbytes -= byt[fp]"] if meter else []) + ["    fp += 1"]
    src("thr = KEY[j] - SPAN")
    src("while KEY[fp] < thr:")
    src.lines.extend("    " * src.depth + line for line in expire)
    if position_span is not None:
        src("thr = P[j] - CSPAN")
        src("while P[fp] < thr:")
        src.lines.extend("    " * src.depth + line for line in expire)


def _release_parked(src: _Src, meter: bool) -> None:
    """Once event ``j`` is past the earliest release time ``relT``, the runtime releases the parked
    matches of clauses with negation that no event can kill any more (:mod:`cep.semantics`, "Release")."""
    src("if npend and TS[j] > relT:")
    src("    pl, pb, pby = rt_release(j, fp, work)")
    src("    live -= pl; buf -= pb")
    if meter:
        src("    nbytes -= pby")
    src("    npend = rt.npend; relT = rt.relT")


def _bookkeeping(src: _Src, meter: bool) -> None:
    """After an event's block: the running sum and peaks of the state, the caps, the flush of the
    event's matches to the runtime, and every 256 events the trimming of expired list entries."""
    src("tot += live")
    src("if live > peak:")
    src("    peak = live")
    src("    if live > cap:")
    src("        rt_cap(live)")
    src("if work > wcap:")
    src("    rt_work(work)")
    src("if buf > peakb:")
    src("    peakb = buf")
    src("if live + buf > peaks:")
    src("    peaks = live + buf")
    if meter:
        src("if nbytes > peakbytes:")
        src("    peakbytes = nbytes")
    src("if B:")
    src("    pl, pb, pby = rt_flush(j, t0, work - w0, fp)")
    src("    live -= pl; buf -= pb")
    if meter:
        src("    nbytes -= pby")
    src("if not j & 255:")
    src("    rt_trim(j, fp)")


def _position_span(plans: list[JoinPlan]) -> int | None:
    """Under strict contiguity, the largest ``max P - min P`` of a match of any clause (its number of
    events minus one; Kleene variables at their largest size); None when unbounded or not strict."""
    if plans[0].sp.strategy is not Strategy.STRICT:
        return None
    spans = []
    for jp in plans:
        total = 0
        for v in jp.sp.positive:
            var = jp.sp.var[v]
            if v in jp.sp.kleene:
                if var.max_size is None:
                    return None
                total += var.max_size
            else:
                total += 1
        spans.append(total - 1)
    return max(spans)


class _ClauseGen:
    """The generated code of one clause's join plan: its names, checks, negation functions, and the
    join path of each positive variable from its leaf to the root."""

    def __init__(self, jp: JoinPlan, names: _Names, lists: list[ListSpec]) -> None:
        self.jp = jp
        self.sp = sp = jp.sp
        self.k = k = sp.index
        self.names = names
        self.var_index = {v.name: i for i, v in enumerate(sp.variables)}
        self.kleene = set(sp.kleene)
        self.strict = sp.seq_order is SeqOrder.STRICT
        pending = f"PD{k}" if sp.negated else ""
        self.info = ClauseInfo(k, sp.positive, tuple(v in self.kleene for v in sp.positive), bool(sp.negated), pending)
        for node in jp.nodes:
            if node.is_leaf:
                layout = "kleene" if node.var in self.kleene else "event"
                if node.is_root and layout == "event":
                    continue
                lists.append(ListSpec(self.list_name(node), layout))
            elif not node.is_root:
                lists.append(ListSpec(self.list_name(node), "node", tuple(v in self.kleene for v in node.vars)))
        for n in sp.negated:
            lists.append(ListSpec(self.neg_buffer(n), "negation"))
        self.kill_fns = {n: self._kill_function(n) for n in sp.negated}
        self.continuations: set[int] = set()
        self.nodes = {node.id: node for node in jp.nodes}

    # ---- names -----------------------------------------------------------------------------
    def x(self, v: str) -> str:
        return f"x{self.k}_{self.var_index[v]}"

    def list_name(self, node: JoinNode) -> str:
        return f"L{self.k}_{node.id}"

    def neg_buffer(self, n: str) -> str:
        return f"NB{self.k}_{self.var_index[n]}"

    # ---- expressions -------------------------------------------------------------------------
    def min_idx(self, v: str) -> str:
        return f"{self.x(v)}[0]" if v in self.kleene else self.x(v)

    def max_idx(self, v: str) -> str:
        return f"{self.x(v)}[-1]" if v in self.kleene else self.x(v)

    def before(self) -> str:
        return "<" if self.strict else "<="

    def order_check(self, u: str, v: str) -> str:
        return f"TS[{self.max_idx(u)}] {self.before()} TS[{self.min_idx(v)}]"

    def distinct_check(self, u: str, v: str) -> str:
        ku, kv = u in self.kleene, v in self.kleene
        if not ku and not kv:
            return f"{self.x(u)} != {self.x(v)}"
        if ku and kv:
            return f"set({self.x(u)}).isdisjoint({self.x(v)})"
        s, t = (u, v) if not ku else (v, u)
        return f"{self.x(s)} not in {self.x(t)}"

    def cond_check(self, c: Comparison, ref: dict[str, str] | None = None) -> str:
        """A Python expression that is true iff ``c`` holds (for every element of Kleene variables).
        ``ref`` overrides the expression of a variable's (single) event index."""
        ref = dict(ref or {})
        loops = []
        for v in sorted(c.variables):
            if v in ref:
                continue
            if v in self.kleene:
                e = f"e{self.k}_{self.var_index[v]}"
                loops.append(f"for {e} in {self.x(v)}")
                ref[v] = e
            else:
                ref[v] = self.x(v)
        inner = _cond_source(c, ref, self.names)
        return f"all({inner} {' '.join(loops)})" if loops else inner

    # ---- negation ----------------------------------------------------------------------------
    def _kill_args(self, n: str) -> list[str]:
        sp = self.sp
        same = [v for v in sp.positive if sp.type_of(v) == sp.type_of(n)]
        return sorted(set(sp.negation_dependencies(n)) | set(same), key=lambda v: self.var_index[v])

    def _kill_checks(self, n: str, src: _Src, x: str, fail: str, past: str) -> None:
        """Statements that fall through iff event ``x`` kills the binding through ``n``
        (cep.semantics, "Negation"); ``fail`` skips a candidate, ``past`` ends the scan (candidates
        come in stream order, so once one lies after the window or the successors, all later do)."""
        sp = self.sp
        pos = set(sp.positive)
        for v in sp.positive:
            if sp.type_of(v) == sp.type_of(n):
                src(f"if {x} in {self.x(v)}: {fail}" if v in self.kleene else f"if {x} == {self.x(v)}: {fail}")
        lt = self.before()
        # (a) against the neighbours in D(n) suffices: the binding orders the other positive
        # variables before (after) them, so the order to those follows
        dset = sp.negation_dependencies(n)
        for u in sorted(sp.preds[n] & pos & dset):
            src(f"if not (TS[{self.max_idx(u)}] {lt} TS[{x}]): {fail}")
        for v in sorted(sp.succs[n] & pos & dset):
            src(f"if not (TS[{x}] {lt} TS[{self.min_idx(v)}]): {past}")
        deps = sorted(dset, key=lambda v: self.var_index[v])
        lows = [f"KEY[{self.min_idx(d)}]" for d in deps]
        highs = [f"KEY[{self.max_idx(d)}]" for d in deps]
        lo = lows[0] if len(lows) == 1 else f"min({', '.join(lows)})"
        hi = highs[0] if len(highs) == 1 else f"max({', '.join(highs)})"
        src(f"if KEY[{x}] - ({lo}) > SPAN: {past}")
        src(f"if ({hi}) - KEY[{x}] > SPAN: {fail}")
        for c in sp.negation_conditions(n):
            if len(c.variables) > 1:
                src(f"if not {self.cond_check(c, {n: x})}: {fail}")

    def _kill_function(self, n: str) -> str:
        """Define ``K<k>_<n>(NB, start, *args)``: does an event of buffer NB from ``start`` on kill
        the binding?  And ``KO<k>_<n>(x, slots)``: does event ``x`` kill the full match ``slots``?"""
        i = self.var_index[n]
        args = self._kill_args(n)
        fn = f"K{self.k}_{i}"
        s = _Src()
        s(f"def {fn}(NB, start, {', '.join(self.x(a) for a in args)}):")
        s.indent()
        s("for i in range(start, len(NB)):")
        s.indent()
        s("x = NB[i]")
        self._kill_checks(n, s, "x", "continue", "return False")
        s("return True")
        s.dedent()
        s("return False")
        s.dedent()
        s(f"def KO{self.k}_{i}(x, slots):")
        s.indent()
        s(f"{', '.join(self.x(v) for v in self.sp.positive)}, = slots")
        self._kill_checks(n, s, "x", "return False", "return False")
        s("return True")
        self.names.helpers.append(s.text())
        return fn

    def kill_call(self, n: str, start: str) -> str:
        return f"{self.kill_fns[n]}({self.neg_buffer(n)}, {start}, {', '.join(self.x(a) for a in self._kill_args(n))})"

    def negation_block(self, src: _Src, n: str) -> None:
        """An event of a negated variable's type: buffer it (if its own conditions hold) and let it
        kill the parked matches it can still kill."""
        src(f"for x in (j,):  # NOT {n}")
        src.indent()
        for c in self.jp.unary[n]:
            src(f"if not {_cond_source(c, {n: 'x'}, self.names)}: continue")
        src(f"{self.neg_buffer(n)}.append(x)")
        pd = self.info.pending
        src(f"if {pd}:")
        src(f"    kept = [e for e in {pd} if not KO{self.k}_{self.var_index[n]}(x, e[3])]")
        src(f"    npend -= len({pd}) - len(kept)")
        src(f"    {pd}[:] = kept")
        src.dedent()

    # ---- positive paths ----------------------------------------------------------------------
    def leaf_block(self, src: _Src, v: str) -> None:
        """An event of a positive variable's type: the join path from its leaf to the root."""
        jp = self.jp
        leaf = jp.leaves[v]
        x = self.x(v)
        depth0 = src.depth
        if v in self.kleene:
            var = self.sp.var[v]
            name = self.list_name(leaf)
            src(f"for _ in (j,):  # KL {v}")
            src.indent()
            for c in jp.unary[v]:
                src(f"if not {_cond_source(c, {v: 'j'}, self.names)}: continue")
            src("new = [(j,)]")
            src(f"for s in {name}:")
            src("    if s[0] < fp: continue")
            if var.max_size is not None:
                src(f"    if len(s) >= {var.max_size}: continue")
            if self.strict:
                src("    if not (TS[s[-1]] < TS[j]): continue")
            for check in self.kleene_contiguity(v, "s[-1]", "j"):
                src(f"    if not ({check}): continue")
            src("    new.append(s + (j,))")
            src(f"{name}.extend(new)")
            src("for s in new:")
            src("    cnt[s[0]] += 1")
            if self.names.meter:
                src(f"    byt[s[0]] += {KLEENE_ENTRY_BYTES}; nbytes += {KLEENE_ENTRY_BYTES}")
            src("live += len(new)")
            src("if live > cap: rt_cap(live)")
            src(f"for {x} in new:")
            src.indent()
            if var.min_size > 1:
                src(f"if len({x}) < {var.min_size}: continue")
            m = f"{x}[0]"
        else:
            src(f"for {x} in (j,):  # {v}")
            src.indent()
            for c in jp.unary[v]:
                src(f"if not {_cond_source(c, {v: x}, self.names)}: continue")
            if not leaf.is_root:
                src(f"{self.list_name(leaf)}.append({x})")
                src(f"cntb[{x}] += 1")
                src("buf += 1")
                if self.names.meter:
                    src(f"byt[{x}] += {BUFFERED_EVENT_BYTES}; nbytes += {BUFFERED_EVENT_BYTES}")
            m = x
        self.path_up(src, leaf, m, nesting=2)
        src.depth = depth0

    def path_up(self, src: _Src, node: JoinNode, m: str, nesting: int) -> None:
        """From a new instance of ``node`` (smallest index ``m``) up to the root; past
        :data:`MAX_NESTING` loops the path continues in a function of its own."""
        level = 0
        while not node.is_root:
            if nesting >= MAX_NESTING:
                fn = self.continuation(node)
                src(f"{fn}({m}, {', '.join(self.x(v) for v in node.vars)})")
                return
            level += 1
            m = self.join_step(src, node, level, m)
            node = node.parent
            nesting += 1
        self.completion(src, m)

    def continuation(self, node: JoinNode) -> str:
        """``UP<k>_<id>(m, slots...)``: the rest of the join path above ``node`` for a new instance of
        it, defined inside the generated ``run`` (it shares the run's counters)."""
        fn = f"UP{self.k}_{node.id}"
        if node.id in self.continuations:
            return fn
        self.continuations.add(node.id)
        body = _Src()
        body(f"def {fn}(m0, {', '.join(self.x(v) for v in node.vars)}):")
        body.indent()
        body("nonlocal live, buf, npend, relT, work" + (", nbytes" if self.names.meter else ""))
        self.path_up(body, node, "m0", nesting=0)
        self.names.helpers.append(body.text())
        return fn

    def kleene_contiguity(self, v: str, prev: str, new: str) -> list[str]:
        """Checks that a Kleene element ``new`` may follow ``prev`` under the clause's contiguity."""
        if v not in self.jp.contiguous_kleene:
            return []
        st = self.sp.strategy
        if st is Strategy.STRICT:
            return [f"P[{prev}] + 1 == P[{new}]"]
        if st is Strategy.PARTITION:
            return [f"PA[{prev}] == PA[{new}]", f"PP[{prev}] + 1 == PP[{new}]"]
        return []

    def join_contiguity(self, node: JoinNode) -> list[str]:
        """Contiguity checks where the two children of ``node`` meet (:mod:`evaluators.join_plan`)."""
        st = self.sp.strategy
        if st not in (Strategy.STRICT, Strategy.PARTITION):
            return []
        key = "P" if st is Strategy.STRICT else "PP"
        out = [f"{key}[{self.max_idx(u)}] + 1 == {key}[{self.min_idx(v)}]" for u, v in node.adjacent_pairs]
        if st is Strategy.PARTITION:
            out.insert(0, f"PA[{self.min_idx(node.left.vars[0])}] == PA[{self.min_idx(node.right.vars[0])}]")
        return out

    def join_step(self, src: _Src, child: JoinNode, level: int, m: str) -> str:
        """Combine the new instance of ``child`` with each live instance of its sibling."""
        node = child.parent
        sib = child.sibling()
        ms = f"ms{level}"
        src(f"work += len({self.list_name(sib)})")
        src("if work > wcap: rt_work(work)")
        if sib.is_leaf:
            sv = sib.var
            xs = self.x(sv)
            src(f"for {xs} in {self.list_name(sib)}:")
            src.indent()
            if sv in self.kleene:
                src(f"if {xs}[0] < fp: continue")
                lo = self.sp.var[sv].min_size
                if lo > 1:
                    src(f"if len({xs}) < {lo}: continue")
                ms = f"{xs}[0]"
            else:
                src(f"if {xs} < fp: continue")
                ms = xs
        else:
            targets = ", ".join([ms] + [self.x(v) for v in sib.vars])
            src(f"for {targets} in {self.list_name(sib)}:")
            src.indent()
            src(f"if {ms} < fp: continue")
        for check in self.join_contiguity(node):
            src(f"if not ({check}): continue")
        for u, v in node.order_pairs:
            src(f"if not ({self.order_check(u, v)}): continue")
        for u, v in node.distinct_pairs:
            src(f"if not ({self.distinct_check(u, v)}): continue")
        for c in node.conditions:
            src(f"if not {self.cond_check(c)}: continue")
        mn = f"m{level}"
        if not node.is_root or (self.sp.negated and self.sp.unbounded_negations):  # else unused
            src(f"{mn} = {m} if {m} < {ms} else {ms}")
        for n in node.negations:
            src(f"if {self.kill_call(n, '0')}: continue")
        if not node.is_root:
            slots = ", ".join([mn] + [self.x(v) for v in node.vars])
            src(f"{self.list_name(node)}.append(({slots}))")
            src(f"cnt[{mn}] += 1")
            src("live += 1")
            if self.names.meter:
                size = node_entry_bytes(len(node.vars))
                src(f"byt[{mn}] += {size}; nbytes += {size}")
            src("if live > cap: rt_cap(live)")
        return mn

    def completion(self, src: _Src, m: str) -> None:
        """A full match of the clause: the exact contiguity test, remaining negation checks,
        report/park."""
        sp = self.sp
        if sp.strategy in (Strategy.STRICT, Strategy.PARTITION):
            key = "P" if sp.strategy is Strategy.STRICT else "PP"
            parts = []
            for v in sp.positive:
                parts.append(f"*[{key}[e] for e in {self.x(v)}]" if v in self.kleene else f"{key}[{self.x(v)}]")
            src(f"ps = ({', '.join(parts)},)")
            src("if max(ps) - min(ps) != len(ps) - 1: continue")
            if sp.strategy is Strategy.PARTITION:
                vals = []
                for v in sp.positive:
                    vals.append(f"*[PA[e] for e in {self.x(v)}]" if v in self.kleene else f"PA[{self.x(v)}]")
                src(f"if len({{{', '.join(vals)}}}) != 1: continue")
        for n in self.jp.root_negations:
            src(f"if {self.kill_call(n, '0')}: continue")
        for n, node in self.jp.early_negations.items():
            ends = [self.max_idx(v) for v in node.vars]
            created = f"max({', '.join(ends)})"  # the index at which the early check ran
            src(f"if {self.kill_call(n, f'bisect_right({self.neg_buffer(n)}, {created})')}: continue")
        slots = "(" + ", ".join(self.x(v) for v in sp.positive) + ",)"
        if sp.negated:
            if sp.unbounded_negations and sp.window.kind is WindowKind.TIME:
                rel_t, rel_p = f"TS[{m}] + W", "0"
            elif sp.unbounded_negations:
                rel_t, rel_p = "TS[j]", f"P[{m}] + {int(sp.window.size)}"
            else:
                rel_t, rel_p = "TS[j]", "0"
            src(f"rt_ = {rel_t}")
            src(f"{self.info.pending}.append((rt_, {rel_p}, {self.k}, {slots}, t0, w0))")
            src("npend += 1")
            src("if rt_ < relT: relT = rt_")
        else:
            src(f"B.append(({self.k}, {', '.join(self.x(v) for v in sp.positive)}))")


def _report_source(clause_gens: list["_ClauseGen"]) -> str:
    """``make_report(P, new_match)`` -> ``(sort_keys, makers)``: per clause, the canonical sort key
    (cep.semantics: sorted positions, clause index, positions by variable) and the
    :class:`cep.Match` of an entry ``(k, slot, ...)`` whose slots are event indices (``P`` maps them
    to stream positions)."""
    s = _Src()
    s("def make_report(P, new_match):")
    s.indent()
    keys, makers = [], []
    for cg in clause_gens:
        k = cg.k
        pos = cg.sp.positive
        xs = [f"s{i}" for i in range(len(pos))]
        kle = [v in cg.kleene for v in pos]
        by_var = [f"tuple([P[e] for e in {x}])" if kl else f"(P[{x}],)" for x, kl in zip(xs, kle)]
        unpack = f"_, {', '.join(xs)}, = e"
        s(f"def SK{k}(e):")
        s(f"    {unpack}")
        if any(kle):
            s(f"    bv = ({', '.join(by_var)},)")
            s(f"    return (sorted([p for ps in bv for p in ps]), {k}, bv)")
        else:
            # positions by variable, flattened: same order as the 1-tuples when no slot is Kleene
            flat = ", ".join(f"P[{x}]" for x in xs)
            s(f"    ps = ({flat},)")
            s(f"    return (sorted(ps), {k}, ps)")
        order = sorted(range(len(pos)), key=lambda i: pos[i])
        s(f"def MK{k}(e):")
        s(f"    {unpack}")
        s(f"    return new_match(({', '.join(f'({pos[i]!r}, {by_var[i]})' for i in order)},))")
        keys.append(f"{k}: SK{k}")
        makers.append(f"{k}: MK{k}")
    s(f"return {{{', '.join(keys)}}}, {{{', '.join(makers)}}}")
    return s.text()


def _cond_source(c: Comparison, ref: dict[str, str], names: _Names) -> str:
    """Inline source of a comparison over event indices ``ref[var]``; conditions that divide go
    through a helper that turns a division by zero into False (as :meth:`cep.conditions.Comparison.evaluate` does)."""
    body = comparison_source(c, _columns(ref, names))
    if not expression_divides(c.left) and not expression_divides(c.right):
        return body
    vs = sorted(c.variables)
    fn = f"C{names.n_helpers}"
    names.n_helpers += 1
    params = {v: f"p{i}" for i, v in enumerate(vs)}
    inner = comparison_source(c, _columns(params, names))
    names.helpers.append(
        f"def {fn}({', '.join(params[v] for v in vs)}):\n    try:\n        return {inner}\n"
        f"    except ZeroDivisionError:\n        return False\n"
    )
    return f"{fn}({', '.join(ref[v] for v in vs)})"


def _columns(ref: dict[str, str], names: _Names) -> Callable[[Attr], str]:
    """``render_attr`` of :func:`cep.conditions.comparison_source` for the generated code: attribute
    ``v.a`` is the column of ``a`` at the event index ``ref[v]``."""
    return lambda a: f"{names.attr(a.name)}[{ref[a.var]}]"


