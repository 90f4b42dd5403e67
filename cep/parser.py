"""Parse and print the SASE-style pattern language (grammar: ``cep/pattern.lark``).

``parse_patterns(text)`` returns every pattern of a text; ``parse_pattern(text)`` exactly one.
``format_pattern(p)`` prints the normalized text; parsing that text gives back an equal pattern.

Errors are one line: a :class:`PatternSyntaxError` names the line, the column and what was expected;
a :class:`PatternError` names the offending variable or operator and the line its pattern starts on.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from lark import Lark, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from cep.conditions import Attr, BinOp, Comparison, Const, Neg
from cep.errors import PatternError, PatternSyntaxError
from cep.pattern import (
    TIME_UNITS,
    EventRef,
    Kleene,
    Not,
    Op,
    Operator,
    Pattern,
    SeqOrder,
    Strategy,
    Structure,
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
    "SEQ_ORDER_KW": "SEQ_ORDER",
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

_KEYWORDS = {"pattern", "seq", "and", "or", "not", "kl", "where", "within", "strategy", "by", "seq_order"}
_SIMPLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_INT = re.compile(r"[0-9]+\Z")


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return Lark(_GRAMMAR.read_text(), parser="lalr", propagate_positions=True, maybe_placeholders=True)


def _expected(names) -> str:
    readable = sorted({_READABLE.get(n, n.lower()) for n in names if not n.startswith("__")})
    return ", ".join(readable) if readable else "nothing more"


@v_args(inline=True)
class _ToAst(Transformer):
    def start(self, *patterns):
        return [p for p in patterns if isinstance(p, Pattern)]

    @v_args(meta=True)
    def pattern(self, meta, children):
        _kw, structure, where, within, strategy, seq_order = children
        strat, part = strategy if strategy is not None else (Strategy.ANY, None)
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

    def kleene(self, _kw, ev, bounds=None):
        lo, hi = bounds if bounds is not None else (1, None)
        return Kleene(ev, lo, hi)

    def exact_size(self, n):
        return int(n), int(n)

    def size_range(self, lo, hi):
        return (int(lo) if lo is not None else 1), (int(hi) if hi is not None else None)

    def where_clause(self, _kw, *parts):
        return [p for p in parts if isinstance(p, Comparison)]

    def condition(self, left, op, right):
        o = str(op)
        o = {"==": "=", "<>": "!="}.get(o, o)
        return Comparison(o, left, right)

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
        value = float(number)
        u = str(unit).lower()
        if u in ("events", "event"):
            if not value.is_integer():
                raise PatternError(f"line {unit.line}: a count window holds a whole number of events, got {number}")
            return Window(WindowKind.COUNT, int(value))
        if u not in TIME_UNITS:
            raise PatternError(
                f"line {unit.line}, column {unit.column}: unknown window unit {str(unit)!r}; "
                "expected events, milliseconds, seconds, minutes, hours or days"
            )
        return Window(WindowKind.TIME, value * TIME_UNITS[u])

    def strategy_clause(self, _kw, name, _by=None, attribute=None):
        return Strategy.parse(str(name)), (str(attribute) if attribute is not None else None)

    def seq_order_clause(self, _kw, value):
        v = str(value).lower()
        try:
            return SeqOrder(v)
        except ValueError:
            raise PatternError(f"line {value.line}: SEQ_ORDER must be nondecreasing or strict, got {str(value)!r}") from None


def parse_patterns(text: str, source: str = "<text>") -> list[Pattern]:
    """Every pattern in ``text``; raises PatternSyntaxError or PatternError (one line each)."""
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
    try:
        patterns = _ToAst().transform(tree)
    except VisitError as e:
        if isinstance(e.orig_exc, PatternError):
            raise PatternError(f"{source}: {e.orig_exc}") from None
        raise
    if not patterns:
        raise PatternError(f"{source}: empty pattern text: no PATTERN found")
    return [p if p.name else _named(p, f"P{i + 1}" if len(patterns) > 1 else None) for i, p in enumerate(patterns)]


def _named(p: Pattern, name: str | None) -> Pattern:
    if name is None:
        return p
    from dataclasses import replace

    return replace(p, name=name)


def parse_pattern(text: str, source: str = "<text>") -> Pattern:
    ps = parse_patterns(text, source)
    if len(ps) != 1:
        raise PatternError(f"{source}: expected one pattern, found {len(ps)}")
    return ps[0]


def parse_pattern_file(path: str | Path) -> list[Pattern]:
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as e:
        raise PatternError(f"{p}: cannot read pattern file ({e.strerror})") from None
    return parse_patterns(text, str(p))


# ---- printing ------------------------------------------------------------------------------------
def format_type(t: str) -> str:
    if (_SIMPLE_NAME.match(t) and t.lower() not in _KEYWORDS) or _INT.match(t):
        return t
    return '"' + t.replace("\\", "\\\\").replace('"', '\\"') + '"'


def format_structure(s: Structure) -> str:
    if isinstance(s, EventRef):
        return f"{format_type(s.type)} {s.var}"
    if isinstance(s, Not):
        return f"NOT({format_structure(s.event)})"
    if isinstance(s, Kleene):
        bounds = ""
        if (s.min_size, s.max_size) != (1, None):
            if s.min_size == s.max_size:
                bounds = f"{{{s.min_size}}}"
            else:
                bounds = f"{{{s.min_size},{'' if s.max_size is None else s.max_size}}}"
        return f"KL({format_structure(s.event)}){bounds}"
    return f"{s.op.value}({', '.join(format_structure(c) for c in s.children)})"


def format_pattern(p: Pattern) -> str:
    parts = [f"PATTERN {format_structure(p.structure)}"]
    if p.conditions:
        parts.append("WHERE " + " AND ".join(str(c) for c in p.conditions))
    parts.append(f"WITHIN {p.window}")
    if p.strategy is not Strategy.ANY:
        parts.append(f"STRATEGY {p.strategy.value}" + (f" BY {p.partition_attribute}" if p.partition_attribute else ""))
    if p.seq_order is not SeqOrder.NONDECREASING:
        parts.append(f"SEQ_ORDER {p.seq_order.value}")
    return " ".join(parts)


def format_simple_pattern(sp) -> str:
    """A DNF clause printed as pattern text (its OR-free structure)."""
    return format_pattern(
        Pattern(
            structure=sp.structure,
            conditions=sp.conditions,
            window=sp.window,
            strategy=sp.strategy,
            partition_attribute=sp.partition_attribute,
            seq_order=sp.seq_order,
        )
    )
