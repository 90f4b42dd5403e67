"""Plan costs: JQPG's throughput and latency cost functions, and their combination.

Each function below implements one formula; all of them add up ``PM(S)`` values of a
:class:`~algorithms.cost_model.ClauseCostModel` (see there for ``PM`` and the modelling choices):

* ``Cost_ord(O) = sum_{k=1}^{n} PM({p_1..p_k})``  (JQPG 3.1)               -> :func:`cost_ord`
* ``Cost_tree(T) = sum_{N in nodes(T)} PM(leaves(N))``, leaves ``W r_i``   (JQPG 3.2, MCEP App. C)
                                                                            -> :func:`cost_tree`
* ``Cost_lat_ord(O) = sum_{T_i in Succ_O(T_n)} W r_i``                     (JQPG 5.1) -> :func:`cost_lat_ord`
* ``Cost_lat_tree(T) = sum_{N in Anc_T(T_n)} PM(sibling(N))``, ``Anc`` the path from the leaf of
  ``T_n`` up to the root, root excluded                                    (JQPG 5.1) -> :func:`cost_lat_tree`
* ``Cost_next_ord(O) = sum_k m[k]``, ``m[k] = W min(r_p1..r_pk) prod sel`` (JQPG 5.2) -> :func:`cost_next_ord`;
  the paper prints ``sum_k W * m[k]``: the extra factor ``W`` is the same for every plan, so it does
  not change which plan is cheapest, and we drop it to keep ``m[k]`` a number of partial matches,
  commensurable with the latency cost it is added to.  :func:`cost_next_tree` sums ``m`` over
  nodes ("trivially extended for the tree-based model").
* contiguity models (JQPG 5.2): :func:`cost_contiguity_ord` (the tree form is the same model over
  tree nodes, as :func:`plan_log_cost` computes it).
* ``Cost = Cost_trpt + alpha * Cost_lat`` (JQPG 5.1)                      -> :func:`plan_cost`,
  which chooses the throughput model by the clause's selection strategy.

A pattern with several DNF clauses (OR, nested patterns; JQPG Section 4) has one plan per clause.
Its throughput cost is the sum over clauses (the clauses run side by side, so their partial
matches add up) and its latency cost the maximum over clauses (JQPG 5.1: "for a disjunctive
pattern, we define the latency cost function as the maximum over the disjunction operands"):
``Cost(P) = sum_c Cost_trpt(c) + alpha * max_c Cost_lat(c)`` (:func:`pattern_log_cost`).

Values: the ``log_*`` functions return natural logarithms (``-inf`` for a cost of exactly 0, never
``+inf`` or NaN for finite statistics).  The float functions return the cost itself; a cost beyond
the float range (Kleene closures over long windows) comes back as ``inf`` together with a
:class:`CostOverflowWarning` -- use the log functions for such patterns.  Sums of costs held as
logarithms are numpy's ``logaddexp`` (and its ``reduce``).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from algorithms.cost_model import ANY, CONTIGUITY, NEXT, ClauseCostModel
from cep.dnf import SimplePattern
from cep.plans import OrderPlan, Plan, Tree, TreePlan, tree_leaves, validate_plan
from cep.statistics import Statistics

#: the largest log-value whose exponential is a finite float64 (log(1.797e308) = 709.78)
LOG_FLOAT_MAX = math.log(np.finfo(np.float64).max)


class CostOverflowWarning(RuntimeWarning):
    """A cost was converted to float but exceeds the float range: the float is ``inf``; use the
    log-space value (``log_cost``) instead."""


def exp_cost(log_cost: float, *, warn: bool = True) -> float:
    """The float value of a log-space cost: finite whenever it fits float64; otherwise ``inf`` with
    a :class:`CostOverflowWarning` (unless ``warn`` is false), never silently."""
    if log_cost > LOG_FLOAT_MAX:
        if warn:
            warnings.warn(f"cost e^{log_cost:.6g} exceeds the float range; returning inf (use the log cost)", CostOverflowWarning, stacklevel=3)
        return math.inf
    return math.exp(log_cost)


def format_log_cost(log_cost: float) -> str:
    """A cost for people: ``1.234e+05`` when it fits a float, ``10^12345.6`` otherwise."""
    if log_cost == -math.inf:
        return "0"
    if log_cost > LOG_FLOAT_MAX:
        return f"10^{log_cost / math.log(10):.6g}"
    return f"{math.exp(log_cost):.6g}"


# ---- log-space building blocks over a model -------------------------------------------------------
def _order_indices(model: ClauseCostModel, order: Sequence[str]) -> np.ndarray:
    return np.array([model.index[v] for v in order], dtype=np.int64)


def log_throughput_order(model: ClauseCostModel, order: Sequence[str]) -> float:
    """``log sum_k PM(prefix_k)``: Cost_ord (or Cost_next_ord) of ``order`` under ``model``."""
    idx = _order_indices(model, order)
    return np.logaddexp.reduce(model.log_node(np.cumsum(np.int64(1) << idx)))


def log_latency_order(model: ClauseCostModel, order: Sequence[str]) -> float:
    """``log Cost_lat_ord``: the leaves that follow ``T_n`` in the order (``-inf`` if none)."""
    idx = _order_indices(model, order)
    after = idx[int(np.nonzero(idx == model.last)[0][0]) + 1 :]
    return np.logaddexp.reduce(model.log_leaf[after])


def _tree_masks(model: ClauseCostModel, root: Tree) -> list[int]:
    """The variable mask of every node of a tree, children before parents."""
    out: list[int] = []

    def walk(t: Tree) -> int:
        if isinstance(t, tuple):
            m = walk(t[0]) | walk(t[1])
        else:
            m = 1 << model.index[t]
        out.append(m)
        return m

    walk(root)
    return out


def log_throughput_tree(model: ClauseCostModel, root: Tree) -> float:
    """``log sum_{N} PM(leaves(N))``: Cost_tree (or its next-match variant) of a tree."""
    return np.logaddexp.reduce(model.log_node(np.array(_tree_masks(model, root), dtype=np.int64)))


def log_latency_tree(model: ClauseCostModel, root: Tree) -> float:
    """``log Cost_lat_tree``: ``PM`` of the siblings along the path from ``T_n``'s leaf to the root."""
    t = model.variables[model.last]
    siblings: list[int] = []
    node = root
    while isinstance(node, tuple):
        left, right = node
        if t in set(tree_leaves(left)):
            siblings.extend(_tree_masks(model, right)[-1:])
            node = left
        else:
            siblings.extend(_tree_masks(model, left)[-1:])
            node = right
    return np.logaddexp.reduce(model.log_node(np.array(siblings, dtype=np.int64))) if siblings else -math.inf


