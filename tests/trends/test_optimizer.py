"""HAMLET's dynamic optimizer (Section 4): Equations 8-10, Figure 7, pruning, bursts, and the dynamic
executor's results."""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from algorithms.trends import (DynamicSharing, benefit, choose_sharing, detect_bursts, format_plan, prune_plans,
                               shared_cost, sharing_plans)
from algorithms.trends.optimizer import plan_cost
from cep.events import Event, EventStream
from cep.parser import parse_patterns
from evaluators.trends import HamletExecutor, run_hamlet, run_reference
from trend_cases import streams, workloads


def test_equation_8_share():
    assert shared_cost(b=4, n=7, s_p=1, s_c=1, k=2, g=4, t=2) == 44
    assert benefit(b=4, n=7, s_p=1, s_c=1, k=2, g=4, t=2) == 12


def test_equation_9_split():
    assert shared_cost(b=4, n=11, s_p=2, s_c=1, k=2, g=8, t=2) == 120
    assert benefit(b=4, n=11, s_p=2, s_c=1, k=2, g=8, t=2) == -32


def test_equation_10_merge():
    assert shared_cost(b=4, n=15, s_p=1, s_c=1, k=2, g=4, t=2) == 76
    assert benefit(b=4, n=15, s_p=1, s_c=1, k=2, g=4, t=2) == 44


def test_figure_7_search_space_and_snapshot_pruning():
    plans = sharing_plans([1, 2, 3, 4])
    assert len(plans) == 12
    names = {format_plan(p, [1, 2, 3, 4]) for p in plans}
    assert {"(1234)", "(134)(2)", "(12)(3)(4)", "(1)(2)(3)(4)"} <= names
    kept = prune_plans(plans, snapshot_free=[1, 3])
    assert sorted(format_plan(p, [1, 2, 3, 4]) for p in kept) == sorted(["(1234)", "(123)(4)", "(134)(2)", "(13)(2)(4)"])


def test_example_4_6_benefit_pruning_chooses_123():
    plans = prune_plans(sharing_plans([1, 2, 3, 4]), snapshot_free=[1, 3], beneficial=[2], not_beneficial=[4])
    assert [format_plan(p, [1, 2, 3, 4]) for p in plans] == ["(123)(4)"]


masks_strategy = st.integers(2, 5).flatmap(
    lambda k: st.tuples(st.just(k), st.lists(st.integers(0, (1 << k) - 1), min_size=1, max_size=12),
                        st.integers(1, 30), st.integers(1, 30), st.integers(1, 4)))


@settings(max_examples=200, deadline=None)
@given(masks_strategy)
def test_choice_evaluates_m_plus_1_plans_and_is_never_worse_than_not_sharing(args):
    k, masks, n, g, t = args
    b = len(masks)
    chosen, evaluated = choose_sharing(k, masks, b=b, n=n, g=g, t=t)
    free = [j for j in range(k) if all((m >> j) & 1 or not m for m in masks)]
    assert evaluated == 1 + (k - len(free))
    bits = sum(1 << j for j in chosen)
    if chosen:
        assert set(free) <= chosen and len(chosen) >= 2
        assert plan_cost(bits, k, masks, b=b, n=n, g=g, t=t) < plan_cost(0, k, masks, b=b, n=n, g=g, t=t)


@settings(max_examples=200, deadline=None)
@given(masks_strategy)
def test_without_predicates_the_choice_is_the_exhaustive_optimum(args):
    """When every query matches every event (no event-level snapshots), the pruned choice has the
    least cost over all 2^k plans (Theorems 4.3 and 4.5)."""
    k, masks, n, g, t = args
    masks = [(1 << k) - 1] * len(masks)
    b = len(masks)
    chosen, _ = choose_sharing(k, masks, b=b, n=n, g=g, t=t)
    best = min(plan_cost(sum(1 << j for j in c), k, masks, b=b, n=n, g=g, t=t)
               for r in range(k + 1) for c in itertools.combinations(range(k), r))
    assert plan_cost(sum(1 << j for j in chosen), k, masks, b=b, n=n, g=g, t=t) == best


