"""The multi runtime's candidate search (evaluators/multi/kernel.py, ``_join``): a join examines exactly
the sibling instances its window and SEQ order allow (binary search on the newest key), or, with an
equality condition between the two sides, exactly those of the new instance's hash bucket; ``work``
counts them.  The counts are checked against a brute-force count of the candidate pairs, and the
matches against the brute-force matcher (ties on equal timestamps, where a search off by one would
lose matches)."""

from __future__ import annotations

import dataclasses
import random

import pytest
from evaluator_cases import random_stream
from hypothesis import given, settings
from hypothesis import strategies as st
from multi_cases import SEEDS, SLOW_OK, check_against_brute_force, random_global_plan

from cep.events import Event, EventStream
from cep.global_plans import build_global_plan, workload_clauses
from cep.parser import parse_patterns
from cep.pattern import SeqOrder
from cep.plans import OrderPlan
from evaluators.multi.plan_arrays import J_HIDX
from evaluators.multi.runtime import MultiRuntime


def _stream(rng: random.Random, n: int) -> EventStream:
    ts, events = 0.0, []
    for _ in range(n):
        ts += rng.choice((0.0, 0.0, 0.5, 1.0, 2.0))
        events.append(Event(rng.choice("AB"), ts, {"x": float(rng.randint(0, 2))}))
    return EventStream(events)


def _pairs(stream: EventStream, window: float, strict: bool, same_x: bool) -> int:
    """Candidate pairs of SEQ(A a, B b) under the order plan (a, b): for each arriving B, the earlier A
    events within the window not after it; for each arriving A, the earlier B events not before it
    (equal timestamps, unless the order is strict: then no A joins a stored B at all)."""
    n = 0
    evs = stream.events
    for j, e in enumerate(evs):
        for i in range(j):
            d = evs[i]
            if same_x and d.attrs["x"] != e.attrs["x"]:
                continue
            if e.type == "B" and d.type == "A" and e.ts - window <= d.ts and (d.ts < e.ts if strict else d.ts <= e.ts):
                n += 1
            if e.type == "A" and d.type == "B" and not strict and e.ts <= d.ts and d.ts - window <= e.ts:
                n += 1
    return n


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("same_x", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_work_counts_exactly_the_candidates_window_and_order_allow(seed, strict, same_x):
    cond = "WHERE a.x = b.x " if same_x else ""
    pats = parse_patterns(f"PATTERN SEQ(A a, B b) {cond}WITHIN 3 seconds")
    if strict:
        pats = [dataclasses.replace(p, seq_order=SeqOrder.STRICT) for p in pats]
    stream = _stream(random.Random(seed), 60)
    cl = workload_clauses(pats)
    g = build_global_plan("order", cl, {o: OrderPlan(("a", "b")) for o in cl})
    rt, res = check_against_brute_force(pats, g, stream)
    if same_x:  # the join walks the hash bucket of the new instance's x
        assert rt.plan.tables[3][:, J_HIDX].max() >= 0
    assert res.metrics["work"] == _pairs(stream, 3.0, strict, same_x)


@settings(SLOW_OK, max_examples=40)
@given(SEEDS)
def test_equality_buckets_are_exact_on_random_workloads(rng):
    """Equalities between the two sides of a join (hash buckets) on random SEQ/AND workloads with
    shared nodes and different windows: the brute force's matches."""
    conds = ["a.x = b.x", "b.x = c.x + 1", "a.x = c.y", "a.y + b.y = c.x"]
    text = "\n".join(f"PATTERN {rng.choice(['SEQ', 'AND'])}(A a, B b, C c) WHERE {rng.choice(conds)} "
                     f"WITHIN {rng.choice([2, 3, 5])} seconds" for _ in range(3))
    pats = parse_patterns(text)
    stream = random_stream(rng, min_events=6, max_events=16, types=("A", "B", "C"))
    check_against_brute_force(pats, random_global_plan(rng, pats, rng.choice(["order", "tree"])), stream)


def test_search_in_non_strict_seq_is_exact_on_equal_timestamps():
    """SEQ(A, B, C) in non-decreasing order: a new A instance joins only the B events at its own
    timestamp or later; equal timestamps are where a search off by one would lose matches."""
    patterns = parse_patterns("PATTERN SEQ(A a, B b, C c) WITHIN 5 seconds\nPATTERN SEQ(A a, B b) WITHIN 5 seconds")
    cl = workload_clauses(patterns)
    gplan = build_global_plan("order", cl, {o: OrderPlan(("b", "c", "a")[:len(sp.positive)] if len(sp.positive) == 3
                                                         else ("b", "a")) for o, sp in cl.items()})
    times = [(0, "B"), (0, "A"), (0, "C"), (1, "B"), (1, "A"), (1, "B"), (2, "C"), (2, "A"), (2, "C")]
    stream = EventStream([Event(t, float(ts), {}) for ts, t in times])
    _, res = check_against_brute_force(patterns, gplan, stream)
    assert res.counts == [11, 5]
    assert MultiRuntime(patterns, gplan, name="multi-nfa").run(stream, collect_matches=False).counts == [11, 5]
