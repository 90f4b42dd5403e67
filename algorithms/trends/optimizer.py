"""Sharing decisions per burst: split, merge and the choice of the query set (HAMLET Sections 4.2-4.3).

**Plans** (Figure 7).  For a burst of a Kleene type shareable by ``k`` queries, a sharing plan names
the queries that share one graphlet; the others get one graphlet each.  With ``k = 4`` there are 12
plans: the 11 groups of two or more queries, and the non-shared plan (:func:`sharing_plans`).  The
cost of a plan is ``Shared(group) + NonShared(rest)`` (Equation 7, :mod:`algorithms.trends.benefit`;
under the ``tuple-width`` benefit model with the tuple widths of aggregates other than COUNT(*) charged).

**Snapshots.**  A query *introduces no new snapshots* for a burst when it matches every event of the
burst that any candidate matches: sharing it never needs an event-level snapshot (Definition 3.11).
For a group, ``s_c`` counts the graphlet-level snapshot plus one snapshot per event matched by some but
not all of the group; ``s_p = s_c`` (every snapshot created in the burst is propagated through it).

**Pruning.**  Snapshot-driven (Theorem 4.3): a query that introduces no new snapshots is always shared,
so plans that leave one out are pruned.  Benefit-driven (Theorem 4.5): each of the ``m`` other queries
is shared iff ``Shared(Q) <= Shared(Q \\ {q}) + NonShared(q)`` -- plans at level 2 decide it, plans
that contradict it are pruned.  So the optimizer evaluates ``m + 1`` plans, not ``2^k``
(:func:`choose_sharing`).  If the chosen group has fewer than two queries or costs more than not
sharing at all, the burst is not shared.

**Split and merge** (Section 4.2).  The decision is made per burst; the executor turns a shared ->
non-shared change into a split (the snapshot replaced by its per-query values) and a non-shared ->
shared change into a merge (a new snapshot consolidating the per-query sums).
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Iterable, Mapping, Sequence

from algorithms.trends.benefit import BENEFIT_MODELS, DEFAULT_BENEFIT_MODEL, TUPLE_WIDTH, nonshared_cost, shared_cost
from cep.errors import ConfigError


def sharing_plans(queries: Sequence) -> list[frozenset]:
    """Figure 7's search space: every shared group of two or more queries, then the non-shared plan."""
    qs = list(queries)
    plans = [frozenset(c) for r in range(len(qs), 1, -1) for c in itertools.combinations(qs, r)]
    return plans + [frozenset()]


def format_plan(plan: frozenset, queries: Sequence) -> str:
    """``(134)(2)``: the shared group in one pair of parentheses, every other query alone."""
    rest = [q for q in queries if q not in plan]
    parts = (["(" + "".join(str(q) for q in sorted(plan)) + ")"] if plan else []) + [f"({q})" for q in rest]
    return "".join(parts)


def prune_plans(plans: Iterable[frozenset], *, snapshot_free: Iterable = (), beneficial: Iterable = (),
                not_beneficial: Iterable = ()) -> list[frozenset]:
    """Plans kept by the snapshot-driven (Theorem 4.3) and benefit-driven (Theorem 4.5) principles:
    a kept plan shares every snapshot-free and every beneficial query and no non-beneficial one."""
    must = set(snapshot_free) | set(beneficial)
    never = set(not_beneficial)
    return [p for p in plans if p and must <= p and not (never & p)]


def _snapshots(masks: Mapping[int, int], group_bits: int) -> int:
    """s_c of sharing a burst by a group: the graphlet snapshot plus one per event that only part of
    the group matches (``masks``: each distinct mask of the burst's events and how many have it)."""
    s = 1
    for m, c in masks.items():
        r = m & group_bits
        if r and r != group_bits:
            s += c
    return s


