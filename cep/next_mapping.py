"""NEXT patterns written in our vocabulary, where the two coincide exactly (:mod:`cep.next_algebra`).

``to_pattern(p)`` returns a :class:`cep.pattern.Pattern` with ``SEQ_ORDER strict`` whose matches are
exactly the composite events of ``p``, and the map from its variable names back to ``p``'s:

* ``x_0 ; x_1`` (NEXT's next: ``x_1`` is the *first* event of its operand after ``x_0``) is
  ``SEQ(X0 x0, NOT(X1 n), X1 x1)``: no candidate for ``x_1`` strictly between the two; a skip
  predicate (``FILTER``) of ``x_1`` also goes on the NOT, since it decides who is a candidate, a
  fail predicate only on the match;
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
"""

from __future__ import annotations

import itertools

import cep.next_algebra as algebra
from cep.conditions import Comparison
from cep.errors import PatternError
from cep.pattern import EventRef, Not, Op, Operator, Pattern, SeqOrder


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
