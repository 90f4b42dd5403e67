"""Local search over global plans: simulated annealing and Tabu search (MCEP Section 4.2, Appendix B).

The state is one local plan per owner, held merged in a global plan (an MPT for the prefix
neighbourhood, an MPM otherwise) whose cost (:class:`algorithms.multi.costs.IncrementalCost`) moves
by the nodes a move adds and removes.  The initial state is the best local plan of every owner
("P_i = A(P_i, Stat) for all i").  Each connected component of the MPG is searched on its own, with
a share of the time limit proportional to its size; an owner without edges keeps its best plan.
Both meta-heuristics stop when the time runs out (Appendix B: "we only implemented the
timestamp-based stop condition"; ``max_steps`` also stops them, for deterministic runs) and return
the cheapest state seen, so a search never returns a plan costlier than its start.

A time-limited search is not reproducible, but everything in it except where it stops is: the random
draws are seeded per component (numpy's ``SeedSequence`` of the seed, spawned by the component's
first owner) and the deadline is only looked at between steps.  ``SearchStats.
component_steps`` records the steps each component's search took; ``replay_steps`` (that list) runs
exactly those steps with no clock, and returns the very plan the timed search returned.

* **Simulated annealing**: a neighbour is accepted when cheaper, otherwise with probability
  ``exp(-delta / c_k)``; ``c_k = 0.99 c_(k-1)``; ``c_0`` is the largest cost difference seen over
  ``I = 1000`` neighbours of the initial state.
* **Tabu search**: each step looks at ``L = 100`` random neighbours and moves to the cheapest one
  whose state is not in the tabu list (capacity ``C = 10^4`` states, oldest dropped first).  A state
  is identified by the XOR of the hashes of its (owner, plan) pairs, updated per move.

A *step* is one neighbour selected and its cost evaluated (Section 4.2); ``steps_per_s`` counts them.

Costs are compared as :mod:`algorithms.plan_ranking` compares plans, so that a search takes the same
path on every CPU: a neighbour whose cost ties with the current one (within ``COST_RTOL``) is no
worse (SA accepts it without drawing a random number), TS's best neighbour is the cheapest with ties
going to the least canonical key of the state it leads to, and the best state seen is replaced only
by a better one (cheaper, or tied at a smaller key).
"""

from __future__ import annotations

import math
import random
import time
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from cep.errors import ConfigError, PlanError
from cep.global_plans import GlobalPlan, Owner, build_global_plan

from algorithms.multi.costs import IncrementalCost
from algorithms.multi.neighborhoods import LocalPlans, Neighborhood
from algorithms.plan_ranking import better, cheaper, costs_tie, pick, plan_key


@dataclass
class SearchStats:
    steps: int = 0
    accepted: int = 0
    elapsed_s: float = 0.0
    c0: float | None = None
    trace: list = field(default_factory=list)  # (seconds since start, best cost)
    component_steps: list = field(default_factory=list)  # steps per searched component (for replay_steps)

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.elapsed_s if self.elapsed_s > 0 else 0.0


class _SearchState:
    """The current global plan, its cost, and the XOR hash of its local plans."""

    def __init__(self, g: GlobalPlan, cost: IncrementalCost) -> None:
        self.g = g
        self.cost = cost
        self.total = cost.total
        self.hash = 0
        for o, p in g.plans.items():
            self.hash ^= hash((o, p))

    def apply(self, move: dict) -> tuple[dict, float]:
        """Replace the owners' plans; returns the old plans (for :meth:`undo`) and the cost change."""
        old = {}
        for o, p in move.items():
            prev = self.g.plans[o]
            old[o] = prev
            if prev != p:
                self.g.replace(o, p)
                self.hash ^= hash((o, prev)) ^ hash((o, p))
        before = self.total
        self.total = self.cost.update()
        return old, self.total - before

    def undo(self, old: dict) -> None:
        self.apply(old)


