"""The multi runtime's join search (:meth:`evaluators.multi.runtime._JoinSource.first_candidate`): a
join starts at the first sibling instance whose newest key can follow the new instance's slot, which
is exact only if every node's stored instances are in non-decreasing order of that key (``y[1]``)."""

from __future__ import annotations

from evaluator_cases import random_stream
from hypothesis import given, settings
from hypothesis import strategies as st
from multi_cases import (
    SEEDS,
    SLOW_OK,
    check_against_brute_force,
    random_global_plan,
    random_workload,
)

from cep.events import Event, EventStream
from cep.global_plans import build_global_plan, workload_clauses
from cep.parser import parse_patterns
from cep.plans import OrderPlan
from evaluators.multi.runtime import MultiRuntime


@settings(SLOW_OK, max_examples=30)
@given(SEEDS, st.sampled_from(["order", "tree"]))
def test_stored_instances_stay_in_newest_key_order(rng, kind):
    patterns = random_workload(rng)
    stream = random_stream(rng, min_events=5, max_events=14)
    rt, _ = check_against_brute_force(patterns, random_global_plan(rng, patterns, kind), stream)
    for rn in rt.rnodes.values():
        keys = [x[1] for x in rn.items]
        assert keys == sorted(keys), f"node {rn.node.id}: {keys}"


def test_search_in_non_strict_seq_is_exact_on_equal_timestamps():
    """SEQ(A, B, C) in non-decreasing order: a new A instance joins only the B events at its own
    timestamp or later; equal timestamps are where a search off by one would lose matches."""
    patterns = parse_patterns("PATTERN SEQ(A a, B b, C c) WITHIN 5 seconds\nPATTERN SEQ(A a, B b) WITHIN 5 seconds")
    cl = workload_clauses(patterns)
    gplan = build_global_plan("order", cl, {o: OrderPlan(("b", "c", "a")[:len(sp.positive)] if len(sp.positive) == 3
                                                         else ("b", "a")) for o, sp in cl.items()})
    rt = MultiRuntime(patterns, gplan, name="multi-nfa")
    assert "bisect_left(items" in rt.source  # the search is in the generated joins
    times = [(0, "B"), (0, "A"), (0, "C"), (1, "B"), (1, "A"), (1, "B"), (2, "C"), (2, "A"), (2, "C")]
    stream = EventStream([Event(t, float(ts), {}) for ts, t in times])
    check_against_brute_force(patterns, gplan, stream)
