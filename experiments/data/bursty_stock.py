"""A bursty stock stream calibrated to HAMLET's stock data (HAMLET Section 5.1 and 5.2).

The paper's stock stream: "2 million transaction records of 220 companies for 8 hours ... The average
number of events per minute is 4.5K", and (Section 5.2) "each burst of events that can be shared
contains 120 events on average".  Those transactions are not bundled; the bundled NASDAQ sample
(``data/nasdaq/nasdaq_5min_sample.parquet``, 200 tickers of 5-minute bars) has at most one event per
ticker per 5 minutes, so the shared Kleene type never arrives twice in a row (mean burst 1.0).

This module keeps the sample's *values* and replaces its *arrival process* by one calibrated to those
published figures (it is labelled "calibrated" wherever it is reported):

* the values are real: the ``i``-th event of a ticker carries that ticker's ``i``-th bar (``open``,
  ``high``, ``low``, ``close``, ``volume``, ``diff``) in time order, cycling when the ticker's bars run
  out (at most 1,170 bars per ticker);
* the types: every company of the sample (200; the paper had 220).  A *pool* -- the shared Kleene
  type, :data:`STARTS` start and :data:`ENDS` end types, chosen among the tickers with the most bars by
  the seed, as the other HAMLET streams do (:mod:`experiments.data.trend_streams`) -- carries the
  queries' types ``T``; an event belongs to the pool with probability ``pool_share``, else it is one of
  the other companies (uniform), which no query matches and which therefore do not end a burst;
* bursts (Definition 4.1: consecutive events of the Kleene type with no other event of ``T`` between):
  the pool's events alternate between runs of the Kleene type, of geometric length with mean
  ``burst_mean`` (120, the paper's), and runs of start / end types (uniform over them), of geometric
  length with mean ``burst_mean * (1 - kleene_share) / kleene_share``, so that ``kleene_share`` of
  the pool's events are of the Kleene type;
* time: ``events_per_minute`` events per minute, evenly spaced (distinct timestamps: the paper's
  minute timestamps would put a whole burst on one time stamp, where no event precedes another).

``pool_share`` and ``kleene_share`` are not published; their defaults (0.5, 0.6) are ours.  A smaller
scale keeps the burst structure (the same ``burst_mean``) with fewer events.  :func:`burst_statistics`
measures a stream's bursts, printed in the report beside :data:`PAPER`.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from cep.columnar import EventColumns
from cep.errors import ConfigError
from experiments.data.datasets import load_dataset
from experiments.data.timestamps import python_round
from experiments.data.trend_pools import BURSTY_STOCK, ENDS, STARTS, kleene_runs

#: the paper's stock stream (HAMLET Section 5.1 / 5.2)
PAPER = {"companies": 220, "events_per_minute": 4500, "burst_mean": 120.0, "hours": 8, "events": 2_000_000}
NAME = BURSTY_STOCK
#: the arrival process's defaults (burst_mean is the paper's; the shares are ours)
BURST_MEAN, POOL_SHARE, KLEENE_SHARE = 120.0, 0.5, 0.6


@lru_cache(maxsize=1)
def _bars() -> tuple[list[str], EventColumns, dict[str, np.ndarray]]:
    """The tickers (most bars first, then by name), the bars, and each ticker's bars (positions) in time order."""
    bars = load_dataset("nasdaq")
    rows = bars.positions_by_type()
    return sorted(rows, key=lambda t: (-len(rows[t]), t)), bars, rows


def _runs(rng: np.random.Generator, n: int, mean_k: float, mean_o: float) -> np.ndarray:
    """A 0/1 sequence of length ``n`` (1 = Kleene type) of alternating geometric runs."""
    out = np.empty(n, dtype=np.int8)
    i, kleene = 0, bool(rng.random() < mean_k / (mean_k + mean_o))
    while i < n:
        length = int(rng.geometric(1.0 / (mean_k if kleene else mean_o)))
        out[i:i + length] = 1 if kleene else 0
        i += length
        kleene = not kleene
    return out


def bursty_stock_stream(events_per_minute: int, minutes: float, seed: int, *, burst_mean: float = BURST_MEAN,
                        pool_share: float = POOL_SHARE, kleene_share: float = KLEENE_SHARE) -> tuple[EventColumns, list[str]]:
    """``events_per_minute * minutes`` events (columns) and the pool (Kleene type first), seeded."""
    if not (0 < pool_share <= 1 and 0 < kleene_share < 1 and burst_mean >= 1):
        raise ConfigError(f"bursty stock stream: need 0 < pool_share <= 1, 0 < kleene_share < 1, burst_mean >= 1 "
                          f"(got {pool_share}, {kleene_share}, {burst_mean})")
    if burst_mean * (1 - kleene_share) / kleene_share < 1:
        # runs of at least one event alternate: bursts of mean b hold a share b / (b + 1) at most
        raise ConfigError(f"bursty stock stream: bursts of mean {burst_mean:g} events cannot make a Kleene share of "
                          f"{kleene_share:g} (the runs between them would need a mean below one event); need burst_mean "
                          f">= {kleene_share / (1 - kleene_share):g}")
    tickers, bars, rows = _bars()
    rng = np.random.default_rng(seed)
    n = int(events_per_minute * minutes)
    frequent = tickers[:max(1 + STARTS + ENDS, 40)]
    pool = [str(t) for t in rng.choice(frequent, size=1 + STARTS + ENDS, replace=False)]
    others = [t for t in tickers if t not in set(pool)]
    in_pool = rng.random(n) < pool_share
    n_pool = int(in_pool.sum())
    kleene = _runs(rng, n_pool, burst_mean, burst_mean * (1 - kleene_share) / kleene_share)
    side = rng.integers(0, STARTS + ENDS, size=n_pool)
    background = rng.integers(0, len(others), size=n - n_pool) if others else np.zeros(n - n_pool, dtype=int)
    names = [*pool, *others]  # codes: the pool (Kleene type first), then the other companies
    codes = np.empty(n, dtype=np.int64)
    codes[in_pool] = np.where(kleene == 1, 0, 1 + side)
    codes[~in_pool] = len(pool) + background
    # the j-th event of a ticker carries its (j mod bars)-th bar
    order = np.argsort(codes, kind="stable")
    per = np.bincount(codes, minlength=len(names))
    start = np.concatenate(([0], np.cumsum(per)[:-1]))
    j = np.empty(n, dtype=np.int64)
    j[order] = np.arange(n) - np.repeat(start, per)
    bar_rows = [rows[t] for t in names]
    lengths = np.asarray([len(r) for r in bar_rows], dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    src = np.concatenate(bar_rows)[offsets[codes] + j % lengths[codes]]
    ts = python_round(np.arange(n) * (60.0 / events_per_minute), 6)
    return bars.take(src, ts=ts, source=f"{NAME}-seed{seed}").recoded(codes, names), pool


def burst_statistics(stream: EventColumns, pool: list[str]) -> dict:
    """The stream's bursts of the pool's Kleene type (Definition 4.1: runs among the pool's events;
    other companies do not end a burst): their number and mean length, the events per minute, the
    companies, and the Kleene type's share of the pool's events."""
    runs, total, pooled = kleene_runs(stream, pool[0], pool)
    span = stream.span_seconds if len(stream) > 1 else 0.0
    return {"companies": len(stream.types), "events": len(stream),
            "events_per_minute": (len(stream) - 1) / span * 60.0 if span > 0 else float("nan"),
            "bursts": runs, "burst_mean": total / runs if runs else 0.0,
            "kleene_share_of_pool": total / pooled if pooled else 0.0}
