"""Our pattern language and NEXT's algebra (:mod:`cep.next_algebra`), mapped where the two coincide exactly.

Both directions rest on one correspondence.  NEXT's next ``x_0 ; x_1`` takes the *first* event of
its operand strictly after ``x_0`` (the complete-history successor of NEXT Section 3.2; ties all
count); in our language that is ``SEQ(X0 x0, NOT(X1 n), X1 x1)`` under ``SEQ_ORDER strict``: no
candidate for ``x_1`` strictly between the two.  A skip predicate (``FILTER``) of ``x_1`` decides
who is a candidate, so it is also a condition of the NOT; a fail predicate is a condition of
``x_1`` only.  An exception ``E_q \\ F`` on operand ``q >= 1`` cancels from the end of the previous
operand on: a ``NOT(F f)`` in the same gap, its ``lambda`` the NOT's conditions.

NEXT -> ours, ``to_pattern(p)``: a :class:`cep.pattern.Pattern` with ``SEQ_ORDER strict`` whose
matches are exactly the composite events of ``p``, and the map from its variable names back to
``p``'s:

* ``x_0 ; x_1`` is ``SEQ(X0 x0, NOT(X1 n), X1 x1)`` as above;
* a union operand ``(B b | C c)`` is one clause per branch, ``OR(SEQ(.., B b), SEQ(.., C c))``, each
  with a NOT per branch in the gap (the successor is the first event of *any* branch);
* an exception ``E_q \\ F`` on operand ``q >= 1`` is ``NOT(F f)`` in the gap before ``x_q``; at the
  top of a two-operand chain, ``(x_0 ; x_1) \\ F``, the same NOT (F strictly inside the span);
  ``lambda`` predicates go on that NOT.

The fragment: a union of chains whose operands are sources or unions of sources, exceptions as
above with a source (or union of sources) as F.  Outside it -- composite operands inside a chain
operand, iteration (NEXT's consecutive occurrences, KL takes any subset), time points, a span
exception over a longer chain (an F event at the very timestamp of an inner event ends up in no
gap) -- :class:`cep.errors.PatternError` says which operator is not expressible.

Ours -> NEXT, ``to_next(p)``: a :class:`cep.next_algebra.NextPattern` whose composite events are
exactly the matches of ``p`` (same variables, same events):

* ``OR(P_1, ..., P_k)`` is the union ``P_1 | ... | P_k`` (our OR is the union of its clauses' matches,
  NEXT's union the items of every operand); an event ``T v`` is the source ``T v``;
* ``SEQ(x_0, gap_1, x_1, ..., gap_k, x_k)`` under ``SEQ_ORDER strict`` is the chain
  ``x_0 ; x_1 ; ... ; x_k`` (nested SEQs flattened: both are associative); an element ``x_q`` is an
  event or an OR of events (a union of sources), and ``gap_q`` is the NOTs between ``x_{q-1}`` and
  ``x_q``.  For ``q >= 1`` the gap must hold, for every event ``T v`` of ``x_q``, a *successor NOT*
  ``NOT(T n)`` whose conditions, with ``n`` read as ``v``, are conditions of ``v`` and mention no
  later variable: they become ``FILTER``s of ``v`` (skip predicates), the other conditions of ``v``
  stay plain (fail predicates).  The gap's other NOTs are an exception ``x_q \\ (F_1 f_1 | ...)``
  with the NOTs' conditions as ``lambda``; in a two-operand chain the exception covers the chain,
  ``(x_0 ; x_1) \\ F``, so that ``lambda`` may mention ``x_0`` as well.
* The window is the same time window (both are inclusive: a span of exactly W fits).

``to_next`` inverts ``to_pattern`` except where ``to_pattern`` writes a FILTER on one branch of a
union operand that relates it to an earlier event: the clauses of the other branches keep that
branch's successor NOT, which alone is an exception related to an earlier event.

Everything else has no NEXT counterpart, and :class:`cep.errors.PatternError` names the construct:
AND (NEXT has no conjunction); KL (any subset of the events in order; NEXT's iteration takes
consecutive occurrences only); a SEQ element without its successor NOT (under skip-till-any-match
``SEQ(A a, B b)`` pairs ``a`` with every later B, NEXT's next only with the first); a NOT before the
first or after the last event of a SEQ; an OR of SEQs inside a SEQ; ``SEQ_ORDER nondecreasing`` in a
SEQ of two or more events (NEXT's next wants a strictly later event); a count window; a selection
strategy other than skip-till-any-match -- in particular our skip-till-next-match (OpenCEP's,
:mod:`cep.semantics`) is not NEXT's next: it consumes events, so two A events never share a B, while
in NEXT they do (the burst of Section 4.2); and conditions NEXT cannot place (one that relates two
branches of an OR, or an exception to events other than the one it guards).
"""

