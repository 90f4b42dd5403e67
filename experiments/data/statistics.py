"""Statistics of an event stream: arrival rates and condition selectivities (pandas/numpy).

Definitions (shared with the Spark job in :mod:`experiments.data.spark_statistics`, which must agree
with this module exactly whenever no sampling happens):

* **Arrival rate** of an event type = its number of events / the stream's *live time* in seconds:
  the sum over consecutive stream events of ``min(gap, L)``, where ``L`` is the longest time window
  of the patterns the statistics are for (without such a pattern ``L`` is unbounded and the live
  time is the span, last timestamp minus first).  A gap longer than a window -- a night, a weekend
  -- holds no partial match, so the time beyond one window of it is not counted: ``W * rate`` is
  then the number of events a window holds while the stream is live, which is what the cost models
  mean by it (with the whole span, NASDAQ's 5-minute bars gave about 7 times fewer).  On a replayed
  stream (:mod:`experiments.data.replay`) the live time is its span.  A type a pattern names but the
  stream lacks has rate 0.
* **Selectivity** of the conditions on a set of variables (MCEP Section 2: "the probability of the
  input tuple to successfully pass the condition"), keyed by the variables as in
  :class:`cep.Statistics`:
    - one variable ``u`` (a filter): the fraction of events of ``u``'s type that satisfy every
      condition on exactly ``{u}``;
    - two variables ``u, v``: the fraction of ordered pairs ``(x, y)`` of distinct events, ``x`` of
      ``u``'s type and ``y`` of ``v``'s type, lying within the pattern's window of each other
      (``|key(x) - key(y)| <= L`` as in :mod:`cep.semantics`), that satisfy every condition on
      exactly ``{u, v}``.
  When there are more than ``max_pairs`` candidates (events for a filter, pairs for a binary
  condition), a seeded uniform sample of ``max_pairs`` of them (with replacement) is evaluated.
  A pair set that is empty gives selectivity 1.0 (nothing to estimate from; the plan cost does not
  depend on it then).  Conditions over three or more variables are not estimated: give them in a
  statistics file.
  Division by zero makes a comparison false, as in the evaluators.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import numpy as np

from cep.columnar import EventColumns
from cep.conditions import ARITHMETIC_FUNCTIONS, Backend, Comparison, evaluate_comparison, selectivity_key
from cep.errors import StatisticsError, StreamError
from cep.events import EventStream
from cep.pattern import Pattern, Window, WindowKind
from cep.statistics import Statistics

DEFAULT_MAX_PAIRS = 100_000


def live_gap_limit(patterns: Sequence[Pattern]) -> float:
    """``L`` of the live time: the longest time window of the patterns (inf without one)."""
    spans = [p.window.size for p in patterns if p.window.kind is WindowKind.TIME]
    return max(spans) if spans else float("inf")


def live_seconds(ts: np.ndarray, gap_limit: float) -> float:
    """The live time of sorted timestamps: the sum of the gaps, each counted up to ``gap_limit``,
    rounded to the microsecond (so that sums taken in another order, as Spark's, agree exactly)."""
    return live_of_gaps(np.diff(ts), gap_limit) if len(ts) > 1 else 0.0


def live_of_gaps(gaps: np.ndarray, gap_limit: float) -> float:
    """:func:`live_seconds` of the timestamps whose consecutive gaps are ``gaps`` (overwritten: each
    gap becomes its part up to ``gap_limit``)."""
    return round(float(np.minimum(gaps, gap_limit, out=gaps).sum()), 6)


def as_columns(stream: EventColumns | EventStream) -> EventColumns:
    """The statistics read columns: a stream of event objects is converted once."""
    return stream if isinstance(stream, EventColumns) else EventColumns.from_events(stream)


def arrival_rates(stream: EventColumns | EventStream, extra_types: Iterable[str] = (), gap_limit: float = float("inf"),
                  *, live: float | None = None) -> dict[str, float]:
    """Events per second of live time by type (see the module docstring); ``live`` gives the live time
    (of a whole stream of which ``stream`` holds some types, e.g.
    :meth:`experiments.data.replay.ReplayPlan.live_seconds`) instead of measuring it on ``stream``."""
    cols = as_columns(stream)
    live = live_seconds(cols.ts, gap_limit) if live is None else live
    if live <= 0:
        raise StatisticsError(
            f"{cols.source}: the stream spans {cols.span_seconds} seconds ({len(cols)} events); rates need a positive span"
        )
    rates = {t: c / live for t, c in cols.type_counts().items()}
    for t in extra_types:
        rates.setdefault(t, 0.0)
    return rates


@dataclass(frozen=True)
class ConditionGroup:
    """The conditions of one pattern (``scope``) on exactly one set of variables (``key``)."""

    scope: int
    key: str
    vtypes: dict
    conditions: tuple
    window: Window


def condition_groups(patterns: Sequence[Pattern], *, per_pattern: bool = False) -> list[ConditionGroup]:
    """Group the patterns' conditions by variable set.  With ``per_pattern`` each pattern is its own
    scope; otherwise patterns share keys, which must then agree on types and window."""
    groups: dict[tuple[int, str], ConditionGroup] = {}
    for i, p in enumerate(patterns):
        scope = i if per_pattern else 0
        types = p.var_types()
        for c in p.conditions:
            vt = {v: types[v] for v in c.variables}
            g = groups.get((scope, c.key))
            if g is None:
                groups[(scope, c.key)] = ConditionGroup(scope, c.key, vt, (c,), p.window)
                continue
            if g.vtypes != vt:
                raise StatisticsError(
                    f"variables {c.key} have different event types in different patterns "
                    f"({g.vtypes} vs {vt}); estimate statistics per pattern"
                )
            if g.window != p.window:
                raise StatisticsError(f"variables {c.key} appear under different windows; estimate statistics per pattern")
            groups[(scope, c.key)] = ConditionGroup(scope, c.key, vt, g.conditions + (c,), g.window)
    for g in groups.values():
        if len(g.vtypes) > 2:
            raise StatisticsError(
                f"conditions over {len(g.vtypes)} variables ({g.key}) are not estimated; "
                "give their selectivity in a statistics file"
            )
    return list(groups.values())


class StreamColumns:
    """Per-type numpy arrays (positions, window keys, attributes) of a stream's columns, kept as read."""

    def __init__(self, stream: EventColumns | EventStream) -> None:
        self.stream = as_columns(stream)
        self._by_type = self.stream.positions_by_type()
        self._attr: dict[tuple[str, str], np.ndarray] = {}
        self.ts = self.stream.ts

    def positions(self, t: str) -> np.ndarray:
        return self._by_type.get(t, np.zeros(0, np.int64))

    def keys(self, t: str, kind: WindowKind) -> np.ndarray:
        pos = self.positions(t)
        return self.ts[pos] if kind is WindowKind.TIME else pos.astype(np.float64)

    def attr(self, t: str, name: str) -> np.ndarray:
        k = (t, name)
        if k not in self._attr:
            try:
                self._attr[k] = np.asarray(self.stream.values(name, self.positions(t)), dtype=np.float64)
            except StreamError:
                raise StatisticsError(f"{self.stream.source}: events of type {t!r} have no attribute {name!r}") from None
            except (TypeError, ValueError):
                raise StatisticsError(f"{self.stream.source}: attribute {name!r} of type {t!r} is not numeric") from None
        return self._attr[k]


_NUMPY_COMPARISON = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal, "=": np.equal, "!=": np.not_equal}


