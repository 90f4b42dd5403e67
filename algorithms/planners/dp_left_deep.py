"""DP-LD (JQPG 6.1; Selinger et al. [46]): dynamic programming over left-deep trees, i.e. orders.

Exact: returns an order of least ``Cost_ord + alpha * Cost_lat_ord`` (the skip-till-next-match or
contiguity model when the clause says so), by the bitmask recurrence of
:mod:`algorithms.planners.subset_dp`.  The DP needs ``2**n`` table entries; above
``max_variables`` variables it falls back to II-GREEDY and says so in the result.  With ``prune``
(default) GREEDY's order bounds the search: prefix sets that cost more than that order's surplus
over the unavoidable terms are skipped, which never changes the optimum.
"""

from __future__ import annotations

import numpy as np

from algorithms.cost_model import TABLE_LIMIT, ClauseCostModel
from algorithms.planners.base import OrderPlanner
from algorithms.planners.greedy import GreedyPlanner
from algorithms.planners.iterative_improvement import IIGreedyPlanner
from algorithms.planners.subset_dp import left_deep_dp


class DPLeftDeepPlanner(OrderPlanner):
    """Optimal order by dynamic programming over variable subsets.

    >>> from cep import parse_pattern, to_dnf, Statistics
    >>> sp = to_dnf(parse_pattern("PATTERN SEQ(A a, B b, C c) WHERE a.x = c.x WITHIN 10 seconds"))[0]
    >>> stats = Statistics({"A": 1.0, "B": 1.0, "C": 1.0}, {"a,c": 0.001})
    >>> str(DPLeftDeepPlanner().plan(sp, stats))
    'a, c, b'
    """

    name = "DP-LD"

    def __init__(self, *, seed: int = 0, max_variables: int = 24, prune: bool = True) -> None:
        super().__init__(seed=seed)
        self.max_variables = max_variables
        self.prune = prune

    def validate_params(self) -> None:
        super().validate_params()
        self.require_int("max_variables", 1, TABLE_LIMIT)
        self.require_bool("prune")

    def _order(self, model: ClauseCostModel, prefix: list[int], rng: np.random.Generator):
        if model.n - len(prefix) > self.max_variables:
            fallback = IIGreedyPlanner(seed=self.seed)
            order, _ = fallback._order(model, prefix, rng)
            return order, fallback.name
        bound = None
        if self.prune:
            bound, _ = GreedyPlanner(seed=self.seed)._order(model, prefix, rng)
        return left_deep_dp(model, prefix, bound), None
