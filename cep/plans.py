"""Evaluation plans: the contract between planners (``algorithms``) and evaluators (``evaluators``).

JQPG Section 2.4 distinguishes two plan kinds:
  * an *order-based plan* is a permutation of the pattern's positive variables; the lazy NFA
    (JQPG 2.2) processes events in that order;
  * a *tree-based plan* is a binary tree whose leaves are the positive variables; the
    ZStream-style tree evaluator (JQPG 2.3) buffers events at leaves and joins partial matches
    upward.
Plans name variables, not event types, so that a type appearing twice (``SEQ(MSFT a, DRIV b, MSFT c)``)
is unambiguous.  Negated variables are not part of a plan: evaluators (and cost models) insert
their check at the earliest point where every variable it depends on is bound (JQPG Section 4),
as computed by :func:`negation_steps` and :func:`negation_nodes`.

A pattern with several DNF clauses gets one plan per clause (:class:`PatternPlan`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Sequence, Union

from cep.dnf import SimplePattern
from cep.errors import PlanError

Tree = Union[str, tuple["Tree", "Tree"]]  # a leaf is a variable name; an internal node a pair


@dataclass(frozen=True)
class OrderPlan:
    order: tuple[str, ...]
    kind = "order"

    def __str__(self) -> str:
        return ", ".join(self.order)

    def to_json(self) -> list:
        return list(self.order)

    def leaves(self) -> tuple[str, ...]:
        return self.order


@dataclass(frozen=True)
class TreePlan:
    root: Tree
    kind = "tree"

    def __str__(self) -> str:
        return format_tree(self.root)

    def to_json(self):
        return tree_to_json(self.root)

    def leaves(self) -> tuple[str, ...]:
        return tuple(tree_leaves(self.root))

    def nodes(self) -> list[Tree]:
        """Every node, children before parents (post-order)."""
        out: list[Tree] = []

        def walk(t: Tree) -> None:
            if isinstance(t, tuple):
                walk(t[0])
                walk(t[1])
            out.append(t)

        walk(self.root)
        return out


Plan = Union[OrderPlan, TreePlan]


@dataclass(frozen=True)
class PatternPlan:
    """One plan per DNF clause of a pattern, in the order of :func:`cep.dnf.to_dnf`."""

    plans: tuple[Plan, ...]

    @property
    def kind(self) -> str:
        return self.plans[0].kind

    def __str__(self) -> str:
        if len(self.plans) == 1:
            return str(self.plans[0])
        return " | ".join(str(p) for p in self.plans)

    def to_json(self):
        return self.plans[0].to_json() if len(self.plans) == 1 else [p.to_json() for p in self.plans]


def tree_leaves(t: Tree) -> Iterator[str]:
    if isinstance(t, tuple):
        yield from tree_leaves(t[0])
        yield from tree_leaves(t[1])
    else:
        yield t


def format_tree(t: Tree) -> str:
    if isinstance(t, tuple):
        return f"({format_tree(t[0])}, {format_tree(t[1])})"
    return t


def tree_to_json(t: Tree):
    if isinstance(t, tuple):
        return [tree_to_json(t[0]), tree_to_json(t[1])]
    return t


def tree_from_json(x) -> Tree:
    if isinstance(x, str):
        return x
    if isinstance(x, (list, tuple)) and len(x) == 2:
        return (tree_from_json(x[0]), tree_from_json(x[1]))
    raise PlanError(f"a tree is a variable name or a two-element list, got {x!r}")


def left_deep_tree(order: Sequence[str]) -> Tree:
    """The left-deep tree of an order: ((((o1, o2), o3), ...), on)."""
    t: Tree = order[0]
    for v in order[1:]:
        t = (t, v)
    return t


def validate_plan(sp: SimplePattern, plan: Plan) -> None:
    """Raise PlanError unless the plan covers every positive variable of ``sp`` exactly once."""
    leaves = list(plan.leaves())
    want = sorted(sp.positive)
    if sorted(leaves) != want:
        raise PlanError(f"plan {plan} does not cover the positive variables {', '.join(want)} of {sp.name} exactly once")


def negation_steps(sp: SimplePattern, order: Sequence[str]) -> dict[str, int]:
    """For an order plan: each negated variable -> the number of order steps after which all
    variables it depends on are bound (1-based; JQPG Section 4, negation patterns)."""
    pos = {v: i for i, v in enumerate(order)}
    return {n: max(pos[d] for d in sp.negation_dependencies(n)) + 1 for n in sp.negated}


def negation_nodes(sp: SimplePattern, root: Tree) -> dict[str, Tree]:
    """For a tree plan: each negated variable -> the lowest node whose leaves include every
    variable the negation depends on (where the NSEQ check of JQPG Section 4 goes)."""
    out: dict[str, Tree] = {}
    for n in sp.negated:
        deps = sp.negation_dependencies(n)
        node = root
        while isinstance(node, tuple):
            for child in node:
                if deps <= set(tree_leaves(child)):
                    node = child
                    break
            else:
                break
        out[n] = node
    return out
