"""Multi-pattern optimizers by the names MCEP uses (Section 6.1), in one registry.

| name | neighbourhood | meta-heuristic | global plan |
| --- | --- | --- | --- |
| ``SA-EDGE``, ``TS-EDGE`` | ``N_edge`` over subtrees | SA / Tabu | MPM (tree evaluator) |
| ``SA-VERTEX4``, ``TS-VERTEX4`` | ``N_vertex^4`` | SA / Tabu | MPM |
| ``SA-VERTEX8``, ``TS-VERTEX8`` | ``N_vertex^8`` | SA / Tabu | MPM |
| ``SA-EDGE-PREFIX``, ``TS-EDGE-PREFIX`` | ``N_edge`` over prefixes | SA / Tabu | MPT (multi-pattern NFA) |
| ``TRIVIAL`` | -- | -- | each pattern alone in its written order, nothing shared (MPT) |
| ``SH``, ``RE``, ``SH-RR`` | -- | -- | the baselines of MCEP 6.2.2 (:mod:`algorithms.multi.baselines`, MPT) |
| ``SH-MDT`` | -- | MOTTO's Steiner tree | MOTTO mapped onto an MPM (:mod:`algorithms.multi.sh_mdt`) |
| ``NA``, ``MST``, ``LCSE`` | -- | MOTTO's baselines (VII-A) | no sharing / merge sharing / longest common sub-expression, MPM (:mod:`algorithms.motto.baselines`) |

:func:`plan_workload` also accepts every single-pattern planner of :mod:`algorithms.registry`: each
pattern is planned alone and nothing is shared (an unshared MPT or MPM, by the planner's kind); and
methods from other packages, by entry point or ``module:Class`` (:mod:`algorithms.plugins`): a
:class:`algorithms.multi.base.MultiOptimizer`'s global plan is checked to cover every clause.
Every result carries the cost of the trivial global plan of the same kind (written orders, or their
left-deep trees, nothing shared) for comparison.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cep.errors import PlanError
from cep.global_plans import GlobalPlan, build_global_plan, workload_clauses
from cep.plans import TreePlan, left_deep_tree

from algorithms.multi.costs import cost_multi, workload_models
from algorithms.multi.mpg import MultiPatternGraph
from algorithms.multi.search import SearchStats, local_search

if TYPE_CHECKING:
    from algorithms.motto import MottoPlan


@dataclass(frozen=True)
class MultiSpec:
    heuristic: str  # "SA" or "TS"
    vertex: bool
    k: int
    kind: str  # "order" (MPT) or "tree" (MPM)


MULTI_PLANNERS: dict[str, MultiSpec | None] = {
    "TRIVIAL": None,
    "SA-EDGE": MultiSpec("SA", False, 2, "tree"),
    "TS-EDGE": MultiSpec("TS", False, 2, "tree"),
    "SA-VERTEX4": MultiSpec("SA", True, 4, "tree"),
    "TS-VERTEX4": MultiSpec("TS", True, 4, "tree"),
    "SA-VERTEX8": MultiSpec("SA", True, 8, "tree"),
    "TS-VERTEX8": MultiSpec("TS", True, 8, "tree"),
    "SA-EDGE-PREFIX": MultiSpec("SA", False, 2, "order"),
    "TS-EDGE-PREFIX": MultiSpec("TS", False, 2, "order"),
}


BASELINE_NAMES = ("SH", "RE", "SH-RR")  # MCEP 6.2.2; built by algorithms.multi.baselines (MPT)
MOTTO_BASELINE_NAMES = ("NA", "MST", "LCSE")  # MOTTO VII-A; built by algorithms.multi.sh_mdt (MPM)


def multi_planner_names() -> list[str]:
    return list(MULTI_PLANNERS) + list(BASELINE_NAMES) + ["SH-MDT"] + list(MOTTO_BASELINE_NAMES)


def method_kind(name: str) -> str:
    """``"single"`` for a single-pattern planner, ``"multi"`` for a multi-pattern optimizer (built-in or
    not); a name that is neither is a one-line PlanError."""
    from algorithms.multi.base import MultiOptimizer
    from algorithms.planners.base import Planner
    from algorithms.plugins import MULTI_GROUP, PLANNER_GROUP, resolve
    from algorithms.registry import PLANNERS

    if name in PLANNERS:
        return "single"
    if name in multi_planner_names():
        return "multi"
    cls = resolve(name, (PLANNER_GROUP, MULTI_GROUP), (Planner, MultiOptimizer), list(PLANNERS) + multi_planner_names())
    return "multi" if issubclass(cls, MultiOptimizer) else "single"


@dataclass
class MultiPlanned:
    planner: str
    plan: GlobalPlan
    cost: float
    trivial_cost: float
    initial_cost: float
    plan_time_s: float
    search: SearchStats | None = None
    mpg_edges: int = 0
    motto: "MottoPlan | None" = None  # the MOTTO plan of SH-MDT and MST (its cost: MOTTO's own objective)

    @property
    def neighbours(self) -> int | None:
        """The neighbours the plan's search evaluated (:mod:`algorithms.effort`): the local search's, or
        the annealing of SH-MDT's and MST's Steiner search; None for a method without a local search."""
        if self.search is not None:
            return self.search.neighbours
        return self.motto.neighbours if self.motto is not None and self.motto.neighbours is not None else None

    @property
    def neighbours_per_s(self) -> float | None:
        return self.search.neighbours_per_s if self.search else None

    def to_json(self) -> dict:
        d = self.plan.describe()
        return {
            "planner": self.planner,
            "kind": self.plan.kind,
            "cost": self.cost,
            "trivial_cost": self.trivial_cost,
            "initial_cost": self.initial_cost,
            "gain_over_trivial": (self.trivial_cost / self.cost) if self.cost > 0 else None,
            "plan_time_s": self.plan_time_s,
            "neighbours": self.neighbours or 0,
            "neighbours_per_s": self.neighbours_per_s,
            "mpg_edges": self.mpg_edges,
            **d,
        }


def trivial_cost(patterns, stats, kind: str, *, alpha: float = 0.0) -> float:
    """Cost^multi of the trivial global plan of ``kind`` (``"order"`` or ``"tree"``) for ``patterns`` on
    ``stats``: what :func:`plan_workload` reports as ``trivial_cost`` beside a plan of that kind."""
    clauses = workload_clauses(patterns)
    return _trivial_cost(clauses, workload_models(clauses, stats, alpha=alpha), kind)


def _trivial_cost(clauses, models, kind: str) -> float:
    return cost_multi(_trivial_global_plan(clauses, models, kind), models)


def _trivial_global_plan(clauses, models, kind: str) -> GlobalPlan:
    """Each clause in its written order (its left-deep tree for an MPM), nothing shared."""
    from algorithms.registry import get_planner

    p = get_planner("TRIVIAL")
    plans = {}
    for o in clauses:
        order = p.plan_model(models[o]).plan
        plans[o] = order if kind == "order" else TreePlan(left_deep_tree(order.order))
    return build_global_plan(kind, clauses, plans, share=False)


def plan_workload(patterns, name: str, stats, *, time_limit: float = 5.0, seed: int = 0,
                  max_neighbours: int | None = None, replay_neighbours: list[int] | None = None,
                  alpha: float = 0.0, max_nodes: int | None = None, motto_neighbours: int | None = None) -> MultiPlanned:
    """A global plan for ``patterns`` by the named multi-pattern optimizer or single-pattern planner.

    ``stats``: one :class:`cep.Statistics` for all patterns, or one per pattern.  ``max_neighbours``: the
    local search's budget in evaluated neighbours (:mod:`algorithms.effort`; no clock).  ``replay_neighbours``: a local search's
    ``search.component_neighbours`` from an earlier run, replayed exactly (no clock; see
    :mod:`algorithms.multi.search`).  ``max_nodes``: SH-MDT's and MST's Steiner search bounded by
    branch-and-bound nodes instead of the time limit (no clock; :func:`algorithms.multi.sh_mdt.sh_mdt_plan`), and
    ``motto_neighbours`` their annealing in evaluated neighbours (no clock; default
    :data:`algorithms.multi.sh_mdt.MOTTO_SA_NEIGHBOURS` within the time limit): a neighbour of MOTTO's
    annealing (one Steiner vertex flipped) is another search's, so it has a budget of its own."""
    if time_limit is None or not time_limit > 0:
        raise PlanError(f"the time limit must be a positive number of seconds, got {time_limit!r}")
    clauses = workload_clauses(patterns)
    models = workload_models(clauses, stats, alpha=alpha)
    t0 = time.perf_counter()
    motto = None
    if name in MULTI_PLANNERS and MULTI_PLANNERS[name] is not None:
        spec = MULTI_PLANNERS[name]
        mpg = MultiPatternGraph(clauses, min_size=1 if spec.kind == "order" else 2)
        g, search, initial = local_search(clauses, models, mpg, kind=spec.kind, heuristic=spec.heuristic, k=spec.k,
                                          vertex=spec.vertex, time_limit=time_limit, seed=seed,
                                          max_neighbours=max_neighbours, replay_neighbours=replay_neighbours)
        edges = len(mpg.edges)
    elif name in BASELINE_NAMES:
        from algorithms.multi.baselines import BASELINES

        g = BASELINES[name](clauses, models)
        search, edges, initial = None, 0, None
    elif name == "SH-MDT":
        from algorithms.multi.sh_mdt import sh_mdt_plan

        out = sh_mdt_plan(patterns, clauses, models, stats, time_budget_s=min(time_limit, 5.0), seed=seed,
                          max_nodes=max_nodes, max_neighbours=motto_neighbours)
        g, motto = out.plan, out.motto
        search, edges, initial = None, 0, None
    elif name in MOTTO_BASELINE_NAMES:
        from algorithms.multi.sh_mdt import motto_baseline_plan

        out = motto_baseline_plan(name, patterns, clauses, models, stats, time_budget_s=min(time_limit, 5.0), seed=seed,
                                  max_nodes=max_nodes, max_neighbours=motto_neighbours)
        g, motto = out.plan, out.motto
        search, edges, initial = None, 0, None
    elif name == "TRIVIAL" or name in _single_names():
        g = _unshared(name, clauses, models, seed)
        search, edges, initial = None, 0, None
    else:
        from algorithms.multi.base import MultiOptimizer, check_global_plan
        from algorithms.plugins import MULTI_GROUP, PLANNER_GROUP, resolve
        from algorithms.planners.base import Planner

        cls = resolve(name, (MULTI_GROUP, PLANNER_GROUP), (MultiOptimizer, Planner), multi_planner_names())
        if issubclass(cls, Planner):
            g = _unshared(name, clauses, models, seed)
        else:
            g = _foreign_plan(name, cls, clauses, models, seed, time_limit)
            check_global_plan(name, g, clauses, getattr(cls, "kind", None))
        search, edges, initial = None, 0, None
    plan_time = time.perf_counter() - t0
    cost = cost_multi(g, models)
    trivial = _trivial_cost(clauses, models, g.kind)
    return MultiPlanned(name, g, cost, trivial, cost if initial is None else initial, plan_time, search, edges, motto)


