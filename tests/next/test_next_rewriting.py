"""NEXT's cost algebra and rewriting (Section 4.2, 4.3): the paper's worked examples (Fig. 4, Fig. 6),
the DP against exhaustive enumeration, and rewritten queries against the originals."""

from __future__ import annotations

import math
import random

import pytest
from next_cases import random_pattern, random_stream

from algorithms.next.chain import all_trees, exact_dp, exhaustive, index_of, paper_dp, tree_cost
from algorithms.next.costs import next_cost, next_chars, query_cost, source_chars, union_chars
from algorithms.next.exceptions import pull_in, push_out
from algorithms.next.rewrite import rewrite
from algorithms.next.union import find_optimal_union, union_tree_cost
from cep import Statistics, parse_pattern
from cep.next_algebra import Except, Next, NextPattern, Source, Union, format_next_expr
from cep.pattern import Window
from evaluators.next.engine import detect
from evaluators.next.reference import reference_matches

RATES = {f"S{2 ** i}": float(2 ** i) for i in range(8)}  # NEXT Section 6: 1, 2, 4, ... 128 events/s
STATS = Statistics({**RATES, **{t: 1.0 + 3 * i for i, t in enumerate("ABCDE")}})

# Fig. 4 gives its rates in the figure only; these are ours.  With them the Huffman greedy of Fig. 3
# yields exactly the pattern and cost the caption states.
FIG4_RATES = {"E1": 800.0, "E2": 250.0, "E3": 350.0, "E4": 500.0}


# ---- Table 1 -------------------------------------------------------------------------------------------
def test_table1_next_and_union_by_hand():
    s1, s128 = source_chars(1.0), source_chars(128.0)
    # S1 ; S128: mu(E1) + DT2/DT1 * bsize1 * bsize2 * brate2 + max(brate2 - brate1, 0) * bsize2
    assert next_cost(s1, s128) == pytest.approx(1 + (1 / 128) * 128 + 127)
    # S128 ; S1: every S1 event ends a burst of the ~128 instances opened since the last one
    assert next_cost(s128, s1) == pytest.approx(128 + 128 * 1 * 1 * 1)
    c = next_chars(s128, s1)
    assert (c.rate, c.dt, c.bsize, c.brate) == pytest.approx((128, 1 + 1 / 128, 128, 1))
    u = union_chars(s1, s128)
    assert (u.rate, u.dt, u.bsize, u.brate) == pytest.approx((129, 1 / 129, 129, 129))


def test_query_cost_is_the_sum_of_the_operators_cpu():
    p = parse_pattern("PATTERN (S128 a ; S1 b) | (S2 c \\ S4 d) WHERE FILTER(c.x > 1) WITHIN 1 minutes")
    # next 256, exception mu(S2) + mu(S4) = 6, filter on S2 = 2, union mu(S128;S1) + mu(S2\S4) = 128 + 2
    assert query_cost(p, STATS) == pytest.approx(256 + 6 + 2 + 130)


# ---- union rewriting: Fig. 3 and Fig. 4 -------------------------------------------------------------
def test_fig4_union_example_is_rewritten_to_the_papers_pattern_and_cost():
    p = parse_pattern("PATTERN E1 e1 | E2 e2 | E3 e3 | E4 e4 WITHIN 1 minutes")
    r = rewrite(p, Statistics(FIG4_RATES))
    assert format_next_expr(r.rewritten.expr) == "E1 e1 | (E4 e4 | (E2 e2 | E3 e3))"
    assert r.cost_after == 3600.0  # "with a cost of 3600 events/second"
    assert r.cost_before == 3 * 800 + 3 * 250 + 2 * 350 + 500  # as issued: ((E1|E2)|E3)|E4


def test_fig3_joins_the_two_lowest_rates_first():
    ops = [Source(t, t.lower()) for t in FIG4_RATES]
    trace = []
    find_optimal_union(ops, lambda o: FIG4_RATES[o.type], trace)
    assert [(format_next_expr(l), format_next_expr(r), rate) for l, r, rate in trace] == [
        ("E2 e2", "E3 e3", 600.0),
        ("E4 e4", "E2 e2 | E3 e3", 1100.0),
        ("E1 e1", "E4 e4 | (E2 e2 | E3 e3)", 1900.0),
    ]


