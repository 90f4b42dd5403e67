"""Constrained planning for the multi-pattern optimizer (MCEP Sections 4.2 and 5).

MCEP's local plan generation algorithm must answer, besides "the cheapest plan":
  * (order plans, Theorem 4.1) "the cheapest local order-based evaluation plan O starting with
    prefix O'" -- :func:`cheapest_order_with_prefix`;
  * (tree plans, Theorem C.1) "the cheapest local tree-based evaluation plan T containing all trees
    in Y as subtrees" -- :func:`cheapest_tree_containing`.
DP-LD and DP-B answer exactly; any order (tree) planner of the registry answers with its heuristic.

A neighbourhood move first plans the sub-pattern ``P`` the chosen owners will share (MCEP 4.2: "the
best plan for P"): :func:`best_suborder` and :func:`best_subtree`, the exact DPs of
:mod:`algorithms.planners.subset_dp` restricted to ``P``'s variables under one owner's cost model.
"""

from __future__ import annotations

import math
from typing import Sequence

from cep.dnf import SimplePattern
from cep.errors import PlanError
from cep.plans import OrderPlan, Tree, TreePlan
from cep.statistics import Statistics

from algorithms.cost_model import ClauseCostModel
from algorithms.planners.base import OrderPlanner, TreePlanner, Unit
from algorithms.planners.subset_dp import bushy_dp, left_deep_dp
from algorithms.registry import get_planner


def cheapest_order_with_prefix(
    sp: SimplePattern,
    stats: Statistics,
    prefix: Sequence[str],
    *,
    planner: str = "DP-LD",
    alpha: float = 0.0,
    seq_selectivity: bool = False,
    **params,
) -> OrderPlan:
    """The order of ``planner`` (exact for DP-LD) among those starting with ``prefix``."""
    p = get_planner(planner, **params)
    if not isinstance(p, OrderPlanner):
        raise PlanError(f"planner {planner} makes trees; a prefix constraint needs an order planner")
    model = ClauseCostModel(sp, stats, alpha=alpha, seq_selectivity=seq_selectivity)
    return p.plan_with_prefix(model, prefix).plan


def cheapest_tree_containing(
    sp: SimplePattern,
    stats: Statistics,
    subtrees: Sequence[Tree | TreePlan],
    *,
    planner: str = "DP-B",
    alpha: float = 0.0,
    seq_selectivity: bool = False,
    **params,
) -> TreePlan:
    """The tree of ``planner`` (exact for DP-B) among those containing every given subtree."""
    p = get_planner(planner, **params)
    if not isinstance(p, TreePlanner):
        raise PlanError(f"planner {planner} makes orders; a subtree constraint needs a tree planner")
    model = ClauseCostModel(sp, stats, alpha=alpha, seq_selectivity=seq_selectivity)
    return p.plan_containing(model, subtrees).plan


def best_suborder(model: ClauseCostModel, variables: Sequence[str]) -> tuple[str, ...]:
    """The order of ``variables`` (a sub-pattern of the model's clause) of least cost over its own
    prefixes (``Cost_ord + alpha * Cost_lat_ord``), by DP-LD's recurrence."""
    order = left_deep_dp(model, [], variables=[model.index[v] for v in variables])
    return tuple(model.variables[i] for i in order)


def best_subtree(model: ClauseCostModel, variables: Sequence[str]) -> Tree:
    """The bushy tree over ``variables`` (a sub-pattern of the model's clause) of least cost over its
    own nodes (``Cost_tree + alpha * Cost_lat_tree``), by DP-B's recurrence."""
    idx = sorted(model.index[v] for v in variables)
    return bushy_dp(model, [Unit(1 << i, model.variables[i], float(model.log_leaf[i]), -math.inf) for i in idx])