def eval_numpy(c: Comparison, column) -> np.ndarray:
    """Evaluate a comparison over aligned arrays; ``column(var, attr)`` returns an array.  A row
    whose evaluation divides by zero is false (its quotient is computed as 0 and then ignored)."""
    zero_divisors: list[np.ndarray] = []

    def divide(a, b):
        zero = np.asarray(b) == 0
        zero_divisors.append(zero)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(zero, 0.0, a / np.where(zero, 1.0, b))

    backend = Backend(
        const=lambda k: np.float64(k.value),
        neg=operator.neg,
        arithmetic={**ARITHMETIC_FUNCTIONS, "/": divide},
        comparison=_NUMPY_COMPARISON,
    )
    out = evaluate_comparison(c, lambda a: column(a.var, a.name), backend)
    for zero in zero_divisors:
        out = out & ~zero
    return np.asarray(out, dtype=bool)


def window_pairs(xk: np.ndarray, yk: np.ndarray, limit: float, same_type: bool):
    """For sorted key arrays, per x: [lo, hi) of y within ``limit``; counts exclude x itself when
    x and y come from the same type (the pair of an event with itself)."""
    lo = np.searchsorted(yk, xk - limit, side="left")
    hi = np.searchsorted(yk, xk + limit, side="right")
    counts = hi - lo - (1 if same_type else 0)
    return lo, hi, counts


def sample_pairs(xk, yk, limit: float, same_type: bool, max_pairs: int, seed: int):
    """Indices (into the x and y arrays) of every window pair, or of a seeded uniform sample of
    ``max_pairs`` of them (with replacement) when there are more."""
    lo, _, counts = window_pairs(xk, yk, limit, same_type)
    counts = np.maximum(counts, 0)
    total = int(counts.sum())
    if total == 0:
        return np.empty(0, np.int64), np.empty(0, np.int64), 0
    cum = np.cumsum(counts)
    if total <= max_pairs:
        g = np.arange(total, dtype=np.int64)
    else:
        g = np.sort(np.random.default_rng(seed).integers(0, total, size=max_pairs))
    xi = np.searchsorted(cum, g, side="right")
    offset = g - (cum[xi] - counts[xi])
    yj = lo[xi] + offset
    if same_type:
        yj = yj + (yj >= xi)  # skip the event itself: y index xi lies inside its own window
    return xi.astype(np.int64), yj.astype(np.int64), total


