"""JQPG Theorems 1 and 2: the CEP cost functions equal the join cost functions of the reduction."""

from __future__ import annotations

import math

from hypothesis import given, settings, strategies as st

from algorithms import cost_ord, cost_tree
from join_costs import cost_bj, cost_ldj, reduce_to_join_query
from algorithms_strategies import all_bushy_trees, clause_and_stats

pure_clauses = clause_and_stats(
    max_n=6, shapes=("AND", "SEQ"), negation=False, kleene=False, strategies=("any",), count_windows=False
)


@settings(max_examples=100, deadline=None)
@given(pure_clauses, st.randoms(use_true_random=False))
def test_cost_ord_equals_cost_ldj_of_the_left_deep_join(case, rnd):
    sp, stats = case
    order = list(sp.positive)
    rnd.shuffle(order)
    query = reduce_to_join_query(sp, stats)
    assert math.isclose(cost_ord(sp, order, stats), cost_ldj(query, order), rel_tol=1e-9, abs_tol=1e-12)


@settings(max_examples=100, deadline=None)
@given(pure_clauses, st.randoms(use_true_random=False))
def test_cost_tree_equals_cost_bj_of_the_bushy_join(case, rnd):
    sp, stats = case
    trees = list(all_bushy_trees(sp.positive))
    tree = trees[rnd.randrange(len(trees))]
    query = reduce_to_join_query(sp, stats)
    assert math.isclose(cost_tree(sp, tree, stats), cost_bj(query, tree), rel_tol=1e-9, abs_tol=1e-12)
