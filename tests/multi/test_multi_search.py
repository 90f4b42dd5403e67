"""The multi-pattern graph (MCEP Appendix A), neighbourhoods and local search (Section 4.2, Appendix
B): the paper's MPG examples, searches never costlier than their start, exhaustive enumeration on
small workloads, determinism under a budget of evaluated neighbours, and the searched plans detect what each pattern
alone detects."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from evaluator_cases import all_orders, all_trees, random_stream
from hypothesis import given, settings
from hypothesis import strategies as st
from multi_cases import SLOW_OK, random_workload

from algorithms.multi import MULTI_PLANNERS, plan_workload
from algorithms.multi.costs import cost_multi, workload_models
from algorithms.multi.mpg import MultiPatternGraph
from cep.global_plans import build_global_plan, workload_clauses
from cep.parser import parse_patterns
from cep.plans import OrderPlan, TreePlan
from cep.statistics import Statistics
from evaluators.brute_force import brute_force_matches
from evaluators.multi import evaluate_workload

SEARCHES = [n for n, s in MULTI_PLANNERS.items() if s is not None]


def _mcs(text, min_size=1):
    pats = parse_patterns(text)
    g = MultiPatternGraph(workload_clauses(pats), min_size=min_size)
    return [[dict(cs.pairs) for cs in g.edges.get(((0, 0), (1, 0)), [])], g]


def test_conflicting_conditions_shrink_the_common_subpattern_to_and_b():
    # MCEP Appendix A's example (the text names E_12 = {A, B}; the patterns as printed share A and C --
    # we use the reading the issue states: the A.x conditions conflict and AND(B) remains)
    found, _ = _mcs("""
    PATTERN AND(A a, B b, C c) WHERE a.x < 10 WITHIN 10 seconds
    PATTERN AND(A a, B b, D d) WHERE a.x >= 10 WITHIN 10 seconds""")
    assert found == [{"b": "b"}]


def test_seq_order_gives_two_maximal_common_subpatterns():
    found, _ = _mcs("""
    PATTERN SEQ(A a, B b, C c) WITHIN 10 seconds
    PATTERN SEQ(A a, C c, B b) WITHIN 10 seconds""")
    assert sorted(map(sorted, (m.items() for m in found))) == [[("a", "a"), ("b", "b")], [("a", "a"), ("c", "c")]]


def test_pair_conditions_and_attributes_must_agree_and_window_is_the_smaller():
    found, g = _mcs("""
    PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x AND b.y < c.y WITHIN 10 seconds
    PATTERN SEQ(A p, B q, C r) WHERE p.x < q.x AND q.z < r.y WITHIN 5 seconds""")
    assert sorted(map(sorted, (m.items() for m in found))) == [[("a", "p"), ("b", "q")], [("a", "p"), ("c", "r")]]
    assert all(cs.window == 5.0 for cs in g.edges[((0, 0), (1, 0))])


def test_compact_representation_and_components():
    pats = parse_patterns("""
    PATTERN SEQ(A a, C c, B b) WITHIN 10 seconds
    PATTERN SEQ(A a, C c, D d) WITHIN 10 seconds
    PATTERN SEQ(A a, C c, E e) WITHIN 10 seconds
    PATTERN SEQ(F f, G g) WITHIN 10 seconds
    PATTERN SEQ(F x, G y, H z) WITHIN 10 seconds
    PATTERN SEQ(H h) WITHIN 10 seconds""")
    g = MultiPatternGraph(workload_clauses(pats), min_size=2)
    assert len(g.by_key) == 2  # SEQ(A, C) shared by three, SEQ(F, G) by two
    assert sorted(len(v) for v in g.by_key.values()) == [2, 3]
    assert all(len(g.of_owner[(i, 0)]) == 2 for i in range(3))
    assert g.components() == [[(0, 0), (1, 0), (2, 0)], [(3, 0), (4, 0)], [(5, 0)]]


def reachable_groups(nodes, edges) -> list[list]:
    """Connected components by breadth-first search (each sorted), largest first, then by owners."""
    adj = {v: set() for v in nodes}
    for a, b in edges:
        adj[a].add(b)
        adj[b].add(a)
    seen, out = set(), []
    for v in sorted(nodes):
        if v in seen:
            continue
        comp, todo = [], [v]
        seen.add(v)
        while todo:
            x = todo.pop()
            comp.append(x)
            for y in adj[x] - seen:
                seen.add(y)
                todo.append(y)
        out.append(sorted(comp))
    return sorted(out, key=lambda c: (-len(c), c))


@settings(SLOW_OK, max_examples=40)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 2]))
def test_components_are_the_connected_components_of_the_mpg(seed, min_size):
    rng = random.Random(seed)
    pats = random_workload(rng, n_base=rng.randint(1, 4), n_variants=rng.randint(0, 5))
    g = MultiPatternGraph(workload_clauses(pats), min_size=min_size)
    assert g.components() == reachable_groups(list(g.clauses), list(g.edges))


def _stats(rng):
    return Statistics({t: rng.choice([0.2, 0.5, 1.0, 2.0, 5.0]) for t in "ABCD"},
                      {"a,b": 0.3, "a,c": 0.5, "b,c": 0.2})


@settings(SLOW_OK, max_examples=10)
@given(st.integers(0, 2**32 - 1), st.sampled_from(SEARCHES))
def test_search_is_never_costlier_than_its_start_and_detects_per_pattern(seed, name):
    rng = random.Random(seed)
    pats = random_workload(rng, n_base=2, n_variants=3)
    stats = _stats(rng)
    r = plan_workload(pats, name, stats, time_limit=30, max_neighbours=150, seed=seed % 7)
    assert r.cost <= r.initial_cost * (1 + 1e-9)
    models = workload_models(workload_clauses(pats), stats)
    assert r.cost == pytest.approx(cost_multi(r.plan, models))
    stream = random_stream(rng, min_events=6, max_events=12)
    res = evaluate_workload(pats, r.plan, stream)
    for i, p in enumerate(pats):
        assert Counter(res.matches_by_pattern[i]) == Counter(brute_force_matches(p, stream.events))


def test_deterministic_under_a_step_budget():
    rng = random.Random(3)
    pats = random_workload(rng, n_base=3, n_variants=4)
    stats = _stats(rng)
    for name in ("SA-EDGE", "TS-VERTEX4", "SA-EDGE-PREFIX"):
        a = plan_workload(pats, name, stats, time_limit=60, max_neighbours=200, seed=1)
        b = plan_workload(pats, name, stats, time_limit=60, max_neighbours=200, seed=1)
        assert a.cost == b.cost and a.plan.plans == b.plan.plans


SEARCH_IN_A_CHILD = """
import json, random, sys
from multi_cases import random_workload
from algorithms.multi import plan_workload
from cep.statistics import Statistics
rng = random.Random(5)
pats = random_workload(rng, n_base=3, n_variants=4)
stats = Statistics({t: rng.choice([0.2, 0.5, 1.0, 2.0, 5.0]) for t in "ABCD"}, {"a,b": 0.3, "a,c": 0.5, "b,c": 0.2})
out = {n: plan_workload(pats, n, stats, max_neighbours=300, seed=7).plan.describe()["plans"] for n in sys.argv[1:]}
print(json.dumps(out, sort_keys=True))
"""


def test_a_seeded_search_is_the_same_in_another_process_with_another_hash_seed():
    """Each component's random stream comes from the seed (numpy's SeedSequence), not from Python's
    hash: another process, another PYTHONHASHSEED, the same plans."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    names = ["SA-EDGE", "TS-VERTEX4", "TS-EDGE-PREFIX"]
    helpers = os.pathsep.join(str(Path(__file__).resolve().parents[1] / d) for d in ("multi", "evaluators"))
    runs = []
    for hash_seed in ("1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": helpers}
        out = subprocess.run([sys.executable, "-c", SEARCH_IN_A_CHILD, *names], env=env, capture_output=True, text=True,
                             check=True)
        runs.append(json.loads(out.stdout))
    assert runs[0] == runs[1] and set(runs[0]) == set(names)


