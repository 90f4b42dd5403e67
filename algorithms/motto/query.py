"""MOTTO's pattern queries over our patterns (MOTTO Section II), and the division of nested queries
by nesting level (MOTTO Section IV-D, Definition 2, Table II).

A MOTTO query is ``OP(L)`` with ``OP`` one of SEQ, CONJ, DISJ, an operand list ``L`` of event types
or nested queries, and a window constraint.  :class:`Query` holds exactly that; an operand may also
be a :class:`Ref` -- "the composite events of another query" (MOTTO's ``{E_1, E_3}`` for the output
of ``SEQ(E_1, E_3)``, and ``E_gamma`` for an inner nested query in Table III).

The reading chosen where MOTTO leaves room (ours, documented once here):

* **Distinct types.** Every primitive event type occurs at most once in a query, nested operands
  included (all of MOTTO's examples and Table V's templates are so).  A composite event is then a
  mapping ``type -> event`` and two queries' results can be compared by their composites.
* **SEQ** is our ``SEQ`` (``cep.semantics``: every event of an operand precedes every event of the
  next, ``<=`` on timestamps by default, ``<`` with ``seq_order strict``).  A nested or referenced
  operand of a SEQ is thereby ordered as a whole -- the "complete-history" time filter MOTTO
  Section II adds for associativity (``E_2.ts < E_3.ts`` for ``SEQ((E_1, E_2), E_3)``) is part of
  the SEQ itself.
* **CONJ** is our ``AND``.
* **DISJ(L)** "produces ``{E_1 & E_2}`` if both occurred, or ``{E_1}`` (``{E_2}``) if only one
  did" (Section II).  Under skip-till-any-match "only" has no meaning, so we read DISJ(L) as every
  *non-empty subset* of its operands occurring within the window: ``DISJ(L) = OR_{S subset L, S !=
  {}} AND(S)``.  With this reading Table I's ``CONJ(L) = Filter_cd(DISJ(L))`` holds exactly; with
  our plain ``OR`` (one operand per match) it could not.
* **Conditions** (ours; MOTTO's queries have none): a query may carry WHERE conditions written
  over its *event types* as variables (types are distinct, so a type names one event), e.g.
  ``E1.diff < E3.diff``.  As in ``cep.semantics``, a condition holds for every composite event that
  binds all of its types (a DISJ composite binding only some is not constrained by it).  Queries
  have no NOT and no Kleene closure (MOTTO shares neither); :func:`from_pattern` refuses them.
* Windows are a :class:`cep.pattern.Window` (time or count) over the whole query; a nested query
  has its outer query's window.

``SEQ(E_1, SEQ(E_2, E_3))`` and ``SEQ(E_1, E_2, E_3)`` are the same query under this reading (and
likewise for CONJ in CONJ and DISJ in DISJ); :meth:`Query.canonical` flattens such nesting and sorts
the operands of CONJ and DISJ ("we pre-sort non-ordered operators on their operand list according
to a predefined order", Section IV-B), so equal queries have equal :meth:`Query.key`.
"""

from __future__ import annotations

import enum
import itertools
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Union

from cep.conditions import Comparison
from cep.errors import PatternError
from cep.pattern import EventRef, Op, Operator, Pattern, SeqOrder, Strategy, Structure, Window


class MOp(str, enum.Enum):
    """MOTTO's pattern operators, weakest last: SEQ -> CONJ -> DISJ is the direction of Table I."""

    SEQ = "SEQ"
    CONJ = "CONJ"
    DISJ = "DISJ"

    @property
    def strength(self) -> int:
        """0 for SEQ, 1 for CONJ, 2 for DISJ: a query may be computed from one of equal or higher
        value (Table I transforms SEQ to CONJ to DISJ)."""
        return {"SEQ": 0, "CONJ": 1, "DISJ": 2}[self.value]


@dataclass(frozen=True)
class Ref:
    """An operand standing for the composite events produced by ``query`` (MOTTO's ``{E_2, E_4}``)."""

    query: "Query"

    @property
    def types(self) -> tuple[str, ...]:
        return self.query.types

    def __str__(self) -> str:
        return "{" + self.query.body() + "}"


