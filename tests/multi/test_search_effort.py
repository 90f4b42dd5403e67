"""Search effort in evaluated neighbours (algorithms/effort.py): every local search -- MCEP's SA and TS
over each neighbourhood, MOTTO's annealing -- evaluates exactly the neighbours its budget gives, or
fewer only when its neighbourhood runs out (recorded); the count it records is the number of
neighbours whose cost it computed, counted here independently; and the same seed and budget give the
same plan whatever the clock."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import algorithms.multi.search as search_module
from algorithms.effort import check_budget, shares
from algorithms.motto.steiner import SteinerGraph, simulated_annealing, solve
from algorithms.multi import MULTI_PLANNERS, plan_workload
from algorithms.multi.neighborhoods import Neighborhood
from cep.errors import ConfigError
from cep.parser import parse_patterns
from cep.statistics import Statistics

SEARCHES = [n for n, s in MULTI_PLANNERS.items() if s is not None]


@pytest.fixture(scope="module")
def workload():
    from experiments.bench.multi import search_workload

    return search_workload(16, 1)


class CostedNeighbours:
    """Counts, apart from the search's own counter, the neighbours whose cost the search computed: the
    moves ``Neighborhood.propose`` returned that the search then applied to its state (applying a move
    is what costs it, :class:`algorithms.multi.costs.IncrementalCost`)."""

    def __init__(self, monkeypatch) -> None:
        self.proposed: dict[int, dict] = {}  # id -> move (kept alive, so ids stay unique)
        self.costed: set[int] = set()
        self.ran_out = 0  # draws that found no neighbour left
        propose, apply = Neighborhood.propose, search_module._SearchState.apply

        def counting_propose(hood, rng, g):
            move = propose(hood, rng, g)
            if move is not None:
                self.proposed[id(move)] = move
            else:
                self.ran_out += 1
            return move

        def counting_apply(state, move):
            if id(move) in self.proposed:
                self.costed.add(id(move))
            return apply(state, move)

        monkeypatch.setattr(Neighborhood, "propose", counting_propose)
        monkeypatch.setattr(search_module._SearchState, "apply", counting_apply)


@pytest.mark.parametrize("name", SEARCHES)
@pytest.mark.parametrize("budget", [1, 37, 1234])
def test_a_search_evaluates_exactly_its_budget_of_neighbours(workload, name, budget, monkeypatch):
    """1: a budget shorter than one of TS's rounds and than SA's 1,000 initial neighbours; 37: cuts a
    round; 1,234: SA past its initial neighbours, TS over a dozen rounds."""
    pats, stats = workload
    counter = CostedNeighbours(monkeypatch)
    r = plan_workload(pats, name, stats, max_neighbours=budget, seed=4)
    assert len(counter.costed) == len(counter.proposed) == r.search.neighbours == r.neighbours
    assert sum(r.search.component_neighbours) == r.search.neighbours
    # the budget is spent exactly, unless a component's neighbourhood ran out (the last component's:
    # an earlier one's unspent share passes on), which the search records
    assert r.search.exhausted == counter.ran_out
    assert r.search.neighbours == budget if not r.search.exhausted else r.search.neighbours < budget
    if budget < 100:
        assert r.search.neighbours == budget


@pytest.mark.parametrize("name", ["SA-EDGE", "TS-EDGE", "TS-VERTEX8", "SA-EDGE-PREFIX"])
def test_the_same_seed_and_budget_give_the_same_plan_whatever_the_clock(workload, name):
    pats, stats = workload
    a = plan_workload(pats, name, stats, max_neighbours=700, seed=2, time_limit=1e-6)
    b = plan_workload(pats, name, stats, max_neighbours=700, seed=2, time_limit=600.0)
    assert a.plan.plans == b.plan.plans and a.cost == b.cost
    assert a.search.component_neighbours == b.search.component_neighbours
    assert a.search.neighbours == 700 or 0 < a.search.exhausted


def test_a_search_whose_neighbourhood_runs_out_stops_early_and_says_so(monkeypatch):
    """Two identical patterns already share their one common subtree in the initial MPM: every draw
    re-shares it, so the neighbourhood is empty (MCEP 4.2's restriction) and nothing is evaluated."""
    pats = parse_patterns("""PATTERN SEQ(A a, B b) WHERE a.x < b.x WITHIN 10 seconds
                             PATTERN SEQ(A a, B b) WHERE a.x < b.x WITHIN 10 seconds""")
    stats = Statistics({"A": 1.0, "B": 2.0}, {"a,b": 0.3})
    counter = CostedNeighbours(monkeypatch)
    for name in ("SA-EDGE", "TS-EDGE"):
        r = plan_workload(pats, name, stats, max_neighbours=100, seed=0)
        assert r.search.neighbours == 0 and r.search.exhausted == 1 and not counter.proposed


def test_a_time_limited_search_counts_what_it_evaluated(workload, monkeypatch):
    pats, stats = workload
    counter = CostedNeighbours(monkeypatch)
    r = plan_workload(pats, "TS-EDGE", stats, time_limit=0.2, seed=0)
    assert r.search.neighbours == len(counter.costed) == len(counter.proposed) > 0


@given(st.integers(0, 10**6), st.lists(st.integers(2, 40), min_size=1, max_size=8), st.data())
def test_shares_spend_the_budget_exactly_and_pass_on_what_a_part_leaves(budget, sizes, data):
    done: list[int] = []
    for i in range(len(sizes)):
        share = shares(budget, sizes, done)
        assert 0 <= share <= budget - sum(done)
        spent = data.draw(st.integers(0, share)) if i < len(sizes) - 1 else share  # an earlier part may run out
        done.append(spent)
    # what a part leaves is handed on: the parts spend the whole budget, the last one all that is left
    assert sum(done) == budget


def test_shares_are_proportional_to_the_parts_sizes():
    done: list[int] = []
    for _ in range(3):
        done.append(shares(1000, [10, 30, 60], done))
    assert done == [100, 300, 600]


@pytest.mark.parametrize("bad", [-1, 2.5, True, "many"])
def test_a_budget_is_a_whole_number_of_neighbours(bad):
    with pytest.raises(ConfigError, match="whole number of evaluated neighbours"):
        check_budget(bad)
    with pytest.raises(ConfigError):
        plan_workload(parse_patterns("PATTERN SEQ(A a, B b) WITHIN 10 seconds"), "SA-EDGE",
                      Statistics({"A": 1.0, "B": 1.0}), max_neighbours=bad)
    assert check_budget(0) == 0 and check_budget(12.0) == 12 and check_budget(None) is None


# ---- MOTTO's annealing (algorithms.motto.steiner) -----------------------------------------------------------
def _steiner_graph() -> SteinerGraph:
    """Root 0, terminals 1-4, Steiner vertices 5-7 that can feed them more cheaply than the root."""
    arcs = {(0, t): 10.0 for t in (1, 2, 3, 4)}
    arcs.update({(0, 5): 6.0, (0, 6): 7.0, (0, 7): 4.0, (5, 1): 1.0, (5, 2): 1.5, (6, 3): 2.0, (6, 4): 1.0,
                 (7, 5): 1.0, (5, 3): 9.0})
    return SteinerGraph(8, 0, frozenset({1, 2, 3, 4}), arcs)


@pytest.mark.parametrize("budget", [1, 255, 256, 1000])
def test_motto_annealing_evaluates_exactly_its_budget(budget, monkeypatch):
    g = _steiner_graph()
    calls = []
    tree = SteinerGraph.tree
    monkeypatch.setattr(SteinerGraph, "tree", lambda self, chosen: calls.append(1) or tree(self, chosen))
    r = simulated_annealing(g, seed=3, neighbours=budget, time_budget_s=math.inf)
    # one tree costed per neighbour, beside the start's and the result's
    assert r.neighbours == budget == len(calls) - 2 and not r.exhausted
    again = simulated_annealing(g, seed=3, neighbours=budget, time_budget_s=math.inf)
    assert again.chosen == r.chosen and again.cost == r.cost


def test_motto_annealing_without_steiner_vertices_is_exhausted():
    g = SteinerGraph(3, 0, frozenset({1, 2}), {(0, 1): 1.0, (0, 2): 1.0, (1, 2): 0.5})
    r = simulated_annealing(g, seed=0, neighbours=50, time_budget_s=math.inf)
    assert r.neighbours == 0 and r.exhausted


def test_motto_solve_records_the_annealing_neighbours():
    g = _steiner_graph()
    assert solve(g, time_budget_s=60.0, seed=0).neighbours == 0  # the exact search finished: no annealing
    r = solve(g, max_nodes=1, time_budget_s=math.inf, exact="combinatorial", sa_neighbours=321, sa_time_budget_s=math.inf)
    assert not r.exact and r.neighbours == 321
