"""Constrained planning (MCEP 4.2 and 5): cheapest order with a prefix, cheapest tree with subtrees."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from algorithms import cheapest_order_with_prefix, cheapest_tree_containing, planner_names, planner_kind
from algorithms.constrained import best_suborder, best_subtree
from algorithms.cost_model import ClauseCostModel
from algorithms.costs import (
    clause_cost,
    log_latency_order,
    log_latency_tree,
    log_throughput_order,
    log_throughput_tree,
)
from algorithms_strategies import all_bushy_trees, clause_and_stats
from cep import OrderPlan, PlanError, Statistics, TreePlan, parse_pattern, to_dnf
from cep.plans import tree_leaves


def contains_subtree(tree, sub) -> bool:
    if tree == sub:
        return True
    if isinstance(tree, tuple):
        return contains_subtree(tree[0], sub) or contains_subtree(tree[1], sub)
    return False


def equal_up_to_child_order(a, b) -> bool:
    if not isinstance(a, tuple) or not isinstance(b, tuple):
        return a == b
    return (equal_up_to_child_order(a[0], b[0]) and equal_up_to_child_order(a[1], b[1])) or (
        equal_up_to_child_order(a[0], b[1]) and equal_up_to_child_order(a[1], b[0])
    )


def contains_up_to_child_order(tree, sub) -> bool:
    if equal_up_to_child_order(tree, sub):
        return True
    return isinstance(tree, tuple) and (contains_up_to_child_order(tree[0], sub) or contains_up_to_child_order(tree[1], sub))


@settings(max_examples=60, deadline=None)
@given(clause_and_stats(min_n=2, max_n=6), st.sampled_from([0.0, 1.0]), st.randoms(use_true_random=False))
def test_dp_ld_returns_the_cheapest_order_with_the_prefix(case, alpha, rnd):
    sp, stats = case
    k = rnd.randint(1, len(sp.positive))
    prefix = rnd.sample(list(sp.positive), k)
    model = ClauseCostModel(sp, stats, alpha=alpha)
    got = cheapest_order_with_prefix(sp, stats, prefix, alpha=alpha)
    assert list(got.order[:k]) == prefix
    rest = [v for v in sp.positive if v not in prefix]
    best = min(clause_cost(model, OrderPlan(tuple(prefix) + p)).log_total for p in itertools.permutations(rest))
    assert math.isclose(clause_cost(model, got).log_total, best, rel_tol=1e-9, abs_tol=1e-9) or best == clause_cost(model, got).log_total


@settings(max_examples=60, deadline=None)
@given(clause_and_stats(min_n=3, max_n=6), st.sampled_from([0.0, 1.0]), st.randoms(use_true_random=False))
def test_dp_b_returns_the_cheapest_tree_containing_the_subtrees(case, alpha, rnd):
    sp, stats = case
    vs = list(sp.positive)
    rnd.shuffle(vs)
    cut = rnd.randint(2, len(vs))
    first = list(all_bushy_trees(vs[:cut]))
    subtrees = [first[rnd.randrange(len(first))]]
    if len(vs) - cut >= 2 and rnd.random() < 0.5:
        subtrees.append(tuple(vs[cut : cut + 2]))
    model = ClauseCostModel(sp, stats, alpha=alpha)
    got = cheapest_tree_containing(sp, stats, subtrees, alpha=alpha)
    assert all(contains_subtree(got.root, s) for s in subtrees)
    feasible = [t for t in all_bushy_trees(sp.positive) if all(contains_up_to_child_order(t, s) for s in subtrees)]
    # trees equal up to child order cost the same, so the best feasible tree is the reference
    best = min(clause_cost(model, TreePlan(t)).log_total for t in feasible)
    have = clause_cost(model, got).log_total
    assert have == best or math.isclose(have, best, rel_tol=1e-9, abs_tol=1e-9)


def sub_order_cost(model, order) -> float:
    """``log(Cost_ord + alpha * Cost_lat_ord)`` of an order of some of the clause's variables."""
    lat = log_latency_order(model, order) if model.variables[model.last] in order else -math.inf
    return float(np.logaddexp(log_throughput_order(model, order), model.log_alpha + lat))


