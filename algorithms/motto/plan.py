"""MOTTO's result: the optimal jumbo query plan (MOTTO Definition 4, Section V), and the optimizer.

:func:`optimize` runs MOTTO's workflow (Figure 3): the query rewriter builds the sharing graph
(:mod:`algorithms.motto.graph`: MST, DST, OTT, nesting, windows), the query planner solves its
directed Steiner minimum tree (:mod:`algorithms.motto.steiner`: exact within the budget, annealing
beyond), and the tree is returned as a :class:`MottoPlan`: one :class:`PlanStep` per computed
query or sub-query -- what it is computed from (``q_0`` = the primitive events, or another step),
the composition and the filters (:class:`algorithms.motto.rewrites.Derivation`), and the edge's
cost -- in an order where every source comes before its beneficiaries.  Each workload query is
answered by the step of the same name.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Sequence

from cep.errors import PlanError
from cep.statistics import Statistics

from algorithms.motto.graph import SharingGraph, build_graph
from algorithms.motto.query import Query
from algorithms.motto.rewrites import Derivation
from algorithms.motto.steiner import branch_and_bound, milp_branch_and_bound, simulated_annealing, solve

SOLVERS = ("auto", "exact", "annealing")  # optimize(solver=...): MOTTO's rule, one search alone


@dataclass(frozen=True)
class PlanStep:
    """One edge of the Steiner tree: ``name`` is computed by ``derivation`` from ``source``."""

    name: str
    query: Query
    source: str  # "q0" or the name of an earlier step
    derivation: Derivation
    cost: float

    @property
    def filters(self) -> tuple:
        return self.derivation.filters

    def __str__(self) -> str:
        d = self.derivation
        how = "from the primitive events" if d.source is None else (
            (f"{d.composition.body()}" if d.composition is not None else f"{{{self.source}}}")
            + "".join(f" -> {f}" for f in d.filters)
        )
        return f"{self.name} = {self.query.body()} <- {self.source}: {how}  [{', '.join(d.techniques)}; cost {self.cost:.6g}]"


@dataclass(frozen=True)
class MottoPlan:
    """MOTTO's jumbo query plan for a workload: steps in source-before-beneficiary order."""

    queries: tuple[Query, ...]
    steps: tuple[PlanStep, ...]
    answer: dict  # workload query name -> the step computing it
    cost: float
    trivial_cost: float
    method: str  # "exact" (the branch and bound finished), "annealing", or "incumbent" (solver="exact" stopped)
    optimizer_seconds: float
    graph_size: dict
    params: dict = field(default_factory=dict)
    search_seconds: float = 0.0  # the Steiner search alone (optimizer_seconds also builds the graph)
    neighbours: int = 0  # neighbours the annealing evaluated (algorithms.effort); 0 when the exact search finished

    def step(self, name: str) -> PlanStep:
        return next(s for s in self.steps if s.name == name)

    def shared(self) -> list[PlanStep]:
        """The steps that compute something from another step (not from the primitive events)."""
        return [s for s in self.steps if s.source != "q0"]

    def __str__(self) -> str:
        head = (
            f"MOTTO plan: {len(self.queries)} queries, cost {self.cost:.6g} "
            f"(trivial {self.trivial_cost:.6g}), {self.method}, {self.optimizer_seconds:.3g} s"
        )
        return "\n".join([head, *(f"  {s}" for s in self.steps)])

    def to_json(self) -> dict:
        return {
            "cost": self.cost,
            "trivial_cost": self.trivial_cost,
            "method": self.method,
            "optimizer_seconds": self.optimizer_seconds,
            "graph": dict(self.graph_size),
            "params": dict(self.params),
            "answer": dict(self.answer),
            "steps": [
                {
                    "name": s.name,
                    "query": str(s.query),
                    "source": s.source,
                    "composition": None if s.derivation.composition is None else str(s.derivation.composition),
                    "filters": [str(f) for f in s.filters],
                    "techniques": list(s.derivation.techniques),
                    "cost": s.cost,
                }
                for s in self.steps
            ],
        }


