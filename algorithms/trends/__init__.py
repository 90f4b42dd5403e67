"""HAMLET's dynamic sharing optimizer (Section 4): bursts, the benefit model, the choice of the query set.

* :mod:`~algorithms.trends.bursts` -- bursts of events (Definition 4.1);
* :mod:`~algorithms.trends.benefit` -- the dynamic sharing benefit (Definition 4.2, Equation 7);
* :mod:`~algorithms.trends.optimizer` -- the sharing plans of a burst (Figure 7), their pruning
  (Theorems 4.3 and 4.5) and :class:`DynamicSharing`, the policy the HAMLET executor
  (:mod:`evaluators.trends.hamlet`) asks per burst whether to share, split or merge.
"""

from algorithms.trends.benefit import BENEFIT_MODELS, DEFAULT_BENEFIT_MODEL, benefit, nonshared_cost, shared_cost
from algorithms.trends.bursts import Burst, detect_bursts
from algorithms.trends.optimizer import DynamicSharing, choose_sharing, format_plan, prune_plans, sharing_plans

__all__ = ["BENEFIT_MODELS", "DEFAULT_BENEFIT_MODEL", "Burst", "DynamicSharing", "benefit", "choose_sharing", "detect_bursts", "format_plan", "nonshared_cost",
           "prune_plans", "shared_cost", "sharing_plans"]
