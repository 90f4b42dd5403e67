"""Random small patterns, streams and plans for the differential tests of the evaluators.

Plain functions of a ``random.Random`` (so a failing case is reproduced from its seed) wrapped as
hypothesis strategies by the tests.  Patterns mix every operator (SEQ, AND, OR, NOT, KL with size
bounds, nesting), one- and two-variable conditions (negated variables included), time and count
windows, the four selection strategies and both SEQ orders, arithmetic with every operator
(division by zero included) and unary minus; streams are short, with few types,
equal timestamps and small attribute values so that conditions, ties and windows all bite.
"""

from __future__ import annotations

import itertools
import random

from cep.conditions import Attr, BinOp, Comparison, Const, Neg
from cep.dnf import to_dnf
from cep.events import Event, EventStream
from cep.pattern import EventRef, Kleene, Not, Op, Operator, Pattern, SeqOrder, Strategy, Window, iter_events
from cep.plans import OrderPlan, PatternPlan, TreePlan

TYPES = ("A", "B", "C", "D")


def random_stream(rng: random.Random, *, min_events: int = 0, max_events: int = 10, types=TYPES) -> EventStream:
    n = rng.randint(min_events, max_events)
    ts = 0.0
    events = []
    for _ in range(n):
        ts += rng.choice((0.0, 0.0, 1.0, 1.0, 2.0, 3.0))
        events.append(Event(rng.choice(types), ts, {"x": float(rng.randint(0, 3)), "y": float(rng.randint(-1, 1)), "p": float(rng.randint(0, 1))}))
    return EventStream(events, "<random>")


def random_expression(rng: random.Random, var: str):
    """An arithmetic expression over ``var``'s attributes: every operator, unary minus, and
    divisions by an attribute that is often zero (a comparison dividing by zero is false)."""
    r = rng.random()
    if r < 0.5:
        return Attr(var, "x")
    if r < 0.6:
        return BinOp("+", Attr(var, "y"), Const(1.0))
    if r < 0.7:
        return BinOp("-", Attr(var, "x"), Attr(var, "y"))
    if r < 0.8:
        return BinOp("*", Attr(var, "x"), Const(2.0))
    if r < 0.9:
        return BinOp("/", Attr(var, "x"), Attr(var, "y"))
    return Neg(Attr(var, "y"))


def random_pattern(rng: random.Random, *, min_vars: int = 1, max_vars: int = 4, types=TYPES) -> Pattern:
    names = iter(f"v{i}" for i in itertools.count())
    n_vars = rng.randint(min_vars, max_vars)

    def leaf(allow_special: bool):
        t = rng.choice(types)
        ref = EventRef(t, next(names))
        r = rng.random()
        if allow_special and r < 0.2:
            return Not(ref)
        if allow_special and r < 0.4:
            lo = rng.choice((1, 1, 2))
            hi = rng.choice((None, lo, lo + 1))
            return Kleene(ref, lo, hi)
        return ref

    def build(k: int, op_parent: Op | None, depth: int = 0):
        if k == 1 and (depth >= 2 or rng.random() < 0.8):
            return leaf(op_parent is not Op.OR)
        op = rng.choice((Op.SEQ, Op.SEQ, Op.AND, Op.OR))
        parts = []
        left = k
        # an operator over one element only at the bottom; deeper down, one leaf per element
        n_children = k if depth >= 2 else rng.randint(min(2, k), min(3, k))
        for i in range(n_children):
            take = left if i == n_children - 1 else rng.randint(1, left - (n_children - 1 - i))
            left -= take
            parts.append(build(take, op, depth + 1))
        if all(isinstance(c, Not) for c in parts):
            parts.append(leaf(False))
        return Operator(op, tuple(parts))

    root_op = rng.choice((Op.SEQ, Op.SEQ, Op.AND, Op.OR))
    children = []
    left = n_vars
    while left > 0:
        take = rng.randint(1, left)
        left -= take
        children.append(build(take, root_op))
    if all(isinstance(c, Not) for c in children) or root_op is Op.OR and any(isinstance(c, (Not, Kleene)) for c in children):
        children = [c if not isinstance(c, (Not, Kleene)) or root_op is not Op.OR else c.event for c in children]
        if all(isinstance(c, Not) for c in children):
            children.append(leaf(False))
    structure = Operator(root_op, tuple(children))
    refs = list(iter_events(structure))
    variables = [r.var for r, _ in refs]
    negs = {r.var for r, k in refs if k == "not"}
    conds = []
    for _ in range(rng.randint(0, 3)):
        a = rng.choice(variables)
        if rng.random() < 0.35:
            conds.append(Comparison(rng.choice(("<", "<=", ">", "=", "!=")), Attr(a, "x"), Const(float(rng.randint(0, 3)))))
        else:
            b = rng.choice([v for v in variables if not (v in negs and a in negs)] or [a])
            if a == b:
                continue
            right = random_expression(rng, b)
            conds.append(Comparison(rng.choice(("<", "<=", ">", ">=", "=", "!=")), Attr(a, "x"), right))
    strategy = rng.choice((Strategy.ANY, Strategy.ANY, Strategy.NEXT, Strategy.STRICT, Strategy.PARTITION))
    window = Window.seconds(rng.choice((0.5, 1.0, 2.0, 3.0, 5.0))) if rng.random() < 0.7 else Window.events(rng.randint(1, 6))
    return Pattern(
        structure,
        tuple(conds),
        window,
        strategy,
        "p" if strategy is Strategy.PARTITION else None,
        rng.choice((SeqOrder.NONDECREASING, SeqOrder.NONDECREASING, SeqOrder.STRICT)),
    )


