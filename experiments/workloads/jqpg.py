"""Pattern workloads of the JQPG experiments (JQPG Section 6.2).

"The majority of the experiments were performed separately on 5 sets of patterns: (1) pure
sequences; (2) sequences with a negated event; (3) conjunctions; (4) sequences containing an event
under KL operator; (5) composite patterns, consisting of a disjunction of three sequences.  [...]
sizes ranging from 3 to 7 [...]  Each pattern included a number of predicates, roughly equal to half
the size of a pattern, comparing the difference attributes of two of the involved event types."

Readings chosen here (each a parameter):
* a pattern of size n declares n events with distinct event types drawn uniformly, without
  replacement, from a pool of the dataset's types (``types``);
* ``floor(n / 2)`` predicates (at least one), each ``x.diff < y.diff`` or ``x.diff > y.diff`` (operator
  drawn uniformly) between a distinct pair of the pattern's positive events;
* ``neg``: one of the n events, at a position strictly inside the sequence, is negated; predicates
  relate positive events only;
* ``kleene``: one of the n events (any position) is under KL, with an optional size bound
  ``kleene_max`` (``KL(T v){1,kleene_max}``); its predicates hold per element (cep.semantics);
* ``disj``: OR of three sequences of n events each (types drawn independently for each);
* every pattern gets the same window and the same SEQ order (``seq_order``: ``strict`` is JQPG
  Section 4's reduction ``e_i.ts < e_j.ts``, which the JQPG experiments use).
Each pattern draws from its own child seed of ``(seed, pattern set, size, index)``, so adding a set
or a size leaves the other patterns unchanged.

Selectivities in the papers' range (:func:`calibrate_selectivities`).  JQPG reports selectivities
from 0.002 to 0.88; comparing two types' ``diff`` (the change from the previous record) gives about
0.5 on our data (symmetric changes), where ordering by frequency alone is near-optimal.  Our reading:
each predicate ``x.diff < y.diff`` becomes ``x.diff < y.diff + c``, still a comparison of the two
difference attributes, with the offset ``c`` set from the stream's real values so that the
predicate's selectivity is a target drawn log-uniformly from the paper's range (seeded per
pattern and predicate): ``c`` is the target quantile of ``x.diff - y.diff`` over pairs of the two
types' events.  The statistics job then measures the selectivity actually reached.
"""

from __future__ import annotations

import hashlib
from typing import Callable, Sequence

import numpy as np

from cep.conditions import Attr, BinOp, Comparison, Const
from cep.errors import ConfigError
from cep.pattern import EventRef, Kleene, Not, Op, Operator, Pattern, SeqOrder, Strategy, Window

PATTERN_SETS = ("seq", "neg", "conj", "kleene", "disj")


