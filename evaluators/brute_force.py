"""The brute-force reference matcher: the semantics of :mod:`cep.semantics`, applied literally.

For each DNF clause it enumerates every binding of the positive variables to events of their types
(every subset, in stream order, for a Kleene variable), keeps the bindings that
:func:`cep.semantics.positive_binding_ok` accepts and that no negated variable kills, orders them
canonically and, under skip-till-next-match, selects with :func:`cep.semantics.select_next_match`.
The only shortcut is that enumeration stops extending a partial binding whose events already do
not fit the window (a superset of such a set never fits).  Slow and obviously correct: tests use it
as the oracle for every evaluator.
"""

from __future__ import annotations

import bisect
import itertools
from typing import Sequence

from cep.dnf import SimplePattern, to_dnf
from cep.events import Event
from cep.matches import Match
from cep.pattern import Pattern, Strategy
from cep.semantics import (
    canonical_key,
    negation_kills,
    partition_positions,
    positive_binding_ok,
    select_next_match,
    window_key,
)


def brute_force_matches(pattern: Pattern | Sequence[SimplePattern], stream: Sequence[Event]) -> list[Match]:
    """Every match of ``pattern`` on ``stream``, in canonical order (see :mod:`cep.semantics`)."""
    clauses = to_dnf(pattern) if isinstance(pattern, Pattern) else list(pattern)
    keyed = []
    for sp in clauses:
        for binding in _clause_matches(sp, stream):
            m = Match.from_binding(binding)
            keyed.append((canonical_key(sp, binding, stream), m, m.positions))
    if clauses and clauses[0].strategy is Strategy.NEXT:
        return select_next_match(keyed)
    keyed.sort(key=lambda t: t[0])
    return [m for _, m, _ in keyed]


def _clause_matches(sp: SimplePattern, stream: Sequence[Event]):
    by_type: dict[str, list[Event]] = {}
    for e in stream:
        by_type.setdefault(e.type, []).append(e)
    kind = sp.window.kind
    limit = sp.window.span_limit
    keys = {t: [window_key(e, kind) for e in evs] for t, evs in by_type.items()}
    part_pos = partition_positions(stream, sp.partition_attribute) if sp.strategy is Strategy.PARTITION else None
    order = list(sp.positive)

    def candidates(var: str, lo: float, hi: float) -> list[Event]:
        t = sp.type_of(var)
        evs, ks = by_type.get(t, []), keys.get(t, [])
        return evs[bisect.bisect_left(ks, lo) : bisect.bisect_right(ks, hi)]

    def extend(i: int, binding: dict, kmin: float, kmax: float):
        if i == len(order):
            yield dict(binding)
            return
        var = order[i]
        pool = candidates(var, kmax - limit, kmin + limit)
        if var in sp.kleene:
            v = sp.var[var]
            hi_size = len(pool) if v.max_size is None else min(v.max_size, len(pool))
            for size in range(v.min_size, hi_size + 1):
                for subset in itertools.combinations(pool, size):
                    ks = [window_key(e, kind) for e in subset]
                    lo, hi = min(kmin, *ks), max(kmax, *ks)
                    if hi - lo > limit:
                        continue
                    binding[var] = subset
                    yield from extend(i + 1, binding, lo, hi)
                    del binding[var]
        else:
            for e in pool:
                k = window_key(e, kind)
                lo, hi = min(kmin, k), max(kmax, k)
                if hi - lo > limit:
                    continue
                binding[var] = e
                yield from extend(i + 1, binding, lo, hi)
                del binding[var]

    inf = float("inf")
    negs = [(n, by_type.get(sp.type_of(n), [])) for n in sp.negated]
    for binding in extend(0, {}, inf, -inf):
        if not positive_binding_ok(sp, binding, part_pos):
            continue
        if any(negation_kills(sp, binding, n, x) for n, pool in negs for x in pool):
            continue
        yield binding