def _unshared(name: str, clauses, models, seed: int) -> GlobalPlan:
    """Each clause planned alone by the single-pattern planner ``name``, nothing shared."""
    from algorithms.planning import answer_clause
    from algorithms.planners.base import check_clause_plan
    from algorithms.registry import get_planner

    kind = get_planner(name).kind
    planner = get_planner(name, seed=seed) if "seed" in get_planner(name).get_params() else get_planner(name)
    plans = {}
    for o in clauses:
        plans[o] = answer_clause(name, planner, models[o]).plan
        check_clause_plan(name, clauses[o], plans[o], kind)
    return build_global_plan(kind, clauses, plans, share=False)


def _foreign_plan(name: str, cls, clauses, models, seed: int, time_limit: float) -> GlobalPlan:
    """The global plan of a multi-pattern optimizer from another package; its failure is one line naming
    it and the workload's first pattern."""
    from cep.errors import CEPError

    try:
        return cls(seed=seed).optimize(clauses, models, time_limit=time_limit)
    except CEPError:
        raise
    except Exception as e:  # noqa: BLE001 - a foreign optimizer's failure becomes one line
        first = next(iter(clauses.values())).name if clauses else "(empty workload)"
        raise PlanError(f"optimizer {name} failed on the workload of {len(clauses)} clauses starting with pattern {first}: "
                        f"{type(e).__name__}: {e}") from e


def _single_names() -> list[str]:
    from algorithms.registry import planner_names

    return planner_names()