def _rng(seed: int, *parts) -> np.random.Generator:
    digest = hashlib.sha256(repr((seed, *parts)).encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def _predicates(rng: np.random.Generator, variables: Sequence[str], count: int, attribute: str) -> list[Comparison]:
    pairs = [(a, b) for i, a in enumerate(variables) for b in variables[i + 1 :]]
    picks = rng.choice(len(pairs), size=min(count, len(pairs)), replace=False)
    out = []
    for k in sorted(picks):
        a, b = pairs[k]
        op = "<" if rng.random() < 0.5 else ">"
        out.append(Comparison(op, Attr(a, attribute), Attr(b, attribute)))
    return out


def _draw_types(rng: np.random.Generator, types: Sequence[str], n: int) -> list[str]:
    if n > len(types):
        raise ConfigError(f"a pattern of size {n} needs {n} distinct event types; the pool has {len(types)}")
    return [types[i] for i in rng.choice(len(types), size=n, replace=False)]


def make_pattern(
    pattern_set: str,
    size: int,
    index: int,
    types: Sequence[str],
    window: Window,
    *,
    seed: int = 0,
    attribute: str = "diff",
    kleene_max: int | None = None,
    strategy: Strategy = Strategy.ANY,
    seq_order: SeqOrder = SeqOrder.NONDECREASING,
) -> Pattern:
    """Pattern ``index`` of the given set and size (deterministic in all arguments)."""
    if pattern_set not in PATTERN_SETS:
        raise ConfigError(f"unknown pattern set {pattern_set!r}; known: {', '.join(PATTERN_SETS)}")
    if size < 2 or (pattern_set == "neg" and size < 3):
        raise ConfigError(f"pattern set {pattern_set!r} needs size >= {3 if pattern_set == 'neg' else 2}, got {size}")
    rng = _rng(seed, pattern_set, size, index)
    n_pred = max(1, size // 2)
    name = f"{pattern_set}-{size}-{index}"
    if pattern_set == "disj":
        branches, conds = [], []
        for b, prefix in enumerate("abc"):
            ts = _draw_types(rng, types, size)
            vs = [f"{prefix}{i + 1}" for i in range(size)]
            branches.append(Operator(Op.SEQ, tuple(EventRef(t, v) for t, v in zip(ts, vs))))
            conds += _predicates(rng, vs, n_pred, attribute)
        return Pattern(Operator(Op.OR, tuple(branches)), tuple(conds), window, strategy, seq_order=seq_order, name=name)
    ts = _draw_types(rng, types, size)
    vs = [f"e{i + 1}" for i in range(size)]
    elems: list = [EventRef(t, v) for t, v in zip(ts, vs)]
    positive = list(vs)
    if pattern_set == "neg":
        k = int(rng.integers(1, size - 1))
        elems[k] = Not(elems[k])
        positive.remove(vs[k])
    elif pattern_set == "kleene":
        k = int(rng.integers(0, size))
        elems[k] = Kleene(elems[k], 1, kleene_max)
    op = Op.AND if pattern_set == "conj" else Op.SEQ
    conds = _predicates(rng, positive, n_pred, attribute)
    return Pattern(Operator(op, tuple(elems)), tuple(conds), window, strategy, seq_order=seq_order, name=name)


def make_workload(
    pattern_sets: Sequence[str],
    sizes: Sequence[int],
    per_size: int,
    types: Sequence[str],
    window: Window,
    *,
    seed: int = 0,
    attribute: str = "diff",
    kleene_max: int | None = None,
    seq_order: SeqOrder = SeqOrder.NONDECREASING,
) -> list[Pattern]:
    """``per_size`` patterns of every set and size, in (set, size, index) order."""
    return [
        make_pattern(s, n, i, types, window, seed=seed, attribute=attribute, kleene_max=kleene_max, seq_order=seq_order)
        for s in pattern_sets
        for n in sizes
        for i in range(per_size)
    ]


def _offset_for(d: np.ndarray, target: float, op: str) -> float:
    """The offset ``c`` (rounded to 6 significant digits) whose ``P(d < c)`` (``op`` '<') or
    ``P(d > c)`` (``op`` '>') over the sorted sample ``d`` is closest to ``target``; candidates lie
    midway between consecutive distinct values (ties in real data make exact quantiles unreachable)."""
    u = np.unique(d)
    cand = np.concatenate(([u[0] - 1.0], (u[:-1] + u[1:]) / 2, [u[-1] + 1.0]))
    below = np.searchsorted(d, cand, side="left") / len(d)
    frac = below if op == "<" else 1.0 - np.searchsorted(d, cand, side="right") / len(d)
    best = cand[int(np.argmin(np.abs(frac - target)))]
    return float(f"{best:.6g}")


def calibrate_selectivities(
    patterns: Sequence[Pattern],
    values: "Callable[[str, str], np.ndarray]",
    selectivity_range: tuple[float, float],
    *,
    seed: int = 0,
    pairs: int = 20_000,
) -> list[Pattern]:
    """Each ``x.a < y.a`` / ``x.a > y.a`` predicate of the patterns with an offset ``c`` on its right
    side, set so that its selectivity is a log-uniform draw from ``selectivity_range`` (module
    docstring); ``values(type, attribute)`` gives a type's real values of an attribute."""
    lo, hi = selectivity_range
    if not 0 < lo <= hi <= 1:
        raise ConfigError(f"selectivity_range must satisfy 0 < low <= high <= 1, got {list(selectivity_range)}")
    out = []
    for p in patterns:
        rng = _rng(seed, "selectivity", p.name)
        types = p.var_types()
        conds = []
        for c in p.conditions:
            if not (c.op in ("<", ">") and isinstance(c.left, Attr) and isinstance(c.right, Attr)):
                conds.append(c)
                continue
            target = float(np.exp(rng.uniform(np.log(lo), np.log(hi))))
            x, y = values(types[c.left.var], c.left.name), values(types[c.right.var], c.right.name)
            d = np.sort(rng.choice(x, pairs) - rng.choice(y, pairs))
            offset = _offset_for(d, target, c.op)
            conds.append(Comparison(c.op, c.left, BinOp("+", c.right, Const(offset))))
        out.append(Pattern(p.structure, tuple(conds), p.window, p.strategy, p.partition_attribute, p.seq_order, p.name))
    return out
