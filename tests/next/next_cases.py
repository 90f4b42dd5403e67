"""Random NEXT patterns and streams for the NEXT tests, drawn from ``random.Random(seed)``."""

from __future__ import annotations

import itertools
import random

from cep import Event, EventStream
from cep.conditions import Attr, Comparison, Const
from cep.errors import PatternError
from cep.next_algebra import Except, Iteration, Next, NextPattern, Source, Time, Union, left_deep, sources
from cep.next_mapping import to_pattern
from cep.pattern import EventRef, Not, Op, Operator, Pattern, SeqOrder, Window

TYPES = ("A", "B", "C", "D")


class Names:
    def __init__(self) -> None:
        self.n = 0

    def source(self, rng: random.Random, types=TYPES) -> Source:
        self.n += 1
        return Source(rng.choice(types), f"v{self.n}")


def random_expr(rng: random.Random, leaves: int, *, ops=("next", "union", "except", "iter", "time"), names=None):
    """A random expression over ``leaves`` sources, combining neighbours with next or union and now
    and then wrapping a part in an exception, an iteration (of a source) or a time operator."""
    names = names or Names()
    parts = []
    for _ in range(leaves):
        s = names.source(rng)
        if "iter" in ops and rng.random() < 0.12:
            lo = rng.randint(1, 2)
            parts.append(Iteration(s, lo, rng.choice([lo, lo + 1, None])))
        else:
            parts.append(s)
    binary = [o for o in ("next", "union") if o in ops]
    while len(parts) > 1:
        i = rng.randrange(len(parts) - 1)
        op = rng.choice(binary)
        node = Next(parts[i], parts[i + 1]) if op == "next" else Union(parts[i], parts[i + 1])
        r = rng.random()
        if "except" in ops and r < 0.15:
            node = Except(node, names.source(rng))
        elif "time" in ops and r < 0.22:
            node = Time(node, float(rng.choice([1, 2, 3])))
        parts[i : i + 2] = [node]
    top = parts[0]
    if "except" in ops and rng.random() < 0.1:
        top = Except(top, names.source(rng))
    return top


def random_pattern(rng: random.Random, leaves: int, *, ops=("next", "union", "except", "iter", "time"),
                   conditions: int = 2, window: float = 6.0) -> NextPattern:
    """A random valid pattern with up to ``conditions`` random predicates (skip or fail); predicates
    that have no place in the drawn grouping are dropped."""
    expr = random_expr(rng, leaves, ops=ops)
    p = NextPattern(expr, window=Window.seconds(window))
    vars_ = [s.var for s in sources(expr)]
    for _ in range(conditions):
        k = rng.choice([1, 2, 2])
        vs = rng.sample(vars_, min(k, len(vars_)))
        if len(vs) == 1:
            c = Comparison(rng.choice(["<", ">"]), Attr(vs[0], "x"), Const(rng.choice([3.0, 5.0, 7.0])))
        else:
            c = Comparison(rng.choice(["<", ">", "<="]), Attr(vs[0], "x"), Attr(vs[1], "x"))
        skip = rng.random() < 0.5
        try:
            p = NextPattern(p.expr, p.conditions + (() if skip else (c,)), p.filters + ((c,) if skip else ()), p.window)
        except PatternError:
            continue
    return p


def random_stream(rng: random.Random, n: int, *, types=TYPES + ("E",), step: float = 0.5) -> EventStream:
    """``n`` events of random types at times on a grid of ``step`` seconds, several per instant now
    and then (ties), with an attribute ``x`` in 0..9."""
    t = 0.0
    events = []
    for _ in range(n):
        if rng.random() < 0.7:
            t += step * rng.randint(1, 3)
        events.append(Event(rng.choice(types), t, {"x": float(rng.randint(0, 9))}))
    return EventStream(events)


