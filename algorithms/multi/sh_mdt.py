"""SH-MDT: MOTTO (:mod:`algorithms.motto`) as a planner of MCEP's multi-pattern multitree (MPM).

MCEP 6.2.2: "MOTTO [64] utilizes a combination of techniques referred to as MST (merge sharing
technique), DST (decomposition sharing technique), and OTT (operator transformation technique). The
system solves the directed Steiner minimum tree problem to select the best global plan produced
using the above techniques."  :func:`algorithms.motto.optimize` returns that Steiner tree as a
:class:`~algorithms.motto.MottoPlan`; this module turns it into a global plan the multi-pattern
evaluators (:mod:`evaluators.multi`) run, mapping **only what an MPM expresses exactly**:

* each workload pattern's plan is a tree over its own clause (its conditions, order, window), so the
  MPM's evaluator detects exactly what the pattern alone detects -- whatever MOTTO decided;
* a pattern computed by a *composition* from a source sub-query (MST substring/merge, DST's shared
  sub-query, OTT then DST; :class:`algorithms.motto.rewrites.Derivation` with a composition) gets a
  tree that *contains the source's variables as one subtree* (planned by DP-B,
  :meth:`algorithms.planners.base.TreePlanner.plan_containing`), shaped canonically (left-deep, in
  type order) so every pattern reusing that source builds the same subtree.  The MPM shares a node
  only when its key is equal (types, conditions, precedence, window kind;
  :mod:`cep.global_plans`), with each owner's window and remaining conditions re-checked above the
  shared part;

what is **approximated or dropped** (stated, not hidden):

* a source *weaker* than the projection of the pattern (a CONJ source for a SEQ pattern with
  MOTTO's Filter_sc / Filter_cd / time filter, fewer conditions -- a Filter_where): the subtree is
  built over the pattern's own variables with the pattern's own checks, so its key differs from the
  source's and **the sharing is lost** (matches stay exact); the MPM has no node that computes a
  weaker sub-pattern and filters its output;
* *filter-only* steps (``composition is None``: ``q = Filter(q_x)``) and a larger source window
  with mark points (MOTTO IV-D): the MPM has no stateless filter node, so the pattern is planned
  alone (DP-B) -- **that edge is dropped**; equal-key sub-trees are still shared by the MPM;
* sources chain: a source computed from a source of its own is laid out the same way, so the
  canonical shape of a step is its source's shape extended by its own remaining types (in type
  order), left-deep; a pattern that is itself the source of another (MST's whole-query sharing)
  or whose step answers several patterns is planned as exactly that shape, so its whole tree is
  the shared subtree; a filter-only step whose filters are all window filters (a larger or
  extended source window, MOTTO IV-D) takes its source's shape -- the MPM's node keys ignore the
  window and each owner checks its own at its root (:mod:`cep.global_plans`), which *is* the mark
  point;
* a source whose event types repeat within the pattern (an ambiguous type-to-variable mapping), a
  pattern with several DNF clauses, negation, Kleene closure or a non-ANY strategy (which
  :func:`algorithms.motto.from_pattern` does not accept) is planned alone by DP-B;
* MOTTO takes one :class:`cep.Statistics`; with one per pattern the first is used for its search.

The cost the registry reports is our Cost_tree^multi of the resulting MPM, not MOTTO's own
objective (which is kept in :attr:`last_motto_plan` for inspection).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Mapping

from cep.global_plans import GlobalPlan, build_global_plan
from cep.plans import TreePlan, left_deep_tree

MOTTO_TIME_BUDGET_S = 5.0  # the exact Steiner search's budget inside SH-MDT; annealing beyond it
last_motto_plan = None


@dataclass(frozen=True)
class Sharing:
    """A sharing decision in MPM terms: each vertex (a workload query or a shared sub-query) has its
    event types and the vertex it is computed from (None: from the primitive events, or a
    derivation the MPM cannot share); ``answer`` maps a pattern index to its vertex."""

    types: Mapping[str, tuple[str, ...]]
    source: Mapping[str, str | None]
    answer: Mapping[int, str]

    def order(self, v: str, _memo: dict | None = None) -> tuple[str, ...]:
        """The canonical left-deep order of ``v``: its source's order, then its other types sorted."""
        src = self.source.get(v)
        if src is None:
            return tuple(sorted(self.types[v]))
        head = self.order(src)
        return head + tuple(sorted(t for t in self.types[v] if t not in set(head)))

    def used_as_source(self) -> set[str]:
        """Vertices whose whole canonical shape another pattern builds: sources reached from the
        patterns (transitively) and vertices answering two or more patterns."""
        out = {v for v, n in Counter(self.answer.values()).items() if n > 1}
        for v in set(self.answer.values()):
            s = self.source.get(v)
            while s is not None:
                out.add(s)
                s = self.source.get(s)
        return out


