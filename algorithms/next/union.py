"""Union rewriting (NEXT Section 4.3, Fig. 3): the Huffman-style greedy for a tree of unions.

Every event of an operand passes each union on its way to the root, so a union tree costs
``sum_i mu_s(E_i) d_T(E_i)`` (``d_T``: the operand's depth) -- the cost of a prefix code -- and the
Huffman algorithm finds the cheapest tree in ``O(n log n)``: repeatedly join the two operands of
lowest rate (Fig. 3, lines 4-8), the first one extracted on the left.  Ties are broken by operand
order, so the result is deterministic.
"""

from __future__ import annotations

import heapq
import itertools
from typing import Callable, Sequence

import cep.next_algebra as algebra


def find_optimal_union(operands: Sequence[algebra.Expr], rate: Callable[[algebra.Expr], float],
                       trace: list | None = None) -> algebra.Expr:
    """``findOptimalUnion`` of Fig. 3 over ``operands`` (the result of ``extractUnionOperands``);
    ``trace``, if given, receives ``(left, right, new rate)`` for every join in order."""
    assert operands, "a union needs operands"
    counter = itertools.count()
    q = [(rate(o), next(counter), o) for o in operands]
    heapq.heapify(q)
    for _ in range(len(operands) - 1):
        rl, _, left = heapq.heappop(q)
        rr, _, right = heapq.heappop(q)
        new_rate = rl + rr
        if trace is not None:
            trace.append((left, right, new_rate))
        heapq.heappush(q, (new_rate, next(counter), algebra.Union(left, right)))
    return q[0][2]


def union_tree_cost(e: algebra.Expr, rate: Callable[[algebra.Expr], float]) -> float:
    """``sum_i mu_s(E_i) d_T(E_i)`` over the operands of the union tree ``e``."""
    def walk(x: algebra.Expr, depth: int) -> float:
        if isinstance(x, algebra.Union):
            return walk(x.left, depth + 1) + walk(x.right, depth + 1)
        return rate(x) * depth

    return walk(e, 0)
