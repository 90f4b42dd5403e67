"""Synthetic event streams: per-type Poisson arrivals, attribute distributions, bursts; seeded.

Each event type ``T`` arrives as a Poisson process of rate ``r_T`` events per second, multiplied by
``factor`` inside any :class:`Burst` that names ``T`` (or every type); arrivals in a piecewise-
constant rate are drawn segment by segment (exponential gaps restart at segment borders, which is
exact for a Poisson process).  Attributes are drawn independently per event from
:class:`Distribution` objects; a ``price`` attribute may instead follow a per-type random walk, and
``diff`` is then the step (as the papers augment stock events with the change from the previous
price, JQPG Section 6.2).

Determinism: ``generate_stream(..., seed=s)`` gives identical streams for identical arguments, in any
process; each type draws from its own child of ``numpy.random.SeedSequence(s)`` (spawned in sorted
type order), so adding a type does not change the arrivals of the others.
Timestamps are rounded to ``resolution`` seconds (default 1 ms); events with equal timestamps are
ordered by type name, then by draw order.  The stream is columns (:class:`cep.columnar.EventColumns`);
a type without one of the attributes others carry lacks it (``absent``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from cep.columnar import EventColumns


@dataclass(frozen=True)
class Distribution:
    """``kind`` one of normal(mean, std), uniform(low, high), lognormal(mean, sigma) of the
    underlying normal, poisson(lam), constant(value)."""

    kind: str = "normal"
    a: float = 0.0
    b: float = 1.0

    def draw(self, rng: np.random.Generator, n: int) -> np.ndarray:
        if self.kind == "normal":
            return rng.normal(self.a, self.b, n)
        if self.kind == "uniform":
            return rng.uniform(self.a, self.b, n)
        if self.kind == "lognormal":
            return rng.lognormal(self.a, self.b, n)
        if self.kind == "poisson":
            return rng.poisson(self.a, n).astype(np.float64)
        if self.kind == "constant":
            return np.full(n, float(self.a))
        raise ValueError(f"unknown distribution {self.kind!r}; use normal, uniform, lognormal, poisson or constant")


@dataclass(frozen=True)
class Burst:
    """Between ``start`` and ``start + duration`` seconds the rate of ``types`` (all if empty) is
    multiplied by ``factor``."""

    start: float
    duration: float
    factor: float
    types: tuple[str, ...] = ()

    def applies(self, t: str) -> bool:
        return not self.types or t in self.types


@dataclass(frozen=True)
class TypeSpec:
    rate: float
    attributes: Mapping[str, Distribution] = field(default_factory=dict)
    price_walk: tuple[float, float] | None = (100.0, 1.0)  # (start price, step std) or None


def _segments(duration: float, bursts: Sequence[Burst], t: str) -> list[tuple[float, float, float]]:
    """Piecewise-constant rate multipliers over [0, duration): (start, end, factor)."""
    cuts = {0.0, duration}
    for b in bursts:
        if b.applies(t):
            cuts.update(x for x in (b.start, b.start + b.duration) if 0 < x < duration)
    edges = sorted(cuts)
    out = []
    for lo, hi in zip(edges, edges[1:]):
        f = 1.0
        for b in bursts:
            if b.applies(t) and b.start <= lo and hi <= b.start + b.duration:
                f *= b.factor
        out.append((lo, hi, f))
    return out


def _arrivals(rng: np.random.Generator, rate: float, duration: float, bursts, t: str) -> np.ndarray:
    times = []
    for lo, hi, f in _segments(duration, bursts, t):
        lam = rate * f
        if lam <= 0:
            continue
        n = rng.poisson(lam * (hi - lo))
        times.append(np.sort(rng.uniform(lo, hi, n)))  # given the count, Poisson arrivals are uniform
    return np.concatenate(times) if times else np.empty(0)


def generate_stream(
    types: Mapping[str, TypeSpec | float],
    duration: float,
    *,
    seed: int = 0,
    bursts: Sequence[Burst] = (),
    attributes: Mapping[str, Distribution] | None = None,
    start_time: float = 0.0,
    resolution: float = 0.001,
) -> EventColumns:
    """A stream of ``duration`` seconds; ``types`` maps a type to a TypeSpec or just a rate.

    ``attributes`` gives default distributions for types without their own (default: ``x`` normal(0, 1),
    ``y`` uniform(0, 100)); every type also gets ``price`` and ``diff`` from a random walk unless its
    TypeSpec sets ``price_walk=None``.
    """
    if duration <= 0:
        raise ValueError("duration must be positive")
    default_attrs = dict(attributes) if attributes is not None else {"x": Distribution("normal", 0, 1), "y": Distribution("uniform", 0, 100)}
    specs = {t: (s if isinstance(s, TypeSpec) else TypeSpec(float(s))) for t, s in types.items()}
    for t, s in specs.items():
        if s.rate < 0:
            raise ValueError(f"rate of {t!r} must be >= 0")
    names = sorted(specs)
    children = np.random.SeedSequence(seed).spawn(len(names))
    times, drawn = [], []
    for t, ss in zip(names, children):
        rng = np.random.default_rng(ss)
        spec = specs[t]
        ts = _arrivals(rng, spec.rate, duration, bursts, t)
        if resolution:
            ts = np.round(ts / resolution) * resolution
        n = len(ts)
        cols = {a: np.asarray(d.draw(rng, n), dtype=np.float64) for a, d in (spec.attributes or default_attrs).items()}
        if spec.price_walk is not None:
            p0, step = spec.price_walk
            steps = rng.normal(0.0, step, n)
            price = p0 + np.cumsum(steps)
            cols["price"] = price
            cols["diff"] = np.concatenate([[0.0], np.diff(price)]) if n else price
        times.append(start_time + ts)
        drawn.append(cols)
    x = np.concatenate(times) if times else np.zeros(0)
    code = np.concatenate([np.full(len(ts), c, dtype=np.int64) for c, ts in enumerate(times)]) if times else np.zeros(0, np.int64)
    order = np.argsort(x, kind="stable")  # ties: type names in order, each type's draws in order
    attrs = list(dict.fromkeys(a for cols in drawn for a in cols))
    columns, absent = {}, {}
    for a in attrs:
        values = np.concatenate([cols.get(a, np.zeros(len(ts))) for cols, ts in zip(drawn, times)])
        columns[a] = values[order]
        absent[a] = np.concatenate([np.full(len(ts), a not in cols) for cols, ts in zip(drawn, times)])[order]
    return EventColumns(names, code[order], x[order], columns=columns, absent=absent, source=f"synthetic(seed={seed})")
