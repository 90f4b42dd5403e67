"""``evaluate_workload``: run a workload's global plan over a stream and measure it.

    result = evaluate_workload(patterns, global_plan, events)
    result.counts               # matches per pattern, in workload order
    result.matches_by_pattern   # lists of cep.Match (with collect_matches=True)
    result.metrics              # events, matches, matches_by_pattern, throughput_eps, elapsed_s,
                                # peak_partial_matches, nodes

``events`` is an :class:`~cep.events.EventStream`, a list of events, an
:class:`~cep.columnar.EventColumns`, or a zero-argument callable returning one of them.  An MPT runs
on the multi-pattern NFA, an MPM on the multi-pattern tree evaluator.  Encoding the plan and the
stream as arrays is untimed (the stream's is ``decode_s``); ``elapsed_s`` is the detection loop over
every event of the stream.

:func:`evaluate_segments` runs a stream whose plan changes between segments (adaptive re-planning,
MCEP 6.2.3) by plan migration without replay, and reports exactly the matches one pass of any single
plan reports.
"""

from __future__ import annotations

import bisect
import itertools
import time
from typing import Sequence

from cep.errors import EvaluationLimitError, PlanError
from cep.global_plans import GlobalPlan, MultiPatternMultitree, MultiPatternTree
from cep.matches import Match
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


def evaluate_workload(patterns: Sequence, gplan: GlobalPlan, events, *, collect_matches: bool = True,
                      max_partial_matches: int | None = 1_000_000, max_work: int | None = None) -> MultiResult:
    """Detect every pattern of the workload with the global plan (see the module docstring)."""
    rt = compile_workload(patterns, gplan)
    return rt.run(events, collect_matches=collect_matches, max_partial_matches=max_partial_matches, max_work=max_work)


def _widest(clauses) -> tuple[float | None, int | None]:
    """The widest time window (seconds, the larger of its size and span limit) and count window
    (events) among ``clauses``, ``None`` when there is none of that kind."""
    w_t = max((max(sp.window.size, sp.window.span_limit) for sp in clauses.values()
               if sp.window.kind is WindowKind.TIME), default=None)
    w_c = max((int(sp.window.size) for sp in clauses.values() if sp.window.kind is WindowKind.COUNT), default=None)
    return w_t, w_c


def switch_point(ts: Sequence[float], t: int) -> int:
    """The first position ``>= t`` that does not split the events of one timestamp (where a plan
    migration may switch; ``len(ts)`` when there is none)."""
    while 0 < t < len(ts) and ts[t - 1] == ts[t]:
        t += 1
    return min(t, len(ts))


def migration_bounds(clauses, ts: Sequence[float], a: int, b: int) -> tuple[int, int]:
    """The slice ``[lo, hi)`` of the stream the plan in force from ``a`` until the switch at ``b``
    keeps: it reports the matches whose first event lies in ``[a, b)``.

    * Forward: every event such a match may bind, or a negation check of it may look at, lies within
      the widest window after its first event -- timestamps ``<= ts[b-1] + W`` for time windows,
      positions ``< b + W`` for count windows; past there every partial match the plan could still
      complete has expired and the plan stops (it ran side by side with the next one from ``b``).
    * Back: the plan enters the events from ``a`` on only.  A negated event that no positive event
      must precede (a leading NOT, a NOT under AND) may lie before a match's first event,
      so when some clause has one, the widest window before ``a`` is in the slice for negation checks
      alone (:meth:`evaluators.multi.runtime.MultiRuntime.run`'s ``scan_from``: no plan enters it).
    """
    n = len(ts)
    w_t, w_c = _widest(clauses)
    lo = a
    if a > 0 and any(not (sp.preds[x] & set(sp.positive)) for sp in clauses.values() for x in sp.negated):
        if w_t is not None:
            lo = min(lo, bisect.bisect_left(ts, ts[a] - w_t))
        if w_c is not None:
            lo = min(lo, max(0, a - w_c))
    hi = n
    if b < n:
        hi = b
        if w_t is not None:
            hi = max(hi, bisect.bisect_right(ts, ts[b - 1] + w_t))
        if w_c is not None:
            hi = max(hi, b + w_c)
    return lo, min(hi, n)


