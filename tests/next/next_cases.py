"""Random NEXT patterns and streams for the NEXT tests, drawn from ``random.Random(seed)``."""

from __future__ import annotations

import random

from cep import Event, EventStream
from cep.conditions import Attr, Comparison, Const
from cep.errors import PatternError
from cep.next_algebra import Except, Iteration, Next, NextPattern, Source, Time, Union, sources
from cep.pattern import Window

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
