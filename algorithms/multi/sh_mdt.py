"""SH-MDT: MOTTO (:mod:`algorithms.motto`) as a planner of MCEP's multi-pattern multitree (MPM).

MCEP 6.2.2: "MOTTO [64] utilizes a combination of techniques referred to as MST (merge sharing
technique), DST (decomposition sharing technique), and OTT (operator transformation technique). The
system solves the directed Steiner minimum tree problem to select the best global plan produced
using the above techniques."  :func:`algorithms.motto.optimize` returns that Steiner tree as a
:class:`~algorithms.motto.MottoPlan`; this module turns it into a global plan the multi-pattern
evaluators (:mod:`evaluators.multi`) run.  MOTTO plans *for the MPM*: its sharing graph keeps only
the arcs an MPM can execute (:data:`MPM_TECHNIQUES`: MST substring and merge, nested operands,
window mark points, and OTT's Filter_sc -- a SEQ computed from a CONJ source through a *filter node*,
:mod:`cep.global_plans`), its costs leave out the primitive leaves, which an MPM shares whatever the
plan (MOTTO substitutes the engine's cost model, Section VI; ours shares event buffers), and its
filters are priced as the MPM's filter nodes (``mpm_filters``, :mod:`algorithms.motto.cost`).  The plan is then mapped, **only what
an MPM expresses exactly**
(:class:`Sharing`, :func:`sharing_of_motto_plan`, :func:`sharing_mpm`; MOTTO's baselines NA, MST
and LCSE go through the same functions, :func:`motto_baseline_plan`):

* each workload pattern's plan is a tree over its own clause (its conditions, order, window), so the
  MPM's evaluator detects exactly what the pattern alone detects -- whatever MOTTO decided;
* a step computed by a *composition* from a source (MST substring or merge with its time filter,
  DST's shared sub-query, a nested operand) keeps that source; a source computed from a source of
  its own forms a chain.  Each shared vertex has one canonical shape (:func:`sharing_mpm`: its
  shared source's shape extended by its own other types, rarest first, or else its cheapest bushy
  tree) -- so every pattern reusing a vertex builds the same sub-tree, which the MPM shares (equal keys: types, conditions,
  precedence, window kind; :mod:`cep.global_plans`), each owner re-checking its own window and
  remaining conditions above it;
* a vertex gets its fixed shape only where two or more patterns build it (:meth:`Sharing.live`);
  a pattern takes the nearest such vertex of its chain as a sub-tree (DP-B for the rest,
  :meth:`algorithms.planners.base.TreePlanner.plan_containing`), or is that vertex's whole shape
  when it is one itself (MST's whole-query sharing), or is planned alone by DP-B;
* the MPM merges the leaves (event buffers) and **only** the internal nodes of those decided
  sub-trees (``shared_masks``), so a plan shares what MOTTO chose and no equal sub-tree it happens
  to have in common elsewhere (``incidental=True`` merges those too);
* a filter-only step whose filters are all window filters (a larger source window, or MOTTO's
  extended source answering the original, Section IV-D) keeps its source: node keys ignore the
  window and each owner checks its own at its root, which *is* the mark point;
* a source *weaker* than the projection of the step onto its types (OTT: a CONJ source of a SEQ
  step, Filter_sc; a source with fewer conditions, a condition filter), with a composition or
  filter-only (``q_2 = Filter_sc(q_5)``), keeps its source: every pattern building the step computes
  the source's sub-tree *weakened* to the source's order and conditions (:func:`weakening_of`,
  :class:`cep.global_plans.Weakening`) -- the same nodes as the source's own owners -- under a
  filter node that checks the rest; sources over the same types stack their filters (``CONJ(L)`` ->
  ``SEQ(L)`` -> ``SEQ(L)`` with a condition); MOTTO's source is computed once for all of them;

what is **approximated or dropped** (stated, not hidden):

* a DISJ source (OTT's Filter_cd, CONJ from DISJ): a DISJ is several DNF clauses and no MPM node
  computes their union, so a step of a DISJ source shares its *projection* onto the source's types
  instead (one vertex per (source, projection)).  This never arises in SH-MDT today: a pattern with
  OR has several DNF clauses and is planned alone (below; our OR is also not MOTTO's DISJ, which
  reports every non-empty subset, :mod:`algorithms.motto.query`), and the sub-queries MOTTO finds
  take the operators of the queries;
* the filter sits where the source's sub-tree ends, not after the whole composition as in MOTTO's
  Table I: the same composite events, fewer partial matches above it;
* a pattern whose event types repeat (an ambiguous type-to-variable mapping), a pattern with several
  DNF clauses, negation, Kleene closure or a non-ANY strategy (which
  :func:`algorithms.motto.from_pattern` does not accept) is planned alone by DP-B;
* MOTTO takes one :class:`cep.Statistics`; with one per pattern the first is used for its search.

The cost the registry reports is our Cost_tree^multi of the resulting MPM, not MOTTO's own
objective, which comes back beside it (:class:`MottoMpm`, ``MultiPlanned.motto``) for inspection.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping, NamedTuple

from cep.global_plans import GlobalPlan, build_global_plan
from cep.plans import TreePlan, tree_leaves

if TYPE_CHECKING:
    from algorithms.motto import MottoPlan

MOTTO_TIME_BUDGET_S = 5.0  # the exact Steiner search's budget inside SH-MDT; annealing beyond it
MOTTO_SA_NEIGHBOURS = 20_000  # the annealing's default budget in evaluated neighbours (algorithms.effort)
# MOTTO's techniques an MPM can execute (OTT: Filter_sc as a filter node; Filter_cd never arises, module docstring)
MPM_TECHNIQUES = frozenset({"MST-substring", "MST-merge", "window", "nested", "OTT"})


class MottoMpm(NamedTuple):
    """The MPM of SH-MDT (or of a MOTTO baseline) and the MOTTO plan it realizes (None when MOTTO
    planned nothing: no pattern it accepts, or a baseline without a Steiner search)."""

    plan: GlobalPlan
    motto: "MottoPlan | None" = None


@dataclass(frozen=True)
class Sharing:
    """A sharing decision in MPM terms: each vertex (a workload query or a shared sub-query) has its
    event types and the vertex it is computed from (None: from the primitive events, or a
    derivation the MPM cannot share); ``answer`` maps a pattern index to its vertex."""

    types: Mapping[str, tuple[str, ...]]
    source: Mapping[str, str | None]
    answer: Mapping[int, str]
    rates: Mapping[str, float] = None  # type: ignore[assignment]
    queries: Mapping[str, object] = None  # type: ignore[assignment]  # vertex -> its MOTTO query (weakenings)

    def _by_rate(self, ts) -> tuple[str, ...]:
        r = self.rates or {}
        return tuple(sorted(ts, key=lambda t: (r.get(t, 0.0), t)))

    def order(self, v: str) -> tuple[str, ...]:
        """The canonical left-deep order of ``v``: its source's order, then its other types, rarest
        first (the order that keeps a left-deep tree's partial matches small; one order per vertex,
        so every pattern reusing ``v`` builds the same sub-tree)."""
        src = self.source.get(v)
        if src is None:
            return self._by_rate(self.types[v])
        head = self.order(src)
        return head + self._by_rate(t for t in self.types[v] if t not in set(head))

    def chain(self, v: str) -> list[str]:
        """``v``, its source, its source's source, ..."""
        out = [v]
        while self.source.get(out[-1]) is not None:
            out.append(self.source[out[-1]])
        return out

    def live(self) -> set[str]:
        """The vertices two or more patterns build (in the chain of sources of each): only these
        are worth a fixed shape."""
        uses = Counter(x for v in self.answer.values() for x in self.chain(v))
        return {x for x, n in uses.items() if n > 1}


