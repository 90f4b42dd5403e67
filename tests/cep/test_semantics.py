"""The semantics module on hand-checked cases (through the brute-force matcher that applies it)."""

from __future__ import annotations

from cep import Event, EventStream, Match, parse_pattern, to_dnf
from evaluators.brute_force import brute_force_matches


def stream(*spec):
    """``("A", 0, {"x": 1}), ...`` -> EventStream (attrs default to x=0)."""
    return EventStream([Event(t, float(ts), dict(a[0]) if a else {"x": 0.0}) for t, ts, *a in spec])


def found(text, s):
    return {tuple(sorted((v, ps) for v, ps in m.bindings)) for m in brute_force_matches(parse_pattern(text), s)}


def M(**kw):
    return tuple(sorted((v, tuple(p) if isinstance(p, tuple) else (p,)) for v, p in kw.items()))


def test_time_window_is_inclusive():
    s = stream(("A", 0), ("B", 10), ("B", 10.5))
    assert found("PATTERN SEQ(A a, B b) WITHIN 10 seconds", s) == {M(a=0, b=1)}


def test_count_window_holds_n_consecutive_events():
    s = stream(("A", 0), ("C", 1), ("B", 2), ("B", 3))
    assert found("PATTERN SEQ(A a, B b) WITHIN 3 events", s) == {M(a=0, b=2)}


def test_seq_accepts_equal_timestamps_in_either_order_unless_strict():
    s = stream(("B", 5), ("A", 5))
    assert found("PATTERN SEQ(A a, B b) WITHIN 1 s", s) == {M(a=1, b=0)}
    assert found("PATTERN SEQ(A a, B b) WITHIN 1 s SEQ_ORDER strict", s) == set()


def test_and_reports_every_assignment_and_no_event_fills_two_variables():
    s = stream(("A", 0), ("A", 1))
    assert found("PATTERN AND(A a, A b) WITHIN 5 s", s) == {M(a=0, b=1), M(a=1, b=0)}
    assert found("PATTERN SEQ(A a, A b) WITHIN 5 s", s) == {M(a=0, b=1)}


def test_kleene_reports_every_subset_in_stream_order_with_bounds_and_per_element_conditions():
    s = stream(("A", 0), ("B", 1, {"x": 1}), ("B", 2, {"x": 5}), ("B", 3, {"x": 2}), ("C", 4))
    all_subsets = found("PATTERN SEQ(A a, KL(B b), C c) WITHIN 10 s", s)
    assert len(all_subsets) == 7
    assert found("PATTERN SEQ(A a, KL(B b){2,2}, C c) WITHIN 10 s", s) == {
        M(a=0, b=(1, 2), c=4),
        M(a=0, b=(1, 3), c=4),
        M(a=0, b=(2, 3), c=4),
    }
    assert found("PATTERN SEQ(A a, KL(B b), C c) WHERE b.x < 3 WITHIN 10 s", s) == {
        M(a=0, b=(1,), c=4),
        M(a=0, b=(3,), c=4),
        M(a=0, b=(1, 3), c=4),
    }


def test_negation_between_neighbours_counts_ties():
    s = stream(("A", 0), ("N", 0), ("C", 3))
    assert found("PATTERN SEQ(A a, NOT(N n), C c) WITHIN 10 s", s) == set()
    s2 = stream(("N", 0), ("A", 1), ("C", 3), ("N", 4))
    assert found("PATTERN SEQ(A a, NOT(N n), C c) WITHIN 10 s", s2) == {M(a=1, c=2)}


def test_negation_conditions_decide_which_events_kill():
    s = stream(("A", 0, {"x": 1}), ("N", 1, {"x": 0}), ("C", 2, {"x": 1}))
    assert found("PATTERN SEQ(A a, NOT(N n), C c) WHERE n.x > a.x WITHIN 10 s", s) == {M(a=0, c=2)}
    assert found("PATTERN SEQ(A a, NOT(N n), C c) WHERE n.x < a.x WITHIN 10 s", s) == set()


def test_leading_negation_looks_back_to_the_window_start():
    s = stream(("N", 0), ("A", 5), ("C", 8))
    assert found("PATTERN SEQ(NOT(N n), A a, C c) WITHIN 8 s", s) == set()  # 8 - 0 <= 8: N inside
    assert found("PATTERN SEQ(NOT(N n), A a, C c) WITHIN 7 s", s) == {M(a=1, c=2)}


