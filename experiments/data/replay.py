"""Replay of real event data at the papers' arrival rates (JQPG Section 6.2, MCEP Section 6.1).

The papers replayed their data so that per-type arrival rates spanned 1 to 45 events per second
(MCEP: 2 to 47) and a 20-minute window held 1,200 to 54,000 events of a type: that is where
evaluation plans differ.  The bundled data arrive as 5-minute bars (traffic: one report per sensor
every 5 minutes), a few events of a type per window at nearly equal rates, where every plan ties.
A replay keeps what is real and sets the clock:

* **values**: each event type keeps its real events -- every attribute value -- in their real
  order; the k-th replayed event of a type carries the type's k-th real event (its sequence starts
  over when the replay needs more events than the data holds: ``cycles`` counts how often);
* **rates**: the ``K`` types of the pool get rates spaced geometrically from ``r_min`` to
  ``rate_ratio * r_min`` (the papers' ~45x), assigned in the order of their real event counts (the
  rarest real type is replayed slowest), so a type's rank in frequency is real;
* **time**: each type arrives as a Poisson process of its rate (seeded, each type its own stream of
  random numbers), for ``windows`` windows of ``window_seconds``; ``r_min`` is chosen so that the
  median type has ``events_per_window`` events in a window.  At scale=quick that is tens to hundreds
  of events per type per window; at scale=paper the papers' 1 to 45 events/s over 20 minutes.

The stream is the pool's types only (the papers' streams held every type; a pattern's evaluator
still sees every event of the replay and discards the types it does not need).  Timestamps start at
0; equal timestamps (rare: arrivals are rounded to the microsecond) keep the order of the types'
ranks.  :func:`replay_regime` states the result next to the paper's: events per type per window,
the rate ratio.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from typing import Sequence

import numpy as np

from cep.errors import ConfigError
from cep.events import Event, EventStream


@dataclass(frozen=True)
class ReplaySpec:
    """How to replay a pool of event types (see the module docstring)."""

    window_seconds: float
    events_per_window: float  # of the median type of the pool
    rate_ratio: float = 45.0  # fastest over slowest type
    windows: float = 10.0  # stream length in windows
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("window_seconds", "events_per_window", "windows"):
            if not getattr(self, name) > 0:
                raise ConfigError(f"replay: {name} must be positive, got {getattr(self, name)!r}")
        if not self.rate_ratio >= 1:
            raise ConfigError(f"replay: rate_ratio must be >= 1, got {self.rate_ratio!r}")

    @property
    def duration(self) -> float:
        return self.windows * self.window_seconds

    def rates(self, k: int) -> np.ndarray:
        """The ``k`` rates (events/s), slowest first, geometrically spaced, median at
        ``events_per_window / window_seconds``."""
        if k == 1:
            return np.array([self.events_per_window / self.window_seconds])
        exps = np.arange(k) / (k - 1)
        r = self.rate_ratio**exps
        return r / float(np.median(r)) * (self.events_per_window / self.window_seconds)

    def expected_events(self, k: int) -> float:
        """The expected number of events of a replay of ``k`` types (each a Poisson process)."""
        return float(self.rates(k).sum() * self.duration)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Replayed:
    stream: EventStream
    rates: dict[str, float]  # the replay's rate of each type (events/s)
    cycles: dict[str, int]  # how many times each type's real sequence started over


def _rng(seed: int, t: str) -> np.random.Generator:
    digest = hashlib.sha256(repr((seed, "replay", t)).encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def replay(stream: EventStream, types: Sequence[str], spec: ReplaySpec) -> Replayed:
    """Replay the events of ``types`` (the pool) from ``stream`` as the module docstring says."""
    by_type: dict[str, list[Event]] = {t: [] for t in types}
    for e in stream:
        if e.type in by_type:
            by_type[e.type].append(e)
    empty = [t for t, evs in by_type.items() if not evs]
    if empty:
        raise ConfigError(f"replay: {stream.source} has no events of type {empty[0]!r}")
    ranked = sorted(types, key=lambda t: (len(by_type[t]), t))  # rarest real type first
    rates = dict(zip(ranked, spec.rates(len(ranked)).tolist()))
    rank = {t: i for i, t in enumerate(ranked)}
    rows: list[tuple[float, int, int, Event]] = []
    cycles = {}
    for t in ranked:
        rng = _rng(spec.seed, t)
        n = int(rng.poisson(rates[t] * spec.duration))
        ts = np.round(np.sort(rng.uniform(0.0, spec.duration, n)), 6)
        real = by_type[t]
        cycles[t] = (n - 1) // len(real) if n else 0
        for k, x in enumerate(ts.tolist()):
            rows.append((x, rank[t], k, real[k % len(real)]))
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    events = [Event(e.type, x, e.attrs) for x, _, _, e in rows]
    attrs = stream.attributes
    return Replayed(EventStream(events, f"{stream.source} replayed", attrs), rates, cycles)


def events_per_window(stream: EventStream, types: Sequence[str], window_seconds: float) -> dict[str, float]:
    """Per type: the mean number of its events in the window that ends at one of its events (what a
    partial match of that type sees)."""
    ts_by: dict[str, list[float]] = {t: [] for t in types}
    for e in stream:
        if e.type in ts_by:
            ts_by[e.type].append(e.ts)
    out = {}
    for t, ts in ts_by.items():
        a = np.asarray(ts)
        out[t] = float(np.mean(np.arange(len(a)) - np.searchsorted(a, a - window_seconds, side="left") + 1)) if len(a) else 0.0
    return out


def replay_regime(stream: EventStream, types: Sequence[str], window_seconds: float, rates: dict[str, float] | None = None) -> dict:
    """The regime of a stream over a pool: events per type per window (min, median, max) and the
    ratio of the fastest to the slowest type's rate (measured over the stream when ``rates`` is
    not given)."""
    epw = events_per_window(stream, types, window_seconds)
    vals = np.array(list(epw.values()))
    if rates is None:
        counts = stream.type_counts()
        rates = {t: counts.get(t, 0) / max(stream.span_seconds, 1e-9) for t in types}
    r = np.array([rates[t] for t in types])
    return {
        "window_seconds": float(window_seconds),
        "types": len(types),
        "events_per_type_per_window": {"min": float(vals.min()), "median": float(np.median(vals)), "max": float(vals.max())},
        "rate_ratio": float(r.max() / r.min()) if r.min() > 0 else float("inf"),
        "events": len(stream),
    }
