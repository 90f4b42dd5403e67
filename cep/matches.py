"""What identifies a match: the stream positions bound to each variable.

Two evaluators agree iff they report the same set of :class:`Match` values.  A match of a Kleene
variable binds a tuple of positions in stream order; a primitive variable binds a 1-tuple.
"""

from __future__ import annotations

import json
from typing import Mapping, NamedTuple

from cep.events import Event


class Match(NamedTuple):
    """``bindings``: ``((var, (pos, ...)), ...)`` sorted by variable name."""

    bindings: tuple[tuple[str, tuple[int, ...]], ...]

    @classmethod
    def from_binding(cls, binding: Mapping[str, "Event | tuple[Event, ...]"]) -> "Match":
        return cls(
            tuple(
                (v, tuple(e.pos for e in x) if isinstance(x, tuple) else (x.pos,))
                for v, x in sorted(binding.items())
            )
        )

    @classmethod
    def from_positions(cls, positions: Mapping[str, "int | tuple[int, ...]"]) -> "Match":
        return cls(
            tuple((v, tuple(p) if isinstance(p, (tuple, list)) else (p,)) for v, p in sorted(positions.items()))
        )

    @property
    def positions(self) -> tuple[int, ...]:
        return tuple(sorted(p for _, ps in self.bindings for p in ps))

    @property
    def variables(self) -> tuple[str, ...]:
        return tuple(v for v, _ in self.bindings)

    def as_dict(self) -> dict[str, list[int]]:
        return {v: list(ps) for v, ps in self.bindings}

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), separators=(",", ":"))
