"""Event trend aggregation queries (HAMLET, Poppe et al. SIGMOD'21, Section 2.1), defined once.

A trend aggregation query (HAMLET Definition 2.2, Figure 1) is written in the one pattern language::

    RETURN t.district, COUNT(*), SUM(t.duration)
    PATTERN SEQ(Request r, KL(Travel t), Dropoff d)        -- ``Travel t+`` is the same as KL(Travel t)
    WHERE [driver, rider] AND r.type = 'Pool'
    GROUP-BY t.district
    WITHIN 30 minutes SLIDE 5 minutes

Trend semantics (every trend engine in ``evaluators/trends/`` reports exactly this):

* **Pattern.**  ``SEQ(x_1, ..., x_m)`` whose elements are an event ``T v``, a Kleene plus ``KL(T v)``
  / ``T v+`` (no size bounds), or a negation ``NOT(T v)`` / ``NOT T v`` that stands between two
  positive elements.  The positive elements have distinct event types (HAMLET's template holds each
  type once, Section 3.1), and a negated type is not a positive one.  The first and the last element
  are positive.
* **Trend** (Definition 2.3).  A sequence of events ``(e_1, ..., e_k)`` in strictly increasing
  timestamps (each event strictly later than the previous one) that the positive elements cover in
  order: a plain element takes exactly one event, a Kleene element one or more consecutive events of
  the trend; any other events of the stream may lie in between (skip-till-any-match).
* **WHERE.**  A comparison mentions one variable and must hold for every event bound to it (every
  element of a Kleene element); numbers and quoted strings compare; a comparison that cannot be
  evaluated (a missing attribute, a string against a number with ``<``, a division by zero) is false.
  ``[a1, a2, ...]`` (equivalence) means every event of a trend has the same value of each ``ai``.
* **NOT.**  ``NOT(N n)`` between positive elements ``x_i`` and ``x_j`` kills a trend when an event of
  type N satisfying n's comparisons, with the trend's equivalence and grouping values, has a timestamp
  strictly between the last event of ``x_i`` and the first event of ``x_j``.
* **GROUP-BY** ``g1, ...`` (written ``t.g1`` or ``g1``): as in Definition 2.3, all events of a trend
  have the same values of the grouping attributes; trends are aggregated per group.  An event lacking
  an equivalence or grouping attribute is in no trend.
* **Windows.**  ``WITHIN w SLIDE s`` (time units; ``SLIDE`` defaults to ``w``) means the windows
  ``[k*s, k*s + w)`` of the stream's timestamps (seconds), for every integer ``k``.  A trend belongs
  to a window when all its events lie in it.  Arithmetic is exact (``fractions.Fraction`` of the
  timestamps); panes (Section 3.1) are the gcd of every window and slide of a workload.
* **Aggregates** (Section 2.1), per query, window and group, over the trends of that window and
  group: ``COUNT(*)`` the number of trends (an exact Python integer: it grows exponentially);
  ``COUNT(v)`` the number of events bound to ``v`` summed over all trends; ``SUM(v.a)`` the sum of
  ``a`` over those events (an event of ``v`` whose ``a`` is missing or not a number is in no trend
  of that query); ``AVG(v.a) = SUM(v.a) / COUNT(v)``; ``MIN(v.a)`` / ``MAX(v.a)`` the least /
  greatest ``a`` of an event bound to ``v`` in some trend.  Attribute values are exact: integers stay
  integers and other numbers become fractions, so every engine gives identical results.  ``v`` may
  also be the event type of a variable.
* **Result rows.**  One row per query, window and group that has at least one trend: query index,
  window start, window end, the group's values, then one value per RETURN item (a grouping attribute
  in RETURN prints the group's value).

Queries that differ from these rules (OR/AND, Kleene bounds, count windows, comparisons of two
variables, a type twice) are rejected with a one-line :class:`~cep.errors.PatternError`.

Under ``SEQ_ORDER strict`` and a window that holds the whole stream, ``COUNT(*)`` of a query equals
the number of matches ``detect`` reports for its PATTERN/WHERE part (``cep/semantics.py``): a match's
Kleene tuple is a trend's run of Kleene events.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Iterator

from cep.conditions import Comparison
from cep.errors import PatternError
from cep.pattern import EventRef, Kleene, Not, Op, Operator, Pattern, SeqOrder, Window, format_structure

AGGREGATES = ("COUNT", "SUM", "AVG", "MIN", "MAX")


@dataclass(frozen=True)
class ReturnItem:
    """One RETURN item: ``kind`` is ``group`` (a grouping attribute), ``count_star``, ``count``,
    ``sum``, ``avg``, ``min`` or ``max``; ``var`` the pattern variable it aggregates, ``attr`` the
    attribute (grouping attribute for ``group``)."""

    kind: str
    var: str | None = None
    attr: str | None = None
    text: str = ""

    def __str__(self) -> str:
        return self.text or self.kind


@dataclass(frozen=True)
class Element:
    """A positive element of a trend pattern: event type, variable, Kleene or not, and its comparisons."""

    type: str
    var: str
    kleene: bool
    conditions: tuple[Comparison, ...] = ()


@dataclass(frozen=True)
class Negation:
    """``NOT(type var)`` standing between positive elements ``after`` and ``after + 1``."""

    type: str
    var: str
    after: int
    conditions: tuple[Comparison, ...] = ()


@dataclass(frozen=True)
class TrendQuery:
    """A trend aggregation query (HAMLET Definition 2.2); build with :func:`make_trend_query`."""

    items: tuple[ReturnItem, ...]
    pattern: Pattern
    equivalence: tuple[str, ...]
    group_by: tuple[str, ...]
    window: Fraction
    slide: Fraction
    elements: tuple[Element, ...] = field(default=())
    negations: tuple[Negation, ...] = field(default=())
    name: str | None = None

    @property
    def partition_attributes(self) -> tuple[str, ...]:
        """Attributes every event of a trend shares: grouping attributes, then the equivalence ones."""
        return self.group_by + tuple(a for a in self.equivalence if a not in self.group_by)

    @property
    def types(self) -> tuple[str, ...]:
        """Every event type of the pattern (positive and negated)."""
        return tuple(e.type for e in self.elements) + tuple(n.type for n in self.negations)

    @property
    def kleene_types(self) -> tuple[str, ...]:
        return tuple(e.type for e in self.elements if e.kleene)

    @property
    def count_only(self) -> bool:
        """Whether every aggregate is COUNT(*) (Section 3 assumption 1; the HAMLET executor shares such
        queries with int coefficients, the others with tuple coefficients)."""
        return all(i.kind in ("count_star", "group") for i in self.items)

    @property
    def attributes_used(self) -> dict[str, str]:
        """Every event attribute the query reads, with where it first reads it (a RETURN item, a WHERE
        comparison, GROUP-BY or an equivalence predicate): what the events must carry.  ``type`` and
        ``ts`` are every event's own."""
        used: dict[str, str] = {}
        for it in self.items:
            if it.attr is not None:
                used.setdefault(it.attr, f"RETURN {it}")
        for c in (c for part in (*self.elements, *self.negations) for c in part.conditions):
            for a in sorted(c.attributes, key=str):
                used.setdefault(a.name, f"WHERE {c}")
        for a in self.group_by:
            used.setdefault(a, "GROUP-BY")
        for a in self.equivalence:
            used.setdefault(a, f"[{a}]")
        return {k: v for k, v in used.items() if k not in ("type", "ts")}

    def __str__(self) -> str:
        return format_trend_query(self)


