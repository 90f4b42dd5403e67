"""Next rewriting (NEXT Section 4.3, Fig. 5): the cheapest grouping of a chain ``E1 ; ... ; En``.

``;`` is associative (Section 3.2), so every binary tree over the chain's operands detects the same
events; their costs differ by bursts (Table 1).  A tree is an operand index or a pair of trees.

* :func:`paper_dp` is Fig. 5 as printed: a list that holds, for every interval, the one cheapest
  subexpression found, appended length by length, and ``indexOf`` to find an interval in it.  Fig. 5
  writes ``j = i+l``; the text ("ending at position j=i+l-1") and Fig. 6 (``i = 0, j = 2`` for
  ``l = 3``) give ``j = i+l-1``, which we use.
* :func:`exact_dp` keeps more per interval.  A subexpression's burst size and burst rate depend on
  its grouping, and the parent's cost depends on them (the burst rate is not monotone in it), so the
  one cheapest subexpression per interval of Fig. 5 is not always part of the cheapest tree.  For
  every interval it keeps, per burst rate, the subexpressions not beaten in both cost and burst
  size: exact, as :func:`exhaustive` checks for small chains.
* :func:`exhaustive` enumerates every tree (Catalan many).

A split is allowed only where the chain's skip predicates permit (``split_ok``, from
:mod:`cep.next_algebra`'s "Evaluation plans"): the same constraint for all three searches.  Costs
are compared as :mod:`algorithms.plan_ranking` compares plans: within its tolerance they tie, Fig. 5
keeps the first cut it found among tied ones, and the final choice of :func:`exact_dp` and
:func:`exhaustive` among tied trees is the one of least canonical tree key.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Sequence

from algorithms.next.costs import Chars, next_chars, next_cost
from algorithms.plan_ranking import cheaper, pick, tree_key

Tree = int | tuple  # an operand index, or (left, right)
SplitOk = Callable[[int, int, int], bool]  # (i, k, j): join i..k with k+1..j


def _always(i: int, k: int, j: int) -> bool:
    return True


def skip_split_rule(skips: Sequence[tuple[int, int]]) -> SplitOk:
    """``split_ok`` for a chain whose skip predicates are ``(first operand p, target q)`` pairs."""
    targets = [(p, q) for p, q in skips]

    def ok(i: int, k: int, j: int) -> bool:
        for p, q in targets:
            if q == k + 1 and p < i:
                return False
            if k + 2 <= q <= j:
                return False
        return True

    return ok


@dataclass(frozen=True)
class Solution:
    tree: Tree
    cost: float  # the CPU of the tree's next operators
    chars: Chars


def tree_cost(tree: Tree, chars: Sequence[Chars]) -> Solution:
    """The CPU of a tree's next operators and its output characteristics."""
    if isinstance(tree, int):
        return Solution(tree, 0.0, chars[tree])
    a, b = tree_cost(tree[0], chars), tree_cost(tree[1], chars)
    return Solution(tree, a.cost + b.cost + next_cost(a.chars, b.chars), next_chars(a.chars, b.chars))


def _tree_span(tree: Tree) -> tuple[int, int]:
    if isinstance(tree, int):
        return tree, tree
    return _tree_span(tree[0])[0], _tree_span(tree[1])[1]


def _tree_allowed(tree: Tree, split_ok: SplitOk) -> bool:
    if isinstance(tree, int):
        return True
    i, k = _tree_span(tree[0])
    _, j = _tree_span(tree[1])
    return split_ok(i, k, j) and _tree_allowed(tree[0], split_ok) and _tree_allowed(tree[1], split_ok)


def index_of(a: int, b: int, n: int) -> int:
    """Fig. 5's ``indexOf``: where the subexpression of operands ``a..b`` sits in ``list``
    (all length-1 entries first, then all of length 2, ...)."""
    length = b - a + 1
    return sum(n - m + 1 for m in range(1, length)) + a


