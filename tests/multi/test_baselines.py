"""The MCEP 6.2.2 baselines SH, RE and SH-RR (algorithms.multi.baselines): each global plan detects,
per pattern, exactly what the pattern detects alone (brute force), on random workloads with
sharing opportunities; SH shares written prefixes, RE shares nothing, SH-RR shares a common
non-prefix subpattern SH cannot."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from evaluator_cases import random_stream
from hypothesis import given, settings
from hypothesis import strategies as st
from multi_cases import SLOW_OK, random_workload

from algorithms.multi import multi_planner_names, plan_workload
from algorithms.multi.costs import cost_multi, workload_models
from cep.global_plans import workload_clauses
from cep.parser import parse_patterns
from cep.statistics import Statistics
from evaluators.brute_force import brute_force_matches
from evaluators.multi import evaluate_workload

NAMES = ["SH", "RE", "SH-RR"]


def _stats(rng):
    return Statistics({t: rng.choice([0.2, 0.5, 1.0, 2.0, 5.0]) for t in "ABCD"},
                      {"a,b": 0.3, "a,c": 0.5, "b,c": 0.2})


def test_registered():
    assert set(NAMES + ["SH-MDT"]) <= set(multi_planner_names())


@settings(SLOW_OK, max_examples=15)
@given(st.integers(0, 2**32 - 1), st.sampled_from(NAMES))
def test_baselines_detect_per_pattern_what_each_detects_alone(seed, name):
    rng = random.Random(seed)
    pats = random_workload(rng, n_base=2, n_variants=3)
    stats = _stats(rng)
    r = plan_workload(pats, name, stats)
    models = workload_models(workload_clauses(pats), stats)
    assert r.cost == pytest.approx(cost_multi(r.plan, models))
    stream = random_stream(rng, min_events=6, max_events=12)
    res = evaluate_workload(pats, r.plan, stream)
    for i, p in enumerate(pats):
        assert Counter(res.matches_by_pattern[i]) == Counter(brute_force_matches(p, stream.events))


PATS = """
    PATTERN SEQ(A a, B b, C c, D d) WITHIN 5 seconds
    PATTERN SEQ(A a, B b, D d) WITHIN 5 seconds
    PATTERN SEQ(C c, B b, D d) WITHIN 5 seconds
    PATTERN SEQ(A a, C c, B b, D d) WITHIN 5 seconds
"""


def test_sharing_shapes():
    pats = parse_patterns(PATS)
    stats = Statistics({"A": 1.0, "B": 1.0, "C": 1.0, "D": 1.0}, {})
    sh = plan_workload(pats, "SH", stats)
    re_ = plan_workload(pats, "RE", stats)
    rr = plan_workload(pats, "SH-RR", stats)
    # 5 events of each type in a window, no conditions: PM of k variables is 5**k, so a pattern of
    # four events costs 5 + 25 + 125 + 625 = 780 alone and one of three 155: 1870 in all
    assert [r.trivial_cost for r in (sh, re_, rr)] == pytest.approx([1870.0] * 3)
    assert re_.cost == pytest.approx(1870.0)
    assert not [n for n in re_.plan.shared_nodes() if n.size > 1]
    # SH: patterns 0 and 1 share their written prefix SEQ(A, B) (5 + 25), pattern 3 its first state A (5)
    assert sh.cost == pytest.approx(1870.0 - 30 - 5)
    assert [sorted(n.users) for n in sh.plan.shared_nodes() if n.size == 2] == [[(0, 0), (1, 0)]]
    # SH-RR: patterns 1 and 3 reordered to share a, b, d with pattern 0 (5 + 25 + 125 each)
    assert rr.cost == pytest.approx(1870.0 - 155 - 155)
    assert [sorted(n.users) for n in rr.plan.shared_nodes() if n.size == 3] == [[(0, 0), (1, 0), (3, 0)]]
    rng = random.Random(3)
    stream = random_stream(rng, min_events=10, max_events=14)
    for r in (sh, re_, rr):
        res = evaluate_workload(pats, r.plan, stream)
        for i, p in enumerate(pats):
            assert Counter(res.matches_by_pattern[i]) == Counter(brute_force_matches(p, stream.events))


@settings(SLOW_OK, max_examples=6)
@given(st.integers(0, 2**32 - 1))
def test_sh_mdt_detects_per_pattern_what_each_detects_alone(seed):
    rng = random.Random(seed)
    pats = random_workload(rng, n_base=2, n_variants=3)
    stats = _stats(rng)
    r = plan_workload(pats, "SH-MDT", stats, time_limit=2.0)
    assert r.plan.kind == "tree"
    stream = random_stream(rng, min_events=6, max_events=12)
    res = evaluate_workload(pats, r.plan, stream)
    for i, p in enumerate(pats):
        assert Counter(res.matches_by_pattern[i]) == Counter(brute_force_matches(p, stream.events))


def test_sh_mdt_shares_the_sub_query_motto_chose():
    """MOTTO, planning for the MPM (OTT arcs allowed, none chosen in this workload), computes
    SEQ(B, D) once for the three SEQ patterns (DST, then MST substring and merge) and SEQ(A, B, D)
    whole inside SEQ(A, B, C, D) (MST merge with its time filter, a chain of sources): the MPM shares
    the node over b, d among the three SEQ patterns and the node over a, b, d between two."""
    pats = parse_patterns("""
        PATTERN SEQ(A a, B b, C c, D d) WITHIN 5 seconds
        PATTERN SEQ(A a, B b, D d) WITHIN 5 seconds
        PATTERN SEQ(C c, B b, D d) WITHIN 5 seconds
        PATTERN AND(A a, C c, B b, D d) WITHIN 5 seconds""")
    stats = Statistics({"A": 1.0, "B": 2.0, "C": 3.0, "D": 0.5}, {})
    r = plan_workload(pats, "SH-MDT", stats, max_nodes=10_000)  # a budget in nodes: the same plan on any machine
    assert r.motto.method == "exact"
    steps = r.motto.steps
    assert any(s.derivation.composition is not None and "B" in s.query.types for s in steps)
    assert not any("OTT" in s.derivation.techniques for s in steps)
    assert [sorted(n.users) for n in r.plan.shared_nodes() if n.size == 2] == [[(0, 0), (1, 0), (2, 0)]]
    assert [sorted(n.users) for n in r.plan.shared_nodes() if n.size == 3] == [[(0, 0), (1, 0)]]
    assert r.cost < r.trivial_cost
    stream = random_stream(random.Random(5), min_events=10, max_events=14)
    res = evaluate_workload(pats, r.plan, stream)
    for i, p in enumerate(pats):
        assert Counter(res.matches_by_pattern[i]) == Counter(brute_force_matches(p, stream.events))
