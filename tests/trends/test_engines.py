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

BURSTY = ["A", "B", "B", "B", "C", "D"]  # half the events of the shared type B

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


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams(max_events=14, types=BURSTY), workloads(max_queries=4, count_only=False, same_partition=True, aggregate_shared=True))
def test_engines_equal_reference_when_non_count_queries_share_a_kleene_sub_pattern(s, qs):
    """Queries with COUNT(v), SUM, AVG, MIN or MAX beside COUNT(*), of one template, on streams where
    half the events are of the shared type B (bursts of several B): shared graphlets propagate tuple
    coefficients (evaluators/trends/coefficients.py) and event-level snapshots."""
    _check(qs, s)


def test_random_non_count_workloads_do_share():
    """The strategy above really shares graphlets among non-COUNT(*) queries, and among queries that
    aggregate the shared Kleene variable itself (coefficients with more than the count).

    A count over a fixed (derandomized) sample of 200 examples: it gives 32 workloads with a shared
    graphlet of non-COUNT(*) queries, 26 whose shared coefficients carry an aggregate of the shared
    type and 11 with event-level snapshots (over hypothesis seeds 0-7: 37-85, 32-75 and 4-36)."""
    general = on_kleene = snaps = 0

    @settings(max_examples=200, deadline=None, database=None, derandomize=True)
    @given(streams(max_events=14, types=BURSTY), workloads(max_queries=4, count_only=False, same_partition=True, aggregate_shared=True))
    def probe(s, qs):
        nonlocal general, on_kleene, snaps
        ex = HamletExecutor(qs)
        ex.trace = []
        r = ex.run(s)
        mine = [g for g in ex.trace if any(not qs[q].count_only for q in g["queries"])]
        general += bool(mine)
        on_kleene += any(len(c) > 1 for g in mine for _, coef in g["coefficients"] for c in coef.values())
        snaps += r.snapshots > r.extra["shared_graphlets"]

    probe()
    assert general >= 20 and on_kleene >= 15 and snaps >= 5, (general, on_kleene, snaps)


def test_worked_example_shares_sum_avg_min_max():
    """The worked example's stream and patterns with every aggregate: both B graphlets are shared by q1
    and q2 as for COUNT(*), and every value equals the literal reference."""
    s = "a a c b b b b a a c c c b b".split()
    stream = EventStream([Event(t.upper(), float(i), {"x": (7 * i) % 5}) for i, t in enumerate(s)])
    qs = parse_patterns("RETURN COUNT(*), SUM(b.x), AVG(b.x), MIN(b.x), COUNT(a) PATTERN SEQ(A a, B b+) WITHIN 1 minutes\n"
                        "RETURN COUNT(*), MAX(b.x), COUNT(b), AVG(c.x) PATTERN SEQ(C c, B b+) WITHIN 1 minutes")
    res = run_hamlet(qs, stream)
    assert res.extra["shared_graphlets"] == 2 and res.snapshots == 2
    assert res.as_dict() == run_reference(qs, stream).as_dict()
    assert [r[4] for r in res.rows()] == [132, 72]


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


def test_table_5_snapshot_values():
    """Table 5 (Example 3.12): what our query language can express of it, with the paper's values.

    The paper's scenario: in graphlet B3 = (b3, b4, b5, b6) the edge (b4, b5) holds for q1 but not for
    q2, *all other edges hold for both*; an event-level snapshot z is created at b5 and Table 5 gives
    z = (8, 2) [value(x,q1)+count(b3,q1)+count(b4,q1) = 2+2+4; value(x,q2)+count(b3,q2) = 1+1],
    count(b6) = 4x + z (Section 3.3, "Data Structures") and y = (34, 15) [q1: 2 + sum(B3,q1) 30 +
    sum(A4,q1) 2; q2: 1 + sum(B3,q2) 11 + sum(C5,q2) 3, with q2's B3 counts 1, 2, 2, 6].  That
    arithmetic is consistent, but the scenario is not one the paper's own query model (Definition 2.3:
    every event of a trend satisfies the predicates, skip-till-any-match) can produce: if b4 and b5 both
    satisfy q2's predicates, (..., b4, b5, ...) is a trend of q2 and the edge (b4, b5) holds; if b4 does
    not, every edge of b4 fails for q2, (b4, b6) too.  A predicate on *one edge* needs predicates on
    adjacent events, which HAMLET's Definition 2.3 does not have (and neither does cep/trends.py: a
    comparison mentions one variable).  So y(q2) = 15 is unreachable by any query.

    The nearest query: q2 does not match b4 (WHERE b.x != 1, b4.x = 1), so every edge of b4 fails for
    q2.  Our executor then creates the event-level snapshot at b4 itself, z = (count(b4,q1), 0) =
    (4, 0), not at b5 (b5's predecessor sets differ only by b4, whose z is 0 for q2, so b5 and b6 stay
    shared instead of each needing a snapshot).  What the test holds: x = (2, 1) (Table 4); b5's count
    per query is exactly Table 5's z, 2x + z = (8, 2); y(q1) = 34 exactly as Table 5; y(q2) = 11
    = 1 + (1 + 2 + 4) + 3, where the paper's 15 counts b4 (2) for q2 and b6 = 6 instead of 4; and
    the final counts equal the literal reference (132 for q1 as in the paper; 7 + 3 * 11 = 40 for q2).
    """
    s = "a a c b b b b a a c c c b b".split()
    xs = {4: 1}  # stream position 4 is the paper's b4
    stream = EventStream([Event(t.upper(), float(i), {"x": xs.get(i, 0)}) for i, t in enumerate(s)])
    qs = parse_patterns("RETURN COUNT(*) PATTERN SEQ(A a, B b+) WITHIN 1 minutes\n"
                        "RETURN COUNT(*) PATTERN SEQ(C c, B b+) WHERE b.x != 1 WITHIN 1 minutes")
    ex = HamletExecutor(qs)
    ex.trace = []
    res = ex.run(stream)
    b3, b6 = ex.trace
    x, z = b3["snapshots"]
    assert x == {0: [2], 1: [1]} and z == {0: [4], 1: [0]}
    coefs = [c for _, c in b3["coefficients"]]
    assert coefs == [{0: 1}, {1: 1}, {0: 2, 1: 1}, {0: 4, 1: 2}]

    def value(coef, q):
        return sum(c * b3["snapshots"][snap][q][0] for snap, c in coef.items())

    assert [value(coefs[2], q) for q in (0, 1)] == [8, 2]  # Table 5's z: the count of b5 per query
    assert b6["snapshots"] == [{0: [34], 1: [11]}]  # Table 5's y: 34 for q1; 11 (paper: 15) for q2
    assert [r[4] for r in res.rows()] == [132, 40]
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
