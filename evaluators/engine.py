"""``evaluate``: run a pattern's plan over a stream and measure it.

    result = evaluate(pattern, plan, events, evaluator="auto")
    result.matches   # list[cep.Match], in the canonical order of cep.semantics
    result.metrics   # see METRIC_NAMES

``events`` is an :class:`~cep.events.EventStream` (or any iterable of events), an
:class:`~cep.columnar.EventColumns`, or a zero-argument callable returning either -- e.g.
``lambda: read_nasdaq_text_columns(path)``.  The whole stream enters the evaluator, which discards
the events of types its pattern does not mention; compiling the plan happens before and is not
timed (like planning).

Metrics (JQPG Section 6.2):
  * ``events``: events in the stream (of every type);
  * ``decode_s``: time to turn the input into columns (calling a loader, decoding a file,
    converting event objects), timed apart from detection;
  * ``elapsed_s``: detection time, from the columns to the last reported match (discarding the
    events of other types included); ``work``: the candidate combinations the joins examined;
    ``partial_matches_created``: every partial match the run created, live, expired or purged
    (:meth:`evaluators.runtime.Runtime.partial_matches_created`);
  * ``throughput_eps``: ``events / elapsed_s``, over the whole stream;
  * ``peak_partial_matches``: the largest number of live partial matches (instances of two or more
    events, and Kleene subsets) after any event; ``peak_buffered_events``: the same for the events
    buffered for later joins; ``peak_state``: the largest sum of the two -- counted the same way on
    both evaluators (:mod:`evaluators.join_plan`); ``mean_partial_matches``: the live partial
    matches averaged over the events of the pattern's types (what JQPG's cost models estimate:
    the partial matches "expected to exist simultaneously");
  * ``peak_memory_bytes``: the peak bytes of that state -- each entry's list slot, its tuple and
    the event index it keeps alive, as CPython lays them out (:mod:`evaluators.codegen`) -- metered
    in a second, untimed run (metering slows the loop, so it must not touch the timed run); the
    input, the reported matches and the interpreter are not counted; ``None`` with
    ``measure_memory=False``;
  * ``latency_ms_mean`` / ``latency_ms_p95``: per match, from the moment its last event was taken
    from the stream to the moment it was reported (JQPG Section 5.1); ``None`` without matches;
  * ``latency_work_mean``: the same latency counted as work, the measured counterpart of JQPG 5.1's
    ``Cost_lat`` (see :func:`latency_work_mean`); ``None`` without matches.

A run stops with :class:`cep.PartialMatchLimitError` as soon as the live partial matches exceed
``max_partial_matches`` (default :data:`DEFAULT_MAX_PARTIAL_MATCHES`; ``None``: no cap), instead of
exhausting memory, and with :class:`cep.WorkLimitError` once its joins have examined more than
``max_work`` candidate combinations (default ``None``: no cap) -- a deterministic bound on the run's
work, where a plan keeps few partial matches but scans large ones many times.  ``result.program.source`` is the generated hot loop (:mod:`evaluators.codegen`).
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
from evaluators.codegen import Program, compile_program
from evaluators.runtime import Runtime, prepare
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
    matches: list[Match]
    metrics: dict
    evaluator: str
    program: Program = field(repr=False)


def compile_evaluator(pattern: Pattern, plan: PatternPlan, evaluator: str = "auto") -> Program:
    """Check the plan against the pattern and compile the evaluator's hot loop (untimed)."""
    clauses = to_dnf(pattern)
    if isinstance(plan, (OrderPlan, TreePlan)):
        plan = PatternPlan((plan,))
    if len(plan.plans) != len(clauses):
        raise PlanError(f"the plan has {len(plan.plans)} clause plan(s) but the pattern has {len(clauses)} DNF clause(s)")
    name = default_evaluator(plan) if evaluator == "auto" else evaluator
    if name not in EVALUATORS:
        raise ConfigError(f"unknown evaluator {evaluator!r}; known: auto, {', '.join(EVALUATORS)}")
    build = EVALUATORS[name]
    return compile_program([build(sp, p) for sp, p in zip(clauses, plan.plans)], kind=name)


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
    with no_cyclic_gc():
        t_start = time.perf_counter()
        rt = Runtime(program, prepare(program, cols), cap=cap, collect_matches=collect_matches, work_cap=wcap)
        rt.run()
        elapsed = time.perf_counter() - t_start
    peak_bytes = _state_bytes(program, cols, cap) if measure_memory else None
    lat_mean, lat_p95 = latency_summary(rt.latencies)
    metrics = {
        "events": len(cols),
        "matches": rt.n_matches,
        "throughput_eps": len(cols) / elapsed if elapsed > 0 else float("inf"),
        "elapsed_s": elapsed,
        "decode_s": decode_s,
        "work": rt.work,
        "partial_matches_created": rt.partial_matches_created(),
        "peak_partial_matches": rt.peak,
        "mean_partial_matches": rt.tot / rt.n if rt.n else 0.0,
        "peak_buffered_events": rt.peakb,
        "peak_state": rt.peaks,
        "peak_memory_bytes": peak_bytes,
        "latency_ms_mean": lat_mean,
        "latency_ms_p95": lat_p95,
        "latency_work_mean": latency_work_mean(rt.latency_work, rt.n_matches),
    }
    return EvaluationResult(rt.matches, metrics, program.kind, program)


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

    JQPG 5.1 defines latency as "the difference between the arrival time of the last event
    comprising a full match and the time of reporting this match", and models it by the work the
    plan still has to do once that event arrives: ``Cost_lat_ord`` counts the buffered events of the
    types that follow ``T_n`` in the order, ``Cost_lat_tree`` the partial matches buffered on the
    siblings of the path from ``T_n``'s leaf to the root.  The *latency work* of a match counts that
    work as the evaluator did it: the join candidates examined (the ``work`` counter, every entry of
    a sibling list a join scans) from the moment the match's last-arriving event is taken from the
    stream until the match is reported.  It includes the scan of the partial matches waiting for
    that event (in the lazy NFA: the instances in its state) and, for each new partial match, the
    scans of the buffers and sibling nodes above it (the plan's later states); every partial match
    created on the way was first a candidate, so it is counted there.  A match reported when its
    last event's block ends (every match without negation) gets the work of that event's join
    paths -- all of them: the matches an event completes are reported together, after the whole
    event, as the wall-clock latency measures them; a match with negation, parked until no later
    event can kill it, also gets the work of the events processed until its release.  Deterministic:
    the same plan on the same stream gives the same value on every run."""
    return total / matches if matches else None


def _as_columns(events) -> EventColumns:
    if isinstance(events, EventColumns):
        return events
    return EventColumns.from_events(events)


def _state_bytes(program: Program, cols: EventColumns, cap: float) -> int:
    """The peak bytes of the evaluator's state -- buffered events and partial matches, each its list
    slot, its tuple and the event index it keeps alive (:mod:`evaluators.codegen`) -- in a second,
    untimed run of the plan compiled with byte metering."""
    metered = compile_program(program.plans, kind=program.kind, meter=True)
    with no_cyclic_gc():
        rt = Runtime(metered, prepare(metered, cols), cap=cap, collect_matches=False, record_latency=False)
        rt.run()
    return int(rt.peakbytes)