def sharing_of_motto_plan(mp, qname: Mapping[int, str], rates: Mapping[str, float] | None = None) -> Sharing:
    """The :class:`Sharing` of a :class:`algorithms.motto.MottoPlan` (module docstring).

    A step computed from a source (by a composition, or by filters alone) keeps it when the source
    is one DNF clause: the source's projection or weaker (OTT's CONJ source of a SEQ, fewer
    conditions), which :func:`sharing_mpm` computes weakened under a filter node.  A DISJ source
    (Filter_cd) cannot be one MPM node; the step then shares its projection onto the source's types
    -- a vertex of its own, which the other steps of that source with the same projection share."""
    from algorithms.motto.query import order_and_conditions

    types: dict[str, tuple[str, ...]] = {}
    source: dict[str, str | None] = {}
    queries: dict[str, object] = {}
    for s in mp.steps:
        types[s.name] = tuple(s.query.types)
        queries[s.name] = s.query
        d = s.derivation
        if s.source == "q0" or (d.composition is None and not d.filters):
            source[s.name] = None
            continue
        src = mp.step(s.source).query
        st = set(src.types)
        if order_and_conditions(src) is not None:
            # one DNF clause: the source is an MPM sub-tree, weaker than (or equal to) the step's
            # projection onto its types; the step's owners compute it weakened under a filter node
            source[s.name] = s.source
            continue
        # the step's projection onto the source's types: its operator, its order of those types, its conditions on them
        proj = tuple(t for t in s.query.types if t in st)
        conds = sorted(str(c) for c in s.query.all_conditions() if c.variables <= st)
        key = proj if s.query.op.value == "SEQ" else tuple(sorted(proj))
        pv = f"{s.source}~{s.query.op.value}{key}{conds}"
        types[pv], source[pv] = proj, None
        source[s.name] = pv
    return Sharing(types, source, {i: mp.answer[n] for i, n in qname.items()}, rates, queries)


