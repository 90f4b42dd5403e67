"""RANK-SHARE: a multi-pattern optimizer of this package's own design.

Every event type of the workload gets one rank, by its arrival rate (rarest first, ties by name).
Every clause is ordered by the ranks of its variables' types (ties by declaration order), so two
patterns that share their rarest types start with the same prefix; the orders go into one
multi-pattern tree (MPT) that shares every common prefix (MCEP Section 4).  No search: the time
limit is not used.
"""

from __future__ import annotations

from cep.global_plans import build_global_plan
from cep.plans import OrderPlan

from algorithms.multi.base import MultiOptimizer


class RankSharingOptimizer(MultiOptimizer):
    """One global type ranking, each clause ordered by it, common prefixes shared."""

    name = "RANK-SHARE"
    kind = "order"

    def optimize(self, clauses, models, *, time_limit: float):
        rates: dict[str, float] = {}
        for o, sp in clauses.items():
            for v in sp.positive:
                t = sp.type_of(v)
                rates[t] = min(rates.get(t, float("inf")), float(models[o].stats.rates.get(t, 0.0)))
        rank = {t: i for i, t in enumerate(sorted(rates, key=lambda t: (rates[t], t)))}
        plans = {}
        for o, sp in clauses.items():
            pos = list(sp.positive)
            plans[o] = OrderPlan(tuple(sorted(pos, key=lambda v: (rank[sp.type_of(v)], pos.index(v)))))
        return build_global_plan("order", clauses, plans, share=True)
