"""The two-step engine on the multi-pattern runtime (evaluators/trends/two_step.py): the reference's
results where filters cannot be evaluated, queries sharing the MPT's prefixes, the construction cap."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from trend_cases import workloads

from cep.errors import PartialMatchLimitError
from cep.events import Event, EventStream
from cep.parser import parse_patterns
from evaluators.trends import run_reference, run_two_step
from evaluators.trends.common import compile_queries
from evaluators.trends.two_step import _Workload


@st.composite
def ragged_streams(draw, max_events: int = 12):
    """Events that may lack ``x``, ``h`` or ``g`` or carry a string ``x``."""
    out, ts = [], draw(st.integers(0, 2))
    for _ in range(draw(st.integers(0, max_events))):
        ts += draw(st.sampled_from([0, 1, 1, 2]))
        attrs = {"x": draw(st.sampled_from([0, 1, 2, 3, 2.5, "s"])), "g": draw(st.integers(0, 1)), "h": draw(st.integers(0, 1))}
        for a in ("x", "g", "h"):
            if draw(st.integers(0, 5)) == 0:
                del attrs[a]
        out.append(Event(draw(st.sampled_from(["A", "B", "B", "C", "D"])), float(ts), attrs))
    return EventStream(out)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ragged_streams(), workloads(max_queries=3, count_only=False))
def test_two_step_equals_reference_when_attributes_are_missing_or_not_numbers(s, qs):
    """Comparisons that cannot be evaluated are false, an aggregated attribute must be a number, an
    event lacking a partition attribute is in no trend: decided per event as the other engines do."""
    assert run_two_step(qs, s).as_dict() == run_reference(qs, s).as_dict()


def test_queries_with_a_common_prefix_share_its_node():
    """Two queries ``SEQ(A, B+, C)`` and ``SEQ(A, B+, D)`` (same partition) share the MPT node of
    ``SEQ(A, B+)``, which the runtime grows start-anchored; a query with a filter on A does not."""
    qs = parse_patterns("\n".join([
        "RETURN COUNT(*) PATTERN SEQ(A a, B b+, C c) WHERE [h] WITHIN 10 seconds",
        "RETURN COUNT(*) PATTERN SEQ(A a, B b+, D d) WHERE [h] WITHIN 5 seconds",
        "RETURN COUNT(*) PATTERN SEQ(A a, B b+, D d) WHERE [h] AND a.x > 1 WITHIN 5 seconds",
    ]))
    _, compiled = compile_queries(qs)
    wl = _Workload(("h",), compiled)
    g = wl.runtime.g
    shared = [n for n in g.shared_nodes() if not n.is_leaf]
    assert [sorted(n.users) for n in shared] == [[(0, 0), (1, 0)]]
    assert shared[0].id in wl.runtime.anchored


def test_the_cap_stops_construction_and_is_a_capped_result():
    """One A, twelve B, one C: 4,095 trends.  Under a cap of 1,000 constructed trends the run stops
    with PartialMatchLimitError; with room it reports the reference's count."""
    events = [Event("A", 0.0, {})] + [Event("B", float(i), {}) for i in range(1, 13)] + [Event("C", 20.0, {})]
    s = EventStream(events)
    qs = parse_patterns("RETURN COUNT(*) PATTERN SEQ(A a, B b+, C c) WITHIN 60 seconds")
    with pytest.raises(PartialMatchLimitError, match="two-step: more than 1,000 constructed trends"):
        run_two_step(qs, s, max_trends=1000)
    r = run_two_step(qs, s, max_trends=100_000)
    assert r.as_dict() == run_reference(qs, s).as_dict()
    assert r.extra["trends"] == 4095 and r.rows()[0][-1] == 4095