from __future__ import annotations

import itertools

import cep.next_algebra as algebra
from cep.conditions import Comparison
from cep.errors import PatternError
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
    WindowKind,
    format_structure,
    format_type,
)


def to_pattern(p: algebra.NextPattern) -> tuple[Pattern, dict[str, str]]:
    """``p`` as one of our patterns, and the map from its positive variables to ``p``'s."""
    a = p.analysis
    clauses: list[list] = []  # per clause: list of (kind, ...) items
    for leaf in _union_leaves(p.expr, ()):
        clauses.extend(_clauses(a, leaf))
    structures, conditions, names = [], [], {}
    for i, items in enumerate(clauses):
        elems, conds = [], []
        for kind, ref, cs in items:
            v = f"{ref.var}__{i}"
            if kind == "pos":
                names[v] = ref.var
                elems.append(EventRef(ref.type, v))
            else:
                elems.append(Not(EventRef(ref.type, v)))
            conds.extend(cs)
        mapping = {orig: f"{orig}__{i}" for orig in _all_vars(items)}
        structures.append(Operator(Op.SEQ, tuple(elems)))
        conditions.extend(c.rename(mapping) for c in conds)
    structure = structures[0] if len(structures) == 1 else Operator(Op.OR, tuple(structures))
    return Pattern(structure, tuple(conditions), p.window, seq_order=SeqOrder.STRICT, name=p.name), names


def _all_vars(items) -> list[str]:
    return [ref.var for _, ref, _ in items]


def _union_leaves(e: algebra.Expr, path: tuple) -> list[tuple]:
    if isinstance(e, algebra.Union):
        return _union_leaves(e.left, path + (0,)) + _union_leaves(e.right, path + (1,))
    return [path]


def _source_branches(a: algebra.Analysis, path: tuple, what: str) -> list[tuple]:
    """The source paths of a union of sources (a source alone is one branch)."""
    e = a.nodes[path]
    if isinstance(e, algebra.Source):
        return [path]
    if isinstance(e, algebra.Union):
        return _source_branches(a, path + (0,), what) + _source_branches(a, path + (1,), what)
    raise PatternError(f"{what} is not a source or a union of sources ({type(e).__name__.lower()}): "
                       "only those have a SEQ/OR/NOT counterpart")