Operand = Union[str, "Query", Ref]


@dataclass(frozen=True)
class Query:
    """``OP(L)`` within ``window``; ``name`` (e.g. ``q1``) is a label, not part of the identity."""

    op: MOp
    operands: tuple[Operand, ...]
    window: Window
    seq_order: SeqOrder = SeqOrder.NONDECREASING
    name: str | None = field(default=None, compare=False)
    conditions: tuple[Comparison, ...] = ()

    def __post_init__(self) -> None:
        if not self.operands:
            raise PatternError(f"{self.op.value}() has no operands")
        for c in self.conditions:
            unknown = sorted(c.variables - set(self.types))
            if unknown:
                raise PatternError(f"condition '{c}' names {unknown[0]!r}, not an event type of {self.body()}")
        seen: set[str] = set()
        for t in self.types:
            if t in seen:
                raise PatternError(f"event type {t!r} occurs twice in {self.body()}; MOTTO queries use distinct types")
            seen.add(t)

    # ---- views -----------------------------------------------------------------------------
    @cached_property
    def types(self) -> tuple[str, ...]:
        """The primitive event types, in operand order (nested and referenced operands flattened)."""
        out: list[str] = []
        for o in self.operands:
            out.extend((o,) if isinstance(o, str) else o.types)
        return tuple(out)

    @cached_property
    def type_set(self) -> frozenset[str]:
        return frozenset(self.types)

    @property
    def level(self) -> int:
        """Nesting level (Definition 2): 1 for a query over primitive events and references."""
        return 1 + max((o.level for o in self.operands if isinstance(o, Query)), default=0)

    @property
    def refs(self) -> tuple[Ref, ...]:
        """The referenced queries at any depth."""
        out: list[Ref] = []
        for o in self.operands:
            if isinstance(o, Ref):
                out.append(o)
            elif isinstance(o, Query):
                out.extend(o.refs)
        return tuple(out)

    def body(self) -> str:
        sep = {MOp.SEQ: ", ", MOp.CONJ: " & ", MOp.DISJ: " | "}[self.op]
        where = f" WHERE {' AND '.join(sorted(map(str, self.conditions)))}" if self.conditions else ""
        return f"{self.op.value}({sep.join(_operand_text(o) for o in self.operands)}){where}"

    def all_conditions(self) -> tuple[Comparison, ...]:
        """The conditions of the query and of its nested and referenced operands, sorted, once each."""
        out = {str(c): c for c in self.conditions}
        for o in self.operands:
            if not isinstance(o, str):
                q = o.query if isinstance(o, Ref) else o
                out.update((str(c), c) for c in q.all_conditions())
        return tuple(out[k] for k in sorted(out))

    def without_conditions(self) -> "Query":
        """The same query with no conditions at any depth (its shape)."""
        c = self.canonical()
        return Query(c.op, tuple(o.without_conditions() if isinstance(o, Query) else o for o in c.operands), c.window, c.seq_order)

    def __str__(self) -> str:
        return f"{self.body()} WITHIN {self.window}"

    def with_window(self, window: Window) -> "Query":
        return replace(self, window=window, operands=tuple(o.with_window(window) if isinstance(o, Query) else o for o in self.operands))

    def with_op(self, op: MOp) -> "Query":
        return replace(self, op=op)

    # ---- identity --------------------------------------------------------------------------
    def expanded(self) -> "Query":
        """The same query with every :class:`Ref` replaced by its query (what it computes)."""
        ops = []
        for o in self.operands:
            if isinstance(o, Ref):
                ops.append(o.query.expanded().with_window(self.window))
            elif isinstance(o, Query):
                ops.append(o.expanded())
            else:
                ops.append(o)
        return Query(self.op, tuple(ops), self.window, self.seq_order, self.name, self.conditions)

    def canonical(self) -> "Query":
        """Refs expanded, same-operator nesting flattened, CONJ/DISJ operands sorted, one-operand
        operators unwrapped, every condition moved to the top (a condition constrains the composites
        that bind all its types, wherever it is written); equal meaning under this module's reading
        gives an equal result."""
        return self._canonical

    @cached_property
    def _canonical(self) -> "Query":
        q = self.expanded()
        ops: list[Operand] = []
        for o in q.operands:
            if isinstance(o, Query):
                c = o.canonical()
                c = Query(c.op, c.operands, c.window, c.seq_order) if c.conditions else c
                if c.op is q.op or len(c.operands) == 1:
                    ops.extend(c.operands)
                else:
                    ops.append(c)
            else:
                ops.append(o)
        if q.op is not MOp.SEQ:
            ops.sort(key=operand_key)
        return Query(q.op, tuple(ops), q.window, q.seq_order, None, self.all_conditions())

    @cached_property
    def key(self) -> str:
        """A string identifying the query's meaning (of :meth:`canonical`)."""
        c = self.canonical()
        return f"{c.body()}@{c.window.kind.value}:{c.window.size!r}:{c.seq_order.value}"

    def symbols(self) -> tuple[str, ...]:
        """The operand list as a string of symbols (MOTTO's ``L``): a type, or the key of a nested
        or referenced operand (``E_gamma`` of Table III)."""
        return tuple(operand_key(o) for o in self.operands)

    # ---- our patterns ----------------------------------------------------------------------
    def to_pattern(self, name: str | None = None) -> tuple[Pattern, dict[str, str]]:
        """The equivalent pattern of our language and the type of each of its variables.

        DISJ becomes OR over the AND of every non-empty subset of its operands (fresh variable
        names per subset); a match of the pattern is a composite event of the query through the
        returned ``variable -> type`` mapping (:func:`composite_of_match`).
        """
        var_type: dict[str, str] = {}
        vars_of: dict[str, list[str]] = {}
        counter = itertools.count()

        def fresh(t: str) -> EventRef:
            v = f"v{next(counter)}"
            var_type[v] = t
            vars_of.setdefault(t, []).append(v)
            return EventRef(t, v)

        def build(q: Query) -> Structure:
            if q.op is MOp.DISJ:
                clauses = []
                for k in range(1, len(q.operands) + 1):
                    for subset in itertools.combinations(q.operands, k):
                        clauses.append(Operator(Op.AND, tuple(operand(o) for o in subset)))
                return clauses[0] if len(clauses) == 1 else Operator(Op.OR, tuple(clauses))
            return Operator(Op.SEQ if q.op is MOp.SEQ else Op.AND, tuple(operand(o) for o in q.operands))

        def operand(o: Operand) -> Structure:
            if isinstance(o, str):
                return fresh(o)
            return build(o.query if isinstance(o, Ref) else o)

        structure = build(self.expanded())
        conds = []  # each condition once per combination of its types' variables; a DNF clause keeps
        for c in self.all_conditions():  # those whose variables it binds
            ts = sorted(c.variables)
            for combo in itertools.product(*(vars_of[t] for t in ts)):
                conds.append(c.rename(dict(zip(ts, combo))))
        p = Pattern(structure, tuple(conds), self.window, Strategy.ANY, None, self.seq_order, name or self.name)
        return p, var_type