def optimize(
    queries: Sequence[Query],
    stats: Statistics,
    *,
    time_budget_s: float = 300.0,
    seed: int = 0,
    sa_neighbours: int = 20000,
    sa_time_budget_s: float = 60.0,
    max_subqueries: int = 2000,
    exact: str = "milp",
    selectivities=None,
    techniques: frozenset[str] | None = None,
    extend_windows: bool = True,
    charge_leaves: bool = True,
    mpm_filters: bool = False,
    solver: str = "auto",
    max_nodes: int | None = None,
) -> MottoPlan:
    """MOTTO: the cheapest jumbo query plan of ``queries`` under ``stats`` (module docstring).

    >>> from algorithms.motto import conj, optimize, seq
    >>> from cep.pattern import Window
    >>> from cep.statistics import Statistics
    >>> w = Window.seconds(10)
    >>> plan = optimize([seq("E1", "E3", window=w, name="q2"), conj("E1", "E3", window=w, name="q5")],
    ...                 Statistics({"E1": 1.0, "E3": 1.0}))
    >>> for step in plan.steps: print(step)
    q5 = CONJ(E1 & E3) <- q0: from the primitive events  [scratch; cost 120]
    q2 = SEQ(E1, E3) <- q5: {q5} -> Filter_sc(E1 < E3)  [OTT; cost 50]

    ``time_budget_s`` is the exact search's budget (the paper's 5 minutes by default; ``max_nodes``
    bounds it in branch-and-bound nodes as well, a budget that does not depend on the machine),
    ``exact`` its method (:func:`algorithms.motto.steiner.solve`); ``selectivities`` of the queries'
    conditions are keyed by event types (default: ``stats.selectivities``); ``techniques`` and
    ``extend_windows`` restrict the rewrites (:func:`algorithms.motto.graph.build_graph`; the MST
    baseline of :mod:`algorithms.motto.baselines`); ``charge_leaves=False`` prices the plan for an
    engine that shares every event buffer and ``mpm_filters=True`` prices its filters as the
    multi-pattern multitree's filter nodes (:class:`algorithms.motto.cost.MottoCosts`).  ``solver``
    is MOTTO's rule (``"auto"``: the exact search within its budget, annealing beyond it,
    :func:`algorithms.motto.steiner.solve`) or one search alone for Figure 14a: ``"exact"`` (its
    incumbent if it stops at the budget) or ``"annealing"`` (from scratch, within
    ``sa_time_budget_s``)."""
    if solver not in SOLVERS:
        raise PlanError(f"unknown MOTTO solver {solver!r}; expected one of {', '.join(SOLVERS)}")
    t0 = time.perf_counter()
    from algorithms.motto.cost import MottoCosts

    sg = build_graph(queries, stats, max_subqueries=max_subqueries, selectivities=selectivities, techniques=techniques,
                     extend_windows=extend_windows, costs=MottoCosts(stats, selectivities, charge_leaves=charge_leaves,
                                                                       mpm_filters=mpm_filters))
    if solver == "auto":
        res = solve(sg.graph, time_budget_s=time_budget_s, seed=seed, sa_neighbours=sa_neighbours, sa_time_budget_s=sa_time_budget_s,
                    exact=exact, max_nodes=max_nodes)
    elif solver == "exact":
        res = (milp_branch_and_bound if exact == "milp" else branch_and_bound)(sg.graph, time_budget_s=time_budget_s,
                                                                               max_nodes=max_nodes)
    else:
        res = simulated_annealing(sg.graph, seed=seed, neighbours=sa_neighbours, time_budget_s=sa_time_budget_s)
    steps = _steps(sg, res.parent)
    return MottoPlan(
        queries=tuple(queries),
        steps=steps,
        answer={name: sg.names[v] for name, v in sg.terminal_of.items()},
        cost=res.cost,
        trivial_cost=sg.graph.trivial_cost(),
        method="exact" if res.exact else ("incumbent" if solver == "exact" else "annealing"),
        optimizer_seconds=time.perf_counter() - t0,
        graph_size={
            "vertices": sg.graph.n,
            "steiner": len(sg.graph.steiner),
            "arcs": len(sg.graph.arcs),
            "subqueries": sg.n_subqueries,
            "subqueries_capped": sg.subqueries_capped,
        },
        params={
            "time_budget_s": time_budget_s,
            "seed": seed,
            "sa_neighbours": sa_neighbours,
            "sa_time_budget_s": sa_time_budget_s,
            "max_subqueries": max_subqueries,
            "exact": exact,
            "techniques": None if techniques is None else sorted(techniques),
            "extend_windows": extend_windows,
            "charge_leaves": charge_leaves,
            "mpm_filters": mpm_filters,
            "solver": solver,
            "max_nodes": max_nodes,
        },
        search_seconds=res.seconds,
        neighbours=res.neighbours,
    )


def _steps(sg: SharingGraph, parent: dict) -> tuple[PlanStep, ...]:
    children: dict[int, list[int]] = {}
    for v, u in parent.items():
        children.setdefault(u, []).append(v)
    out: list[PlanStep] = []
    stack = sorted(children.get(sg.graph.root, []), reverse=True)
    while stack:
        v = stack.pop()
        u = parent[v]
        out.append(PlanStep(sg.names[v], sg.vertices[v], sg.names[u], sg.derivations[(u, v)], sg.graph.arcs[(u, v)]))
        stack.extend(sorted(children.get(v, []), reverse=True))
    return tuple(out)
