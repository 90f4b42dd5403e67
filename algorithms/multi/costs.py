"""Costs of global plans: Cost_ord^multi over an MPT (MCEP Section 3.3) and Cost_tree^multi over an
MPM (MCEP Appendix C), computed whole or incrementally.

* ``Cost_ord^multi(MPT) = #inst(MPT) = sum_{N in MPT} Cost_ord^{|P_N|}(P_N)`` (MCEP 3.3): for every
  state of the multi-pattern NFA -- every prefix node, the first state of an order included -- the
  expected number of its instances, ``PM`` of the prefix's variables
  (:class:`algorithms.cost_model.ClauseCostModel`); event buffers that are not a first state are
  not states and cost nothing, as in JQPG's Cost_ord.
* ``Cost_tree^multi(MPM) = sum_{N in nodes(MPM)} C(N)`` (MCEP Appendix C): every distinct node once
  -- leaves included, ``C(leaf) = W r`` as in Cost_tree -- so a shared subtree is counted exactly once
  and every one of its ancestors is still counted.  (The authors' public engine zeroes the ancestors
  of an already counted node; ``tests/multi/test_multi_costs.py`` holds the right count.)

A filter node (MOTTO's OTT, :mod:`cep.global_plans`) is a node like any other: ``C(N)`` is its output,
the ``PM`` of its owner's variables below it; the nodes of the weak sub-tree under it are costed
under the owner's clause without what they leave out (its view, ``GlobalPlan.view_clause``) and, when
shared with the weaker pattern's own owner, counted once.

A shared node holds instances for the widest window among its owners (MCEP 3.1), so its ``PM`` is
computed with the cost model of the owner with the widest window (its conditions, hence its
selectivities, are those of every owner sharing it).  Costs are floats (``exp`` of the model's log
values).  :class:`IncrementalCost` keeps the total under :meth:`cep.global_plans.GlobalPlan.add` and
``remove``: it recomputes only the nodes those touched (created, deleted, or whose owners changed),
so a local-search move costs O(m) for the ``m`` variables it re-plans.
"""

from __future__ import annotations

import math
from typing import Mapping

from cep.global_plans import GlobalPlan, Owner, SharedNode
from cep.statistics import Statistics

from algorithms.cost_model import ClauseCostModel


def workload_models(gplan_or_clauses, stats: Statistics | list[Statistics], *, alpha: float = 0.0) -> dict[Owner, ClauseCostModel]:
    """One cost model per owner; ``stats`` is one Statistics for all, or one per pattern."""
    clauses = gplan_or_clauses.clauses if isinstance(gplan_or_clauses, GlobalPlan) else gplan_or_clauses
    out = {}
    for o, sp in clauses.items():
        st = stats[o[0]] if isinstance(stats, (list, tuple)) else stats
        out[o] = ClauseCostModel(sp, st, alpha=alpha)
    return out


def _counts_in_cost(g: GlobalPlan, node: SharedNode) -> bool:
    """Whether a node is a term of the global cost: every MPM node; an MPT's states only."""
    return g.kind == "tree" or node.leaf is None or bool(node.first_users)


def node_cost(g: GlobalPlan, node: SharedNode, models: Mapping[Owner, ClauseCostModel]) -> float:
    """``C(N)``: the expected instances of the node under the widest window among its owners.  A node
    of a weak sub-tree is costed under the owner's clause as that sub-tree sees it (without the
    conditions it leaves out, :meth:`cep.global_plans.GlobalPlan.view_clause`); a filter node by its
    output, the owner's own ``PM`` of its variables (MOTTO VI: a filter is charged by the composite
    events it outputs), its child counted as a node of its own (once, however many use it)."""
    best = None
    for o, (_, mask, view) in node.users.items():
        w = g.clauses[o].window.size
        if best is None or w > best[0] or (w == best[0] and o < best[1]):
            best = (w, o, mask, view)
    _, o, mask, view = best
    model = models[o] if view is None else _view_model(g, o, view, models[o])
    lv = float(model.log_node([mask])[0])
    return math.exp(lv) if lv < 709.0 else math.inf


def _view_model(g: GlobalPlan, o: Owner, view: tuple[int, int], model: ClauseCostModel) -> ClauseCostModel:
    """The cost model of owner ``o``'s weak sub-tree ``view`` (cached on the plan, per model)."""
    cache = g.__dict__.setdefault("_view_models", {})
    key = (o, view, id(model))
    got = cache.get(key)
    if got is None or got[0] is not model:
        got = cache[key] = (model, ClauseCostModel(g.view_clause(o, view), model.stats, alpha=model.alpha,
                                                   seq_selectivity=model.seq_selectivity, throughput=model.throughput))
    return got[1]


def cost_multi(g: GlobalPlan, models: Mapping[Owner, ClauseCostModel]) -> float:
    """Cost_ord^multi of an MPT or Cost_tree^multi of an MPM, from scratch."""
    return sum(node_cost(g, n, models) for n in g.nodes.values() if _counts_in_cost(g, n))


class IncrementalCost:
    """The global cost of ``g``, kept up to date from the nodes each add/remove touched."""

    def __init__(self, g: GlobalPlan, models: Mapping[Owner, ClauseCostModel]) -> None:
        self.g = g
        self.models = models
        self.terms: dict[int, float] = {}
        self.total = 0.0
        g.touched.clear()
        for n in g.nodes.values():
            if _counts_in_cost(g, n):
                c = node_cost(g, n, models)
                self.terms[n.id] = c
                self.total += c

    def update(self) -> float:
        g = self.g
        for nid, node in g.touched.items():
            old = self.terms.pop(nid, 0.0)
            self.total -= old
            if g.is_alive(node) and _counts_in_cost(g, node):
                c = node_cost(g, node, self.models)
                self.terms[nid] = c
                self.total += c
        g.touched.clear()
        if not self.terms:
            self.total = 0.0
        return self.total

    def recompute(self) -> float:
        """The total summed afresh (drops floating-point drift of long searches)."""
        self.total = sum(self.terms.values())
        return self.total
