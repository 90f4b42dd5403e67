"""Nested patterns as a disjunction of simple patterns (JQPG Section 4, MCEP Section 2).

SEQ is an AND with temporal constraints (JQPG Section 4: ``SEQ(e1, e2) = AND(e1, e2) WHERE e1.ts < e2.ts``),
so every clause of the DNF is a conjunction of primitive events -- positive, negated or Kleene --
plus a *precedence* relation (pairs ``(u, v)``: every event of ``u`` precedes every event of ``v``)
that records the SEQ operators the clause came from.  A pure SEQ gives a total order, a pure AND the
empty relation, and nested clauses (``AND(SEQ(a, b), c)``) anything in between; MCEP Section 2
flattens such clauses the same way.

Each clause keeps the conditions whose variables it binds (the projection ``pi_E'(C)`` of MCEP
Section 4).  Variable names are unique in a pattern, so two clauses never bind the same variable
set and the union of their matches has no duplicates.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cached_property

from cep.conditions import Comparison
from cep.pattern import (
    EventRef,
    Kleene,
    Not,
    Op,
    Operator,
    Pattern,
    SeqOrder,
    Strategy,
    Structure,
    Window,
    format_pattern,
)

POSITIVE, KLEENE, NEGATED = "positive", "kleene", "not"


@dataclass(frozen=True)
class Variable:
    """One primitive event of a simple pattern."""

    name: str
    type: str
    kind: str  # POSITIVE, KLEENE or NEGATED
    min_size: int = 1
    max_size: int | None = None


@dataclass(frozen=True)
class SimplePattern:
    """One conjunctive clause of a pattern's DNF: the unit that planners plan and evaluators run."""

    variables: tuple[Variable, ...]
    precedence: frozenset[tuple[str, str]]
    conditions: tuple[Comparison, ...]
    window: Window
    strategy: Strategy = Strategy.ANY
    partition_attribute: str | None = None
    seq_order: SeqOrder = SeqOrder.NONDECREASING
    name: str = "P"
    index: int = 0  # position of this clause in the DNF
    structure: Structure | None = None  # the clause as an OR-free structure, for printing

    # ---- variables ---------------------------------------------------------------------------
    @cached_property
    def var(self) -> dict[str, Variable]:
        return {v.name: v for v in self.variables}

    @cached_property
    def positive(self) -> tuple[str, ...]:
        """Variables that bind events in a match (primitive and Kleene), in declaration order."""
        return tuple(v.name for v in self.variables if v.kind != NEGATED)

    @cached_property
    def negated(self) -> tuple[str, ...]:
        return tuple(v.name for v in self.variables if v.kind == NEGATED)

    @cached_property
    def kleene(self) -> tuple[str, ...]:
        return tuple(v.name for v in self.variables if v.kind == KLEENE)

    def type_of(self, var: str) -> str:
        return self.var[var].type

    # ---- order -------------------------------------------------------------------------------
    @cached_property
    def preds(self) -> dict[str, frozenset[str]]:
        """For each variable, the variables whose events must precede its events."""
        out: dict[str, set[str]] = {v.name: set() for v in self.variables}
        for u, v in self.precedence:
            out[v].add(u)
        return {k: frozenset(s) for k, s in out.items()}

    @cached_property
    def succs(self) -> dict[str, frozenset[str]]:
        out: dict[str, set[str]] = {v.name: set() for v in self.variables}
        for u, v in self.precedence:
            out[u].add(v)
        return {k: frozenset(s) for k, s in out.items()}

    @cached_property
    def positive_precedence(self) -> frozenset[tuple[str, str]]:
        pos = set(self.positive)
        return frozenset((u, v) for u, v in self.precedence if u in pos and v in pos)

    @cached_property
    def is_sequence(self) -> bool:
        """True when the positive variables are totally ordered in declaration order (a SEQ)."""
        p = self.positive
        return all((p[i], p[j]) in self.precedence for i in range(len(p)) for j in range(i + 1, len(p)))

    @cached_property
    def is_conjunction(self) -> bool:
        """True when no precedence holds between positive variables (an AND)."""
        return not self.positive_precedence

    @cached_property
    def last_variables(self) -> tuple[str, ...]:
        """Positive variables that no other positive variable must follow (JQPG 5.1's T_n for a SEQ)."""
        pos = self.positive
        return tuple(v for v in pos if not (self.succs[v] & set(pos)))

    # ---- conditions --------------------------------------------------------------------------
    def conditions_on(self, variables) -> tuple[Comparison, ...]:
        """Conditions whose variables all lie in ``variables``."""
        vs = set(variables)
        return tuple(c for c in self.conditions if c.variables <= vs)

    @cached_property
    def positive_conditions(self) -> tuple[Comparison, ...]:
        return self.conditions_on(self.positive)

    def negation_conditions(self, neg: str) -> tuple[Comparison, ...]:
        return tuple(c for c in self.conditions if neg in c.variables)

    @cached_property
    def unbounded_negations(self) -> tuple[str, ...]:
        """Negated variables that no positive variable must follow: they can be violated after the
        last positive event, so matches wait for the window to pass (trailing NOT, NOT under AND)."""
        pos = set(self.positive)
        return tuple(n for n in self.negated if not (self.succs[n] & pos))

    def negation_dependencies(self, neg: str) -> frozenset[str]:
        """Positive variables that must be bound before the check of ``neg`` (JQPG Section 4:
        "added at the earliest point possible, when all positive events it depends on are already
        received"; for SEQ(A, NOT(B), C, D) that is right after A and C).  A NOT between positive
        events depends on its neighbours -- the latest positive variables that must precede it and
        the earliest that must follow it (the others are ordered through them) -- and on the
        variables its conditions mention; a leading, trailing or unordered NOT is checked against
        the whole match, whose window bounds where a violating event may lie."""
        pos = set(self.positive)
        before, after = self.preds[neg] & pos, self.succs[neg] & pos
        if not before or not after:
            return frozenset(pos)
        latest_before = {u for u in before if not (self.succs[u] & before)}
        earliest_after = {v for v in after if not (self.preds[v] & after)}
        cond_vars = set().union(*(c.variables for c in self.negation_conditions(neg))) - {neg}
        return frozenset(latest_before | earliest_after | cond_vars)

    def __str__(self) -> str:
        return format_simple_pattern(self)