def weakening_of(sp, var_of: Mapping[str, str], q):
    """The :class:`cep.global_plans.Weakening` that makes the sub-tree of clause ``sp`` over the
    types of MOTTO query ``q`` (``var_of``: type -> ``sp``'s variable) compute ``q``: None if ``q``
    is the clause's projection onto its types, False if ``q`` checks something the clause does not
    (or is a DISJ)."""
    from algorithms.motto.query import order_and_conditions
    from cep.global_plans import ClauseShape, Weakening

    sem = order_and_conditions(q)
    if sem is None:
        return False
    order, conds = sem
    shape = ClauseShape(sp)
    inside = {var_of[t] for t in q.types}
    to_type = {v: t for t, v in var_of.items()}
    own_order = {(u, v) for u, v in shape.closure if u in inside and v in inside}
    own = [c for c in sp.conditions if c.variables <= inside]
    own_conds = {str(c) for c in own}
    keep_order = {(var_of[a], var_of[b]) for a, b in order}
    keep_conds = {str(c) for c in own if str(c.rename(to_type)) in conds}
    if not keep_order <= own_order or len(keep_conds) != len(conds):
        return False
    if keep_order == own_order and keep_conds == own_conds:
        return None
    return Weakening(frozenset(keep_order), frozenset(keep_conds))


def _motto_queries(patterns, clauses) -> tuple[list, dict[int, str]]:
    """The MOTTO queries of the patterns it accepts (one DNF clause, no NOT/KL, skip-till-any),
    named ``P<i>``, and the name of each pattern's query."""
    from algorithms.motto import from_pattern

    n_clauses = Counter(o[0] for o in clauses)
    queries, qname = [], {}
    for i, p in enumerate(patterns):
        if n_clauses[i] != 1:
            continue
        try:
            q = from_pattern(p)
        except Exception:
            continue
        name = f"P{i}"
        queries.append(type(q)(q.op, q.operands, q.window, q.seq_order, name, q.conditions))
        qname[i] = name
    return queries, qname


def _node_sets(t) -> list:
    """The leaf sets of the internal nodes of a tree."""
    if not isinstance(t, tuple):
        return []
    return _node_sets(t[0]) + _node_sets(t[1]) + [tuple(tree_leaves(t))]