def _snapshot(g: GlobalPlan, owners) -> dict:
    return {o: g.plans[o] for o in owners}


def _key(g: GlobalPlan, plans: dict, owners) -> tuple:
    """The canonical key of the state whose plans are ``plans`` over ``owners`` (the owners whose
    plans may differ between the states compared; :func:`algorithms.plan_ranking.global_plan_key`)."""
    return tuple((o, plan_key(plans.get(o, g.plans[o]), g.clauses[o].positive)) for o in sorted(owners))


def _better_than_best(state: "_SearchState", owners, best: float, best_plans: dict) -> bool:
    """Whether the current state beats the best one seen (:func:`algorithms.plan_ranking.better`;
    the keys are computed only for a tie)."""
    if costs_tie(state.total, best):
        return _key(state.g, {}, owners) < _key(state.g, best_plans, owners)
    return state.total < best


def _simulated_annealing(state: _SearchState, hood: Neighborhood, owners, rng: random.Random, deadline: float,
                        stats: SearchStats, *, alpha: float = 0.99, initial_neighbours: int = 1000,
                        max_steps: int | None = None, t_start: float = 0.0, total_steps: int | None = None) -> dict:
    """SA over one component; returns the best plans seen for ``owners``.  ``max_steps``: steps after
    the ``initial_neighbours``; ``total_steps``: exactly that many steps in all (a replay), no clock."""
    best_plans, best = _snapshot(state.g, owners), state.total
    c = 0.0
    if total_steps is not None:
        initial_neighbours = min(initial_neighbours, total_steps)
        max_steps = total_steps - initial_neighbours
    for _ in range(initial_neighbours):
        if max_steps is None and time.perf_counter() > deadline:
            break
        move = hood.propose(rng, state.g)
        if move is None:
            return best_plans
        old, d = state.apply(move)
        stats.steps += 1
        c = max(c, abs(d))
        if _better_than_best(state, owners, best, best_plans):
            best, best_plans = state.total, _snapshot(state.g, owners)
        state.undo(old)
    stats.c0 = c if stats.c0 is None else max(stats.c0, c)
    c = c or 1.0
    n = 0
    while (max_steps is None and time.perf_counter() < deadline) or (max_steps is not None and n < max_steps):
        move = hood.propose(rng, state.g)
        if move is None:  # every neighbour re-shares what is shared: nothing left to try
            break
        before = state.total
        old, d = state.apply(move)
        stats.steps += 1
        n += 1
        if not cheaper(before, state.total) or (c > 0 and rng.random() < math.exp(-d / c)):
            stats.accepted += 1
            if _better_than_best(state, owners, best, best_plans):
                best, best_plans = state.total, _snapshot(state.g, owners)
                stats.trace.append((time.perf_counter() - t_start, best))
        else:
            state.undo(old)
        c *= alpha
    return best_plans


def _tabu_search(state: _SearchState, hood: Neighborhood, owners, rng: random.Random, deadline: float,
                stats: SearchStats, *, neighbours: int = 100, capacity: int = 10_000,
                max_steps: int | None = None, t_start: float = 0.0, total_steps: int | None = None) -> dict:
    """TS over one component; returns the best plans seen for ``owners``.  ``max_steps``: whole
    rounds of ``neighbours`` until at least that many steps; ``total_steps``: exactly that many steps,
    the last round cut where they end (as the deadline cuts it; a replay), no clock."""
    if total_steps is not None:
        max_steps = total_steps
    best_plans, best = _snapshot(state.g, owners), state.total
    tabu: deque = deque()
    tabu_set: set = set()

    def remember(h):
        tabu.append(h)
        tabu_set.add(h)
        if len(tabu) > capacity:
            tabu_set.discard(tabu.popleft())

    remember(state.hash)
    n = 0
    while (max_steps is None and time.perf_counter() < deadline) or (max_steps is not None and n < max_steps):
        seen = []  # (cost after the move, move) of the neighbours not in the tabu list
        for _ in range(neighbours):
            move = hood.propose(rng, state.g)
            if move is None:
                return best_plans
            old, _ = state.apply(move)
            h, after = state.hash, state.total
            state.undo(old)
            stats.steps += 1
            n += 1
            if h not in tabu_set:
                seen.append((after, move))
            if max_steps is None and time.perf_counter() > deadline:
                break
            if total_steps is not None and n >= total_steps:
                break
        if not seen:
            continue
        moved = sorted({o for _, m in seen for o in m})
        _, choice = pick(seen, cost=lambda x: x[0], key=lambda x: _key(state.g, x[1], moved))
        state.apply(choice)
        stats.accepted += 1
        remember(state.hash)
        if _better_than_best(state, owners, best, best_plans):
            best, best_plans = state.total, _snapshot(state.g, owners)
            stats.trace.append((time.perf_counter() - t_start, best))
    return best_plans