def format_simple_pattern(sp: SimplePattern) -> str:
    """A DNF clause printed as pattern text (its OR-free structure)."""
    return format_pattern(
        Pattern(
            structure=sp.structure,
            conditions=sp.conditions,
            window=sp.window,
            strategy=sp.strategy,
            partition_attribute=sp.partition_attribute,
            seq_order=sp.seq_order,
        )
    )


def to_dnf(pattern: Pattern) -> list[SimplePattern]:
    """The DNF of ``pattern``: one :class:`SimplePattern` per conjunctive clause, in a stable order."""
    clauses = _dnf(pattern.structure)
    out = []
    for i, (struct, items, prec) in enumerate(clauses):
        vars_ = tuple(_variable(x) for x in items)
        names = {v.name for v in vars_}
        conds = tuple(c for c in pattern.conditions if c.variables <= names)
        name = pattern.name or "P"
        out.append(
            SimplePattern(
                variables=vars_,
                precedence=frozenset(prec),
                conditions=conds,
                window=pattern.window,
                strategy=pattern.strategy,
                partition_attribute=pattern.partition_attribute,
                seq_order=pattern.seq_order,
                name=name if len(clauses) == 1 else f"{name}[{i}]",
                index=i,
                structure=struct if isinstance(struct, Operator) else Operator(Op.AND, (struct,)),
            )
        )
    return out


def _variable(x: EventRef | Not | Kleene) -> Variable:
    if isinstance(x, EventRef):
        return Variable(x.var, x.type, POSITIVE)
    if isinstance(x, Not):
        return Variable(x.event.var, x.event.type, NEGATED)
    return Variable(x.event.var, x.event.type, KLEENE, x.min_size, x.max_size)


Clause = tuple[Structure, list, set]  # OR-free structure, primitive items, precedence pairs


def _names(items) -> list[str]:
    return [x.var if isinstance(x, EventRef) else x.event.var for x in items]


def _dnf(s: Structure) -> list[Clause]:
    if isinstance(s, (EventRef, Not, Kleene)):
        return [(s, [s], set())]
    assert isinstance(s, Operator)
    alternatives = [_dnf(c) for c in s.children]
    if s.op is Op.OR:
        return [clause for alts in alternatives for clause in alts]
    out: list[Clause] = []
    for combo in itertools.product(*alternatives):
        items: list = []
        prec: set = set()
        children: list = []
        for struct_i, items_i, prec_i in combo:
            items.extend(items_i)
            prec |= prec_i
            # SEQ(a, SEQ(b, c)) is SEQ(a, b, c); AND(a, AND(b, c)) is AND(a, b, c)
            if isinstance(struct_i, Operator) and (struct_i.op is s.op or len(struct_i.children) == 1):
                children.extend(struct_i.children)
            else:
                children.append(struct_i)
        if s.op is Op.SEQ:
            for i, j in itertools.combinations(range(len(combo)), 2):
                for u in _names(combo[i][1]):
                    for v in _names(combo[j][1]):
                        prec.add((u, v))
        out.append((Operator(s.op, tuple(children)), items, prec))
    return out