def sharing_mpm(clauses, models, sharing: Sharing, *, incidental: bool = False) -> GlobalPlan:
    """The MPM realizing ``sharing`` (module docstring); patterns without a usable source are
    planned alone by DP-B.  The MPM merges the leaves (event buffers) and the sub-trees the decision
    shares; with ``incidental`` also every other equal sub-tree (whatever the decision).

    A shared vertex's shape, over its event types: its nearest shared source's shape extended
    left-deep by its other types, rarest first; without one, the cheapest bushy tree of the vertex
    (:func:`algorithms.constrained.best_subtree`) under the model of the first pattern that
    builds it -- one shape per vertex, so that every pattern builds the same sub-tree."""
    from algorithms.constrained import best_subtree
    from algorithms.multi.neighborhoods import rename_tree
    from algorithms.registry import get_planner
    from cep.errors import PlanError
    from cep.global_plans import ClauseShape

    dpb = get_planner("DP-B")
    live = sharing.live()
    var_of: dict = {}
    usable: dict = {}
    for o, sp in sorted(clauses.items()):
        pos = [x for x in sp.variables if x.name in set(sp.positive)]
        var_of[o] = {x.type: x.name for x in pos}
        v = sharing.answer.get(o[0])
        if v is not None and len(var_of[o]) == len(pos) >= 2 and set(sharing.types[v]) == set(var_of[o]):
            usable[o] = next((x for x in sharing.chain(v) if x in live and len(sharing.types[x]) >= 2
                              and set(sharing.types[x]) <= set(var_of[o])), None)
    first_user = {}
    for o, x in sorted(usable.items()):
        if x is not None:
            for y in sharing.chain(x):
                first_user.setdefault(y, o)
    shapes: dict = {}

    def nested(x: str) -> list[str]:
        """``x`` and the shared sources whose shapes ``shape(x)`` contains, outermost first."""
        out = [x]
        while True:
            src = next((y for y in sharing.chain(out[-1])[1:] if y in live and len(sharing.types[y]) >= 2), None)
            if src is None:
                return out
            out.append(src)

    def weak_of(o, x: str):
        """The owner's weakened sub-trees for ``x``'s shape (its vertices that are weaker than the
        owner's projection: OTT, fewer conditions), or None if one cannot be computed by it."""
        queries = sharing.queries or {}
        cs = ClauseShape(clauses[o])
        out = {}
        for y in nested(x):
            if y not in queries:
                continue
            w = weakening_of(clauses[o], var_of[o], queries[y])
            if w is False:
                return None
            if w is not None:  # vertices over the same types stack their filters, outermost first
                m = cs.mask(var_of[o][ty] for ty in sharing.types[y])
                out[m] = out.get(m, ()) + (w,)
        return out

    def shape(x: str):
        if x in shapes:
            return shapes[x]
        src = next((y for y in sharing.chain(x)[1:] if y in live and len(sharing.types[y]) >= 2), None)
        if src is not None:
            t = shape(src)
            for ty in sharing._by_rate(ty for ty in sharing.types[x] if ty not in set(sharing.types[src])):
                t = (t, ty)
        else:
            o = first_user[x]
            to_type = {n: ty for ty, n in var_of[o].items()}
            t = rename_tree(best_subtree(models[o], tuple(var_of[o][ty] for ty in sharing.types[x])), to_type)
        shapes[x] = t
        return t

    plans, masks, weak = {}, {}, {}
    for o, sp in clauses.items():
        masks[o] = set()
        x = usable.get(o)
        w = None if x is None else weak_of(o, x)
        plan = None
        if w is not None:
            t = rename_tree(shape(x), var_of[o])
            plan = TreePlan(t) if len(sharing.types[x]) == len(var_of[o]) else dpb.plan_containing(models[o], [t]).plan
            plan = plan if isinstance(plan, TreePlan) else TreePlan(plan)
            if w:
                try:  # nested weakenings must keep what their enclosing sub-tree keeps
                    build_global_plan("tree", {o: sp}, {o: plan}, weak={o: w})
                except PlanError:
                    plan, w = None, None
            if plan is not None:
                cs = ClauseShape(sp)
                masks[o] = {cs.mask(vs) for vs in _node_sets(t)}
                weak[o] = w
        if plan is None:
            plan = dpb.plan_model(models[o]).plan
        plans[o] = plan if isinstance(plan, TreePlan) else TreePlan(plan)
    return build_global_plan("tree", clauses, plans, share=True, shared_masks=None if incidental else masks,
                             weak=weak)