@pytest.mark.parametrize("seed", range(30))
def test_huffman_equals_exhaustive_enumeration_of_union_trees(seed):
    rng = random.Random(seed)
    n = rng.randint(2, 6)
    ops = [Source(f"T{i}", f"v{i}") for i in range(n)]
    rates = {f"T{i}": float(rng.choice([1, 2, 4, 8, 16, 32, 64, 128])) for i in range(n)}
    rate = lambda o: rates[o.type]  # noqa: E731
    best = min(union_tree_cost(_tree(t, ops, Union), rate) for t in _all_orders_trees(n))
    assert union_tree_cost(find_optimal_union(ops, rate), rate) == pytest.approx(best)


def _all_orders_trees(n):
    import itertools

    for perm in itertools.permutations(range(n)):
        for t in all_trees(0, n - 1):
            yield _relabel(t, perm)


def _relabel(t, perm):
    return perm[t] if isinstance(t, int) else (_relabel(t[0], perm), _relabel(t[1], perm))


def _tree(t, ops, op=Next):
    return ops[t] if isinstance(t, int) else op(_tree(t[0], ops, op), _tree(t[1], ops, op))


# ---- next rewriting: Fig. 5 and Fig. 6 -----------------------------------------------------------------
def test_fig6_run_of_the_next_dp_step_by_step():
    chars = [source_chars(r) for r in (4.0, 64.0, 1.0, 32.0, 8.0)]  # E1..E5
    trace = []
    paper_dp(chars, trace=trace)
    lists = {rec[1]: rec[2] for rec in trace if rec[0] == "list"}
    # after length 2: list = [E1, E2, E3, E4, E5, (E1;E2), (E2;E3), (E3;E4), (E4;E5)]
    assert lists[2] == [0, 1, 2, 3, 4, (0, 1), (1, 2), (2, 3), (3, 4)]
    assert [index_of(a, b, 5) for a, b in ((0, 0), (4, 4), (0, 1), (3, 4), (0, 2))] == [0, 4, 5, 8, 9]
    # "i = 0, j = 2:  k = 0: E1;(E2;E3)   k = 1: (E1;E2);E3"
    l3 = [rec for rec in trace if rec[0] == "candidate" and rec[1] == 3]
    assert [(i, j, k, (left, right)) for _, _, i, j, k, left, right, _ in l3[:2]] == [
        (0, 2, 0, (0, (1, 2))),
        (0, 2, 1, ((0, 1), 2)),
    ]
    # the cheaper of the two is appended (line 13), then the same for E2;E3;E4 (i = 1) "and so on"
    first_two = {tuple(rec[5:7]): rec[7] for rec in l3[:2]}
    assert lists[3][9] == min(first_two, key=first_two.get)
    assert [(i, j) for _, _, i, j, *_ in l3[2:4]] == [(1, 3), (1, 3)]
    assert len(lists[5]) == 15  # sum_{i=1}^{n} i subexpressions at termination


@pytest.mark.parametrize("seed", range(60))
def test_dp_equals_exhaustive_enumeration_up_to_six_operands(seed):
    rng = random.Random(seed)
    n = rng.randint(2, 6)
    chars = [source_chars(rng.choice([1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 0.5, 300.0])) for _ in range(n)]
    best = exhaustive(chars)
    found = exact_dp(chars)
    assert found.cost == pytest.approx(best.cost, rel=1e-12)
    assert tree_cost(found.tree, chars).cost == pytest.approx(found.cost, rel=1e-12)


