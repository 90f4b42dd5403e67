"""Every trend engine reports the semantics of cep/trends.py: against the literal reference on random
streams and workloads, against `detect` on tiny inputs, and on HAMLET's worked example (Section 3)."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from cep.events import Event, EventStream
from cep.parser import parse_pattern, parse_patterns
from evaluators.trends import HamletExecutor, NoSharing, run_greta, run_hamlet, run_reference, run_sharon, run_two_step
from trend_cases import query_texts, streams, workloads

ENGINES = {
    "greta": run_greta,
    "hamlet-static": run_hamlet,
    "hamlet-nonshared": lambda q, s: run_hamlet(q, s, policy=NoSharing()),
    "two-step": run_two_step,
    "sharon": run_sharon,
}


def _check(qs, s, engines=ENGINES):
    ref = run_reference(qs, s).as_dict()
    for name, run in engines.items():
        got = run(qs, s).as_dict()
        assert got == ref, (name, [str(q) for q in qs], s.events)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams(), workloads())
def test_engines_equal_reference_on_random_workloads(s, qs):
    """Mixed workloads: Kleene first or not, NOT, predicates, groups, equivalence, overlapping windows."""
    _check(qs, s)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams(max_events=14), workloads(max_queries=4, count_only=True, same_partition=True))
def test_engines_equal_reference_when_queries_share_a_kleene_sub_pattern(s, qs):
    """COUNT(*) queries of one template: shared graphlets and event-level snapshots are exercised."""
    _check(qs, s)


def test_random_sharing_workloads_do_share():
    """The sharing strategy above really creates shared graphlets and event-level snapshots.

    A count over generated examples, so the sample is fixed (derandomized): over seeds 0-7 at 200
    examples the strategy gave 46 to 98 workloads with shared graphlets and 10 to 55 with snapshots."""
    shared = snaps = 0

    @settings(max_examples=200, deadline=None, database=None, derandomize=True)
    @given(streams(max_events=14), workloads(max_queries=4, count_only=True, same_partition=True))
    def probe(s, qs):
        nonlocal shared, snaps
        r = run_hamlet(qs, s)
        shared += r.extra["shared_graphlets"] > 0
        snaps += r.snapshots > r.extra["shared_graphlets"]

    probe()
    assert shared >= 20 and snaps >= 5, (shared, snaps)


def _paper_stream():
    s = "a a c b b b b a a c c c b b".split()
    return EventStream([Event(t.upper(), float(i), {}) for i, t in enumerate(s)])


PAPER_QUERIES = "RETURN COUNT(*) PATTERN SEQ(A a, B b+) WITHIN 1 minutes\nRETURN COUNT(*) PATTERN SEQ(C c, B b+) WITHIN 1 minutes"


def test_worked_example_final_counts_132_and_72():
    qs = parse_patterns(PAPER_QUERIES)
    for name, run in {**ENGINES, "reference": run_reference}.items():
        assert [r[4] for r in run(qs, _paper_stream()).rows()] == [132, 72], name


def test_tables_3_and_4_snapshot_values():
    """Table 3: b3..b6 count x, 2x, 4x, 8x in graphlet B3; Table 4: x = (2, 1), y = (34, 19) for (q1, q2)."""
    qs = parse_patterns(PAPER_QUERIES)
    ex = HamletExecutor(qs)
    ex.trace = []
    ex.run(_paper_stream())
    b3, b6 = ex.trace
    assert b3["queries"] == [0, 1] and [c for _, c in b3["coefficients"]] == [{0: 1}, {0: 2}, {0: 4}, {0: 8}]
    assert b3["snapshots"] == [{0: [2], 1: [1]}]
    assert b6["snapshots"] == [{0: [34], 1: [19]}]
    assert [c for _, c in b6["coefficients"]] == [{0: 1}, {0: 2}]


def test_event_level_snapshot_when_predicates_differ():
    """Definition 3.11 / Table 5 analogue: b4 (x=1) is matched by q1 but not by q2 (b.x != 1), so it
    gets a snapshot z = (count(b4,q1), 0) = (4, 0); later events propagate x and z.  (Table 5 itself
    drops the edge b4->b5 for q2 only, a predicate between two Kleene events that the language lacks.)"""
    s = "a a c b b b b a a c c c b b".split()
    xs = {4: 1}
    stream = EventStream([Event(t.upper(), float(i), {"x": xs.get(i, 0)}) for i, t in enumerate(s)])
    qs = parse_patterns("RETURN COUNT(*) PATTERN SEQ(A a, B b+) WITHIN 1 minutes\n"
                        "RETURN COUNT(*) PATTERN SEQ(C c, B b+) WHERE b.x != 1 WITHIN 1 minutes")
    ex = HamletExecutor(qs)
    ex.trace = []
    res = ex.run(stream)
    b3 = ex.trace[0]
    assert b3["snapshots"] == [{0: [2], 1: [1]}, {0: [4], 1: [0]}]
    assert [c for _, c in b3["coefficients"]] == [{0: 1}, {1: 1}, {0: 2, 1: 1}, {0: 4, 1: 2}]
    assert res.as_dict() == run_reference(qs, stream).as_dict()


def test_counts_are_exact_integers_beyond_64_bits():
    stream = EventStream([Event("A", 0.0, {})] + [Event("B", float(i), {}) for i in range(1, 101)])
    q = parse_patterns("RETURN COUNT(*) PATTERN SEQ(A a, B b+) WITHIN 1 hours")
    for run in (run_greta, run_hamlet):
        assert run(q, stream).rows()[0][4] == 2**100 - 1


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(streams(max_events=8), query_texts(count_only=True))
def test_count_equals_detect_matches_on_tiny_inputs(tmp_path_factory, s, text):
    """COUNT(*) = the number of matches `detect` reports for the same PATTERN/WHERE under SEQ_ORDER
    strict, with one window holding the whole stream (no grouping or equivalence here)."""
    from experiments.cli import main

    assume(s.span_seconds > 0)  # detect estimates rates from the file itself
    text = text.replace(" WHERE [h] AND", " WHERE").replace(" WHERE [h]", "").replace("GROUP-BY g", "").replace("RETURN g, ", "RETURN ")
    q = parse_pattern(text.split(" WITHIN ")[0] + " WITHIN 1000 seconds")
    trends = sum(r[4] for r in run_hamlet([q], s).rows())
    pattern_text = "PATTERN " + text.split(" PATTERN ", 1)[1].split(" WITHIN ")[0].strip() + " WITHIN 1000 seconds SEQ_ORDER strict"
    d = tmp_path_factory.mktemp("d")
    f = d / "e.csv"
    f.write_text("type,ts,x,g,h\n" + "".join(f"{e.type},{e.ts},{e.attrs['x']},{e.attrs['g']},{e.attrs['h']}\n" for e in s))
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["detect", pattern_text, "--data", str(f), "--json", "--no-memory"]) == 0
    assert json.loads(buf.getvalue())["matches"] == trends, pattern_text


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 4000), min_size=1, max_size=50), st.sampled_from(["1/3", "1/1000", "7/10", "5"]))
def test_pane_clock_is_exact(ticks, pane):
    from fractions import Fraction

    from evaluators.trends.common import PaneClock, pane_of

    p = Fraction(pane)
    clock = PaneClock(p)
    for ts in sorted(t / 300 for t in ticks):
        assert clock(ts) == pane_of(ts, p)


def test_aggregated_attribute_must_be_a_number():
    """An event whose aggregated attribute is missing or a string is in no trend of that query."""
    stream = EventStream([Event("A", 0.0, {"x": 1}), Event("B", 1.0, {"x": "n/a"}), Event("B", 2.0, {"x": 2}), Event("B", 3.0, {})])
    qs = parse_patterns("RETURN COUNT(*), SUM(b.x), MIN(b.x) PATTERN SEQ(A a, B b+) WITHIN 1 minutes")
    for name, run in {**ENGINES, "reference": run_reference}.items():
        assert [r[4:] for r in run(qs, stream).rows()] == [[1, 2, 2]], name


def test_regression_general_aggregates_with_two_predecessor_edges_and_ties():
    """A Kleene element's two predecessor sums were once added in place into the stored state."""
    s = EventStream([Event("A", 0.0, {"x": 0}), Event("C", 1.0, {"x": 0}), Event("C", 2.0, {"x": 0}),
                     Event("A", 2.0, {"x": 0}), Event("C", 2.0, {"x": 0})])
    qs = parse_patterns("RETURN COUNT(*), COUNT(v0) PATTERN SEQ(A v0, C v1+) WITHIN 3 seconds")
    _check(qs, s)
