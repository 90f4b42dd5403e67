"""NEXT's operator algebra (Schultz-Moeller, Migliavacca, Pietzuch, DEBS'09, Section 3) and its match
semantics, defined once.  Every NEXT evaluator must report exactly the composite events defined here.

Operators (Section 3.4) and how each relates to our vocabulary (``cep.pattern``):

==================  ==============================  ===============================================
NEXT                here                            our vocabulary
==================  ==============================  ===============================================
``E_theta``         :class:`Source` + FILTER(...)   a one-variable WHERE condition
``E1 | E2``         :class:`Union`                  ``OR(...)``
``E1 ; E2``         :class:`Next`                   ``SEQ(...)`` plus a NOT in each gap: NEXT takes
                                                    the *next* occurrence, see below
``E +``             :class:`Iteration`              ``KL(T v){lo,hi}`` (NEXT's elements are
                                                    consecutive occurrences; KL takes any subset)
``E1 \\ E2``         :class:`Except`                 ``NOT(...)`` between two events of a SEQ
``E @ t``           :class:`Time`                   none (a timer point t seconds after E)
skip / fail preds   ``FILTER(c)`` / plain ``c``     WHERE conditions (we have no skip predicates)
==================  ==============================  ===============================================

:mod:`cep.next_mapping` writes the fragment where the two coincide exactly as one of our patterns
(``SEQ_ORDER strict``; the immediate successor is "no event of that type in between", a NOT), and
ours as NEXT patterns where they have an exact counterpart; the tests hold both directions to the
reference matchers.  Our ``skip-till-next-match`` (OpenCEP's, :mod:`cep.semantics`)
is *not* NEXT's next: it consumes events, so two ``E1`` events never share an ``E2``; in NEXT they
do -- that sharing is the *burst* of Section 4.2.

Text (``cep/pattern.lark``): ``PATTERN S1 a ; (S2 b | S4 c) WHERE FILTER(a.x = b.x) AND c.y > 1
WITHIN 1 minutes``.  Binding power, loosest first: ``|``, ``;``, ``\\``, then the postfix ``+``
(optionally ``+{lo,hi}``) and ``@ <n> <unit>``; ``|`` and ``;`` group to the left; the alias after a
type is optional (``S1 ; S2`` names its events ``_1, _2``).  The printer parenthesizes every nested
binary operator, so the printed text parses back to the same tree.

Semantics.  Events are instantaneous (a primitive event's timestamp pair is ``[ts, ts]``), as in our
streams.  Every operator produces *items* (detected composite events, Section 3.1).  An item has

* constituents: the primitive events it binds (by variable; an iteration variable binds a tuple)
  and timer points, in time order; its *timestamp sequence* ``t`` lists their times; its span is
  ``[ts, te] = [t[0], t[-1]]``;
* a *failed* flag: NEXT's failed-detection event (Section 3.3), which travels upwards so that an
  enclosing next still picks it as the successor (otherwise a filtered successor would make the
  next pick a later one and lose associativity); the pattern drops failed items;
* a *guard* ``g``: the latest start of an exception event that may cancel it (``-inf``: none).

``SUCC(x, I)`` (the complete-history successor of Section 3.2, White et al. [27]) is the set of
items ``y`` of ``I`` with ``ts(y) > te(x)`` that are minimal under the paper's order: compare the
timestamp sequences from the end, element by element, smaller first; when one is a suffix of the
other, the longer one is smaller.  Items with equal sequences tie and are all successors.

Items of each operator (chains of ``;`` and groups of ``|`` are taken n-ary: the grouping of the
text is an evaluation plan, not semantics; ``;`` is associative in this model, Section 3.2):

* ``Source(T, v)``: one item per stream event of type T (that passes its FILTERs).
* ``Union``: the items of every operand, unchanged.
* chain ``E_0 ; ... ; E_k``: for every item ``x_0`` of ``E_0`` and every choice
  ``x_q in SUCC(x_{q-1}, {y in I(E_q) : the skip predicates of operand q hold})``, the item
  ``x_0 + ... + x_k``.  It is failed when some ``x_q`` is failed, some fail predicate is false, or
  some ``q >= 1`` has ``g(x_q) > te(x_{q-1})``.  Its guard is ``g(x_0)``.
* ``Iteration(Source, lo, hi)``: for every element ``x_1``: ``x_1 + ... + x_m`` with
  ``x_{i+1} in SUCC(x_i, elements)``, for every length ``lo <= m <= hi`` (NEXT's E+, "one or more
  consecutive events"; ``hi`` may be None, then the window bounds it).
* ``Except(E, F)`` ("detects E but fails if F occurs"): every item ``x`` of ``E``, with guard
  ``max(g(x), max{ts(f) : f a result item of F, te(f) < te(x), lambda(x, f)})``.  Which interval
  the guard is checked against is the reading of the paper chosen here: where ``E \\ F`` is an
  operand ``q >= 1`` of a chain, F cancels from the end of the previous operand on (the failed-
  detection state of Section 3.3: "cancellation of an event pattern after a subpattern was
  detected", which makes Section 4.3's ``E1 ; (E2 \\ E3) = (E1 ; E2) \\ E3`` hold for an
  instantaneous E1); anywhere else F cancels inside the item's own span.
* ``Time(E, t)``: every item ``x`` of E followed by a timer point at ``te(x) + t``.
* Every operator drops items whose span exceeds the window ``W`` (``te - ts > W``).
* The *result items* of the pattern, and of an exception's operand F, are the items that are not
  failed and whose guard is ``<= ts`` (no exception event strictly inside the span).

Predicates (Section 3.4: skip predicates phi are ``FILTER(...)``; fail predicates theta are plain
WHERE conditions).  A condition whose variables lie in one chain, across operands ``p .. q``
(``q >= 1``), belongs to that chain: a skip predicate restricts which items are candidates for
operand q; a fail predicate marks the chain item failed.  A one-variable fail predicate on an
operand ``q >= 1`` is a chain fail predicate too (the paper's fraud query: "It discards automaton
instances for transactions below this value"); elsewhere a one-variable predicate of either kind is
a filter of its source.  A condition that mentions the variables of an exception's operand F is that
exception's ``lambda``; its other variables must belong to the excepted operand.  A condition may
not relate two operands of one union, nor an iteration variable to another variable.

Evaluation plans.  A binary grouping of a chain evaluates it exactly iff every skip predicate that
selects operand q is evaluated where the left input ends at operand ``q - 1`` and holds all its
variables, and no right input contains a skip predicate of its own (it would filter the right
input and shift which item is the successor): :func:`operator_tree` checks this, and left-deep
grouping always passes.  Failed items and guards make every other grouping exact.

A chain's grouping is where NEXT's cost model (Table 1) sees bursts: in ``E1 ; E2`` every ``E1``
item opens an instance and all instances waiting when the next ``E2`` item arrives complete at once.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterator

from cep.conditions import Comparison
from cep.errors import PatternError
from cep.pattern import Window, format_type


# ---- the expression tree ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Source:
    """A primitive stream: the events of type ``type``, bound to variable ``var``."""

    type: str
    var: str


@dataclass(frozen=True)
class Union:
    """``E1 | E2``: the items of both operands (Section 3.4, union operator)."""

    left: "Expr"
    right: "Expr"


@dataclass(frozen=True)
class Next:
    """``E1 ; E2``: each item of E1 followed by its immediate successor in E2 (next operator)."""

    left: "Expr"
    right: "Expr"


@dataclass(frozen=True)
class Iteration:
    """``E +{lo,hi}``: runs of ``lo..hi`` consecutive occurrences of a source (iteration operator)."""

    child: Source
    min_size: int = 1
    max_size: int | None = None


@dataclass(frozen=True)
class Except:
    """``E \\ F``: the items of E that no item of F cancels (exception operator)."""

    child: "Expr"
    fail: "Expr"


@dataclass(frozen=True)
class Time:
    """``E @ t``: a timer point ``seconds`` after each item of E (time operator)."""

    child: "Expr"
    seconds: float


Expr = Source | Union | Next | Iteration | Except | Time
BINARY = (Union, Next)


def children(e: Expr) -> tuple[Expr, ...]:
    if isinstance(e, (Union, Next)):
        return (e.left, e.right)
    if isinstance(e, Except):
        return (e.child, e.fail)
    if isinstance(e, (Iteration, Time)):
        return (e.child,)
    return ()


def sources(e: Expr) -> Iterator[Source]:
    """Every source of ``e`` (exception operands included), left to right."""
    if isinstance(e, Source):
        yield e
    for c in children(e):
        yield from sources(c)


def item_variables(e: Expr) -> tuple[str, ...]:
    """The variables an item of ``e`` may bind, in order (an exception's operand F binds none)."""
    if isinstance(e, Source):
        return (e.var,)
    if isinstance(e, (Union, Next)):
        return item_variables(e.left) + item_variables(e.right)
    return item_variables(e.child)  # Iteration, Except, Time


def operator_count(e: Expr) -> int:
    """Operators of ``e`` (every node but the sources): the "query size" of NEXT Section 6."""
    return (0 if isinstance(e, Source) else 1) + sum(operator_count(c) for c in children(e))


def is_instantaneous(e: Expr) -> bool:
    """Whether every item of ``e`` has ``ts == te`` (a source, a union or exception of such)."""
    if isinstance(e, Source):
        return True
    if isinstance(e, Union):
        return is_instantaneous(e.left) and is_instantaneous(e.right)
    if isinstance(e, Except):
        return is_instantaneous(e.child)
    if isinstance(e, Iteration):
        return e.max_size == 1
    return False


def chain_operands(e: Expr) -> list[Expr]:
    """The operands of the maximal ``;`` chain rooted at ``e`` (``[e]`` if ``e`` is not a next)."""
    if isinstance(e, Next):
        return chain_operands(e.left) + chain_operands(e.right)
    return [e]


def union_operands(e: Expr) -> list[Expr]:
    if isinstance(e, Union):
        return union_operands(e.left) + union_operands(e.right)
    return [e]


def left_deep(operands: list[Expr], op=Next) -> Expr:
    """``((o0 op o1) op o2) ...``: the grouping the text gives without parentheses."""
    out = operands[0]
    for o in operands[1:]:
        out = op(out, o)
    return out


# ---- a pattern ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class NextPattern:
    """A NEXT query: an expression, fail predicates (plain WHERE conditions), skip predicates
    (``FILTER(...)``), a window and a name.  Validated when built (see the module docstring)."""

    expr: Expr
    conditions: tuple[Comparison, ...] = ()
    filters: tuple[Comparison, ...] = ()
    window: Window = field(default_factory=lambda: Window.seconds(60.0))
    name: str | None = None

    def __post_init__(self) -> None:
        _validate(self)

    @property
    def variables(self) -> list[str]:
        return [s.var for s in sources(self.expr)]

    @property
    def event_types(self) -> list[str]:
        return list(dict.fromkeys(s.type for s in sources(self.expr)))

    def with_expr(self, expr: Expr) -> "NextPattern":
        """The same query over a regrouped expression (same sources, conditions and window)."""
        return NextPattern(expr, self.conditions, self.filters, self.window, self.name)

    @cached_property
    def analysis(self) -> "Analysis":
        return analyze(self)

    @cached_property
    def operators(self) -> "OpNode":
        return operator_tree(self)

    def __str__(self) -> str:
        return format_next_pattern(self)


# ---- printing ---------------------------------------------------------------------------------------
def format_next_expr(e: Expr) -> str:
    """NEXT infix text of an expression; every nested ``|``, ``;`` and ``\\`` is parenthesized."""
    def wrap(x) -> str:
        return f"({format_next_expr(x)})" if isinstance(x, (Union, Next, Except)) else format_next_expr(x)

    if isinstance(e, Source):
        return f"{format_type(e.type)} {e.var}"
    if isinstance(e, Union):
        return f"{wrap(e.left)} | {wrap(e.right)}"
    if isinstance(e, Next):
        return f"{wrap(e.left)} ; {wrap(e.right)}"
    if isinstance(e, Except):
        return f"{wrap(e.child)} \\ {wrap(e.fail)}"
    inner = format_next_expr(e.child)
    if not isinstance(e.child, Source):
        inner = f"({inner})"
    if isinstance(e, Iteration):
        bounds = ""
        if (e.min_size, e.max_size) != (1, None):
            bounds = f"{{{e.min_size}}}" if e.min_size == e.max_size else f"{{{e.min_size},{'' if e.max_size is None else e.max_size}}}"
        return f"{inner}+{bounds}"
    return f"{inner} @ {Window.seconds(e.seconds)}"


def format_next_pattern(p: NextPattern) -> str:
    """The infix text of a NEXT pattern (module docstring, "Text"); parsing it gives back an equal pattern."""
    parts = [f"PATTERN {format_next_expr(p.expr)}"]
    conds = [f"FILTER({c})" for c in p.filters] + [str(c) for c in p.conditions]
    if conds:
        parts.append("WHERE " + " AND ".join(conds))
    parts.append(f"WITHIN {p.window}")
    return " ".join(parts)


def _validate(p: NextPattern) -> None:
    if p.window.kind.value != "time":
        raise PatternError("a NEXT pattern needs a time window (WITHIN <n> seconds|minutes|...), not a count window")
    seen: dict[str, str] = {}
    for s in sources(p.expr):
        if not s.type:
            raise PatternError("an event type cannot be empty")
        if s.var in seen:
            raise PatternError(f"variable {s.var!r} is declared twice ({seen[s.var]} and {s.type}); names must be unique")
        seen[s.var] = s.type
    _validate_expr(p.expr)
    for c in p.conditions + p.filters:
        if not c.variables:
            raise PatternError(f"condition '{c}' mentions no variable")
        missing = sorted(c.variables - seen.keys())
        if missing:
            raise PatternError(f"condition '{c}' uses undeclared variable {missing[0]!r}; declared: {', '.join(seen)}")
    operator_tree(p)  # places every predicate; raises on one that has no place


def _validate_expr(e: Expr) -> None:
    if isinstance(e, Iteration):
        if not isinstance(e.child, Source):
            raise PatternError("iteration (+) applies to one source, e.g. 'S1 a+'; group a composite operand with ; or |")
        if e.min_size < 1:
            raise PatternError(f"{e.child.type} {e.child.var}+: minimum size must be >= 1, got {e.min_size}")
        if e.max_size is not None and e.max_size < e.min_size:
            raise PatternError(f"{e.child.type} {e.child.var}+: maximum size {e.max_size} is below minimum {e.min_size}")
    if isinstance(e, Time) and not (e.seconds > 0 and math.isfinite(e.seconds)):
        raise PatternError(f"a time operator needs a positive finite duration, got {e.seconds}")
    for c in children(e):
        _validate_expr(c)


# ---- where each predicate goes ---------------------------------------------------------------------
Path = tuple[int, ...]  # child indices from the root


@dataclass
class Chain:
    """A maximal ``;`` chain: its operands (paths) and the predicates that belong to it."""

    root: Path
    operands: list[Path]
    skip: list[tuple[Comparison, int, int]] = field(default_factory=list)  # (predicate, first operand p, target q)
    fail: list[tuple[Comparison, int, int]] = field(default_factory=list)  # (predicate, first operand, last operand)


@dataclass
class Analysis:
    """Where each predicate of a pattern acts, on the n-ary reading (chains and unions flattened)."""

    nodes: dict[Path, Expr]
    parent: dict[Path, Path | None]
    chains: dict[Path, Chain]  # by chain root
    operand_of: dict[Path, tuple[Path, int]]  # operand path -> (chain root, index)
    chain_of: dict[Path, Path]  # path of a Next node -> its chain root
    filters: dict[Path, list[Comparison]]  # node path -> item filters (sources and non-chain nodes)
    lam: dict[Path, list[Comparison]]  # exception path -> lambda predicates
    var_path: dict[str, Path]  # variable -> path of its source


def _index(e: Expr, path: Path, parent: Path | None, a: Analysis) -> None:
    a.nodes[path] = e
    a.parent[path] = parent
    if isinstance(e, Source):
        a.var_path[e.var] = path
    for i, c in enumerate(children(e)):
        _index(c, path + (i,), path, a)


def _chain_leaves(e: Expr, path: Path) -> list[Path]:
    if isinstance(e, Next):
        return _chain_leaves(e.left, path + (0,)) + _chain_leaves(e.right, path + (1,))
    return [path]


def _next_paths(e: Expr, path: Path) -> list[Path]:
    if isinstance(e, Next):
        return [path] + _next_paths(e.left, path + (0,)) + _next_paths(e.right, path + (1,))
    return []


def analyze(p: NextPattern) -> Analysis:
    """Place every predicate of ``p`` (module docstring, "Predicates"); raise PatternError for one
    that has no place."""
    a = Analysis({}, {}, {}, {}, {}, {}, {}, {})
    _index(p.expr, (), None, a)
    for path, e in a.nodes.items():
        par = a.parent[path]
        if isinstance(e, Next) and not (par is not None and isinstance(a.nodes[par], Next)):
            ops = _chain_leaves(e, path)
            a.chains[path] = Chain(path, ops)
            for i, o in enumerate(ops):
                a.operand_of[o] = (path, i)
            for n in _next_paths(e, path):
                a.chain_of[n] = path
    item_vars = {path: set(item_variables(e)) for path, e in a.nodes.items()}
    for kind, conds in (("fail", p.conditions), ("skip", p.filters)):
        for c in conds:
            _place(c, kind, a, item_vars)
    return a


def _is_prefix(prefix: Path, path: Path) -> bool:
    return path[: len(prefix)] == prefix


def _operand_index(a: Analysis, chain: Chain, var: str) -> int:
    vp = a.var_path[var]
    for i, o in enumerate(chain.operands):
        if _is_prefix(o, vp):
            return i
    raise AssertionError(f"{var} is not in chain {chain.root}")


def _kind_text(kind: str, c: Comparison) -> str:
    return f"FILTER({c})" if kind == "skip" else f"'{c}'"


def _place(c: Comparison, kind: str, a: Analysis, item_vars: dict[Path, set[str]]) -> None:
    vs = set(c.variables)
    iter_vars = {e.child.var for e in a.nodes.values() if isinstance(e, Iteration)}
    if vs & iter_vars:
        if len(vs) > 1 or kind != "skip":
            raise PatternError(
                f"{_kind_text(kind, c)} mentions iteration variable {sorted(vs & iter_vars)[0]!r}: only one-variable "
                "FILTER(...) conditions may apply to the elements of an iteration"
            )
        a.filters.setdefault(a.var_path[next(iter(vs))], []).append(c)
        return
    # an exception's lambda: it mentions variables of the exception's operand F
    for path, e in a.nodes.items():
        if isinstance(e, Except):
            f_vars = {s.var for s in sources(e.fail)}
            if vs & f_vars:
                other = vs - f_vars
                if not other:
                    break  # a predicate of F alone: placed inside F below
                if not other <= item_vars[path + (0,)]:
                    raise PatternError(
                        f"{_kind_text(kind, c)} relates the exception operand ({', '.join(sorted(vs & f_vars))}) to "
                        f"{', '.join(sorted(other - item_vars[path + (0,)]))}, which the excepted operand does not bind"
                    )
                a.lam.setdefault(path, []).append(c)
                return
    # the lowest node whose items bind every variable (the nodes that do form a path from the root)
    low = max((path for path, vars_ in item_vars.items() if vs <= vars_), key=len, default=None)
    if low is None:
        raise PatternError(f"{_kind_text(kind, c)} relates variables that no detected event binds together")
    node = a.nodes[low]
    if isinstance(node, Union):
        raise PatternError(f"{_kind_text(kind, c)} relates two operands of one union (|): no detected event binds both")
    if len(vs) == 1 and kind == "skip":
        a.filters.setdefault(a.var_path[next(iter(vs))], []).append(c)
        return
    if isinstance(node, Next):
        chain = a.chains[a.chain_of[low]]
        idx = sorted(_operand_index(a, chain, v) for v in vs)
        (chain.skip if kind == "skip" else chain.fail).append((c, idx[0], idx[-1]))
        return
    assert isinstance(node, Source), f"a multi-variable predicate's lowest node is a chain or a union, not {node}"
    # a fail predicate inside one operand: it fails the first chain that picks that operand as a successor
    path = low
    while True:
        par = a.parent[path]
        if par is None:
            break
        pe = a.nodes[par]
        if isinstance(pe, Except) and path == par + (1,):
            break  # an exception's operand F is evaluated on its own
        if path in a.operand_of:
            root, q = a.operand_of[path]
            if q >= 1:
                a.chains[root].fail.append((c, q, q))
                return
            path = root
            continue
        path = par
    a.filters.setdefault(low, []).append(c)


# ---- the operator tree: the plan an evaluator runs -----------------------------------------------------
SOURCE, FILTER, UNION, NEXT, ITERATION, EXCEPT, TIME = "source", "filter", "union", "next", "iteration", "except", "time"


@dataclass(frozen=True)
class OpNode:
    """One operator of a pattern's operator tree, with the predicates it evaluates.

    ``kind``: SOURCE (a primitive stream, not an operator), FILTER (a source with item filters),
    UNION, NEXT, ITERATION, EXCEPT (children: the excepted operand, then F) or TIME.
    ``filters`` drop items; on a NEXT, ``skip`` predicates select the successor and ``fail``
    predicates mark the output failed; on an EXCEPT, ``lam`` selects which F items cancel.
    ``variables`` is the order of the variables an item binds (the slots of an evaluator).
    """

    kind: str
    expr: Expr
    children: tuple["OpNode", ...]
    variables: tuple[str, ...]
    filters: tuple[Comparison, ...] = ()
    skip: tuple[Comparison, ...] = ()
    fail: tuple[Comparison, ...] = ()
    lam: tuple[Comparison, ...] = ()
    window: float = 60.0

    @property
    def is_operator(self) -> bool:
        return self.kind != SOURCE

    def walk(self) -> Iterator["OpNode"]:
        """Every node, children before parents."""
        for c in self.children:
            yield from c.walk()
        yield self

    def operators(self) -> list["OpNode"]:
        return [n for n in self.walk() if n.is_operator]


def operator_tree(p: NextPattern) -> OpNode:
    """The operator tree of ``p`` as grouped, with every predicate at the operator that evaluates it
    (module docstring, "Evaluation plans"); raise PatternError for a grouping that is not exact."""
    a = analyze(p)
    per_node: dict[Path, dict[str, list[Comparison]]] = {}
    for chain in a.chains.values():
        spans = {n: _span(a, chain, n) for n in a.chain_of if a.chain_of[n] == chain.root}
        for c, first, q in chain.skip:
            node = next((n for n, (i, k, j) in spans.items() if k + 1 == q), None)
            assert node is not None
            i, k, j = spans[node]
            if first < i:
                raise PatternError(
                    f"FILTER({c}) picks operand {q + 1} of a chain by operand {first + 1}, but the grouping "
                    f"joins operand {q + 1} to a part that starts at operand {i + 1}; group the chain to the left"
                )
            per_node.setdefault(node, {}).setdefault("skip", []).append(c)
        targets = {q for _, _, q in chain.skip}
        for n, (i, k, j) in spans.items():
            inner = sorted(q for q in targets if k + 2 <= q <= j)
            if inner:
                raise PatternError(
                    f"a FILTER(...) picks operand {inner[0] + 1} inside the right operand of a next (operands "
                    f"{k + 2}..{j + 1}); it would filter that operand and change which event is next; group the chain to the left"
                )
        for c, first, last in chain.fail:
            node = min((n for n, (i, k, j) in spans.items() if i <= first and last <= j and (first < last or k + 1 == last)),
                       key=lambda n: spans[n][2] - spans[n][0])
            per_node.setdefault(node, {}).setdefault("fail", []).append(c)
    return _build(p.expr, (), a, per_node, float(p.window.size))


def _span(a: Analysis, chain: Chain, n: Path) -> tuple[int, int, int]:
    """``(i, k, j)``: a Next node joins operands ``i..k`` (left) with ``k+1..j`` (right)."""
    idx = [q for q, o in enumerate(chain.operands) if _is_prefix(n, o)]
    left = [q for q, o in enumerate(chain.operands) if _is_prefix(n + (0,), o)]
    return idx[0], left[-1], idx[-1]


def _build(e: Expr, path: Path, a: Analysis, per_node, window: float) -> OpNode:
    kids = tuple(_build(c, path + (i,), a, per_node, window) for i, c in enumerate(children(e)))
    filters = tuple(a.filters.get(path, ()))
    extra = per_node.get(path, {})
    vars_ = item_variables(e)
    if isinstance(e, Source):
        return OpNode(FILTER if filters else SOURCE, e, (), vars_, filters, window=window)
    kind = {Union: UNION, Next: NEXT, Iteration: ITERATION, Except: EXCEPT, Time: TIME}[type(e)]
    return OpNode(
        kind, e, kids, vars_, filters,
        skip=tuple(extra.get("skip", ())), fail=tuple(extra.get("fail", ())),
        lam=tuple(a.lam.get(path, ())), window=window,
    )


# ---- abstract operator trees: when two operators are the same --------------------------------------
def aot(node: OpNode) -> tuple[tuple, tuple[str, ...]]:
    """The abstract operator tree (NEXT Section 4.4) of ``node``: a hashable key that is equal for
    operators producing the same items up to the names of variables, and the variables of ``node``
    in the key's slot order.  Union operands are ordered by their keys (``E1 | E2 = E2 | E1``)."""
    if node.kind in (SOURCE, FILTER):
        names = {node.variables[0]: "v0"}
        return ("source", node.expr.type, _preds(node.filters, names)), node.variables
    subs = [aot(c) for c in node.children]
    if node.kind == UNION and subs[1][0] < subs[0][0]:
        subs = [subs[1], subs[0]]
    if node.kind == EXCEPT:
        order = subs[0][1]
        names = {v: f"v{i}" for i, v in enumerate(order)}
        names.update({v: f"f{i}" for i, v in enumerate(subs[1][1])})
    else:
        order = tuple(v for _, vs in subs for v in vs)
        names = {v: f"v{i}" for i, v in enumerate(order)}
    params: tuple = ()
    if node.kind == ITERATION:
        params = (node.expr.min_size, node.expr.max_size)
    elif node.kind == TIME:
        params = (node.expr.seconds,)
    key = (
        node.kind, params, node.window, tuple(k for k, _ in subs),
        _preds(node.filters, names), _preds(node.skip, names), _preds(node.fail, names), _preds(node.lam, names),
    )
    return key, order


def _preds(conds, names: dict[str, str]) -> tuple[str, ...]:
    return tuple(sorted(str(c.rename(names)) for c in conds))


def aot_digest(key: tuple) -> str:
    """A short stable digest of an AOT key (the same in every process)."""
    return hashlib.sha1(repr(key).encode()).hexdigest()[:16]
