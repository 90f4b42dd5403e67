"""II-RANDOM and II-GREEDY (JQPG 6.1; Swami [48]): iterative improvement of an order.

"A local search JQPG algorithm, starting from some initial execution plan and attempting a set of
moves to improve the cost function, until a local minimum is reached ... the functions used to
traverse between states are swap (the positions of two event types in a plan are swapped) and
cycle (the positions of three event types are shifted)."  II-RANDOM starts from a random order,
II-GREEDY from GREEDY's.

Each step evaluates the whole neighbourhood (every swap and both rotations of every triple of
positions; positions of a given prefix stay fixed) in one vectorized call and moves to the best
neighbour if it is cheaper; the search stops at a local minimum or after ``max_steps`` moves.
II-RANDOM repeats this from ``restarts`` random orders and keeps the cheapest result.  "Best" and
"cheaper" are :mod:`algorithms.plan_ranking`'s: costs within its tolerance tie, a tie goes to the
order of least canonical key, and a move must be cheaper beyond the tolerance.
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache

import numpy as np

from algorithms.cost_model import ClauseCostModel
from algorithms.plan_ranking import better, cheaper, order_key, ties
from algorithms.planners.base import OrderPlanner
from algorithms.planners.greedy import greedy_sequence

TABLE_SIZE = 20  # build the subset table for clauses up to this size; evaluate directly above


@lru_cache(maxsize=64)
def _neighbourhood(n: int, fixed: int) -> np.ndarray:
    """Index arrays of every swap and 3-cycle move on positions ``fixed..n-1``: row ``r`` of the
    result applied to an order ``o`` (``o[rows[r]]``) gives the ``r``-th neighbour."""
    free = range(fixed, n)
    rows = []
    ident = list(range(n))
    for i, j in itertools.combinations(free, 2):
        p = ident.copy()
        p[i], p[j] = j, i
        rows.append(p)
    for i, j, k in itertools.combinations(free, 3):
        p = ident.copy()
        p[i], p[j], p[k] = k, i, j
        rows.append(p)
        p = ident.copy()
        p[i], p[j], p[k] = j, k, i
        rows.append(p)
    out = np.array(rows, dtype=np.int64).reshape(len(rows), n)
    out.setflags(write=False)
    return out


def _order_log_costs(model: ClauseCostModel, orders: np.ndarray) -> np.ndarray:
    """``log(Cost_ord + alpha * Cost_lat_ord)`` of each row of ``orders`` (variable indices)."""
    masks = np.cumsum(np.int64(1) << orders, axis=1)
    cost = np.logaddexp.reduce(model.log_node(masks), axis=1)
    if model.log_alpha > -math.inf:
        pos_last = np.argmax(orders == model.last, axis=1)
        after = np.arange(orders.shape[1])[None, :] > pos_last[:, None]
        lat = np.logaddexp.reduce(np.where(after, model.log_leaf[orders], -math.inf), axis=1)
        cost = np.logaddexp(cost, model.log_alpha + lat)
    return cost


def _improve(model: ClauseCostModel, start: list[int], fixed: int, max_steps: int) -> tuple[list[int], float]:
    """Best-neighbour descent from ``start``; returns the local minimum and its log cost."""
    moves = _neighbourhood(model.n, fixed)
    cur = np.array(start, dtype=np.int64)
    cur_cost = float(_order_log_costs(model, cur[None, :])[0])
    for _ in range(max_steps):
        if len(moves) == 0 or cur_cost == -math.inf:
            break
        cand = cur[moves]
        costs = _order_log_costs(model, cand)
        j = min(np.flatnonzero(ties(costs[None, :], log=True)[0]), key=lambda r: _key(cand[r]))
        if not cheaper(costs[j], cur_cost, log=True):
            break
        cur, cur_cost = cand[j], float(costs[j])
    return cur.tolist(), cur_cost


def _key(order) -> tuple[int, ...]:
    """The canonical key of an order of variable indices (:func:`algorithms.plan_ranking.order_key`)."""
    return order_key(list(order), range(len(order)))


class _IterativeImprovement(OrderPlanner):
    def __init__(self, *, seed: int = 0, max_steps: int = 10_000) -> None:
        super().__init__(seed=seed)
        self.max_steps = max_steps

    def validate_params(self) -> None:
        super().validate_params()
        self.require_int("max_steps", 1)

    def _prepare(self, model: ClauseCostModel) -> None:
        if model.n <= TABLE_SIZE:
            model.table()


class IIRandomPlanner(_IterativeImprovement):
    """Iterative improvement from ``restarts`` seeded random orders.

    >>> from cep import parse_pattern, to_dnf, Statistics
    >>> sp = to_dnf(parse_pattern("PATTERN SEQ(A a, B b, C c) WHERE a.x = c.x WITHIN 10 seconds"))[0]
    >>> stats = Statistics({"A": 1.0, "B": 1.0, "C": 1.0}, {"a,c": 0.001})
    >>> str(IIRandomPlanner(seed=1).plan(sp, stats)) in ("a, c, b", "c, a, b")
    True
    """

    name = "II-RANDOM"

    def __init__(self, *, seed: int = 0, max_steps: int = 10_000, restarts: int = 1) -> None:
        super().__init__(seed=seed, max_steps=max_steps)
        self.restarts = restarts

    def validate_params(self) -> None:
        super().validate_params()
        self.require_int("restarts", 1)

    def _order(self, model: ClauseCostModel, prefix: list[int], rng: np.random.Generator):
        self._prepare(model)
        rest = np.array([i for i in range(model.n) if i not in prefix], dtype=np.int64)
        best, best_cost = None, None
        for _ in range(self.restarts):
            start = list(prefix) + rng.permutation(rest).tolist()
            order, cost = _improve(model, start, len(prefix), self.max_steps)
            if best_cost is None or better(cost, _key(order), best_cost, _key(best), log=True):
                best, best_cost = order, cost
        return best, None


class IIGreedyPlanner(_IterativeImprovement):
    """Iterative improvement from GREEDY's order.

    >>> from cep import parse_pattern, to_dnf, Statistics
    >>> sp = to_dnf(parse_pattern("PATTERN SEQ(A a, B b, C c) WHERE a.x = c.x WITHIN 10 seconds"))[0]
    >>> stats = Statistics({"A": 1.0, "B": 1.0, "C": 1.0}, {"a,c": 0.001})
    >>> str(IIGreedyPlanner().plan(sp, stats))
    'a, c, b'
    """

    name = "II-GREEDY"

    def _order(self, model: ClauseCostModel, prefix: list[int], rng: np.random.Generator):
        self._prepare(model)
        rest = [i for i in range(model.n) if i not in prefix]
        start = list(prefix) + [rest[k] for k in greedy_sequence(model, [1 << i for i in rest], sum(1 << i for i in prefix))]
        return _improve(model, start, len(prefix), self.max_steps)[0], None
