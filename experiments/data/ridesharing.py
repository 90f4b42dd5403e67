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

from cep.events import Event, EventStream

TYPES = ("Request", "Accept", "Pickup", "Travel", "Dropoff", "Cancel", "Pay", "Rate", "Tip", "Surge", "Idle",
         "Login", "Logout", "Refuel", "Wait", "Reroute", "Complain", "Promo", "Refund", "Arrive")
OTHER = tuple(t for t in TYPES if t != "Travel")


def generate_ridesharing(n_events: int, *, seed: int = 0, events_per_minute: float = 10_000.0, travel_share: float = 0.75,
                         burst_mean: float = 30.0, districts: int = 1, drivers: int = 1, riders: int = 1,
                         start: float = 0.0) -> EventStream:
    """``n_events`` ridesharing events; see the module docstring."""
    rng = random.Random(seed)
    other_mean = burst_mean * (1 - travel_share) / travel_share
    events: list[Event] = []
    rate = events_per_minute / 60.0
    in_travel = rng.random() < travel_share
    left = 0
    for i in range(n_events):
        if left <= 0:
            in_travel = not in_travel if events else in_travel
            mean = burst_mean if in_travel else max(other_mean, 1.0)
            left = 1
            while rng.random() > 1.0 / mean:
                left += 1
        left -= 1
        etype = "Travel" if in_travel else rng.choice(OTHER)
        ts = round(start + i / rate, 3)
        events.append(Event(etype, ts, {
            "driver": rng.randrange(drivers), "rider": rng.randrange(riders), "rtype": rng.choice(("Pool", "Solo")),
            "district": rng.randrange(districts), "duration": rng.randrange(1, 60), "speed": rng.randrange(1, 60),
            "price": rng.randrange(5, 80),
        }))
    return EventStream(events, source=f"ridesharing(n={n_events}, seed={seed})")


def write_csv(stream: EventStream, path) -> None:
    """The stream as a generic events CSV (``type,ts,<attributes>``) that ``aggregate --data`` reads."""
    from cep.io_utils import atomic_open

    attrs = list(stream.attributes)
    with atomic_open(path) as f:
        f.write(",".join(["type", "ts"] + attrs) + "\n")
        for e in stream:
            f.write(",".join([e.type, repr(e.ts)] + [str(e.attrs[a]) for a in attrs]) + "\n")
