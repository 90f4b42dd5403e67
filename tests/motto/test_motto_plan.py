"""MOTTO's plans (Section V) evaluated step by step with the brute-force matcher: every workload
query gets exactly its own matches; the cost model against DP-B; Table V workloads."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from algorithms.cost_model import ClauseCostModel
from algorithms.costs import log_throughput_tree
from algorithms.motto.cost import MottoCosts
from algorithms.motto.plan import MottoPlan, optimize
from algorithms.motto.query import conj, seq
from algorithms.motto.workloads import table_v_workload
from algorithms.registry import get_planner
from cep.dnf import to_dnf
from cep.pattern import Window
from cep.plans import left_deep_tree
from cep.statistics import Statistics
from motto_cases import TYPES, apply_derivation, brute_composites, queries, streams


def evaluate_plan(plan: MottoPlan, stream) -> dict[str, set]:
    """Run a MOTTO plan: each step from the primitive events (brute force) or from its source's
    results through its composition and filters; the results of every step by name."""
    results: dict[str, set] = {}
    for s in plan.steps:
        if s.source == "q0":
            results[s.name] = brute_composites(s.query, stream)
        else:
            results[s.name] = apply_derivation(s.derivation, stream, results[s.source])
    return results


def assert_plan_answers_each_query(plan: MottoPlan, stream) -> None:
    got = evaluate_plan(plan, stream)
    for q in plan.queries:
        assert got[plan.answer[q.name]] == brute_composites(q, stream), f"{q.name} = {q}\n{plan}"


@st.composite
def workloads_and_stats(draw):
    n = draw(st.integers(2, 4))
    qs = []
    keys = set()
    for i in range(n):
        q = draw(queries())
        if q.key in keys:
            continue
        keys.add(q.key)
        qs.append(replace(q, name=f"q{i + 1}"))
    rates = {t: draw(st.sampled_from([0.1, 0.5, 1.0, 3.0])) for t in TYPES}
    return qs, Statistics(rates)


@settings(max_examples=60, deadline=None)
@given(workloads_and_stats(), streams())
def test_random_plans_answer_each_query_as_alone(ws, stream):
    qs, stats = ws
    plan = optimize(qs, stats, time_budget_s=10.0)
    assert plan.cost <= plan.trivial_cost + 1e-9
    assert_plan_answers_each_query(plan, stream)


W = Window.seconds(10)
WORKLOAD1 = [
    seq("E1", "E2", "E3", window=W, name="q1"),
    seq("E1", "E3", window=W, name="q2"),
    seq("E1", "E2", "E4", window=W, name="q3"),
    seq("E2", "E4", "E3", window=W, name="q4"),
    conj("E1", "E3", window=W, name="q5"),
]
STATS1 = Statistics({"E1": 1.0, "E2": 0.5, "E3": 2.0, "E4": 1.0})


def test_workload1_optimal_plan():
    """Figure 12 (the optimal plan of workload 1 as a Steiner minimum tree; the figure itself is not
    in the paper's text).  Under these rates our optimum combines Figures 8, 4 and 5:
    q5 from scratch, q2 = Filter_sc(q5), q1 merged from q2, and q3, q4 sharing SEQ(E2, E4)."""
    plan = optimize(WORKLOAD1, STATS1)
    assert plan.method == "exact"
    src = {s.name: s.source for s in plan.steps}
    assert src["q5"] == "q0" and src["q2"] == "q5" and src["q1"] == "q2"
    sub = plan.step(src["q3"])
    assert sub.query.body() == "SEQ(E2, E4)" and src["q4"] == sub.name and sub.source == "q0"
    assert plan.cost < plan.trivial_cost
    names = [s.name for s in plan.steps]
    assert all(names.index(s.source) < names.index(s.name) for s in plan.steps if s.source != "q0")
    assert plan.to_json()["steps"][0]["source"] == "q0"


def test_one_search_alone_exact_or_annealing():
    """``solver`` (Figure 14a): the exact search alone finds MOTTO's optimum on workload 1; annealing
    alone is no cheaper than it and no dearer than the trivial plan; an unknown solver is an error."""
    from cep.errors import PlanError

    auto = optimize(WORKLOAD1, STATS1)
    exact = optimize(WORKLOAD1, STATS1, solver="exact")
    sa = optimize(WORKLOAD1, STATS1, solver="annealing", seed=3)
    assert exact.method == "exact" and exact.cost == pytest.approx(auto.cost)
    # the search is timed inside the optimizer, which also builds the sharing graph
    assert 0 < exact.search_seconds < exact.optimizer_seconds and 0 < sa.search_seconds < sa.optimizer_seconds
    assert sa.method == "annealing" and exact.cost - 1e-9 <= sa.cost <= sa.trivial_cost + 1e-9
    assert sa.params["solver"] == "annealing"
    with pytest.raises(PlanError, match="unknown MOTTO solver"):
        optimize(WORKLOAD1, STATS1, solver="greedy")


@settings(max_examples=30, deadline=None)
@given(streams(types=("E1", "E2", "E3", "E4")))
def test_workload1_plan_answers_each_query(stream):
    assert_plan_answers_each_query(optimize(WORKLOAD1, STATS1), stream)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 1000), st.sampled_from([0.0, 0.5, 1.0]), streams(types=tuple(f"E{i}" for i in range(1, 7)), max_len=8))
def test_table_v_workload_plans_answer_each_query(seed, r, stream):
    qs = table_v_workload(6, seed=seed, r=r, n_types=6, length=2, window=Window.seconds(4))
    stats = Statistics({f"E{i}": 1.0 for i in range(1, 7)})
    assert_plan_answers_each_query(optimize(qs, stats, time_budget_s=10.0), stream)


def test_table_v_workload_is_seeded_and_distinct():
    a = table_v_workload(30, seed=3, r=0.5)
    assert [q.key for q in a] == [q.key for q in table_v_workload(30, seed=3, r=0.5)]
    assert len({q.key for q in a}) == 30 and [q.name for q in a] == [f"q{i}" for i in range(1, 31)]
    assert max(q.level for q in table_v_workload(40, seed=1, r=0.0, level=4)) == 4


# ---- the cost model ----------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(st.permutations(TYPES), st.integers(2, 5), st.integers(1, 3), st.booleans())
def test_cost_from_scratch_and_from_a_source_are_dp_b_trees(perm, n, k, is_seq):
    """Cost(q | q0) is DP-B's cheapest Cost_tree (with the SEQ order's selectivity); Cost(q | q_x)
    for a prefix q_x is DP-B's cheapest tree containing q_x's subtree, less that subtree's nodes."""
    k = min(k, n - 1)
    ts = list(perm[:n])
    mk = seq if is_seq else conj
    q = mk(*ts, window=W)
    stats = Statistics({t: r for t, r in zip(TYPES, [0.2, 0.7, 1.5, 3.0, 0.4])})
    costs = MottoCosts(stats)
    pattern, var_type = q.to_pattern()
    (sp,) = to_dnf(pattern)
    model = ClauseCostModel(sp, stats, seq_selectivity=True)
    best = get_planner("DP-B").plan_model(model).plan
    assert costs.tree_cost(q) == pytest.approx(math.exp(log_throughput_tree(model, best.root)))
    src_vars = [v for v in sp.positive if var_type[v] in ts[:k]]
    sub = left_deep_tree(src_vars) if len(src_vars) > 1 else src_vars[0]
    constrained = get_planner("DP-B").plan_containing(model, [sub]).plan
    expected = math.exp(log_throughput_tree(model, constrained.root)) - math.exp(log_throughput_tree(model, sub))
    assert costs.tree_cost(q, frozenset(ts[:k])) == pytest.approx(expected)


