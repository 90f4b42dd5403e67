"""MOTTO's query representation: our patterns, canonical forms, DISJ as subsets, division by
nesting level (MOTTO Section II, Section IV-D Table II/III)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from algorithms.motto.query import MOp, Ref, conj, disj, divide, from_pattern, seq
from cep.errors import PatternError
from cep.parser import parse_pattern
from cep.pattern import Window
from motto_cases import as_set, brute_composites, evaluate, queries, streams

W = Window.seconds(10)


@settings(max_examples=60, deadline=None)
@given(queries(), streams())
def test_reference_executor_equals_brute_force(q, stream):
    """The test executor of compositions, on a query without references, is the brute-force matcher."""
    assert as_set(evaluate(q, stream, {})) == brute_composites(q, stream)


@settings(max_examples=40, deadline=None)
@given(queries(), streams())
def test_canonical_form_keeps_matches(q, stream):
    assert brute_composites(q.canonical(), stream) == brute_composites(q, stream)


def test_disj_is_every_nonempty_subset():
    from cep.events import Event, EventStream

    s = EventStream([Event("A", 0.0, {}), Event("B", 1.0, {}), Event("A", 20.0, {})])
    got = brute_composites(disj("A", "B", window=W), s)
    assert got == {frozenset({("A", 0)}), frozenset({("B", 1)}), frozenset({("A", 0), ("B", 1)}), frozenset({("A", 2)})}


def test_from_pattern_maps_operators_and_conditions_and_refuses_what_motto_does_not_share():
    p = parse_pattern("PATTERN SEQ(E1 a, AND(E2 b, E3 c), OR(E4 d, E5 e)) WITHIN 10 seconds")
    q = from_pattern(p)
    assert q == seq("E1", conj("E2", "E3", window=W), disj("E4", "E5", window=W), window=W)
    qc = from_pattern(parse_pattern("PATTERN SEQ(E1 a, E2 b) WHERE a.x < b.x WITHIN 10 seconds"))
    assert [str(c) for c in qc.conditions] == ["E1.x < E2.x"]
    with pytest.raises(PatternError, match="NOT or KL"):
        from_pattern(parse_pattern("PATTERN SEQ(E1 a, NOT(E2 b), E3 c) WITHIN 10 seconds"))
    with pytest.raises(PatternError, match="twice"):
        seq("E1", "E1", window=W)


def test_canonical_flattens_and_sorts():
    a = seq("E1", seq("E2", "E3", window=W), window=W)
    assert a.key == seq("E1", "E2", "E3", window=W).key
    assert conj("E3", "E1", window=W).key == conj("E1", "E3", window=W).key
    assert seq("E3", "E1", window=W).key != seq("E1", "E3", window=W).key
    assert conj("E1", "E3", window=W).key != conj("E1", "E3", window=Window.seconds(5)).key


def test_divide_nested_query_table_iii():
    """MOTTO Example 7 / Table III: q_i = SEQ(E1, DISJ(E4|E5), CONJ(E2&E3)), q_j = SEQ(E1, CONJ(E2&E3))."""
    qi = seq("E1", disj("E4", "E5", window=W), conj("E2", "E3", window=W), window=W)
    qj = seq("E1", conj("E2", "E3", window=W), window=W)
    q1, q2, q3 = divide(qi)
    assert q1.body() == "DISJ(E4 | E5)" and q2.body() == "CONJ(E2 & E3)"
    assert q3.op is MOp.SEQ and q3.operands[0] == "E1" and q3.operands[1] == Ref(q1) and q3.operands[2] == Ref(q2)
    assert all(p.level == 1 for p in divide(qi))
    assert qi.level == 2
    r1, r2 = divide(qj)
    assert r1.key == q2.key and r2.body() == "SEQ(E1, {CONJ(E2 & E3)})"


def test_divide_levels_table_ii():
    """Table II: a level-n query divides into n levels, innermost first, each non-nested."""
    inner = conj("E1", "E2", window=W)
    q = inner
    for i, t in enumerate(["E3", "E4", "E5"]):
        q = (seq if i % 2 == 0 else conj)(t, q, window=W)
    assert q.level == 4
    parts = divide(q)
    assert len(parts) == 4 and all(p.level == 1 for p in parts)
    assert parts[0].key == inner.key
    assert parts[-1].expanded().key == q.key


@settings(max_examples=40, deadline=None)
@given(streams())
def test_from_pattern_of_a_seq_and_pattern_with_conditions_keeps_its_matches(stream):
    p = parse_pattern("PATTERN SEQ(A a, AND(B b, C c), D d) WHERE a.x < c.x AND d.x > 0 WITHIN 4 seconds")
    q = from_pattern(p)
    from evaluators.brute_force import brute_force_matches

    types = p.var_types()
    expected = {frozenset((types[v], ps[0]) for v, ps in m.bindings) for m in brute_force_matches(p, stream)}
    assert brute_composites(q, stream) == expected
