"""Which of two plans is better: the one definition every planner and search uses.

A plan is **better** than another when its cost is lower by more than the relative tolerance
:data:`COST_RTOL`; two costs within it **tie**, and a tie goes to the plan of least canonical key
(:func:`order_key`, :func:`tree_key`, :func:`global_plan_key`).  So a plan is a function of the
pattern and the statistics alone, never of floating-point rounding: the same cost summed in
another order, or through another kernel, comes out a few units in the last place apart, and which
kernel runs depends on the CPU -- numpy dispatches ``exp`` and ``log`` to AVX-512 kernels where the
CPU has them, OpenBLAS picks its matrix kernels by CPU model -- so without a tolerance two plans of
equal cost are ordered one way on one machine and the other way on the next.

Costs are numbers of partial matches, so never negative.  Two costs ``a <= b`` tie when
``b <= a * (1 + COST_RTOL)``; for costs held as natural logarithms (most of :mod:`algorithms.costs`)
that is ``log b - log a <= log1p(COST_RTOL)`` (:data:`LOG_COST_TOL`).  ``0`` ties only with ``0``
and ``inf`` only with ``inf``.  Every function takes ``log=True`` for log-costs.

A search that picks the best of many candidates (a DP's split, a greedy step, a local search's
neighbours) takes the least cost, then among the candidates that tie with it the least key
(:func:`pick`); one that compares a new candidate with the one it holds replaces it only when the
new one is :func:`better`.  Tolerance is not transitive, so "tie with the least cost" (not "tie
with the one held") is what makes the choice independent of the order the candidates come in.

The canonical keys order plans by the declaration order of their variables (``index``: variable ->
position; a sequence of variable names stands for ``{v: i}``); a smaller key wins:

* an order compares from its **last** position backwards, the later-declared variable last
  (:func:`order_key`); when every order ties this is the declaration order.  DP-LD's recurrence
  picks an order's last variable first, so this is the key it can honour exactly;
* a tree compares at its root the leaf set of the child holding the lowest-declared leaf, as a
  bitmask of declaration positions (smaller first), then that child's key, then the other child's,
  then whether that child is on the left (left first) (:func:`tree_key`);
* a global plan compares its owners' plans in owner order (:func:`global_plan_key`).

>>> cheaper(100.0, 100.0 * (1 + 1e-14)), cheaper(100.0, 100.0 * (1 + 1e-9))
(False, True)
>>> ab, ba = order_key(("a", "b"), "ab"), order_key(("b", "a"), "ab")
>>> better(100.0 * (1 + 1e-14), ab, 100.0, ba), better(100.0 * (1 + 1e-9), ab, 100.0, ba)
(True, False)
"""

from __future__ import annotations

import math
from typing import Callable, Hashable, Iterable, Mapping, Sequence, TypeVar

import numpy as np

#: relative tolerance within which two plan costs tie: 10-100x the rounding that differs between
#: CPUs (an ``exp`` kernel's 1-2 units in the last place, summed over up to a few dozen terms: about
#: 1e-14), and small enough that plans whose modelled costs really differ, if only by 1e-10 (strict
#: contiguity's adjacency terms), are not taken for equal
COST_RTOL = 1e-12
#: the same tolerance on costs held as natural logarithms
LOG_COST_TOL = math.log1p(COST_RTOL)

T = TypeVar("T")


# ---- costs ----------------------------------------------------------------------------------------
def tie_bound(best, *, log: bool = False):
    """The largest cost that ties with ``best`` (scalars or numpy arrays; ``best`` is the least)."""
    if log:
        return best + LOG_COST_TOL  # -inf and inf stay what they are
    return best * (1.0 + COST_RTOL)  # 0 and inf stay what they are


def costs_tie(a: float, b: float, *, log: bool = False) -> bool:
    """Whether two costs tie (``max <= min * (1 + COST_RTOL)``)."""
    lo, hi = (a, b) if a <= b else (b, a)
    return bool(hi <= tie_bound(lo, log=log)) or lo == hi


def cheaper(a: float, b: float, *, log: bool = False) -> bool:
    """Whether cost ``a`` is lower than ``b`` by more than the tolerance."""
    return bool(a < b) and not costs_tie(a, b, log=log)