def test_the_printed_dp_of_fig5_misses_the_cheapest_grouping_on_some_chains():
    """Fig. 5 keeps one subexpression per interval, but a subexpression's burst size and rate depend
    on its grouping: on S128;S8;S4;S64 it returns a tree almost twice as costly as the best."""
    chars = [source_chars(r) for r in (128.0, 8.0, 4.0, 64.0)]
    paper, best = paper_dp(chars), exhaustive(chars)
    assert best.tree == (0, ((1, 2), 3)) and best.cost == pytest.approx(234.0)
    assert paper.tree == ((0, 1), (2, 3)) and paper.cost == pytest.approx(460.0)
    assert exact_dp(chars).cost == pytest.approx(best.cost)


def test_dp_respects_skip_predicates_and_still_equals_exhaustive():
    p = parse_pattern("PATTERN S128 a ; S1 b ; S64 c ; S2 d ; S8 e WHERE FILTER(a.x = c.x) WITHIN 1 minutes")
    r = rewrite(p, STATS)
    from algorithms.next.chain import skip_split_rule

    rule = skip_split_rule([(0, 2)])
    chars = [source_chars(RATES[t]) for t in ("S128", "S1", "S64", "S2", "S8")]
    assert exact_dp(chars, rule).cost == pytest.approx(exhaustive(chars, rule).cost)
    assert r.cost_after <= r.cost_before
    r.rewritten.operators  # the rewritten grouping places FILTER(a.x = c.x) (raises otherwise)


# ---- exception push-down ---------------------------------------------------------------------------------
def test_exception_is_pushed_out_of_the_next_when_that_is_cheaper():
    p = parse_pattern("PATTERN S2 a ; (S64 b \\ S1 c) WITHIN 1 minutes")
    r = rewrite(p, STATS)
    assert format_next_expr(r.rewritten.expr) == "(S2 a ; S64 b) \\ S1 c"
    # exception operator: mu(S64) + mu(S1) before, mu(S2;S64) + mu(S1) = 2 + 1 after
    assert r.cost_before - r.cost_after == pytest.approx(64 - 2)


@pytest.mark.parametrize("seed", range(25))
def test_pushing_an_exception_through_next_keeps_the_composite_events(seed):
    rng = random.Random(seed)
    e1 = rng.choice([Source("A", "a"), Union(Source("A", "a"), Source("B", "b"))])
    e2 = rng.choice([Source("C", "c"), Next(Source("C", "c"), Source("D", "d")), Union(Source("C", "c"), Source("B", "x"))])
    f = rng.choice([Source("E", "f"), Source("D", "f")])
    left = Next(e1, Except(e2, f))
    right = push_out(left)
    assert right == Except(Next(e1, e2), f) and pull_in(right) == left
    stream = random_stream(rng, 60)
    a = NextPattern(left, window=Window.seconds(10))
    b = NextPattern(right, window=Window.seconds(10))
    assert reference_matches(a, stream) == reference_matches(b, stream) == detect(b, stream)


def test_push_down_needs_an_instantaneous_first_operand():
    """With a composite E1 an exception event inside E1's span cancels (E1;E2)\\E3 but not
    E1;(E2\\E3): the rule is not applied there."""
    from cep import Event, EventStream

    e1 = Next(Source("A", "a"), Source("B", "b"))
    left = Next(e1, Except(Source("C", "c"), Source("F", "f")))
    assert push_out(left) is None
    s = EventStream([Event("A", 1.0, {}), Event("F", 2.0, {}), Event("B", 3.0, {}), Event("C", 4.0, {})])
    w = Window.seconds(10)
    assert len(reference_matches(NextPattern(left, window=w), s)) == 1
    assert reference_matches(NextPattern(Except(Next(e1, Source("C", "c")), Source("F", "f")), window=w), s) == []


# ---- rewritten queries -------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(60))
def test_rewritten_query_is_never_costlier_and_detects_the_same_events(seed):
    rng = random.Random(500 + seed)
    p = random_pattern(rng, rng.randint(3, 6), window=12.0)
    stats = Statistics({t: float(rng.choice([1, 2, 4, 8, 16, 32, 64, 128])) for t in "ABCDE"})
    r = rewrite(p, stats)
    assert r.cost_after <= r.cost_before
    assert r.cost_after == pytest.approx(query_cost(r.rewritten, stats))
    assert parse_pattern(str(r.rewritten)) == r.rewritten  # prints as text that parses
    stream = random_stream(rng, 70)
    assert detect(r.rewritten, stream) == reference_matches(p, stream), f"{p}\n{r.rewritten}"


