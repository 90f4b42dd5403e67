"""The compiled engines' exact arithmetic (evaluators/trends/kernels.py, tables.py): attribute values of every
kind -- negative, fractional, floats of very different magnitudes, integers past 64 bits, ints and floats
mixed -- summed, averaged and compared exactly as the literal reference does; and a row width too small for
the numbers (the bound is only a hint: the run is redone wider, never wrong)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cep.events import Event, EventStream
from cep.parser import parse_patterns
from evaluators.trends import NoSharing, run_greta, run_hamlet, run_reference
from evaluators.trends import tables
from trend_cases import streams, workloads

VALUES = [0, 1, -1, 3, 2**70, -(2**64) - 3, 0.5, -2.25, 0.1, 1e-300, 3.5e12, -7.0, 2.0]

ENGINES = {
    "hamlet-static": run_hamlet,
    "hamlet-nonshared": lambda q, s: run_hamlet(q, s, policy=NoSharing()),
    "greta": run_greta,
}


@st.composite
def valued_streams(draw, types=("A", "B", "B", "B", "C", "D")):
    s = draw(streams(max_events=12, types=list(types)))
    return EventStream([Event(e.type, e.ts, {**e.attrs, "x": draw(st.sampled_from(VALUES))}) for e in s])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valued_streams(), workloads(max_queries=4, count_only=False, same_partition=True, aggregate_shared=True))
def test_sums_averages_and_extremes_of_any_values_are_exact(s, qs):
    from algorithms.trends import DynamicSharing

    ref = run_reference(qs, s).as_dict()
    for name, run in {**ENGINES, "hamlet": lambda q, st_: run_hamlet(q, st_, policy=DynamicSharing())}.items():
        assert run(qs, s).as_dict() == ref, name


def test_a_row_too_narrow_is_redone_wider(monkeypatch):
    """One limb cannot hold 2**100 trends: the first run overflows and the engine runs again wider."""
    stream = EventStream([Event("A", 0.0, {"x": -1.5})] + [Event("B", float(i), {"x": i}) for i in range(1, 101)])
    qs = parse_patterns("RETURN COUNT(*), SUM(b.x), AVG(a.x), MIN(b.x) PATTERN SEQ(A a, B b+) WITHIN 1 hours")
    want = run_reference(qs, EventStream(stream.events[:12])).as_dict()
    widths = []
    real = tables.limbs_for

    def narrow(bits):
        widths.append(real(bits))
        return 1

    monkeypatch.setattr("evaluators.trends.hamlet.limbs_for", narrow)
    monkeypatch.setattr("evaluators.trends.greta.limbs_for", narrow)
    small = EventStream(stream.events[:12])
    for run in ENGINES.values():
        assert run(qs, small).as_dict() == want
        res = run(qs, stream).rows()
        assert res[0][4] == 2**100 - 1 and res[0][5] == sum(i * 2**99 for i in range(1, 101))
    assert widths and max(widths) > 1


def test_latencies_are_one_per_timestamp_and_add_up_to_the_run():
    """The compiled engines attribute their time to timestamps (kernel cycles, decisions, an equal share of
    the batch work): one latency per distinct timestamp of the stream, summing to the run's seconds."""
    from cep.events import Event, EventStream
    from evaluators.trends import run_greta, run_hamlet

    stream = EventStream([Event(t, float(i // 3), {"x": i}) for i, t in enumerate("ABBCABBBCABX" * 5)])
    qs = parse_patterns("RETURN COUNT(*) PATTERN SEQ(A a, B b+, C c) WITHIN 6 seconds\n"
                        "RETURN COUNT(*), SUM(b.x) PATTERN SEQ(B b+, C c) WITHIN 6 seconds")
    for run in (run_hamlet, run_greta):
        res = run(qs, stream)
        assert len(res.latencies_ms) == len({e.ts for e in stream})
        assert min(res.latencies_ms) >= 0
        assert abs(sum(res.latencies_ms) / 1000.0 - res.seconds) <= 0.05 * res.seconds + 1e-4
