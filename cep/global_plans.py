"""Global evaluation plans of a workload: the multi-pattern tree (MPT) and multitree (MPM).

MCEP Section 3.2 (MPT) and Section 5 (MPM).  A workload's unit of planning is a DNF clause of one of
its patterns (MCEP Section 2: "every clause of the resulting DNF expression can be considered as a
separate pattern"); a clause is named by its *owner* ``(pattern index, clause index)``.  A global
plan holds one local plan per owner and merges every node that two local plans have in common:

* an **MPT** holds order plans; its nodes are the prefixes of the orders, so "to add an evaluation
  order O to an existing MPT, we iterate over O and only create a new node if no equivalent one
  exists" (Section 3.2).  Each owner has one final state -- the node of its full order -- which may
  be internal (``SEQ(A, B)`` inside ``SEQ(A, B, C)``);
* an **MPM** holds tree plans; "each pattern in a MPM has a dedicated root, and all leaves
  corresponding to the same event type are shared regardless of the plan in use"; a subtree is
  shared whenever it exists already, which "can be tested in constant time by hashing the subtrees
  upon creation" (Section 5).

**When two nodes are equivalent** ("identical sequences of event types, and ... identical
conditions", Section 3.2).  A node is identified by a *key* that describes exactly which instances
it holds, independent of variable names: a leaf by its event type, its kind (plain or Kleene with
its size bounds), its one-variable conditions rewritten over the slot name ``_0``, the window kind
and the SEQ timestamp order; an internal node by the ids of its two children (whose keys fix the
meaning of their slots) plus the checks placed on it -- the conditions over both children's
variables and the SEQ precedence pairs between them, both rewritten over slot names ``_0, _1, ...``
(the node's leaves in tree order).  Child ids make a key O(1) to hash, so adding a plan of ``m``
variables touches ``2m - 1`` nodes: O(m) (conditions aside, each looked at once per node).  Two
patterns that differ only in an attribute, in SEQ order, or in the position of a common
sub-sequence therefore never share a node they should not; exact duplicates share everything.  The
window is not part of a key: a node keeps the widest window of the owners that use it (Section 3.1:
"set to the largest time window among the patterns sharing the state"), and every node checks its
own (narrower or equal) window when it combines its children, every owner its own at its root.
Leaves with the same type but different one-variable filters are different buffers (a filter is
applied where the event enters the plan).

Negated variables and the selection strategy are not part of any node: the evaluators check them
per owner where its path leaves the shared part (its root).  ``share=False`` builds the same
structure without merging anything across owners (the trivial global plan: "each pattern alone");
``shared_masks`` merges the leaves and only the internal nodes an optimizer decided to share (per
owner, the variable sets of those nodes), so that a plan shares what its optimizer chose and no
equal sub-tree it happens to have in common with another.

**Filter nodes** (MOTTO Section IV-C, OTT, Table I; and its condition and window filters).  An MPM
owner may compute a sub-tree of its plan as a *weaker* sub-pattern over the same variables -- a
:class:`Weakening` of the variable set (``weak``): without the precedence between them (SEQ computed
as CONJ) and/or with fewer of its conditions (a one-variable one is a leaf filter: the weak leaf is
the less filtered event buffer) -- and put a **filter node** above it: an
internal node with one child, whose instances are the child's instances that pass what was left out
(the SEQ pairs among the child's slots -- ``Filter_sc`` -- and the dropped conditions), within the
node's window (the window filter; every owner still checks its own at its root).  The weak sub-tree's
nodes have the keys of that weaker sub-pattern, so they merge with the nodes of an owner that *is*
the weaker pattern (the CONJ query itself, or a query without those conditions): MOTTO's "computed
once, filtered for the stronger query".  A filter node's key is its child's id plus its checks over
the child's slots; its slots are its child's, in the same order.  The result is exact: the filter
node holds exactly the instances the owner's own (strong) sub-tree would hold.  ``Filter_cd`` (CONJ
from DISJ) has no node: a DISJ is several DNF clauses, each planned as its own owner, and no node
computes a union of clauses (see :mod:`algorithms.multi.sh_mdt`).  An MPT (order plans, whose nodes
are NFA states) takes no weakening.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from cep.conditions import Comparison
from cep.dnf import KLEENE, SimplePattern
from cep.errors import PlanError
from cep.plans import OrderPlan, Tree, TreePlan, left_deep_tree, tree_leaves, validate_plan

Owner = tuple[int, int]  # (pattern index in the workload, DNF clause index)


@dataclass(frozen=True)
class Weakening:
    """How an owner's sub-tree is computed weaker than its clause (module docstring, filter nodes):
    ``keep_order`` lists the precedence pairs ``(u, v)`` of the clause's (transitively closed) order
    among its variables that the weak sub-tree still checks (None: all; empty: SEQ computed as CONJ,
    ``Filter_sc`` restores the rest); ``keep_conditions`` lists (as ``str``) the conditions among its
    variables the weak sub-tree still checks (None: all; one-variable conditions are its leaves'
    filters, so a weak leaf may be another, less filtered, event buffer) -- the filter node
    above it checks the others.  A weak sub-tree inside another keeps a subset of what the outer
    one keeps."""

    keep_order: frozenset[tuple[str, str]] | None = None
    keep_conditions: frozenset[str] | None = None

    def keeps(self, c: Comparison) -> bool:
        return self.keep_conditions is None or str(c) in self.keep_conditions

    def keeps_pair(self, u: str, v: str) -> bool:
        return self.keep_order is None or (u, v) in self.keep_order


@dataclass(frozen=True)
class LeafSpec:
    """What a leaf buffers: events of ``type`` passing ``filters`` (conditions over slot ``_0``)."""

    type: str
    kleene: bool
    min_size: int
    max_size: int | None
    filters: tuple[Comparison, ...]
    window_kind: str
    seq_order: str


class ClauseShape:
    """What node keys need of one clause, precomputed once: leaf keys and the multi-variable
    conditions and precedence pairs over its positive variables, by variable bitmask."""

    def __init__(self, sp: SimplePattern) -> None:
        self.sp = sp
        self.positive = sp.positive
        self.bit = {v: 1 << i for i, v in enumerate(self.positive)}
        pos = set(self.positive)
        self.leaf: dict[str, LeafSpec] = {}
        self.leaf_conds: dict[str, list[Comparison]] = {v: [c for c in sp.conditions if c.variables == {v}]
                                                        for v in self.positive}
        for v in self.positive:
            self.leaf[v] = self.leaf_spec(v)
        self.conds: list[tuple[int, Comparison]] = []
        for c in sp.conditions:
            if len(c.variables) > 1 and c.variables <= pos:
                self.conds.append((self.mask(c.variables), c))
        closure = set(sp.positive_precedence)
        changed = True
        while changed:
            changed = False
            for a, b in list(closure):
                for c, d in list(closure):
                    if b == c and (a, d) not in closure:
                        closure.add((a, d))
                        changed = True
        self.closure = frozenset(closure)

    def leaf_spec(self, v: str, weak: Weakening | None = None) -> LeafSpec:
        """The leaf of ``v``: its type and its one-variable conditions (those ``weak`` keeps)."""
        var = self.sp.var[v]
        filters = tuple(sorted((c.rename({v: "_0"}) for c in self.leaf_conds[v] if weak is None or weak.keeps(c)),
                               key=str))
        return LeafSpec(var.type, var.kind == KLEENE, var.min_size, var.max_size, filters,
                        self.sp.window.kind.value, self.sp.seq_order.value)

    def mask(self, names: Iterable[str]) -> int:
        m = 0
        for v in names:
            m |= self.bit[v]
        return m

    def node_checks(self, left: tuple[str, ...], right: tuple[str, ...],
                    weak: Weakening | None = None) -> tuple[tuple, tuple]:
        """The conditions and precedence pairs an internal node over ``left`` + ``right`` checks,
        rewritten over slot names (canonical, sorted); inside a weak sub-tree only what ``weak``
        keeps."""
        lm, rm = self.mask(left), self.mask(right)
        both = lm | rm
        slots = left + right
        ren = {v: f"_{i}" for i, v in enumerate(slots)}
        conds = tuple(sorted(
            (c.rename(ren) for m, c in self.conds
             if m & both == m and m & lm != m and m & rm != m and (weak is None or weak.keeps(c))), key=str
        ))
        idx = {v: i for i, v in enumerate(slots)}
        ls, rs = set(left), set(right)
        pairs = tuple(sorted(
            (idx[u], idx[v]) for u, v in self.closure
            if ((u in ls and v in rs) or (u in rs and v in ls)) and (weak is None or weak.keeps_pair(u, v))
        ))
        return conds, pairs

    def filter_checks(self, slots: tuple[str, ...], weak: Weakening,
                      outer: Weakening | None = None) -> tuple[tuple, tuple]:
        """What the filter node above a weak sub-tree over ``slots`` checks, over slot names: the
        conditions and precedence pairs among them that the enclosing sub-tree
        (``outer``, None: the owner's clause) checks and ``weak`` leaves out.  A weak sub-tree that
        checks something its enclosing one does not is a :class:`PlanError`."""
        m_all = self.mask(slots)
        ren = {v: f"_{i}" for i, v in enumerate(slots)}
        idx = {v: i for i, v in enumerate(slots)}
        inside = [c for v in slots for c in self.leaf_conds[v]] + [c for m, c in self.conds if m & m_all == m]
        inner_pairs = [(u, v) for u, v in self.closure if u in idx and v in idx]
        if outer is not None and (any(weak.keeps(c) and not outer.keeps(c) for c in inside)
                                  or any(weak.keeps_pair(u, v) and not outer.keeps_pair(u, v) for u, v in inner_pairs)):
            raise PlanError("a weakened sub-tree checks more than the sub-tree around it")
        conds = tuple(sorted((c.rename(ren) for c in inside
                              if (outer is None or outer.keeps(c)) and not weak.keeps(c)), key=str))
        pairs = tuple(sorted((idx[u], idx[v]) for u, v in inner_pairs
                             if (outer is None or outer.keeps_pair(u, v)) and not weak.keeps_pair(u, v)))
        return conds, pairs

    def weakened(self, slots: Iterable[str], weak: Weakening) -> SimplePattern:
        """The clause as the weak sub-tree over ``slots`` sees it: without the conditions and
        precedence among them that ``weak`` leaves out (for the cost of its nodes)."""
        from dataclasses import replace

        inside = set(slots)
        conds = tuple(c for c in self.sp.conditions if not (c.variables <= inside and not weak.keeps(c)))
        prec = frozenset((u, v) for u, v in self.sp.precedence
                         if not (u in inside and v in inside) or weak.keeps_pair(u, v))
        return replace(self.sp, conditions=conds, precedence=prec)


class SharedNode:
    """A node of a global plan.  ``users`` maps each owner using it to ``[uses, mask, view]`` (how
    many of the owner's plan nodes are this node -- two equal subtrees of one clause are one node --,
    the bitmask of the owner's variables below it, and, for a node that holds a weakened sub-pattern,
    its view ``(mask, level)`` -- the weak sub-tree and which of its weakenings, the one the cost
    model applies; else None).  A filter node has
    ``left`` (its child) and no ``right``."""

    __slots__ = ("id", "key", "leaf", "left", "right", "conds", "pairs", "slot_types", "slot_kleene",
                 "users", "parents", "first_users", "span_owner")

    def __init__(self, nid: int, key, leaf: LeafSpec | None, left: "SharedNode | None", right: "SharedNode | None",
                 conds: tuple = (), pairs: tuple = ()) -> None:
        self.id = nid
        self.key = key
        self.leaf = leaf
        self.left = left
        self.right = right
        self.conds = conds
        self.pairs = pairs
        if leaf is not None:
            self.slot_types = (leaf.type,)
            self.slot_kleene = (leaf.kleene,)
        elif right is None:  # a filter node: its child's slots
            self.slot_types = left.slot_types
            self.slot_kleene = left.slot_kleene
        else:
            self.slot_types = left.slot_types + right.slot_types
            self.slot_kleene = left.slot_kleene + right.slot_kleene
        self.users: dict[Owner, list] = {}
        self.parents: dict[tuple[int, int], tuple["SharedNode", int]] = {}  # (parent id, side) -> (parent, side)
        self.first_users: dict[Owner, int] = {}  # MPT: owners whose first state this leaf is

    @property
    def is_leaf(self) -> bool:
        return self.leaf is not None

    @property
    def is_filter(self) -> bool:
        return self.leaf is None and self.right is None

    @property
    def size(self) -> int:
        return len(self.slot_types)

    def __repr__(self) -> str:
        return f"SharedNode({self.id}, size={self.size}, users={sorted(self.users)})"


class GlobalPlan:
    """One local plan per owner, merged (see the module docstring).  Subclasses fix the plan kind."""

    kind = ""

    def __init__(self, clauses: Mapping[Owner, SimplePattern], *, share: bool = True,
                 shared_masks: Mapping[Owner, frozenset[int]] | None = None,
                 weak: Mapping[Owner, Mapping[int, Weakening | tuple[Weakening, ...]]] | None = None) -> None:
        self.clauses = dict(clauses)
        # per owner, the variable sets (masks) of its sub-trees computed weaker, each under filter
        # nodes: a tuple of weakenings, outermost first, is a stack of filters over one sub-tree
        self.weak = {o: {m: (x if isinstance(x, tuple) else (x,)) for m, x in w.items()}
                     for o, w in (weak or {}).items() if w}
        if self.weak and self.kind == "order":
            raise PlanError("an MPT takes no weakened sub-trees (filter nodes are MPM nodes)")
        self.share = share
        # with share: None merges every equal node; a mapping merges the leaves and, per owner, only the
        # internal nodes over the variable sets (ClauseShape.mask) it lists -- the others stay private
        self.shared_masks = None if shared_masks is None else {o: frozenset(m) for o, m in shared_masks.items()}
        self.shapes = {o: ClauseShape(sp) for o, sp in self.clauses.items()}
        self.nodes: dict[object, SharedNode] = {}
        self.plans: dict[Owner, OrderPlan | TreePlan] = {}
        self.roots: dict[Owner, SharedNode] = {}
        self.root_vars: dict[Owner, tuple[str, ...]] = {}  # the owner's variables in its root's slot order
        self.owner_nodes: dict[Owner, list[SharedNode]] = {}
        self.touched: dict[int, SharedNode] = {}  # nodes whose existence or users changed (for incremental costs)
        self._compiled: dict = {}
        self._next_id = 0

    # ---- building ----------------------------------------------------------------------------
    def _get(self, key, make) -> SharedNode:
        node = self.nodes.get(key)
        if node is None:
            node = make(self._next_id)
            self._next_id += 1
            self.nodes[key] = node
            for side, child in ((0, node.left), (1, node.right)):
                if child is not None:
                    child.parents[(node.id, side)] = (node, side)
        return node

    def _compile(self, owner: Owner, tree: Tree) -> list:
        """The owner's tree as a post-order list of node recipes (cached: a search re-adds the same
        local plans many times)."""
        key = (owner, tree)
        got = self._compiled.get(key)
        if got is not None:
            return got
        shape = self.shapes[owner]
        weak = self.weak.get(owner, {})
        out: list = []
        seen_weak: set[int] = set()

        def walk(t: Tree, view) -> tuple[int, tuple[str, ...]]:
            # view: (mask, level) of the innermost weak sub-tree around t (its weakening
            # weak[mask][level]), or None (the owner's own clause)
            if not isinstance(t, tuple):
                vs = (t,)
                leaf = shape.leaf[t] if view is None else shape.leaf_spec(t, weak[view[0]][view[1]])
                out.append((leaf, None, None, None, shape.mask(vs), view))
                return len(out) - 1, vs
            m = shape.mask(tree_leaves(t))
            ws = weak.get(m, ())
            outer = view
            if ws:
                seen_weak.add(m)
                view = (m, len(ws) - 1)
            wk = None if view is None else weak[view[0]][view[1]]
            (li, lv), (ri, rv) = walk(t[0], view), walk(t[1], view)
            conds, pairs = shape.node_checks(lv, rv, wk)
            vs = lv + rv
            out.append((li, ri, conds, pairs, m, view))
            for k in range(len(ws) - 1, -1, -1):  # the filters, innermost first
                up = (m, k - 1) if k else outer
                fconds, fpairs = shape.filter_checks(vs, ws[k], None if up is None else weak[up[0]][up[1]])
                if fconds or fpairs:  # else the weakening left nothing out: no filter needed
                    out.append((len(out) - 1, "F", fconds, fpairs, m, up))
            return len(out) - 1, vs

        _, vs = walk(tree, None)
        if set(weak) - seen_weak:
            raise PlanError(f"owner {owner}: a weakened variable set is no sub-tree of its plan")
        if len(self._compiled) > 200_000:
            self._compiled.clear()
        self._compiled[key] = (out, vs)
        return self._compiled[key]

    def _add_tree(self, owner: Owner, tree: Tree) -> None:
        recipes, vs = self._compile(owner, tree)
        tag = () if self.share else (owner,)
        only = None if self.shared_masks is None else self.shared_masks.get(owner, frozenset())
        used: list[SharedNode] = []
        nodes = self.nodes
        for a, b, conds, pairs, mask, view in recipes:
            if b is None:
                key = ("L", a) + tag
                node = nodes.get(key)
                if node is None:
                    node = self._get(key, lambda i: SharedNode(i, key, a, None, None))
            elif b == "F":
                cn = used[a]
                key = ("F", cn.id, conds, pairs) + (tag if only is None or mask in only else (owner,))
                node = nodes.get(key)
                if node is None:
                    node = self._get(key, lambda i, k=key, c=cn, cs=conds, ps=pairs: SharedNode(i, k, None, c, None, cs, ps))
            else:
                ln, rn = used[a], used[b]
                key = ("N", ln.id, rn.id, conds, pairs) + (tag if only is None or mask in only else (owner,))
                node = nodes.get(key)
                if node is None:
                    node = self._get(key, lambda i: SharedNode(i, key, None, ln, rn, conds, pairs))
            u = node.users.get(owner)
            if u is None:
                node.users[owner] = [1, mask, view]
            else:
                u[0] += 1
            used.append(node)
            self.touched[node.id] = node
        self.roots[owner] = used[-1]
        self.root_vars[owner] = vs
        self.owner_nodes[owner] = used

    def add(self, owner: Owner, plan) -> None:
        """Add the owner's local plan: O(m) for a clause of ``m`` positive variables."""
        if owner in self.plans:
            raise PlanError(f"owner {owner} already has a plan; remove it first")
        sp = self.clauses[owner]
        plan = self._coerce(plan)
        validate_plan(sp, plan)
        self.plans[owner] = plan
        self._add_tree(owner, self._tree_of(plan))
        if self.kind == "order":
            first = self.owner_nodes[owner][0]
            first.first_users[owner] = first.first_users.get(owner, 0) + 1

    def remove(self, owner: Owner) -> None:
        """Remove the owner's local plan, deleting the nodes no other owner uses: O(m)."""
        if owner not in self.plans:
            raise PlanError(f"owner {owner} has no plan")
        nodes = self.owner_nodes.pop(owner)
        if self.kind == "order":
            first = nodes[0]
            first.first_users[owner] -= 1
            if not first.first_users[owner]:
                del first.first_users[owner]
        for node in reversed(nodes):  # parents before children
            u = node.users[owner]
            u[0] -= 1
            if u[0] == 0:
                del node.users[owner]
            self.touched[node.id] = node
            if not node.users:
                del self.nodes[node.key]
                for side, child in ((0, node.left), (1, node.right)):
                    if child is not None:
                        child.parents.pop((node.id, side), None)
        del self.plans[owner]
        del self.roots[owner]
        del self.root_vars[owner]

    def replace(self, owner: Owner, plan) -> None:
        if owner in self.plans:
            self.remove(owner)
        self.add(owner, plan)

    def _coerce(self, plan):
        return plan

    def _tree_of(self, plan) -> Tree:
        raise NotImplementedError

    # ---- views ---------------------------------------------------------------------------------
    def view_clause(self, owner: Owner, view: tuple[int, int] | None) -> SimplePattern:
        """The owner's clause as the nodes of its weak sub-tree ``view`` (``(mask, level)``: the
        weakening ``weak[owner][mask][level]``) see it, or its own clause (``view`` None)."""
        if view is None:
            return self.clauses[owner]
        shape = self.shapes[owner]
        m, k = view
        return shape.weakened([v for v in shape.positive if shape.bit[v] & m], self.weak[owner][m][k])

    def is_alive(self, node: SharedNode) -> bool:
        return self.nodes.get(node.key) is node

    def shared_nodes(self) -> list[SharedNode]:
        """Nodes used by two or more owners, or twice by one, smallest first."""
        return sorted((n for n in self.nodes.values() if len(n.users) > 1 or any(u[0] > 1 for u in n.users.values())),
                      key=lambda n: (n.size, n.id))

    def node_vars(self, node: SharedNode, owner: Owner) -> tuple[str, ...]:
        """The owner's variables below ``node`` in slot order (one of them if it uses it twice)."""
        shape = self.shapes[owner]
        mask = node.users[owner][1]
        for t in _subtrees(self._tree_of(self.plans[owner])):
            vs = tuple(tree_leaves(t))
            if shape.mask(vs) == mask:
                return vs
        raise AssertionError("node not in the owner's plan")

    def describe(self) -> dict:
        """A JSON-able description: shared nodes (with one owner's variables each) and every plan."""
        shared = []
        for n in self.shared_nodes():
            owners = sorted(n.users)
            o = owners[0]
            t = self._subtree_of(o, n.users[o][1])
            shared.append({"node": n.id, "size": n.size, "owners": [list(x) for x in owners],
                           "plan": TreePlan(t).to_json() if isinstance(t, tuple) else t})
        plans = {f"{p}.{c}": pl.to_json() for (p, c), pl in sorted(self.plans.items())}
        return {"kind": self.kind, "nodes": len(self.nodes), "shared_nodes": shared, "plans": plans}

    def _subtree_of(self, owner: Owner, mask: int) -> Tree:
        shape = self.shapes[owner]
        for t in _subtrees(self._tree_of(self.plans[owner])):
            if shape.mask(tree_leaves(t)) == mask:
                return t
        raise AssertionError("no such subtree")


