"""What every trend aggregation engine shares: compiled queries, aggregate states, panes, result rows.

The semantics are defined once in :mod:`cep.trends`.  An engine gets a list of
:class:`~cep.trends.TrendQuery` and a stream, and returns a :class:`TrendResult` whose ``rows`` are one
per query, window and group (:func:`result_rows`); engines must agree on them exactly.

Aggregate state of a set of trends (HAMLET Section 2.1, computed incrementally as in GRETA): a list
``[count, acc_1, ..., acc_m]`` -- ``count`` the number of trends, one accumulator per distinct
``SUM``/``COUNT(v)`` (sums of value x count), ``MIN`` and ``MAX`` (least / greatest value); AVG is a
sum divided by a count.  States add (:meth:`Aggregates.add`); the compiled engines extend them by an
event (GRETA's Equation 2 generalised from counts to these aggregates, :func:`evaluators.trends.kernels.extend`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Sequence

from cep.conditions import Attr, Comparison, comparison_source
from cep.trends import TrendQuery, output_value, pane_size

INF = math.inf


def _filter_fn(conditions: Sequence[Comparison], required: Sequence[str], numeric: Sequence[str] = ()) -> Callable[[dict], bool]:
    """``f(attrs) -> bool``: every comparison holds, every required attribute is present and every
    ``numeric`` one is a number."""
    def render(a: Attr) -> str:
        return f"a[{a.name!r}]"

    parts = [comparison_source(c, render) for c in conditions]
    parts += [f"({r!r} in a)" for r in required]
    parts += [f"(type(a[{r!r}]) in (int, float))" for r in numeric]
    if not parts:
        return lambda a: True
    src = "def f(a):\n    try:\n        return bool(" + " and ".join(parts) + ")\n    except (KeyError, TypeError, ZeroDivisionError):\n        return False\n"
    ns: dict = {}
    exec(src, ns)  # noqa: S102 - source built from our own AST
    return ns["f"]


class Aggregates:
    """The accumulator layout of one query's RETURN clause and its arithmetic."""

    def __init__(self, q: TrendQuery) -> None:
        var_index = {e.var: i for i, e in enumerate(q.elements)}
        specs: list[tuple[str, int, str | None]] = []
        self.item_slots: list[tuple[str, int, int]] = []  # (kind, slot, slot2)

        def slot(kind: str, var: str, attr: str | None) -> int:
            key = (kind, var_index[var], attr)
            if key not in specs:
                specs.append(key)
            return 1 + specs.index(key)

        for it in q.items:
            if it.kind == "count_star":
                self.item_slots.append(("count_star", 0, 0))
            elif it.kind == "group":
                self.item_slots.append(("group", q.group_by.index(it.attr), 0))
            elif it.kind == "count":
                self.item_slots.append(("sum", slot("sum", it.var, None), 0))
            elif it.kind == "sum":
                self.item_slots.append(("sum", slot("sum", it.var, it.attr), 0))
            elif it.kind == "avg":
                self.item_slots.append(("avg", slot("sum", it.var, it.attr), slot("sum", it.var, None)))
            else:
                self.item_slots.append((it.kind, slot(it.kind, it.var, it.attr), 0))
        self.specs = specs
        self.kinds = [k for k, _, _ in specs]
        self.count_only = not specs
        # per element: the specs touching it, as (slot, kind, attr)
        self.by_element: dict[int, list[tuple[int, str, str | None]]] = {}
        for j, (kind, ei, attr) in enumerate(specs):
            self.by_element.setdefault(ei, []).append((j + 1, kind, attr))
        self.required = {ei: [a for _, _, a in lst if a is not None] for ei, lst in self.by_element.items()}

    def zero(self) -> list:
        z: list = [0]
        for k in self.kinds:
            z.append(0 if k == "sum" else (INF if k == "min" else -INF))
        return z

    def add(self, a: list, b: list) -> None:
        """a += b (in place): counts and sums add, MIN and MAX keep the extreme."""
        a[0] += b[0]
        for j, k in enumerate(self.kinds, 1):
            if k == "sum":
                a[j] += b[j]
            elif k == "min":
                if b[j] < a[j]:
                    a[j] = b[j]
            elif b[j] > a[j]:
                a[j] = b[j]

    def values(self, state: list, group: tuple) -> list:
        out = []
        for kind, a, b in self.item_slots:
            if kind == "count_star":
                out.append(state[0])
            elif kind == "group":
                out.append(group[a])
            elif kind == "avg":
                out.append(output_value(Fraction(state[a]) / state[b]) if state[b] else None)
            else:
                out.append(output_value(state[a]))
        return out