@dataclass(frozen=True)
class ClauseCost:
    """Log throughput and latency costs of one clause's plan, and their combination."""

    log_throughput: float
    log_latency: float
    log_alpha: float

    @property
    def log_total(self) -> float:
        return np.logaddexp(self.log_throughput, self.log_alpha + self.log_latency)


def clause_cost(model: ClauseCostModel, plan: Plan) -> ClauseCost:
    """The combined cost of one clause's plan (``Cost_trpt + alpha * Cost_lat``, JQPG 5.1)."""
    validate_plan(model.sp, plan)
    if isinstance(plan, OrderPlan):
        trpt, lat = log_throughput_order(model, plan.order), log_latency_order(model, plan.order)
    else:
        trpt, lat = log_throughput_tree(model, plan.root), log_latency_tree(model, plan.root)
    return ClauseCost(trpt, lat, model.log_alpha)


def pattern_log_cost(costs: Sequence[ClauseCost]) -> float:
    """``log(sum_c Cost_trpt(c) + alpha * max_c Cost_lat(c))`` over the DNF clauses of a pattern."""
    trpt = np.logaddexp.reduce([c.log_throughput for c in costs])
    lat = max(c.log_latency for c in costs)
    return np.logaddexp(trpt, costs[0].log_alpha + lat)


# ---- public cost functions ---------------------------------------------------------------------
def _model(sp, stats, throughput, alpha=0.0, seq_selectivity=False) -> ClauseCostModel:
    return ClauseCostModel(sp, stats, alpha=alpha, seq_selectivity=seq_selectivity, throughput=throughput)