def fragment_pattern(rng):
    """A random pattern of the SEQ/OR/NOT fragment: a chain of sources and unions of sources with a
    gap exception now and then, or a random pattern that maps."""
    if rng.random() < 0.4:
        names = Names()
        ops = [random_expr(rng, rng.randint(1, 2), ops=("union",), names=names) for _ in range(rng.randint(2, 3))]
        q = rng.randrange(1, len(ops))
        ops[q] = Except(ops[q], names.source(rng))
        return with_random_predicates(rng, left_deep(ops), window=8.0)
    for _ in range(200):
        p = random_pattern(rng, rng.randint(2, 4), ops=("next", "union", "except"), window=8.0)
        try:
            to_pattern(p)
            return p
        except PatternError:
            continue
    raise AssertionError("no fragment pattern drawn")


def with_random_predicates(rng, expr, n=2, window=6.0):
    """``expr`` as a pattern with up to ``n`` random two-variable predicates, each skip or fail."""
    p = NextPattern(expr, window=Window.seconds(window))
    for _ in range(n):
        a, b = rng.sample(p.variables, 2)
        c = Comparison("<", Attr(a, "x"), Attr(b, "x"))
        skip = rng.random() < 0.5
        try:
            p = NextPattern(expr, p.conditions + (() if skip else (c,)), p.filters + ((c,) if skip else ()), p.window)
        except PatternError:
            continue
    return p


def random_our_pattern(rng: random.Random, *, window: float = 6.0) -> Pattern:
    """A random pattern of our language around the part that maps to NEXT (cep.next_mapping.to_next):
    an OR of SEQs whose elements are events or ORs of events, with NOTs in the gaps -- mostly a
    successor NOT per event, now and then an exception NOT or none -- and random conditions on events
    and NOTs, some of which NEXT cannot express."""
    counter = itertools.count(1)

    def ref(t: str) -> EventRef:
        return EventRef(t, f"v{next(counter)}")

    def x(r: EventRef) -> Attr:
        return Attr(r.var, "x")

    parts, conds = [], []
    for _ in range(rng.choice([1, 1, 2])):
        elements, bound = [], []
        for q in range(rng.randint(1, 3)):
            branches = [ref(rng.choice(TYPES)) for _ in range(rng.choice([1, 1, 2]))]
            for b in branches if q else ():
                if rng.random() < 0.9:
                    n = ref(b.type)
                    elements.append(Not(n))
                    r = rng.random()
                    if r < 0.3:  # a skip predicate: on the NOT and on its event
                        op, k = rng.choice(["<", ">"]), Const(rng.choice([3.0, 5.0]))
                        conds += [Comparison(op, x(n), k), Comparison(op, x(b), k)]
                    elif r < 0.45:  # ... relating it to an earlier event
                        e = rng.choice(bound)
                        conds += [Comparison("<", x(n), x(e)), Comparison("<", x(b), x(e))]
                    elif r < 0.5:  # a condition of the NOT only: not a successor NOT
                        conds.append(Comparison(">", x(n), Const(4.0)))
            if q and rng.random() < 0.25:
                f = ref(rng.choice(TYPES))
                elements.append(Not(f))
                if rng.random() < 0.5:
                    conds.append(Comparison("<", x(f), x(rng.choice(branches + bound))))
            if rng.random() < 0.3:  # a fail predicate
                conds.append(Comparison(">", x(branches[0]), Const(rng.choice([2.0, 6.0]))))
            if bound and rng.random() < 0.3:
                conds.append(Comparison("<=", x(rng.choice(bound)), x(branches[-1])))
            elements.append(branches[0] if len(branches) == 1 else Operator(Op.OR, tuple(branches)))
            bound += branches
        parts.append(Operator(Op.SEQ, tuple(elements)))
    structure = parts[0] if len(parts) == 1 else Operator(Op.OR, tuple(parts))
    return Pattern(structure, tuple(conds), Window.seconds(window), seq_order=SeqOrder.STRICT)
