"""The exact planners against exhaustive search, and every heuristic against the exact planners
(JQPG 6.1), on random clauses and statistics."""

from __future__ import annotations

import itertools
import math

import numpy as np

from hypothesis import given, settings, strategies as st

from algorithms import get_planner
from algorithms.cost_model import ClauseCostModel
from algorithms.costs import clause_cost
from algorithms.plan_ranking import costs_tie, pick, plan_key
from algorithms_strategies import all_bushy_trees, all_sequence_trees, clause_and_stats
from cep.plans import OrderPlan, TreePlan, left_deep_tree

ORDER_HEURISTICS = ["TRIVIAL", "EFREQ", "GREEDY", "II-RANDOM", "II-GREEDY"]
TREE_HEURISTICS = ["ZSTREAM", "ZSTREAM-ORD"]
REL = 1e-9
alphas = st.sampled_from([0.0, 0.0, 0.5, 3.0])


def log_cost(model, plan) -> float:
    return clause_cost(model, plan).log_total


def not_below(a: float, b: float) -> bool:
    """``exp(a) >= exp(b)`` up to float rounding (both log-costs)."""
    return a >= b - REL or (a == b)


def same(a: float, b: float) -> bool:
    return a == b or math.isclose(a, b, rel_tol=REL, abs_tol=1e-9)


def assert_canonical_best(model, plan, candidates) -> None:
    """``plan`` costs what the cheapest candidate costs (within the ranking tolerance) and is the
    candidate of least canonical key among those of that cost (:mod:`algorithms.plan_ranking`)."""
    costs = {p: log_cost(model, p) for p in candidates}
    best = pick(costs, cost=costs.get, key=lambda p: plan_key(p, model.variables), log=True)
    assert costs_tie(log_cost(model, plan), costs[best], log=True), (plan, best)
    assert plan == best, (plan, best, sorted((c, str(p)) for p, c in costs.items())[:6])


@settings(max_examples=200, deadline=None)
@given(clause_and_stats(max_n=7), alphas, st.booleans(), st.booleans())
def test_dp_ld_equals_exhaustive_search_over_all_orders(case, alpha, seq_sel, prune):
    sp, stats = case
    model = ClauseCostModel(sp, stats, alpha=alpha, seq_selectivity=seq_sel)
    plan = get_planner("DP-LD", prune=prune).plan_model(model).plan
    assert_canonical_best(model, plan, [OrderPlan(o) for o in itertools.permutations(sp.positive)])


@settings(max_examples=200, deadline=None)
@given(clause_and_stats(max_n=6), alphas, st.booleans(), st.booleans())
def test_dp_b_equals_exhaustive_search_over_all_bushy_trees(case, alpha, seq_sel, prune):
    sp, stats = case
    model = ClauseCostModel(sp, stats, alpha=alpha, seq_selectivity=seq_sel)
    plan = get_planner("DP-B", prune=prune).plan_model(model).plan
    assert_canonical_best(model, plan, [TreePlan(t) for t in all_bushy_trees(sp.positive)])


@settings(max_examples=80, deadline=None)
@given(clause_and_stats(max_n=6), alphas)
def test_zstream_equals_exhaustive_search_over_trees_on_the_declared_leaf_order(case, alpha):
    sp, stats = case
    model = ClauseCostModel(sp, stats, alpha=alpha)
    plan = get_planner("ZSTREAM").plan_model(model).plan
    assert_canonical_best(model, plan, [TreePlan(t) for t in all_sequence_trees(sp.positive)])


def swaps_and_cycles(order: tuple[str, ...]):
    """Every order one II move away: two positions swapped, or three positions shifted either way."""
    n = len(order)
    for i, j in itertools.combinations(range(n), 2):
        o = list(order)
        o[i], o[j] = o[j], o[i]
        yield tuple(o)
    for i, j, k in itertools.combinations(range(n), 3):
        for a, b, c in ((k, i, j), (j, k, i)):
            o = list(order)
            o[i], o[j], o[k] = order[a], order[b], order[c]
            yield tuple(o)


def windowed_count(model, v: str) -> float:
    return float(model.log_count[model.index[v]])


