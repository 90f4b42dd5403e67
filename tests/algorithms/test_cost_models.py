"""The cost formulas of JQPG 3.1, 3.2, 4, 5.1 and 5.2 on small patterns computed by hand."""

from __future__ import annotations

import itertools
import math
import warnings

import pytest

from algorithms import (
    CostOverflowWarning,
    cost_contiguity_ord,
    cost_lat_ord,
    cost_lat_tree,
    cost_next_ord,
    cost_next_tree,
    cost_ord,
    cost_tree,
    plan_cost,
    plan_log_cost,
    plan_pattern,
)
from algorithms.cost_model import ClauseCostModel
from algorithms.window_counts import kleene_log_rate, window_event_count
from cep import OrderPlan, Statistics, TreePlan, parse_pattern, to_dnf

W = 10.0
RATES = {"A": 2.0, "B": 0.5, "C": 1.5, "X": 6.0}
SELS = {"a": 0.5, "a,b": 0.1, "b,c": 0.2}


def clause(text: str):
    return to_dnf(parse_pattern(text))[0]


@pytest.fixture
def seq3():
    return clause("PATTERN SEQ(A a, B b, C c) WHERE a.x > 0 AND a.x < b.x AND b.x < c.x WITHIN 10 seconds")


@pytest.fixture
def stats():
    return Statistics(RATES, SELS)


def test_cost_ord_sums_the_expected_partial_matches_of_every_prefix(seq3, stats):
    ra, rb, rc = RATES["A"], RATES["B"], RATES["C"]
    pm1 = W * rb
    pm2 = W**2 * rb * ra * 0.5 * 0.1
    pm3 = W**3 * ra * rb * rc * 0.5 * 0.1 * 0.2
    assert cost_ord(seq3, ["b", "a", "c"], stats) == pytest.approx(pm1 + pm2 + pm3, rel=1e-12)


def test_cost_tree_sums_leaves_and_internal_nodes(seq3, stats):
    ra, rb, rc = RATES["A"], RATES["B"], RATES["C"]
    leaves = W * ra * 0.5 + W * rb + W * rc
    ac = (W * ra * 0.5) * (W * rc)
    root = W**3 * ra * rb * rc * 0.5 * 0.1 * 0.2
    assert cost_tree(seq3, (("a", "c"), "b"), stats) == pytest.approx(leaves + ac + root, rel=1e-12)


def test_latency_of_an_order_counts_the_buffered_events_after_the_last_event(seq3, stats):
    # T_n = c; after c come a (filtered) and b
    assert cost_lat_ord(seq3, ["c", "a", "b"], stats) == pytest.approx(W * RATES["A"] * 0.5 + W * RATES["B"])
    assert cost_lat_ord(seq3, ["a", "b", "c"], stats) == 0.0


def test_latency_of_a_tree_counts_the_siblings_on_the_path_of_the_last_event(seq3, stats):
    pm_a, pm_b = W * RATES["A"] * 0.5, W * RATES["B"]
    assert cost_lat_tree(seq3, (("a", "c"), "b"), stats) == pytest.approx(pm_a + pm_b)
    assert cost_lat_tree(seq3, (("a", "b"), "c"), stats) == pytest.approx(pm_a * pm_b * 0.1)


def test_combined_cost_adds_alpha_times_latency(seq3, stats):
    tree = TreePlan((("a", "c"), "b"))
    expected = cost_tree(seq3, tree.root, stats) + 0.7 * cost_lat_tree(seq3, tree.root, stats)
    assert plan_cost(seq3, tree, stats, alpha=0.7) == pytest.approx(expected, rel=1e-12)


def test_next_match_model_uses_the_smallest_rate_of_each_prefix(seq3, stats):
    ra, rb, rc = RATES["A"], RATES["B"], RATES["C"]
    m1 = W * ra * 0.5
    m2 = W * min(ra, rb) * 0.5 * 0.1
    m3 = W * min(ra, rb, rc) * 0.5 * 0.1 * 0.2
    assert cost_next_ord(seq3, ["a", "b", "c"], stats) == pytest.approx(m1 + m2 + m3, rel=1e-12)
    tree_expected = W * ra * 0.5 + W * rb + W * rc + m2 + m3
    assert cost_next_tree(seq3, (("a", "b"), "c"), stats) == pytest.approx(tree_expected, rel=1e-12)