def _clauses(a: algebra.Analysis, path: tuple) -> list[list]:
    e = a.nodes[path]
    span_fail = None
    if isinstance(e, algebra.Except):
        span_fail = path
        inner = a.nodes[path + (0,)]
        if isinstance(inner, algebra.Next) and len(a.chains[path + (0,)].operands) != 2:
            raise PatternError("an exception over a chain of more than two operands has no exact NOT counterpart "
                               "(an exception event at the very time of an inner event lies in no gap)")
        path, e = path + (0,), inner
    if isinstance(e, (algebra.Iteration, algebra.Time)):
        raise PatternError(f"the {type(e).__name__.lower()} operator has no exact counterpart in SEQ/OR/NOT/KL")
    if isinstance(e, algebra.Next):
        chain = a.chains[path]
        operands = chain.operands
    else:
        chain, operands = None, [path]
    options = []  # per operand: (branch source paths, gap exception path or None)
    for q, o in enumerate(operands):
        oe = a.nodes[o]
        gap = None
        if isinstance(oe, algebra.Except):
            if q == 0:
                raise PatternError("an exception on the first operand of a chain has no NOT counterpart")
            gap, o = o, o + (0,)
        options.append((_source_branches(a, o, f"operand {q + 1}"), gap))
    if span_fail is not None and len(operands) == 2:
        if options[1][1] is not None:
            raise PatternError("nested exceptions have no exact NOT counterpart")
        options[1] = (options[1][0], span_fail)
    out = []
    for choice in itertools.product(*(branches for branches, _ in options)):
        bound = {a.nodes[s].var for s in choice}
        items = []
        for q, src in enumerate(choice):
            ref = a.nodes[src]
            own = list(a.filters.get(src, ()))
            if q >= 1:
                branches, gap = options[q]
                for b in branches:
                    bref = a.nodes[b]
                    y = algebra.Source(bref.type, f"n{q}_{bref.var}")
                    cs = [c.rename({bref.var: y.var}) for c in a.filters.get(b, ())]
                    cs += [
                        c.rename({bref.var: y.var})
                        for c, _, t in (chain.skip if chain else ())
                        if t == q and bref.var in c.variables and c.variables - {bref.var} <= bound
                    ]
                    items.append(("not", y, cs))
                if gap is not None:
                    items.extend(_gap_nots(a, gap, q, bound))
            chain_conds = []
            if chain is not None:
                chain_conds = [c for c, _, _ in chain.skip + chain.fail]
            items.append(("pos", ref, own))
            if q == len(choice) - 1:
                items[-1] = ("pos", ref, own + [c for c in chain_conds if c.variables <= bound])
        out.append(items)
    return out


def _gap_nots(a: algebra.Analysis, gap: tuple, q: int, bound: set[str]) -> list:
    f_path = gap + (1,)
    lam: list[Comparison] = list(a.lam.get(gap, ()))
    items = []
    for s in _source_branches(a, f_path, f"the exception operand of operand {q + 1}"):
        ref = a.nodes[s]
        y = algebra.Source(ref.type, f"x{q}_{ref.var}")
        cs = [c.rename({ref.var: y.var}) for c in a.filters.get(s, ())]
        # a lambda that mentions a variable this clause does not bind holds vacuously
        cs += [c.rename({ref.var: y.var}) for c in lam if ref.var in c.variables and c.variables - {ref.var} <= bound]
        items.append(("not", y, cs))
    return items


# ---- ours -> NEXT ------------------------------------------------------------------------------------
def as_next_pattern(p) -> algebra.NextPattern:
    """``p`` as a NEXT pattern: itself if written in NEXT's infix form, else :func:`to_next` of it."""
    if isinstance(p, algebra.NextPattern):
        return p
    if not isinstance(p, Pattern):
        raise PatternError(f"{p.name or p}: a trend aggregation query (RETURN ...) has no NEXT counterpart")
    return to_next(p)


def to_next(p: Pattern) -> algebra.NextPattern:
    """The NEXT pattern whose composite events are exactly the matches of ``p`` (module docstring,
    "Ours -> NEXT"); a one-line PatternError names the construct that has no NEXT counterpart (and
    the pattern, if it has a name)."""
    try:
        return _to_next(p)
    except PatternError as e:
        if not p.name:
            raise
        raise PatternError(f"{p.name}: {e}") from None


