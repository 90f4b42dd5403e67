"""The one definition of the better plan (algorithms/plan_ranking.py): costs within the relative
tolerance tie and the tie goes to the least canonical key; costs that really differ go to the
cheaper plan -- whatever order the candidates come in and whichever of two tied costs rounding
made a hair smaller."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest

from algorithms import get_planner
from algorithms.cost_model import ClauseCostModel
from algorithms.costs import clause_cost
from algorithms.plan_ranking import (
    COST_RTOL,
    LOG_COST_TOL,
    better,
    cheaper,
    costs_tie,
    first_tie,
    global_plan_key,
    order_key,
    pick,
    plan_key,
    rank,
    tie_bound,
    ties,
    tree_key,
)
from algorithms_strategies import all_bushy_trees
from cep import Statistics, parse_pattern, to_dnf
from cep.plans import OrderPlan, TreePlan

VARS = ("a", "b", "c", "d")


def test_costs_within_the_tolerance_tie_and_costs_beyond_it_do_not():
    assert costs_tie(100.0, 100.0 * (1 + COST_RTOL / 2)) and costs_tie(100.0 * (1 + COST_RTOL / 2), 100.0)
    assert not costs_tie(100.0, 100.0 * (1 + 2 * COST_RTOL))
    assert cheaper(100.0, 100.0 * (1 + 2 * COST_RTOL)) and not cheaper(100.0, 100.0 * (1 + COST_RTOL / 2))
    assert not cheaper(100.0 * (1 + 2 * COST_RTOL), 100.0)
    assert costs_tie(0.0, 0.0) and not costs_tie(0.0, 1e-300) and cheaper(0.0, 1e-300)
    assert costs_tie(math.inf, math.inf) and cheaper(1e300, math.inf)
    # log-costs: the same relative tolerance on the cost
    assert costs_tie(5.0, 5.0 + LOG_COST_TOL / 2, log=True) and not costs_tie(5.0, 5.0 + 2 * LOG_COST_TOL, log=True)
    assert costs_tie(-math.inf, -math.inf, log=True) and cheaper(-math.inf, -700.0, log=True)
    assert tie_bound(np.array([0.0, 2.0, math.inf])).tolist() == [0.0, 2.0 * (1 + COST_RTOL), math.inf]


@pytest.mark.parametrize("log", [False, True])
def test_near_equal_costs_pick_the_canonical_plan_in_any_order(log):
    """Every order of three variables at one cost, each rounded a few units in the last place either
    way: the declaration order wins (the least order key), however the candidates are shuffled."""
    rnd = random.Random(7)
    orders = list(itertools.permutations(VARS[:3]))
    for _ in range(50):
        base = 12.345 if log else 1.2345e6
        cost = {o: base * (1 + rnd.randint(-4, 4) * 2.0**-52) for o in orders}
        rnd.shuffle(orders)
        assert pick(orders, cost=cost.get, key=lambda o: order_key(o, VARS), log=log) == ("a", "b", "c")


@pytest.mark.parametrize("log", [False, True])
def test_costs_that_really_differ_pick_the_cheaper_plan(log):
    orders = list(itertools.permutations(VARS[:3]))
    base = 12.345 if log else 1.2345e6
    cost = {o: base for o in orders}
    cheapest = ("c", "b", "a")  # the greatest key: it wins only by its cost
    cost[cheapest] = base - (10 * LOG_COST_TOL if log else base * 10 * COST_RTOL)
    assert pick(orders, cost=cost.get, key=lambda o: order_key(o, VARS), log=log) == cheapest
    assert better(cost[cheapest], order_key(cheapest, VARS), base, order_key(("a", "b", "c"), VARS), log=log)
    assert not better(base, order_key(("a", "b", "c"), VARS), cost[cheapest], order_key(cheapest, VARS), log=log)


def test_a_tie_is_judged_against_the_least_cost_not_the_candidate_held():
    """Tolerance is not transitive: 1, 1+0.9t and 1+1.8t -- the last does not tie with the least,
    so it cannot win by its key even though it ties with the middle one."""
    c = {"x": 1.0, "y": 1.0 + 0.9 * COST_RTOL, "z": 1.0 + 1.8 * COST_RTOL}
    key = {"x": 2, "y": 1, "z": 0}
    for perm in itertools.permutations(c):
        assert pick(perm, cost=c.get, key=key.get) == "y"


def test_rank_orders_by_cost_and_runs_of_tied_costs_by_key():
    cost = {"p": 3.0, "q": 1.0 * (1 + COST_RTOL / 4), "r": 1.0, "s": 2.0, "t": 3.0 * (1 - COST_RTOL / 4)}
    assert rank(cost, cost=cost.get, key=lambda x: x) == ["q", "r", "s", "p", "t"]


def test_the_vectorized_tie_of_each_row_is_the_first_column_tied_with_its_least():
    costs = np.array([[2.0, 1.0 + COST_RTOL / 3, 1.0, 5.0],
                      [4.0, 3.0, 3.0 * (1 + 3 * COST_RTOL), 3.0 * (1 - COST_RTOL / 2)],
                      [math.inf, math.inf, math.inf, math.inf]])
    assert first_tie(costs).tolist() == [1, 1, 0]
    assert ties(costs).tolist() == [[False, True, True, False], [False, True, False, True], [True] * 4]


def test_order_key_reads_from_the_last_position_the_later_declared_variable_last():
    keys = sorted(itertools.permutations(VARS[:3]), key=lambda o: order_key(o, VARS))
    assert keys[0] == ("a", "b", "c") and keys[1] == ("b", "a", "c") and keys[-1] == ("c", "b", "a")
    assert order_key(("b", "a"), {"a": 0, "b": 1}) == order_key(("b", "a"), "ab")


def test_tree_key_prefers_the_least_leaf_set_beside_the_lowest_leaf_then_left():
    trees = list(all_bushy_trees(VARS))
    best = min(trees, key=lambda t: tree_key(t, VARS))
    assert best == ("a", ("b", ("c", "d")))
    # mirror images and swapped children are distinct plans with distinct keys; lowest leaf left wins
    variants = [(("a", "b"), "c"), ("c", ("a", "b")), (("b", "a"), "c"), ("c", ("b", "a"))]
    assert len({tree_key(t, VARS) for t in variants}) == 4
    assert min(variants, key=lambda t: tree_key(t, VARS)) == (("a", "b"), "c")
    assert tree_key(((0, 1), 2), None) == tree_key((("a", "b"), "c"), VARS)


def test_plan_and_global_plan_keys_order_by_kind_and_owner():
    o, t = OrderPlan(("a", "b")), TreePlan(("a", "b"))
    assert plan_key(o, "ab") < plan_key(t, "ab")
    plans = {(1, 0): OrderPlan(("b", "a")), (0, 0): OrderPlan(("a", "b"))}
    key = global_plan_key(plans, {(0, 0): "ab", (1, 0): "ab"})
    assert [owner for owner, _ in key] == [(0, 0), (1, 0)]


def _log_cost(model, plan) -> float:
    return clause_cost(model, plan).log_total


def test_the_dp_b_plan_of_the_cell_that_differed_between_cpus_is_the_canonical_one():
    """jqpg_fig4 cell e54752b8d2d72103 (conj-6-7): with e2,e4 of selectivity 0 every tree that joins
    them first and adds one event at a time costs the same; an AVX-512 and an AVX2 machine chose
    (e1, ((((e2, e4), e5), e3), e6)) and (e1, ((((e2, e4), e6), e3), e5)).  Now both take the one of
    least key among all bushy trees of that cost: the remaining events added in declaration order."""
    sp = to_dnf(parse_pattern(
        "PATTERN AND(FRST e1, LFWD e2, CAMP e3, GCBC e4, IMDX e5, GTIM e6) WHERE e2.diff < e4.diff + (-1.1225) "
        "AND e2.diff > e5.diff + 0.5075 AND e5.diff > e6.diff + (-0.00420022) WITHIN 20 minutes SEQ_ORDER strict"))[0]
    stats = Statistics(
        {"CAMP": 0.02014164504362215, "FRST": 0.034032434728878805, "GCBC": 0.00972355277967966,
         "GTIM": 0.004583960596134697, "IMDX": 0.025003421433461983, "LFWD": 0.003750513215019297},
        {"e2,e4": 0.0, "e2,e5": 0.010904425914047467, "e5,e6": 0.5605278255880666})
    model = ClauseCostModel(sp, stats)
    plan = get_planner("DP-B").plan_model(model).plan
    trees = [TreePlan(t) for t in all_bushy_trees(sp.positive)]
    cost = {p: _log_cost(model, p) for p in trees}
    assert plan == pick(trees, cost=cost.get, key=lambda p: plan_key(p, sp.positive), log=True)
    assert str(plan) == "(e1, ((((e2, e4), e3), e5), e6))"
    for old in ["(e1, ((((e2, e4), e5), e3), e6))", "(e1, ((((e2, e4), e6), e3), e5))"]:
        assert costs_tie(cost[next(p for p in trees if str(p) == old)], cost[plan], log=True)


def test_a_term_every_plan_shares_does_not_hide_a_tie():
    """A Kleene closure of a frequent type makes ``PM`` of the whole clause dwarf every other term:
    orders whose prefix terms differ by a factor of two then tie on the total (within the
    tolerance), and the exact planners return the least-key plan among all such orders, not the one
    whose prefixes alone are cheaper."""
    sp = to_dnf(parse_pattern(
        "PATTERN SEQ(T0 v0, T1 v1, T2 v2, T3 v3, T4 v4, T5 v5, KL(T6 v6)) WITHIN 5 seconds"))[0]
    stats = Statistics({"T0": 1.0, "T1": 1.0, "T2": 1.0, "T3": 2.0, "T4": 1.0, "T5": 2.0, "T6": 7.0})
    model = ClauseCostModel(sp, stats)
    orders = [OrderPlan(o) for o in itertools.permutations(sp.positive)]
    cost = {p: _log_cost(model, p) for p in orders}
    want = pick(orders, cost=cost.get, key=lambda p: plan_key(p, sp.positive), log=True)
    cheapest = min(orders, key=cost.get)
    assert cheapest != want and costs_tie(cost[cheapest], cost[want], log=True)  # a real, hidden difference
    assert get_planner("DP-LD").plan_model(model).plan == want
    assert get_planner("DP-LD", prune=False).plan_model(model).plan == want
