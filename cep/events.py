"""Primitive events and event streams.

An event has a type (a string: a ticker, a traffic observation point), a timestamp in seconds
(float, UTC epoch for the real datasets), a dict of numeric attributes, and its position in the
stream (0-based).  A stream is a list of events in non-decreasing timestamp order whose positions
are 0, 1, 2, ...; that order is the arrival order every evaluator sees (JQPG Section 2.1, MCEP
Section 2: "an ordered, possibly infinite temporal sequence of primitive events").
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterator, Sequence



class Event:
    """One primitive event.  ``attrs`` maps attribute names to numbers."""

    __slots__ = ("type", "ts", "attrs", "pos")

    def __init__(self, type: str, ts: float, attrs: dict, pos: int = -1) -> None:
        self.type = type
        self.ts = ts
        self.attrs = attrs
        self.pos = pos

    def __repr__(self) -> str:
        return f"Event({self.type!r}, ts={self.ts!r}, pos={self.pos}, {self.attrs!r})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Event)
            and self.type == other.type
            and self.ts == other.ts
            and self.pos == other.pos
            and self.attrs == other.attrs
        )

    def __hash__(self) -> int:
        return hash((self.type, self.ts, self.pos))

    def __reduce__(self):
        return (Event, (self.type, self.ts, self.attrs, self.pos))


@dataclass
class EventStream(Sequence[Event]):
    """A finite stream: events in timestamp order with positions 0..n-1, plus where they came from.

    ``source`` names the file (or generator) for error messages and result metadata.
    """

    events: list[Event]
    source: str = "<memory>"
    attributes: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        for i, e in enumerate(self.events):
            e.pos = i
        if not self.attributes and self.events:
            self.attributes = tuple(self.events[0].attrs)

    def __len__(self) -> int:
        return len(self.events)

    def __getitem__(self, i):  # type: ignore[override]
        return self.events[i]

    def __iter__(self) -> Iterator[Event]:
        return iter(self.events)

    @property
    def types(self) -> list[str]:
        """Event types in order of first appearance."""
        return list(dict.fromkeys(e.type for e in self.events))

    def type_counts(self) -> Counter:
        return Counter(e.type for e in self.events)

    @property
    def span_seconds(self) -> float:
        """Time between the first and the last event (0 for fewer than two events)."""
        return self.events[-1].ts - self.events[0].ts if len(self.events) > 1 else 0.0
