"""The eager path (JQPG Section 6, Figure 9): under strict contiguity and ``SEQ_ORDER strict`` a sequence
whose order plan follows the pattern's own order runs without buffering or reordering
(:func:`evaluators.program.eager_applies`, :func:`evaluators.kernel.run_eager`).  It must report
exactly what the brute-force matcher and the lazy path report, and keep no more state than the
pattern's length."""

from __future__ import annotations

import random

from evaluator_cases import random_stream
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cep import Event, EventStream, OrderPlan, PatternPlan, TreePlan, parse_pattern
from cep.plans import left_deep_tree
from evaluators import compile_evaluator, evaluate
from evaluators.brute_force import brute_force_matches

SEEDS = st.integers(0, 2**32 - 1).map(random.Random)
STRICT = "STRATEGY strict-contiguity SEQ_ORDER strict"


def _sequence(rng: random.Random, types: str) -> str:
    n = rng.randint(1, 4)
    names = [f"v{i}" for i in range(n)]
    conds = []
    for _ in range(rng.randint(0, 2)):
        a, b = rng.choice(names), rng.choice(names)
        if a != b:
            conds.append(f"{a}.x {rng.choice(['<', '<=', '>', '=', '!='])} {b}.x")
        else:
            conds.append(f"{a}.x {rng.choice(['<', '>='])} {rng.randint(0, 3)}")
    where = f" WHERE {' AND '.join(conds)}" if conds else ""
    window = rng.choice(["1 seconds", "3 seconds", "4 events"])
    return f"PATTERN SEQ({', '.join(f'{rng.choice(types)} {v}' for v in names)}){where} WITHIN {window} {STRICT}"


def test_the_eager_path_is_taken_only_for_the_patterns_own_order_under_strict_contiguity():
    p = parse_pattern(f"PATTERN SEQ(A a, B b, C c) WITHIN 5 s {STRICT}")
    assert compile_evaluator(p, PatternPlan((OrderPlan(("a", "b", "c")),)), "nfa").eager
    assert not compile_evaluator(p, PatternPlan((OrderPlan(("b", "a", "c")),)), "nfa").eager
    assert not compile_evaluator(p, PatternPlan((TreePlan(left_deep_tree(("a", "b", "c"))),)), "tree").eager
    for other in ("STRATEGY strict-contiguity", "STRATEGY skip-till-any-match SEQ_ORDER strict"):
        q = parse_pattern(f"PATTERN SEQ(A a, B b, C c) WITHIN 5 s {other}")
        assert not compile_evaluator(q, PatternPlan((OrderPlan(("a", "b", "c")),)), "nfa").eager, other
    for text in ("SEQ(A a, KL(B b), C c)", "SEQ(A a, NOT(D d), B b, C c)", "AND(A a, B b, C c)"):
        q = parse_pattern(f"PATTERN {text} WITHIN 5 s {STRICT}")
        order = tuple(v for v in ("a", "b", "c"))
        assert not compile_evaluator(q, PatternPlan((OrderPlan(order),)), "nfa").eager, text


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=200)
@given(SEEDS, st.sampled_from(["AB", "ABC", "ABCD"]))
def test_the_eager_path_reports_what_the_brute_force_matcher_and_the_lazy_path_report(rng, types):
    pattern = parse_pattern(_sequence(rng, types))
    stream = random_stream(rng, min_events=3, max_events=14, types=tuple(types))
    order = tuple(c.var for c in pattern.structure.children)
    eager = evaluate(pattern, PatternPlan((OrderPlan(order),)), stream, evaluator="nfa", measure_memory=False)
    assert eager.program.eager
    lazy = evaluate(pattern, PatternPlan((TreePlan(left_deep_tree(order)),)), stream, evaluator="tree", measure_memory=False)
    assert not lazy.program.eager
    assert eager.matches == brute_force_matches(pattern, stream) == lazy.matches
    assert eager.metrics["partial_matches_created"] <= lazy.metrics["partial_matches_created"] + len(stream)


def test_the_eager_path_keeps_no_buffer():
    """An hour of A, B, C, D once a second: the lazy path buffers the events of every variable for later
    joins (as many as a match's position span allows under contiguity); the eager path holds at most
    one instance per prefix length -- the ones ending at the previous event -- and no buffer."""
    s = EventStream([Event("ABCD"[i % 4], float(i), {"x": float(i % 7)}) for i in range(3600)])
    p = parse_pattern(f"PATTERN SEQ(A a, B b, C c, D d) WHERE a.x < d.x WITHIN 1 hour {STRICT}")
    eager = evaluate(p, PatternPlan((OrderPlan(("a", "b", "c", "d")),)), s, measure_memory=True).metrics
    lazy = evaluate(p, PatternPlan((TreePlan(left_deep_tree(("a", "b", "c", "d"))),)), s, evaluator="tree", measure_memory=True).metrics
    assert eager["matches"] == lazy["matches"] > 0
    assert eager["peak_state"] <= 3 and eager["peak_buffered_events"] <= 1
    assert lazy["peak_buffered_events"] >= 3