def test_strategy_selects_the_model(stats):
    text = "PATTERN SEQ(A a, B b, C c) WHERE a.x > 0 AND a.x < b.x AND b.x < c.x WITHIN 10 seconds"
    nxt = clause(text + " STRATEGY skip-till-next-match")
    strict = clause(text + " STRATEGY strict-contiguity")
    order = ["a", "b", "c"]
    assert plan_cost(nxt, OrderPlan(tuple(order)), stats) == pytest.approx(cost_next_ord(nxt, order, stats))
    assert plan_cost(strict, OrderPlan(tuple(order)), stats) == pytest.approx(cost_contiguity_ord(strict, order, stats))


def test_contiguity_adds_an_adjacency_condition_per_neighbouring_pair(stats):
    sp = clause("PATTERN SEQ(A a, B b, C c) WHERE a.x > 0 AND a.x < b.x AND b.x < c.x WITHIN 10 seconds STRATEGY strict-contiguity")
    ra, rb, rc = RATES["A"], RATES["B"], RATES["C"]
    adj = 1.0 / (W * sum(RATES.values()))  # a-b and b-c are neighbours; a-c are not (b lies between)
    m1 = W * ra * 0.5
    m2 = W * min(ra, rc) * 0.5  # prefix {a, c}: no condition, not neighbours
    m3 = W * min(ra, rb, rc) * 0.5 * 0.1 * 0.2 * adj * adj
    assert cost_contiguity_ord(sp, ["a", "c", "b"], stats) == pytest.approx(m1 + m2 + m3, rel=1e-12)
    unordered = clause("PATTERN AND(A a, B b) WITHIN 10 seconds STRATEGY strict-contiguity")
    expected = W * ra + W * min(ra, rb) * 2 * adj
    assert cost_contiguity_ord(unordered, ["a", "b"], stats) == pytest.approx(expected, rel=1e-12)


def test_kleene_example_of_section_4_has_power_set_rate_2_to_the_50_over_10():
    assert kleene_log_rate(5.0, 10.0) == pytest.approx(math.log(2**50 / 10), rel=1e-15)
    sp = clause("PATTERN AND(A a, KL(B b), C c) WITHIN 10 seconds")
    stats = Statistics({"A": 5.0, "B": 5.0, "C": 5.0})
    model = ClauseCostModel(sp, stats)
    assert model.log_count[model.index["b"]] == pytest.approx(math.log(10 * 2**50 / 10), rel=1e-15)
    for name in ("EFREQ", "GREEDY", "DP-LD"):
        assert plan_pattern(parse_pattern("PATTERN AND(A a, KL(B b), C c) WITHIN 10 seconds"), name, stats).plan.plans[0].order[-1] == "b"


def test_bounded_kleene_counts_subsets_of_the_allowed_sizes():
    sp = clause("PATTERN SEQ(A a, KL(B b){2,3}) WITHIN 2 seconds")
    model = ClauseCostModel(sp, Statistics({"A": 1.0, "B": 3.0}))  # 6 events of B per window on average
    # E[C(N, 2) + C(N, 3)] for N ~ Poisson(6) is 6**2/2! + 6**3/3!
    assert math.exp(model.log_count[1]) == pytest.approx(6**2 / 2 + 6**3 / 6, rel=1e-12)


def test_bounded_kleene_of_a_sparse_type_still_costs_something():
    sp = clause("PATTERN SEQ(KL(A a){1,3}, B b, C c) WHERE a.x < c.x WITHIN 10 seconds")
    stats = Statistics({"A": 0.01, "B": 0.05, "C": 0.02})  # 0.1 events of A per window
    model = ClauseCostModel(sp, stats)
    assert math.exp(model.log_count[0]) == pytest.approx(0.1 + 0.01 / 2 + 0.001 / 6, rel=1e-12)
    assert cost_ord(sp, ["a", "b", "c"], stats) > 0.0


def test_count_window_uses_the_share_of_each_type_among_the_last_n_events():
    sp = clause("PATTERN SEQ(A a, B b) WITHIN 100 events")
    stats = Statistics({"A": 1.0, "B": 3.0, "OTHER": 6.0})
    assert window_event_count("A", stats, sp.window) == pytest.approx(10.0)
    assert cost_ord(sp, ["a", "b"], stats) == pytest.approx(10.0 + 10.0 * 30.0)


