"""The pattern AST: structure (SEQ, AND, OR, NOT, KL, nesting), conditions, window, selection strategy.

A pattern is ``P = (E, S, C, W)`` as in MCEP Section 2: the primitive events it declares, its
*structure* (an expression over the operators), a condition set and a window; plus a selection
strategy (JQPG Section 5.2).  The text form (``cep.parser``) is SASE-style (JQPG Section 2.1):

    PATTERN SEQ(MSFT m, KL(GOOG g), NOT(INTC i), AAPL a)
    WHERE m.diff < a.diff AND g.close > 10
    WITHIN 20 minutes

Validation happens when a :class:`Pattern` is built: variable names are unique, every condition
variable is declared, NOT and KL apply to one primitive event, OR holds no NOT or KL directly, an
n-ary operator has at least one operand, a condition mentions at most one negated variable.
"""

from __future__ import annotations

import enum
import math
import re
from dataclasses import dataclass, field
from typing import Iterator, Union

from cep.conditions import Comparison
from cep.errors import PatternError


@dataclass(frozen=True)
class EventRef:
    """A primitive event of type ``type`` bound to variable ``var``."""

    type: str
    var: str


@dataclass(frozen=True)
class Not:
    """NOT(T v): the absence of a matching event of type T (JQPG Section 2.1)."""

    event: EventRef


@dataclass(frozen=True)
class Kleene:
    """KL(T v){min,max}: one or more events of type T; ``max_size`` None means unbounded."""

    event: EventRef
    min_size: int = 1
    max_size: int | None = None

    def __post_init__(self) -> None:
        if self.min_size < 1:
            raise PatternError(f"KL({self.event.type} {self.event.var}): minimum size must be >= 1, got {self.min_size}")
        if self.max_size is not None and self.max_size < self.min_size:
            raise PatternError(
                f"KL({self.event.type} {self.event.var}): maximum size {self.max_size} is below minimum {self.min_size}"
            )


class Op(str, enum.Enum):
    SEQ = "SEQ"
    AND = "AND"
    OR = "OR"


@dataclass(frozen=True)
class Operator:
    """An n-ary operator over sub-structures."""

    op: Op
    children: tuple["Structure", ...]


Structure = Union[EventRef, Not, Kleene, Operator]


class WindowKind(str, enum.Enum):
    TIME = "time"
    COUNT = "count"


TIME_UNITS = {
    "milliseconds": 0.001,
    "millisecond": 0.001,
    "ms": 0.001,
    "seconds": 1.0,
    "second": 1.0,
    "sec": 1.0,
    "s": 1.0,
    "minutes": 60.0,
    "minute": 60.0,
    "min": 60.0,
    "hours": 3600.0,
    "hour": 3600.0,
    "h": 3600.0,
    "days": 86400.0,
    "day": 86400.0,
}


#: the largest count window: every count up to it is an exact float, as windows and positions are compared
MAX_COUNT_WINDOW = 2**53


@dataclass(frozen=True)
class Window:
    """``WITHIN 20 minutes`` (time, ``size`` in seconds) or ``WITHIN 500 events`` (count)."""

    kind: WindowKind
    size: float

    def __post_init__(self) -> None:
        if not self.size > 0:
            raise PatternError(f"window size must be positive, got {self.size}")
        if not math.isfinite(self.size):
            raise PatternError(f"window size must be finite, got {self.size} seconds")
        if self.kind is WindowKind.COUNT:
            if int(self.size) != self.size:
                raise PatternError(f"a count window holds a whole number of events, got {self.size}")
            if self.size > MAX_COUNT_WINDOW:
                raise PatternError(f"a count window holds at most {MAX_COUNT_WINDOW} events (2**53), got {int(self.size)}")

    @classmethod
    def seconds(cls, s: float) -> "Window":
        return cls(WindowKind.TIME, float(s))

    @classmethod
    def events(cls, n: int) -> "Window":
        return cls(WindowKind.COUNT, int(n))

    @property
    def span_limit(self) -> float:
        """Largest allowed max(key) - min(key) over a match (key: ts for time, position for count)."""
        return self.size if self.kind is WindowKind.TIME else self.size - 1

    def __str__(self) -> str:
        if self.kind is WindowKind.COUNT:
            return f"{int(self.size)} events"
        s = self.size
        for unit, f in (("hours", 3600.0), ("minutes", 60.0), ("seconds", 1.0), ("milliseconds", 0.001)):
            n = round(s / f)
            if n >= 1 and n * f == s:
                return f"{n} {unit}"
        return f"{s!r} seconds"


class Strategy(str, enum.Enum):
    """Event selection strategies (JQPG Section 5.2); semantics in :mod:`cep.semantics`."""

    ANY = "skip-till-any-match"
    NEXT = "skip-till-next-match"
    STRICT = "strict-contiguity"
    PARTITION = "partition-contiguity"

    @classmethod
    def parse(cls, text: str) -> "Strategy":
        t = text.strip().lower().replace("_", "-")
        aliases = {"any": cls.ANY, "next": cls.NEXT, "strict": cls.STRICT, "contiguity": cls.STRICT, "partition": cls.PARTITION}
        if t in aliases:
            return aliases[t]
        for s in cls:
            if s.value == t:
                return s
        raise PatternError(f"unknown selection strategy {text!r}; expected one of {', '.join(s.value for s in cls)}")


