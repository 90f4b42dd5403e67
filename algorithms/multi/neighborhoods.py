"""Neighbourhoods of a global plan over the multi-pattern graph (MCEP Sections 4.2 and 5).

A move re-plans a few owners so that they share one common subpattern ``P``:

* ``N_edge`` -- a random MPG edge ``(v_i, v_j)`` and a random ``P`` in ``Gamma_ij`` (a non-empty subset
  of one of their maximal common subpatterns, at least ``min_size`` variables);
* ``N_vertex^k`` -- a random vertex ``v_i``, a random ``P`` in its vicinity, and ``min(k, |Gamma_P|)``
  of the owners containing ``P`` (``v_i`` and ``k - 1`` others; ``N_vertex^2 = N_edge``).

``P`` is never what the chosen owners already share.  MCEP Section 4.2: "We restrict P to be different
from the subpattern that is shared between P_i and P_j in the current MPT (however, its subpatterns
are allowed)"; Section 5: "The local search process for MPMs functions as described for MPTs".  Our
reading (:func:`already_shared`): the subpattern the owners share is a node of the current global
plan that every one of them uses for exactly ``P``'s variables and whose parents none is used by all
of them -- in an MPT their longest common prefix (a one-event prefix only if it is the first state of
each), in an MPM any of their maximal shared subtrees (an owner may share several disjoint ones).
A smaller or different common subpattern is allowed, so is the same ``P`` with other owners.  For
``N_vertex^k`` the restriction applies to the whole chosen group (with ``k = 2`` it is ``N_edge``'s).
A draw that breaks it is drawn again (the neighbourhood's distribution conditioned on the rule); after
:data:`MAX_DRAWS` such draws in a row the neighbourhood of the current plan is taken as empty.

The owners re-planned get the best plan of ``P`` (:func:`algorithms.constrained.best_suborder` or
:func:`~algorithms.constrained.best_subtree`, the exact DP on the first owner's cost model, carried
to the others through the correspondence, so every one of them holds the same node), then
the local plan generation algorithm ``A`` completes each (Theorem 4.1 / C.1):

* prefix sharing (MPT, ``EDGE-PREFIX``): the cheapest order starting with ``O_P``
  (:meth:`algorithms.planners.base.OrderPlanner.plan_with_prefix`, DP-LD by default);
* subtree sharing (MPM): the cheapest tree containing ``T_P`` and, for every subtree the owner
  already shares with others and that is disjoint from ``P``, randomly (probability 1/2) that subtree
  too -- "when a pattern already shares subtrees, randomly choose whether to preserve them"
  (:meth:`algorithms.planners.base.TreePlanner.plan_containing`, DP-B by default).

Local plans are cached by their constraint, and the best plan of a subpattern by its variable set,
so that a step costs a few dictionary lookups once the search has seen its constraints.
"""

from __future__ import annotations

import random
from typing import Mapping

from cep.global_plans import GlobalPlan, Owner
from cep.plans import Tree, tree_leaves

from algorithms.constrained import best_suborder, best_subtree
from algorithms.cost_model import ClauseCostModel
from algorithms.multi.mpg import MultiPatternGraph
from algorithms.registry import get_planner


def rename_tree(t: Tree, m: Mapping[str, str]) -> Tree:
    if isinstance(t, tuple):
        return (rename_tree(t[0], m), rename_tree(t[1], m))
    return m[t]


def _subtrees_post(t: Tree, out: list) -> None:
    if isinstance(t, tuple):
        _subtrees_post(t[0], out)
        _subtrees_post(t[1], out)
    out.append(t)


#: consecutive draws of an already shared subpattern after which a neighbourhood counts as empty
MAX_DRAWS = 1000


def already_shared(g: GlobalPlan, group) -> bool:
    """Whether the owners of ``group`` (``(owner, {P's variable: owner's variable})`` pairs) already
    share exactly the subpattern ``P`` in ``g`` (see the module docstring: a node every owner uses
    for exactly its variables of ``P``, none of whose parents all of them use; in an MPT a leaf counts
    only as the first state of every owner).  O(m) for an owner of ``m`` variables."""
    owners = [o for o, _ in group]
    if len(set(owners)) < 2 or any(o not in g.plans for o in owners):
        return False
    want = {o: g.shapes[o].mask(m.values()) for o, m in group}
    first = owners[0]
    for node in g.owner_nodes[first]:
        users = node.users
        if users[first][1] != want[first]:
            continue
        if not all(o in users and users[o][1] == want[o] for o in owners):
            continue
        if g.kind == "order" and node.leaf is not None and not all(o in node.first_users for o in owners):
            continue
        if any(all(o in parent.users for o in owners) for parent, _ in node.parents.values()):
            continue
        return True
    return False


