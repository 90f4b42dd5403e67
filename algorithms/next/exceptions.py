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

from cep import next_algebra as nx

Path = tuple[int, ...]


def _root_context_paths(e: nx.Expr, path: Path = (), root: bool = True) -> Iterator[tuple[Path, nx.Expr]]:
    """Every sub-expression in a root context, with its path."""
    if root:
        yield path, e
    if isinstance(e, nx.Union):
        yield from _root_context_paths(e.left, path + (0,), root)
        yield from _root_context_paths(e.right, path + (1,), root)
    elif isinstance(e, nx.Next):
        yield from _root_context_paths(e.left, path + (0,), root)
        yield from _root_context_paths(e.right, path + (1,), False)
    elif isinstance(e, nx.Except):
        yield from _root_context_paths(e.child, path + (0,), root)
        yield from _root_context_paths(e.fail, path + (1,), True)
    elif isinstance(e, nx.Time):
        yield from _root_context_paths(e.child, path + (0,), root)
    elif isinstance(e, nx.Iteration):
        yield from _root_context_paths(e.child, path + (0,), False)


def push_out(e: nx.Expr) -> nx.Expr | None:
    """``E1 ; (E2 \\ E3)`` -> ``(E1 ; E2) \\ E3`` when the conditions hold at ``e`` (a root context)."""
    if isinstance(e, nx.Next) and isinstance(e.right, nx.Except) and nx.is_instantaneous(e.left):
        return nx.Except(nx.Next(e.left, e.right.child), e.right.fail)
    return None


def pull_in(e: nx.Expr) -> nx.Expr | None:
    """``(E1 ; E2) \\ E3`` -> ``E1 ; (E2 \\ E3)``: the same equivalence read the other way."""
    if isinstance(e, nx.Except) and isinstance(e.child, nx.Next) and nx.is_instantaneous(e.child.left):
        return nx.Next(e.child.left, nx.Except(e.child.right, e.fail))
    return None


def candidates(e: nx.Expr) -> list[tuple[Path, nx.Expr]]:
    """``(path, replacement)`` for every place where the equivalence applies."""
    out = []
    for path, sub in _root_context_paths(e):
        for move in (push_out, pull_in):
            new = move(sub)
            if new is not None:
                out.append((path, new))
    return out


def replace(e: nx.Expr, path: Path, new: nx.Expr) -> nx.Expr:
    """``e`` with the sub-expression at ``path`` replaced by ``new``."""
    if not path:
        return new
    i, rest = path[0], path[1:]
    if isinstance(e, nx.Union):
        return nx.Union(replace(e.left, rest, new), e.right) if i == 0 else nx.Union(e.left, replace(e.right, rest, new))
    if isinstance(e, nx.Next):
        return nx.Next(replace(e.left, rest, new), e.right) if i == 0 else nx.Next(e.left, replace(e.right, rest, new))
    if isinstance(e, nx.Except):
        return nx.Except(replace(e.child, rest, new), e.fail) if i == 0 else nx.Except(e.child, replace(e.fail, rest, new))
    if isinstance(e, nx.Time):
        return nx.Time(replace(e.child, rest, new), e.seconds)
    assert isinstance(e, nx.Iteration)
    return nx.Iteration(replace(e.child, rest, new), e.min_size, e.max_size)


def subexpr(e: nx.Expr, path: Path) -> nx.Expr:
    for i in path:
        e = nx.children(e)[i]
    return e