def paper_dp(chars: Sequence[Chars], split_ok: SplitOk = _always, trace: list | None = None) -> Solution:
    """``findOptimalNext`` of Fig. 5.  ``trace``, if given, receives one record per considered
    candidate: ``(l, i, j, k, left tree, right tree, cost)``, and after each length the list."""
    n = len(chars)
    lst: list[Solution | None] = [Solution(i, 0.0, chars[i]) for i in range(n)]
    for length in range(2, n + 1):
        for i in range(0, n - length + 1):
            best: Solution | None = None
            j = i + length - 1
            for k in range(i, j):
                e1 = lst[index_of(i, k, n)]
                e2 = lst[index_of(k + 1, j, n)]
                if e1 is None or e2 is None or not split_ok(i, k, j):
                    continue
                cand = Solution((e1.tree, e2.tree), e1.cost + e2.cost + next_cost(e1.chars, e2.chars),
                                next_chars(e1.chars, e2.chars))
                if trace is not None:
                    trace.append(("candidate", length, i, j, k, e1.tree, e2.tree, cand.cost))
                if best is None or cheaper(cand.cost, best.cost):
                    best = cand
            lst.append(best)
        if trace is not None:
            trace.append(("list", length, [None if s is None else s.tree for s in lst]))
    out = lst[index_of(0, n - 1, n)]
    assert out is not None, "the left-deep grouping is always allowed"
    return out


def exact_dp(chars: Sequence[Chars], split_ok: SplitOk = _always) -> Solution:
    """The cheapest tree: per interval and burst rate, the (cost, burst size) Pareto front."""
    n = len(chars)
    front: dict[tuple[int, int], list[Solution]] = {(i, i): [Solution(i, 0.0, chars[i])] for i in range(n)}
    for length in range(2, n + 1):
        for i in range(0, n - length + 1):
            j = i + length - 1
            cands: list[Solution] = []
            for k in range(i, j):
                if not split_ok(i, k, j):
                    continue
                for a in front[(i, k)]:
                    for b in front[(k + 1, j)]:
                        cands.append(Solution((a.tree, b.tree), a.cost + b.cost + next_cost(a.chars, b.chars),
                                              next_chars(a.chars, b.chars)))
            front[(i, j)] = _pareto(cands)
    return _cheapest(front[(0, n - 1)])


def _cheapest(solutions) -> Solution:
    """The cheapest solution; among tied ones the tree of least canonical key."""
    return pick(solutions, cost=lambda s: s.cost, key=lambda s: tree_key(s.tree, None))


def _pareto(cands: list[Solution]) -> list[Solution]:
    """Per burst rate, the solutions no other beats in both cost and burst size (ties: keep one)."""
    by_rate: dict[float, list[Solution]] = {}
    for s in cands:
        by_rate.setdefault(s.chars.brate, []).append(s)
    out = []
    for group in by_rate.values():
        group.sort(key=lambda s: (s.cost, s.chars.bsize))
        best_bsize = math.inf
        for s in group:
            if s.chars.bsize < best_bsize:
                out.append(s)
                best_bsize = s.chars.bsize
    return out


def all_trees(i: int, j: int, split_ok: SplitOk = _always) -> list[Tree]:
    """Every allowed binary tree over operands ``i..j``."""
    @lru_cache(maxsize=None)
    def trees(a: int, b: int) -> tuple:
        if a == b:
            return (a,)
        out = []
        for k in range(a, b):
            if split_ok(a, k, b):
                out.extend((l, r) for l in trees(a, k) for r in trees(k + 1, b))
        return tuple(out)

    return list(trees(i, j))


def exhaustive(chars: Sequence[Chars], split_ok: SplitOk = _always) -> Solution:
    """The cheapest tree by enumerating them all."""
    return _cheapest(tree_cost(t, chars) for t in all_trees(0, len(chars) - 1, split_ok))
