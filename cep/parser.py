"""Parse the SASE-style pattern language (grammar: ``cep/pattern.lark``).

``parse_patterns(text)`` returns every pattern of a text; ``parse_pattern(text)`` exactly one.
A pattern written in NEXT's infix algebra (``PATTERN S1 a ; (S2 b | S4 c) WITHIN 1 minutes``) is a
:class:`cep.next_algebra.NextPattern`; a query with RETURN a :class:`cep.trends.TrendQuery`.
Printing lives with the types (``cep.pattern.format_pattern``, ``cep.next_algebra.format_next_pattern``,
``cep.trends.format_trend_query``, and ``str(p)`` of each); parsing the printed text gives back an
equal pattern.

Errors are one line: a :class:`PatternSyntaxError` names the line, the column and what was expected;
a :class:`PatternError` names the offending variable or operator and the line its pattern starts on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from decimal import Decimal
from functools import lru_cache
from pathlib import Path

from lark import Lark, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from cep.conditions import Attr, BinOp, Comparison, Const, Neg
from cep.errors import PatternError, PatternSyntaxError
import cep.next_algebra as algebra
from cep.trends import ReturnItem, TrendQuery, make_trend_query
from cep.pattern import (
    MAX_COUNT_WINDOW,
    TIME_UNITS,
    EventRef,
    Kleene,
    Not,
    Op,
    Operator,
    Pattern,
    SeqOrder,
    Strategy,
    Window,
    WindowKind,
)

_GRAMMAR = Path(__file__).with_name("pattern.lark")

_READABLE = {
    "PATTERN_KW": "PATTERN",
    "SEQ_KW": "SEQ",
    "AND_KW": "AND",
    "OR_KW": "OR",
    "NOT_KW": "NOT",
    "KL_KW": "KL",
    "WHERE_KW": "WHERE",
    "WITHIN_KW": "WITHIN",
    "STRATEGY_KW": "STRATEGY",
    "BY_KW": "BY",
    "FILTER_KW": "FILTER",
    "VBAR": "'|'",
    "BACKSLASH": "'\\'",
    "PLUS": "'+'",
    "AT": "'@'",
    "SEQ_ORDER_KW": "SEQ_ORDER",
    "RETURN_KW": "RETURN",
    "GROUPBY_KW": "GROUP-BY",
    "SLIDE_KW": "SLIDE",
    "SQUOTED_STRING": "a quoted string",
    "LSQB": "'['",
    "RSQB": "']'",
    "VAR": "a name",
    "INT": "an integer",
    "NUMBER": "a number",
    "ESCAPED_STRING": "a quoted event type",
    "STRATEGY_NAME": "a selection strategy",
    "COMPOP": "a comparison (< <= > >= = !=)",
    "ADDOP": "'+' or '-'",
    "MULOP": "'*' or '/'",
    "LPAR": "'('",
    "RPAR": "')'",
    "COMMA": "','",
    "DOT": "'.'",
    "SEMICOLON": "';'",
    "LBRACE": "'{'",
    "RBRACE": "'}'",
    "MINUS": "'-'",
    "$END": "end of input",
}


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return Lark(_GRAMMAR.read_text(), parser="lalr", propagate_positions=True, maybe_placeholders=True)


def _expected(names) -> str:
    readable = sorted({_READABLE.get(n, n.lower()) for n in names if not n.startswith("__")})
    return ", ".join(readable) if readable else "nothing more"


@v_args(inline=True)
class _ToAst(Transformer):
    def start(self, *patterns):
        return [p for p in patterns if isinstance(p, (Pattern, algebra.NextPattern, TrendQuery))]

    @v_args(meta=True)
    def pattern(self, meta, children):
        _kw, structure, where, within, strategy, seq_order = children
        strat, part = strategy if strategy is not None else (Strategy.ANY, None)
        skips = [c for c in where or () if isinstance(c, _Filter)]
        if skips:
            raise PatternError(
                f"line {meta.line}: FILTER({skips[0].condition}) is a skip predicate of NEXT patterns "
                "(written with ; | \\ + @); a SEQ/AND/OR pattern takes plain conditions"
            )
        try:
            return Pattern(
                structure=structure,
                conditions=tuple(where or ()),
                window=within,
                strategy=strat,
                partition_attribute=part,
                seq_order=seq_order or SeqOrder.NONDECREASING,
            )
        except PatternError as e:
            raise PatternError(f"line {meta.line}: {e}") from None

    def op_name(self, tok):
        return Op(tok.upper())

    def operator(self, op, *elements):
        elements = tuple(e for e in elements if e is not None)
        return Operator(op, elements)

    def event(self, etype, var):
        return EventRef(etype, str(var))

    def event_type(self, tok):
        s = str(tok)
        if tok.type == "ESCAPED_STRING":
            s = s[1:-1].replace('\\"', '"').replace("\\\\", "\\")
            if not s:
                raise PatternError(f"line {tok.line}: an event type cannot be empty")
        return s

    def negation(self, _kw, ev):
        return Not(ev)

    def kleene_plus(self, ev):
        return Kleene(ev, 1, None)

    # ---- trend aggregation queries (cep/trends.py) ----
    @v_args(meta=True)
    def trend_query(self, meta, children):
        it = iter(children)
        next(it)  # RETURN
        items, rest = [], []
        for c in it:
            (items if isinstance(c, ReturnItem) else rest).append(c)
        _kw, structure, where, group_by, within, slide = rest
        where = where or ([], [])
        if within.kind is not WindowKind.TIME:
            raise PatternError(f"line {meta.line}: a trend query needs a time window (WITHIN <n> minutes ...), not {within}")
        try:
            return make_trend_query(
                items, structure, conditions=where[1], equivalence=where[0], group_by=group_by or (),
                window=within.size, slide=slide,
            )
        except PatternError as e:
            raise PatternError(f"line {meta.line}: {e}") from None

    def agg_star(self, name, star):
        if str(name).upper() != "COUNT" or str(star) != "*":
            raise PatternError(f"line {name.line}, column {name.column}: {name}({star}) is not an aggregate; expected COUNT(*)")
        return ReturnItem("count_star", text="COUNT(*)")

    def agg_var(self, name, var):
        if str(name).upper() != "COUNT":
            raise PatternError(f"line {name.line}, column {name.column}: {str(name).upper()}({var}) needs an attribute ({var}.<attr>); only COUNT takes a variable")
        return ReturnItem("count", str(var), None, f"COUNT({var})")

    def agg_attr(self, name, var, attr):
        n = str(name).upper()
        if n not in ("SUM", "AVG", "MIN", "MAX", "COUNT"):
            raise PatternError(f"line {name.line}, column {name.column}: unknown aggregate {str(name)!r}; expected COUNT, SUM, AVG, MIN or MAX")
        if n == "COUNT":
            return ReturnItem("count", str(var), None, f"COUNT({var})")
        return ReturnItem(n.lower(), str(var), str(attr), f"{n}({var}.{attr})")

    def ret_attr(self, var, attr):
        return ReturnItem("group", str(var), str(attr), f"{var}.{attr}")

    def ret_name(self, attr):
        return ReturnItem("group", None, str(attr), str(attr))

    def trend_where(self, _kw, *parts):
        eq, conds = [], []
        for p in parts:
            if isinstance(p, _Equivalence):
                eq.extend(p.attrs)
            elif isinstance(p, Comparison):
                conds.append(p)
        return eq, conds

    def equivalence(self, *names):
        return _Equivalence(tuple(str(n) for n in names))

    def group_by(self, _kw, *attrs):
        return tuple(attrs)

    def group_attr(self, a, b=None):
        return str(b) if b is not None else str(a)

    def slide_clause(self, _kw, number, unit):
        u = str(unit).lower()
        if u not in TIME_UNITS:
            raise PatternError(
                f"line {unit.line}, column {unit.column}: unknown slide unit {str(unit)!r}; "
                "expected milliseconds, seconds, minutes, hours or days"
            )
        return _finite_seconds(number, unit, "SLIDE")

    def string(self, tok):
        s = str(tok)[1:-1]
        if tok.type == "ESCAPED_STRING":
            s = s.replace('\\"', '"').replace("\\\\", "\\")
        return Const(s)

    def kleene(self, _kw, ev, bounds=None):
        lo, hi = bounds if bounds is not None else (1, None)
        return Kleene(ev, lo, hi)

    def exact_size(self, n):
        return int(n), int(n)

    def size_range(self, lo, hi):
        return (int(lo) if lo is not None else 1), (int(hi) if hi is not None else None)

    def where_clause(self, _kw, *parts):
        return [p for p in parts if isinstance(p, (Comparison, _Filter))]

    def condition(self, left, op, right):
        o = str(op)
        o = {"==": "=", "<>": "!="}.get(o, o)
        return Comparison(o, left, right)

    def filter_condition(self, _kw, left, op, right):
        return _Filter(self.condition(left, op, right))

    # ---- NEXT infix form ----
    @v_args(meta=True)
    def next_pattern(self, meta, children):
        _kw, expr, where, within = children
        expr = _name_sources(expr)
        where = where or []
        try:
            return algebra.NextPattern(
                expr,
                conditions=tuple(c for c in where if isinstance(c, Comparison)),
                filters=tuple(c.condition for c in where if isinstance(c, _Filter)),
                window=within,
            )
        except PatternError as e:
            raise PatternError(f"line {meta.line}: {e}") from None

    def next_source(self, etype, var=None):
        return algebra.Source(etype, str(var) if var is not None else "")

    def next_union_op(self, left, right):
        return algebra.Union(left, right)

    def next_seq_op(self, left, right):
        return algebra.Next(left, right)

    def next_except_op(self, left, right):
        return algebra.Except(left, right)

    def next_iteration(self, child, bounds=None):
        lo, hi = bounds if bounds is not None else (1, None)
        return algebra.Iteration(child, lo, hi)

    def next_time(self, child, number, unit):
        u = str(unit).lower()
        if u not in TIME_UNITS:
            raise PatternError(
                f"line {unit.line}, column {unit.column}: unknown time unit {str(unit)!r} after '@'; "
                "expected milliseconds, seconds, minutes, hours or days"
            )
        return algebra.Time(child, float(number) * TIME_UNITS[u])

    def binop(self, left, op, right):
        return BinOp(str(op), left, right)

    def neg(self, x):
        if isinstance(x, Const):
            return Const(-x.value)
        return Neg(x)

    def number(self, tok):
        return Const(float(tok))

    def attr(self, var, name):
        return Attr(str(var), str(name))

    def within_clause(self, _kw, number, unit):
        u = str(unit).lower()
        if u in ("events", "event"):
            exact = Decimal(str(number))  # as written: a float would round 99999999999999999999999 to another number
            if exact != exact.to_integral_value():
                raise PatternError(f"line {unit.line}: a count window holds a whole number of events, got {number}")
            if exact > MAX_COUNT_WINDOW:
                raise PatternError(f"line {unit.line}: a count window holds at most {MAX_COUNT_WINDOW} events (2**53), got {number}")
            return Window(WindowKind.COUNT, int(exact))
        if u not in TIME_UNITS:
            raise PatternError(
                f"line {unit.line}, column {unit.column}: unknown window unit {str(unit)!r}; "
                "expected events, milliseconds, seconds, minutes, hours or days"
            )
        return Window(WindowKind.TIME, _finite_seconds(number, unit, "WITHIN"))

    def strategy_clause(self, _kw, name, _by=None, attribute=None):
        return Strategy.parse(str(name)), (str(attribute) if attribute is not None else None)

    def seq_order_clause(self, _kw, value):
        v = str(value).lower()
        try:
            return SeqOrder(v)
        except ValueError:
            raise PatternError(f"line {value.line}: SEQ_ORDER must be nondecreasing or strict, got {str(value)!r}") from None


def _finite_seconds(number, unit, clause: str) -> float:
    """``number`` ``unit`` in seconds; a one-line PatternError if that is beyond the float range (``1e308 days``)."""
    seconds = float(number) * TIME_UNITS[str(unit).lower()]
    if not math.isfinite(seconds):
        raise PatternError(f"line {unit.line}: {clause} {number} {unit} is beyond the range of seconds a float holds")
    return seconds


#: the parse tree's nodes that nest: operators, NOT, KL, arithmetic and the NEXT algebra's operators
_NESTING = frozenset({"operator", "negation", "kleene", "kleene_plus", "binop", "neg", "next_union_op", "next_seq_op",
                      "next_except_op", "next_iteration", "next_time"})
#: how deep a pattern may nest them (every operator, NOT, KL, + - * / and NEXT operator inside another counts one
#: level; parentheses alone do not); beyond, the recursive steps after parsing and the compiled conditions run out of
#: Python's stack (README, "The pattern language")
MAX_NESTING = 100


def _check_nesting(tree, source: str) -> None:
    """A one-line PatternError naming the line of the first construct nested deeper than :data:`MAX_NESTING`
    (walked without recursion: a tree this deep is what recursion cannot take)."""
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if not isinstance(node, Tree):
            continue
        if node.data in _NESTING:
            depth += 1
            if depth > MAX_NESTING:
                line = getattr(node.meta, "line", None)
                where = f"line {line}: " if line is not None else ""
                raise PatternError(f"{source}: {where}the pattern nests operators more than {MAX_NESTING} levels deep "
                                   "(each operator, NOT, KL, NEXT operator and arithmetic operator of a condition counts one level)")
        stack.extend((c, depth) for c in node.children)


@dataclass(frozen=True)
class _Equivalence:
    """``[a, b]`` in a trend query's WHERE while parsing."""

    attrs: tuple