class SeqOrder(str, enum.Enum):
    """How SEQ compares timestamps: non-decreasing (OpenCEP, default) or strictly increasing (JQPG Section 4)."""

    NONDECREASING = "nondecreasing"
    STRICT = "strict"


@dataclass(frozen=True)
class Pattern:
    structure: Structure
    conditions: tuple[Comparison, ...] = ()
    window: Window = field(default_factory=lambda: Window.seconds(60.0))
    strategy: Strategy = Strategy.ANY
    partition_attribute: str | None = None
    seq_order: SeqOrder = SeqOrder.NONDECREASING
    name: str | None = None

    def __post_init__(self) -> None:
        validate(self)

    # ---- views -----------------------------------------------------------------------------
    def event_refs(self) -> list[EventRef]:
        """Every declared primitive event, in declaration order (positive, NOT and KL alike)."""
        return [ref for ref, _ in iter_events(self.structure)]

    @property
    def variables(self) -> list[str]:
        return [r.var for r in self.event_refs()]

    @property
    def event_types(self) -> list[str]:
        return list(dict.fromkeys(r.type for r in self.event_refs()))

    def var_types(self) -> dict[str, str]:
        return {r.var: r.type for r in self.event_refs()}

    def __str__(self) -> str:
        return format_pattern(self)


def iter_events(s: Structure, ctx: str = "") -> Iterator[tuple[EventRef, str]]:
    """Yield (event, kind) for every primitive event; kind is 'positive', 'not' or 'kleene'."""
    if isinstance(s, EventRef):
        yield s, "positive"
    elif isinstance(s, Not):
        yield s.event, "not"
    elif isinstance(s, Kleene):
        yield s.event, "kleene"
    else:
        for c in s.children:
            yield from iter_events(c)


def negated_variables(s: Structure) -> set[str]:
    return {r.var for r, k in iter_events(s) if k == "not"}


def validate(p: Pattern) -> None:
    s = p.structure
    if not isinstance(s, Operator):
        raise PatternError("a pattern must start with SEQ(...), AND(...) or OR(...)")
    _validate_structure(s)
    refs = [r for r, _ in iter_events(s)]
    seen: dict[str, EventRef] = {}
    for r in refs:
        if r.var in seen:
            raise PatternError(f"variable {r.var!r} is declared twice ({seen[r.var].type} and {r.type}); names must be unique")
        seen[r.var] = r
    negs = negated_variables(s)
    for c in p.conditions:
        undeclared = sorted(c.variables - seen.keys())
        if undeclared:
            raise PatternError(f"condition '{c}' uses undeclared variable {undeclared[0]!r}; declared: {', '.join(seen)}")
        if not c.variables:
            raise PatternError(f"condition '{c}' mentions no variable")
        if len(c.variables & negs) > 1:
            raise PatternError(f"condition '{c}' relates two negated variables; a condition may mention at most one")
    if p.strategy is Strategy.PARTITION and not p.partition_attribute:
        raise PatternError("partition-contiguity needs a partition attribute: STRATEGY partition-contiguity BY <attribute>")
    if p.strategy is not Strategy.PARTITION and p.partition_attribute:
        raise PatternError(f"a partition attribute is only meaningful with partition-contiguity, not {p.strategy.value}")
    if all(k == "not" for _, k in iter_events(s)):
        raise PatternError("a pattern needs at least one event that is not negated")


def _validate_structure(s: Structure) -> None:
    if isinstance(s, Operator):
        if not s.children:
            raise PatternError(f"empty pattern: {s.op.value}() has no operands")
        for c in s.children:
            if s.op is Op.OR and isinstance(c, (Not, Kleene)):
                kind = "negated" if isinstance(c, Not) else "Kleene"
                raise PatternError(
                    f"a {kind} event ({c.event.type} {c.event.var}) cannot be a direct operand of OR; "
                    "put it inside a SEQ or AND"
                )
            _validate_structure(c)
        if all(isinstance(c, Not) for c in s.children):
            raise PatternError(f"{s.op.value}(...) holds only negated events")


# ---- printing ------------------------------------------------------------------------------------
# the words of the text language (cep/pattern.lark) that a bare event type cannot be
_KEYWORDS = {"pattern", "seq", "and", "or", "not", "kl", "where", "within", "strategy", "by", "seq_order", "filter",
             "return", "slide"}
_SIMPLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_INT = re.compile(r"[0-9]+\Z")


def format_type(t: str) -> str:
    """An event type as the text language writes it: bare if it is a name (not a keyword) or an
    integer, else double-quoted with ``\\`` and ``"`` escaped."""
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


def format_pattern(p) -> str:
    """The normalized text of a pattern; parsing it (:mod:`cep.parser`) gives back an equal pattern.
    A pattern of another kind -- a NEXT pattern (:mod:`cep.next_algebra`), a trend query
    (:mod:`cep.trends`), a DNF clause (:mod:`cep.dnf`) -- prints itself."""
    if not isinstance(p, Pattern):
        return str(p)
    parts = [f"PATTERN {format_structure(p.structure)}"]
    if p.conditions:
        parts.append("WHERE " + " AND ".join(str(c) for c in p.conditions))
    parts.append(f"WITHIN {p.window}")
    if p.strategy is not Strategy.ANY:
        parts.append(f"STRATEGY {p.strategy.value}" + (f" BY {p.partition_attribute}" if p.partition_attribute else ""))
    if p.seq_order is not SeqOrder.NONDECREASING:
        parts.append(f"SEQ_ORDER {p.seq_order.value}")
    return " ".join(parts)
