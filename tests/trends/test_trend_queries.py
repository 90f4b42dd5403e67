"""Trend aggregation queries in the one pattern language (HAMLET Definition 2.2, Figure 1)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from cep.errors import PatternError, PatternSyntaxError
from cep.parser import parse_pattern, parse_patterns
from cep.pattern import format_pattern
from cep.trends import TrendQuery, pane_size

FIGURE_1 = """
RETURN T.district, COUNT(*), SUM(T.duration)
PATTERN SEQ(Request R, Travel T+, NOT Pickup P, Dropoff D)
WHERE [driver, rider]
GROUP-BY T.district
WITHIN 30 min SLIDE 1 min

RETURN T.district, COUNT(*), AVG(T.speed)
PATTERN SEQ(Request R, Travel T+, Dropoff D)
WHERE [driver, rider] AND R.type = 'Pool'
GROUP-BY T.district
WITHIN 30 min SLIDE 5 min

RETURN T.district, COUNT(*), SUM(T.duration)
PATTERN SEQ(Request R, KL(Travel T), Cancel C)
WHERE [driver, rider] AND T.speed < 10
GROUP-BY T.district
WITHIN 20 min SLIDE 1 min
"""


def test_figure_1_workload_parses():
    qs = parse_patterns(FIGURE_1)
    assert all(isinstance(q, TrendQuery) for q in qs) and len(qs) == 3
    q1, q2, q3 = qs
    assert [e.type for e in q1.elements] == ["Request", "Travel", "Dropoff"] and q1.elements[1].kleene
    assert q1.negations[0].type == "Pickup" and q1.negations[0].after == 1
    assert q1.equivalence == ("driver", "rider") and q1.group_by == ("district",)
    assert (q1.window, q1.slide) == (1800, 60) and (q2.window, q2.slide) == (1800, 300)
    assert [i.kind for i in q2.items] == ["group", "count_star", "avg"]
    assert str(q2.elements[0].conditions[0]) == "R.type = 'Pool'"
    assert q3.elements[1].conditions and q3.window == 1200
    assert pane_size(qs) == 60


def test_printing_round_trips():
    for q in parse_patterns(FIGURE_1):
        again = parse_pattern(format_pattern(q))
        assert format_pattern(again) == format_pattern(q)
        assert again.elements == q.elements and again.items == q.items


def test_defaults_and_variants():
    q = parse_pattern("return count(*), count(B), min(b.x), max(B.x) pattern SEQ(A a, KL(B b)) within 2 seconds")
    assert q.slide == q.window == 2
    assert [i.var for i in q.items] == [None, "b", "b", "b"]
    q = parse_pattern("RETURN COUNT(*) PATTERN SEQ(A a, B b+) GROUP BY g WITHIN 250 milliseconds SLIDE 50 milliseconds")
    assert q.group_by == ("g",) and q.window == Fraction(1, 4) and pane_size([q]) == Fraction(1, 20)


@pytest.mark.parametrize(
    "text, message",
    [
        ("RETURN COUNT(*) PATTERN OR(A a, B b) WITHIN 1 minutes", "one SEQ"),
        ("RETURN COUNT(*) PATTERN SEQ(A a, KL(B b){2,3}) WITHIN 1 minutes", "size bounds"),
        ("RETURN COUNT(*) PATTERN SEQ(NOT(C c), A a) WITHIN 1 minutes", "between two positive"),
        ("RETURN COUNT(*) PATTERN SEQ(A a, NOT(C c)) WITHIN 1 minutes", "between two positive"),
        ("RETURN COUNT(*) PATTERN SEQ(A a, B b, A c) WITHIN 1 minutes", "appears twice"),
        ("RETURN COUNT(*) PATTERN SEQ(A a, B b) WHERE a.x < b.x WITHIN 1 minutes", "mentions 2 variables"),
        ("RETURN SUM(z.x) PATTERN SEQ(A a, B b) WITHIN 1 minutes", "'z'"),
        ("RETURN a.x PATTERN SEQ(A a, B b) WITHIN 1 minutes", "not a GROUP-BY"),
        ("RETURN SUM(a) PATTERN SEQ(A a, B b) WITHIN 1 minutes", "needs an attribute"),
        ("RETURN MEDIAN(a.x) PATTERN SEQ(A a, B b) WITHIN 1 minutes", "unknown aggregate"),
        ("RETURN COUNT(*) PATTERN SEQ(A a, B b) WITHIN 5 events", "time window"),
        ("RETURN COUNT(*) PATTERN SEQ(A a, B b) WITHIN 1 minutes SLIDE 2 fortnights", "unknown slide unit"),
        ("RETURN COUNT(*) PATTERN SEQ(A a, B b) WITHIN 1 minutes SLIDE 0 seconds", "SLIDE must be positive"),
        ("RETURN COUNT(*) PATTERN SEQ(A a, NOT(A n), B b) WITHIN 1 minutes", "also a positive type"),
    ],
)
def test_bad_queries_give_one_line_errors(text, message):
    with pytest.raises(PatternError) as err:
        parse_patterns(text)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_syntax_errors_are_one_line():
    with pytest.raises(PatternSyntaxError) as err:
        parse_patterns("RETURN COUNT(*) PATTERN SEQ(A a, B b) WHERE [x WITHIN 1 minutes")
    assert "line 1" in str(err.value) and "\n" not in str(err.value)


def test_plain_patterns_still_parse_and_reject_equivalence():
    assert not isinstance(parse_pattern("PATTERN SEQ(A a, B b+) WITHIN 1 minutes"), TrendQuery)
    with pytest.raises(PatternSyntaxError):
        parse_patterns("PATTERN SEQ(A a, B b) WHERE [x] WITHIN 1 minutes")


def test_generic_csv_reader_takes_numeric_timestamps(tmp_path):
    from experiments.data.readers import read_events

    f = tmp_path / "e.csv"
    f.write_text("type,ts,x,kind\nA,0,1,Pool\nB,1.5,2,Solo\nB,1.5,3,Solo\n")
    s = read_events(f).to_events()
    assert [e.ts for e in s] == [0.0, 1.5, 1.5] and s[0].attrs == {"x": 1.0, "kind": "Pool"}
