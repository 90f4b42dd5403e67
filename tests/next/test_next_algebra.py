"""NEXT's algebra in the text language: parsing and printing the infix form, where each predicate
acts (skip, fail, filter, lambda), and clear one-line errors."""

from __future__ import annotations

import random

import pytest
from next_cases import random_pattern

from cep import parse_pattern, parse_patterns
from cep.errors import PatternError, PatternSyntaxError
from cep.next_algebra import Except, Iteration, Next, NextPattern, Source, Time, Union, operator_count


@pytest.mark.parametrize("seed", range(60))
def test_every_pattern_prints_as_text_that_parses_back_to_it(seed):
    p = random_pattern(random.Random(seed), random.Random(seed).randint(1, 6))
    assert parse_pattern(str(p)) == p


def test_binding_power_and_grouping():
    e = parse_pattern("PATTERN A a ; B b | C c ; D d \\ E e WITHIN 1 minutes").expr
    assert e == Union(Next(Source("A", "a"), Source("B", "b")), Next(Source("C", "c"), Except(Source("D", "d"), Source("E", "e"))))
    e = parse_pattern("PATTERN A a ; B b ; C c WITHIN 1 minutes").expr
    assert e == Next(Next(Source("A", "a"), Source("B", "b")), Source("C", "c"))  # ; groups to the left
    e = parse_pattern("PATTERN A a+{2,4} @ 3 seconds ; (B b) WITHIN 1 minutes").expr
    assert e == Next(Time(Iteration(Source("A", "a"), 2, 4), 3.0), Source("B", "b"))


def test_sources_without_an_alias_are_named_by_position():
    p = parse_pattern("PATTERN E1 ; (E2 | E3 _2) WITHIN 1 minutes")
    assert p.variables == ["_1", "_3", "_2"]
    assert str(p) == "PATTERN E1 _1 ; (E2 _3 | E3 _2) WITHIN 1 minutes"


def test_next_and_sase_patterns_share_one_file_and_semicolons():
    ps = parse_patterns("PATTERN SEQ(A a, B b) WITHIN 1 minutes;\nPATTERN A a ; B b WITHIN 1 minutes ;\n# x\nPATTERN A | B WITHIN 5 seconds")
    assert [type(p).__name__ for p in ps] == ["Pattern", "NextPattern", "NextPattern"]
    assert [p.name for p in ps] == ["P1", "P2", "P3"]


def test_fraud_query_predicates_act_as_the_paper_describes():
    """Section 3.4: "matches three consecutive transactions of the same account that are larger than
    1000. It discards automaton instances for transactions below this value." """
    p = parse_pattern("PATTERN T t1 ; T t2 ; T t3 WHERE FILTER(t1.acc = t2.acc) AND FILTER(t2.acc = t3.acc) "
                      "AND t1.amount > 1000 AND t2.amount > 1000 AND t3.amount > 1000 WITHIN 1 days")
    a = p.analysis
    chain = a.chains[()]
    assert sorted(str(c) for c, _, _ in chain.skip) == ["t1.acc = t2.acc", "t2.acc = t3.acc"]  # skip other accounts
    assert sorted(str(c) for c, _, _ in chain.fail) == ["t2.amount > 1000", "t3.amount > 1000"]  # fail the instance
    assert [str(c) for c in a.filters[(0, 0)]] == ["t1.amount > 1000"]  # no instance at all
    from cep import Event, EventStream
    from evaluators.next.engine import detect

    ev = lambda t, acc, amount: Event("T", t, {"acc": acc, "amount": amount})  # noqa: E731
    s = EventStream([ev(1, 1, 2000), ev(2, 2, 5000), ev(3, 1, 1500), ev(4, 2, 10), ev(5, 1, 3000), ev(6, 2, 9000)])
    assert [m.as_dict() for m in detect(p, s)] == [{"t1": [0], "t2": [2], "t3": [4]}]  # acc 2 fails at its 10


@pytest.mark.parametrize("text, message", [
    ("PATTERN A a ; (B b | C c) WHERE b.x = c.x WITHIN 1 minutes", "two operands of one union"),
    ("PATTERN A a ; (B b ; C c) WHERE FILTER(a.x = c.x) WITHIN 1 minutes", "group the chain to the left"),
    ("PATTERN A a+ ; B b WHERE a.x < b.x WITHIN 1 minutes", "iteration variable"),
    ("PATTERN A a ; (B b \\ C c) WHERE c.x = d.x WITHIN 1 minutes", "undeclared variable 'd'"),
    ("PATTERN (A a ; B b) ; (C c \\ D d) WHERE d.x = a.x WITHIN 1 minutes", "does not bind"),
    ("PATTERN A a ; B a WITHIN 1 minutes", "declared twice"),
    ("PATTERN A a @ 2 parsecs WITHIN 1 minutes", "unknown time unit"),
    ("PATTERN A a ; B b WITHIN 10 events", "time window"),
    ("PATTERN (A a ; B b)+ WITHIN 1 minutes", "applies to one source"),
    ("PATTERN SEQ(A a, B b) WHERE FILTER(a.x = b.x) WITHIN 1 minutes", "skip predicate of NEXT patterns"),
])
def test_invalid_next_patterns_are_one_line_pattern_errors(text, message):
    with pytest.raises(PatternError, match=message) as e:
        parse_pattern(text)
    assert "\n" not in str(e.value)


def test_syntax_errors_name_line_column_and_what_was_expected():
    with pytest.raises(PatternSyntaxError, match=r"line 1, column \d+: unexpected .*WITHIN"):
        parse_pattern("PATTERN A a ; WITHIN 1 minutes")
    with pytest.raises(PatternSyntaxError, match="line 2"):
        parse_pattern("PATTERN A a ;\n (B b | ) WITHIN 1 minutes")


def test_operator_count_is_the_query_size():
    assert operator_count(parse_pattern("PATTERN ((A a ; B b) | C c) \\ D d WITHIN 1 minutes").expr) == 3
    assert operator_count(NextPattern(Source("A", "a")).expr) == 0