def _to_next(p: Pattern) -> algebra.NextPattern:
    if p.window.kind is not WindowKind.TIME:
        raise PatternError(f"WITHIN {p.window} has no NEXT counterpart: NEXT's windows are time windows")
    if p.strategy is not Strategy.ANY:
        why = ("it consumes events, so two events never share a successor as they do under NEXT's next (;); "
               "write NEXT's next as SEQ(A a, NOT(B n), B b) under skip-till-any-match, or A a ; B b"
               if p.strategy is Strategy.NEXT else "NEXT does not ask for contiguity")
        raise PatternError(f"STRATEGY {p.strategy.value} has no NEXT counterpart: {why}")
    builder = _NextBuilder(p)
    expr = builder.expr(p.structure)
    skip = [c for c in p.conditions if c in builder.skip]
    fail = [c for c in p.conditions if c not in builder.skip and not c.variables & builder.successor_nots]
    return algebra.NextPattern(expr, tuple(fail), tuple(skip), p.window, p.name)


def _unwrap(s: Structure) -> Structure:
    """An operator of one operand is that operand."""
    while isinstance(s, Operator) and len(s.children) == 1:
        s = s.children[0]
    return s


def _flatten(s: Structure, op: Op) -> list[Structure]:
    """The operands of ``s`` with nested operators ``op`` opened (``SEQ(a, SEQ(b, c))`` -> a, b, c)."""
    s = _unwrap(s)
    if isinstance(s, Operator) and s.op is op:
        return [x for c in s.children for x in _flatten(c, op)]
    return [s]


