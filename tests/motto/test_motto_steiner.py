"""MOTTO's query planner (Section V-B): exact DSMT by branch and bound equals brute force on small
graphs; simulated annealing never worse than the trivial plan; workload 1's sharing graph."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from algorithms.motto.graph import build_graph
from algorithms.motto.query import conj, seq
from algorithms.motto.steiner import (
    SteinerGraph,
    branch_and_bound,
    components,
    milp_branch_and_bound,
    simulated_annealing,
    solve,
)
from cep.errors import PlanError
from cep.pattern import Window
from cep.statistics import Statistics


def brute_force_dsmt(g: SteinerGraph) -> float:
    """Every subset of arcs with one in-arc per vertex it spans, kept if every terminal is reached
    from the root: the cheapest such tree (independent of the planner's formulation)."""
    best = math.inf
    others = [v for v in range(g.n) if v != g.root]
    for k in range(len(g.steiner) + 1):
        for chosen in itertools.combinations(g.steiner, k):
            span = sorted(set(g.terminals) | set(chosen))
            choices = [[(u, w) for (u, v2), w in g.arcs.items() if v2 == v] for v in span]
            for pick in itertools.product(*choices):
                parent = {v: u for v, (u, _) in zip(span, pick)}
                if any(u != g.root and u not in parent for u in parent.values()):
                    continue
                ok = True
                for v in span:  # reach the root (a cycle never does)
                    seen, x = set(), v
                    while x != g.root:
                        if x in seen:
                            ok = False
                            break
                        seen.add(x)
                        x = parent[x]
                    if not ok:
                        break
                if ok:
                    best = min(best, sum(w for _, w in pick))
    del others
    return best


@st.composite
def small_dags(draw, max_n: int = 7):
    n = draw(st.integers(2, max_n))
    order = list(range(1, n))  # topological order 1..n-1 after the root
    nt = draw(st.integers(1, n - 1))
    terminals = frozenset(draw(st.permutations(order))[:nt])
    arcs = {}
    for v in order:
        arcs[(0, v)] = float(draw(st.integers(1, 30)))
        for u in order:
            if u < v and draw(st.integers(0, 2)) == 0:
                arcs[(u, v)] = float(draw(st.integers(0, 30)))
    return SteinerGraph(n, 0, terminals, arcs)


@settings(max_examples=150, deadline=None)
@given(small_dags())
def test_both_exact_searches_equal_brute_force(g):
    expected = brute_force_dsmt(g)
    for r in (branch_and_bound(g, time_budget_s=math.inf), milp_branch_and_bound(g, time_budget_s=math.inf)):
        assert r.exact
        assert r.cost == pytest.approx(expected)
        cost, parent = g.tree(r.chosen)
        assert cost == pytest.approx(r.cost)
        assert set(g.terminals) <= set(parent)


@settings(max_examples=100, deadline=None)
@given(small_dags(max_n=9), st.integers(0, 3))
def test_annealing_never_worse_than_trivial(g, seed):
    sa = simulated_annealing(g, seed=seed, neighbours=300, time_budget_s=math.inf)
    assert sa.cost <= g.trivial_cost() + 1e-9
    assert sa.cost >= branch_and_bound(g, time_budget_s=math.inf).cost - 1e-9
    assert simulated_annealing(g, seed=seed, neighbours=300, time_budget_s=math.inf).chosen == sa.chosen  # deterministic


def test_solve_falls_back_to_annealing_when_the_budget_is_spent():
    g = SteinerGraph(4, 0, frozenset({1, 3}), {(0, 1): 5.0, (0, 2): 3.0, (0, 3): 5.0, (2, 1): 1.0, (2, 3): 1.0})
    # a budget of nodes, not seconds: the branch and bound needs one node here (the greedy incumbent
    # is optimal and the bound proves it at the root); with none it stops and annealing takes over
    spent = solve(g, exact="combinatorial", max_nodes=0, time_budget_s=math.inf, sa_time_budget_s=math.inf)
    assert spent.method == "annealing" and not spent.exact
    assert spent.cost == pytest.approx(5.0) and spent.chosen == frozenset({2})
    enough = solve(g, exact="combinatorial", max_nodes=1, time_budget_s=math.inf)
    assert enough.method == "exact" and enough.explored == 1
    assert branch_and_bound(g, max_nodes=0, time_budget_s=math.inf).method == "branch-and-bound (budget)"
    assert solve(g, time_budget_s=math.inf).exact and solve(g, time_budget_s=math.inf).chosen == frozenset({2})
    assert solve(g, exact="combinatorial", time_budget_s=math.inf).chosen == frozenset({2})
    with pytest.raises(PlanError, match="unknown exact"):
        solve(g, exact="lp")


def test_cycles_are_refused():
    with pytest.raises(PlanError, match="cycle"):
        SteinerGraph(3, 0, frozenset({1, 2}), {(0, 1): 1.0, (1, 2): 1.0, (2, 1): 1.0})
    with pytest.raises(PlanError, match="cycle"):  # a longer one, away from the root
        SteinerGraph(5, 0, frozenset({1, 4}), {(0, 1): 1.0, (1, 2): 1.0, (2, 3): 1.0, (3, 4): 1.0, (4, 2): 1.0})
    SteinerGraph(5, 0, frozenset({1, 4}), {(0, 1): 1.0, (1, 2): 1.0, (2, 3): 1.0, (3, 4): 1.0, (2, 4): 1.0})  # a DAG: accepted


@settings(max_examples=100, deadline=None)
@given(small_dags(max_n=9))
def test_components_are_the_weak_components_without_the_root(g):
    adj = {v: set() for v in range(g.n) if v != g.root}
    for u, v in g.arcs:
        if u != g.root:
            adj[u].add(v)
            adj[v].add(u)
    expected, seen = [], set()
    for v in sorted(adj):  # breadth-first search, components in order of their least vertex
        if v in seen:
            continue
        comp, todo = {v}, [v]
        while todo:
            for y in adj[todo.pop()] - comp:
                comp.add(y)
                todo.append(y)
        seen |= comp
        expected.append(frozenset(comp))
    assert components(g) == expected


# ---- workload 1 (MOTTO Listing 1) ------------------------------------------------------------
W = Window.seconds(10)
WORKLOAD1 = [
    seq("E1", "E2", "E3", window=W, name="q1"),
    seq("E1", "E3", window=W, name="q2"),
    seq("E1", "E2", "E4", window=W, name="q3"),
    seq("E2", "E4", "E3", window=W, name="q4"),
    conj("E1", "E3", window=W, name="q5"),
]
STATS = Statistics({"E1": 1.0, "E2": 0.5, "E3": 2.0, "E4": 1.0})


def test_workload1_sharing_graph_holds_the_papers_edges():
    """Figures 2, 4, 5, 8, 12: q0 -> every query (Figure 2), q2 -> q1 (MST, Figure 4), the shared
    sub-query SEQ(E2, E4) -> q3, q4 (DST, Figure 5), q5 -> q2 (OTT, Figure 8); both SEQ(E1, E2) -> q1
    and q2 -> q1 exist, and a tree keeps at most one of them (Section V-A's conflict)."""
    sg = build_graph(WORKLOAD1, STATS)
    v = {n: i for i, n in enumerate(sg.names)}
    sub = {sg.vertices[i].body(): i for i in sg.graph.steiner}
    assert set(sub) == {"SEQ(E1, E2)", "SEQ(E2, E3)", "SEQ(E2, E4)"}
    arcs = sg.graph.arcs
    assert all((0, v[q]) in arcs for q in ("q1", "q2", "q3", "q4", "q5"))
    assert (v["q2"], v["q1"]) in arcs and (v["q5"], v["q2"]) in arcs
    assert (sub["SEQ(E2, E4)"], v["q3"]) in arcs and (sub["SEQ(E2, E4)"], v["q4"]) in arcs
    assert (sub["SEQ(E1, E2)"], v["q1"]) in arcs and (sub["SEQ(E1, E2)"], v["q3"]) in arcs
    r = branch_and_bound(sg.graph, time_budget_s=math.inf)
    assert r.exact and r.cost == pytest.approx(brute_force_dsmt(sg.graph))
    assert r.cost < sg.graph.trivial_cost()
    assert r.parent[v["q2"]] == v["q5"]  # Figure 8: Filter_sc over q5 is cheaper than q2 from scratch


def test_annealing_and_exact_on_a_table_v_workload():
    from algorithms.motto.workloads import table_v_workload

    qs = table_v_workload(12, seed=5, r=0.5)
    sg = build_graph(qs, Statistics({f"E{i}": 0.2 + 0.1 * i for i in range(1, 14)}))
    exact = milp_branch_and_bound(sg.graph, time_budget_s=math.inf)
    assert exact.exact
    assert branch_and_bound(sg.graph, time_budget_s=math.inf).cost == pytest.approx(exact.cost)
    sa = simulated_annealing(sg.graph, seed=1, neighbours=2000, time_budget_s=math.inf)
    assert exact.cost - 1e-9 <= sa.cost <= sg.graph.trivial_cost() + 1e-9


def test_solve_falls_back_to_annealing_from_the_incumbent():
    """Past its budget the exact search hands its incumbent to annealing (Section V-B)."""
    from algorithms.motto.workloads import table_v_workload

    sg = build_graph(table_v_workload(40, seed=0), Statistics({f"E{i}": 0.1 * i for i in range(1, 14)}))
    r = solve(sg.graph, max_nodes=256, time_budget_s=math.inf, exact="combinatorial", sa_neighbours=500,
              sa_time_budget_s=math.inf)
    assert r.method == "annealing" and not r.exact
    assert milp_branch_and_bound(sg.graph, time_budget_s=math.inf).cost - 1e-9 <= r.cost <= sg.graph.trivial_cost() + 1e-9
