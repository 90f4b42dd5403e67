"""The pattern language: every construct parses, printing then parsing round-trips, errors are clear."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cep import (
    Attr,
    BinOp,
    Comparison,
    Const,
    EventRef,
    Kleene,
    Neg,
    Not,
    Op,
    Operator,
    Pattern,
    PatternError,
    PatternSyntaxError,
    SeqOrder,
    Strategy,
    Window,
    WindowKind,
    format_pattern,
    parse_pattern,
    parse_patterns,
)

EXAMPLE = (
    "PATTERN SEQ(MSFT m, KL(GOOG g), NOT(INTC i), AAPL a) "
    "WHERE m.diff < a.diff AND g.close > 10 WITHIN 20 minutes"
)


def test_issue_example_parses_to_expected_ast():
    p = parse_pattern(EXAMPLE)
    assert p.structure == Operator(
        Op.SEQ,
        (EventRef("MSFT", "m"), Kleene(EventRef("GOOG", "g")), Not(EventRef("INTC", "i")), EventRef("AAPL", "a")),
    )
    assert p.conditions == (
        Comparison("<", Attr("m", "diff"), Attr("a", "diff")),
        Comparison(">", Attr("g", "close"), Const(10.0)),
    )
    assert p.window == Window(WindowKind.TIME, 1200.0)
    assert p.strategy is Strategy.ANY
    assert p.seq_order is SeqOrder.NONDECREASING


@pytest.mark.parametrize(
    "text, check",
    [
        ("PATTERN AND(A a, B b) WITHIN 5 seconds", lambda p: p.structure.op is Op.AND and p.window.size == 5),
        ("PATTERN OR(A a, B b) WITHIN 1 hour", lambda p: p.structure.op is Op.OR and p.window.size == 3600),
        ("PATTERN SEQ(A a, B b) WITHIN 500 events", lambda p: p.window == Window(WindowKind.COUNT, 500)),
        ("PATTERN SEQ(A a, B b) WITHIN 250 milliseconds", lambda p: p.window.size == 0.25),
        ("PATTERN SEQ(A a, KL(B b){1,5}) WITHIN 1 s", lambda p: p.structure.children[1] == Kleene(EventRef("B", "b"), 1, 5)),
        ("PATTERN SEQ(A a, KL(B b){3}) WITHIN 1 s", lambda p: p.structure.children[1] == Kleene(EventRef("B", "b"), 3, 3)),
        ("PATTERN SEQ(A a, KL(B b){2,}) WITHIN 1 s", lambda p: p.structure.children[1] == Kleene(EventRef("B", "b"), 2, None)),
        ("PATTERN SEQ(A a, B b) WITHIN 1 s STRATEGY skip-till-next-match", lambda p: p.strategy is Strategy.NEXT),
        ("PATTERN SEQ(A a, B b) WITHIN 1 s STRATEGY strict-contiguity", lambda p: p.strategy is Strategy.STRICT),
        (
            "PATTERN SEQ(A a, B b) WITHIN 1 s STRATEGY partition-contiguity BY sym",
            lambda p: p.strategy is Strategy.PARTITION and p.partition_attribute == "sym",
        ),
        ("PATTERN SEQ(A a, B b) WITHIN 1 s SEQ_ORDER strict", lambda p: p.seq_order is SeqOrder.STRICT),
        ("pattern seq(A a, B b) where a.x <= b.x within 2 minutes", lambda p: p.conditions[0].op == "<="),
        (
            "PATTERN SEQ(A a, B b) WHERE a.x + b.y * 2 >= -3 / a.z WITHIN 1 s",
            lambda p: p.conditions[0]
            == Comparison(
                ">=",
                BinOp("+", Attr("a", "x"), BinOp("*", Attr("b", "y"), Const(2.0))),
                BinOp("/", Const(-3.0), Attr("a", "z")),
            ),
        ),
        ("PATTERN SEQ(A a, B b) WHERE -a.x != b.x WITHIN 1 s", lambda p: p.conditions[0].left == Neg(Attr("a", "x"))),
        ("PATTERN SEQ(A a, B b) WHERE a.x == b.x WITHIN 1 s", lambda p: p.conditions[0].op == "="),
        ("PATTERN SEQ(158324 a, \"BRK.B\" b) WITHIN 1 s", lambda p: [r.type for r in p.event_refs()] == ["158324", "BRK.B"]),
        (
            "PATTERN AND(A a, OR(SEQ(B b, C c), D d), SEQ(E e, AND(F f, NOT(G g)), H h)) WITHIN 1 s",
            lambda p: p.variables == ["a", "b", "c", "d", "e", "f", "g", "h"],
        ),
        ("PATTERN SEQ(A a) WITHIN 1 s # a comment\n", lambda p: p.variables == ["a"]),
    ],
)
def test_constructs(text, check):
    p = parse_pattern(text)
    assert check(p)
    assert parse_pattern(format_pattern(p)) == p


def test_several_patterns_per_text_are_named_in_order():
    ps = parse_patterns("PATTERN SEQ(A a, B b) WITHIN 1 s;\nPATTERN AND(C c, D d) WITHIN 2 s\nPATTERN OR(E e, F f) WITHIN 3 s")
    assert [p.name for p in ps] == ["P1", "P2", "P3"]
    assert [p.window.size for p in ps] == [1, 2, 3]


@pytest.mark.parametrize(
    "text, error, fragment",
    [
        ("PATTERN SEQ(A a, B b WITHIN 1 s", PatternSyntaxError, "line 1, column 22"),
        ("PATTERN SEQ(A a, B b)\n  WHERE a.x < WITHIN 1 s", PatternSyntaxError, "line 2"),
        ("PATTERN SEQ(A a) WHERE a.x $ 3 WITHIN 1 s", PatternSyntaxError, "unexpected character '$'"),
        ("PATTERN SEQ(A a)", PatternSyntaxError, "expected"),
        ("PATTERN SEQ(A a, B b) WHERE a.x < c.x WITHIN 1 s", PatternError, "undeclared variable 'c'"),
        ("PATTERN OR(NOT(A a), B b) WITHIN 1 s", PatternError, "negated event (A a) cannot be a direct operand of OR"),
        ("PATTERN OR(KL(A a), B b) WITHIN 1 s", PatternError, "Kleene event (A a) cannot be a direct operand of OR"),
        ("PATTERN SEQ() WITHIN 1 s", PatternError, "empty pattern"),
        ("", PatternError, "empty pattern text"),
        ("   # only a comment", PatternError, "empty pattern text"),
        ("PATTERN SEQ(A a, B a) WITHIN 1 s", PatternError, "declared twice"),
        ("PATTERN SEQ(A a) WITHIN 3 parsecs", PatternError, "unknown window unit"),
        ("PATTERN SEQ(A a) WITHIN 2.5 events", PatternError, "whole number of events"),
        ("PATTERN SEQ(A a, B b) WITHIN 1 s STRATEGY fastest", PatternError, "unknown selection strategy"),
        ("PATTERN SEQ(A a, B b) WITHIN 1 s STRATEGY partition-contiguity", PatternError, "partition attribute"),
        ("PATTERN SEQ(NOT(A a)) WITHIN 1 s", PatternError, "only negated"),
        ("PATTERN SEQ(A a, KL(B b){3,2}) WITHIN 1 s", PatternError, "below minimum"),
        ("PATTERN SEQ(A a, NOT(B b), NOT(C c)) WHERE b.x < c.x WITHIN 1 s", PatternError, "two negated"),
    ],
)
def test_errors_are_one_clear_line(text, error, fragment):
    with pytest.raises(error) as info:
        parse_pattern(text)
    msg = str(info.value)
    assert fragment in msg
    assert "\n" not in msg


# ---- printed-then-parsed round trip on random patterns ---------------------------------------------
TYPES = st.sampled_from(["A", "B", "MSFT", "158324", "BRK.B", "x y"])
ATTRS = st.sampled_from(["x", "diff", "close", "price_1"])
NUMBERS = st.one_of(
    st.integers(-1000, 1000).map(float),
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False),
)


@st.composite
def structures(draw, names, depth=0):
    """A random structure; ``names`` is a list used as a counter for unique variable names."""

    def fresh():
        names.append(f"v{len(names)}")
        return names[-1]

    op = draw(st.sampled_from([Op.SEQ, Op.AND, Op.OR]))
    n = draw(st.integers(1, 3))
    children = []
    for _ in range(n):
        kind = draw(st.sampled_from(["event", "event", "not", "kleene", "nested"] if depth < 2 else ["event", "not", "kleene"]))
        if op is Op.OR and kind in ("not", "kleene"):
            kind = "event"
        if kind == "nested":
            children.append(draw(structures(names, depth + 1)))
            continue
        ref = EventRef(draw(TYPES), fresh())
        if kind == "event":
            children.append(ref)
        elif kind == "not":
            children.append(Not(ref))
        else:
            lo = draw(st.integers(1, 3))
            hi = draw(st.one_of(st.none(), st.integers(lo, 5)))
            children.append(Kleene(ref, lo, hi))
    if all(isinstance(c, Not) for c in children):
        children.append(EventRef(draw(TYPES), fresh()))
    return Operator(op, tuple(children))


@st.composite
def expressions(draw, variables, depth=0):
    choice = draw(st.sampled_from(["attr", "attr", "const", "binop", "neg"] if depth < 2 else ["attr", "const"]))
    if choice == "attr":
        return Attr(draw(st.sampled_from(variables)), draw(ATTRS))
    if choice == "const":
        return Const(draw(NUMBERS))
    if choice == "neg":
        inner = draw(expressions(variables, depth + 1))
        return Const(-inner.value) if isinstance(inner, Const) else Neg(inner)
    return BinOp(draw(st.sampled_from("+-*/")), draw(expressions(variables, depth + 1)), draw(expressions(variables, depth + 1)))


@st.composite
def patterns(draw):
    names: list[str] = []
    s = draw(structures(names))
    variables = names
    negs = {r.var for r in _refs(s, "not")}
    conds = []
    for _ in range(draw(st.integers(0, 3))):
        c = Comparison(draw(st.sampled_from(["<", "<=", ">", ">=", "=", "!="])), draw(expressions(variables)), draw(expressions(variables)))
        if not c.variables:
            c = Comparison(c.op, Attr(variables[0], "x"), c.right)
        if len(c.variables & negs) > 1:
            continue
        conds.append(c)
    if draw(st.booleans()):
        window = Window(WindowKind.COUNT, draw(st.integers(1, 10_000)))
    else:
        window = Window(WindowKind.TIME, draw(st.sampled_from([0.5, 1.0, 30.0, 90.0, 1200.0, 7200.0, 0.125, 2.75])))
    strategy = draw(st.sampled_from(list(Strategy)))
    return Pattern(
        structure=s,
        conditions=tuple(conds),
        window=window,
        strategy=strategy,
        partition_attribute="sym" if strategy is Strategy.PARTITION else None,
        seq_order=draw(st.sampled_from(list(SeqOrder))),
    )


def _refs(s, kind):
    from cep.pattern import iter_events

    return [r for r, k in iter_events(s) if k == kind]


@settings(max_examples=300, deadline=None)
@given(patterns())
def test_print_then_parse_round_trips(p):
    text = format_pattern(p)
    assert parse_pattern(text) == p
    assert format_pattern(parse_pattern(text)) == text
