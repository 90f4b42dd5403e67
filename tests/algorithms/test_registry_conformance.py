"""One conformance suite over every registered planner (STYLE.md: covers every event once, declared
plan kind, stored cost equals recomputed cost, deterministic under a seed across processes, inputs
not mutated), plus the registry's contract."""

from __future__ import annotations

import doctest
import importlib
import json
import math
import os
import pkgutil
import subprocess
import sys
import time

import pytest

import algorithms
from algorithms import PLANNERS, get_planner, plan_pattern, planner_kind, planner_names
from cep import ConfigError, PlanError, Statistics, parse_pattern, to_dnf
from cep.plans import validate_plan

PAPER_NAMES = ["TRIVIAL", "EFREQ", "GREEDY", "II-RANDOM", "II-GREEDY", "DP-LD", "ZSTREAM", "ZSTREAM-ORD", "DP-B"]
PATTERNS = [
    "PATTERN SEQ(A a, NOT(N n), KL(B b){1,3}, C c, D d) WHERE a.x < c.x AND b.x > 1 AND n.x = c.x AND c.x < d.x WITHIN 30 seconds",
    "PATTERN OR(SEQ(A a, B b, C c), AND(D d, E e)) WHERE a.x < b.x AND d.x = e.x WITHIN 20 seconds",
    "PATTERN AND(SEQ(A a, B b), C c, D d, E e) WHERE a.x + c.x < e.x AND b.x = d.x WITHIN 100 events STRATEGY skip-till-next-match",
    "PATTERN SEQ(A a, B b, C c, D d) WHERE a.x = b.x AND c.x = d.x WITHIN 5 seconds STRATEGY strict-contiguity",
]
STATS = Statistics(
    {"A": 1.2, "B": 0.4, "C": 2.5, "D": 0.9, "E": 3.0, "N": 0.7, "Z": 4.0},
    {"a,c": 0.05, "b": 0.3, "c,n": 0.5, "c,d": 0.2, "a,b": 0.01, "d,e": 0.3, "a,c,e": 0.1, "b,d": 0.4},
)


def test_registry_holds_exactly_the_paper_names_in_order():
    assert planner_names() == PAPER_NAMES == list(PLANNERS)
    assert [planner_kind(n) for n in PAPER_NAMES] == ["order"] * 6 + ["tree"] * 3
    for name in PAPER_NAMES:
        assert get_planner(name).name == name


def test_unknown_planner_names_and_parameters_are_plan_errors_listing_the_valid_ones():
    with pytest.raises(PlanError, match="DP-B") as e:
        get_planner("DP-X")
    assert all(n in str(e.value) for n in PAPER_NAMES)
    with pytest.raises(PlanError, match="restart"):
        get_planner("GREEDY", restarts=3)
    with pytest.raises(PlanError):
        planner_kind("nope")


@pytest.mark.parametrize(
    "name, params",
    [("II-RANDOM", {"restarts": 0}), ("II-GREEDY", {"max_steps": -1}), ("DP-B", {"max_variables": 0}), ("TRIVIAL", {"seed": -1})],
)
def test_invalid_parameter_values_are_config_errors(name, params):
    with pytest.raises(ConfigError):
        plan_pattern(parse_pattern(PATTERNS[0]), name, STATS, **params)


@pytest.mark.parametrize("name", PAPER_NAMES)
@pytest.mark.parametrize("text", PATTERNS)
def test_planner_conformance(name, text):
    pattern = parse_pattern(text)
    before = (repr(pattern), STATS.to_dict())
    start = time.perf_counter()
    r = plan_pattern(pattern, name, STATS, alpha=0.3, seed=5)
    wall = time.perf_counter() - start
    assert (repr(pattern), STATS.to_dict()) == before  # inputs not mutated
    clauses = to_dnf(pattern)
    assert r.planner == name and r.kind == planner_kind(name)
    assert len(r.plan.plans) == len(clauses)
    for sp, plan in zip(clauses, r.plan.plans):
        assert plan.kind == r.kind
        validate_plan(sp, plan)  # every positive variable exactly once, nothing else
    assert r.cost == pytest.approx(math.exp(r.log_cost), rel=1e-12)
    assert r.params["seed"] == 5 and r.params["alpha"] == 0.3
    assert 0 < r.plan_time_s <= wall  # the planning itself, inside the call
    again = plan_pattern(pattern, name, STATS, alpha=0.3, seed=5)
    assert again.plan == r.plan