def order_and_conditions(q: Query, types=None) -> tuple[frozenset, frozenset] | None:
    """What ``q`` checks among ``types`` (default: all of its types), over event types: its
    precedence pairs (transitively closed) and its conditions (as ``str``);
    None if ``q`` has several DNF clauses (a DISJ).  Two queries over the same types that agree
    here compute the same composite events within the same window; one whose pairs and conditions
    are a subset of another's is *weaker* (OTT's source: Filter_sc, a condition filter)."""
    from cep.dnf import to_dnf

    pattern, var_type = q.expanded().to_pattern()
    clauses = to_dnf(pattern)
    if len(clauses) != 1:
        return None
    sp = clauses[0]
    keep = set(q.types if types is None else types)
    closure = set(sp.positive_precedence)
    while True:
        new = {(a, d) for a, b in closure for c, d in closure if b == c} - closure
        if not new:
            break
        closure |= new
    order = frozenset((var_type[u], var_type[v]) for u, v in closure
                      if var_type[u] in keep and var_type[v] in keep)
    conds = frozenset(str(c.rename(var_type)) for c in sp.conditions if all(var_type[v] in keep for v in c.variables))
    return order, conds


def _operand_text(o: Operand) -> str:
    return o if isinstance(o, str) else (str(o) if isinstance(o, Ref) else o.body())