class LocalPlans:
    """The local plan generation algorithm ``A`` with its answers cached by constraint."""

    def __init__(self, kind: str, models: Mapping[Owner, ClauseCostModel], *, order_planner: str = "DP-LD",
                 tree_planner: str = "DP-B") -> None:
        self.kind = kind
        self.models = models
        self.planner = get_planner(order_planner if kind == "order" else tree_planner)
        self.cache: dict = {}
        self.sub_cache: dict = {}

    def best(self, owner: Owner):
        return self.constrained(owner, ())

    def constrained(self, owner: Owner, constraint: tuple):
        """The cheapest plan of ``owner`` with the prefix (order) or containing the subtrees (tree)."""
        key = (owner, constraint)
        got = self.cache.get(key)
        if got is not None:
            return got
        model = self.models[owner]
        if self.kind == "order":
            plan = self.planner.plan_with_prefix(model, constraint).plan
        else:
            plan = self.planner.plan_containing(model, list(constraint)).plan
        self.cache[key] = plan
        return plan

    def sub_plan(self, owner: Owner, vs: tuple[str, ...]):
        key = (owner, frozenset(vs))
        got = self.sub_cache.get(key)
        if got is None:
            got = best_suborder(self.models[owner], vs) if self.kind == "order" else best_subtree(self.models[owner], vs)
            self.sub_cache[key] = got
        return got


class Neighborhood:
    """``N_edge`` (``k = 2``) or ``N_vertex^k`` over an MPG; ``propose`` returns a move: the owners
    to re-plan and their new local plans (``None`` when the component offers no sharing)."""

    def __init__(self, mpg: MultiPatternGraph, local: LocalPlans, *, k: int = 2, vertex: bool = False,
                 preserve: bool = True) -> None:
        self.mpg = mpg
        self.local = local
        self.k = k
        self.vertex = vertex
        self.preserve = preserve and local.kind == "tree"
        self.last: list = []
        self.restrict(None)

    def restrict(self, owners) -> None:
        """Draw only edges (vertices) inside ``owners`` (a connected component; None: all)."""
        keep = None if owners is None else set(owners)
        self.edges = [e for e in self.mpg.edge_list if keep is None or e[0] in keep]
        self.vertices = sorted({o for e in self.edges for o in e})

    def _subset(self, rng: random.Random, pairs: tuple) -> tuple:
        lo = self.mpg.min_size
        size = rng.randint(lo, len(pairs))
        return tuple(sorted(rng.sample(pairs, size)))

    def propose(self, rng: random.Random, g: GlobalPlan) -> dict | None:
        """A random neighbour of ``g``: the new local plans of the owners re-planned to share a
        subpattern they do not share yet (``None``: no such neighbour).  ``self.last`` keeps the draw:
        ``(owner, {P's variable: owner's variable})`` per owner re-planned."""
        if not self.edges:
            return None
        for _ in range(MAX_DRAWS):
            group, vs = self._draw(rng)
            if not already_shared(g, group):
                break
        else:
            return None
        self.last = group
        return self._move(rng, g, group, vs)

    def _draw(self, rng: random.Random) -> tuple[list, tuple[str, ...]]:
        """The owners and the subpattern ``P`` (the first owner's variables ``vs``) of one draw."""
        if self.vertex:
            i = rng.choice(self.vertices)
            cs = rng.choice(self.mpg.of_owner[i])
            pairs = cs.pairs if cs.a == i else tuple((v, u) for u, v in cs.pairs)
            sub = self._subset(rng, pairs)
            vs = tuple(u for u, _ in sub)
            others = self.mpg.containing(i, vs)
            if len(others) > self.k - 1:
                others = rng.sample(others, self.k - 1)
            group = [(i, {v: v for v in vs})] + others
        else:
            e = rng.choice(self.edges)
            cs = rng.choice(self.mpg.edges[e])
            sub = self._subset(rng, cs.pairs)
            vs = tuple(u for u, _ in sub)
            group = [(cs.a, {u: u for u, _ in sub}), (cs.b, dict(sub))]
        return group, vs

    def _move(self, rng: random.Random, g: GlobalPlan, group: list, vs: tuple[str, ...]) -> dict:
        first = group[0][0]
        base = self.local.sub_plan(first, vs)
        move = {}
        for owner, m in group:
            if self.local.kind == "order":
                prefix = tuple(m[v] for v in base)
                move[owner] = self.local.constrained(owner, prefix)
            else:
                t = rename_tree(base, m)
                cons = [t]
                if self.preserve:
                    cons += self._preserved(rng, g, owner, set(m.values()))
                move[owner] = self.local.constrained(owner, tuple(sorted(cons, key=str)))
        return move

    def _preserved(self, rng: random.Random, g: GlobalPlan, owner: Owner, taken: set) -> list:
        """The owner's maximal shared subtrees disjoint from ``taken``, each kept with probability 1/2."""
        plan = g.plans.get(owner)
        if plan is None:
            return []
        subs: list = []
        _subtrees_post(plan.root, subs)
        nodes = g.owner_nodes[owner]
        shared = {}
        for t, node in zip(subs, nodes):
            if isinstance(t, tuple) and len(node.users) > 1:
                shared[t] = True
        out = []

        def walk(t):
            if not isinstance(t, tuple):
                return
            if t in shared:
                if taken.isdisjoint(tree_leaves(t)) and rng.random() < 0.5:
                    out.append(t)
                return
            walk(t[0])
            walk(t[1])

        walk(plan.root)
        return out
