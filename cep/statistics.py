"""Statistics that planners consume: arrival rates per event type and selectivities per condition.

JSON form (what ``python -m experiments stats --json`` prints and what a user may write by hand):

    {"rates": {"MSFT": 1.25, "GOOG": 3.0}, "selectivities": {"m,g": 0.3, "m": 0.5}}

Rates are events per second by event type.  Selectivities are keyed by a pattern's variable names:
an unordered pair for a binary condition (``"m,g"`` and ``"g,m"`` are the same key), one name for a
filter; a missing key means 1.0 (MCEP Section 2: ``sel = 1`` when no condition is defined).  When
several conditions share a key, the selectivity is that of their conjunction.  Statistics are
immutable and validated when built: no NaN, no negative rate, no selectivity outside [0, 1].
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Iterable, Mapping

from cep.conditions import selectivity_key
from cep.errors import StatisticsError


def _normalize_key(key: str) -> str:
    parts = [p.strip() for p in str(key).split(",")]
    if not all(parts):
        raise StatisticsError(f"selectivity key {key!r} has an empty variable name")
    return selectivity_key(parts)


@dataclass(frozen=True)
class Statistics:
    rates: Mapping[str, float]
    selectivities: Mapping[str, float] = field(default_factory=dict)
    source: str = "<memory>"

    def __post_init__(self) -> None:
        rates = {}
        for t, r in dict(self.rates).items():
            if isinstance(r, bool) or not isinstance(r, (int, float)) or not math.isfinite(r) or r < 0:
                raise StatisticsError(f"{self.source}: rate of event type {t!r} must be a finite number >= 0, got {r!r}")
            rates[str(t)] = float(r)
        sels = {}
        for k, s in dict(self.selectivities).items():
            if isinstance(s, bool) or not isinstance(s, (int, float)) or not math.isfinite(s) or not 0.0 <= s <= 1.0:
                raise StatisticsError(f"{self.source}: selectivity {k!r} must be a number in [0, 1], got {s!r}")
            sels[_normalize_key(k)] = float(s)
        object.__setattr__(self, "rates", MappingProxyType(rates))
        object.__setattr__(self, "selectivities", MappingProxyType(sels))

    def rate(self, event_type: str) -> float:
        try:
            return self.rates[event_type]
        except KeyError:
            raise StatisticsError(f"{self.source}: no arrival rate for event type {event_type!r}") from None

    def selectivity(self, variables: Iterable[str]) -> float:
        """Selectivity of the conditions on exactly this set of variables (1.0 when none is given)."""
        return self.selectivities.get(selectivity_key(variables), 1.0)

    def require_types(self, event_types: Iterable[str]) -> None:
        missing = [t for t in dict.fromkeys(event_types) if t not in self.rates]
        if missing:
            raise StatisticsError(
                f"{self.source}: no arrival rate for event type{'s' if len(missing) > 1 else ''} "
                f"{', '.join(map(repr, missing))} of the pattern"
            )

    # ---- JSON ----------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {"rates": dict(self.rates), "selectivities": dict(self.selectivities)}

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, sort_keys=True)

    @classmethod
    def from_dict(cls, d: Mapping, source: str = "<memory>") -> "Statistics":
        if not isinstance(d, Mapping) or "rates" not in d:
            raise StatisticsError(f"{source}: statistics must be a JSON object with a 'rates' field")
        if not isinstance(d["rates"], Mapping):
            raise StatisticsError(f"{source}: 'rates' must map event types to numbers")
        sels = d.get("selectivities", {}) or {}
        if not isinstance(sels, Mapping):
            raise StatisticsError(f"{source}: 'selectivities' must map variable names to numbers")
        unknown = set(d) - {"rates", "selectivities", "meta"}
        if unknown:
            raise StatisticsError(f"{source}: unknown field {sorted(unknown)[0]!r}; expected 'rates' and 'selectivities'")
        return cls(d["rates"], sels, source)

    @classmethod
    def load(cls, path: str | Path) -> "Statistics":
        p = Path(path)
        try:
            text = p.read_text()
        except OSError as e:
            raise StatisticsError(f"{p}: cannot read statistics file ({e.strerror})") from None
        try:
            d = json.loads(text)
        except json.JSONDecodeError as e:
            raise StatisticsError(f"{p}: line {e.lineno} column {e.colno}: invalid JSON ({e.msg})") from None
        return cls.from_dict(d, str(p))

    def save(self, path: str | Path) -> None:
        from cep.io_utils import atomic_write_text

        atomic_write_text(Path(path), self.to_json() + "\n")