@settings(max_examples=100, deadline=None)
@given(clause_and_stats(max_n=8), alphas, st.integers(0, 3))
def test_each_heuristic_follows_its_own_rule(case, alpha, seed):
    """JQPG 6.1's heuristics, each checked against its definition (not against the optimum, which
    any plan satisfies): TRIVIAL keeps the declared order; EFREQ sorts by expected events per window;
    GREEDY adds at every step a variable whose addition costs least; II-RANDOM and II-GREEDY end in
    a local minimum of swaps and 3-cycles, II-GREEDY no costlier than GREEDY; ZSTREAM-ORD's leaves
    are a greedy order and its tree is ZSTREAM's best over that leaf order."""
    sp, stats = case
    model = ClauseCostModel(sp, stats, alpha=alpha)
    plan = {name: get_planner(name, seed=seed).plan_model(model).plan for name in ORDER_HEURISTICS + TREE_HEURISTICS}
    assert plan["TRIVIAL"].order == sp.positive
    counts = [windowed_count(model, v) for v in plan["EFREQ"].order]
    assert counts == sorted(counts)
    greedy = plan["GREEDY"].order
    assert_greedy(model, sp, greedy)
    for name in ("II-RANDOM", "II-GREEDY"):
        mine = log_cost(model, plan[name])
        assert all(not_below(log_cost(model, OrderPlan(o)), mine) for o in swaps_and_cycles(plan[name].order)), name
    assert not_below(log_cost(model, OrderPlan(greedy)), log_cost(model, plan["II-GREEDY"]))
    zord = plan["ZSTREAM-ORD"]
    assert_greedy(model, sp, zord.leaves())  # a greedy order (ties may break otherwise than GREEDY's)
    assert same(log_cost(model, zord), min(log_cost(model, TreePlan(t)) for t in all_sequence_trees(zord.leaves())))


def assert_greedy(model, sp, order) -> None:
    """Every step of ``order`` adds a variable whose addition costs least."""
    for k in range(len(order)):
        bound = set(order[:k])
        costs = {v: log_cost_of_prefix_step(model, bound, v) for v in sp.positive if v not in bound}
        assert not_below(min(costs.values()), costs[order[k]]), (k, order, costs)


def log_cost_of_prefix_step(model, bound: set[str], v: str) -> float:
    """The term GREEDY minimizes when it adds ``v`` to ``bound``: ``PM(bound + v)``, plus ``alpha *
    PM(v)`` once the clause's last event ``T_n`` is bound (``Cost_ord + alpha * Cost_lat_ord``)."""
    mask = sum(1 << model.index[u] for u in bound | {v})
    term = float(model.log_node(np.array([mask], dtype=np.int64))[0])
    if model.log_alpha > -math.inf and model.variables[model.last] in bound:
        term = float(np.logaddexp(term, model.log_alpha + model.log_leaf[model.index[v]]))
    return term


@settings(max_examples=60, deadline=None)
@given(clause_and_stats(max_n=9), alphas)
def test_dp_b_is_never_costlier_than_dp_ld_and_zstream_never_cheaper_than_dp_b(case, alpha):
    """Compared in the tree cost model, where DP-LD's order is the left-deep tree it denotes."""
    sp, stats = case
    model = ClauseCostModel(sp, stats, alpha=alpha)
    dp_b = log_cost(model, get_planner("DP-B").plan_model(model).plan)
    order = get_planner("DP-LD").plan_model(model).plan
    assert not_below(log_cost(model, TreePlan(left_deep_tree(order.order))), dp_b)
    for name in TREE_HEURISTICS:
        assert not_below(log_cost(model, get_planner(name).plan_model(model).plan), dp_b)


@settings(max_examples=80, deadline=None)
@given(clause_and_stats(max_n=8), st.booleans())
def test_direct_subset_costs_are_bit_identical_to_the_subset_table(case, seq_sel):
    sp, stats = case
    direct = ClauseCostModel(sp, stats, seq_selectivity=seq_sel)
    masks = np.arange(1, 1 << direct.n, dtype=np.int64)
    if direct.order_kind != "poset":  # partial orders always use the table
        values = direct.log_node(masks)
        assert not direct.has_table
    table = ClauseCostModel(sp, stats, seq_selectivity=seq_sel).table()[masks]
    if direct.order_kind != "poset":  # the same additions in the same order: the same bits
        assert np.array_equal(values, table)
    assert not np.isnan(table).any() and not np.isposinf(table).any()
