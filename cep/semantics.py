"""Match semantics, defined once.  Every evaluator must report exactly the matches defined here.

The definitions follow OpenCEP (the public Python engine of the JQPG/MCEP authors) where it defines
the same thing, so that match counts can be compared with it.  Let ``P`` be a pattern, ``P_1..P_k``
the simple patterns of its DNF (:func:`cep.dnf.to_dnf`) and ``s = e_0, e_1, ...`` the stream
(timestamps non-decreasing, ``e_i.pos = i``).

Binding.  A *binding* of a simple pattern maps each positive variable to one event of its type and
each Kleene variable ``KL(T v){lo,hi}`` to a tuple of events of type T in stream order whose size lies
in ``[lo, hi]`` (``hi`` unbounded by default).  One event never fills two variables of the same match
(nor two places of one Kleene tuple).  Negated variables are not bound.

Window.  Let ``key(e)`` be ``e.ts`` for a time window ``WITHIN W <unit>`` and ``e.pos`` for a count
window ``WITHIN N events``.  A set of events *fits the window* iff ``max key - min key <= L`` with
``L = W`` (time; inclusive: an event exactly W after the first one still fits) or ``L = N - 1``
(count: all events lie among N consecutive stream events).

Order.  ``u < v`` in the clause's precedence relation (from SEQ) requires every event of ``u`` to
precede every event of ``v`` in time: ``ts(x) <= ts(y)`` under the default ``seq_order``
*nondecreasing* (equal timestamps count in either order, as in OpenCEP), ``ts(x) < ts(y)`` under
``seq_order strict`` (the JQPG Section 4 reduction ``e1.ts < e2.ts``).  Consecutive elements of one
Kleene tuple obey the same relation.  AND imposes no order.

Conditions.  Every condition of the clause whose variables are all bound must hold.  A condition
that mentions a Kleene variable must hold for every element of its tuple (for every combination of
elements when it mentions several Kleene variables).

Negation.  A negated variable ``n`` (type T) *kills* a binding when some stream event ``x`` of type T
that is not in the binding satisfies
  (a) order: ``ts(u) <= ts(x)`` for every event of every positive ``u`` preceding ``n`` and
      ``ts(x) <= ts(v)`` for every event of every positive ``v`` following ``n`` (ties count; ``<`` under
      ``seq_order strict``);
  (b) every condition mentioning ``n`` (with ``n`` bound to ``x``);
  (c) window: ``x`` together with the events of ``D(n)`` fits the window, where ``D(n)`` is
      :meth:`SimplePattern.negation_dependencies`: the two neighbours' events and the condition
      variables for a NOT between positive events (for time windows this holds whenever (a) does),
      the whole binding for a leading NOT ("looks back to the window start"), a trailing NOT
      ("holds the match until the window after its first event has passed"), or a NOT under AND.
A binding is a *match* iff it fits the window, respects the order and the conditions, satisfies the
selection strategy's filter below, and no negated variable kills it.

Release.  A match is reported (released) at a stream index ``r`` with a phase:
  * without negation: ``r`` = the largest position in the match, phase 1 (when its last event arrives);
  * with negation: at the arrival of the first event that can no longer kill it, before that event
    is processed (phase 0): the first ``i`` with ``ts_i > max ts(match)`` (a violating event may share
    the last timestamp), and, if some negated variable has no positive successor, also past the
    window: the first ``i`` with ``ts_i > min ts + W`` (time) or ``i = min pos + N`` (count);
    ``r = len(s)`` (the end of the stream) if no such event exists.
The *canonical order* of matches sorts by ``(r, phase, sorted positions of all events, clause index,
positions by variable)``.

Selection strategies (JQPG Section 5.2).
  * skip-till-any-match (default): every match, in every combination.
  * skip-till-next-match: each event appears in at most one reported match ("enforced by consuming
    events already assigned to a match").  Go through the skip-till-any matches of all clauses in
    canonical order and accept a match iff none of its events belongs to an already accepted match.
    Negated events are never consumed.
  * strict-contiguity: the events of a match (Kleene elements included) occupy consecutive stream
    positions.
  * partition-contiguity BY a: all events of a match share the value of attribute ``a`` and occupy
    consecutive positions in the substream of events with that value.
The result for ``P`` is the union over its clauses (no duplicates: clauses bind different variables).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Iterable, Sequence

from cep.dnf import SimplePattern
from cep.events import Event
from cep.pattern import SeqOrder, Strategy, WindowKind

Binding = dict  # variable -> Event (positive) or tuple[Event, ...] (Kleene)


def before(ts_a: float, ts_b: float, seq_order: SeqOrder) -> bool:
    """The SEQ order relation between two timestamps."""
    return ts_a < ts_b if seq_order is SeqOrder.STRICT else ts_a <= ts_b


def window_key(e: Event, kind: WindowKind) -> float:
    return e.ts if kind is WindowKind.TIME else e.pos


def fits_window(events: Iterable[Event], sp: SimplePattern) -> bool:
    kind = sp.window.kind
    keys = [window_key(e, kind) for e in events]
    return not keys or max(keys) - min(keys) <= sp.window.span_limit


def events_of(binding: Binding, var: str) -> tuple[Event, ...]:
    x = binding[var]
    return x if isinstance(x, tuple) else (x,)


def all_events(binding: Binding) -> list[Event]:
    out: list[Event] = []
    for x in binding.values():
        out.extend(x if isinstance(x, tuple) else (x,))
    return out


def _conditions_hold(conds, binding: Binding) -> bool:
    for c in conds:
        vs = sorted(c.variables)
        for combo in itertools.product(*(events_of(binding, v) for v in vs)):
            if not c.evaluate(dict(zip(vs, combo))):
                return False
    return True


def partition_positions(stream: Sequence[Event], attribute: str) -> list[int]:
    """For each stream position, the event's position within its partition (by ``attribute``)."""
    counters: dict = {}
    out = []
    for e in stream:
        k = e.attrs.get(attribute)
        out.append(counters.get(k, 0))
        counters[k] = out[-1] + 1
    return out


