"""``evaluate``: run a pattern's plan over a stream and measure it.

    result = evaluate(pattern, plan, events, evaluator="auto")
    result.matches   # list[cep.Match], in the canonical order of cep.semantics
    result.metrics   # see METRIC_NAMES

``events`` is an :class:`~cep.events.EventStream` (or any iterable of events), an
:class:`~cep.columnar.EventColumns`, or a zero-argument callable returning either -- e.g.
``lambda: read_nasdaq_text_columns(path)``.  The whole stream enters the evaluator, which discards
the events of types its pattern does not mention; encoding the plan happens before and is not
timed (like planning).  The kernel itself is compiled once per machine and loaded from numba's
disk cache (:mod:`evaluators.kernel`).

Metrics (JQPG Section 6.2):
  * ``events``: events in the stream (of every type);
  * ``decode_s``: time to turn the input into columns (calling a loader, decoding a file,
    converting event objects), timed apart from detection;
  * ``elapsed_s``: detection time, from the columns to the last reported match (discarding the
    events of other types included); ``work``: the candidate combinations the joins examined;
    ``partial_matches_created``: every partial match the run created, live, expired or purged
    (the kernel's ``C_CREATED`` counter, :mod:`evaluators.kernel`);
  * ``throughput_eps``: ``events / elapsed_s``, over the whole stream;
  * ``peak_partial_matches``: the largest number of live partial matches (instances of two or more
    events, and Kleene subsets) after any event; ``peak_buffered_events``: the same for the events
    buffered for later joins; ``peak_state``: the largest sum of the two -- counted the same way on
    both evaluators (:mod:`evaluators.join_plan`); ``mean_partial_matches``: the live partial
    matches averaged over the events of the pattern's types (what JQPG's cost models estimate:
    the partial matches "expected to exist simultaneously");
  * ``peak_memory_bytes``: the peak bytes of that state -- the live rows of the stores, 4 bytes per
    int32 column, a Kleene subset with its 16-byte pool entry (:mod:`evaluators.kernel`, "State
    metering") -- counted in the timed run (two integer additions per row created or dropped); the
    input, the reported matches, hash buckets, negation buffers and parked matches are not counted;
    ``None`` with ``measure_memory=False``;
  * ``latency_ms_mean`` / ``latency_ms_p95``: per match, from the moment its last event was taken
    from the stream to the moment it was reported (JQPG Section 5.1); ``None`` without matches;
  * ``latency_work_mean``: the same latency counted as work, the measured counterpart of JQPG 5.1's
    ``Cost_lat`` (see :func:`latency_work_mean`); ``None`` without matches.

A run stops with :class:`cep.PartialMatchLimitError` as soon as the live partial matches exceed
``max_partial_matches`` (default :data:`DEFAULT_MAX_PARTIAL_MATCHES`; ``None``: no cap), instead of
exhausting memory, and with :class:`cep.WorkLimitError` once its joins have examined more than
``max_work`` candidate combinations (default ``None``: no cap) -- a deterministic bound on the run's
work, where a plan keeps few partial matches but scans large ones many times; both errors carry the
stream events processed before the event that crossed the cap (``processed``).

The matches are reported by the kernel as rows of stream positions; ``result.matches`` builds the
:class:`cep.Match` values from them when first read, outside the timed span.  ``result.program`` is the
plan encoded as the arrays the kernel interprets (:mod:`evaluators.program`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Union

import numpy as np

from cep.columnar import EventColumns
from cep.dnf import to_dnf
from cep.errors import ConfigError, PlanError
from cep.events import Event
from cep.matches import Match
from cep.metrics import EVALUATION
from cep.pattern import Pattern
from cep.plans import OrderPlan, PatternPlan, TreePlan

import evaluators.nfa as nfa
import evaluators.tree as tree
import evaluators.runtime as runtime
from evaluators.program import Program, build_program
from evaluators.timing import no_cyclic_gc

#: evaluator name -> builder of a clause's join plan (the one registry of evaluators)
EVALUATORS: dict[str, Callable] = {nfa.NAME: nfa.join_plan, tree.NAME: tree.join_plan}

METRIC_NAMES = EVALUATION

DEFAULT_MAX_PARTIAL_MATCHES = 1_000_000

Events = Union[EventColumns, Iterable[Event], Callable[[], Union[EventColumns, Iterable[Event]]]]


def evaluator_names() -> list[str]:
    return list(EVALUATORS)


def default_evaluator(plan: PatternPlan) -> str:
    """The tree evaluator for tree plans, the lazy NFA for order plans."""
    return tree.NAME if isinstance(plan.plans[0], TreePlan) else nfa.NAME


@dataclass
class EvaluationResult:
    """``matches`` (built from the kernel's rows when first read), ``metrics``, the evaluator's name and
    the program it ran."""

    metrics: dict
    evaluator: str
    program: Program = field(repr=False)
    outcome: runtime.Outcome | None = field(default=None, repr=False)
    _matches: list[Match] | None = field(default=None, repr=False)

    @property
    def matches(self) -> list[Match]:
        if self._matches is None:
            self._matches = runtime.matches_of(self.program, self.outcome) if self.outcome is not None else []
        return self._matches


def compile_evaluator(pattern: Pattern, plan: PatternPlan, evaluator: str = "auto") -> Program:
    """Check the plan against the pattern and encode it for the kernel (untimed)."""
    clauses = to_dnf(pattern)
    if isinstance(plan, (OrderPlan, TreePlan)):
        plan = PatternPlan((plan,))
    if len(plan.plans) != len(clauses):
        raise PlanError(f"the plan has {len(plan.plans)} clause plan(s) but the pattern has {len(clauses)} DNF clause(s)")
    name = default_evaluator(plan) if evaluator == "auto" else evaluator
    if name not in EVALUATORS:
        raise ConfigError(f"unknown evaluator {evaluator!r}; known: auto, {', '.join(EVALUATORS)}")
    build = EVALUATORS[name]
    orders = [p.order for p in plan.plans] if all(isinstance(p, OrderPlan) for p in plan.plans) else None
    return build_program([build(sp, p) for sp, p in zip(clauses, plan.plans)], kind=name, orders=orders)


def evaluate(
    pattern: Pattern,
    plan: PatternPlan,
    events: Events,
    *,
    evaluator: str = "auto",
    max_partial_matches: int | None = DEFAULT_MAX_PARTIAL_MATCHES,
    max_work: int | None = None,
    measure_memory: bool = True,
    collect_matches: bool = True,
) -> EvaluationResult:
    """Detect ``pattern`` on ``events`` with ``plan`` (see the module docstring)."""
    program = compile_evaluator(pattern, plan, evaluator)
    return run_program(
        program,
        events,
        max_partial_matches=max_partial_matches,
        max_work=max_work,
        measure_memory=measure_memory,
        collect_matches=collect_matches,
    )


def run_program(
    program: Program,
    events: Events,
    *,
    max_partial_matches: int | None = DEFAULT_MAX_PARTIAL_MATCHES,
    max_work: int | None = None,
    measure_memory: bool = True,
    collect_matches: bool = True,
) -> EvaluationResult:
    cap = float("inf") if max_partial_matches is None else max_partial_matches
    wcap = float("inf") if max_work is None else max_work
    t_decode = time.perf_counter()
    cols = _as_columns(events() if callable(events) else events)
    decode_s = time.perf_counter() - t_decode
    runtime.warm_up(program)
    with no_cyclic_gc():
        t_start = time.perf_counter()
        out = runtime.run(program, runtime.prepare(program, cols), cap=cap, work_cap=wcap, collect=collect_matches)
        elapsed = time.perf_counter() - t_start
    runtime.raise_if_capped(program, out, cap, wcap)
    lat = out.latencies
    lat_mean, lat_p95 = latency_summary(list(zip((lat[:, 0] / 1e9).tolist(), lat[:, 1].tolist())) if len(lat) else [])
    n_pattern_events = out.pattern_events
    metrics = {
        "events": len(cols),
        "matches": out["C_MATCHES"],
        "throughput_eps": len(cols) / elapsed if elapsed > 0 else float("inf"),
        "elapsed_s": elapsed,
        "decode_s": decode_s,
        "work": out["C_WORK"],
        "partial_matches_created": out["C_CREATED"],
        "peak_partial_matches": out["C_PEAK"],
        "mean_partial_matches": out["C_TOT"] / n_pattern_events if n_pattern_events else 0.0,
        "peak_buffered_events": out["C_PEAKB"],
        "peak_state": out["C_PEAKS"],
        "peak_memory_bytes": out["C_PEAKBYTES"] if measure_memory else None,
        "latency_ms_mean": lat_mean,
        "latency_ms_p95": lat_p95,
        "latency_work_mean": latency_work_mean(out["C_LATWORK"], out["C_MATCHES"]),
    }
    return EvaluationResult(metrics, program.kind, program, out if collect_matches else None)


def latency_summary(latencies: list[tuple[float, int]]) -> tuple[float | None, float | None]:
    """Mean and 95th percentile in milliseconds of latencies given as (seconds, how many matches)
    pairs (the matches of one batch are reported at once); the percentile is the smallest latency
    that at least 95% of the matches do not exceed.  ``(None, None)`` without matches."""
    if not latencies:
        return None, None
    lat = np.asarray([x for x, _ in latencies], dtype=np.float64) * 1000.0
    w = np.asarray([k for _, k in latencies], dtype=np.float64)
    order = np.argsort(lat, kind="stable")
    cum = np.cumsum(w[order])
    i = int(np.searchsorted(cum, 0.95 * cum[-1]))
    return float((lat * w).sum() / w.sum()), float(lat[order][min(i, len(lat) - 1)])


def latency_work_mean(total: int, matches: int) -> float | None:
    """The mean latency work per reported match: ``total`` summed over the ``matches`` reported.

    JQPG 5.1 defines latency as "the difference between the arrival time of the last event comprising
    a full match and the time of reporting this match", and models it by the work on the match's way
    once that event arrives: ``Cost_lat_ord`` counts the buffered events of the types that follow
    ``T_n`` in the order, ``Cost_lat_tree`` the partial matches buffered on the siblings of the nodes on
    the path from ``T_n``'s leaf to the root ("when an internal node N [...] receives a partial match
    from, say, the child L, it compares this match to all partial matches currently buffered on R").
    The *latency work* of a match counts that work as the evaluator did it: the join candidates examined
    (the ``work`` counter) by the joins that built the match after its last-arriving event was taken
    from the stream -- at each level of its path, the sibling candidates its partial match was
    compared with.  The scans of other partial matches the same event created (the fan-out, which
    neither cost model counts) are not on its path.  A match parked for negation, held until no later
    event can kill it, also gets the work of the events processed until its release.  Deterministic:
    the same plan on the same stream gives the same value on every run."""
    return total / matches if matches else None


def _as_columns(events) -> EventColumns:
    if isinstance(events, EventColumns):
        return events
    return EventColumns.from_events(events)