PURE = [
    "PATTERN SEQ(A a, B b, C c, D d, E e) WHERE a.x < c.x AND c.x < d.x AND a.x + c.x < e.x WITHIN 30 seconds",
    "PATTERN AND(A a, B b, C c, D d) WHERE a.x = b.x AND b.x = d.x WITHIN 20 seconds",
]


@pytest.mark.parametrize("name", PAPER_NAMES)
@pytest.mark.parametrize("text", PURE)
def test_stored_cost_equals_the_join_cost_of_the_jqpg_reduction(name, text):
    """The cost a planner reports, against an oracle that shares no code with the cost model: the
    join cost of its plan in the JQPG reduction (Theorems 1 and 2: Cost_ord = Cost_LDJ of the
    left-deep join tree, Cost_tree = Cost_BJ), computed from join cardinalities."""
    from join_costs import cost_bj, cost_ldj, reduce_to_join_query

    pattern = parse_pattern(text)
    (sp,) = to_dnf(pattern)
    r = plan_pattern(pattern, name, STATS, seed=3)
    query = reduce_to_join_query(sp, STATS)
    (plan,) = r.plan.plans
    oracle = cost_ldj(query, plan.order) if r.kind == "order" else cost_bj(query, plan.root)
    assert r.cost == pytest.approx(oracle, rel=1e-9)


def _results(seed: int) -> list:
    out = []
    for text in PATTERNS:
        for name in PAPER_NAMES:
            params = {"restarts": 3} if name == "II-RANDOM" else {}
            r = plan_pattern(parse_pattern(text), name, STATS, seed=seed, **params)
            out.append([name, r.plan.to_json(), r.log_cost])
    return out


def test_plans_are_the_same_in_another_process_with_another_hash_seed():
    code = "import json; from test_registry_conformance import _results; print(json.dumps(_results(11)))"
    env = {**os.environ, "PYTHONHASHSEED": "4242", "PYTHONPATH": os.path.dirname(__file__)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == json.loads(json.dumps(_results(11)))


def test_ii_random_depends_on_its_seed():
    text = "PATTERN SEQ(" + ", ".join(f"T{i} v{i}" for i in range(9)) + ") WITHIN 10 seconds"
    stats = Statistics({f"T{i}": 1.0 + i % 3 for i in range(9)})
    starts = {plan_pattern(parse_pattern(text), "II-RANDOM", stats, seed=s, max_steps=1).plan for s in range(6)}
    assert len(starts) > 1


def test_exact_planners_report_their_fallback_beyond_their_budget():
    r = plan_pattern(parse_pattern(PATTERNS[0]), "DP-LD", STATS, max_variables=3)
    assert r.fallbacks == ("II-GREEDY",)
    r = plan_pattern(parse_pattern(PATTERNS[0]), "DP-B", STATS, max_variables=3)
    assert r.fallbacks == ("ZSTREAM-ORD",)
    assert plan_pattern(parse_pattern(PATTERNS[0]), "DP-B", STATS).fallbacks == (None,)


def test_missing_rate_is_a_statistics_error():
    from cep import StatisticsError

    with pytest.raises(StatisticsError, match="'E'"):
        plan_pattern(parse_pattern(PATTERNS[1]), "DP-B", Statistics({"A": 1.0, "B": 1.0, "C": 1.0, "D": 1.0}))


def test_every_docstring_example_in_algorithms_runs():
    failures = 0
    for mod in pkgutil.walk_packages(algorithms.__path__, "algorithms."):
        failures += doctest.testmod(importlib.import_module(mod.name)).failed
    assert failures == 0