def strategy_filter_ok(sp: SimplePattern, binding: Binding, part_pos: Sequence[int] | None = None) -> bool:
    """The contiguity filters of strict and partition contiguity (true for the other strategies)."""
    if sp.strategy is Strategy.STRICT:
        ps = sorted(e.pos for e in all_events(binding))
        return all(b == a + 1 for a, b in zip(ps, ps[1:]))
    if sp.strategy is Strategy.PARTITION:
        evs = all_events(binding)
        attr = sp.partition_attribute
        if len({e.attrs.get(attr) for e in evs}) != 1:
            return False
        assert part_pos is not None, "partition contiguity needs partition_positions(stream, attribute)"
        ps = sorted(part_pos[e.pos] for e in evs)
        return all(b == a + 1 for a, b in zip(ps, ps[1:]))
    return True


def positive_binding_ok(sp: SimplePattern, binding: Binding, part_pos: Sequence[int] | None = None) -> bool:
    """Everything a match must satisfy except negation: types, sizes, distinctness, window, order,
    conditions, strategy filter."""
    evs = all_events(binding)
    if len({e.pos for e in evs}) != len(evs):
        return False
    for name in sp.positive:
        v = sp.var[name]
        es = events_of(binding, name)
        if any(e.type != v.type for e in es):
            return False
        if name in sp.kleene:
            if not (v.min_size <= len(es) and (v.max_size is None or len(es) <= v.max_size)):
                return False
            if any(b.pos <= a.pos or not before(a.ts, b.ts, sp.seq_order) for a, b in zip(es, es[1:])):
                return False
    if not fits_window(evs, sp):
        return False
    for u, v in sp.positive_precedence:
        if not before(max(e.ts for e in events_of(binding, u)), min(e.ts for e in events_of(binding, v)), sp.seq_order):
            return False
    if not _conditions_hold(sp.positive_conditions, binding):
        return False
    return strategy_filter_ok(sp, binding, part_pos)


def negation_kills(sp: SimplePattern, binding: Binding, neg: str, x: Event) -> bool:
    """Whether event ``x`` (of the negated variable's type) kills ``binding`` through ``neg``."""
    if x.type != sp.type_of(neg):
        return False
    if any(x.pos == e.pos for e in all_events(binding)):
        return False
    pos = set(sp.positive)
    for u in sp.preds[neg] & pos:
        if not all(before(e.ts, x.ts, sp.seq_order) for e in events_of(binding, u)):
            return False
    for v in sp.succs[neg] & pos:
        if not all(before(x.ts, e.ts, sp.seq_order) for e in events_of(binding, v)):
            return False
    full = dict(binding)
    full[neg] = x
    if not _conditions_hold(sp.negation_conditions(neg), full):
        return False
    deps = [e for d in sp.negation_dependencies(neg) for e in events_of(binding, d)]
    return fits_window(deps + [x], sp)


def release_point(sp: SimplePattern, binding: Binding, stream: Sequence[Event]) -> tuple[int, int]:
    """``(r, phase)``: where a match is reported (see the module docstring, "Release")."""
    evs = all_events(binding)
    if not sp.negated:
        return max(e.pos for e in evs), 1
    n = len(stream)
    max_ts = max(e.ts for e in evs)
    r = max(e.pos for e in evs) + 1
    while r < n and stream[r].ts <= max_ts:
        r += 1
    if sp.unbounded_negations:
        if sp.window.kind is WindowKind.TIME:
            horizon = min(e.ts for e in evs) + sp.window.size
            while r < n and stream[r].ts <= horizon:
                r += 1
        else:
            r = max(r, min(e.pos for e in evs) + int(sp.window.size))
    return min(r, n), 0


@dataclass(frozen=True, order=True)
class CanonicalKey:
    release: int
    phase: int
    positions: tuple[int, ...]
    clause: int
    by_variable: tuple


def canonical_key(sp: SimplePattern, binding: Binding, stream: Sequence[Event]) -> CanonicalKey:
    r, phase = release_point(sp, binding, stream)
    return CanonicalKey(
        r,
        phase,
        tuple(sorted(e.pos for e in all_events(binding))),
        sp.index,
        tuple(tuple(e.pos for e in events_of(binding, v)) for v in sp.positive),
    )


def select_next_match(keyed: Iterable[tuple[CanonicalKey, object, Iterable[int]]]) -> list:
    """Skip-till-next-match selection: ``keyed`` holds ``(key, match, positions)``; returns the
    accepted matches in canonical order (each event in at most one accepted match)."""
    consumed: set[int] = set()
    out = []
    for _, match, positions in sorted(keyed, key=lambda t: t[0]):
        ps = list(positions)
        if consumed.isdisjoint(ps):
            consumed.update(ps)
            out.append(match)
    return out
