"""Bursts of events (HAMLET Definition 4.1).

Let ``E+`` be shareable by queries ``Q_E`` with event types ``T``.  A burst is a maximal run of events
of type ``E`` within one pane and one partition with no event of another type of ``T`` in between; it
is complete when such an event arrives or the pane ends.  The HAMLET executor buffers exactly these
runs and asks its sharing policy about each (``evaluators.trends.hamlet``); this function finds them in
a recorded stream, for statistics and tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable, Sequence


@dataclass(frozen=True)
class Burst:
    type: str
    partition: tuple
    pane: int
    positions: tuple[int, ...]

    @property
    def size(self) -> int:
        return len(self.positions)


def detect_bursts(events: Iterable, shared_type: str, types: Sequence[str], pane: Fraction,
                  partition_attributes: Sequence[str] = ()) -> list[Burst]:
    """Every complete burst of ``shared_type`` among ``events`` (``types``: the template's types)."""
    relevant = set(types) | {shared_type}
    open_runs: dict[tuple, tuple[int, list[int]]] = {}
    out: list[Burst] = []
    for i, e in enumerate(events):
        if e.type not in relevant:
            continue
        try:
            key = tuple(e.attrs[a] for a in partition_attributes)
        except KeyError:
            continue
        p = math.floor(Fraction(e.ts) / pane)
        run = open_runs.get(key)
        if run is not None and (run[0] != p or e.type != shared_type):
            out.append(Burst(shared_type, key, run[0], tuple(run[1])))
            del open_runs[key]
            run = None
        if e.type == shared_type:
            if run is None:
                open_runs[key] = (p, [getattr(e, "pos", i)])
            else:
                run[1].append(getattr(e, "pos", i))
    for key, (p, pos) in open_runs.items():
        out.append(Burst(shared_type, key, p, tuple(pos)))
    return sorted(out, key=lambda bu: bu.positions[0])
