"""Statistics: the Spark job equals the pandas computation; definitions hold on small streams."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cep import Attr, BinOp, Comparison, Const, Event, EventStream, Neg, Statistics, StatisticsError, parse_pattern
from cep.conditions import COMPARISON_OPS
from experiments.data.statistics import estimate_statistics, eval_numpy, sample_pairs
from experiments.data.synthetic import generate_stream


def small_stream():
    return generate_stream({"A": 0.5, "B": 0.3, "C": 0.2}, 120.0, seed=3).to_stream()


PATTERNS = [
    parse_pattern("PATTERN SEQ(A a, B b, A c) WHERE a.x < b.x AND b.diff + 1 > c.diff * 2 AND a.y > 40 WITHIN 10 seconds"),
    parse_pattern("PATTERN AND(C d, B e) WHERE d.y / e.x < 3 WITHIN 7 events"),
]


@pytest.mark.spark
def test_spark_statistics_equal_pandas_on_a_small_stream(spark):
    from experiments.data.spark_statistics import compute_statistics_spark

    one = small_stream()
    # two busy spells with an idle gap of ~880 s
    s = EventStream([Event(e.type, e.ts + k * 1000.0, e.attrs) for k in range(2) for e in one])
    expected = estimate_statistics(s, PATTERNS)
    got = compute_statistics_spark(s, PATTERNS, spark=spark, progress=False)
    assert got.rates == pytest.approx(dict(expected.rates), rel=1e-12)
    # the gap counts one 10 s window, not ~880 s: rates over the live time, not the span
    assert expected.rates["A"] > 1.5 * s.type_counts()["A"] / s.span_seconds
    assert dict(got.selectivities) == dict(expected.selectivities)
    assert set(got.selectivities) == {"a,b", "b,c", "a", "d,e"}


def test_rates_are_counts_over_the_live_time():
    s = EventStream([Event("A", 0.0, {}), Event("B", 1.0, {}), Event("A", 4.0, {})])
    # the gaps are 1 s and 3 s; under a 10 s window both count: live time 4 s, the span
    st = estimate_statistics(s, [parse_pattern("PATTERN SEQ(A a, Z z) WITHIN 10 s")])
    assert dict(st.rates) == {"A": 0.5, "B": 0.25, "Z": 0.0}
    # under a 1 s window the 3 s gap counts 1 s: live time 2 s
    st = estimate_statistics(s, [parse_pattern("PATTERN SEQ(A a, Z z) WITHIN 1 s")])
    assert dict(st.rates) == {"A": 1.0, "B": 0.5, "Z": 0.0}
    # a count window bounds no time: the span
    st = estimate_statistics(s, [parse_pattern("PATTERN SEQ(A a, Z z) WITHIN 2 events")])
    assert dict(st.rates) == {"A": 0.5, "B": 0.25, "Z": 0.0}


def test_pair_selectivity_is_the_exact_fraction_of_window_pairs():
    s = small_stream()
    p = PATTERNS[0]
    st = estimate_statistics(s, [p])
    W = p.window.size
    As = [e for e in s if e.type == "A"]
    Bs = [e for e in s if e.type == "B"]
    pairs = [(x, y) for x, y in itertools.product(As, Bs) if abs(x.ts - y.ts) <= W]
    assert st.selectivity(["a", "b"]) == sum(x.attrs["x"] < y.attrs["x"] for x, y in pairs) / len(pairs)
    same = [(x, y) for x, y in itertools.product(Bs, As) if abs(x.ts - y.ts) <= W]
    assert st.selectivity(["b", "c"]) == sum(x.attrs["diff"] + 1 > y.attrs["diff"] * 2 for x, y in same) / len(same)
    assert st.selectivity(["a"]) == sum(e.attrs["y"] > 40 for e in As) / len(As)


def test_same_type_pairs_exclude_the_event_itself():
    keys = np.array([0.0, 1.0, 1.0, 5.0])
    xi, yj, total = sample_pairs(keys, keys, 1.0, True, 1000, 0)
    pairs = set(zip(xi.tolist(), yj.tolist()))
    assert total == len(pairs) == 6
    assert pairs == {(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)}


def test_sampling_is_bounded_and_seeded():
    s = generate_stream({"A": 5.0, "B": 5.0}, 200.0, seed=1)
    p = parse_pattern("PATTERN SEQ(A a, B b) WHERE a.x < b.x WITHIN 60 seconds")
    exact = estimate_statistics(s, [p]).selectivity(["a", "b"])
    s1 = estimate_statistics(s, [p], max_pairs=2000, seed=7).selectivity(["a", "b"])
    s2 = estimate_statistics(s, [p], max_pairs=2000, seed=7).selectivity(["a", "b"])
    assert s1 == s2
    assert abs(s1 - exact) < 0.05


def test_statistics_json_round_trip_and_validation(tmp_path):
    st = Statistics({"MSFT": 1.25, "GOOG": 3.0}, {"m,g": 0.3, "m": 0.5})
    assert st.selectivity(["g", "m"]) == 0.3 and st.selectivity(["g"]) == 1.0
    path = tmp_path / "s.json"
    st.save(path)
    assert Statistics.load(path) == Statistics(st.rates, st.selectivities, str(path))
    path.write_text(json.dumps({"rates": {"A": 1}, "selectivities": {"a,b": 1.5}}))
    with pytest.raises(StatisticsError, match=r"selectivity 'a,b' must be a number in \[0, 1\]"):
        Statistics.load(path)
    path.write_text(json.dumps({"rates": {"A": -1}}))
    with pytest.raises(StatisticsError, match="rate of event type 'A'"):
        Statistics.load(path)
    path.write_text("{not json")
    with pytest.raises(StatisticsError, match="line 1 column 2"):
        Statistics.load(path)
    with pytest.raises(StatisticsError, match="no arrival rate for event type 'Z'"):
        st.require_types(["MSFT", "Z"])


def test_conditions_over_three_variables_are_refused():
    s = small_stream()
    p = parse_pattern("PATTERN SEQ(A a, B b, C c) WHERE a.x + b.x < c.x WITHIN 10 s")
    with pytest.raises(StatisticsError, match="3 variables"):
        estimate_statistics(s, [p])


@pytest.mark.spark
def test_spark_workload_statistics_equal_pandas_per_pattern(spark):
    from experiments.data.spark_statistics import compute_workload_statistics_spark
    from experiments.data.statistics import estimate_workload_statistics

    s = small_stream()
    # the same variable names with different types in different patterns: kept apart per pattern
    ws = [
        parse_pattern("PATTERN SEQ(A a, B b) WHERE a.x < b.x WITHIN 10 seconds"),
        parse_pattern("PATTERN SEQ(C a, B b) WHERE a.x < b.x AND a.y > 20 WITHIN 10 seconds"),
        parse_pattern("PATTERN AND(A a, A b) WHERE a.diff > b.diff WITHIN 3 events"),
    ]
    expected = estimate_workload_statistics(s, ws)
    got = compute_workload_statistics_spark(s, ws, spark=spark, progress=False)
    assert [dict(g.selectivities) for g in got] == [dict(e.selectivities) for e in expected]
    assert got[0].selectivity(["a", "b"]) != got[1].selectivity(["a", "b"])


@pytest.mark.spark
def test_spark_sampling_is_bounded(spark):
    from experiments.data.spark_statistics import compute_statistics_spark

    s = generate_stream({"A": 5.0, "B": 5.0}, 200.0, seed=1)
    p = parse_pattern("PATTERN SEQ(A a, B b) WHERE a.x < b.x WITHIN 60 seconds")
    exact = estimate_statistics(s, [p]).selectivity(["a", "b"])
    sampled = compute_statistics_spark(s, [p], spark=spark, max_pairs=3000, seed=5, progress=False).selectivity(["a", "b"])
    assert sampled != exact and abs(sampled - exact) < 0.05


@pytest.mark.spark
def test_spark_sampling_does_not_depend_on_how_spark_partitions_the_rows(spark):
    """The sample is a function of the candidates (a hash of seed, group and positions), not of row
    order: other shuffle partitions and parallelism give the same sampled selectivities."""
    from experiments.data.spark_statistics import compute_statistics_spark

    s = generate_stream({"A": 5.0, "B": 5.0, "C": 3.0}, 200.0, seed=2)
    ps = [parse_pattern("PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x AND b.x > c.x AND a.x > 0.3 WITHIN 60 seconds")]
    saved = spark.conf.get("spark.sql.shuffle.partitions")
    got = []
    try:
        for partitions in ("8", "3", "1"):
            spark.conf.set("spark.sql.shuffle.partitions", partitions)
            got.append(compute_statistics_spark(s, ps, spark=spark, max_pairs=500, seed=7, progress=False).selectivities)
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", saved)
    assert got[0] == got[1] == got[2] and set(got[0]) == {"a,b", "b,c", "a"}


@pytest.mark.spark
def test_spark_sampling_cut_keeps_the_sample_of_the_whole_ranking(spark, monkeypatch):
    """A large group is cut by its hash before it is ranked: the default cut (the sample plus 8 standard
    deviations), and one that keeps too few (half of that: such groups are ranked whole), give the
    selectivities of ranking every candidate (no cut: the hash of every row is below 2)."""
    from experiments.data import spark_statistics
    from experiments.data.spark_statistics import compute_statistics_spark

    s = generate_stream({"A": 5.0, "B": 5.0, "C": 3.0}, 120.0, seed=3)
    ps = [parse_pattern("PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x AND b.x > c.x AND a.x > 0.3 WITHIN 60 seconds")]
    got = {}
    for oversample in (1e9, 1.0, 0.5):
        monkeypatch.setattr(spark_statistics, "OVERSAMPLE", oversample)
        got[oversample] = compute_statistics_spark(s, ps, spark=spark, max_pairs=200, seed=11, progress=False).selectivities
    assert got[1.0] == got[0.5] == got[1e9] and set(got[1e9]) == {"a,b", "b,c", "a"}


# ---- one condition walker, three back ends (cep.conditions.evaluate_comparison) -----------------------
# small integers, zero among them, so that divisions by zero happen
ROWS = [{"a": {"x": float(ax), "y": float(ay)}, "b": {"x": float(bx), "y": float(by)}}
        for ax, ay, bx, by in itertools.product((-1, 0, 2), (0, 3), (0, 1, -2), (2, 0))]
LEAVES = st.one_of(
    st.builds(Attr, st.sampled_from("ab"), st.sampled_from("xy")),
    st.builds(Const, st.sampled_from((0.0, 1.0, -2.0, 0.5))),
)
EXPRESSIONS = st.recursive(
    LEAVES, lambda sub: st.one_of(st.builds(Neg, sub), st.builds(BinOp, st.sampled_from("+-*/"), sub, sub)), max_leaves=6
)
SPARK_CONDITIONS = ["a.x / (b.x - 1) < 1", "(a.y - b.y) / (a.x - b.x) != 2", "-a.x + b.y * 2 >= a.y / b.x", "a.x = b.x",
                    "a.x / 0 = 0", "-(a.x / (b.y - 2)) <= 0.5", "a.y / a.x > b.y / b.x", "(a.x - b.x) * (a.y / b.x) = 0"]


def _condition(text: str) -> Comparison:
    return parse_pattern(f"PATTERN SEQ(A a, B b) WHERE {text} WITHIN 1 s").conditions[0]


def _numpy_truth(c: Comparison) -> list[bool]:
    columns = {v: {a: np.array([r[v][a] for r in ROWS]) for a in ("x", "y")} for v in "ab"}
    return np.broadcast_to(eval_numpy(c, lambda var, attr: columns[var][attr]), (len(ROWS),)).tolist()


def _python_truth(c: Comparison) -> list[bool]:
    return [c.evaluate({v: Event(v.upper(), 0.0, r[v]) for v in "ab"}) for r in ROWS]


@settings(max_examples=300, deadline=None)
@given(st.builds(Comparison, st.sampled_from(COMPARISON_OPS), EXPRESSIONS, EXPRESSIONS))
def test_numpy_back_end_equals_the_python_back_end_row_by_row(c):
    assert _numpy_truth(c) == _python_truth(c)


def test_a_division_by_zero_makes_the_comparison_false():
    c = _condition("a.x / b.x != 7")
    expected = [r["b"]["x"] != 0 for r in ROWS]
    assert _python_truth(c) == expected
    assert _numpy_truth(c) == expected


@pytest.mark.spark
def test_spark_back_end_equals_the_numpy_back_end_row_by_row(spark):
    import pandas as pd

    from experiments.data.spark_statistics import condition_column

    conditions = [_condition(t) for t in SPARK_CONDITIONS]
    frame = pd.DataFrame({f"{v}__{a}": [r[v][a] for r in ROWS] for v in "ab" for a in ("x", "y")})
    df = spark.createDataFrame(frame.assign(row=range(len(ROWS))))
    columns = (condition_column(c, lambda v: v).alias(f"c{i}") for i, c in enumerate(conditions))
    got = df.orderBy("row").select(*columns).collect()
    for i, c in enumerate(conditions):
        assert [r[f"c{i}"] for r in got] == _numpy_truth(c), str(c)