def evaluate_segments(patterns: Sequence, segments: Sequence[tuple[int, GlobalPlan]], events, *,
                      collect_matches: bool = False, max_partial_matches: int | None = 1_000_000, max_work: int | None = None) -> MultiResult:
    """Run a stream under a plan that changes: ``segments`` lists ``(start, plan)`` by increasing
    start (the first at 0), each plan in force from its start to the next one.

    Plan migration without replay (the parallel track of dynamic plan migration, Zhu, Rundensteiner
    and Heineman, SIGMOD 2004; MCEP 3 re-plans "when a significant change is detected"): at a switch
    ``b`` the new plan starts on the events from ``b`` on, with no partial match and no history; the
    old plan keeps running beside it until every partial match it could still complete has expired
    (:func:`migration_bounds`).  The matches are partitioned by their first event: the old plan
    reports those whose first event is before ``b``, the new one those from ``b`` on.  Exact: a match
    whose first event is at or after ``b`` has every event from ``b`` on, so the new plan, which
    sees them all, finds it; one whose first event is before ``b`` has every event within the
    window after it, which the old plan still sees.  So the per-pattern counts are those of one pass
    of any plan over the whole stream.  A switch must not split the events of one timestamp
    (:func:`switch_point`); skip-till-next-match, which selects over the whole stream, is refused.

    ``collect_matches``: each pattern's matches (positions in ``events``) as well as its count.
    Metrics: ``events`` the stream's, each entering the system once; ``replayed_events`` the events
    before its start that a plan entered (always 0); ``overlap_events`` the events two plans entered
    side by side; ``elapsed_s``, ``work`` sum over the plans, ``peak_partial_matches`` the largest of
    one plan's; the work limit is shared by all plans.
    """
    if not segments or segments[0][0] != 0 or any(x[0] >= y[0] for x, y in itertools.pairwise(segments)):
        raise PlanError("segments must start at 0 and have increasing starts")
    t_dec = time.perf_counter()
    stream = compile_workload(patterns, segments[0][1]).prepare(events)  # every plan of the workload reads the same arrays
    decode_s = time.perf_counter() - t_dec
    n = len(stream)
    ts = stream.ts.tolist()
    bounds = [s for s, _ in segments[1:]] + [n]
    counts = [0] * len(patterns)
    found: list[list] = [[] for _ in patterns]
    elapsed = peak = work = overlap = created = 0
    nodes = 0
    name = ""
    for (a, g), b in zip(segments, bounds):
        if a >= n:
            break
        rt = compile_workload(patterns, g)
        lo, hi = migration_bounds(g.clauses, ts, a, min(b, n))
        left = None if max_work is None else max(0, max_work - work)
        try:
            res = rt.run(stream.slice(lo, hi), collect_matches=collect_matches, max_partial_matches=max_partial_matches,
                         max_work=left, first_from=a - lo, first_to=min(b, n) - lo, scan_from=a - lo)
        except EvaluationLimitError as e:
            if e.processed is not None:
                e.processed += lo  # events of the whole stream before which every plan has run
            raise
        for i, c in enumerate(res.counts):
            counts[i] += c
            found[i] += [Match(tuple((v, tuple(x + lo for x in ps)) for v, ps in mt.bindings))
                         for mt in res.matches_by_pattern[i]]  # slice positions -> the stream's
        m = res.metrics
        elapsed += m["elapsed_s"]
        peak = max(peak, m["peak_partial_matches"])
        work += m["work"]
        created += m["partial_matches_created"]
        overlap += max(0, hi - b)
        nodes = max(nodes, m["nodes"])
        name = res.evaluator
    metrics = {
        "events": n, "matches": sum(counts), "matches_by_pattern": list(counts),
        "throughput_eps": n / elapsed if elapsed > 0 else float("inf"), "elapsed_s": elapsed, "decode_s": decode_s,
        "peak_partial_matches": peak, "work": work, "partial_matches_created": created, "nodes": nodes, "segments": len(segments),
        "replayed_events": 0, "overlap_events": overlap,  # each run scans from its start a
    }
    return MultiResult(found, counts, metrics, name)