def test_a_negative_search_seed_is_a_config_error():
    from cep.errors import ConfigError

    pats = parse_patterns("""
    PATTERN SEQ(A a, B b, C c) WITHIN 10 seconds
    PATTERN SEQ(A a, B b, D d) WITHIN 10 seconds""")
    with pytest.raises(ConfigError, match="seed must be an integer >= 0, got -1"):
        plan_workload(pats, "SA-EDGE", Statistics({t: 1.0 for t in "ABCD"}), max_neighbours=10, seed=-1)


@pytest.mark.parametrize("name", ["SA-EDGE", "TS-EDGE", "SA-VERTEX4", "TS-EDGE-PREFIX"])
def test_a_time_limited_search_replays_exactly_from_its_recorded_steps(name):
    from experiments.bench.multi import search_workload

    pats, stats = search_workload(24, 0)
    # however many steps the clock allows on this machine, the replay of them is the same search
    timed = plan_workload(pats, name, stats, time_limit=0.3, seed=2)
    steps = timed.search.component_neighbours
    assert sum(steps) == timed.search.neighbours and steps
    again = plan_workload(pats, name, stats, time_limit=0.001, seed=2, replay_neighbours=steps)
    assert again.search.component_neighbours == steps
    assert again.plan.plans == timed.plan.plans and again.cost == timed.cost
    half = [x // 2 for x in steps]
    fewer = plan_workload(pats, name, stats, time_limit=0.001, seed=2, replay_neighbours=half)
    assert fewer.search.component_neighbours == half  # the replay runs the steps it is given, not the clock


SMALL = [
    """PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x WITHIN 10 seconds
       PATTERN SEQ(A a, B b, D d) WHERE a.x < b.x WITHIN 10 seconds""",
    """PATTERN AND(A a, B b, C c) WITHIN 10 seconds
       PATTERN AND(A a, C c, D d) WITHIN 10 seconds
       PATTERN SEQ(B b, C c, D d) WITHIN 5 seconds""",
    """PATTERN SEQ(A a, B b, C c) WITHIN 10 seconds
       PATTERN SEQ(A a, C c, B b) WITHIN 20 seconds
       PATTERN AND(B b, C c, D d) WITHIN 10 seconds""",
]


def _exhaustive(pats, stats, kind):
    cl = workload_clauses(pats)
    models = workload_models(cl, stats)
    options = []
    for o, sp in sorted(cl.items()):
        plans = [OrderPlan(x) for x in all_orders(sp.positive)] if kind == "order" else \
            [TreePlan(t) for t in all_trees(list(sp.positive))]
        options.append((o, plans))
    best = float("inf")
    for combo in itertools.product(*(p for _, p in options)):
        g = build_global_plan(kind, cl, {o: pl for (o, _), pl in zip(options, combo)})
        best = min(best, cost_multi(g, models))
    return best


@pytest.mark.parametrize("case", range(len(SMALL)))
@pytest.mark.parametrize("name", ["SA-EDGE", "TS-EDGE", "TS-VERTEX4", "SA-EDGE-PREFIX", "TS-EDGE-PREFIX"])
def test_exhaustive_enumeration_finds_nothing_cheaper_than_a_long_search(case, name):
    pats = parse_patterns(SMALL[case])
    stats = Statistics({"A": 3.0, "B": 0.5, "C": 1.0, "D": 2.0}, {"a,b": 0.3})
    kind = MULTI_PLANNERS[name].kind
    best = _exhaustive(pats, stats, kind)
    r = plan_workload(pats, name, stats, time_limit=60, max_neighbours=1500, seed=0)
    gap = r.cost / best - 1
    assert gap <= 1e-9, f"{name} on case {case}: search {r.cost:.6g}, exhaustive {best:.6g}, gap {gap:.2%}"


# ---- MCEP 4.2: a move never re-shares the subpattern the chosen owners already share ---------------
def _hood(text, kind, plans, *, k=2, vertex=False):
    from algorithms.multi.neighborhoods import LocalPlans, Neighborhood

    pats = parse_patterns(text)
    clauses = workload_clauses(pats)
    types = sorted({t for p in pats for t in p.event_types})
    models = workload_models(clauses, Statistics({t: 1.0 + i for i, t in enumerate(types)}, {}))
    mpg = MultiPatternGraph(clauses, min_size=1 if kind == "order" else 2)
    g = build_global_plan(kind, clauses, {(i, 0): p for i, p in enumerate(plans)})
    return g, Neighborhood(mpg, LocalPlans(kind, models), k=k, vertex=vertex)


def _drawn(g, hood, n=400):
    """The subpatterns the proposals drew, as frozensets of (owner, its variables)."""
    rng = random.Random(0)
    out = Counter()
    for _ in range(n):
        assert hood.propose(rng, g) is not None
        out[frozenset((o, frozenset(m.values())) for o, m in hood.last)] += 1
    return out


def _p(*owner_vars):
    return frozenset(((i, 0), frozenset(vs)) for i, vs in owner_vars)


def test_edge_prefix_never_proposes_the_shared_prefix_but_does_its_subpatterns():
    # both orders start (a, b): the longest common prefix is {a, b}; Gamma = {a}, {b}, {a, b}
    g, hood = _hood("""
    PATTERN SEQ(A a, B b, C c) WITHIN 10 seconds
    PATTERN SEQ(A a, B b, D d) WITHIN 10 seconds""", "order", [OrderPlan(("a", "b", "c")), OrderPlan(("a", "b", "d"))])
    drawn = _drawn(g, hood)
    assert _p((0, "ab"), (1, "ab")) not in drawn
    assert drawn[_p((0, "a"), (1, "a"))] > 0 and drawn[_p((0, "b"), (1, "b"))] > 0


def test_edge_prefix_shared_first_state_is_excluded_only_when_it_is_the_whole_shared_prefix():
    text = """
    PATTERN SEQ(A a, B b, C c) WITHIN 10 seconds
    PATTERN SEQ(A a, B b, D d) WITHIN 10 seconds"""
    g, hood = _hood(text, "order", [OrderPlan(("a", "c", "b")), OrderPlan(("a", "d", "b"))])
    drawn = _drawn(g, hood)  # they share the first state {a} only
    assert _p((0, "a"), (1, "a")) not in drawn and drawn[_p((0, "ab"), (1, "ab"))] > 0
    g, hood = _hood(text, "order", [OrderPlan(("c", "a", "b")), OrderPlan(("d", "a", "b"))])
    drawn = _drawn(g, hood)  # nothing shared (a is in both, but no common prefix): all of Gamma
    assert {p for p in drawn} == {_p((0, "a"), (1, "a")), _p((0, "b"), (1, "b")), _p((0, "ab"), (1, "ab"))}


def test_edge_on_multitree_excludes_every_maximal_shared_subtree():
    # two disjoint maximal shared subtrees {a, b} and {c, d}; {a, b, c, d} and the mixed pairs remain
    g, hood = _hood("""
    PATTERN AND(A a, B b, C c, D d, E e) WITHIN 10 seconds
    PATTERN AND(A a, B b, C c, D d, F f) WITHIN 10 seconds""", "tree",
                    [TreePlan(((("a", "b"), "e"), ("c", "d"))), TreePlan(((("a", "b"), "f"), ("c", "d")))])
    drawn = _drawn(g, hood)
    assert _p((0, "ab"), (1, "ab")) not in drawn and _p((0, "cd"), (1, "cd")) not in drawn
    for vs in ("abcd", "ac", "bd", "abc"):
        assert drawn[_p((0, vs), (1, vs))] > 0


def test_vertex_excludes_what_the_whole_group_shares_not_what_two_of_it_share():
    text = """
    PATTERN AND(A a, B b, C c) WITHIN 10 seconds
    PATTERN AND(A a, B b, D d) WITHIN 10 seconds
    PATTERN AND(A a, B b, E e) WITHIN 10 seconds"""
    trees = [TreePlan((("a", "b"), x)) for x in "cde"]
    g, hood = _hood(text, "tree", trees, k=4, vertex=True)
    assert hood.propose(random.Random(0), g) is None  # Gamma = {a, b} only, shared by all three
    g, hood = _hood(text, "tree", trees[:2] + [TreePlan(("a", ("b", "e")))], k=4, vertex=True)
    drawn = _drawn(g, hood)  # only owners 0 and 1 share {a, b}: the group of three may share it
    assert drawn == Counter({_p((0, "ab"), (1, "ab"), (2, "ab")): 400})


def test_a_neighbourhood_with_nothing_new_to_share_is_empty():
    from algorithms.multi.neighborhoods import already_shared

    g, hood = _hood("""
    PATTERN AND(A a, B b, C c) WITHIN 10 seconds
    PATTERN AND(A a, B b, D d) WITHIN 10 seconds""", "tree", [TreePlan((("a", "b"), "c")), TreePlan((("a", "b"), "d"))])
    assert already_shared(g, [((0, 0), {"a": "a", "b": "b"}), ((1, 0), {"a": "a", "b": "b"})])
    assert hood.propose(random.Random(0), g) is None