def format_seconds(x: Fraction) -> str:
    for unit, f in (("hours", 3600), ("minutes", 60), ("seconds", 1)):
        if x % f == 0 and x >= f:
            return f"{int(x // f)} {unit}"
    if (x * 1000).denominator == 1:
        return f"{int(x * 1000)} milliseconds"
    return f"{float(x)!r} seconds"


def format_trend_query(q: TrendQuery) -> str:
    parts = ["RETURN " + ", ".join(str(i) for i in q.items), f"PATTERN {format_structure(q.pattern.structure)}"]
    conds = ([f"[{', '.join(q.equivalence)}]"] if q.equivalence else []) + [str(c) for c in q.pattern.conditions]
    if conds:
        parts.append("WHERE " + " AND ".join(conds))
    if q.group_by:
        parts.append("GROUP-BY " + ", ".join(q.group_by))
    parts.append(f"WITHIN {format_seconds(q.window)}")
    if q.slide != q.window:
        parts.append(f"SLIDE {format_seconds(q.slide)}")
    return " ".join(parts)


def exact_seconds(x: float) -> Fraction:
    """A window or slide length in seconds as an exact fraction (to the microsecond)."""
    return Fraction(x).limit_denominator(1_000_000)


def make_trend_query(
    items,
    structure,
    conditions=(),
    equivalence=(),
    group_by=(),
    window: float = 60.0,
    slide: float | None = None,
    name: str | None = None,
) -> TrendQuery:
    """Validate and build a trend query; raises a one-line PatternError naming the offending part."""
    if not isinstance(structure, Operator) or structure.op is not Op.SEQ:
        raise PatternError("a trend aggregation pattern is one SEQ(...) of events, KL(...) and NOT(...) (HAMLET Definition 2.1; OR and AND are not supported)")
    pattern = Pattern(structure=structure, conditions=tuple(conditions), window=_window(window), seq_order=SeqOrder.STRICT, name=name)
    elements: list[Element] = []
    negs: list[tuple[EventRef, int]] = []
    for child in structure.children:
        if isinstance(child, EventRef):
            elements.append(Element(child.type, child.var, False))
        elif isinstance(child, Kleene):
            if (child.min_size, child.max_size) != (1, None):
                raise PatternError(f"KL({child.event.type} {child.event.var}) with size bounds is not a trend pattern; write KL({child.event.type} {child.event.var}) or {child.event.type} {child.event.var}+")
            elements.append(Element(child.event.type, child.event.var, True))
        elif isinstance(child, Not):
            if not elements:
                raise PatternError(f"NOT({child.event.type} {child.event.var}) must stand between two positive elements of the SEQ")
            negs.append((child.event, len(elements) - 1))
        else:
            raise PatternError("a trend aggregation pattern is one flat SEQ(...): nested operators are not supported")
    if negs and negs[-1][1] == len(elements) - 1:
        ev = negs[-1][0]
        raise PatternError(f"NOT({ev.type} {ev.var}) must stand between two positive elements of the SEQ")
    seen: dict[str, str] = {}
    for e in elements:
        if e.type in seen:
            raise PatternError(f"event type {e.type!r} appears twice ({seen[e.type]} and {e.var}); a trend pattern holds each type once (HAMLET Section 3.1)")
        seen[e.type] = e.var
    for ev, _ in negs:
        if ev.type in seen:
            raise PatternError(f"negated type {ev.type!r} ({ev.var}) is also a positive type of the pattern")
    by_var: dict[str, list[Comparison]] = {}
    for c in pattern.conditions:
        if len(c.variables) != 1:
            raise PatternError(f"condition '{c}' mentions {len(c.variables)} variables; a trend query's comparisons mention one (use [attr] for equality across a trend)")
        by_var.setdefault(next(iter(c.variables)), []).append(c)
    elements = [Element(e.type, e.var, e.kleene, tuple(by_var.get(e.var, ()))) for e in elements]
    negations = tuple(Negation(ev.type, ev.var, after, tuple(by_var.get(ev.var, ()))) for ev, after in negs)
    w = exact_seconds(window)
    s = exact_seconds(slide) if slide is not None else w
    if not s > 0:
        raise PatternError(f"SLIDE must be positive, got {float(s)!r} seconds")
    var_of = {e.var: e for e in elements}
    type_to_var = {e.type: e.var for e in elements}
    group_by = tuple(dict.fromkeys(group_by))
    fixed: list[ReturnItem] = []
    for it in items:
        if it.kind == "group":
            if it.attr not in group_by:
                raise PatternError(f"RETURN {it.text}: {it.attr!r} is not a GROUP-BY attribute; RETURN takes grouping attributes and COUNT/SUM/AVG/MIN/MAX")
            fixed.append(it)
            continue
        if it.kind == "count_star":
            fixed.append(it)
            continue
        v = it.var
        if v not in var_of:
            if v in type_to_var:
                v = type_to_var[v]
            else:
                negated = {n.var for n in negations} | {n.type for n in negations}
                what = "a negated event" if v in negated else "not a positive variable or type of the pattern"
                raise PatternError(f"RETURN {it.text}: {it.var!r} is {what}; declared: {', '.join(var_of)}")
        fixed.append(ReturnItem(it.kind, v, it.attr, it.text))
    if not fixed:
        raise PatternError("RETURN needs at least one item")
    return TrendQuery(tuple(fixed), pattern, tuple(dict.fromkeys(equivalence)), group_by, w, s, tuple(elements), negations, name)


