"""The HAMLET executor's state meter (``meter=True``, ``peak_memory_bytes``; HAMLET Figure 12): the
words it counts on the Table 5 stream, worked by hand; the results it leaves alone; the engines and
configurations that have no meter."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from cep.errors import ConfigError
from cep.events import Event, EventStream
from cep.parser import parse_patterns
from evaluators.trends import HamletExecutor, NoSharing
from evaluators.trends.hamlet import WORD_BYTES
from experiments.exps.hamlet_engines import measure
from trend_cases import streams, workloads

# the stream and queries of tests/trends/test_engines.py::test_table_5_snapshot_values: b3..b6 is a burst of
# 4 events that both queries share, with an event-level snapshot at b4 (q2 does not match it); b7, b8 a
# second burst of 2 with no snapshot beside its graphlet-level one
STREAM = EventStream([Event(t.upper(), float(i), {"x": 1 if i == 4 else 0}) for i, t in enumerate("a a c b b b b a a c c c b b".split())])
QUERIES = parse_patterns("RETURN COUNT(*) PATTERN SEQ(A a, B b+) WITHIN 1 minutes\n"
                         "RETURN COUNT(*) PATTERN SEQ(C c, B b+) WHERE b.x != 1 WITHIN 1 minutes")


def test_peak_words_on_the_table_5_stream():
    """One pane slot (L = 1) and one number per state.  At the first burst the running sums hold the
    (a, b) edges of both queries (2 words); the burst holds 4 events and their masks (8), and a
    non-shared graphlet's 3 vectors (3) are reserved: 13.  Shared, its graphlet holds 2 snapshots (x
    and z), each a value per query and one coefficient: 6 words, so 2 + 8 + 6 = 16.  The second burst
    (2 events) comes when both queries also hold their (b, b) edges: 4 + 4 + 3 = 11.  Never sharing,
    the peak is the first burst's 13."""
    static = HamletExecutor(QUERIES, meter=True).run(STREAM)
    assert static.snapshots == 3 and static.peak_memory_bytes == 16 * WORD_BYTES
    nonshared = HamletExecutor(QUERIES, NoSharing(), meter=True).run(STREAM)
    assert nonshared.snapshots == 0 and nonshared.peak_memory_bytes == 13 * WORD_BYTES
    assert HamletExecutor(QUERIES).run(STREAM).peak_memory_bytes is None


def test_an_aggregate_state_counts_its_entries():
    """AVG(b.x) keeps per slot the trends' count, the sum of x and the count of b (SUM(b.x) / COUNT(b),
    3 words), and the shared coefficient the same three: the first graphlet holds 2 snapshots of 3 + 3
    + 3 words beside the 2 edges of 3 words and the burst's 8: 6 + 8 + 18 = 32."""
    qs = parse_patterns("RETURN AVG(b.x) PATTERN SEQ(A a, B b+) WITHIN 1 minutes\n"
                        "RETURN AVG(b.x) PATTERN SEQ(C c, B b+) WHERE b.x != 1 WITHIN 1 minutes")
    res = HamletExecutor(qs, meter=True).run(STREAM)
    assert res.peak_memory_bytes == 32 * WORD_BYTES


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workloads(), streams())
def test_the_meter_leaves_results_alone_and_sharing_holds_at_least_the_nonshared_state(qs, s):
    """Metered runs compute what unmetered ones do; static sharing holds every burst's state as not
    sharing does, and its graphlets' snapshots beside it, so its peak is never below the non-shared one."""
    peaks = []
    for policy in (None, NoSharing()):
        plain = HamletExecutor(qs, policy).run(s)
        metered = HamletExecutor(qs, policy, meter=True).run(s)
        assert metered.as_dict() == plain.as_dict() and metered.snapshots == plain.snapshots
        peaks.append(metered.peak_memory_bytes)
    assert peaks[0] >= peaks[1] >= 0


def test_measure_meters_only_the_hamlet_executor():
    _, m = measure("hamlet-static", QUERIES, STREAM, memory=False, state_memory=True)
    assert m["peak_memory_bytes"] == 16 * WORD_BYTES
    _, m = measure("hamlet-static", QUERIES, STREAM, memory=False)
    assert "peak_memory_bytes" not in m
    with pytest.raises(ConfigError, match="greta.*no state meter"):
        measure("greta", QUERIES, STREAM, memory=False, state_memory=True)


def test_exp_memory_must_name_a_mode():
    from experiments.commands.run import compose_config
    from experiments.exps.hamlet import build_specs

    cfg = compose_config(["+exp=hamlet_fig12", "exp.memory=traced"])
    with pytest.raises(ConfigError, match=r"hamlet_fig12.yaml: exp.memory must be false, true \(tracemalloc\) or state"):
        build_specs(cfg)
    assert {s["params"]["memory"] for s in build_specs(compose_config(["+exp=hamlet_fig12"]))} == {"state"}
    assert {s["params"]["memory"] for s in build_specs(compose_config(["+exp=hamlet_fig9"]))} == {True}