Q6 = conj("E1", "E2", "E4", window=W, name="q6")
RATE_REGIMES = {
    "mixed": STATS1,
    "equal": Statistics({f"E{i}": 1.0 for i in range(1, 5)}),
    "sparse": Statistics({f"E{i}": 0.1 for i in range(1, 5)}),
}


@pytest.mark.parametrize("regime", sorted(RATE_REGIMES))
def test_figures_4_5_8_9_are_the_optimal_plans_of_their_queries(regime):
    """Each figure's sharing is MOTTO's optimum for its two queries, in three rate regimes:
    Figure 4 (q1 merged from q2), Figure 5 (q3, q4 from SEQ(E2, E4)), Figure 8 (q2 = Filter_sc(q5)),
    Figure 9 (q1 and q6 from CONJ(E1 & E2))."""
    stats = RATE_REGIMES[regime]
    by = {"q1": WORKLOAD1[0], "q2": WORKLOAD1[1], "q3": WORKLOAD1[2], "q4": WORKLOAD1[3], "q5": WORKLOAD1[4], "q6": Q6}

    def src(names):
        p = optimize([by[n] for n in names], stats)
        assert p.method == "exact" and p.cost < p.trivial_cost
        return p, {s.name: s.source for s in p.steps}

    _, s = src(["q1", "q2"])
    assert s == {"q2": "q0", "q1": "q2"}
    p, s = src(["q3", "q4"])
    assert s["q3"] == s["q4"] != "q0" and p.step(s["q3"]).query.body() == "SEQ(E2, E4)"
    _, s = src(["q2", "q5"])
    assert s == {"q5": "q0", "q2": "q5"}
    p, s = src(["q1", "q6"])
    assert s["q1"] == s["q6"] != "q0" and p.step(s["q1"]).query.body() == "CONJ(E1 & E2)"


def test_figure2_queries_without_common_types_stay_unshared():
    """Figure 2's default plan: every query from the primitive events, when nothing is shareable."""
    qs = [seq("E1", "E2", window=W, name="a"), conj("E3", "E4", window=W, name="b")]
    p = optimize(qs, STATS1)
    assert {s.source for s in p.steps} == {"q0"} and p.cost == pytest.approx(p.trivial_cost)


def test_conditions_enter_the_costs_by_type_keyed_selectivities():
    from cep.conditions import Attr, Comparison
    from cep.parser import parse_pattern
    from algorithms.motto.cost import type_selectivities
    from algorithms.motto.query import from_pattern

    c = Comparison("<", Attr("A", "x"), Attr("B", "x"))
    q = seq("A", "B", window=W, where=[c])
    stats = Statistics({"A": 1.0, "B": 2.0})
    assert MottoCosts(stats, {"A,B": 0.1}).count(q) == pytest.approx(10 * 20 / 2 * 0.1)
    assert MottoCosts(stats).count(q) == pytest.approx(10 * 20 / 2)
    p = parse_pattern("PATTERN SEQ(A a, B b) WHERE a.x < b.x WITHIN 10 seconds")
    sels = type_selectivities(p, Statistics({"A": 1.0, "B": 2.0}, {"a,b": 0.25}))
    assert sels == {"A,B": 0.25}
    assert MottoCosts(stats, sels).count(from_pattern(p)) == pytest.approx(10 * 20 / 2 * 0.25)


def test_docstring_examples_run():
    import doctest
    import importlib
    import pkgutil

    import algorithms.motto

    for mod in pkgutil.walk_packages(algorithms.motto.__path__, "algorithms.motto."):
        assert doctest.testmod(importlib.import_module(mod.name)).failed == 0, mod.name
