"""The DNF of nested patterns (JQPG Section 4, MCEP Section 2), checked against clauses written out
by hand: each clause's variables, the SEQ precedence pairs it keeps, and the conditions it keeps."""

from __future__ import annotations

import pytest

from cep import parse_pattern, to_dnf


def clauses(text: str) -> list[tuple[set[str], set[tuple[str, str]], set[str]]]:
    """(variables, precedence pairs, conditions as text) of each DNF clause, in order."""
    return [({v.name for v in sp.variables}, set(sp.precedence), {str(c) for c in sp.conditions}) for sp in to_dnf(parse_pattern(text))]


CASES = [
    (
        # OR nested inside SEQ: one clause per branch; the SEQ orders a before and e after the branch
        "PATTERN SEQ(A a, OR(B b, AND(C c, D d)), E e) WHERE a.x < e.x AND b.x > 0 AND c.x = d.x WITHIN 1 minute",
        [
            ({"a", "b", "e"}, {("a", "b"), ("a", "e"), ("b", "e")}, {"a.x < e.x", "b.x > 0"}),
            ({"a", "c", "d", "e"}, {("a", "c"), ("a", "d"), ("a", "e"), ("c", "e"), ("d", "e")}, {"a.x < e.x", "c.x = d.x"}),
        ],
    ),
    (
        # two ORs under AND: the cross product, 2 x 2 clauses, no order between the AND's operands
        "PATTERN AND(OR(A a, B b), OR(C c, SEQ(D d, E e))) WHERE a.x < d.x WITHIN 1 minute",
        [
            ({"a", "c"}, set(), set()),
            ({"a", "d", "e"}, {("d", "e")}, {"a.x < d.x"}),
            ({"b", "c"}, set(), set()),
            ({"b", "d", "e"}, {("d", "e")}, set()),
        ],
    ),
    (
        # OR inside OR flattens; NOT and KL keep their places in the sequence
        "PATTERN SEQ(A a, OR(OR(B b, C c), SEQ(NOT(N n), KL(D d))), E e) WHERE n.x = a.x WITHIN 1 minute",
        [
            ({"a", "b", "e"}, {("a", "b"), ("a", "e"), ("b", "e")}, set()),
            ({"a", "c", "e"}, {("a", "c"), ("a", "e"), ("c", "e")}, set()),
            (
                {"a", "n", "d", "e"},
                {("a", "n"), ("a", "d"), ("a", "e"), ("n", "d"), ("n", "e"), ("d", "e")},
                {"n.x = a.x"},
            ),
        ],
    ),
]


@pytest.mark.parametrize("text, expected", CASES)
def test_nested_or_becomes_the_clauses_written_out_by_hand(text, expected):
    def canonical(cs):
        return sorted((sorted(v), sorted(p), sorted(c)) for v, p, c in cs)

    assert canonical(clauses(text)) == canonical(expected)
