"""ZSTREAM and ZSTREAM-ORD (JQPG 6.1; Mei and Madden [36]).

ZSTREAM "creates an evaluation tree by iterating over all possible tree topologies for a given
sequence of leaves": an interval DP over the leaf sequence (every binary tree whose in-order leaf
sequence is the declaration order), minimizing ``Cost_tree + alpha * Cost_lat_tree``.
ZSTREAM-ORD "first execut[es] GREEDY on the leaves of the tree to produce a 'good' ordering, then
appl[ies] ZSTREAM on the resulting list".  With given subtrees (the constrained question) each
subtree is one leaf of the sequence, placed at its first variable's position (ZSTREAM) or where
GREEDY puts it (ZSTREAM-ORD).  Among trees of tied cost (:mod:`algorithms.plan_ranking`) the one of
least canonical key.
"""

from __future__ import annotations

import math

import numpy as np

from algorithms.cost_model import ClauseCostModel
from algorithms.costs import LOG_FLOAT_MAX
from algorithms.plan_ranking import tie_bound
from algorithms.planners.base import TreePlanner, Unit
from algorithms.planners.greedy import greedy_sequence
from cep.plans import Tree


def _interval_dp(model: ClauseCostModel, units: list[Unit]) -> Tree:
    """The cheapest tree whose in-order leaf sequence is ``units``; among those within the tolerance
    of the cheapest (:mod:`algorithms.plan_ranking`), the one of least canonical key, read from the
    root as :func:`algorithms.planners.subset_dp.bushy_dp` reads its tree."""
    m = len(units)
    masks = [u.mask for u in units]
    span = {}
    for i in range(m):
        acc = 0
        for j in range(i, m):
            acc |= masks[j]
            span[i, j] = acc
    keys = list(span)
    g = dict(zip(keys, model.log_node(np.array([span[k] for k in keys], dtype=np.int64)).tolist()))
    holds_last = [bool(mk >> model.last & 1) for mk in masks]
    has_last = {k: any(holds_last[k[0] : k[1] + 1]) for k in keys}
    la = model.log_alpha
    best = {(i, i): float(np.logaddexp(u.log_cost, la + u.log_latency)) for i, u in enumerate(units)}

    def latency(i: int, k: int, j: int) -> float:
        """``log(alpha * PM)`` of the sibling of the part holding ``T_n`` (-inf if neither holds it)."""
        if la > -math.inf:
            if has_last[i, k]:
                return la + g[k + 1, j]
            if has_last[k + 1, j]:
                return la + g[i, k]
        return -math.inf

    def cut_cost(i: int, k: int, j: int) -> float:
        return float(np.logaddexp(np.logaddexp(best[i, k], best[k + 1, j]), latency(i, k, j)))

    for length in range(2, m + 1):
        for i in range(m - length + 1):
            j = i + length - 1
            best[i, j] = float(np.logaddexp(g[i, j], min(cut_cost(i, k, j) for k in range(i, j))))

    ref = best[0, m - 1]
    shift = ref if ref > -math.inf else 0.0

    def rel(x: float) -> float:
        return math.exp(min(x - shift, LOG_FLOAT_MAX))

    def lowest(mask: int) -> int:
        return (mask & -mask).bit_length()

    def build(i: int, j: int, budget: float) -> tuple[Tree, float]:
        if i == j:
            return units[i].tree, rel(best[i, i])
        cuts = list(range(i, j))
        total = [rel(float(np.logaddexp(g[i, j], cut_cost(i, k, j)))) for k in cuts]
        fits = [k for k, c in zip(cuts, total) if c <= budget] or [cuts[int(np.argmin(total))]]

        def first(k: int) -> tuple[int, int]:  # the part holding the lowest-declared leaf
            return (i, k) if lowest(span[i, k]) < lowest(span[k + 1, j]) else (k + 1, j)

        k = min(fits, key=lambda k: span[first(k)])
        a = first(k)
        b = (k + 1, j) if a == (i, k) else (i, k)
        own = rel(g[i, j]) + rel(latency(i, k, j))
        ta, ca = build(*a, budget - own - rel(best[b]))
        tb, cb = build(*b, budget - own - ca)
        return ((ta, tb) if a == (i, k) else (tb, ta)), own + ca + cb

    return build(0, m - 1, tie_bound(rel(ref)))[0]


class ZStreamPlanner(TreePlanner):
    """Best tree topology over the declaration-order leaf sequence.

    >>> from cep import parse_pattern, to_dnf, Statistics
    >>> sp = to_dnf(parse_pattern("PATTERN SEQ(A a, B b, C c) WHERE a.x = c.x WITHIN 10 seconds"))[0]
    >>> stats = Statistics({"A": 1.0, "B": 1.0, "C": 1.0}, {"a,c": 0.001})
    >>> str(ZStreamPlanner().plan(sp, stats)) in ("((a, b), c)", "(a, (b, c))")
    True
    """

    name = "ZSTREAM"

    def _tree(self, model: ClauseCostModel, units: list[Unit], rng: np.random.Generator):
        return _interval_dp(model, units), None


class ZStreamOrdPlanner(TreePlanner):
    """ZSTREAM over GREEDY's leaf order.

    >>> from cep import parse_pattern, to_dnf, Statistics
    >>> sp = to_dnf(parse_pattern("PATTERN SEQ(A a, B b, C c) WHERE a.x = c.x WITHIN 10 seconds"))[0]
    >>> stats = Statistics({"A": 1.0, "B": 1.0, "C": 1.0}, {"a,c": 0.001})
    >>> str(ZStreamOrdPlanner().plan(sp, stats))
    '((a, c), b)'
    """

    name = "ZSTREAM-ORD"

    def _tree(self, model: ClauseCostModel, units: list[Unit], rng: np.random.Generator):
        order = greedy_sequence(model, [u.mask for u in units])
        return _interval_dp(model, [units[k] for k in order]), None