def test_trailing_negation_waits_for_the_window_after_the_first_event():
    s = stream(("A", 0), ("C", 2), ("N", 5))
    assert found("PATTERN SEQ(A a, C c, NOT(N n)) WITHIN 5 s", s) == set()
    assert found("PATTERN SEQ(A a, C c, NOT(N n)) WITHIN 4 s", s) == {M(a=0, c=1)}


def test_matches_with_negation_are_released_after_the_last_timestamp():
    from cep.semantics import release_point

    s = stream(("A", 0), ("C", 2), ("X", 2), ("X", 3))
    sp = to_dnf(parse_pattern("PATTERN SEQ(A a, NOT(N n), C c) WITHIN 10 s"))[0]
    assert release_point(sp, {"a": s[0], "c": s[1]}, s) == (3, 0)  # at the first event with ts > 2
    sp2 = to_dnf(parse_pattern("PATTERN SEQ(A a, C c, NOT(N n)) WITHIN 2.5 s"))[0]
    assert release_point(sp2, {"a": s[0], "c": s[1]}, s) == (3, 0)  # 3 > 0 + 2.5
    sp3 = to_dnf(parse_pattern("PATTERN SEQ(A a, C c, NOT(N n)) WITHIN 10 s"))[0]
    assert release_point(sp3, {"a": s[0], "c": s[1]}, s) == (4, 0)  # end of stream


def test_skip_till_next_match_uses_each_event_once_in_canonical_order():
    s = stream(("A", 0), ("A", 1), ("B", 2), ("B", 3))
    assert len(found("PATTERN SEQ(A a, B b) WITHIN 10 s", s)) == 4
    assert found("PATTERN SEQ(A a, B b) WITHIN 10 s STRATEGY skip-till-next-match", s) == {M(a=0, b=2), M(a=1, b=3)}


def test_skip_till_next_match_prefers_the_largest_kleene_set():
    s = stream(("A", 0), ("B", 1), ("B", 2), ("C", 3))
    assert found("PATTERN SEQ(A a, KL(B b), C c) WITHIN 10 s STRATEGY skip-till-next-match", s) == {M(a=0, b=(1, 2), c=3)}


def test_strict_contiguity_requires_consecutive_positions():
    s = stream(("A", 0), ("B", 1), ("X", 2), ("A", 3), ("X", 4), ("B", 5))
    assert found("PATTERN SEQ(A a, B b) WITHIN 10 s STRATEGY strict-contiguity", s) == {M(a=0, b=1)}


def test_partition_contiguity_requires_consecutive_positions_within_a_partition():
    s = stream(("A", 0, {"k": 1}), ("X", 1, {"k": 2}), ("B", 2, {"k": 1}), ("B", 3, {"k": 2}), ("B", 4, {"k": 1}))
    assert found("PATTERN SEQ(A a, B b) WITHIN 10 s STRATEGY partition-contiguity BY k", s) == {M(a=0, b=2)}


def test_or_is_the_union_of_its_clauses():
    s = stream(("A", 0), ("B", 1), ("C", 2))
    assert found("PATTERN OR(SEQ(A a, B b), SEQ(A a2, C c)) WITHIN 10 s", s) == {M(a=0, b=1), M(a2=0, c=2)}


def test_nested_and_inside_seq_orders_only_across_elements():
    s = stream(("B", 0), ("A", 1), ("C", 2), ("D", 3))
    # SEQ(A, AND(B, C), D): B and C after A -> B at 0 breaks it; C alone is fine in AND(C, D)
    assert found("PATTERN SEQ(A a, AND(B b, C c), D d) WITHIN 10 s", s) == set()
    assert found("PATTERN SEQ(A a, AND(C c, D d)) WITHIN 10 s", s) == {M(a=1, c=2, d=3)}


def test_matches_are_identified_by_stream_positions():
    m = Match.from_positions({"b": (2, 5), "a": 1})
    assert m.bindings == (("a", (1,)), ("b", (2, 5)))
    assert m.positions == (1, 2, 5)
    assert m.to_json() == '{"a":[1],"b":[2,5]}'