def estimate_statistics(
    stream: EventColumns | EventStream,
    patterns: Sequence[Pattern] = (),
    *,
    max_pairs: int = DEFAULT_MAX_PAIRS,
    seed: int = 0,
    live: float | None = None,
) -> Statistics:
    """Rates of every type in the stream (and in the patterns) and selectivities of the patterns'
    conditions (keys shared across patterns), by the definitions of this module's docstring; ``live``
    as in :func:`arrival_rates`."""
    return _estimate(stream, patterns, max_pairs, seed, per_pattern=False, live=live)[0]


def estimate_workload_statistics(
    stream: EventColumns | EventStream,
    patterns: Sequence[Pattern],
    *,
    max_pairs: int = DEFAULT_MAX_PAIRS,
    seed: int = 0,
    live: float | None = None,
) -> list[Statistics]:
    """One Statistics per pattern (shared rates, the pattern's own selectivities).  A pattern's
    selectivities read only the events of its own types, so a stream holding just those types gives
    the whole stream's, when ``live`` gives the whole stream's live time for the rates."""
    return _estimate(stream, patterns, max_pairs, seed, per_pattern=True, live=live)


def _estimate(stream, patterns, max_pairs, seed, per_pattern, live=None):
    cols = StreamColumns(stream)
    rates = arrival_rates(cols.stream, [t for p in patterns for t in p.event_types], live_gap_limit(patterns), live=live)
    n_scopes = len(patterns) if per_pattern else 1
    sels: list[dict[str, float]] = [{} for _ in range(n_scopes)]
    for g in condition_groups(patterns, per_pattern=per_pattern):
        sels[g.scope][g.key] = _selectivity(cols, g.vtypes, g.conditions, g.window, max_pairs, seed)
    return [Statistics(rates, s, source=cols.stream.source) for s in sels]


def _selectivity(cols: StreamColumns, vtypes: Mapping[str, str], conds, window, max_pairs: int, seed: int) -> float:
    vs = sorted(vtypes)
    if len(vs) == 1:
        (u,) = vs
        t = vtypes[u]
        n = len(cols.positions(t))
        if n == 0:
            return 1.0
        idx = np.arange(n) if n <= max_pairs else np.sort(np.random.default_rng(seed).integers(0, n, size=max_pairs))
        ok = np.ones(len(idx), dtype=bool)
        for c in conds:
            ok &= eval_numpy(c, lambda var, a: cols.attr(t, a)[idx])
        return float(ok.mean())
    if len(vs) == 2:
        u, v = vs
        tu, tv = vtypes[u], vtypes[v]
        xi, yj, total = sample_pairs(
            cols.keys(tu, window.kind), cols.keys(tv, window.kind), window.span_limit, tu == tv, max_pairs, seed
        )
        if total == 0:
            return 1.0
        idx = {u: (tu, xi), v: (tv, yj)}
        ok = np.ones(len(xi), dtype=bool)
        for c in conds:
            ok &= eval_numpy(c, lambda var, a: cols.attr(idx[var][0], a)[idx[var][1]])
        return float(ok.mean())
    raise AssertionError(f"condition_groups admits at most two variables, got {selectivity_key(vs)}")


def format_statistics(stats, meta: dict, top: int = 20) -> str:
    """Arrival rates (the ``top`` fastest types) and selectivities as text, under a line about the data."""
    rates = sorted(stats.rates.items(), key=lambda kv: (-kv[1], kv[0]))
    vals = np.array([r for _, r in rates]) if rates else np.zeros(1)
    lines = [
        f"dataset {meta['dataset']}: {meta['events']:,} events, {meta['event_types']} event types, "
        f"span {meta['span_seconds'] / 3600:.2f} h ({meta['engine']})",
        f"arrival rates (events/s): min {vals.min():.3g}, median {np.median(vals):.3g}, max {vals.max():.3g}",
    ]
    shown = rates if not top else rates[:top]
    width = max((len(t) for t, _ in shown), default=4)
    for t, r in shown:
        lines.append(f"  {t:<{width}}  {r:.6g}/s  ({r * 60:.4g}/min)")
    if top and len(rates) > top:
        lines.append(f"  ... {len(rates) - top} more (use --top 0 or --json for all)")
    if stats.selectivities:
        lines.append("selectivities:")
        for k, s in sorted(stats.selectivities.items()):
            lines.append(f"  {k:<12} {s:.6g}")
    return "\n".join(lines)