def test_bursts_of_the_worked_example():
    s = "a a c b b b b a a c c c b b".split()
    events = [Event(t.upper(), float(i), {}, i) for i, t in enumerate(s)]
    bursts = detect_bursts(events, "B", ["A", "C"], pane=60)
    assert [b.positions for b in bursts] == [(3, 4, 5, 6), (12, 13)]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams(max_events=14), workloads(max_queries=4, count_only=True, same_partition=True))
def test_dynamic_hamlet_equals_reference(s, qs):
    ref = run_reference(qs, s).as_dict()
    assert run_hamlet(qs, s, policy=DynamicSharing()).as_dict() == ref


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams(max_events=14, types=["A", "B", "B", "B", "C", "D"]), workloads(max_queries=4, count_only=False, same_partition=True, aggregate_shared=True))
def test_dynamic_hamlet_equals_reference_when_non_count_queries_share(s, qs):
    """Split and merge decisions over graphlets shared by SUM/AVG/MIN/MAX/COUNT(v) queries."""
    ref = run_reference(qs, s).as_dict()
    assert run_hamlet(qs, s, policy=DynamicSharing()).as_dict() == ref


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams(), workloads())
def test_dynamic_hamlet_equals_reference_on_mixed_workloads(s, qs):
    assert run_hamlet(qs, s, policy=DynamicSharing()).as_dict() == run_reference(qs, s).as_dict()


def test_dynamic_policy_splits_when_predicates_make_snapshots():
    """Two queries share B+ but disagree on every other B: sharing would need a snapshot per such
    event, so the optimizer keeps the burst non-shared (a split); without predicates it shares."""
    evs = [Event("A", 0.0, {}), Event("C", 0.0, {})] + [Event("B", float(i), {"x": i % 2}) for i in range(1, 13)]
    stream = EventStream(evs)
    qs = parse_patterns("RETURN COUNT(*) PATTERN SEQ(A a, B b+) WITHIN 1 hours\n"
                        "RETURN COUNT(*) PATTERN SEQ(C c, B b+) WHERE b.x = 0 WITHIN 1 hours")
    ex = HamletExecutor(qs, DynamicSharing())
    r = ex.run(stream)
    assert r.extra["shared_graphlets"] == 0 and r.as_dict() == run_reference(qs, stream).as_dict()
    qs2 = parse_patterns("RETURN COUNT(*) PATTERN SEQ(A a, B b+) WITHIN 1 hours\n"
                         "RETURN COUNT(*) PATTERN SEQ(C c, B b+) WITHIN 1 hours")
    r2 = HamletExecutor(qs2, DynamicSharing()).run(stream)
    assert r2.extra["shared_graphlets"] == 1


@settings(max_examples=200, deadline=None)
@given(masks_strategy)
def test_count_only_keys_cost_what_equation_7_costs(args):
    """Candidates with no aggregate beside the count (empty keys) cost exactly Equation 7's plans."""
    k, masks, n, g, t = args
    b = len(masks)
    empty = [frozenset()] * k
    for bits in range(1 << k):
        assert plan_cost(bits, k, masks, b=b, n=n, g=g, t=t, keys=empty) == plan_cost(bits, k, masks, b=b, n=n, g=g, t=t)
    assert choose_sharing(k, masks, b=b, n=n, g=g, t=t, keys=empty) == choose_sharing(k, masks, b=b, n=n, g=g, t=t)


def test_tuple_widths_are_charged():
    """Two queries sharing a burst of E without snapshots (b=2, n=5, g=1, t=3).  As COUNT(*) queries
    sharing costs 2*5 + 2*3 = 16 < 20: share.  Aggregating different attributes of E (SUM and MAX of
    E.a; SUM and MIN of E.b) the shared coefficient is 5 wide and each state 3: 2*5*5 + 6*3 = 68 > 6*10:
    do not share.  With the same aggregate (SUM(E.a) both): 2*5*2 + 4*3 = 32 < 40: share."""
    masks, kw = [3, 3], {"b": 2, "n": 5, "g": 1, "t": 3}
    assert shared_cost(b=2, n=5, s_p=1, s_c=1, k=2, g=1, t=3, w=5, kw=6) == 68
    assert choose_sharing(2, masks, **kw)[0] == {0, 1}
    apart = [frozenset({(True, "sum", "a"), (True, "max", "a")}), frozenset({(True, "sum", "b"), (True, "min", "b")})]
    assert choose_sharing(2, masks, **kw, keys=apart)[0] == frozenset()
    same = [frozenset({(True, "sum", "a")})] * 2
    assert choose_sharing(2, masks, **kw, keys=same)[0] == {0, 1}