def better(cost_a: float, key_a, cost_b: float, key_b, *, log: bool = False) -> bool:
    """Whether plan ``a`` is better than plan ``b``: cheaper beyond the tolerance, or tied at a
    smaller canonical key."""
    if costs_tie(cost_a, cost_b, log=log):
        return key_a < key_b
    return bool(cost_a < cost_b)


def pick(items: Iterable[T], cost: Callable[[T], float], key: Callable[[T], object], *, log: bool = False) -> T:
    """The best item: the least cost, and among the items whose cost ties with it, the least key."""
    items = list(items)
    if not items:
        raise ValueError("pick from no candidates")
    costs = [cost(x) for x in items]
    bound = tie_bound(min(costs), log=log)
    least = min(costs)
    return min((x for x, c in zip(items, costs) if c <= bound or c == least), key=key)


def rank(items: Iterable[T], cost: Callable[[T], float], key: Callable[[T], object], *, log: bool = False) -> list[T]:
    """``items`` by ascending cost, each run of costs that tie with the run's least one by key."""
    rest = sorted(items, key=cost)
    out: list[T] = []
    while rest:
        bound = tie_bound(cost(rest[0]), log=log)
        n = 1
        while n < len(rest) and (cost(rest[n]) <= bound or cost(rest[n]) == cost(rest[0])):
            n += 1
        out.extend(sorted(rest[:n], key=key))
        rest = rest[n:]
    return out


def first_tie(costs: np.ndarray, *, log: bool = False) -> np.ndarray:
    """Per row of a 2-D array of candidate costs, the column of the first candidate that ties with
    the row's least cost (the vectorized :func:`pick` of a search whose columns come in key order)."""
    least = costs.min(axis=1, keepdims=True)
    return np.argmax((costs <= tie_bound(least, log=log)) | (costs == least), axis=1)


def ties(costs: np.ndarray, *, log: bool = False) -> np.ndarray:
    """Per row of a 2-D array of candidate costs, which candidates tie with the row's least cost."""
    least = costs.min(axis=1, keepdims=True)
    return (costs <= tie_bound(least, log=log)) | (costs == least)


# ---- canonical keys ---------------------------------------------------------------------------------
def _index_of(index) -> Mapping[Hashable, int]:
    if isinstance(index, Mapping):
        return index
    return {v: i for i, v in enumerate(index)}


def order_key(order: Sequence[Hashable], index) -> tuple[int, ...]:
    """The canonical key of an order: its declaration positions from the last one backwards, the
    later-declared variable first (negated, so that the least key wins)."""
    pos = _index_of(index)
    return tuple(-pos[v] for v in reversed(order))


def tree_key(tree, index) -> tuple:
    """The canonical key of a binary tree (nested pairs; leaves are variables, or positions when
    ``index`` is None): at each node the bitmask of the leaves under the child holding the
    lowest-declared leaf, that child's key, the other child's key, and 0 when that child is the
    left one (1 otherwise)."""
    pos = None if index is None else _index_of(index)

    def walk(t) -> tuple[int, int, tuple]:  # (mask, lowest position, key)
        if not isinstance(t, tuple):
            p = t if pos is None else pos[t]
            return 1 << p, p, ()
        (lm, llo, lk), (rm, rlo, rk) = walk(t[0]), walk(t[1])
        if llo < rlo:
            return lm | rm, llo, (lm, lk, rk, 0)
        return lm | rm, rlo, (rm, rk, lk, 1)

    return walk(tree)[2]


def plan_key(plan, variables) -> tuple:
    """The canonical key of an order plan (:class:`cep.plans.OrderPlan`) or a tree plan
    (:class:`cep.plans.TreePlan`) over ``variables`` (names in declaration order, or a mapping)."""
    root = getattr(plan, "root", None)
    if root is not None:
        return (1, tree_key(root, variables))
    return (0, order_key(plan.order, variables))


def global_plan_key(plans: Mapping[Hashable, object], variables: Mapping[Hashable, Sequence[str]]) -> tuple:
    """The canonical key of a global plan: its owners' plan keys in owner order (``variables``:
    owner -> its clause's positive variables in declaration order)."""
    return tuple((o, plan_key(plans[o], variables[o])) for o in sorted(plans))