@dataclass
class CompiledQuery:
    """A trend query prepared for execution against a pane size: matching functions per element and
    negation, partition key, and the window geometry in panes."""

    index: int
    query: TrendQuery
    pane: Fraction
    types: list[str] = field(default_factory=list)
    kleene: list[bool] = field(default_factory=list)
    filters: list[Callable[[dict], bool]] = field(default_factory=list)
    elem_of_type: dict[str, int] = field(default_factory=dict)
    negs_of_type: dict[str, list[tuple[int, Callable[[dict], bool]]]] = field(default_factory=dict)
    gap_negs: dict[int, bool] = field(default_factory=dict)
    L: int = 1
    sigma: int = 1
    agg: Aggregates | None = None

    @classmethod
    def build(cls, index: int, q: TrendQuery, pane: Fraction) -> "CompiledQuery":
        cq = cls(index, q, pane)
        cq.agg = Aggregates(q)
        part = q.partition_attributes
        for i, e in enumerate(q.elements):
            cq.types.append(e.type)
            cq.kleene.append(e.kleene)
            cq.filters.append(_filter_fn(e.conditions, part, cq.agg.required.get(i, [])))
            cq.elem_of_type[e.type] = i
        for n in q.negations:
            cq.negs_of_type.setdefault(n.type, []).append((n.after, _filter_fn(n.conditions, part)))
            cq.gap_negs[n.after] = True
        L = q.window / pane
        sg = q.slide / pane
        assert L.denominator == 1 and sg.denominator == 1
        cq.L, cq.sigma = int(L), int(sg)
        return cq

    def partition_key(self, attrs: dict) -> tuple:
        return tuple(attrs[a] for a in self.query.partition_attributes)

    def group_of(self, key: tuple) -> tuple:
        return key[: len(self.query.group_by)]

    def windows_of_span(self, sp: int, ep: int) -> range:
        """Every window k that holds panes sp..ep: k*sigma <= sp and ep < k*sigma + L."""
        lo = -((-(ep - self.L + 1)) // self.sigma)  # ceil((ep-L+1)/sigma)
        hi = sp // self.sigma
        return range(lo, hi + 1)


def compile_queries(queries: Sequence[TrendQuery]) -> tuple[Fraction, list[CompiledQuery]]:
    p = pane_size(queries)
    return p, [CompiledQuery.build(i, q, p) for i, q in enumerate(queries)]


def pane_of(ts: float, pane: Fraction) -> int:
    return math.floor(Fraction(ts) / pane)


class PaneClock:
    """``pane_of`` for non-decreasing timestamps: exact, with a float fast path inside the current pane
    (bounds nudged one ulp inwards, so a float test never disagrees with the exact one)."""

    def __init__(self, pane: Fraction) -> None:
        self.p = pane
        self.cur = None
        self.lo = self.hi = 0.0

    def __call__(self, ts: float) -> int:
        if self.lo < ts < self.hi:
            return self.cur
        c = self.cur = math.floor(Fraction(ts) / self.p)
        self.lo = math.nextafter(float(c * self.p), math.inf)
        self.hi = math.nextafter(float((c + 1) * self.p), -math.inf)
        return c


@dataclass
class TrendResult:
    """What an engine returns: per query, ``{(window k, group): state}``; metrics beside."""

    queries: list[TrendQuery]
    compiled: list[CompiledQuery]
    states: list[dict]
    engine: str
    events: int = 0
    seconds: float = 0.0
    latencies_ms: list[float] = field(default_factory=list)
    peak_memory_bytes: int | None = None
    snapshots: int = 0
    extra: dict = field(default_factory=dict)

    def rows(self) -> list[list]:
        return result_rows(self.compiled, self.states)

    def as_dict(self) -> dict:
        """Exact results: {(query, window start, window end, group): [values]}."""
        return {(r[0], r[1], r[2], r[3]): r[4:] for r in self.rows()}


def result_rows(compiled: Sequence[CompiledQuery], states: Sequence[dict]) -> list[list]:
    rows = []
    for cq, st in zip(compiled, states):
        q = cq.query
        for (k, group), state in sorted(st.items(), key=lambda kv: (kv[0][0], repr(kv[0][1]))):
            if not state or state[0] == 0:
                continue
            start = k * q.slide
            rows.append([cq.index, output_value(start), output_value(start + q.window), group] + cq.agg.values(state, group))
    return rows


def add_result(cq: CompiledQuery, states: dict, group: tuple, sp: int, ep: int, state) -> None:
    """Add the state of trends starting in pane sp and ending in pane ep to every window holding both."""
    agg = cq.agg
    for k in cq.windows_of_span(sp, ep):
        key = (k, group)
        cur = states.get(key)
        if cur is None:
            states[key] = list(state) if isinstance(state, list) else [state]
        elif isinstance(state, list):
            agg.add(cur, state)
        else:
            cur[0] += state


def kernel_latencies(cycles, kernel_s: float, elapsed: float, decided=None) -> list[float]:
    """Per timestamp group, milliseconds: the compiled kernels' cycles on it at the run's own seconds per
    cycle (``kernel_s`` over all cycles), the seconds ``decided`` there (HAMLET's sharing decisions), and an
    equal share of the rest of the run (building tables, decoding results; all kernel time too when no
    cycles were counted, :data:`evaluators.trends.kernels.HAS_CYCLES`)."""
    n = len(cycles)
    total = int(cycles.sum())
    own = float(decided.sum()) if decided is not None else 0.0
    per_cycle = kernel_s / total if total else 0.0
    rest = max(elapsed - own - (kernel_s if total else 0.0), 0.0) / max(n, 1)
    lat = cycles * per_cycle + rest
    if decided is not None:
        lat = lat + decided
    return (lat * 1000.0).tolist()


class Clock:
    """Wall-clock bookkeeping of one run: total seconds and per-window result latencies."""

    def __init__(self) -> None:
        self.t0 = time.perf_counter()
        self.latencies_ms: list[float] = []

    def elapsed(self) -> float:
        return time.perf_counter() - self.t0