def sh_mdt_plan(patterns, clauses, models, stats, *, time_budget_s: float = MOTTO_TIME_BUDGET_S,
                seed: int = 0, exact: str = "milp", solver: str = "auto", max_nodes: int | None = None,
                max_neighbours: int | None = None) -> MottoMpm:
    """SH-MDT's MPM for ``patterns`` and MOTTO's plan (module docstring); ``solver`` as in
    :func:`algorithms.motto.optimize` (MOTTO's rule, or one Steiner search alone: MOTTO Figure 14a).
    ``max_nodes`` bounds the exact search in branch-and-bound nodes instead of ``time_budget_s``;
    ``max_neighbours`` is the annealing's budget in evaluated neighbours (:mod:`algorithms.effort`;
    default :data:`MOTTO_SA_NEIGHBOURS`), with no clock when it is given or ``max_nodes`` is."""
    from algorithms.motto import optimize

    queries, qname = _motto_queries(patterns, clauses)
    st = stats[0] if isinstance(stats, (list, tuple)) else stats
    if not queries:
        return MottoMpm(sharing_mpm(clauses, models, Sharing({}, {}, {})))
    budget = time_budget_s if max_nodes is None else math.inf
    sa_budget = budget if max_neighbours is None else math.inf
    mp = optimize(queries, st, time_budget_s=budget, seed=seed, sa_time_budget_s=sa_budget, exact=exact,
                  sa_neighbours=MOTTO_SA_NEIGHBOURS if max_neighbours is None else max_neighbours,
                  techniques=MPM_TECHNIQUES, charge_leaves=False, mpm_filters=True, solver=solver, max_nodes=max_nodes)
    return MottoMpm(sharing_mpm(clauses, models, sharing_of_motto_plan(mp, qname, st.rates)), mp)


def motto_baseline_plan(name: str, patterns, clauses, models, stats, *, time_budget_s: float = MOTTO_TIME_BUDGET_S,
                        seed: int = 0, max_nodes: int | None = None, max_neighbours: int | None = None) -> MottoMpm:
    """The MPM of MOTTO's baselines NA, MST and LCSE (:mod:`algorithms.motto.baselines`; NA: each
    pattern alone by DP-B, the MPM sharing nothing but its leaves), with MST's MOTTO plan
    (``max_nodes`` and ``max_neighbours`` as in :func:`sh_mdt_plan`)."""
    from algorithms.motto.baselines import lcse_sharing, mst_plan

    queries, qname = _motto_queries(patterns, clauses)
    if name == "NA" or not queries:
        return MottoMpm(sharing_mpm(clauses, models, Sharing({}, {}, {})))
    st = stats[0] if isinstance(stats, (list, tuple)) else stats
    if name == "MST":
        budget = time_budget_s if max_nodes is None else math.inf
        mp = mst_plan(queries, st, time_budget_s=budget, seed=seed, charge_leaves=False, mpm_filters=True, max_nodes=max_nodes,
                      sa_neighbours=MOTTO_SA_NEIGHBOURS if max_neighbours is None else max_neighbours,
                      sa_time_budget_s=budget if max_neighbours is None else math.inf)
        return MottoMpm(sharing_mpm(clauses, models, sharing_of_motto_plan(mp, qname, st.rates)), mp)
    assert name == "LCSE", name
    chosen = lcse_sharing(queries)
    types = {q.name: tuple(q.types) for q in queries}
    source: dict[str, str | None] = {q.name: None for q in queries}
    for qn, c in chosen.items():
        v = f"lcse:{c.key}"
        types[v] = tuple(c.types)
        source[v] = None
        source[qn] = v
    return MottoMpm(sharing_mpm(clauses, models, Sharing(types, source, {i: n for i, n in qname.items()}, st.rates)))