def _subtrees(t: Tree):
    yield t
    if isinstance(t, tuple):
        yield from _subtrees(t[0])
        yield from _subtrees(t[1])


class MultiPatternTree(GlobalPlan):
    """MPT (MCEP 3.2): shared prefixes of order plans; nodes are prefixes (states of the
    multi-pattern NFA), leaves the per-type event buffers; one final state per owner."""

    kind = "order"

    def _coerce(self, plan):
        if isinstance(plan, TreePlan):
            raise PlanError("an MPT holds order plans")
        return plan if isinstance(plan, OrderPlan) else OrderPlan(tuple(plan))

    def _tree_of(self, plan) -> Tree:
        return left_deep_tree(plan.order)

    def states(self) -> list[SharedNode]:
        """The NFA states (MCEP 3.3's nodes of the MPT): prefixes of length two or more, and the
        leaves that are the first state of some order."""
        return [n for n in self.nodes.values() if n.leaf is None or n.first_users]


class MultiPatternMultitree(GlobalPlan):
    """MPM (MCEP Section 5): shared subtrees of tree plans, one root per owner."""

    kind = "tree"

    def _coerce(self, plan):
        if isinstance(plan, OrderPlan):
            return TreePlan(left_deep_tree(plan.order))
        return plan if isinstance(plan, TreePlan) else TreePlan(plan)

    def _tree_of(self, plan) -> Tree:
        return plan.root


def workload_clauses(patterns) -> dict[Owner, SimplePattern]:
    """Every DNF clause of every pattern of a workload, by owner ``(pattern index, clause index)``."""
    from cep.dnf import to_dnf

    return {(i, c): sp for i, p in enumerate(patterns) for c, sp in enumerate(to_dnf(p))}


def build_global_plan(kind: str, clauses: Mapping[Owner, SimplePattern], plans: Mapping[Owner, object], *,
                      share: bool = True, shared_masks: Mapping[Owner, frozenset[int]] | None = None,
                      weak: Mapping[Owner, Mapping[int, Weakening | tuple[Weakening, ...]]] | None = None) -> GlobalPlan:
    """An MPT (``kind="order"``) or MPM (``"tree"``) holding ``plans`` (owner -> local plan);
    ``shared_masks`` restricts which internal nodes may merge, ``weak`` computes sub-trees weaker
    under filter nodes (MPM only; :class:`GlobalPlan`)."""
    cls = MultiPatternTree if kind == "order" else MultiPatternMultitree
    g = cls(clauses, share=share, shared_masks=shared_masks, weak=weak)
    for o in sorted(plans):
        g.add(o, plans[o])
    g.touched.clear()
    return g
