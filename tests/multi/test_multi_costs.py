"""Cost_ord^multi and Cost_tree^multi (MCEP 3.3, Appendix C): a shared node counted once, its
ancestors still counted; no sharing = the sum of the local costs; incremental = from scratch."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from algorithms.costs import plan_cost
from algorithms.multi.costs import IncrementalCost, cost_multi, workload_models
from cep.global_plans import build_global_plan, workload_clauses
from cep.parser import parse_patterns
from cep.plans import OrderPlan, TreePlan
from cep.statistics import Statistics

STATS = Statistics({"A": 1.0, "B": 2.0, "C": 0.5, "D": 3.0}, {"a,b": 0.3, "b,c": 0.5})
PATS = parse_patterns("""
PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x WITHIN 10 seconds
PATTERN SEQ(A a, B b, D d) WHERE a.x < b.x WITHIN 10 seconds
PATTERN SEQ(A a, B b) WHERE a.x < b.x WITHIN 10 seconds
""")


def _pm(sp_index, names, window=10.0):
    rates = {"a": 1.0, "b": 2.0, "c": 0.5, "d": 3.0}
    v = 1.0
    for n in names:
        v *= window * rates[n]
    if "a" in names and "b" in names:
        v *= 0.3
    return v


def test_shared_subtree_counted_once_and_its_ancestors_still_counted():
    cl = workload_clauses(PATS)
    plans = {(0, 0): TreePlan((("a", "b"), "c")), (1, 0): TreePlan((("a", "b"), "d")), (2, 0): TreePlan(("a", "b"))}
    g = build_global_plan("tree", cl, plans)
    models = workload_models(g, STATS)
    leaves = _pm(0, "a") + _pm(0, "b") + _pm(0, "c") + _pm(0, "d")
    ab = _pm(0, "ab")
    roots = _pm(0, "abc") + _pm(0, "abd")
    assert cost_multi(g, models) == pytest.approx(leaves + ab + roots)
    # pattern 2's whole tree is the shared node: its parent roots are still counted
    alone = sum(plan_cost(cl[o], plans[o], STATS) for o in cl)
    assert alone == pytest.approx(3 * (_pm(0, "a") + _pm(0, "b") + ab) + _pm(0, "c") + _pm(0, "d") + roots)


def test_mpt_cost_is_the_instances_of_its_states():
    cl = workload_clauses(PATS)
    plans = {(0, 0): OrderPlan(("a", "b", "c")), (1, 0): OrderPlan(("a", "b", "d")), (2, 0): OrderPlan(("b", "a"))}
    g = build_global_plan("order", cl, plans)
    models = workload_models(g, STATS)
    want = _pm(0, "a") + _pm(0, "ab") + _pm(0, "abc") + _pm(0, "abd") + _pm(0, "b") + _pm(0, "ab")
    assert cost_multi(g, models) == pytest.approx(want)


def test_shared_node_costs_with_the_widest_window():
    pats = parse_patterns("""
    PATTERN SEQ(A a, B b, C c) WITHIN 10 seconds
    PATTERN SEQ(A a, B b, D d) WITHIN 20 seconds""")
    cl = workload_clauses(pats)
    g = build_global_plan("order", cl, {(0, 0): OrderPlan(("a", "b", "c")), (1, 0): OrderPlan(("a", "b", "d"))})
    stats = Statistics({"A": 1.0, "B": 2.0, "C": 0.5, "D": 3.0})
    models = workload_models(g, stats)
    want = 20 * 1.0 + 20 * 20 * 2.0 + 10 ** 3 * 1.0 * 2.0 * 0.5 + 20 ** 3 * 1.0 * 2.0 * 3.0
    assert cost_multi(g, models) == pytest.approx(want)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=30)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["order", "tree"]))
def test_incremental_equals_from_scratch_and_unshared_equals_sum_of_local_costs(seed, kind):
    from evaluator_cases import random_plan
    from multi_cases import random_workload

    rng = random.Random(seed)
    pats = random_workload(rng, n_variants=3)
    stats = Statistics({t: rng.choice([0.5, 1.0, 2.0, 4.0]) for t in "ABCD"})
    cl = workload_clauses(pats)
    local = {i: random_plan(rng, p, kind) for i, p in enumerate(pats)}
    plans = {o: local[o[0]].plans[o[1]] for o in cl}
    unshared = build_global_plan(kind, cl, plans, share=False)
    models = workload_models(unshared, stats)
    alone = sum(plan_cost(cl[o], plans[o], stats) for o in cl)
    # equal, except that equal leaves (or subtrees) inside one clause are one node of a global plan
    repeated = any(len({sp.type_of(v) for v in sp.positive}) < len(sp.positive) for sp in cl.values())
    if repeated:
        assert cost_multi(unshared, models) <= alone * (1 + 1e-9)
    else:
        assert cost_multi(unshared, models) == pytest.approx(alone, rel=1e-9)
    g = build_global_plan(kind, cl, plans)
    inc = IncrementalCost(g, models)
    for _ in range(6):
        o = rng.choice(sorted(cl))
        g.replace(o, random_plan(rng, pats[o[0]], kind).plans[o[1]])
        inc.update()
        assert inc.total == pytest.approx(cost_multi(g, models), rel=1e-9)
