"""Hand-checked edges: window boundaries, equal timestamps under SEQ, empty and one-type streams,
negation release, selection strategies -- on both evaluators, every plan, against explicit answers
and the brute-force matcher."""

from __future__ import annotations

import pytest
from evaluator_cases import every_plan

from cep import Event, EventStream, parse_pattern
from evaluators import evaluate
from evaluators.brute_force import brute_force_matches


def stream(*spec):
    """``("A", ts, {"x": 1}), ...`` -> EventStream (attrs default to x=0)."""
    return EventStream([Event(t, float(ts), dict(a[0]) if a else {"x": 0.0}) for t, ts, *a in spec])


def M(**kw):
    return tuple(sorted((v, tuple(p) if isinstance(p, tuple) else (p,)) for v, p in kw.items()))


def found_by_all(text, s):
    """The matches of every plan on both evaluators (asserted equal to the brute force), as a set."""
    p = parse_pattern(text)
    want = brute_force_matches(p, s)
    for kind, evaluator in (("order", "nfa"), ("tree", "tree"), ("order", "tree")):
        for plan in every_plan(p, kind):
            got = evaluate(p, plan, s, evaluator=evaluator, measure_memory=False).matches
            assert got == want, f"{evaluator} {plan}"
    return {m.bindings for m in want}


def test_time_window_is_inclusive_at_its_boundary():
    s = stream(("A", 0), ("B", 10), ("B", 10.5), ("C", 10.5))
    assert found_by_all("PATTERN SEQ(A a, B b) WITHIN 10 seconds", s) == {M(a=0, b=1)}
    assert found_by_all("PATTERN SEQ(A a, B b, C c) WITHIN 10.5 seconds", s) == {M(a=0, b=1, c=3), M(a=0, b=2, c=3)}


def test_count_window_holds_exactly_n_consecutive_events():
    s = stream(("A", 0), ("X", 1), ("B", 2), ("B", 3), ("C", 3))
    assert found_by_all("PATTERN SEQ(A a, B b) WITHIN 3 events", s) == {M(a=0, b=2)}
    assert found_by_all("PATTERN SEQ(A a, B b) WITHIN 4 events", s) == {M(a=0, b=2), M(a=0, b=3)}
    assert found_by_all("PATTERN AND(A a, B b, C c) WITHIN 4 events", s) == set()
    assert found_by_all("PATTERN AND(B b, C c) WITHIN 2 events", s) == {M(b=3, c=4)}


def test_equal_timestamps_satisfy_seq_in_either_order_unless_strict():
    s = stream(("B", 5), ("A", 5), ("C", 5))
    assert found_by_all("PATTERN SEQ(A a, B b, C c) WITHIN 1 s", s) == {M(a=1, b=0, c=2)}
    assert found_by_all("PATTERN SEQ(A a, B b, C c) WITHIN 1 s SEQ_ORDER strict", s) == set()


def test_empty_stream_gives_no_matches_and_zero_events():
    p = parse_pattern("PATTERN SEQ(A a, NOT(N n), B b) WITHIN 5 s")
    for plan, evaluator in ((next(every_plan(p, "order")), "nfa"), (next(every_plan(p, "tree")), "tree")):
        r = evaluate(p, plan, EventStream([]), evaluator=evaluator)
        assert r.matches == []
        assert r.metrics["events"] == 0 and r.metrics["matches"] == 0 and r.metrics["peak_partial_matches"] == 0
        assert r.metrics["latency_ms_mean"] is None and r.metrics["latency_ms_p95"] is None


def test_stream_of_one_event_type():
    s = stream(("A", 0, {"x": 1}), ("A", 1, {"x": 2}), ("A", 1, {"x": 0}), ("A", 4, {"x": 3}))
    # equal timestamps: event 2 may be a for event 1's b
    assert found_by_all("PATTERN SEQ(A a, A b) WHERE a.x < b.x WITHIN 2 s", s) == {M(a=0, b=1), M(a=2, b=1)}
    assert len(found_by_all("PATTERN AND(A a, A b, A c) WITHIN 1 s", s)) == 6
    # the pattern's other types never occur: nothing matches, nothing breaks
    assert found_by_all("PATTERN SEQ(A a, B b) WITHIN 10 s", s) == set()
    assert found_by_all("PATTERN SEQ(A a, NOT(B n), A c) WHERE a.x > c.x WITHIN 10 s", s) == {M(a=0, c=2), M(a=1, c=2)}
    # an A between a and c kills unless it is a or c itself
    assert found_by_all("PATTERN SEQ(A a, NOT(A n), A c) WITHIN 10 s", s) == {M(a=1, c=2), M(a=2, c=1)}


