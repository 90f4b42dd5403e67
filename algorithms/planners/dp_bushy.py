"""DP-B (JQPG 6.1; Selinger et al. [46]): dynamic programming over all bushy trees.

Exact: returns a tree of least ``Cost_tree + alpha * Cost_lat_tree`` over every binary tree whose
leaves are the clause's positive variables (or, for the constrained question, the given subtrees
and the remaining variables), by the bitmask recurrence of :mod:`algorithms.planners.subset_dp`
(``3**n / 2`` candidate splits).  Above ``max_variables`` tree leaves it falls back to ZSTREAM-ORD
and says so in the result.  With ``prune`` (default) ZSTREAM-ORD's tree bounds the search: variable
sets that cost more than that tree's surplus over the unavoidable terms (root and leaves) are
skipped, which never changes the optimum.
"""

from __future__ import annotations

import numpy as np

from algorithms.cost_model import TABLE_LIMIT, ClauseCostModel
from algorithms.planners.base import TreePlanner, Unit
from algorithms.planners.subset_dp import bushy_dp
from algorithms.planners.zstream import ZStreamOrdPlanner


class DPBushyPlanner(TreePlanner):
    """Optimal bushy tree by dynamic programming over variable subsets.

    >>> from cep import parse_pattern, to_dnf, Statistics
    >>> sp = to_dnf(parse_pattern("PATTERN SEQ(A a, B b, C c) WHERE a.x = c.x WITHIN 10 seconds"))[0]
    >>> stats = Statistics({"A": 1.0, "B": 1.0, "C": 1.0}, {"a,c": 0.001})
    >>> str(DPBushyPlanner().plan(sp, stats))
    '((a, c), b)'
    """

    name = "DP-B"

    def __init__(self, *, seed: int = 0, max_variables: int = 20, prune: bool = True) -> None:
        super().__init__(seed=seed)
        self.max_variables = max_variables
        self.prune = prune

    def validate_params(self) -> None:
        super().validate_params()
        self.require_int("max_variables", 1, TABLE_LIMIT)
        self.require_bool("prune")

    def _tree(self, model: ClauseCostModel, units: list[Unit], rng: np.random.Generator):
        if len(units) > self.max_variables:
            fallback = ZStreamOrdPlanner(seed=self.seed)
            tree, _ = fallback._tree(model, units, rng)
            return tree, fallback.name
        bound = None
        if self.prune:
            bound, _ = ZStreamOrdPlanner(seed=self.seed)._tree(model, units, rng)
        return bushy_dp(model, units, bound), None
