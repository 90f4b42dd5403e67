"""Test helpers for MOTTO: a literal executor of compositions and filters over composite events,
the brute-force results of a query, and hypothesis strategies for queries and streams.

The executor is the reference for "q_i computed from q_x plus a composition and filters": it
joins the source's composite events (given, e.g. from the brute-force matcher) with primitive
events, as the composition's operators say (SEQ: every event of an operand precedes every event of
the next; CONJ: no order; DISJ: every non-empty subset of the operands), keeps the composites that
fit the composition's window, then applies the filters in order.
"""

from __future__ import annotations

import itertools
from typing import Mapping, Sequence

from hypothesis import strategies as st

from algorithms.motto.query import MOp, Query, Ref, composite_of_match
from algorithms.motto.rewrites import Derivation
from cep.conditions import Attr, Comparison, Const
from cep.events import Event, EventStream
from cep.pattern import SeqOrder, Window, WindowKind
from cep.semantics import before
from evaluators.brute_force import brute_force_matches

Composite = frozenset  # of (type, position)


def brute_composites(q: Query, stream: Sequence[Event]) -> set[Composite]:
    """The composite events of ``q`` by the brute-force matcher on its pattern."""
    pattern, var_type = q.to_pattern()
    return {composite_of_match(m, var_type) for m in brute_force_matches(pattern, stream)}


def _fits(events, window: Window) -> bool:
    keys = [e.ts if window.kind is WindowKind.TIME else e.pos for e in events]
    return not keys or max(keys) - min(keys) <= window.span_limit


def evaluate(q: Query, stream: Sequence[Event], refs: Mapping[str, set[Composite]]) -> list[dict[str, Event]]:
    """Composite events (``type -> event``) of ``q`` whose referenced operands take their
    composites from ``refs`` (keyed by the referenced query's key)."""
    by_type: dict[str, list[Event]] = {}
    for e in stream:
        by_type.setdefault(e.type, []).append(e)

    def cands(o) -> list[dict[str, Event]]:
        if isinstance(o, str):
            return [{o: e} for e in by_type.get(o, [])]
        if isinstance(o, Ref):
            return [{t: stream[p] for t, p in c} for c in refs[o.query.key]]
        return run(o)

    def run(x: Query) -> list[dict[str, Event]]:
        per = [cands(o) for o in x.operands]
        subsets = (
            [tuple(range(len(per)))]
            if x.op is not MOp.DISJ
            else [s for k in range(1, len(per) + 1) for s in itertools.combinations(range(len(per)), k)]
        )
        out = []
        for sub in subsets:
            for combo in itertools.product(*(per[i] for i in sub)):
                merged: dict[str, Event] = {}
                for c in combo:
                    merged.update(c)
                if not _fits(merged.values(), x.window):
                    continue
                if not all(c.evaluate(merged) for c in x.conditions if c.variables <= merged.keys()):
                    continue
                if x.op is MOp.SEQ and not all(
                    before(max(e.ts for e in combo[i].values()), min(e.ts for e in combo[j].values()), x.seq_order)
                    for i in range(len(combo))
                    for j in range(i + 1, len(combo))
                ):
                    continue
                out.append(merged)
        return out

    return run(q)


def as_set(comps) -> set[Composite]:
    return {frozenset((t, e.pos) for t, e in c.items()) for c in comps}


def apply_derivation(d: Derivation, stream: Sequence[Event], source_results: set[Composite]) -> set[Composite]:
    """The target's composites computed from the source's through ``d`` (composition, filters)."""
    assert d.source is not None
    if d.composition is None:
        comps = [{t: stream[p] for t, p in c} for c in source_results]
    else:
        comps = evaluate(d.composition, stream, {d.source.key: source_results})
    for f in d.filters:
        comps = [c for c in comps if f.holds(c)]
    return as_set(comps)


# ---- strategies ------------------------------------------------------------------------------
TYPES = ("A", "B", "C", "D", "E")


@st.composite
def streams(draw, types=TYPES, max_len: int = 9, max_ts: int = 8) -> EventStream:
    n = draw(st.integers(0, max_len))
    ts = sorted(draw(st.lists(st.integers(0, max_ts), min_size=n, max_size=n)))
    return EventStream([Event(draw(st.sampled_from(types)), float(t), {"x": draw(st.integers(0, 3))}) for t in ts])


@st.composite
def queries(draw, types=TYPES, max_depth: int = 2, window: Window | None = None, conditions: bool = True) -> Query:
    """A random query over distinct types (a subset of ``types``), nested up to ``max_depth``,
    within a time window (or, one time in four, a count window), SEQ's order non-decreasing (or,
    one time in four, strict), with up to two conditions on the events' attribute ``x`` (a
    comparison of two types, or a filter)."""
    pool = list(draw(st.permutations(types)))
    n = draw(st.integers(2, min(4, len(pool))))
    if window is None:
        size = draw(st.integers(1, 6))
        window = Window.events(size + 1) if draw(st.integers(0, 3)) == 0 else Window.seconds(size)
    w = window
    so = SeqOrder.STRICT if draw(st.integers(0, 3)) == 0 else SeqOrder.NONDECREASING

    def build(avail: list[str], depth: int) -> Query:
        k = len(avail)
        ops: list = []
        i = 0
        while i < k:
            if depth < max_depth and k - i >= 2 and draw(st.integers(0, 3)) == 0 and not (i == 0 and k - i == 2):
                m = draw(st.integers(2, min(3, k - i)))
                ops.append(build(avail[i:i + m], depth + 1))
                i += m
            else:
                ops.append(avail[i])
                i += 1
        op = draw(st.sampled_from(list(MOp)))
        return Query(op, tuple(ops), w, so)

    q = build(pool[:n], 1)
    if conditions:
        conds = []
        for _ in range(draw(st.integers(0, 2))):
            if draw(st.booleans()):
                a, b = draw(st.permutations(q.types))[:2]
                conds.append(Comparison(draw(st.sampled_from(["<", "<=", "!="])), Attr(a, "x"), Attr(b, "x")))
            else:
                conds.append(Comparison(">", Attr(draw(st.sampled_from(q.types)), "x"), Const(0.0)))
        q = Query(q.op, q.operands, q.window, q.seq_order, None, tuple(conds))
    return q