@dataclass(frozen=True)
class _Filter:
    """A ``FILTER(...)`` condition while parsing (a NEXT skip predicate)."""

    condition: Comparison


def _name_sources(expr):
    """Give every source written without an alias the name ``_<position>`` (1-based, left to right),
    skipping names the pattern uses."""
    taken = {s.var for s in algebra.sources(expr) if s.var}
    counter = iter(range(1, 1 << 30))

    def fresh() -> str:
        while True:
            name = f"_{next(counter)}"
            if name not in taken:
                taken.add(name)
                return name

    def walk(e):
        if isinstance(e, algebra.Source):
            return e if e.var else algebra.Source(e.type, fresh())
        if isinstance(e, algebra.Union):
            return algebra.Union(walk(e.left), walk(e.right))
        if isinstance(e, algebra.Next):
            return algebra.Next(walk(e.left), walk(e.right))
        if isinstance(e, algebra.Except):
            return algebra.Except(walk(e.child), walk(e.fail))
        if isinstance(e, algebra.Iteration):
            return algebra.Iteration(walk(e.child), e.min_size, e.max_size)
        return algebra.Time(walk(e.child), e.seconds)

    return walk(expr)


def parse_patterns(text: str, source: str = "<text>") -> list:
    """Every pattern in ``text`` (a :class:`Pattern`, or a :class:`~cep.next_algebra.NextPattern`
    for NEXT's infix form); raises PatternSyntaxError or PatternError (one line each)."""
    try:
        tree = _parser().parse(text)
    except UnexpectedCharacters as e:
        raise PatternSyntaxError(
            f"{source}: line {e.line}, column {e.column}: unexpected character {text[e.pos_in_stream]!r}; "
            f"expected {_expected(e.allowed or ())}"
        ) from None
    except UnexpectedToken as e:
        tok = e.token
        line, column = e.line, e.column
        if tok.type == "$END":  # lark places it on the last token; point just past the text instead
            body = text.rstrip()
            line, column = body.count("\n") + 1, len(body) - body.rfind("\n")
        what = "end of input" if tok.type == "$END" else repr(str(tok))
        raise PatternSyntaxError(
            f"{source}: line {line}, column {column}: unexpected {what}; expected {_expected(e.expected)}"
        ) from None
    except UnexpectedEOF as e:
        raise PatternSyntaxError(f"{source}: unexpected end of input; expected {_expected(e.expected)}") from None
    except UnexpectedInput as e:  # pragma: no cover - other lark input errors
        raise PatternSyntaxError(f"{source}: line {e.line}, column {e.column}: {e}") from None
    _check_nesting(tree, source)
    try:
        patterns = _ToAst().transform(tree)
    except VisitError as e:
        if isinstance(e.orig_exc, PatternError):
            raise PatternError(f"{source}: {e.orig_exc}") from None
        raise
    if not patterns:
        raise PatternError(f"{source}: empty pattern text: no PATTERN found")
    return [p if p.name else _named(p, f"P{i + 1}" if len(patterns) > 1 else None) for i, p in enumerate(patterns)]


def _named(p, name: str | None):
    if name is None:
        return p
    return replace(p, name=name)


def parse_pattern(text: str, source: str = "<text>"):
    ps = parse_patterns(text, source)
    if len(ps) != 1:
        raise PatternError(f"{source}: expected one pattern, found {len(ps)}")
    return ps[0]


def parse_pattern_file(path: str | Path) -> list:
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as e:
        raise PatternError(f"{p}: cannot read pattern file ({e.strerror})") from None
    return parse_patterns(text, str(p))