def test_the_executor_gives_the_policy_each_candidates_aggregates():
    """A burst's keys: per candidate its entries beside the count, those on the shared type marked."""
    seen = []

    class Recording(DynamicSharing):
        def decide(self, burst):
            seen.append(burst.keys)
            return super().decide(burst)

    qs = parse_patterns("RETURN COUNT(*) PATTERN SEQ(A a, B b+) WITHIN 1 hours\n"
                        "RETURN SUM(b.x), MAX(a.x) PATTERN SEQ(A a, B b+) WITHIN 1 hours")
    evs = [Event("A", 0.0, {"x": 1})] + [Event("B", float(i), {"x": i}) for i in range(1, 4)]
    HamletExecutor(qs, Recording()).run(EventStream(evs))
    assert seen == [(frozenset(), frozenset({(True, "sum", "x"), (False, "max", 0, "x")}))]


def test_the_default_benefit_model_is_equation_7_and_tuple_width_is_an_option():
    """Item 4(b) of issue 34: the optimizer decides with Equation 7 as published unless told to charge
    tuple widths.  The burst of test_tuple_widths_are_charged, two queries aggregating different attributes
    of E: Equation 7 shares it (16 < 20, as for COUNT(*) queries), the tuple-width model does not (68 > 60)."""
    import pytest

    from algorithms.trends import BENEFIT_MODELS, DEFAULT_BENEFIT_MODEL
    from cep.errors import ConfigError
    from evaluators.trends.hamlet import BurstInfo

    apart = (frozenset({(True, "sum", "a"), (True, "max", "a")}), frozenset({(True, "sum", "b"), (True, "min", "b")}))
    burst = BurstInfo("E", (0, 1), [3, 3], 2, 5, 1, 3, apart)
    assert DEFAULT_BENEFIT_MODEL == "equation7" and set(BENEFIT_MODELS) == {"equation7", "tuple-width"}
    assert DynamicSharing().decide(burst) == {0, 1}
    assert DynamicSharing(benefit_model="equation7").decide(burst) == {0, 1}
    assert DynamicSharing(benefit_model="tuple-width").decide(burst) == frozenset()
    with pytest.raises(ConfigError, match="benefit model must be one of equation7, tuple-width, got 'widths'"):
        DynamicSharing(benefit_model="widths")


def test_hamlet_cells_record_their_benefit_model():
    """The model is a parameter of every dynamic-HAMLET cell (its rows' params), Equation 7 unless
    ``exp.benefit_model`` says otherwise; the other engines' cells do not carry it."""
    import json

    import pytest

    from cep.errors import ConfigError
    from experiments.commands.run import compose_config
    from experiments.exps.hamlet import build_specs

    specs = build_specs(compose_config(["+exp=hamlet_fig11"]))
    assert {s["params"].get("benefit_model") for s in specs if s["algorithm"] == "hamlet"} == {"equation7"}
    assert all("benefit_model" not in s["params"] for s in specs if s["algorithm"] != "hamlet")
    wide = build_specs(compose_config(["+exp=hamlet_fig11", "+exp.benefit_model=tuple-width"]))
    assert {json.dumps(s["params"].get("benefit_model")) for s in wide if s["algorithm"] == "hamlet"} == {'"tuple-width"'}
    with pytest.raises(ConfigError, match=r"hamlet_fig11.yaml: exp.benefit_model must be one of equation7, tuple-width"):
        build_specs(compose_config(["+exp=hamlet_fig11", "+exp.benefit_model=widths"]))