def sharing_of_motto_plan(mp, qname: Mapping[int, str]) -> Sharing:
    """The :class:`Sharing` of a :class:`algorithms.motto.MottoPlan` (module docstring: a step with
    a composition, or with window filters only, keeps its source; other filter-only steps do not)."""
    from algorithms.motto.filters import WindowFilter

    types, source = {}, {}
    for s in mp.steps:
        types[s.name] = tuple(s.query.types)
        d = s.derivation
        keep = s.source != "q0" and (d.composition is not None or (d.filters and all(isinstance(f, WindowFilter) for f in d.filters)))
        source[s.name] = s.source if keep else None
    return Sharing(types, source, {i: mp.answer[n] for i, n in qname.items()})


def motto_queries(patterns, clauses) -> tuple[list, dict[int, str]]:
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


def sharing_mpm(clauses, models, sharing: Sharing) -> GlobalPlan:
    """The MPM realizing ``sharing`` (module docstring); patterns without a usable source are
    planned alone by DP-B."""
    from algorithms.registry import get_planner

    dpb = get_planner("DP-B")
    whole = sharing.used_as_source()
    plans = {}
    for o, sp in clauses.items():
        model = models[o]
        v = sharing.answer.get(o[0])
        pos = [x for x in sp.variables if x.name in set(sp.positive)]
        by_type = Counter(x.type for x in pos)
        var_of = {x.type: x.name for x in pos}
        plan = None
        if v is not None and all(n == 1 for n in by_type.values()) and set(sharing.types[v]) == set(var_of):
            src = sharing.source.get(v)
            if v in whole and len(pos) >= 2:
                plan = TreePlan(left_deep_tree([var_of[t] for t in sharing.order(v)]))
            elif src is not None and set(sharing.types[src]) <= set(var_of):
                if 2 <= len(sharing.types[src]) < len(pos):
                    sub = left_deep_tree([var_of[t] for t in sharing.order(src)])
                    plan = dpb.plan_containing(model, [sub]).plan
                elif len(sharing.types[src]) == len(pos) >= 2:
                    plan = TreePlan(left_deep_tree([var_of[t] for t in sharing.order(v)]))
        if plan is None:
            plan = dpb.plan_model(model).plan
        plans[o] = plan if isinstance(plan, TreePlan) else TreePlan(plan)
    return build_global_plan("tree", clauses, plans, share=True)


def sh_mdt_plan(patterns, clauses, models, stats, *, time_budget_s: float = MOTTO_TIME_BUDGET_S,
                seed: int = 0, exact: str = "milp") -> GlobalPlan:
    """SH-MDT's MPM for ``patterns`` (module docstring)."""
    global last_motto_plan
    from algorithms.motto import optimize

    queries, qname = motto_queries(patterns, clauses)
    st = stats[0] if isinstance(stats, (list, tuple)) else stats
    sharing = Sharing({}, {}, {})
    if queries:
        mp = optimize(queries, st, time_budget_s=time_budget_s, seed=seed, sa_time_budget_s=time_budget_s, exact=exact)
        last_motto_plan = mp
        sharing = sharing_of_motto_plan(mp, qname)
    return sharing_mpm(clauses, models, sharing)


def motto_baseline_plan(name: str, patterns, clauses, models, stats, *, time_budget_s: float = MOTTO_TIME_BUDGET_S,
                        seed: int = 0) -> GlobalPlan:
    """The MPM of MOTTO's baselines MST and LCSE (:mod:`algorithms.motto.baselines`)."""
    from algorithms.motto.baselines import lcse_sharing, mst_plan

    queries, qname = motto_queries(patterns, clauses)
    if not queries:
        return sharing_mpm(clauses, models, Sharing({}, {}, {}))
    if name == "MST":
        st = stats[0] if isinstance(stats, (list, tuple)) else stats
        return sharing_mpm(clauses, models, sharing_of_motto_plan(mst_plan(queries, st, time_budget_s=time_budget_s, seed=seed), qname))
    assert name == "LCSE", name
    chosen = lcse_sharing(queries)
    types = {q.name: tuple(q.types) for q in queries}
    source: dict[str, str | None] = {q.name: None for q in queries}
    for qn, c in chosen.items():
        v = f"lcse:{c.key}"
        types[v] = tuple(c.types)
        source[v] = None
        source[qn] = v
    return sharing_mpm(clauses, models, Sharing(types, source, {i: n for i, n in qname.items()}))
