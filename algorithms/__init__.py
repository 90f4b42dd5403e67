"""Everything that chooses a plan: cost models, single-pattern planners and their registry,
constrained planning for the multi-pattern optimizers (JQPG Sections 3-6, MCEP 4.2 and 5).

Algorithms never import evaluators.
"""

from algorithms.constrained import cheapest_order_with_prefix, cheapest_tree_containing
from algorithms.cost_model import ClauseCostModel
from algorithms.costs import (
    CostOverflowWarning,
    cost_contiguity_ord,
    cost_lat_ord,
    cost_lat_tree,
    cost_next_ord,
    cost_next_tree,
    cost_ord,
    cost_tree,
    plan_cost,
    plan_log_cost,
)
from algorithms.planning import PlanResult, plan_clauses, plan_pattern
from algorithms.registry import PLANNERS, get_planner, planner_kind, planner_names

__all__ = [name for name in dir() if not name.startswith("_")]