def _component_seed(seed: int, first: Owner) -> int:
    """The seed of a component's search: numpy's SeedSequence of the run's ``seed``, spawned by the
    component's first owner, so each component draws its own stream whatever the others."""
    return int(np.random.SeedSequence(seed, spawn_key=tuple(first)).generate_state(1, np.uint64)[0])


def local_search(clauses, models, mpg, *, kind: str, heuristic: str, k: int = 2, vertex: bool = False,
                 time_limit: float = 5.0, seed: int = 0, max_steps: int | None = None,
                 replay_steps: list[int] | None = None,
                 order_planner: str = "DP-LD", tree_planner: str = "DP-B") -> tuple[GlobalPlan, SearchStats, float]:
    """Run SA or TS over every connected component of ``mpg``; returns the best global plan, the
    search statistics and the initial (best-local-plans) cost.  ``replay_steps``: the
    ``component_steps`` of an earlier search of the same workload and seed, replayed exactly."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ConfigError(f"the search seed must be an integer >= 0, got {seed!r}")
    local = LocalPlans(kind, models, order_planner=order_planner, tree_planner=tree_planner)
    initial = {o: local.best(o) for o in clauses}
    g = build_global_plan(kind, clauses, initial)
    cost = IncrementalCost(g, models)
    initial_cost = cost.total
    state = _SearchState(g, cost)
    hood = Neighborhood(mpg, local, k=k, vertex=vertex)
    stats = SearchStats()
    comps = [c for c in mpg.components() if len(c) > 1]
    total = sum(len(c) for c in comps) or 1
    t0 = time.perf_counter()
    stats.trace.append((0.0, initial_cost))
    if replay_steps is not None and len(replay_steps) != len(comps):
        raise PlanError(f"replay_steps has {len(replay_steps)} entries for {len(comps)} components")
    for i, comp in enumerate(comps):
        hood.restrict(comp)
        if not hood.edges:
            stats.component_steps.append(0)
            continue
        budget = time_limit * len(comp) / total
        deadline = time.perf_counter() + budget
        rng = random.Random(_component_seed(seed, comp[0]))
        per = None if max_steps is None else max(1, max_steps * len(comp) // total)
        exact = None if replay_steps is None else int(replay_steps[i])
        before = stats.steps
        if heuristic == "SA":
            best = _simulated_annealing(state, hood, comp, rng, deadline, stats, max_steps=per, t_start=t0, total_steps=exact)
        else:
            best = _tabu_search(state, hood, comp, rng, deadline, stats, max_steps=per, t_start=t0, total_steps=exact)
        stats.component_steps.append(stats.steps - before)
        state.apply(best)
    stats.elapsed_s = time.perf_counter() - t0
    cost.recompute()
    if better(initial_cost, _key(g, initial, initial), cost.total, _key(g, {}, initial)):  # drift only: keep the start
        for o, p in initial.items():
            if g.plans[o] != p:
                g.replace(o, p)
        cost.update()
        cost.recompute()
    return g, stats, initial_cost
