"""The multi-pattern runtime's bookkeeping (evaluators/multi/runtime.py): expired instances are dropped
every COMPACT_EVERY events, and the partial-match and work caps stop a run with a one-line error."""

from __future__ import annotations

import pytest

from cep.errors import PartialMatchLimitError, WorkLimitError
from cep.events import Event, EventStream
from cep.global_plans import build_global_plan, workload_clauses
from cep.parser import parse_patterns
from cep.plans import OrderPlan
from evaluators.multi.runtime import COMPACT_EVERY, MultiRuntime

# the (a, b) prefix node stores an instance per A-B pair in the window; no C event ever completes one
PATTERNS = parse_patterns("PATTERN SEQ(A a, B b, C c) WITHIN 3 seconds\nPATTERN SEQ(A a, B b, D d) WITHIN 3 seconds")


def _runtime() -> MultiRuntime:
    clauses = workload_clauses(PATTERNS)
    plans = {o: OrderPlan(("a", "b", sp.positive[2])) for o, sp in clauses.items()}
    return MultiRuntime(PATTERNS, build_global_plan("order", clauses, plans), name="multi-nfa")


def _stream(n: int) -> EventStream:
    """A, B, A, B, ... one a second: each B pairs with the two As of the last 3 seconds."""
    return EventStream([Event("AB"[i % 2], float(i), {}) for i in range(n)])


def test_the_shared_prefix_is_stored_once_for_both_patterns():
    rt = _runtime()
    res = rt.run(_stream(8))
    assert res.counts == [0, 0]
    assert res.metrics["peak_partial_matches"] == 7  # A-B pairs within 3 s: 1 + 2 + 2 + 2, one node


def test_expired_partial_matches_are_dropped_so_the_peak_stays_bounded():
    res = _runtime().run(_stream(20 * COMPACT_EVERY))
    # without compaction every pair ever made (about 20 * COMPACT_EVERY) would stay live
    assert res.metrics["peak_partial_matches"] <= COMPACT_EVERY + 4


def test_the_partial_match_cap_stops_the_run():
    with pytest.raises(PartialMatchLimitError, match=r"^more than 5 live partial matches$"):
        _runtime().run(_stream(40), max_partial_matches=5)


def test_the_work_cap_stops_the_run():
    res = _runtime().run(_stream(40))
    assert res.metrics["work"] > 30
    with pytest.raises(WorkLimitError, match=r"^the joins examined more than 30 candidate combinations$"):
        _runtime().run(_stream(40), max_work=30)
