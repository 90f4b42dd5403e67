"""The evaluate() contract: metric names, the registry, plan checks, the partial-match cap, input
forms, and the OpenCEP reference cases' match counts."""

from __future__ import annotations

import re
import time
from datetime import datetime, timedelta

import pytest

from cep import (
    WorkLimitError,
    ConfigError,
    Event,
    EventStream,
    OrderPlan,
    PartialMatchLimitError,
    PatternPlan,
    PlanError,
    StreamError,
    TreePlan,
    parse_pattern,
)
from cep.columnar import EventColumns, read_nasdaq_text_columns
from evaluators import EVALUATORS, METRIC_NAMES, evaluate, evaluator_names
from evaluators.brute_force import brute_force_matches
from evaluators.engine import latency_summary

SEQ3 = parse_pattern("PATTERN SEQ(A a, B b, C c) WHERE a.x < c.x WITHIN 5 s")
ORDER = PatternPlan((OrderPlan(("b", "a", "c")),))
TREE = PatternPlan((TreePlan(("a", ("b", "c"))),))


def small_stream(n=30):
    return EventStream([Event("ABC"[i % 3], float(i // 2), {"x": float(i % 5)}) for i in range(n)])


def test_registry_names_the_two_evaluators():
    assert evaluator_names() == ["nfa", "tree"] == list(EVALUATORS)
    with pytest.raises(ConfigError, match="unknown evaluator 'zstream'"):
        evaluate(SEQ3, TREE, small_stream(), evaluator="zstream")


def test_metrics_have_exactly_the_contract_names_and_sane_values():
    s = small_stream()
    start = time.perf_counter()
    r = evaluate(SEQ3, TREE, s)
    wall = time.perf_counter() - start
    assert tuple(r.metrics) == METRIC_NAMES
    m = r.metrics
    assert m["events"] == len(s) and m["matches"] == len(r.matches) == 34
    # the detection time is part of the call (which also measures memory), throughput its events per second
    assert 0 < m["elapsed_s"] < wall and m["throughput_eps"] == pytest.approx(len(s) / m["elapsed_s"])
    # two events a second, a 5 s window (both ends inside): 12 events buffered at most; at most 10
    # partial matches at the (b, c) node
    assert m["peak_buffered_events"] == 12 and m["peak_partial_matches"] == 10 and m["peak_memory_bytes"] > 0
    assert 0 <= m["latency_ms_mean"] and 0 <= m["latency_ms_p95"]
    assert evaluate(SEQ3, TREE, s, measure_memory=False).metrics["peak_memory_bytes"] is None
    quiet = evaluate(SEQ3, TREE, s, collect_matches=False, measure_memory=False)
    assert quiet.matches == [] and quiet.metrics["matches"] == m["matches"]


def test_auto_picks_the_tree_for_tree_plans_and_the_nfa_for_orders_and_an_order_runs_on_the_tree():
    s = small_stream()
    want = brute_force_matches(SEQ3, s)
    assert evaluate(SEQ3, TREE, s).evaluator == "tree"
    assert evaluate(SEQ3, ORDER, s).evaluator == "nfa"
    assert evaluate(SEQ3, ORDER, s, evaluator="tree").matches == want
    # a left-deep tree (children in either order) is an order for the NFA; a bushy one is not
    assert evaluate(SEQ3, PatternPlan((TreePlan(("c", ("b", "a"))),)), s, evaluator="nfa").matches == want
    four = parse_pattern("PATTERN SEQ(A a, B b, C c, D d) WITHIN 5 s")
    with pytest.raises(PlanError, match="not left-deep"):
        evaluate(four, PatternPlan((TreePlan((("a", "b"), ("c", "d"))),)), s, evaluator="nfa")


def test_plans_that_do_not_fit_the_pattern_are_refused():
    with pytest.raises(PlanError, match="does not cover"):
        evaluate(SEQ3, PatternPlan((OrderPlan(("a", "b")),)), small_stream())
    with pytest.raises(PlanError, match="2 clause plan"):
        evaluate(SEQ3, PatternPlan((OrderPlan(("a", "b", "c")), OrderPlan(("a", "b", "c")))), small_stream())


def test_both_evaluators_count_their_state_the_same_way():
    """Buffered events at the leaves, partial matches (two or more events) at the inner nodes."""
    s = EventStream([Event("A", 0.0, {"x": 0.0}), Event("B", 1.0, {"x": 0.0}), Event("A", 2.0, {"x": 0.0})])
    p = parse_pattern("PATTERN SEQ(A a, B b, C c) WITHIN 10 s")
    # order a, b, c = tree ((a, b), c): buffers a0, a2 and b1; the inner node holds (a0, b1)
    for plan, evaluator in ((PatternPlan((OrderPlan(("a", "b", "c")),)), "nfa"), (PatternPlan((TreePlan((("a", "b"), "c")),)), "tree")):
        m = evaluate(p, plan, s, evaluator=evaluator).metrics
        assert (m["peak_buffered_events"], m["peak_partial_matches"], m["peak_state"]) == (3, 1, 4), evaluator
    # tree (a, (b, c)): nothing pairs b with a C, so no partial match at all
    m = evaluate(p, PatternPlan((TreePlan(("a", ("b", "c"))),)), s).metrics
    assert (m["peak_buffered_events"], m["peak_partial_matches"], m["peak_state"]) == (3, 0, 3)


def test_state_expires_with_the_window():
    s = EventStream([Event("A", float(t), {"x": 0.0}) for t in range(0, 100, 10)])
    p = parse_pattern("PATTERN SEQ(A a, B b) WITHIN 15 s")
    # at most two A events (10 s apart) lie within any 15 s window
    m = evaluate(p, PatternPlan((OrderPlan(("a", "b")),)), s).metrics
    assert m["peak_buffered_events"] == 2 and m["peak_partial_matches"] == 0


def test_peak_memory_is_the_state_not_the_input():
    """Thousands of events of other types do not count; a plan that keeps more state uses more bytes."""
    import random

    rng = random.Random(1)
    events = [Event(rng.choice("XYZ"), i * 0.001, {"x": rng.random()}) for i in range(30_000)]
    events += [Event(t, 30.0 + i * 0.01, {"x": rng.random()}) for i, t in enumerate("AB" * 200 + "C")]
    s = EventStream(events)
    p = parse_pattern("PATTERN AND(A a, B b, C c) WITHIN 1 hour")
    cheap = evaluate(p, PatternPlan((TreePlan((("a", "c"), "b")),)), s, collect_matches=False).metrics
    costly = evaluate(p, PatternPlan((TreePlan((("a", "b"), "c")),)), s, collect_matches=False).metrics
    assert cheap["matches"] == costly["matches"] == 200 * 200
    # buffered: 200 A, 200 B, 1 C; partial matches: (a, c) pairs 200, (a, b) pairs 200 * 200
    assert cheap["peak_state"] == 401 + 200 and costly["peak_state"] == 401 + 200 * 200
    # 30,000 decoded input events take megabytes; the cheap plan keeps 401 buffered events, each a row
    # [newest, oldest, event] of int32, and 200 pairs, each [newest, oldest, a, c]
    assert cheap["peak_memory_bytes"] == 401 * (3 * 4) + 200 * (4 * 4)
    assert costly["peak_memory_bytes"] > 10 * cheap["peak_memory_bytes"]


@pytest.mark.parametrize("n", [20, 30])
def test_long_patterns_run_on_both_evaluators(n):
    """A 30-event sequence compiles (its join path continues in functions of its own) and finds
    exactly the three complete runs of the stream, under a left-deep order, a left-deep tree and a
    bushy tree."""
    types = [f"T{i}" for i in range(n)]
    s = EventStream([Event(t, float(k * n + i), {"x": float(i)}) for k in range(3) for i, t in enumerate(types)])
    conds = " AND ".join(f"e{i}.x < e{i + 1}.x" for i in range(0, n - 1, 3))
    p = parse_pattern(f"PATTERN SEQ({', '.join(f'{t} e{i}' for i, t in enumerate(types))}) WHERE {conds} WITHIN {n - 1} seconds")
    order = tuple(f"e{i}" for i in range(n))
    bushy = order[0]
    half = n // 2
    left, right = order[0], order[half]
    for v in order[1:half]:
        left = (left, v)
    for v in order[half + 1 :]:
        right = (right, v)
    bushy = (left, right)
    want = [tuple(range(k * n, (k + 1) * n)) for k in range(3)]
    for plan, evaluator in (
        (PatternPlan((OrderPlan(tuple(reversed(order))),)), "nfa"),
        (PatternPlan((OrderPlan(order),)), "tree"),
        (PatternPlan((TreePlan(bushy),)), "tree"),
    ):
        r = evaluate(p, plan, s, evaluator=evaluator, measure_memory=False)
        got = [tuple(pos for _, (pos,) in sorted(m.bindings, key=lambda b: int(b[0][1:]))) for m in r.matches]
        assert got == want, (evaluator, plan)


def test_exploding_kleene_stops_at_the_partial_match_cap_with_a_clear_error():
    dense = EventStream([Event("B", i * 0.01, {"x": 0.0}) for i in range(60)] + [Event("C", 1.0, {"x": 0.0})])
    p = parse_pattern("PATTERN SEQ(KL(B b), C c) WITHIN 1 hour")
    with pytest.raises(PartialMatchLimitError) as err:
        evaluate(p, PatternPlan((OrderPlan(("b", "c")),)), dense, max_partial_matches=5_000)
    msg = str(err.value)
    assert "crossed the cap of 5000" in msg and "max_partial_matches" in msg and "\n" not in msg
    # the cap also bounds an explosion of joins inside one event
    wide = EventStream([Event(t, 0.0, {"x": 0.0}) for t in "ABC" * 40] + [Event("D", 0.0, {"x": 0.0})])
    p4 = parse_pattern("PATTERN AND(A a, B b, C c, D d) WITHIN 1 hour")
    with pytest.raises(PartialMatchLimitError):
        evaluate(p4, PatternPlan((TreePlan(((("a", "b"), "c"), "d")),)), wide, max_partial_matches=1_000)
    assert evaluate(p4, PatternPlan((TreePlan(((("a", "b"), "c"), "d")),)), wide, max_partial_matches=None,
                    measure_memory=False, collect_matches=False).metrics["matches"] == 40 ** 3


def test_events_may_be_columns_or_a_loader_whose_decoding_is_timed_apart(tmp_path):
    s = small_stream()
    want = evaluate(SEQ3, TREE, s, measure_memory=False).matches
    assert evaluate(SEQ3, TREE, EventColumns.from_events(s), measure_memory=False).matches == want
    calls = []

    def load():
        calls.append(1)
        time.sleep(0.05)  # stands for decoding: it counts in decode_s, not in the detection time
        return s

    r = evaluate(SEQ3, TREE, load, measure_memory=False)
    assert r.matches == want and calls == [1] and r.metrics["decode_s"] >= 0.05
    assert r.metrics["throughput_eps"] == pytest.approx(r.metrics["events"] / r.metrics["elapsed_s"])
    # a one-shot iterator serves both the timed run and the memory run
    once = evaluate(SEQ3, TREE, (e for e in s), measure_memory=True)
    assert once.matches == want and once.metrics["peak_memory_bytes"] > 0


def test_events_out_of_time_order_or_lacking_an_attribute_raise_stream_errors():
    back = [Event("A", 5.0, {"x": 0.0}), Event("B", 4.0, {"x": 0.0})]
    with pytest.raises(StreamError, match="event 1 .*timestamp 4.0 earlier"):
        evaluate(SEQ3, TREE, back)
    lacking = [Event("A", 0.0, {"x": 0.0}), Event("C", 1.0, {"y": 0.0})]
    with pytest.raises(StreamError, match="event 1 .*type 'C'.* no attribute 'x'"):
        evaluate(SEQ3, TREE, lacking)
    # a type whose variables mention no attribute may lack it
    assert evaluate(SEQ3, TREE, [Event("A", 0.0, {"x": 0.0}), Event("B", 1.0, {})]).matches == []


def test_latency_summary_weighs_batches_by_their_matches():
    assert latency_summary([]) == (None, None)
    mean, p95 = latency_summary([(0.001, 19), (0.010, 1)])
    assert mean == pytest.approx((0.001 * 19 + 0.010) / 20 * 1000)
    assert p95 == pytest.approx(1.0)  # 19 of 20 matches (95%) took 1 ms
    assert latency_summary([(0.001, 18), (0.010, 2)])[1] == pytest.approx(10.0)


OPENCEP_CASES = [
    ("SEQ(MSFT a, DRIV b, ORLY c, CBRL d)", "WITHIN 3 minutes", 790, ("a", (("b", "c"), "d"))),
    ("AND(MSFT a, DRIV b, ORLY c, CBRL d)", "WITHIN 3 minutes", 6460, ("a", (("b", "c"), "d"))),
    ("SEQ(MSFT a, DRIV b, MSFT c, DRIV d, MSFT e)", "WITHIN 10 minutes", 860, ("a", (("b", "c"), ("d", "e")))),
]


@pytest.fixture(scope="module")
def medium_x10(tmp_path_factory, data_dir):
    """OpenCEP's NASDAQ_MEDIUM.txt repeated 10 times, copy k shifted k days later (16,520 events)."""
    from experiments.bench.opencep import write_shifted_copies

    path = tmp_path_factory.mktemp("nasdaq") / "medium_x10.txt"
    assert write_shifted_copies(data_dir / "nasdaq" / "NASDAQ_MEDIUM.txt", path, 10, timedelta(days=1)) == 16520
    first = path.read_text().splitlines()[1652].split(",")[1]
    assert datetime.strptime(first, "%Y%m%d%H%M").day == 2
    return path


@pytest.mark.parametrize("structure, window, count, tree", OPENCEP_CASES)
def test_opencep_reference_cases_give_opencep_match_counts(medium_x10, structure, window, count, tree):
    variables = [v.split()[1] for v in structure[4:-1].split(", ")]
    conds = " AND ".join(f"{a}.high < {b}.high" for a, b in zip(variables, variables[1:]))
    p = parse_pattern(f"PATTERN {structure} WHERE {conds} {window}")
    load = lambda: read_nasdaq_text_columns(medium_x10)  # noqa: E731
    for plan, evaluator in ((PatternPlan((TreePlan(tree),)), "tree"), (PatternPlan((OrderPlan(tuple(variables)),)), "nfa")):
        r = evaluate(p, plan, load, evaluator=evaluator, measure_memory=False)
        assert r.metrics["matches"] == count and r.metrics["events"] == 16520


def test_work_counts_the_candidates_joins_examine_and_its_cap_stops_a_run():
    """AND(A a, B b) with a condition that never holds keeps no partial match, yet every event
    examines every buffered event of the other type (AND imposes no order, the window is an hour):
    alternating A, B (300 each) examines 300 * 300 candidates.  The cap stops the run at the
    candidate that crosses it and says how many stream events were processed before that event."""
    s = EventStream([Event(t, float(i), {"x": float(i)}) for i in range(300) for t in "AB"])
    p = parse_pattern("PATTERN AND(A a, B b) WHERE a.x > b.x + 1000 WITHIN 1 hour")
    plan = PatternPlan((TreePlan(("a", "b")),))
    m = evaluate(p, plan, s, measure_memory=False).metrics
    assert m["work"] == 300 * 300 and m["matches"] == 0 and m["peak_partial_matches"] == 0
    with pytest.raises(WorkLimitError, match="examined 40001 candidate combinations, past the cap of 40000") as err:
        evaluate(p, plan, s, max_work=40_000, measure_memory=False)
    # the A and B of second i examine i and i + 1 candidates: 40,000 is crossed at the A of second 200 (position 400)
    assert err.value.processed == 400


def test_equality_conditions_look_their_candidates_up_by_hash():
    """An equality between the two sides of a join reads one hash bucket: a.x = b.x + 1000 holds for
    no pair, so no candidate is examined; a.x = b.x + 1 holds for the 299 pairs (A of second i, B of
    second i - 1), each examined once, when its later event arrives."""
    s = EventStream([Event(t, float(i), {"x": float(i)}) for i in range(300) for t in "AB"])
    for cond, matches in (("a.x = b.x + 1000", 0), ("a.x = b.x + 1", 299), ("b.x + 1 = a.x", 299)):
        p = parse_pattern(f"PATTERN AND(A a, B b) WHERE {cond} WITHIN 1 hour")
        for plan in (PatternPlan((TreePlan(("a", "b")),)), PatternPlan((OrderPlan(("b", "a")),))):
            r = evaluate(p, plan, s, measure_memory=False)
            assert r.metrics["work"] == matches and r.metrics["matches"] == matches
            assert r.matches == brute_force_matches(p, s)


def test_work_counts_only_the_candidates_the_seq_order_and_the_window_allow():
    """SEQ(A a, B b) on A, B alternating once a second, a condition that never holds: an A examines no
    buffered B (every one precedes it), a B the As of the last 10 seconds -- the pairs in order within
    the window, on both evaluators and either order of the join."""
    s = EventStream([Event(t, float(i), {"x": float(i)}) for i in range(100) for t in "AB"])
    p = parse_pattern("PATTERN SEQ(A a, B b) WHERE a.x > b.x + 1000 WITHIN 10 seconds")
    pairs = sum(1 for i in range(100) for k in range(100) if 0 <= k - i <= 10)
    for plan in (PatternPlan((OrderPlan(("a", "b")),)), PatternPlan((OrderPlan(("b", "a")),)), PatternPlan((TreePlan(("b", "a")),))):
        assert evaluate(p, plan, s, measure_memory=False).metrics["work"] == pairs


def test_the_work_cap_stops_a_run_inside_the_event_that_crosses_it():
    """AND(A a, B b, C c), tree ((a, b), c), after 100 B and 100 C: the one A joins 100 B, and each
    of those 100 (a, b) instances scans the 100 C, 10,100 candidates and 10,000 matches in one
    event.  A cap of 500 stops the run at the scan that crosses it, not after the event."""
    s = EventStream([Event("B", 0.0, {})] * 100 + [Event("C", 1.0, {})] * 100 + [Event("A", 2.0, {})])
    p = parse_pattern("PATTERN AND(A a, B b, C c) WITHIN 1 hour")
    plan = PatternPlan((TreePlan((("a", "b"), "c")),))
    assert evaluate(p, plan, s, measure_memory=False).metrics["work"] == 100 + 100 * 100
    with pytest.raises(WorkLimitError) as caught:
        evaluate(p, plan, s, max_work=500, measure_memory=False)
    examined = int(re.search(r"examined (\d+) candidate", str(caught.value)).group(1))
    assert 500 < examined <= 600
