"""The multi-pattern baselines of MCEP Section 6.2.2 (Figure 12): SH, RE and SH-RR.

All three build a multi-pattern tree (MPT, :class:`cep.global_plans.MultiPatternTree`): order plans
whose equal prefixes are one node, run by the multi-pattern NFA of :mod:`evaluators.multi`, which
re-checks each owner's window and conditions at the owner's final state.

* **SH** -- "the maximal subexpression sharing technique mentioned in Section 3.2": every pattern
  keeps its written order and every prefix two or more patterns have in common is shared.  The MPT
  shares any node whose key (types, conditions, precedence, window kind) is equal, so SH is the
  written orders put into one MPT with sharing on.
* **RE** -- "the basic reordering method (RE) greedily rebuilds the event sequence by picking the
  event type maximizing the cost function at each step [40]": JQPG's GREEDY order per pattern,
  nothing shared.
* **SH-RR** -- SPASS [54] "selects the subpatterns to share according to a metric called 'redundancy
  ratio'. This metric represents the potential gain in sharing its computation. Each subexpression
  is assigned a score, and the winners are chosen by approximating the well-known minimal substring
  cover problem."  SPASS is not among our papers; **this is our reading of that sentence**:

  - candidates are the maximal common subpatterns of two or more variables of the multi-pattern
    graph (:class:`algorithms.multi.mpg.MultiPatternGraph`, condition- and structure-aware), each
    with every clause containing it;
  - a candidate's cost in a clause is the expected partial matches of its prefix states when it is
    evaluated first (Cost_ord of the prefix under that clause's model); the saving of sharing it
    among ``k`` clauses is the sum of those costs minus the largest one (the shared copy runs under
    the widest window);
  - its *redundancy ratio* is that saving relative to the cost of the clauses sharing it (their
    written-order plans), so a subpattern that is a large part of cheap patterns outranks one that is
    a sliver of expensive ones;
  - winners are picked greedily (highest ratio first, the greedy approximation of a minimal substring
    cover; ratios that tie within :mod:`algorithms.plan_ranking`'s tolerance go to the candidate
    that comes first in the sorted candidate list); each clause takes at most one shared prefix (an MPT shares prefixes only), a candidate is
    re-scored over the clauses still free and kept while two or more remain;
  - a clause that won a subpattern evaluates it first (in the first owner's written order, mapped
    onto each clause) and then its remaining variables in written order; others keep the written
    order.
"""

from __future__ import annotations

import math
from typing import Mapping

from cep.global_plans import GlobalPlan, Owner, build_global_plan
from cep.plans import OrderPlan

from algorithms.cost_model import ClauseCostModel
from algorithms.multi.mpg import MultiPatternGraph
from algorithms.plan_ranking import cheaper


def _written(models: Mapping[Owner, ClauseCostModel]) -> dict[Owner, tuple[str, ...]]:
    from algorithms.registry import get_planner

    p = get_planner("TRIVIAL")
    return {o: tuple(p.plan_model(m).plan.order) for o, m in models.items()}


def _order_cost(model: ClauseCostModel, order) -> float:
    """Cost_ord of the prefix states of ``order`` of length two or more (leaves are buffers)."""
    total = 0.0
    for i in range(2, len(order) + 1):
        lv = float(model.log_node([model.mask_of(order[:i])])[0])
        total += math.exp(lv) if lv < 709.0 else math.inf
    return total


def _sh_plan(clauses, models) -> GlobalPlan:
    """SH: the written orders in one MPT, every common prefix shared."""
    w = _written(models)
    return build_global_plan("order", clauses, {o: OrderPlan(w[o]) for o in clauses}, share=True)


def _re_plan(clauses, models) -> GlobalPlan:
    """RE: JQPG GREEDY per pattern, nothing shared."""
    from algorithms.registry import get_planner

    p = get_planner("GREEDY")
    return build_global_plan("order", clauses, {o: p.plan_model(models[o]).plan for o in clauses}, share=False)


def _sh_rr_plan(clauses, models) -> GlobalPlan:
    """SH-RR: redundancy-ratio greedy sharing of common subpatterns (our reading of SPASS; module doc)."""
    written = _written(models)
    mpg = MultiPatternGraph(clauses, min_size=2)
    base = {o: _order_cost(models[o], written[o]) for o in clauses}
    # candidates: (owner, its variables in written order) -> {clause: the mapped variables}
    cands: dict[tuple, dict[Owner, tuple[str, ...]]] = {}
    for (a, b) in mpg.edge_list:
        for cs in mpg.edges[(a, b)]:
            vs = tuple(v for v in written[a] if v in set(cs.vars_of(a)))
            users = {a: vs}
            for other, m in mpg.containing(a, vs):
                users[other] = tuple(m[v] for v in vs)
            key = frozenset((o, frozenset(x)) for o, x in users.items())
            cands.setdefault(key, users)
    cand_list = sorted(cands.values(), key=lambda u: sorted(u.items()))

    def score(users: dict) -> float:
        costs = [_order_cost(models[o], vs) for o, vs in users.items()]
        saving = sum(costs) - max(costs)
        denom = sum(base[o] for o in users)
        return saving / denom if denom > 0 else 0.0

    assigned: dict[Owner, tuple[str, ...]] = {}
    while True:
        best = None
        for users in cand_list:
            free = {o: vs for o, vs in users.items() if o not in assigned}
            if len(free) < 2:
                continue
            s = score(free)
            if s > 0 and (best is None or cheaper(best[0], s)):  # a tie: the earlier candidate
                best = (s, free)
        if best is None:
            break
        assigned.update(best[1])
    plans = {}
    for o in clauses:
        pre = assigned.get(o, ())
        plans[o] = OrderPlan(pre + tuple(v for v in written[o] if v not in pre))
    return build_global_plan("order", clauses, plans, share=True)


BASELINES = {"SH": _sh_plan, "RE": _re_plan, "SH-RR": _sh_rr_plan}
