"""The pattern language at its limits: windows beyond what a number holds, patterns nested deeper than the
documented depth (README, "The pattern language"); each is one line naming the line, never a traceback or
another number."""

from __future__ import annotations

import pytest

from cep import PatternError, WindowKind, parse_pattern

#: the limits the README documents ("The pattern language")
MAX_NESTING = 100
MAX_COUNT_WINDOW = 2**53


def test_the_documented_limits_are_the_parsers():
    import cep.parser
    import cep.pattern

    assert cep.parser.MAX_NESTING == MAX_NESTING and cep.pattern.MAX_COUNT_WINDOW == MAX_COUNT_WINDOW


def test_a_count_window_keeps_the_number_written_or_is_refused():
    assert parse_pattern(f"PATTERN SEQ(A a, B b) WITHIN {MAX_COUNT_WINDOW} events").window.size == MAX_COUNT_WINDOW
    assert parse_pattern("PATTERN SEQ(A a, B b) WITHIN 1e3 events").window.size == 1000
    for text in ("99999999999999999999999", str(MAX_COUNT_WINDOW + 1), "1e999999999"):
        with pytest.raises(PatternError, match=f"line 1: a count window holds at most {MAX_COUNT_WINDOW} events"):
            parse_pattern(f"PATTERN SEQ(A a, B b) WITHIN {text} events")


@pytest.mark.parametrize("clause", ["WITHIN 1e308 days", "WITHIN 1 days SLIDE 1e308 days", "WITHIN 1e400 seconds"])
def test_a_window_beyond_the_range_of_a_float_is_one_line(clause):
    text = f"RETURN COUNT(*) PATTERN SEQ(A a, B b+) {clause}" if "SLIDE" in clause else f"PATTERN SEQ(A a, B b) {clause}"
    with pytest.raises(PatternError, match="is beyond the range of seconds a float holds") as e:
        parse_pattern(text)
    assert "\n" not in str(e.value)


def test_the_largest_finite_time_window_prints_and_parses_back():
    p = parse_pattern("PATTERN SEQ(A a, B b) WITHIN 1e300 days")
    assert p.window.kind is WindowKind.TIME and parse_pattern(str(p)).window == p.window


def _nested(depth: int) -> str:
    return "PATTERN " + "SEQ(" * depth + "A a, B b" + ")" * depth + " WITHIN 1 minutes"


def _chain(terms: int) -> str:
    return "PATTERN SEQ(A a, B b) WHERE " + " + ".join(["a.x"] * terms) + " < b.x WITHIN 1 minutes"


def _next_chain(sources: int) -> str:
    return "PATTERN " + " | ".join(f"E{i}" for i in range(sources)) + " WITHIN 1 minutes"


@pytest.mark.parametrize("make, at_limit", [(_nested, MAX_NESTING), (_chain, MAX_NESTING + 1), (_next_chain, MAX_NESTING + 1)])
def test_patterns_parse_up_to_the_documented_depth_and_are_refused_beyond(make, at_limit):
    parse_pattern(make(at_limit))
    for beyond in (at_limit + 1, 500, 5000):
        with pytest.raises(PatternError, match=f"line 1: the pattern nests operators more than {MAX_NESTING} levels deep"):
            parse_pattern(make(beyond))


def test_parentheses_alone_do_not_nest():
    p = parse_pattern("PATTERN SEQ(A a, B b) WHERE " + "(" * 1000 + "a.x" + ")" * 1000 + " < b.x WITHIN 1 minutes")
    assert str(p.conditions[0]) == "a.x < b.x"


def test_a_pattern_at_the_documented_depth_runs_on_both_evaluators():
    from algorithms import plan_pattern
    from cep import Statistics
    from cep.events import Event, EventStream
    from evaluators import evaluate
    from evaluators.brute_force import brute_force_matches

    stream = EventStream([Event("A" if i % 2 == 0 else "B", float(i), {"x": float(i % 3)}) for i in range(8)])
    stats = Statistics({"A": 1.0, "B": 1.0})
    for text in (_nested(MAX_NESTING), _chain(MAX_NESTING + 1)):
        p = parse_pattern(text)
        want = len(brute_force_matches(p, stream))
        for planner, evaluator in (("GREEDY", "nfa"), ("DP-B", "tree")):
            plan = plan_pattern(p, planner, stats).plan
            assert evaluate(p, plan, stream, evaluator=evaluator).metrics["matches"] == want
