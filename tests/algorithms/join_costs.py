"""The join side of the CPG -> JQPG reduction (JQPG Sections 2.5, 3.1 and 3.2).

A pure conjunctive clause becomes a join query: one relation ``R_i`` per variable with cardinality
``|R_i| = W * r_i`` and one predicate per condition with selectivity ``f = sel``.  Selections
(``f_{i,i}``, filters) are pushed into their relation, so ``|R_i|`` below is the cardinality after
selection -- Cost_LDJ's ``C_1 = |R_i1| * f_{i1,i1}`` is then simply ``|R_i1|``, as in the paper.
On that query:

* ``C(S, T) = |S| * |T| * f_{S,T}``, ``f_{S,T}`` the product of the selectivities of the predicates
  between the relations of ``S`` and ``T`` (JQPG 2.5);
* ``Cost_LDJ(L) = C_1 + sum_{k=2}^{n} C(P_{k-1}, R_{i_k})`` for a left-deep tree (JQPG 3.1);
* ``Cost_BJ(T) = sum_N C(N)``, ``C(N) = |R_i|`` at a leaf and ``|L| |R| f_{L,R}`` at an internal node
  (JQPG 3.2).

These are computed here from intermediate join cardinalities, independently of
:mod:`algorithms.cost_model`, so that Theorems 1 and 2 (``Cost_ord = Cost_LDJ``, ``Cost_tree =
Cost_BJ``) can be checked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from cep.dnf import SimplePattern
from cep.errors import PlanError
from cep.plans import Tree, tree_leaves
from cep.statistics import Statistics

from algorithms.window_counts import window_event_count


@dataclass(frozen=True)
class JoinQuery:
    cardinality: Mapping[str, float]  # |R_i| after selection
    predicates: Mapping[frozenset, float]  # variable set -> selectivity f (two or more variables)

    def f(self, left: set, right: set) -> float:
        """``f_{S,T}``: the predicates that span both sides and lie within their union."""
        out = 1.0
        both = left | right
        for vs, sel in self.predicates.items():
            if vs <= both and vs & left and vs & right:
                out *= sel
        return out


def reduce_to_join_query(sp: SimplePattern, stats: Statistics) -> JoinQuery:
    """The JQPG instance of a pure (no NOT, no KL) clause: ``|R_i| = W r_i f_{i,i}``, ``f = sel``."""
    if sp.negated or sp.kleene:
        raise PlanError(f"{sp.name}: the JQPG reduction of Section 3 is for pure patterns (no NOT, no KL)")
    card = {v: window_event_count(sp.type_of(v), stats, sp.window) for v in sp.positive}
    preds: dict[frozenset, float] = {}
    for c in sp.positive_conditions:
        vs = frozenset(c.variables)
        sel = stats.selectivity(vs)
        if len(vs) == 1:
            (v,) = vs
            if vs not in preds:
                card[v] *= sel
            preds[vs] = sel
        else:
            preds[vs] = sel
    return JoinQuery(card, {k: s for k, s in preds.items() if len(k) > 1})


def cost_ldj(query: JoinQuery, order: Sequence[str]) -> float:
    """Cost_LDJ of the left-deep join tree that joins relations in ``order``."""
    size = query.cardinality[order[0]]
    total = size  # C_1
    joined = {order[0]}
    for v in order[1:]:
        size = size * query.cardinality[v] * query.f(joined, {v})  # |P_k| = C(P_{k-1}, R_{i_k})
        total += size
        joined.add(v)
    return total


def cost_bj(query: JoinQuery, root: Tree) -> float:
    """Cost_BJ of a bushy join tree."""

    def walk(t: Tree) -> tuple[float, float, set]:  # (|result|, cost of the subtree, relations)
        if not isinstance(t, tuple):
            c = query.cardinality[t]
            return c, c, {t}
        ls, lc, lv = walk(t[0])
        rs, rc, rv = walk(t[1])
        size = ls * rs * query.f(lv, rv)
        return size, lc + rc + size, lv | rv

    assert len(set(tree_leaves(root))) == len(list(tree_leaves(root)))
    return walk(root)[1]
