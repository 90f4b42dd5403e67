"""The NEXT semantics (cep.next_algebra) held three ways: the streaming operator engine against the
literal reference matcher, the reference against our own brute-force matcher on the fragment that
maps to SEQ/OR/NOT, and every allowed grouping of a chain against the reference."""

from __future__ import annotations

import random

import pytest
from next_cases import Names, fragment_pattern, random_expr, random_pattern, random_stream, with_random_predicates

from algorithms.next.chain import all_trees, skip_split_rule
from cep import Match, parse_pattern
from cep.errors import PatternError
from cep.next_algebra import Next, left_deep, operator_count
from cep.next_mapping import to_pattern
from evaluators.brute_force import brute_force_matches
from evaluators.next.engine import detect, run_queries
from evaluators.next.reference import reference_matches


def ours(p, stream):
    """Our brute-force matcher on the SEQ/OR/NOT form, with variables named back."""
    q, names = to_pattern(p)
    return sorted(Match(tuple(sorted((names[v], ps) for v, ps in m.bindings))) for m in brute_force_matches(q, stream))


@pytest.mark.parametrize("seed", range(120))
def test_engine_detects_exactly_the_reference_composite_events(seed):
    rng = random.Random(seed)
    p = random_pattern(rng, rng.randint(1, 5), window=12.0)
    stream = random_stream(rng, 70)
    assert detect(p, stream) == reference_matches(p, stream), str(p)


@pytest.mark.parametrize("seed", range(80))
def test_reference_equals_our_brute_force_on_the_seq_or_not_fragment(seed):
    rng = random.Random(1000 + seed)
    p = fragment_pattern(rng)
    stream = random_stream(rng, 45)
    assert reference_matches(p, stream) == ours(p, stream), str(p)


def test_the_fragment_covers_chains_unions_and_gap_exceptions():
    stream = random_stream(random.Random(7), 40)
    for text in (
        "PATTERN A a ; B b WITHIN 4 seconds",
        "PATTERN A a ; (B b | C c) ; D d WITHIN 4 seconds",
        "PATTERN (A a ; B b) | (C c ; D d) WITHIN 4 seconds",
        "PATTERN A a ; (B b \\ C c) WHERE c.x > b.x WITHIN 4 seconds",
        "PATTERN (A a ; B b) \\ (C c | D d) WITHIN 4 seconds",
        "PATTERN A a ; B b ; A c WHERE FILTER(a.x = c.x) AND b.x > 2 WITHIN 4 seconds",
    ):
        p = parse_pattern(text)
        assert reference_matches(p, stream) == ours(p, stream), text


@pytest.mark.parametrize("text, operator", [
    ("PATTERN A a+{1,2} ; B b WITHIN 4 seconds", "iteration"),
    ("PATTERN (A a @ 1 seconds) ; B b WITHIN 4 seconds", "time"),
    ("PATTERN (A a ; B b ; C c) \\ D d WITHIN 4 seconds", "more than two operands"),
    ("PATTERN A a ; ((B b ; C c) | D d) WITHIN 4 seconds", "not a source or a union of sources"),
])
def test_outside_the_fragment_the_mapping_says_which_operator_has_no_counterpart(text, operator):
    with pytest.raises(PatternError, match=operator):
        to_pattern(parse_pattern(text))


def test_next_is_not_our_skip_till_next_match_two_first_events_share_one_successor():
    """The burst of NEXT Section 4.2: a1 a2 b -> (a1, b) and (a2, b); OpenCEP's skip-till-next-match
    consumes b in the first match."""
    from cep import Event, EventStream

    s = EventStream([Event("A", 1.0, {}), Event("A", 2.0, {}), Event("B", 3.0, {}), Event("B", 4.0, {})])
    nxt = parse_pattern("PATTERN A a ; B b WITHIN 10 seconds")
    assert [m.as_dict() for m in detect(nxt, s)] == [{"a": [0], "b": [2]}, {"a": [1], "b": [2]}]
    consume = parse_pattern("PATTERN SEQ(A a, B b) WITHIN 10 seconds STRATEGY skip-till-next-match")
    assert [m.as_dict() for m in brute_force_matches(consume, s)] == [{"a": [0], "b": [2]}, {"a": [1], "b": [3]}]


@pytest.mark.parametrize("seed", range(40))
def test_every_allowed_grouping_of_a_chain_detects_the_same_events(seed):
    """Associativity (NEXT Section 3.2) with predicates, exceptions and unions as operands."""
    rng = random.Random(2000 + seed)
    names = Names()
    operands = [random_expr(rng, rng.randint(1, 2), ops=("union", "except", "time"), names=names)
                for _ in range(rng.randint(3, 4))]
    p = with_random_predicates(rng, left_deep(operands))
    stream = random_stream(rng, 40)
    expected = reference_matches(p, stream)
    rule = skip_split_rule([(a, q) for _, a, q in p.analysis.chains[()].skip])
    trees = all_trees(0, len(operands) - 1, rule)
    assert len(trees) >= 1
    for tree in trees:
        regrouped = p.with_expr(_build(tree, operands))
        assert detect(regrouped, stream) == expected, str(regrouped)


def _build(tree, ops):
    if isinstance(tree, int):
        return ops[tree]
    return Next(_build(tree[0], ops), _build(tree[1], ops))


def test_shared_operators_serve_every_query_that_contains_them():
    rng = random.Random(3)
    stream = random_stream(rng, 60)
    ps = [parse_pattern(t) for t in (
        "PATTERN A a ; B b ; C c WITHIN 6 seconds",
        "PATTERN (A x ; B y) | D z WITHIN 6 seconds",
        "PATTERN B q | A p WITHIN 6 seconds",
        "PATTERN A u | B w WITHIN 6 seconds",
    )]
    shared = run_queries(ps, stream, share=True)
    alone = run_queries(ps, stream, share=False)
    assert [q.matches for q in shared.queries] == [q.matches for q in alone.queries]
    assert [sorted(q.matches) for q in shared.queries] == [reference_matches(p, stream) for p in ps]
    # A;B once for queries 1 and 2, B|A = A|B once for queries 3 and 4
    assert len(shared.operators) == sum(operator_count(p.expr) for p in ps) - 2
    assert sorted(len(o.queries) for o in shared.operators if o.kind in ("next", "union"))[-2:] == [2, 2]
