"""Multi-pattern workloads (MCEP Section 6.1 and Appendix D) and the adaptive stream transformer
(Section 6.2.3).

"Each pattern was a sequence or a conjunction [...] the number of predicates roughly equal to half
the number of events [...] about 20% of the patterns contained a negated event or an event under
Kleene closure" (6.1).  The parameters (Appendix D): the number of patterns, their average size, the
time window (or a count window), the *multi-pattern graph density* -- "the average relative number
of neighbors of a given pattern in a MPG" -- and the *normalized arrival rate difference*.

Readings chosen here (each a parameter of :class:`WorkloadSpec`):

* sharing: ``F = round(1 / density)`` *fragments* are drawn first -- two or three events of distinct
  types with the predicates among them; every pattern embeds one fragment (chosen uniformly), its
  events keeping their relative order inside a SEQ at positions drawn at random, so two patterns
  with the same fragment share it (at different positions) and a pattern has about ``n / F - 1``
  neighbours: a relative number of about ``density``.  ``density = 0`` means no fragments.  The
  density reached is measured on the MPG (:func:`measured_density`) and reported;
* the normalized arrival rate difference ``d`` in ``(0, 1]``: the type pool is sorted by rate, and a
  pattern draws its other types from a window of ``max(size, d * K)`` consecutive types of the ``K``
  (small ``d``: types of similar rates, little to gain by reordering; ``d = 1``: any types);
* sizes: uniform in ``[avg - 1, avg + 1]`` (at least 2); ``max(1, size // 2)`` predicates
  ``x.attr < y.attr`` or ``>`` over distinct pairs, the fragment's among them;
* NOT or KL: with probability ``special`` (0.2) one non-fragment event is negated (in a SEQ, strictly
  inside) or put under KL (bounded by ``kleene_max``); predicates relate positive events only.

Each pattern draws from its own seed of ``(seed, index)`` after the fragments, so workloads of
different sizes with one seed share their first patterns.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from algorithms.multi.mpg import MultiPatternGraph
from cep.conditions import Attr, BinOp, Comparison, Const
from cep.columnar import EventColumns
from cep.errors import ConfigError
from cep.global_plans import workload_clauses
from cep.pattern import EventRef, Kleene, Not, Op, Operator, Pattern, Window
from experiments.data.statistics import StreamColumns
from experiments.workloads.jqpg import _offset_for


@dataclass(frozen=True)
class WorkloadSpec:
    n_patterns: int = 20
    avg_size: float = 5.0
    window: Window = Window.seconds(60.0)
    structure: str = "mixed"  # "seq", "conj" or "mixed" (half each)
    density: float = 0.3
    rate_diff: float = 1.0
    special: float = 0.2
    kleene_max: int | None = 3
    attribute: str = "diff"
    seed: int = 0

    def __post_init__(self) -> None:
        if self.n_patterns < 1:
            raise ConfigError(f"a workload needs at least one pattern, got {self.n_patterns}")
        if not self.avg_size >= 2:
            raise ConfigError(f"average pattern size must be >= 2, got {self.avg_size}")
        if not 0 <= self.density <= 1:
            raise ConfigError(f"MPG density must lie in [0, 1], got {self.density}")
        if not 0 < self.rate_diff <= 1:
            raise ConfigError(f"normalized arrival rate difference must lie in (0, 1], got {self.rate_diff}")
        if self.structure not in ("seq", "conj", "mixed"):
            raise ConfigError(f"structure must be seq, conj or mixed, got {self.structure!r}")


def _rng(seed: int, *parts) -> random.Random:
    return random.Random(int.from_bytes(hashlib.sha256(repr((seed, *parts)).encode()).digest()[:8], "little"))


def make_workload(spec: WorkloadSpec, types_by_rate: Sequence[str]) -> list[Pattern]:
    """The workload of ``spec`` over a pool of types sorted by arrival rate (slowest first)."""
    pool = list(types_by_rate)
    k = len(pool)
    max_size = int(round(spec.avg_size)) + 1
    if k < max_size + 1:
        raise ConfigError(f"a workload of average size {spec.avg_size} needs at least {max_size + 1} event types; the pool has {k}")
    frng = _rng(spec.seed, "fragments")
    n_frag = 0 if spec.density <= 0 else max(1, round(1 / spec.density))
    fragments = []
    for f in range(n_frag):
        size = frng.choice((2, 2, 3))
        ftypes = frng.sample(pool, size)
        preds = []
        if frng.random() < 0.7:
            a, b = frng.sample(range(size), 2)
            preds.append((min(a, b), max(a, b), frng.choice("<>")))
        fragments.append((ftypes, preds))
    out = []
    for i in range(spec.n_patterns):
        rng = _rng(spec.seed, "pattern", i)
        lo = max(2, int(round(spec.avg_size)) - 1)
        size = rng.randint(lo, int(round(spec.avg_size)) + 1)
        op = {"seq": Op.SEQ, "conj": Op.AND}.get(spec.structure) or (Op.SEQ if rng.random() < 0.5 else Op.AND)
        frag = rng.choice(fragments) if fragments else ([], [])
        ftypes, fpreds = frag
        ftypes = ftypes[:size]  # a fragment longer than the pattern: its first events
        fpreds = [(a, b, o) for a, b, o in fpreds if b < len(ftypes)]
        width = max(size + len(ftypes), int(round(spec.rate_diff * k)))
        start = rng.randint(0, k - min(width, k))
        band = [t for t in pool[start:start + width] if t not in ftypes]
        others = rng.sample(band, size - len(ftypes))
        # positions of the fragment's events, in order
        fpos = sorted(rng.sample(range(size), len(ftypes)))
        slots: list = [None] * size
        for p, t in zip(fpos, ftypes):
            slots[p] = t
        it = iter(others)
        tlist = [t if t is not None else next(it) for t in slots]
        vs = [f"e{j + 1}" for j in range(size)]
        elems: list = [EventRef(t, v) for t, v in zip(tlist, vs)]
        conds = []
        for a, b, o in fpreds:
            if a >= len(ftypes) or b >= len(ftypes):
                continue  # a predicate on a fragment event cut off above (ftypes[:size]); it crashed before
            conds.append(Comparison(o, Attr(vs[fpos[a]], spec.attribute), Attr(vs[fpos[b]], spec.attribute)))
        free = [j for j in range(size) if j not in fpos]
        positive = set(range(size))
        if free and rng.random() < spec.special:
            inner = [j for j in free if 0 < j < size - 1] if op is Op.SEQ else free
            if rng.random() < 0.5 and inner and size >= 3:
                j = rng.choice(inner)
                elems[j] = Not(elems[j])
                positive.discard(j)
            else:
                j = rng.choice(free)
                elems[j] = Kleene(elems[j], 1, spec.kleene_max)
        pairs = [(a, b) for a in sorted(positive) for b in sorted(positive) if a < b]
        taken = {(x, y) for x in fpos for y in fpos if x < y}  # the fragment keeps exactly its own predicates
        want = max(1, size // 2)
        rng.shuffle(pairs)
        for a, b in pairs:
            if len(conds) >= want:
                break
            if (a, b) in taken:
                continue
            conds.append(Comparison(rng.choice("<>"), Attr(vs[a], spec.attribute), Attr(vs[b], spec.attribute)))
            taken.add((a, b))
        out.append(Pattern(Operator(op, tuple(elems)), tuple(conds), spec.window, name=f"W{i + 1}"))
    return out


def measured_density(patterns: Sequence[Pattern], *, min_size: int = 2) -> float:
    """The MPG density reached: the mean over patterns of (neighbours / (n - 1))."""
    n = len(patterns)
    if n < 2:
        return 0.0
    g = MultiPatternGraph(workload_clauses(patterns), min_size=min_size)
    nb = {i: set() for i in range(n)}
    for a, b in g.edges:
        if a[0] != b[0]:
            nb[a[0]].add(b[0])
            nb[b[0]].add(a[0])
    return sum(len(v) for v in nb.values()) / (n * (n - 1))


def reshuffle_types(stream: EventColumns, every: int, count: int, types: Sequence[str], *, seed: int = 0) -> EventColumns:
    """The adaptive stream transformer of MCEP 6.2.3: every ``every`` events, the types of ``count``
    randomly chosen types of ``types`` are permuted among themselves (cumulatively), so the arrival
    rates the plan was made for drift.  The events keep their timestamps and values; only their type
    codes change, block by block."""
    if every < 1 or count < 2:
        raise ConfigError(f"reshuffling needs every >= 1 and at least two types, got every={every}, count={count}")
    rng = _rng(seed, "reshuffle")
    names = list(stream.type_names) + [t for t in types if t not in stream.type_names]
    code = {t: i for i, t in enumerate(names)}
    mapping = {t: t for t in types}
    lut = np.arange(len(names), dtype=np.int64)  # a block's code -> its events' new code
    codes = np.empty(len(stream), dtype=np.int64)
    for a in range(0, len(stream), every):
        if a:
            chosen = rng.sample(list(types), min(count, len(types)))
            perm = chosen[:]
            rng.shuffle(perm)
            step = dict(zip(chosen, perm))
            mapping = {t: step.get(m, m) for t, m in mapping.items()}
            lut[[code[t] for t in mapping]] = [code[m] for m in mapping.values()]
        codes[a:a + every] = lut[stream.codes[a:a + every]]
    return stream.recoded(codes, names)


def calibrate_workload(patterns: Sequence[Pattern], values, selectivity_range=(0.002, 0.88), *, seed: int = 0,
                       pairs: int = 20_000) -> list[Pattern]:
    """Each ``x.a < y.a`` / ``>`` predicate gets an offset so that its selectivity is a log-uniform draw
    from ``selectivity_range`` (as :func:`experiments.workloads.jqpg.calibrate_selectivities`), drawn per
    (types, attribute, operator) rather than per pattern, so that a predicate two patterns share stays
    one predicate (and their common subpattern stays common)."""
    lo, hi = selectivity_range
    cache: dict = {}
    out = []
    for p in patterns:
        types = p.var_types()
        conds = []
        for c in p.conditions:
            if not (c.op in ("<", ">") and isinstance(c.left, Attr) and isinstance(c.right, Attr)):
                conds.append(c)
                continue
            key = (types[c.left.var], c.left.name, types[c.right.var], c.right.name, c.op)
            if key not in cache:
                h = int.from_bytes(hashlib.sha256(repr((seed, "sel", key)).encode()).digest()[:8], "little")
                rng = np.random.default_rng(h)
                target = float(np.exp(rng.uniform(np.log(lo), np.log(hi))))
                x, y = values(key[0], key[1]), values(key[2], key[3])
                for t, a, v in ((key[0], key[1], x), (key[2], key[3], y)):
                    if len(v) == 0:
                        raise ConfigError(f"cannot calibrate the predicates on {t}.{a}: the stream holds no {t} event "
                                          "(a longer stream or more events per window gives every pool type events)")
                d = np.sort(rng.choice(x, pairs) - rng.choice(y, pairs))
                cache[key] = _offset_for(d, target, c.op)
            conds.append(Comparison(c.op, c.left, BinOp("+", c.right, Const(cache[key]))))
        out.append(Pattern(p.structure, tuple(conds), p.window, p.strategy, p.partition_attribute, p.seq_order, p.name))
    return out


def experiment_workload(params: Mapping, pool: Sequence[str], stream: EventColumns | None, *, seed: int,
                        count_window: bool = False) -> list[Pattern]:
    """The workload of an MCEP experiment cell: :class:`WorkloadSpec` from the cell's ``params`` (a count
    window of ``params["count_window"]`` events with ``count_window``, else a time window of
    ``params["window"]`` seconds), over ``pool`` sorted by the stream's event counts (slowest first), its
    predicates calibrated on the stream when ``params["selectivity_range"]`` is given."""
    window = Window.events(int(params["count_window"])) if count_window else Window.seconds(float(params["window"]))
    ws = WorkloadSpec(n_patterns=int(params["workload_size"]), avg_size=float(params["pattern_size"]), window=window,
                      structure=params.get("structure", "mixed"), density=float(params["density"]),
                      rate_diff=float(params["rate_diff"]), special=float(params.get("special", 0.2)),
                      kleene_max=params.get("kleene_max", 2), seed=seed)
    counts = stream.type_counts() if stream is not None else {}
    patterns = make_workload(ws, sorted(pool, key=lambda t: (counts.get(t, 0.0), t)))
    if stream is not None and params.get("selectivity_range"):
        patterns = calibrate_workload(patterns, StreamColumns(stream).attr, tuple(params["selectivity_range"]), seed=seed)
    return patterns
