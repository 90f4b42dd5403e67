"""``evaluate_workload``: run a workload's global plan over a stream and measure it.

    result = evaluate_workload(patterns, global_plan, events)
    result.counts               # matches per pattern, in workload order
    result.matches_by_pattern   # lists of cep.Match (with collect_matches=True)
    result.metrics              # events, matches, matches_by_pattern, throughput_eps, elapsed_s,
                                # peak_partial_matches, nodes

``events`` is an :class:`~cep.events.EventStream`, a list of events, an
:class:`~cep.columnar.EventColumns`, or a zero-argument callable returning one of them.  An MPT runs
on the multi-pattern NFA, an MPM on the multi-pattern tree evaluator.  Compiling the plan is untimed;
``elapsed_s`` is the detection loop over every event of the stream.

:func:`evaluate_segments` runs a stream whose plan changes between segments (adaptive re-planning,
MCEP 6.2.3) and reports exactly the matches one pass of any single plan reports.
"""

from __future__ import annotations

import bisect
import itertools
from typing import Sequence

from cep.columnar import EventColumns
from cep.errors import PlanError
from cep.events import Event, EventStream
from cep.global_plans import GlobalPlan, MultiPatternMultitree, MultiPatternTree
from cep.pattern import WindowKind

import evaluators.multi.nfa as nfa
import evaluators.multi.tree as tree
from evaluators.multi.runtime import MultiResult, MultiRuntime

#: evaluator name -> (global plan class it runs)
MULTI_EVALUATORS: dict[str, type] = {nfa.NAME: MultiPatternTree, tree.NAME: MultiPatternMultitree}


def compile_workload(patterns: Sequence, gplan: GlobalPlan) -> MultiRuntime:
    for name, cls in MULTI_EVALUATORS.items():
        if isinstance(gplan, cls):
            return MultiRuntime(patterns, gplan, name=name)
    raise PlanError(f"no multi-pattern evaluator runs a {type(gplan).__name__}")


def _as_stream(events) -> EventStream:
    if callable(events):
        events = events()
    if isinstance(events, EventColumns):
        return events.to_stream()
    if isinstance(events, EventStream):
        return events
    return EventStream(list(events))


def evaluate_workload(patterns: Sequence, gplan: GlobalPlan, events, *, collect_matches: bool = True,
                      max_partial_matches: int | None = 1_000_000, max_work: int | None = None) -> MultiResult:
    """Detect every pattern of the workload with the global plan (see the module docstring)."""
    rt = compile_workload(patterns, gplan)
    stream = _as_stream(events)
    return rt.run(stream, collect_matches=collect_matches, max_partial_matches=max_partial_matches, max_work=max_work)


def segment_bounds(clauses, ts: Sequence[float], a: int, b: int) -> tuple[int, int]:
    """The slice ``[lo, hi)`` of the stream a plan must see to report exactly the matches whose last
    positive event lies in ``[a, b)``.

    * Back: every event a match ending at ``a`` or later may bind, or a negation check of it may
      look at, is within the widest window before ``a`` -- timestamps ``>= ts[a] - W`` for time windows
      (:attr:`cep.pattern.Window.span_limit`, inclusive), positions ``>= a - W`` for count windows.
    * Forward (only when some clause negates an event): a match held for its negation check is
      released at the first event past its threshold (``cep.semantics``: the last positive event, or the
      window's end for a negation that may follow it), at the latest the first event with timestamp
      ``> ts[b-1] + W`` and position ``>= b + W``; the slice runs to there so that it sees the same
      negated events as one pass over the whole stream.
    """
    n = len(ts)
    w_t = max((sp.window.span_limit for sp in clauses.values() if sp.window.kind is WindowKind.TIME), default=None)
    w_c = max((int(sp.window.size) for sp in clauses.values() if sp.window.kind is WindowKind.COUNT), default=None)
    lo = a
    if w_t is not None:
        lo = min(lo, bisect.bisect_left(ts, ts[a] - w_t))
    if w_c is not None:
        lo = min(lo, max(0, a - w_c))
    hi = b
    if b > a and any(sp.negated for sp in clauses.values()):
        hi = max(hi, bisect.bisect_right(ts, ts[b - 1] + (w_t or 0.0)), b + (w_c or 0))
    return lo, min(hi, n)


def evaluate_segments(patterns: Sequence, segments: Sequence[tuple[int, GlobalPlan]], events, *,
                      max_partial_matches: int | None = 1_000_000, max_work: int | None = None) -> MultiResult:
    """Run a stream under a plan that changes: ``segments`` lists ``(start, plan)`` by increasing
    start (the first at 0), each plan in force from its start to the next one.

    The standard overlap (replay) hand-over: the plan of segment ``[a, b)`` runs over the slice
    :func:`segment_bounds` gives -- the widest window of events before ``a`` replayed to rebuild its
    partial matches, and, when a pattern negates an event, the events after ``b`` that release its held
    matches -- and reports only the matches whose last positive event lies in ``[a, b)``.  Every match
    has exactly one last event, so the per-pattern counts are those of one pass of any plan over the
    whole stream (skip-till-next-match, which selects over the whole stream, is refused).  Metrics sum
    over segments (``elapsed_s`` includes the replayed events; ``events`` counts each event once;
    ``replayed_events`` the extra ones); the work limit is shared by all segments.
    """
    stream = _as_stream(events)
    n = len(stream)
    if not segments or segments[0][0] != 0 or any(x[0] >= y[0] for x, y in itertools.pairwise(segments)):
        raise PlanError("segments must start at 0 and have increasing starts")
    ts = [e.ts for e in stream]
    bounds = [s for s, _ in segments[1:]] + [n]
    counts = [0] * len(patterns)
    found: list[list] = [[] for _ in patterns]
    elapsed = peak = work = replayed = 0
    nodes = 0
    name = ""
    for (a, g), b in zip(segments, bounds):
        if a >= n:
            break
        rt = compile_workload(patterns, g)
        lo, hi = segment_bounds(g.clauses, ts, a, b)
        part = EventStream([Event(e.type, e.ts, e.attrs) for e in stream.events[lo:hi]], stream.source)
        left = None if max_work is None else max(0, max_work - work)
        res = rt.run(part, collect_matches=False, max_partial_matches=max_partial_matches, max_work=left,
                     count_from=a - lo, count_to=b - lo)
        for i, c in enumerate(res.counts):
            counts[i] += c
        m = res.metrics
        elapsed += m["elapsed_s"]
        peak = max(peak, m["peak_partial_matches"])
        work += m["work"]
        replayed += (hi - lo) - (b - a)
        nodes = max(nodes, m["nodes"])
        name = res.evaluator
    metrics = {
        "events": n, "matches": sum(counts), "matches_by_pattern": list(counts),
        "throughput_eps": n / elapsed if elapsed > 0 else float("inf"), "elapsed_s": elapsed,
        "peak_partial_matches": peak, "work": work, "nodes": nodes, "segments": len(segments),
        "replayed_events": replayed,
    }
    return MultiResult(found, counts, metrics, name, "")