def operand_key(o: Operand) -> str:
    """A sortable symbol for an operand: the type, or the canonical body of a nested query."""
    if isinstance(o, str):
        return o
    q = o.query if isinstance(o, Ref) else o
    return "{" + q.canonical().body() + "}"


def composite_of_match(match, var_type: dict[str, str]) -> frozenset[tuple[str, int]]:
    """A match of :meth:`Query.to_pattern`'s pattern as a composite event: ``{(type, position)}``."""
    return frozenset((var_type[v], ps[0]) for v, ps in match.bindings)


# ---- building queries ----------------------------------------------------------------------
def seq(*operands: Operand, window: Window, name: str | None = None, seq_order: SeqOrder = SeqOrder.NONDECREASING, where=()) -> Query:
    return Query(MOp.SEQ, tuple(operands), window, seq_order, name, tuple(where))


def conj(*operands: Operand, window: Window, name: str | None = None, seq_order: SeqOrder = SeqOrder.NONDECREASING, where=()) -> Query:
    return Query(MOp.CONJ, tuple(operands), window, seq_order, name, tuple(where))


def disj(*operands: Operand, window: Window, name: str | None = None, seq_order: SeqOrder = SeqOrder.NONDECREASING, where=()) -> Query:
    return Query(MOp.DISJ, tuple(operands), window, seq_order, name, tuple(where))


def from_pattern(p: Pattern) -> Query:
    """The MOTTO query of one of our patterns over SEQ/AND/OR and positive events; its conditions
    are renamed from the pattern's variables to their event types.

    ``OR`` becomes DISJ: note that our OR reports one operand per match while MOTTO's DISJ reports
    every non-empty subset (module docstring), so the query computes a superset of the pattern's
    matches when the pattern has an OR; SEQ and AND patterns map exactly.
    """
    if p.strategy is not Strategy.ANY:
        raise PatternError(f"MOTTO queries use skip-till-any-match, not {p.strategy.value}")

    def conv(s: Structure) -> Operand:
        if isinstance(s, EventRef):
            return s.type
        if not isinstance(s, Operator):
            raise PatternError(f"MOTTO queries have no NOT or KL operands; found {type(s).__name__} {s.event.type}")
        op = {Op.SEQ: MOp.SEQ, Op.AND: MOp.CONJ, Op.OR: MOp.DISJ}[s.op]
        return Query(op, tuple(conv(c) for c in s.children), p.window, p.seq_order)

    q = conv(p.structure)
    assert isinstance(q, Query)
    to_type = p.var_types()
    return replace(q, name=p.name, conditions=tuple(c.rename(to_type) for c in p.conditions))


# ---- nested queries: division by nesting level (Section IV-D, Table II) -----------------------
def divide(q: Query) -> list[Query]:
    """Divide a nested query into non-nested queries, innermost first (Table II).

    Starting from the outermost level, each inner nested query is cut out as a sub-query and
    replaced in its closest outer query by a :class:`Ref` to it (its output event type,
    ``E_gamma``); the procedure repeats on the cut-out queries until none is nested.  The query is
    made canonical first (same-operator nesting is no nesting, :meth:`Query.canonical`).  The last
    element is the outermost query, whose operands are types and refs; every element is of level
    1.  For ``SEQ(E_1, DISJ(E_4 | E_5), CONJ(E_2 & E_3))`` this gives Table III's
    ``q^1 = DISJ(E_4 | E_5)``, ``q^2 = CONJ(E_2 & E_3)``, ``q^3 = SEQ(E_1, E_gamma', E_gamma'')``.
    """
    out: list[Query] = []

    def cut(x: Query) -> Query:
        ops: list[Operand] = []
        for o in x.operands:
            if isinstance(o, Query):
                inner = cut(o)
                out.append(inner)
                ops.append(Ref(inner))
            else:
                ops.append(o)
        return Query(x.op, tuple(ops), x.window, x.seq_order, x.name, x.conditions)

    top = cut(q.canonical())
    out.append(replace(top, name=q.name))
    return out
