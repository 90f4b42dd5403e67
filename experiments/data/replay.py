"""Replay of real event data at the papers' arrival rates (JQPG Section 6.2, MCEP Section 6.1).

The papers replayed their data so that per-type arrival rates spanned 1 to 45 events per second
(MCEP: 2 to 47) and a 20-minute window held 1,200 to 54,000 events of a type: that is where
evaluation plans differ.  The bundled data arrive as 5-minute bars (traffic: one report per sensor
every 5 minutes), a few events of a type per window at nearly equal rates, where every plan ties.
A replay keeps what is real and sets the clock:

* **values**: each event type keeps its real events -- every attribute value -- in their real
  order; the k-th replayed event of a type carries the type's k-th real event (its sequence starts
  over when the replay needs more events than the data holds: ``cycles`` counts how often).  With
  ``value_order="random"`` the k-th event carries a real event of its type drawn uniformly at random
  (with replacement; each attribute tuple kept whole): the stream is then stationary by construction --
  every window sees the same distribution of each type's values, the real one -- where a replay in the
  real order carries later real values into later windows (a market that moves, traffic that peaks),
  so that a dense replay's windows differ from each other (docs/dense.md, "Stream length");
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

The stream is columns (:class:`cep.columnar.EventColumns`): type codes, timestamps and, per event, the
position of its real event, whose values are gathered only when a consumer reads them (28 bytes per
event with one attribute read).  :class:`ReplayPlan` draws each type's number of events first; it
builds the stream in chunks of time (bounded temporaries: the 62.4-million-event paper-scale traffic
replay peaks at about 2 GiB), or only some of its types (exactly the whole replay's events of those
types, in the same order), and gives the live time of the whole replay from its timestamps alone.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from typing import Iterable, Sequence

import numpy as np

from cep.columnar import EventColumns, Gather
from cep.errors import ConfigError
from experiments.data.statistics import live_of_gaps


#: how a replayed event of a type picks the real event whose values it carries (module docstring)
VALUE_ORDERS = ("real", "random")


@dataclass(frozen=True)
class ReplaySpec:
    """How to replay a pool of event types (see the module docstring)."""

    window_seconds: float
    events_per_window: float  # of the median type of the pool
    rate_ratio: float = 45.0  # fastest over slowest type
    windows: float = 10.0  # stream length in windows
    seed: int = 0
    value_order: str = "real"  # "real": each type's real events in their order; "random": drawn i.i.d.

    def __post_init__(self) -> None:
        for name in ("window_seconds", "events_per_window", "windows"):
            if not getattr(self, name) > 0:
                raise ConfigError(f"replay: {name} must be positive, got {getattr(self, name)!r}")
        if not self.rate_ratio >= 1:
            raise ConfigError(f"replay: rate_ratio must be >= 1, got {self.rate_ratio!r}")
        if self.value_order not in VALUE_ORDERS:
            raise ConfigError(f"replay: value_order must be one of {', '.join(VALUE_ORDERS)}, got {self.value_order!r}")

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
    stream: EventColumns
    rates: dict[str, float]  # the replay's rate of each type (events/s)
    cycles: dict[str, int]  # how many times each type's real sequence started over


def _rng(seed: int, t: str, purpose: str = "replay") -> np.random.Generator:
    digest = hashlib.sha256(repr((seed, purpose, t)).encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


#: events per chunk of the merge that builds a replayed stream (bounds its temporary arrays)
CHUNK_EVENTS = 1 << 21


class ReplayPlan:
    """A replay before any event is made: each type's rate and number of events (the first draw of its
    own random numbers), and where its values come from.  :meth:`build` makes the stream of all the
    pool's types or of some of them -- the events of a type do not depend on which other types are
    built, and a subset's events are exactly the whole replay's events of those types, in the same
    order -- and :meth:`live_seconds` the live time of the whole replay, from its timestamps alone."""

    def __init__(self, raw: EventColumns, types: Sequence[str], spec: ReplaySpec) -> None:
        rows = raw.positions_by_type()
        empty = [t for t in types if t not in rows]
        if empty:
            raise ConfigError(f"replay: {raw.source} has no events of type {empty[0]!r}")
        self.raw, self.spec = raw, spec
        self.real = {t: rows[t] for t in types}  # each type's real events (positions in raw), in order
        self.ranked = sorted(types, key=lambda t: (len(self.real[t]), t))  # rarest real type first
        self.rates = dict(zip(self.ranked, spec.rates(len(self.ranked)).tolist()))
        self.counts = {t: int(_rng(spec.seed, t).poisson(self.rates[t] * spec.duration)) for t in self.ranked}
        self.cycles = {t: (n - 1) // len(self.real[t]) if n else 0 for t, n in self.counts.items()}
        if spec.value_order == "random":
            self.cycles = {t: 0 for t in self.counts}

    def real_index(self, t: str) -> np.ndarray:
        """For each replayed event of type ``t``, in order, the index of the real event (among the type's
        real events) whose values it carries: ``k % len(real)`` in the real order, or a uniform draw of
        the type's own random numbers with ``value_order="random"``."""
        n, m = self.counts[t], len(self.real[t])
        if self.spec.value_order == "random":
            return _rng(self.spec.seed, t, "values").integers(0, m, n, dtype=np.int64)
        return np.arange(n, dtype=np.int64) % m

    @property
    def events(self) -> int:
        return sum(self.counts.values())

    def times(self, t: str) -> np.ndarray:
        """The timestamps of type ``t``'s events, sorted: Poisson arrivals over the replay (given their
        number, uniform), rounded to the microsecond."""
        rng = _rng(self.spec.seed, t)
        n = int(rng.poisson(self.rates[t] * self.spec.duration))
        return np.round(np.sort(rng.uniform(0.0, self.spec.duration, n)), 6)

    def build(self, types: Iterable[str] | None = None, *, chunk_events: int = CHUNK_EVENTS) -> EventColumns:
        """The replayed stream of ``types`` (default: the whole pool), merged in chunks of about
        ``chunk_events`` events.  Events are ordered by timestamp, then by the rank of their type, then
        by their order within the type; the ``k``-th event of a type carries the values of its
        :meth:`real_index` real event (a :class:`Gather` of the raw columns, read only when asked for)."""
        want = set(self.ranked if types is None else types)
        chosen = [(c, t) for c, t in enumerate(self.ranked) if t in want]
        times = [self.times(t) for _, t in chosen]
        total = sum(map(len, times))
        pieces = max(1, -(-total // max(1, chunk_events)))
        edges = np.linspace(0.0, self.spec.duration, pieces + 1)
        edges[-1] = np.inf
        bounds = [np.searchsorted(x, edges, side="left") for x in times]
        real_rows = np.concatenate([self.real[t] for _, t in chosen]) if chosen else np.zeros(0, np.int64)
        real_len = np.asarray([len(self.real[t]) for _, t in chosen], dtype=np.int64)
        real_off = np.concatenate(([0], np.cumsum(real_len)[:-1])).astype(np.int64)
        drawn = self.spec.value_order == "random"
        if drawn:  # the drawn indices of every chosen type, one array (the real order needs none: k % len)
            picks = [self.real_index(t).astype(np.int32 if len(self.real[t]) < 2**31 else np.int64) for _, t in chosen]
            pick_off = np.concatenate(([0], np.cumsum([len(p) for p in picks])[:-1])).astype(np.int64)
            picks = np.concatenate(picks) if picks else np.zeros(0, np.int32)
        index_type = np.int32 if len(self.raw) < 2**31 else np.int64
        codes = np.empty(total, dtype=np.int64)
        ts = np.empty(total, dtype=np.float64)
        src = np.empty(total, dtype=index_type)
        out = 0
        for j in range(pieces):
            parts = [(i, b[j], b[j + 1]) for i, b in enumerate(bounds) if b[j + 1] > b[j]]
            if not parts:
                continue
            x = np.concatenate([times[i][lo:hi] for i, lo, hi in parts])
            which = np.concatenate([np.full(hi - lo, i, dtype=np.int64) for i, lo, hi in parts])
            k = np.concatenate([np.arange(lo, hi, dtype=np.int64) for _, lo, hi in parts])
            order = np.argsort(x, kind="stable")  # ties: the pieces are in rank order, each in its own order
            which, k = which[order], k[order]
            m = len(x)
            ts[out:out + m] = x[order]
            codes[out:out + m] = np.asarray([c for c, _ in chosen], dtype=np.int64)[which]
            index = picks[pick_off[which] + k] if drawn else k % real_len[which]
            src[out:out + m] = real_rows[real_off[which] + index]
            out += m
        columns = {name: Gather(self.raw.array(name), src) for name in self.raw.attributes}
        absent = {name: m[src] for name, m in self.raw.absent_masks().items()}
        return EventColumns(self.ranked, codes, ts, columns=columns, absent=absent, source=f"{self.raw.source} replayed")

    def live_seconds(self, gap_limit: float) -> float:
        """The live time (:func:`experiments.data.statistics.live_seconds`) of the whole replayed
        stream, from the timestamps of every type, without building the stream.  Rounding is monotone,
        so the rounded draws of all types sorted once are the built stream's timestamps; their gaps are
        summed as one array, as the live time of the built stream sums them."""
        ts = np.empty(self.events, dtype=np.float64)
        at = 0
        for t in self.ranked:
            rng = _rng(self.spec.seed, t)
            n = int(rng.poisson(self.rates[t] * self.spec.duration))  # the draws of times(t), unsorted
            ts[at:at + n] = rng.uniform(0.0, self.spec.duration, n)
            at += n
        if at < 2:
            return 0.0
        np.round(ts, 6, out=ts)
        ts.sort()
        gaps = np.empty(at - 1, dtype=np.float64)
        np.subtract(ts[1:], ts[:-1], out=gaps)
        del ts
        return live_of_gaps(gaps, gap_limit)


def replay(stream: EventColumns, types: Sequence[str], spec: ReplaySpec) -> Replayed:
    """Replay the events of ``types`` (the pool) from ``stream`` as the module docstring says."""
    plan = ReplayPlan(stream, types, spec)
    return Replayed(plan.build(), plan.rates, plan.cycles)


def events_per_window(stream: EventColumns, types: Sequence[str], window_seconds: float) -> dict[str, float]:
    """Per type: the mean number of its events in the window that ends at one of its events (what a
    partial match of that type sees)."""
    rows = stream.positions_by_type()
    out = {}
    for t in types:
        a = stream.ts[rows[t]] if t in rows else np.zeros(0)
        out[t] = float(np.mean(np.arange(len(a)) - np.searchsorted(a, a - window_seconds, side="left") + 1)) if len(a) else 0.0
    return out


def replay_regime(stream: EventColumns, types: Sequence[str], window_seconds: float, rates: dict[str, float] | None = None) -> dict:
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
