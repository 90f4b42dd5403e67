"""The streams of the HAMLET experiments (HAMLET Section 5.1), as columns.

Ridesharing is generated (:mod:`experiments.data.ridesharing`, seeded); ``nasdaq-bursty`` is the bundled stock
values under an arrival process calibrated to the paper's bursts (:mod:`experiments.data.bursty_stock`).
Stock (``nasdaq``) and traffic are the bundled
data restricted to a pool of event types -- the shared Kleene type (the pool's first type) plus
:data:`STARTS` start and :data:`ENDS` end types, chosen among the frequent types by the seed -- in the
data's order, with timestamps re-spaced to the cell's events per minute (the paper's speed-up factor).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from cep.columnar import EventColumns
from experiments.data.bursty_stock import bursty_stock_stream
from experiments.data.datasets import load_dataset
from experiments.data.ridesharing import generate_ridesharing
from experiments.data.timestamps import python_round
from experiments.data.trend_pools import BURSTY_STOCK, ENDS, STARTS, kleene_runs


@lru_cache(maxsize=4)
def _dataset(name: str) -> EventColumns:
    return load_dataset(name)


def trend_stream(dataset: str, rate: int, minutes: float, seed: int, drivers: int) -> tuple[EventColumns, list[str] | None]:
    """``rate * minutes`` events of ``dataset`` at ``rate`` events per minute, and the pool of types
    (shared Kleene type first; ``None`` for ridesharing, whose Kleene type is ``Travel``)."""
    n = int(rate * minutes)
    if dataset == "ridesharing":
        return generate_ridesharing(n, seed=seed, events_per_minute=rate, drivers=drivers), None
    if dataset == BURSTY_STOCK:
        return bursty_stock_stream(rate, minutes, seed)
    data = _dataset(dataset)
    counts = data.type_counts()
    ranked = sorted(counts, key=lambda t: (-counts[t], t))
    # a seed picks which of the frequent types form the pool
    off = (seed * (1 + STARTS + ENDS)) % max(1, len(ranked) - (1 + STARTS + ENDS))
    pool = ranked[off: off + 1 + STARTS + ENDS]
    rows = data.rows_of_types(pool)[:n]
    ts = python_round(np.arange(len(rows)) * (60.0 / rate), 6)
    return data.take(rows, ts=ts, source=f"{dataset}-pool"), pool


def burst_mean(stream: EventColumns, pool) -> float:
    """The mean length of a burst of the shared Kleene type (Definition 4.1): a run of its events with no
    other event of the pool between (``Travel`` among all events without a pool)."""
    runs, total, _ = kleene_runs(stream, "Travel" if pool is None else pool[0], pool)
    return total / runs if runs else 0.0