def test_negation_between_events_counts_ties_and_a_late_equal_timestamp_kills():
    # N at ts 3 arrives after C at ts 3: it may still kill, so the match is held until ts moves on
    s = stream(("A", 0), ("C", 3), ("N", 3), ("C", 4))
    assert found_by_all("PATTERN SEQ(A a, NOT(N n), C c) WITHIN 10 s", s) == set()
    s2 = stream(("A", 0), ("C", 3), ("N", 3.5), ("C", 4))
    assert found_by_all("PATTERN SEQ(A a, NOT(N n), C c) WITHIN 10 s", s2) == {M(a=0, c=1)}


def test_trailing_negation_holds_matches_for_a_window():
    s = stream(("A", 0), ("C", 2), ("N", 5), ("A", 6), ("C", 7), ("X", 20))
    assert found_by_all("PATTERN SEQ(A a, C c, NOT(N n)) WITHIN 5 s", s) == {M(a=3, c=4)}
    assert found_by_all("PATTERN SEQ(A a, C c, NOT(N n)) WITHIN 4.5 s", s) == {M(a=0, c=1), M(a=3, c=4)}


@pytest.mark.parametrize("strategy", ["skip-till-next-match", "strict-contiguity", "partition-contiguity BY x"])
def test_selection_strategies_agree_with_brute_force(strategy):
    s = stream(
        ("A", 0, {"x": 1}), ("B", 1, {"x": 1}), ("A", 1, {"x": 2}), ("B", 2, {"x": 2}),
        ("B", 2, {"x": 1}), ("C", 3, {"x": 1}), ("C", 3, {"x": 2}), ("A", 4, {"x": 1}),
    )
    found = found_by_all(f"PATTERN SEQ(A a, KL(B b), C c) WITHIN 5 s STRATEGY {strategy}", s)
    assert found  # each strategy keeps some of the skip-till-any matches here
    assert found < found_by_all("PATTERN SEQ(A a, KL(B b), C c) WITHIN 5 s", s)


def test_skip_till_next_match_consumes_events_across_or_clauses():
    s = stream(("A", 0), ("B", 1), ("C", 2), ("B", 3))
    text = "PATTERN OR(SEQ(A a, B b), SEQ(A a2, C c)) WITHIN 5 s STRATEGY skip-till-next-match"
    assert found_by_all(text, s) == {M(a=0, b=1)}


def test_kleene_size_bounds_and_per_element_conditions():
    s = stream(("A", 0), ("B", 1, {"x": 1}), ("B", 2, {"x": 5}), ("B", 3, {"x": 2}), ("C", 4))
    assert len(found_by_all("PATTERN SEQ(A a, KL(B b), C c) WITHIN 10 s", s)) == 7
    assert found_by_all("PATTERN SEQ(A a, KL(B b){2,2}, C c) WHERE b.x < 3 WITHIN 10 s", s) == {M(a=0, b=(1, 3), c=4)}


def test_arithmetic_conditions_with_division_by_zero_and_unary_minus():
    """``/`` by an attribute that is zero makes the comparison false; ``-``, ``*`` and unary minus
    evaluate as written -- on every plan of both evaluators, as in the brute force."""
    s = stream(("A", 0, {"x": 4.0, "y": 0.0}), ("B", 1, {"x": 2.0, "y": 2.0}), ("A", 2, {"x": 6.0, "y": 1.0}), ("B", 3, {"x": 0.0, "y": 0.0}))
    found = found_by_all("PATTERN SEQ(A a, B b) WHERE a.x / b.y > 1 AND -a.y < b.x * 2 - 1 WITHIN 10 seconds", s)
    # b1 (y=2): 4/2 = 2 > 1 and -0 < 3 (a0); 6/2 = 3 > 1 and -1 < 3 (a2 comes after b1: no)
    # b3 (y=0): division by zero, false for every a
    assert found == {M(a=0, b=1)}
    found = found_by_all("PATTERN AND(A a, B b) WHERE b.x / a.y >= 0 WITHIN 10 seconds", s)
    # a0 has y = 0: every pair with it is false; a2 (y=1) pairs with both B events
    assert found == {M(a=2, b=1), M(a=2, b=3)}