def test_negation_check_applies_where_its_dependencies_are_first_bound():
    text = "PATTERN AND(SEQ(A a, NOT(B n), C c), D d) WITHIN 10 seconds"
    sp = clause(text)
    assert sp.negation_dependencies("n") == {"a", "c"}
    stats = Statistics({"A": 1.0, "B": 0.3, "C": 1.0, "D": 1.0})
    lam = W * 0.3
    q = (1 - math.exp(-lam)) / lam
    early = W + W**2 * q + W**3 * q  # (a, c, d): the check runs once a and c are bound
    late = W + W**2 + W**3 * q  # (a, d, c): only after the last step
    assert cost_ord(sp, ["a", "c", "d"], stats) == pytest.approx(early, rel=1e-12)
    assert cost_ord(sp, ["a", "d", "c"], stats) == pytest.approx(late, rel=1e-12)
    tree_early = 3 * W + W**2 * q + W**3 * q
    assert cost_tree(sp, (("a", "c"), "d"), stats) == pytest.approx(tree_early, rel=1e-12)
    assert plan_pattern(parse_pattern(text), "DP-LD", stats).plan.plans[0].order[:2] in (("a", "c"), ("c", "a"))


def test_seq_selectivity_switch_applies_the_probability_of_the_declared_order(seq3, stats):
    order = ["b", "a", "c"]
    base = ClauseCostModel(seq3, stats)
    switched = ClauseCostModel(seq3, stats, seq_selectivity=True)
    masks = [0b010, 0b011, 0b111]
    for m, k in zip(masks, (1, 2, 3)):
        assert switched.log_node([m])[0] == pytest.approx(base.log_node([m])[0] - math.log(math.factorial(k)))
    assert cost_ord(seq3, order, stats, seq_selectivity=True) < cost_ord(seq3, order, stats)


def test_seq_selectivity_of_a_partial_order_counts_its_linear_extensions():
    sp = clause("PATTERN AND(SEQ(A a, B b), SEQ(C c, D d)) WITHIN 10 seconds")
    stats = Statistics({"A": 1.0, "B": 1.0, "C": 1.0, "D": 1.0})
    model = ClauseCostModel(sp, stats, seq_selectivity=True)
    plain = ClauseCostModel(sp, stats)
    prec = sp.positive_precedence
    for r in range(1, 5):
        for sub in itertools.combinations(sp.positive, r):
            ok = sum(
                all((u, v) not in prec for i, v in enumerate(p) for u in p[i + 1 :])
                for p in itertools.permutations(sub)
            )
            mask = model.mask_of(sub)
            expected = plain.log_node([mask])[0] + math.log(ok / math.factorial(r))
            assert model.log_node([mask])[0] == pytest.approx(expected, rel=1e-12)


def test_huge_kleene_costs_stay_finite_in_log_space_and_overflow_loudly():
    text = "PATTERN SEQ(A a, KL(B b), C c) WHERE a.x < c.x WITHIN 20 minutes"
    stats = Statistics({"A": 45.0, "B": 45.0, "C": 45.0}, {"a,c": 0.3})
    sp = clause(text)
    log_cost = plan_log_cost(sp, OrderPlan(("a", "c", "b")), stats)
    assert math.isfinite(log_cost) and log_cost > 45 * 1200 * math.log(2) * 0.99
    with pytest.warns(CostOverflowWarning):
        assert plan_cost(sp, OrderPlan(("a", "c", "b")), stats) == math.inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = plan_pattern(parse_pattern(text), "DP-B", stats)
    assert math.isfinite(result.log_cost) and result.cost == math.inf and result.to_json()["cost"] is None


def test_a_disjunction_sums_throughput_and_takes_the_latency_maximum():
    text = "PATTERN OR(SEQ(A a, B b), SEQ(C c, X x)) WITHIN 10 seconds"
    stats = Statistics(RATES)
    r = plan_pattern(parse_pattern(text), "TRIVIAL", stats, alpha=2.0)
    c0, c1 = to_dnf(parse_pattern(text))
    trpt = cost_ord(c0, ["a", "b"], stats) + cost_ord(c1, ["c", "x"], stats)
    lat = max(cost_lat_ord(c0, ["a", "b"], stats), cost_lat_ord(c1, ["c", "x"], stats))
    assert r.cost == pytest.approx(trpt + 2.0 * lat, rel=1e-12)
    r2 = plan_pattern(parse_pattern(text), "EFREQ", stats, alpha=2.0)  # b first, x ... puts T_n early
    lat2 = max(cost_lat_ord(c0, list(r2.plan.plans[0].order), stats), cost_lat_ord(c1, list(r2.plan.plans[1].order), stats))
    assert lat2 > 0
    assert len(r.plan.plans) == 2 and [str(p) for p in r.plan.plans] == ["a, b", "c, x"]