def all_orders(positive) -> list[tuple[str, ...]]:
    return list(itertools.permutations(positive))


def all_trees(leaves) -> list:
    """Every binary tree over ``leaves`` (unordered children counted once each way)."""
    leaves = tuple(leaves)
    if len(leaves) == 1:
        return [leaves[0]]
    out = []
    first, rest = leaves[0], leaves[1:]
    # split into two non-empty sides; the side containing `first` is listed on the left and right
    for r in range(0, len(rest)):
        for combo in itertools.combinations(rest, r):
            left = (first,) + combo
            right = tuple(v for v in rest if v not in combo)
            if not right:
                continue
            for lt in all_trees(left):
                for rt in all_trees(right):
                    out.append((lt, rt))
                    out.append((rt, lt))
    return out


def random_plan(rng: random.Random, pattern: Pattern, kind: str) -> PatternPlan:
    plans = []
    for sp in to_dnf(pattern):
        if kind == "order":
            plans.append(OrderPlan(tuple(rng.sample(sp.positive, len(sp.positive)))))
        else:
            plans.append(TreePlan(rng.choice(all_trees(rng.sample(sp.positive, len(sp.positive))))))
    return PatternPlan(tuple(plans))


def every_plan(pattern: Pattern, kind: str, *, limit: int = 150, rng: random.Random | None = None):
    """Every order (``kind="order"``) or every tree of each clause, the other clauses keeping their
    first plan: yields PatternPlans.  A clause with more than ``limit`` plans (five variables have
    1,680 trees) gets ``limit`` of them drawn by ``rng``."""
    clauses = to_dnf(pattern)
    options = [all_orders(sp.positive) if kind == "order" else all_trees(sp.positive) for sp in clauses]
    options = [o if len(o) <= limit else (rng or random.Random(0)).sample(o, limit) for o in options]
    wrap = OrderPlan if kind == "order" else TreePlan
    base = [opts[0] for opts in options]
    yield PatternPlan(tuple(wrap(x) for x in base))
    for i, opts in enumerate(options):
        for x in opts[1:]:
            chosen = list(base)
            chosen[i] = x
            yield PatternPlan(tuple(wrap(y) for y in chosen))


def enumeration_size(pattern: Pattern, stream: EventStream) -> int:
    """An upper bound on the bindings the brute-force matcher enumerates (to keep tests quick):
    per clause the product of the candidates of each variable (2^k subsets for a Kleene one)."""
    counts = stream.type_counts()
    total = 0
    for sp in to_dnf(pattern):
        size = 1
        for v in sp.positive:
            k = counts.get(sp.type_of(v), 0)
            size *= 2**k if v in sp.kleene else max(k, 1)
        total += size
    return total