def _window(seconds: float) -> Window:
    return Window.seconds(float(seconds))


# ---- windows and panes ----------------------------------------------------------------------------
def pane_size(queries) -> Fraction:
    """The gcd of every window and slide of ``queries`` (HAMLET Section 3.1; exact for fractions)."""
    g = Fraction(0)
    for q in queries:
        for x in (q.window, q.slide):
            g = _fgcd(g, x)
    return g


def _fgcd(a: Fraction, b: Fraction) -> Fraction:
    if a == 0:
        return b
    den = a.denominator * b.denominator // math.gcd(a.denominator, b.denominator)
    return Fraction(math.gcd(int(a * den), int(b * den)), den)


def windows_of(q: TrendQuery, ts: float) -> Iterator[int]:
    """Every k with ``k*s <= ts < k*s + w`` (the windows an event at ``ts`` lies in)."""
    t = Fraction(ts)
    k_hi = math.floor(t / q.slide)
    k = k_hi
    while k * q.slide + q.window > t:
        yield k
        k -= 1


def window_bounds(q: TrendQuery, k: int) -> tuple[Fraction, Fraction]:
    return k * q.slide, k * q.slide + q.window


def number(x):
    """An attribute value for exact aggregation: int if integral, else an exact Fraction; strings stay."""
    if isinstance(x, str):
        return x
    if isinstance(x, int):
        return x
    xf = float(x)
    if xf.is_integer():
        return int(xf)
    return Fraction(xf)


def output_value(v):
    """A result value printed in rows and JSON: ints stay exact, fractions become floats."""
    if isinstance(v, Fraction):
        return int(v) if v.denominator == 1 else float(v)
    return v


__all__ = [
    "AGGREGATES",
    "Element",
    "Negation",
    "ReturnItem",
    "TrendQuery",
    "exact_seconds",
    "format_trend_query",
    "make_trend_query",
    "number",
    "output_value",
    "pane_size",
    "window_bounds",
    "windows_of",
]
