"""GRETA's cap (evaluators/trends/greta.py): it counts the predecessor vertices each event's Equation 2
visits, is checked after each timestamp, and a capped run reports the events of the timestamps before."""

from __future__ import annotations

import pytest

from cep.errors import WorkLimitError
from cep.events import Event, EventStream
from cep.parser import parse_patterns
from evaluators.trends import run_greta


def _burst(n: int) -> EventStream:
    """One A, then n B, then one C, one second apart, one partition."""
    return EventStream([Event("A", 0.0, {})] + [Event("B", float(i), {}) for i in range(1, n + 1)] + [Event("C", n + 1.0, {})])


def test_the_cap_counts_predecessor_vertices_visited():
    """SEQ(A, B+, C) over A, B1, B2, B3, C: B_i visits A and the i - 1 earlier B (1 + 2 + 3), C visits
    the three B: 9 vertices.  The run finishes under a cap of 9 (7 trends) and stops under 8 at C,
    having processed the four events before it."""
    s = _burst(3)
    qs = parse_patterns("RETURN COUNT(*) PATTERN SEQ(A a, B b+, C c) WITHIN 10 seconds")
    done = run_greta(qs, s, max_work=9)
    assert done.rows()[0][-1] == 7 and done.extra["work"] == 9
    with pytest.raises(WorkLimitError, match="more than 8 predecessor vertices visited") as e:
        run_greta(qs, s, max_work=8)
    assert e.value.processed == 4