def _plan_of(plan) -> Plan:
    if isinstance(plan, (OrderPlan, TreePlan)):
        return plan
    if isinstance(plan, tuple) and len(plan) == 2 and not all(isinstance(x, str) for x in plan):
        return TreePlan(plan)
    if isinstance(plan, (list, tuple)) and all(isinstance(x, str) for x in plan) and len(plan) != 2:
        return OrderPlan(tuple(plan))
    raise TypeError(f"give an OrderPlan or a TreePlan, got {plan!r}")


def cost_ord(sp: SimplePattern, order: Sequence[str], stats: Statistics, *, seq_selectivity: bool = False) -> float:
    """Cost_ord (JQPG 3.1): expected partial matches of an order, skip-till-any-match."""
    validate_plan(sp, OrderPlan(tuple(order)))
    return exp_cost(log_throughput_order(_model(sp, stats, ANY, seq_selectivity=seq_selectivity), order))


def cost_tree(sp: SimplePattern, root: Tree, stats: Statistics, *, seq_selectivity: bool = False) -> float:
    """Cost_tree (JQPG 3.2, MCEP Appendix C): expected partial matches over a tree's nodes."""
    validate_plan(sp, TreePlan(root))
    return exp_cost(log_throughput_tree(_model(sp, stats, ANY, seq_selectivity=seq_selectivity), root))


def cost_lat_ord(sp: SimplePattern, order: Sequence[str], stats: Statistics) -> float:
    """Cost_lat_ord (JQPG 5.1): buffered events examined after ``T_n`` arrives."""
    validate_plan(sp, OrderPlan(tuple(order)))
    return exp_cost(log_latency_order(_model(sp, stats, ANY), order))


def cost_lat_tree(sp: SimplePattern, root: Tree, stats: Statistics) -> float:
    """Cost_lat_tree (JQPG 5.1): partial matches on the siblings of ``T_n``'s path to the root."""
    validate_plan(sp, TreePlan(root))
    return exp_cost(log_latency_tree(_model(sp, stats, ANY), root))


def cost_next_ord(sp: SimplePattern, order: Sequence[str], stats: Statistics, *, seq_selectivity: bool = False) -> float:
    """Cost_next_ord (JQPG 5.2): ``sum_k m[k]``, ``m[k] = W min(r_p1..r_pk) prod sel``."""
    validate_plan(sp, OrderPlan(tuple(order)))
    return exp_cost(log_throughput_order(_model(sp, stats, NEXT, seq_selectivity=seq_selectivity), order))


def cost_next_tree(sp: SimplePattern, root: Tree, stats: Statistics, *, seq_selectivity: bool = False) -> float:
    """The tree form of Cost_next (JQPG 5.2): ``m(leaves(N))`` summed over the nodes."""
    validate_plan(sp, TreePlan(root))
    return exp_cost(log_throughput_tree(_model(sp, stats, NEXT, seq_selectivity=seq_selectivity), root))


def cost_contiguity_ord(sp: SimplePattern, order: Sequence[str], stats: Statistics) -> float:
    """Strict/partition contiguity (JQPG 5.2): Cost_next_ord with adjacency conditions."""
    validate_plan(sp, OrderPlan(tuple(order)))
    return exp_cost(log_throughput_order(_model(sp, stats, CONTIGUITY), order))


def plan_log_cost(sp: SimplePattern, plan, stats: Statistics, *, alpha: float = 0.0, seq_selectivity: bool = False) -> float:
    """``log(Cost_trpt + alpha * Cost_lat)`` of one clause's plan; the throughput model follows
    ``sp.strategy`` (any-match: Cost_ord/Cost_tree; next-match and contiguity: JQPG 5.2)."""
    model = ClauseCostModel(sp, stats, alpha=alpha, seq_selectivity=seq_selectivity)
    return clause_cost(model, _plan_of(plan)).log_total


def plan_cost(sp: SimplePattern, plan, stats: Statistics, *, alpha: float = 0.0, seq_selectivity: bool = False) -> float:
    """``Cost_trpt + alpha * Cost_lat`` of one clause's plan (see :func:`plan_log_cost`); ``inf``
    with a CostOverflowWarning when beyond the float range."""
    return exp_cost(plan_log_cost(sp, plan, stats, alpha=alpha, seq_selectivity=seq_selectivity))