@pytest.mark.parametrize("workload", ["next", "union"])
def test_rewriting_lowers_the_cost_of_random_next_and_union_queries_on_the_papers_sources(workload):
    rng = random.Random(11)
    gains = []
    for _ in range(30):
        ops = [Source(rng.choice(list(RATES)), f"v{i}") for i in range(6)]
        expr = _random_tree(rng, ops, Next if workload == "next" else Union)
        p = NextPattern(expr, window=Window.seconds(60))
        r = rewrite(p, STATS)
        gains.append(r.cost_before / r.cost_after)
    assert min(gains) >= 1.0 and max(gains) > 1.2


def _random_tree(rng, ops, op):
    if len(ops) == 1:
        return ops[0]
    k = rng.randint(1, len(ops) - 1)
    return op(_random_tree(rng, ops[:k], op), _random_tree(rng, ops[k:], op))


def test_dp_at_size_ten_is_the_exact_optimum_among_thousands_of_trees():
    chars = [source_chars(r) for r in (128.0, 1.0, 64.0, 2.0, 32.0, 4.0, 16.0, 8.0, 1.0, 128.0)]
    trees = all_trees(0, 9)
    assert len(trees) == 4862  # Catalan(9)
    assert exact_dp(chars).cost == pytest.approx(min(tree_cost(t, chars).cost for t in trees))
    assert math.isfinite(paper_dp(chars).cost)


@pytest.mark.parametrize("seed", range(25))
def test_rewritten_query_detects_what_our_brute_force_finds_for_the_original(seed):
    """On the SEQ/OR/NOT fragment the original query also runs on our own brute-force matcher
    (cep.next_mapping): the rewritten query must detect exactly those events."""
    from cep import Match
    from cep.next_mapping import to_pattern
    from evaluators.brute_force import brute_force_matches
    from next_cases import Names, random_expr

    rng = random.Random(900 + seed)
    names = Names()
    ops = [random_expr(rng, rng.randint(1, 2), ops=("union",), names=names) for _ in range(rng.randint(3, 5))]
    p = NextPattern(_random_tree(rng, ops, Next), window=Window.seconds(6))
    stats = Statistics({t: float(rng.choice([1, 2, 4, 8, 16, 32, 64, 128])) for t in "ABCDE"})
    r = rewrite(p, stats)
    stream = random_stream(rng, 45)
    q, back = to_pattern(p)
    ours = sorted(Match(tuple(sorted((back[v], ps) for v, ps in m.bindings))) for m in brute_force_matches(q, stream))
    assert detect(r.rewritten, stream) == ours


def test_plan_command_prints_the_rewritten_pattern_and_its_cost_before_and_after(tmp_path):
    import json
    import subprocess
    import sys

    stats = tmp_path / "rates.json"
    stats.write_text(json.dumps({"rates": FIG4_RATES}))
    out = subprocess.run([sys.executable, "-m", "experiments", "plan", "PATTERN E1 | E2 | E3 | E4 WITHIN 1 minutes",
                          "--planner", "NEXT", "--stats", str(stats), "--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout)
    assert (r["cost_before"], r["cost_after"]) == (4350.0, 3600.0)
    assert parse_pattern(r["rewritten"]).expr == parse_pattern("PATTERN E1 _1 | (E4 _4 | (E2 _2 | E3 _3)) WITHIN 1 minutes").expr
    bad = subprocess.run([sys.executable, "-m", "experiments", "plan", "PATTERN SEQ(E1 a, E2 b) WITHIN 1 minutes",
                          "--planner", "NEXT", "--stats", str(stats)], capture_output=True, text=True)
    assert bad.returncode == 2 and "pairs E1 a with every later E2 event" in bad.stderr