def plan_cost(bits: int, k: int, masks: Sequence[int], *, b: int, n: int, g: int, t: int,
              keys: Sequence[frozenset] | None = None) -> int:
    """Shared(group) + NonShared(the other candidates) for the group given as a bit set.  ``keys``:
    per candidate, the aggregates it keeps beside its count, those of the shared type marked
    ``(True, ...)``; given, they fix the tuple widths of the ``tuple-width`` model of :mod:`algorithms.
    trends.benefit` (None: Equation 7)."""
    return _plan_cost(bits, k, Counter(masks), b=b, n=n, g=g, t=t, keys=keys)


def _plan_cost(bits: int, k: int, masks: Mapping[int, int], *, b: int, n: int, g: int, t: int,
               keys: Sequence[frozenset] | None) -> int:
    ks = bin(bits).count("1")
    if keys is None:
        w, kw_in, kw_out = 1, None, None
    else:
        group = [j for j in range(k) if bits >> j & 1]
        w = 1 + len({x for j in group for x in keys[j] if x[0]})
        kw_in = sum(1 + len(keys[j]) for j in group)
        kw_out = sum(1 + len(keys[j]) for j in range(k) if not bits >> j & 1)
    if ks < 2:
        return nonshared_cost(k=k, b=b, n=n, kw=None if keys is None else kw_in + kw_out)
    sc = _snapshots(masks, bits)
    return (shared_cost(b=b, n=n, s_p=sc, s_c=sc, k=ks, g=g, t=t, w=w, kw=kw_in)
            + nonshared_cost(k=k - ks, b=b, n=n, kw=kw_out))


def choose_sharing(k: int, masks: Sequence[int], *, b: int, n: int, g: int, t: int,
                   keys: Sequence[frozenset] | None = None) -> tuple[frozenset, int]:
    """The sharing group (candidate indices) for one burst and the number of plans evaluated
    (``keys``: :func:`plan_cost`).

    Level 1 is the maximal plan; level 2 drops one snapshot-introducing query at a time."""
    full = (1 << k) - 1
    counted = Counter(masks)
    inter = full
    for m in counted:
        if m:
            inter &= m
    free = [j for j in range(k) if inter >> j & 1]  # matched by every event any candidate matches
    others = [j for j in range(k) if not inter >> j & 1] if inter != full else []
    top = _plan_cost(full, k, counted, b=b, n=n, g=g, t=t, keys=keys)
    evaluated = 1
    chosen = set(free)
    for j in others:  # Theorem 4.5: share q iff Shared(Q) <= Shared(Q \ {q}) + NonShared(q)
        without = _plan_cost(full & ~(1 << j), k, counted, b=b, n=n, g=g, t=t, keys=keys)
        evaluated += 1
        if top <= without:
            chosen.add(j)
    bits = 0
    for j in chosen:
        bits |= 1 << j
    if len(chosen) < 2:
        return frozenset(), evaluated
    cost = top if bits == full else _plan_cost(bits, k, counted, b=b, n=n, g=g, t=t, keys=keys)
    if cost >= _plan_cost(0, k, counted, b=b, n=n, g=g, t=t, keys=keys):
        return frozenset(), evaluated
    return frozenset(chosen), evaluated


class DynamicSharing:
    """HAMLET's dynamic optimizer as a sharing policy of the executor: per burst, Equation 7 with the
    burst's statistics and the pruned choice of the query set (Sections 4.1-4.3).  ``benefit_model``:
    ``equation7`` (the default, as published) or ``tuple-width`` (:mod:`algorithms.trends.benefit`)."""

    name = "hamlet"

    def __init__(self, *, benefit_model: str = DEFAULT_BENEFIT_MODEL) -> None:
        if benefit_model not in BENEFIT_MODELS:
            raise ConfigError(f"HAMLET benefit model must be one of {', '.join(BENEFIT_MODELS)}, got {benefit_model!r}")
        self.benefit_model = benefit_model

    def decide(self, burst) -> frozenset:
        keys = burst.keys if self.benefit_model == TUPLE_WIDTH else None
        chosen, _ = choose_sharing(len(burst.candidates), burst.masks, b=burst.b, n=burst.n,
                                   g=max(burst.g, 1), t=burst.t, keys=keys)
        return chosen
