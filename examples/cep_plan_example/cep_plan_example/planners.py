"""RARE-SEL: a single-pattern order planner of this package's own design (not one of JQPG's nine).

The first event is the rarest one (the fewest expected events per window, ``log W r_i``); each next
event is the one with the smallest ``log W r_i + 0.5 * sum_j log sel_{i,j}`` over the events ``j``
already placed -- rarity, discounted by half of how selective its joins with the prefix are -- ties
in declaration order.  One pass, ``O(n^2)``.
"""

from __future__ import annotations

import numpy as np

from algorithms.cost_model import ClauseCostModel
from algorithms.planners.base import OrderPlanner


class RarestSelectivePlanner(OrderPlanner):
    """Rarest first, then rarity discounted by the selectivity with the events placed so far."""

    name = "RARE-SEL"

    def __init__(self, *, seed: int = 0, weight: float = 0.5) -> None:
        super().__init__(seed=seed)
        self.weight = weight

    def _order(self, model: ClauseCostModel, prefix: list[int], rng: np.random.Generator):
        order = list(prefix)
        rest = [i for i in range(model.n) if i not in order]
        while rest:
            def key(i: int) -> tuple[float, int]:
                joins = float(sum(model.pair[i, j] for j in order))
                return float(model.log_count[i]) + self.weight * joins, i

            best = min(rest, key=key)
            order.append(best)
            rest.remove(best)
        return order, None
