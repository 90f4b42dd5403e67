"""Exception push-down (NEXT Section 4.3): ``E1 ; (E2 \\ E3) = (E1 ; E2) \\ E3``.

"The terminating pattern E3 only influences the composite event detection after the next operator
has detected E1."  Under the semantics of :mod:`cep.next_algebra` the two sides detect the same
composite events exactly when

* E1 is instantaneous (a source, or a union or exception of sources): then "after E1" and "inside
  the span of E1;E2" are the same interval (E2 may be anything);
* the expression is not inside a non-first chain operand or an iteration, where an item's guard is
  checked against the end of the previous operand rather than its own start ("root contexts":
  the pattern, the operands of a union, the first operand of a chain, an exception's operands and a
  time operator's operand, recursively).

Both sides cost the next operator the same; the exception operator processes ``mu(E2) + mu(E3)``
events per second on the left and ``mu(E1 ; E2) + mu(E3) = mu(E1) + mu(E3)`` on the right, so the
rewrite goes whichever way is cheaper.  The paper pushes the exception out of the next so that "the
next rewriting algorithm [can] be used"; here the chain DP already works through exception operands
(failed items keep the chain associative), so the push-down is this local, cost-based choice.
"""

from __future__ import annotations

from typing import Iterator

import cep.next_algebra as algebra

Path = tuple[int, ...]


def _root_context_paths(e: algebra.Expr, path: Path = (), root: bool = True) -> Iterator[tuple[Path, algebra.Expr]]:
    """Every sub-expression in a root context, with its path."""
    if root:
        yield path, e
    if isinstance(e, algebra.Union):
        yield from _root_context_paths(e.left, path + (0,), root)
        yield from _root_context_paths(e.right, path + (1,), root)
    elif isinstance(e, algebra.Next):
        yield from _root_context_paths(e.left, path + (0,), root)
        yield from _root_context_paths(e.right, path + (1,), False)
    elif isinstance(e, algebra.Except):
        yield from _root_context_paths(e.child, path + (0,), root)
        yield from _root_context_paths(e.fail, path + (1,), True)
    elif isinstance(e, algebra.Time):
        yield from _root_context_paths(e.child, path + (0,), root)
    elif isinstance(e, algebra.Iteration):
        yield from _root_context_paths(e.child, path + (0,), False)


def push_out(e: algebra.Expr) -> algebra.Expr | None:
    """``E1 ; (E2 \\ E3)`` -> ``(E1 ; E2) \\ E3`` when the conditions hold at ``e`` (a root context)."""
    if isinstance(e, algebra.Next) and isinstance(e.right, algebra.Except) and algebra.is_instantaneous(e.left):
        return algebra.Except(algebra.Next(e.left, e.right.child), e.right.fail)
    return None


def pull_in(e: algebra.Expr) -> algebra.Expr | None:
    """``(E1 ; E2) \\ E3`` -> ``E1 ; (E2 \\ E3)``: the same equivalence read the other way."""
    if isinstance(e, algebra.Except) and isinstance(e.child, algebra.Next) and algebra.is_instantaneous(e.child.left):
        return algebra.Next(e.child.left, algebra.Except(e.child.right, e.fail))
    return None


def candidates(e: algebra.Expr) -> list[tuple[Path, algebra.Expr]]:
    """``(path, replacement)`` for every place where the equivalence applies."""
    out = []
    for path, sub in _root_context_paths(e):
        for move in (push_out, pull_in):
            new = move(sub)
            if new is not None:
                out.append((path, new))
    return out


def replace(e: algebra.Expr, path: Path, new: algebra.Expr) -> algebra.Expr:
    """``e`` with the sub-expression at ``path`` replaced by ``new``."""
    if not path:
        return new
    i, rest = path[0], path[1:]
    if isinstance(e, algebra.Union):
        return algebra.Union(replace(e.left, rest, new), e.right) if i == 0 else algebra.Union(e.left, replace(e.right, rest, new))
    if isinstance(e, algebra.Next):
        return algebra.Next(replace(e.left, rest, new), e.right) if i == 0 else algebra.Next(e.left, replace(e.right, rest, new))
    if isinstance(e, algebra.Except):
        return algebra.Except(replace(e.child, rest, new), e.fail) if i == 0 else algebra.Except(e.child, replace(e.fail, rest, new))
    if isinstance(e, algebra.Time):
        return algebra.Time(replace(e.child, rest, new), e.seconds)
    assert isinstance(e, algebra.Iteration)
    return algebra.Iteration(replace(e.child, rest, new), e.min_size, e.max_size)


def subexpr(e: algebra.Expr, path: Path) -> algebra.Expr:
    for i in path:
        e = algebra.children(e)[i]
    return e
