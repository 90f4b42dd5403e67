"""The directed Steiner minimum tree (DSMT) of MOTTO's query planner (MOTTO Section V-B).

"Given a directed weighted graph G = (V, E) with a cost c_i on each edge e_i, a specified root
r in V, and a subset of vertices X (Terminal nodes), find a tree with minimum cost rooted at r
and spanning all the vertices in X."  MOTTO applies branch and bound [Lucena & Beasley] for an
exact solution within a time budget (5 minutes in the paper) and simulated annealing beyond it.

MOTTO's graphs are acyclic: an edge ``q_x -> q_i`` needs ``q_x``'s types to be a subset of
``q_i``'s, an operator of equal or weaker strength, a window of equal or larger size and a subset
of ``q_i``'s conditions, and ``q_x`` and ``q_i`` differ (:mod:`algorithms.motto.rewrites`).  On a DAG every choice of one in-edge per chosen vertex is a
tree, so the problem is: choose the set ``S`` of Steiner vertices; each vertex of ``X + S`` then
takes its cheapest in-edge from ``{r} + X + S``.  We solve exactly that:

* :func:`branch_and_bound` -- depth-first over the Steiner vertices (include / exclude), one
  weakly connected component at a time, with a lower bound from the cheapest in-edges and a
  dominance rule (see the function); the incumbent starts from the greedy plan.  It stops at
  ``time_budget_s`` (or after ``max_nodes`` nodes, a budget that does not depend on the machine)
  and says whether it finished (``exact``).
* :func:`milp_branch_and_bound` -- the same problem as a mixed-integer program, solved by HiGHS's
  branch and bound (scipy), whose LP bound is far stronger: the default exact method.
* :func:`simulated_annealing` -- flips one Steiner vertex at a time, Metropolis acceptance under a
  geometric cooling schedule, seeded; returns the best set seen, so never worse than its start
  (``S`` empty: every query from the root or from another query).
* :func:`solve` -- exact within the budget, annealing beyond it (from the incumbent), as MOTTO does.

A graph with a cycle is refused (:class:`cep.errors.PlanError`); it cannot come from MOTTO's rewriter.

Costs are compared as :mod:`algorithms.plan_ranking` compares plans: weights and tree costs within
its tolerance tie, a vertex's cheapest in-arc among tied ones is the one from the lowest vertex, a
search keeps what it holds unless the new candidate is cheaper beyond the tolerance (greedy and
annealing: or tied with a smaller key, the sorted chosen vertices), and annealing accepts a tied
move without drawing a random number -- so the same graph gives the same tree on every CPU.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field
from graphlib import CycleError, TopologicalSorter
from typing import Iterable, Mapping

from cep.errors import PlanError

from algorithms.effort import Effort, check_budget
from algorithms.plan_ranking import better, cheaper, rank


@dataclass(frozen=True)
class SteinerGraph:
    """Vertices ``0..n-1`` (``root`` is MOTTO's virtual ground ``q_0``), weighted arcs ``(u, v)``."""

    n: int
    root: int
    terminals: frozenset[int]
    arcs: Mapping[tuple[int, int], float]
    in_arcs: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        ins: dict[int, list[tuple[int, float]]] = {v: [] for v in range(self.n)}
        for (u, v), w in self.arcs.items():
            if not (0 <= u < self.n and 0 <= v < self.n) or u == v or v == self.root:
                raise PlanError(f"Steiner graph: bad arc {u}->{v}")
            if not (w >= 0 and math.isfinite(w)):
                raise PlanError(f"Steiner graph: arc {u}->{v} has weight {w!r}; weights are finite and >= 0")
            ins[v].append((u, w))
        for v in ins:
            ins[v] = rank(ins[v], cost=lambda t: t[1], key=lambda t: t[0])
        object.__setattr__(self, "in_arcs", ins)
        if self.root in self.terminals:
            raise PlanError("Steiner graph: the root is not a terminal")
        _check_acyclic(self.n, self.arcs)

    @property
    def steiner(self) -> tuple[int, ...]:
        return tuple(v for v in range(self.n) if v != self.root and v not in self.terminals)

    def tree(self, chosen: Iterable[int]) -> tuple[float, dict[int, int]]:
        """Cost and parents of the cheapest tree spanning the terminals and ``chosen`` Steiner
        vertices (each takes its cheapest in-arc from the root, a terminal or a chosen vertex);
        ``inf`` if some vertex cannot be reached."""
        allowed = {self.root} | set(self.terminals) | set(chosen)
        total, parent = 0.0, {}
        for v in allowed - {self.root}:
            best = next(((u, w) for u, w in self.in_arcs[v] if u in allowed), None)
            if best is None:
                return math.inf, {}
            parent[v] = best[0]
            total += best[1]
        return total, parent

    def trivial_cost(self) -> float:
        """Every terminal from the root (MOTTO's default jumbo query plan, Figure 2)."""
        return sum(self.arcs.get((self.root, t), math.inf) for t in self.terminals)


def _check_acyclic(n: int, arcs: Iterable[tuple[int, int]]) -> None:
    preds: dict[int, list[int]] = {v: [] for v in range(n)}
    for u, v in arcs:
        preds[v].append(u)
    try:
        TopologicalSorter(preds).prepare()
    except CycleError:
        raise PlanError("Steiner graph has a cycle; MOTTO's sharing graphs are acyclic") from None


@dataclass(frozen=True)
class SteinerResult:
    cost: float
    chosen: frozenset[int]  # Steiner vertices in the tree
    parent: Mapping[int, int]
    method: str  # "exact" (branch and bound finished), "annealing", or "branch-and-bound (budget)"
    exact: bool
    seconds: float
    explored: int  # branch-and-bound nodes or annealing steps
    neighbours: int = 0  # neighbours the annealing evaluated (algorithms.effort); 0 for the exact search
    exhausted: bool = False  # the annealing stopped for want of a neighbour (no Steiner vertex to flip)


def greedy(g: SteinerGraph) -> frozenset[int]:
    """Add the Steiner vertex that lowers the cost most, while one does."""
    chosen: set[int] = set()
    cost, _ = g.tree(chosen)
    while True:
        best = None
        for s in g.steiner:
            if s in chosen:
                continue
            c, _ = g.tree(chosen | {s})
            if cheaper(c, cost) and (best is None or better(c, s, best[0], best[1])):
                best = (c, s)
        if best is None:
            return frozenset(chosen)
        cost = best[0]
        chosen.add(best[1])


def components(g: SteinerGraph) -> list[frozenset[int]]:
    """The weakly connected components of the graph without its root, by their least vertex: the
    cost of a tree is the sum of independent parts, one per component, so each is solved on its own."""
    import numpy as np
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    arcs = np.array([a for a in g.arcs if a[0] != g.root], dtype=np.int64).reshape(-1, 2)
    adjacency = coo_matrix((np.ones(len(arcs)), (arcs[:, 0], arcs[:, 1])), shape=(g.n, g.n))
    _, label = connected_components(adjacency, directed=True, connection="weak")
    groups: dict[int, set[int]] = {}
    for v in range(g.n):
        if v != g.root:
            groups.setdefault(int(label[v]), set()).add(v)
    return sorted((frozenset(c) for c in groups.values()), key=min)


def branch_and_bound(g: SteinerGraph, *, time_budget_s: float = 300.0, max_nodes: int | None = None,
                     start: Iterable[int] | None = None) -> SteinerResult:
    """Exact DSMT on a DAG by branch and bound over the Steiner vertices, component by component.

    Bound: every vertex that must be spanned pays its cheapest in-arc from a vertex that may still
    be chosen, plus, when that vertex is an undecided Steiner vertex ``s``, the share
    ``min_in(s) / outdeg(s)`` of ``s``'s own cheapest in-arc (``s`` has at most ``outdeg(s)``
    children to pay for it).  Dominance: ``s`` is not included when even the largest saving it
    could bring -- ``sum_v max(0, c_v - w(s, v))`` over its possible children, ``c_v`` their
    in-arc cost without the undecided vertices -- does not exceed its cheapest in-arc.

    The search stops, keeping its incumbent, at ``time_budget_s`` seconds or after ``max_nodes``
    nodes (when given; a deterministic budget).
    """
    t0 = time.perf_counter()
    node_cap = math.inf if max_nodes is None else max_nodes
    inc = frozenset(greedy(g) if start is None else start)
    min_in = {v: (g.in_arcs[v][0][1] if g.in_arcs[v] else math.inf) for v in range(g.n)}
    out_arcs: dict[int, list[tuple[int, float]]] = {v: [] for v in range(g.n)}
    for (u, v), w in g.arcs.items():
        out_arcs[u].append((v, w))
    explored = 0
    finished = True
    chosen: set[int] = set()
    for comp in components(g):
        steiner = [v for v in comp if v not in g.terminals]
        terms = comp & g.terminals
        if not steiner:
            continue

        def local_cost(included: set[int]) -> float:
            allowed = {g.root} | terms | included
            total = 0.0
            for v in terms | included:
                w = next((w for u, w in g.in_arcs[v] if u in allowed), None)
                if w is None:
                    return math.inf
                total += w
            return total

        steiner.sort(key=lambda s: (-len(out_arcs[s]), s))
        best_set = frozenset(inc & set(steiner))
        best_cost = local_cost(set(best_set))

        def bound(included: set[int], undecided: set[int]) -> float:
            allowed = {g.root} | terms | included
            total = 0.0
            for v in terms | included:
                b = math.inf
                for u, w in g.in_arcs[v]:
                    if w >= b:
                        break
                    if u in allowed:
                        b = w
                        break
                    if u in undecided:
                        b = min(b, w + min_in[u] / max(1, len(out_arcs[u])))
                total += b
            return total

        def worth_including(s: int, included: set[int], undecided: set[int]) -> bool:
            allowed = {g.root} | terms | included
            own = next((w for u, w in g.in_arcs[s] if u in allowed or u in undecided), math.inf)
            gain = 0.0
            for v, w in out_arcs[s]:
                if v in terms or v in included or v in undecided:
                    cv = next((w2 for u, w2 in g.in_arcs[v] if u in allowed), math.inf)
                    gain += max(0.0, cv - w)
            return cheaper(own, gain)

        def rec(i: int, included: set[int], undecided: set[int]) -> None:
            nonlocal best_cost, best_set, explored, finished
            explored += 1
            if explored > node_cap or (explored % 256 == 0 and time.perf_counter() - t0 > time_budget_s):
                finished = False
            if not finished:
                return
            if not cheaper(bound(included, undecided), best_cost):
                return
            if i == len(steiner):
                c = local_cost(included)
                if cheaper(c, best_cost):
                    best_cost, best_set = c, frozenset(included)
                return
            s = steiner[i]
            rest = undecided - {s}
            if worth_including(s, included, undecided):
                rec(i + 1, included | {s}, rest)
            rec(i + 1, included, rest)

        rec(0, set(), set(steiner))
        chosen |= best_set
    cost, parent = g.tree(chosen)
    return SteinerResult(cost, frozenset(chosen), parent, "exact" if finished else "branch-and-bound (budget)", finished, time.perf_counter() - t0, explored)


def milp_branch_and_bound(g: SteinerGraph, *, time_budget_s: float = 300.0, max_nodes: int | None = None) -> SteinerResult:
    """Exact DSMT on a DAG as a mixed-integer program solved by HiGHS's branch and bound (and cut)
    through :func:`scipy.optimize.milp` -- MOTTO cites Lucena and Beasley's branch and cut [4].

    Variables: ``y_s`` in {0, 1} per Steiner vertex (chosen or not), ``x_uv`` in [0, 1] per arc.
    Minimize ``sum w_uv x_uv`` subject to ``sum_u x_uv = 1`` for every terminal, ``= y_v`` for every
    Steiner vertex, and ``x_uv <= y_u`` for every arc out of a Steiner vertex (the strong,
    facility-location form: its LP relaxation is what the branch and bound bounds with).  On a DAG
    any integral ``y`` has an optimal integral ``x`` (each vertex's cheapest allowed in-arc), so the
    chosen set is read from ``y`` and its tree rebuilt with :meth:`SteinerGraph.tree`.  HiGHS stops
    at ``time_budget_s`` seconds or after ``max_nodes`` branch-and-bound nodes (when given).
    """
    import numpy as np
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_matrix

    t0 = time.perf_counter()
    steiner = list(g.steiner)
    if not steiner:
        cost, parent = g.tree(())
        return SteinerResult(cost, frozenset(), parent, "exact", True, time.perf_counter() - t0, 0)
    arcs = list(g.arcs.items())
    ny, nx = len(steiner), len(arcs)
    ycol = {s: i for i, s in enumerate(steiner)}
    c = np.concatenate([np.zeros(ny), np.array([w for _, w in arcs])])
    rows, cols, vals, lo, hi = [], [], [], [], []
    r = 0
    by_head: dict[int, list[int]] = {}
    for j, ((u, v), _) in enumerate(arcs):
        by_head.setdefault(v, []).append(j)
    for v in range(g.n):
        if v == g.root or (v not in g.terminals and v not in ycol):
            continue
        for j in by_head.get(v, []):
            rows.append(r), cols.append(ny + j), vals.append(1.0)
        if v in g.terminals:
            lo.append(1.0), hi.append(1.0)
        else:
            rows.append(r), cols.append(ycol[v]), vals.append(-1.0)
            lo.append(0.0), hi.append(0.0)
        r += 1
    for j, ((u, v), _) in enumerate(arcs):
        if u in ycol:
            rows += [r, r]
            cols += [ny + j, ycol[u]]
            vals += [1.0, -1.0]
            lo.append(-np.inf), hi.append(0.0)
            r += 1
    a = coo_matrix((vals, (rows, cols)), shape=(r, ny + nx)).tocsr()
    integrality = np.concatenate([np.ones(ny), np.zeros(nx)])
    options = {"time_limit": max(float(time_budget_s), 1e-3), "disp": False, "mip_rel_gap": 1e-9}
    if max_nodes is not None:
        options["node_limit"] = int(max_nodes)
    res = milp(
        c,
        constraints=LinearConstraint(a, lo, hi),
        integrality=integrality,
        bounds=Bounds(np.zeros(ny + nx), np.ones(ny + nx)),
        options=options,
    )
    finished = res.status == 0
    if res.x is None:  # no feasible point within the budget: the greedy incumbent
        chosen = greedy(g)
    else:
        chosen = frozenset(s for s in steiner if res.x[ycol[s]] > 0.5)
    cost, parent = g.tree(chosen)
    # a Steiner vertex no one uses only adds its in-arc: drop such leaves
    while True:
        used = set(parent.values())
        idle = [s for s in chosen if s not in used]
        if not idle:
            break
        chosen = chosen - set(idle)
        cost, parent = g.tree(chosen)
    nodes = int(getattr(res, "mip_node_count", 0) or 0)
    return SteinerResult(cost, frozenset(chosen), parent, "exact" if finished else "branch-and-bound (budget)", finished, time.perf_counter() - t0, nodes)


def simulated_annealing(
    g: SteinerGraph,
    *,
    seed: int = 0,
    neighbours: int = 20000,
    time_budget_s: float = 60.0,
    start: Iterable[int] = (),
    t0_fraction: float = 0.05,
    cooling: float | None = None,
) -> SteinerResult:
    """Simulated annealing over the set of Steiner vertices (module docstring): a neighbour flips one
    Steiner vertex in or out, and costing its tree is one evaluated neighbour
    (:mod:`algorithms.effort`).  It evaluates ``neighbours`` of them (its budget), fewer only when the
    graph has no Steiner vertex (``exhausted``) or ``time_budget_s`` cuts it short (checked every 256
    neighbours; ``math.inf`` for a budget in neighbours alone).  The initial temperature is
    ``t0_fraction`` of the start cost; it decays geometrically to 1e-4 of that over the budget unless
    ``cooling`` is given.  Deterministic for a seed (the time budget only cuts the run short)."""
    t_start = time.perf_counter()
    effort = Effort(check_budget(neighbours, "the annealing's neighbours"))
    rng = random.Random(seed)
    steiner = list(g.steiner)
    cur = set(start)
    cur_cost, _ = g.tree(cur)
    best_cost, best_set = cur_cost, frozenset(cur)
    temp = t0_fraction * (cur_cost if math.isfinite(cur_cost) and cur_cost > 0 else 1.0)
    alpha = cooling if cooling is not None else (1e-4) ** (1.0 / max(effort.budget, 1))
    effort.exhausted = not steiner and effort.budget > 0
    while steiner and effort.left():
        if effort.evaluated % 256 == 255 and time.perf_counter() - t_start > time_budget_s:
            break
        s = steiner[rng.randrange(len(steiner))]
        nxt = cur ^ {s}
        c, _ = g.tree(nxt)
        effort.spend()
        if not cheaper(cur_cost, c) or (math.isfinite(c) and rng.random() < math.exp(-(c - cur_cost) / max(temp, 1e-300))):
            cur, cur_cost = nxt, c
            if better(c, sorted(cur), best_cost, sorted(best_set)):
                best_cost, best_set = c, frozenset(cur)
        temp *= alpha
    cost, parent = g.tree(best_set)
    return SteinerResult(cost, best_set, parent, "annealing", False, time.perf_counter() - t_start, effort.evaluated,
                         effort.evaluated, effort.exhausted)


EXACT_METHODS = ("milp", "combinatorial")


def solve(
    g: SteinerGraph,
    *,
    time_budget_s: float = 300.0,
    seed: int = 0,
    sa_neighbours: int = 20000,
    sa_time_budget_s: float = 60.0,
    exact: str = "milp",
    max_nodes: int | None = None,
) -> SteinerResult:
    """MOTTO's planner: the exact branch and bound within ``time_budget_s`` (and ``max_nodes``
    nodes, when given; ``exact``: "milp", HiGHS on the LP-bounded formulation, or "combinatorial",
    our own); if it does not finish, simulated annealing from its incumbent, and the better of the
    two."""
    if exact not in EXACT_METHODS:
        raise PlanError(f"unknown exact Steiner method {exact!r}; expected one of {', '.join(EXACT_METHODS)}")
    bb = (milp_branch_and_bound if exact == "milp" else branch_and_bound)(g, time_budget_s=time_budget_s, max_nodes=max_nodes)
    if bb.exact:
        return bb
    sa = simulated_annealing(g, seed=seed, neighbours=sa_neighbours, time_budget_s=sa_time_budget_s, start=bb.chosen)
    best = sa if cheaper(sa.cost, bb.cost) else bb
    return SteinerResult(best.cost, best.chosen, best.parent, "annealing", False, bb.seconds + sa.seconds, bb.explored + sa.explored,
                         sa.neighbours, sa.exhausted)
