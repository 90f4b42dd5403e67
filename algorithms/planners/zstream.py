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
    span = np.zeros((m, m), dtype=np.int64)  # [i, j]: the variables of units i..j
    for i in range(m):
        span[i, i:] = np.bitwise_or.accumulate(np.array(masks[i:], dtype=np.int64))
    g = np.full((m, m), -math.inf)
    upper = np.triu_indices(m)
    g[upper] = model.log_node(span[upper])
    held = np.array([bool(mk >> model.last & 1) for mk in masks])
    la = model.log_alpha
    best = np.full((m, m), math.inf)
    for i, u in enumerate(units):
        best[i, i] = np.logaddexp(u.log_cost, la + u.log_latency)

    def cut_costs(i: int, j: int) -> tuple[np.ndarray, np.ndarray]:
        """Per cut ``k = i..j-1``: the cost of the best trees of ``i..k`` and ``k+1..j`` joined
        without the join node's own ``PM``, and its latency term (``alpha * PM`` of the sibling of
        the part holding ``T_n``; -inf if neither holds it)."""
        c = np.logaddexp(best[i, i:j], best[i + 1 : j + 1, j])
        lat = np.full(j - i, -math.inf)
        if la > -math.inf:
            left_has = np.cumsum(held[i:j]) > 0
            right_has = np.cumsum(held[i + 1 : j + 1][::-1])[::-1] > 0
            sib = np.where(left_has, g[i + 1 : j + 1, j], g[i, i:j])
            lat = np.where(left_has | right_has, la + sib, -math.inf)
            c = np.logaddexp(c, lat)
        return c, lat

    for length in range(2, m + 1):
        for i in range(m - length + 1):
            j = i + length - 1
            best[i, j] = np.logaddexp(g[i, j], cut_costs(i, j)[0].min())

    ref = float(best[0, m - 1])
    shift = ref if ref > -math.inf else 0.0

    def rel(x) -> np.ndarray:
        return np.exp(np.minimum(np.asarray(x) - shift, LOG_FLOAT_MAX))

    def lowest(mask: int) -> int:
        return (mask & -mask).bit_length()

    def build(i: int, j: int, budget: float) -> tuple[Tree, float]:
        if i == j:
            return units[i].tree, float(rel(best[i, i]))
        cuts = np.arange(i, j)
        c, lat = cut_costs(i, j)
        total = rel(np.logaddexp(g[i, j], c))
        fits = [int(k) for k in cuts[total <= budget]] or [int(cuts[np.argmin(total)])]

        def first(k: int) -> tuple[int, int]:  # the part holding the lowest-declared leaf
            return (i, k) if lowest(int(span[i, k])) < lowest(int(span[k + 1, j])) else (k + 1, j)

        k = min(fits, key=lambda k: int(span[first(k)]))
        a = first(k)
        b = (k + 1, j) if a == (i, k) else (i, k)
        own = float(rel(g[i, j]) + rel(lat[k - i]))
        ta, ca = build(*a, budget - own - float(rel(best[b])))
        tb, cb = build(*b, budget - own - ca)
        return ((ta, tb) if a == (i, k) else (tb, ta)), own + ca + cb

    return build(0, m - 1, tie_bound(float(rel(ref))))[0]


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