def sub_tree_cost(model, tree) -> float:
    """``log(Cost_tree + alpha * Cost_lat_tree)`` of a tree over some of the clause's variables."""
    lat = log_latency_tree(model, tree) if model.variables[model.last] in tree_leaves(tree) else -math.inf
    return float(np.logaddexp(log_throughput_tree(model, tree), model.log_alpha + lat))


@settings(max_examples=150, deadline=None)
@given(clause_and_stats(min_n=1, max_n=7), st.sampled_from([0.0, 0.0, 1.0, 3.0]), st.randoms(use_true_random=False))
def test_best_suborder_equals_exhaustive_search_over_the_orders_of_the_subpattern(case, alpha, rnd):
    sp, stats = case
    vs = rnd.sample(list(sp.positive), rnd.randint(1, len(sp.positive)))
    model = ClauseCostModel(sp, stats, alpha=alpha)
    got = best_suborder(model, vs)
    assert sorted(got) == sorted(vs)
    best = min(sub_order_cost(model, o) for o in itertools.permutations(vs))
    have = sub_order_cost(model, got)
    assert have == best or math.isclose(have, best, rel_tol=1e-9, abs_tol=1e-9)


@settings(max_examples=150, deadline=None)
@given(clause_and_stats(min_n=1, max_n=6), st.sampled_from([0.0, 0.0, 1.0, 3.0]), st.randoms(use_true_random=False))
def test_best_subtree_equals_exhaustive_search_over_the_trees_of_the_subpattern(case, alpha, rnd):
    sp, stats = case
    vs = rnd.sample(list(sp.positive), rnd.randint(1, len(sp.positive)))
    model = ClauseCostModel(sp, stats, alpha=alpha)
    got = best_subtree(model, vs)
    assert sorted(tree_leaves(got)) == sorted(vs)
    best = min(sub_tree_cost(model, t) for t in all_bushy_trees(vs))
    have = sub_tree_cost(model, got)
    assert have == best or math.isclose(have, best, rel_tol=1e-9, abs_tol=1e-9)


SEQ5 = "PATTERN SEQ(A a, B b, C c, D d, E e) WHERE a.x < c.x AND b.x < e.x WITHIN 10 seconds"
STATS5 = Statistics({t: r for t, r in zip("ABCDE", (1.0, 2.0, 0.5, 3.0, 1.5))}, {"a,c": 0.1, "b,e": 0.2})


@pytest.mark.parametrize("name", [n for n in planner_names() if planner_kind(n) == "order"])
def test_every_order_planner_honours_a_prefix(name):
    sp = to_dnf(parse_pattern(SEQ5))[0]
    got = cheapest_order_with_prefix(sp, STATS5, ["d", "b"], planner=name, seed=3)
    assert got.order[:2] == ("d", "b") and sorted(got.order) == sorted(sp.positive)


@pytest.mark.parametrize("name", [n for n in planner_names() if planner_kind(n) == "tree"])
def test_every_tree_planner_keeps_the_given_subtrees(name):
    sp = to_dnf(parse_pattern(SEQ5))[0]
    subtrees = [("e", "a"), ("b", "d")]
    got = cheapest_tree_containing(sp, STATS5, subtrees, planner=name)
    assert all(contains_subtree(got.root, s) for s in subtrees)
    assert sorted(tree_leaves(got.root)) == sorted(sp.positive)


def test_bad_constraints_are_plan_errors():
    sp = to_dnf(parse_pattern(SEQ5))[0]
    with pytest.raises(PlanError, match="'z'"):
        cheapest_order_with_prefix(sp, STATS5, ["z"])
    with pytest.raises(PlanError, match="twice"):
        cheapest_order_with_prefix(sp, STATS5, ["a", "a"])
    with pytest.raises(PlanError, match="more than one"):
        cheapest_tree_containing(sp, STATS5, [("a", "b"), ("b", "c")])
    with pytest.raises(PlanError, match="order planner"):
        cheapest_order_with_prefix(sp, STATS5, ["a"], planner="DP-B")
    with pytest.raises(PlanError, match="tree planner"):
        cheapest_tree_containing(sp, STATS5, [("a", "b")], planner="DP-LD")
