"""Local search over global plans: simulated annealing and Tabu search (MCEP Section 4.2, Appendix B).

The state is one local plan per owner, held merged in a global plan (an MPT for the prefix
neighbourhood, an MPM otherwise) whose cost (:class:`algorithms.multi.costs.IncrementalCost`) moves
by the nodes a move adds and removes.  The initial state is the best local plan of every owner
("P_i = A(P_i, Stat) for all i").  Each connected component of the MPG is searched on its own; an
owner without edges keeps its best plan.  Both meta-heuristics return the cheapest state seen, so a
search never returns a plan costlier than its start.

**Budget.**  MCEP's searches stop when the time runs out (Appendix B: "we only implemented the
timestamp-based stop condition").  Here the budget is the search's effort: ``max_neighbours``
*evaluated neighbours* (MCEP 4.2's steps, defined once in :mod:`algorithms.effort`), split over the
components in proportion to their sizes (:func:`algorithms.effort.shares`).  A search evaluates
exactly that many unless a component's neighbourhood runs out (``SearchStats.exhausted``), and is
deterministic.  Without ``max_neighbours`` the components share ``time_limit`` seconds in proportion
to their sizes: such a search is not reproducible, but everything in it except where it stops is
(the random draws are seeded per component -- numpy's ``SeedSequence`` of the seed, spawned by the
component's first owner -- and the deadline is looked at only between two evaluated neighbours).
``SearchStats.component_neighbours`` records the neighbours each component's search evaluated;
``replay_neighbours`` (that list) evaluates exactly those with no clock, and returns the very plan
the timed search returned.

* **Simulated annealing**: a neighbour is accepted when cheaper, otherwise with probability
  ``exp(-delta / c_k)``; ``c_k = 0.99 c_(k-1)``; ``c_0`` is the largest cost difference seen over
  ``I = 1000`` neighbours of the initial state.
* **Tabu search**: each step looks at ``L = 100`` random neighbours and moves to the cheapest one
  whose state is not in the tabu list (capacity ``C = 10^4`` states, oldest dropped first).  A state
  is identified by the XOR of the hashes of its (owner, plan) pairs, updated per move.

Both count every neighbour they evaluate against the one budget: SA's ``I`` initial neighbours
and TS's ``L`` candidates of a round each count one; the budget may end TS's last round early, and the
search then moves to the best candidate of the part it evaluated (so a replay ends where the clock did).

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

from algorithms.effort import Effort, check_budget, shares
from algorithms.multi.costs import IncrementalCost
from algorithms.multi.neighborhoods import LocalPlans, Neighborhood
from algorithms.plan_ranking import better, cheaper, costs_tie, pick, plan_key


@dataclass
class SearchStats:
    """What a search did.  ``neighbours``: the neighbours it evaluated (:mod:`algorithms.effort`);
    ``component_neighbours``: those of each searched MPG component, in search order (what
    ``replay_neighbours`` replays); ``exhausted``: the components whose neighbourhood ran out before
    their budget or time did."""

    neighbours: int = 0
    accepted: int = 0
    elapsed_s: float = 0.0
    c0: float | None = None
    trace: list = field(default_factory=list)  # (seconds since start, best cost)
    component_neighbours: list = field(default_factory=list)
    exhausted: int = 0

    @property
    def neighbours_per_s(self) -> float:
        return self.neighbours / self.elapsed_s if self.elapsed_s > 0 else 0.0


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

    def evaluate(self, move: dict, effort: Effort) -> tuple[dict, float]:
        """Move to a neighbour and compute its cost: one evaluated neighbour (:mod:`algorithms.effort`),
        counted here and nowhere else."""
        out = self.apply(move)
        effort.spend()
        return out

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


def _running(effort: Effort, deadline: float) -> bool:
    """Whether a search may evaluate one more neighbour: within its budget of neighbours when it has
    one (no clock then), else before its deadline."""
    return effort.left() if effort.budget is not None else time.perf_counter() < deadline


def _simulated_annealing(state: _SearchState, hood: Neighborhood, owners, rng: random.Random, deadline: float,
                        stats: SearchStats, effort: Effort, *, alpha: float = 0.99, initial_neighbours: int = 1000,
                        t_start: float = 0.0) -> dict:
    """SA over one component; returns the best plans seen for ``owners``.  The ``initial_neighbours``
    that set ``c_0`` are evaluated neighbours like the others and come out of the same budget."""
    best_plans, best = _snapshot(state.g, owners), state.total
    c = 0.0
    for _ in range(initial_neighbours):
        if not _running(effort, deadline):
            break
        move = hood.propose(rng, state.g)
        if move is None:
            effort.exhausted = True
            return best_plans
        old, d = state.evaluate(move, effort)
        c = max(c, abs(d))
        if _better_than_best(state, owners, best, best_plans):
            best, best_plans = state.total, _snapshot(state.g, owners)
        state.undo(old)
    stats.c0 = c if stats.c0 is None else max(stats.c0, c)
    c = c or 1.0
    while _running(effort, deadline):
        move = hood.propose(rng, state.g)
        if move is None:  # every neighbour re-shares what is shared: nothing left to try
            effort.exhausted = True
            break
        before = state.total
        old, d = state.evaluate(move, effort)
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
                stats: SearchStats, effort: Effort, *, neighbours: int = 100, capacity: int = 10_000,
                t_start: float = 0.0) -> dict:
    """TS over one component; returns the best plans seen for ``owners``.  A round evaluates up to
    ``neighbours`` candidates; the budget (or the deadline) cuts the last round where it ends, and the
    search still moves to the best candidate that round evaluated."""
    best_plans, best = _snapshot(state.g, owners), state.total
    tabu: deque = deque()
    tabu_set: set = set()

    def remember(h):
        tabu.append(h)
        tabu_set.add(h)
        if len(tabu) > capacity:
            tabu_set.discard(tabu.popleft())

    remember(state.hash)
    while _running(effort, deadline):
        seen = []  # (cost after the move, move) of the neighbours not in the tabu list
        for _ in range(neighbours):
            if not _running(effort, deadline):
                break
            move = hood.propose(rng, state.g)
            if move is None:
                effort.exhausted = True
                return best_plans
            old, _ = state.evaluate(move, effort)
            h, after = state.hash, state.total
            state.undo(old)
            if h not in tabu_set:
                seen.append((after, move))
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
                 time_limit: float = 5.0, seed: int = 0, max_neighbours: int | None = None,
                 replay_neighbours: list[int] | None = None,
                 order_planner: str = "DP-LD", tree_planner: str = "DP-B") -> tuple[GlobalPlan, SearchStats, float]:
    """Run SA or TS over every connected component of ``mpg``; returns the best global plan, the
    search statistics and the initial (best-local-plans) cost.

    The budget: ``max_neighbours`` evaluated neighbours (:mod:`algorithms.effort`; no clock), split
    over the components by :func:`algorithms.effort.shares`; or ``replay_neighbours``, the
    ``component_neighbours`` of an earlier search of the same workload and seed, replayed exactly;
    or else ``time_limit`` seconds, shared by the components in proportion to their sizes."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ConfigError(f"the search seed must be an integer >= 0, got {seed!r}")
    max_neighbours = check_budget(max_neighbours, "max_neighbours")
    local = LocalPlans(kind, models, order_planner=order_planner, tree_planner=tree_planner)
    initial = {o: local.best(o) for o in clauses}
    g = build_global_plan(kind, clauses, initial)
    cost = IncrementalCost(g, models)
    initial_cost = cost.total
    state = _SearchState(g, cost)
    hood = Neighborhood(mpg, local, k=k, vertex=vertex)
    stats = SearchStats()
    comps = [c for c in mpg.components() if len(c) > 1]
    sizes = [len(c) for c in comps]
    total = sum(sizes) or 1
    t0 = time.perf_counter()
    stats.trace.append((0.0, initial_cost))
    if replay_neighbours is not None and len(replay_neighbours) != len(comps):
        raise PlanError(f"replay_neighbours has {len(replay_neighbours)} entries for {len(comps)} components")
    for i, comp in enumerate(comps):
        hood.restrict(comp)
        if replay_neighbours is not None:
            budget = check_budget(replay_neighbours[i], "replay_neighbours")
        elif max_neighbours is not None:
            budget = shares(max_neighbours, sizes, stats.component_neighbours)
        else:
            budget = None
        effort = Effort(budget)
        if hood.edges:
            deadline = time.perf_counter() + time_limit * len(comp) / total
            rng = random.Random(_component_seed(seed, comp[0]))
            search = _simulated_annealing if heuristic == "SA" else _tabu_search
            best = search(state, hood, comp, rng, deadline, stats, effort, t_start=t0)
            state.apply(best)
        else:
            effort.exhausted = budget != 0
        stats.component_neighbours.append(effort.evaluated)
        stats.neighbours += effort.evaluated
        stats.exhausted += effort.exhausted
    stats.elapsed_s = time.perf_counter() - t0
    cost.recompute()
    if better(initial_cost, _key(g, initial, initial), cost.total, _key(g, {}, initial)):  # drift only: keep the start
        for o, p in initial.items():
            if g.plans[o] != p:
                g.replace(o, p)
        cost.update()
        cost.recompute()
    return g, stats, initial_cost
