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
"""

from __future__ import annotations

from typing import Callable, Sequence

from cep.columnar import EventColumns
from cep.errors import PlanError
from cep.events import EventStream
from cep.global_plans import GlobalPlan, MultiPatternMultitree, MultiPatternTree

from evaluators.multi import nfa, tree
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
