"""A ridesharing event stream generator (HAMLET Section 5.1, "Ridesharing data set").

Twenty event types -- Request, Accept, Pickup, Travel, Dropoff, Cancel, Pay, Rate, Tip, Surge, Idle,
Login, Logout, Refuel, Wait, Reroute, Complain, Promo, Refund, Arrive -- each event carrying a time
stamp in seconds (millisecond resolution), ``driver`` and ``rider`` identifiers, the request type ``rtype`` (Pool or Solo), a
``district``, a ``duration``, a ``speed`` and a ``price`` (random values, as the paper's generator).
``Travel`` arrives in bursts: the stream alternates a burst of Travel events (geometric length with
mean ``burst_mean``) with a run of other events (uniform over the other 19 types), so that the share
of Travel is ``travel_share`` (default 75%, the bench workload of the issue).  Events are evenly
spaced at ``events_per_minute``, timestamps rounded to the millisecond.  Deterministic under ``seed``.
"""

from __future__ import annotations

import random

import numpy as np

from cep.columnar import EventColumns
from cep.io_utils import atomic_open
from experiments.data.timestamps import python_round

TYPES = ("Request", "Accept", "Pickup", "Travel", "Dropoff", "Cancel", "Pay", "Rate", "Tip", "Surge", "Idle",
         "Login", "Logout", "Refuel", "Wait", "Reroute", "Complain", "Promo", "Refund", "Arrive")
OTHER = tuple(t for t in TYPES if t != "Travel")
OTHER_CODES = tuple(TYPES.index(t) for t in OTHER)
#: every event's attributes, in this order (``rtype`` is drawn as an index into :data:`RTYPES`)
ATTRIBUTES = ("driver", "rider", "rtype", "district", "duration", "speed", "price")
RTYPES = ("Pool", "Solo")


def generate_ridesharing(n_events: int, *, seed: int = 0, events_per_minute: float = 10_000.0, travel_share: float = 0.75,
                         burst_mean: float = 30.0, districts: int = 1, drivers: int = 1, riders: int = 1,
                         start: float = 0.0) -> EventColumns:
    """``n_events`` ridesharing events as columns; see the module docstring."""
    rng = random.Random(seed)
    other_mean = burst_mean * (1 - travel_share) / travel_share
    codes = np.empty(n_events, dtype=np.int64)
    draws = np.empty((n_events, len(ATTRIBUTES)), dtype=np.int64)
    rate = events_per_minute / 60.0
    in_travel = rng.random() < travel_share
    left = 0
    travel, pool = TYPES.index("Travel"), OTHER_CODES
    for i in range(n_events):
        if left <= 0:
            in_travel = not in_travel if i else in_travel
            mean = burst_mean if in_travel else max(other_mean, 1.0)
            left = 1
            while rng.random() > 1.0 / mean:
                left += 1
        left -= 1
        codes[i] = travel if in_travel else rng.choice(pool)
        draws[i] = (rng.randrange(drivers), rng.randrange(riders), rng.choice((0, 1)), rng.randrange(districts),
                    rng.randrange(1, 60), rng.randrange(1, 60), rng.randrange(5, 80))
    columns = {a: draws[:, j] for j, a in enumerate(ATTRIBUTES)}
    columns["rtype"] = np.asarray(RTYPES, dtype=object)[columns["rtype"]]
    ts = python_round(start + np.arange(n_events) / rate, 3)
    return EventColumns(TYPES, codes, ts, columns=columns, source=f"ridesharing(n={n_events}, seed={seed})")


def write_csv(stream: EventColumns, path) -> None:
    """The stream as a generic events CSV (``type,ts,<attributes>``) that ``aggregate --data`` reads."""
    attrs = list(stream.attributes)
    cols = [stream.column(a) for a in attrs]
    with atomic_open(path) as f:
        f.write(",".join(["type", "ts"] + attrs) + "\n")
        for i, (t, ts) in enumerate(zip(stream.type_per_event().tolist(), stream.ts.tolist())):
            f.write(",".join([t, repr(ts)] + [str(c[i]) for c in cols]) + "\n")