class _NextBuilder:
    """Builds the NEXT expression of a pattern and notes which conditions become skip predicates."""

    def __init__(self, p: Pattern) -> None:
        self.p = p
        self.conditions = set(p.conditions)
        self.skip: set[Comparison] = set()  # conditions of the successor events that choose them (FILTER)
        self.successor_nots: set[str] = set()  # the NOTs that mark a successor: they have no NEXT operand

    def expr(self, s: Structure) -> algebra.Expr:
        s = _unwrap(s)
        if isinstance(s, EventRef):
            return algebra.Source(s.type, s.var)
        if isinstance(s, Kleene):
            raise _kleene_error(s)
        if s.op is Op.OR:
            return algebra.left_deep([self.expr(c) for c in _flatten(s, Op.OR)], algebra.Union)
        if s.op is Op.AND:
            raise PatternError(f"{format_structure(s)} has no NEXT counterpart: NEXT has no conjunction (AND)")
        return self.chain(s)

    def chain(self, s: Operator) -> algebra.Expr:
        """A SEQ as a chain of nexts; the NOTs of each gap mark the successor or are an exception."""
        operands: list[list[EventRef]] = []
        gaps: list[list[EventRef]] = [[]]
        for x in _flatten(s, Op.SEQ):
            if isinstance(x, Not):
                gaps[-1].append(x.event)
            else:
                operands.append(self.branches(x))
                gaps.append([])
        if gaps[0]:
            raise PatternError(f"NOT({format_structure(gaps[0][0])}) before the first event of a SEQ has no NEXT counterpart: "
                               "NEXT's exception (\\) cancels between two detected events")
        if gaps[-1]:
            raise PatternError(f"NOT({format_structure(gaps[-1][0])}) after the last event of a SEQ has no NEXT counterpart: "
                               "NEXT's exception (\\) cancels between two detected events")
        exprs = [_union(o) for o in operands]
        span_fail = None
        for q in range(1, len(operands)):
            earlier = {r.var for o in operands[:q] for r in o}
            fails = self.gap(gaps[q], operands[q], operands[q - 1], earlier)
            if not fails:
                continue
            if len(operands) == 2:
                span_fail = fails
            else:
                self.check_lambda(fails, {r.var for r in operands[q]}, operands[q])
                exprs[q] = algebra.Except(exprs[q], _union(fails))
        if len(operands) > 1 and self.p.seq_order is not SeqOrder.STRICT:
            raise PatternError(f"{format_structure(s)} under SEQ_ORDER {self.p.seq_order.value} has no NEXT counterpart: "
                               "NEXT's next (;) takes a strictly later event; add SEQ_ORDER strict")
        chain = algebra.left_deep(exprs)
        return algebra.Except(chain, _union(span_fail)) if span_fail else chain

    def branches(self, x: Structure) -> list[EventRef]:
        """The events of a chain operand: an event, or an OR of events."""
        if isinstance(x, EventRef):
            return [x]
        if isinstance(x, Kleene):
            raise _kleene_error(x)
        if isinstance(x, Operator) and x.op is Op.OR:
            branches = [_unwrap(c) for c in _flatten(x, Op.OR)]
            if all(isinstance(b, EventRef) for b in branches):
                return branches
            raise PatternError(f"{format_structure(x)} inside a SEQ has no NEXT counterpart: an element of a "
                               "chain maps only when it is an event or an OR of events")
        raise PatternError(f"{format_structure(x)} has no NEXT counterpart: NEXT has no conjunction (AND)")

    def gap(self, nots: list[EventRef], operand: list[EventRef], previous: list[EventRef], earlier: set[str]) -> list[EventRef]:
        """Pick a successor NOT for every event of ``operand`` (its conditions become skip
        predicates); return the gap's other NOTs (the exception)."""
        used: set[str] = set()
        for b in operand:
            n = next((n for n in nots if n.type == b.type and self.chooses(n, b, earlier)), None)
            if n is None:
                raise self.no_successor_not(nots, b, previous)
            used.add(n.var)
            self.skip.update(c.rename({n.var: b.var}) for c in self.p.conditions if n.var in c.variables)
        self.successor_nots |= used
        return [n for n in nots if n.var not in used]

    def chooses(self, n: EventRef, b: EventRef, earlier: set[str]) -> bool:
        """Whether NOT(n) marks ``b`` as the successor: each condition of n, read on b, is one of b's
        and mentions only b and earlier events."""
        for c in self.p.conditions:
            if n.var in c.variables and not (c.variables - {n.var} <= earlier and c.rename({n.var: b.var}) in self.conditions):
                return False
        return True

    def no_successor_not(self, nots: list[EventRef], b: EventRef, previous: list[EventRef]) -> PatternError:
        same = [n for n in nots if n.type == b.type]
        if same:
            c = next(c for c in self.p.conditions if same[0].var in c.variables)
            return PatternError(
                f"NOT({format_structure(same[0])}) before {b.var} does not make {b.var} NEXT's next {b.type} event: its "
                f"condition '{c}' is not a condition of {b.var} about {b.var} and earlier events only"
            )
        strict = "" if self.p.seq_order is SeqOrder.STRICT else " (with SEQ_ORDER strict)"
        prev = format_structure(previous[0]) if len(previous) == 1 else "(" + " | ".join(format_structure(r) for r in previous) + ")"
        return PatternError(
            f"SEQ(..., {prev}, {format_structure(b)}, ...) under skip-till-any-match pairs {prev} with every later {b.type} event, "
            f"NEXT's next (;) only with the first: put NOT({format_type(b.type)} n) just before {b.var}{strict}, "
            f"or write {prev} ; {format_structure(b)}"
        )

    def check_lambda(self, fails: list[EventRef], guarded: set[str], operand: list[EventRef]) -> None:
        """In a chain of three or more operands an exception may relate only to the events it guards."""
        for f in fails:
            for c in self.p.conditions:
                if f.var in c.variables and not c.variables - {f.var} <= guarded:
                    other = ", ".join(sorted(c.variables - {f.var} - guarded))
                    raise PatternError(
                        f"condition '{c}' relates NOT({format_structure(f)}) to {other}: NEXT's exception (\\) before "
                        f"{' | '.join(r.var for r in operand)} may relate only to that event"
                    )


def _union(refs: list[EventRef]) -> algebra.Expr:
    return algebra.left_deep([algebra.Source(r.type, r.var) for r in refs], algebra.Union)


def _kleene_error(k: Kleene) -> PatternError:
    return PatternError(f"{format_structure(k)} has no NEXT counterpart: KL takes any subset of the {k.event.type} "
                        "events in order, NEXT's iteration (+) only consecutive occurrences")
