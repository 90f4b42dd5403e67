"""The join plan both evaluators execute: a binary tree over one clause's positive variables, with
every check placed at the lowest node that holds all the variables it needs.

JQPG Section 2.3 (tree-based evaluation): leaves buffer the events of one variable; an internal node
holds the partial matches (instances) of its subtree; a new instance is combined with the buffered
instances of its sibling and the combination goes up; the root reports.  JQPG Section 2.2 (lazy NFA):
the chain of ``n + 1`` states for an order ``O`` is the left-deep instance of the same scheme (JQPG
Theorem 1: ``Cost_ord(O) = Cost_LDJ(O)``) -- state ``k + 1`` holds the prefixes ``O[:k]`` (the left
input of step ``k``) and the per-variable buffers are the right inputs.  :mod:`evaluators.nfa` and
:mod:`evaluators.tree` build a :class:`JoinPlan` each way; :mod:`evaluators.program` encodes it for the
compiled kernel (:mod:`evaluators.kernel`).

Where each check goes (cep.semantics is the definition of what must hold):
  * a condition on one variable filters its events at the leaf (for a Kleene variable: each element);
  * a condition on several positive variables, the SEQ order between two variables and the rule that
    no event fills two variables, at the lowest node whose leaves include them -- a check a lower
    node made is never repeated, and an order pair implied by pairs checked below and one pair
    checked here is dropped (the transitive reduction of the precedence across the two children);
  * the window: every instance keeps the smallest stream index among its events; a sibling instance
    whose smallest index lies before the window frontier of the newest event can no longer be
    extended and is skipped (the newest event is the largest one of any new instance);
  * a negated variable ``n``, at the lowest node holding ``D(n)`` (:func:`cep.plans.negation_nodes`,
    JQPG Section 4), when no positive variable outside that node has ``n``'s type; otherwise (an
    event that could kill there might still be bound by the missing variable) at the root.  An early
    check sees the events of ``n``'s type that arrived so far; the root re-checks the later ones;
  * strict and partition contiguity (JQPG 5.2, cep.semantics): under ``SEQ_ORDER strict``, a pair
    ``(u, v)`` that must be adjacent in every match -- ``u`` precedes ``v`` and every other positive
    variable precedes ``u`` or follows ``v`` -- is checked where ``u`` and ``v`` meet (the last event
    of ``u`` immediately before the first of ``v``: in the stream, or in the partition), so that a
    partial match is pruned as soon as it breaks contiguity.  (Under the default non-decreasing
    order, events with equal timestamps may sit in either order, so no pair is adjacent for sure.)
    Under partition contiguity every join also requires both sides to lie in one partition.  The
    span of a match is bounded by its size, which the evaluators enforce as a second window frontier
    (:mod:`evaluators.kernel`).

State, counted the same way by both evaluators: every event a plain leaf buffers is a *buffered
event*; every instance stored at a Kleene leaf (a subset of events) or at an internal node below the
root is a *partial match*.  The root's instances are matches, reported rather than stored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import count

from cep.conditions import Comparison
from cep.dnf import SimplePattern
from cep.pattern import SeqOrder, Strategy
from cep.plans import Tree, negation_nodes, tree_leaves


@dataclass(eq=False)
class JoinNode:
    """A node of the join plan; ``vars`` lists its leaves in tree order (the slot order of its
    instances)."""

    id: int
    vars: tuple[str, ...]
    left: "JoinNode | None" = None
    right: "JoinNode | None" = None
    parent: "JoinNode | None" = None
    # checks placed here (internal nodes)
    order_pairs: list[tuple[str, str]] = field(default_factory=list)
    adjacent_pairs: list[tuple[str, str]] = field(default_factory=list)  # contiguity
    distinct_pairs: list[tuple[str, str]] = field(default_factory=list)
    conditions: list[Comparison] = field(default_factory=list)
    negations: list[str] = field(default_factory=list)  # early negation checks

    @property
    def is_leaf(self) -> bool:
        return self.left is None

    @property
    def var(self) -> str:
        assert self.is_leaf
        return self.vars[0]

    @property
    def is_root(self) -> bool:
        return self.parent is None

    def sibling(self) -> "JoinNode":
        assert self.parent is not None
        return self.parent.right if self.parent.left is self else self.parent.left

    def nodes(self) -> list["JoinNode"]:
        """Post-order: children before parents."""
        if self.is_leaf:
            return [self]
        return self.left.nodes() + self.right.nodes() + [self]


@dataclass(eq=False)
class JoinPlan:
    """One clause, compiled to a join tree with its checks placed."""

    sp: SimplePattern
    root: JoinNode
    leaves: dict[str, JoinNode]
    unary: dict[str, list[Comparison]]  # variable -> its one-variable conditions (positive and negated)
    root_negations: list[str]  # negated variables checked when a match completes (from index 0)
    early_negations: dict[str, JoinNode]  # negated variable -> node of its early check
    kind: str  # "tree" or "nfa"
    contiguous_kleene: frozenset[str] = frozenset()  # Kleene variables whose elements must be adjacent

    @property
    def nodes(self) -> list[JoinNode]:
        return self.root.nodes()


def build_join_plan(sp: SimplePattern, tree: Tree, *, kind: str) -> JoinPlan:
    """Place every check of ``sp`` on the join tree ``tree`` (nested pairs of positive variable names)."""
    ids = count()

    def build(t: Tree, parent: JoinNode | None) -> JoinNode:
        node = JoinNode(next(ids), tuple(tree_leaves(t)), parent=parent)
        if isinstance(t, tuple):
            node.left = build(t[0], node)
            node.right = build(t[1], node)
        return node

    root = build(tree, None)
    leaves = {n.var: n for n in root.nodes() if n.is_leaf}
    positive = set(sp.positive)
    closure = _transitive_closure(sp.positive_precedence)
    adjacent = adjacent_pairs(sp, closure)

    unary: dict[str, list[Comparison]] = {v.name: [] for v in sp.variables}
    for c in sp.conditions:
        if len(c.variables) == 1:
            unary[next(iter(c.variables))].append(c)

    for node in root.nodes():
        if node.is_leaf:
            continue
        lv, rv = set(node.left.vars), set(node.right.vars)
        both = lv | rv
        node.conditions = [
            c for c in sp.conditions if len(c.variables) > 1 and c.variables <= both and not c.variables <= lv and not c.variables <= rv
        ]
        cross = [(u, v) for (u, v) in closure if (u in lv and v in rv) or (u in rv and v in lv)]
        node.order_pairs = _reduce_pairs(cross, closure, lv)
        node.adjacent_pairs = [(u, v) for (u, v) in adjacent if (u in lv and v in rv) or (u in rv and v in lv)]
        node.distinct_pairs = [(u, v) for u in node.left.vars for v in node.right.vars if sp.type_of(u) == sp.type_of(v)]

    early: dict[str, JoinNode] = {}
    root_negs: list[str] = []
    placed = negation_nodes(sp, tree)
    by_vars = {n.vars: n for n in root.nodes()}
    for n in sp.negated:
        node = by_vars[tuple(tree_leaves(placed[n]))]
        outside = positive - set(node.vars)
        if node.is_root or node.is_leaf or any(sp.type_of(v) == sp.type_of(n) for v in outside):
            root_negs.append(n)
        else:
            node.negations.append(n)
            early[n] = node
    contiguous = frozenset(v for v in sp.kleene if kleene_is_contiguous(sp, closure, v))
    return JoinPlan(sp, root, leaves, unary, root_negs, early, kind, contiguous)


def adjacent_pairs(sp: SimplePattern, closure: set[tuple[str, str]]) -> list[tuple[str, str]]:
    """The pairs ``(u, v)`` of positive variables adjacent in every match of a contiguous clause under
    ``SEQ_ORDER strict``: ``u`` precedes ``v`` and every other positive variable precedes ``u`` or
    follows ``v`` (strictly later timestamps lie at later positions).  Empty for other clauses."""
    if sp.strategy not in (Strategy.STRICT, Strategy.PARTITION) or sp.seq_order is not SeqOrder.STRICT:
        return []
    pos = sp.positive
    out = []
    for u, v in sorted(closure):
        if all(w in (u, v) or (w, u) in closure or (v, w) in closure for w in pos):
            out.append((u, v))
    return out


def kleene_is_contiguous(sp: SimplePattern, closure: set[tuple[str, str]], v: str) -> bool:
    """Whether the elements of Kleene variable ``v`` must be adjacent to each other in a contiguous
    match: under ``SEQ_ORDER strict``, when every other positive variable precedes or follows ``v``."""
    if sp.strategy not in (Strategy.STRICT, Strategy.PARTITION) or sp.seq_order is not SeqOrder.STRICT:
        return False
    return all(w == v or (w, v) in closure or (v, w) in closure for w in sp.positive)


def _transitive_closure(pairs) -> set[tuple[str, str]]:
    out = set(pairs)
    changed = True
    while changed:
        changed = False
        for a, b in list(out):
            for c, d in list(out):
                if b == c and (a, d) not in out:
                    out.add((a, d))
                    changed = True
    return out


def _reduce_pairs(cross: list[tuple[str, str]], closure: set[tuple[str, str]], left: set[str]) -> list[tuple[str, str]]:
    """Drop a cross pair ``(u, v)`` implied by another cross pair ``(u', v')`` with ``u <= u'`` and
    ``v' <= v`` inside one child each (relations a lower node already checked)."""

    def le(a: str, b: str) -> bool:
        return a == b or ((a in left) == (b in left) and (a, b) in closure)

    keep = []
    for u, v in sorted(cross):
        implied = any((u2, v2) != (u, v) and le(u, u2) and le(v2, v) for u2, v2 in cross)
        if not implied:
            keep.append((u, v))
    return keep
