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
* only the *nearest* source of each pattern is used (chains of sources are not nested further);
* a source whose event types repeat within the pattern (an ambiguous type-to-variable mapping), a
  pattern with several DNF clauses, negation, Kleene closure or a non-ANY strategy (which
  :func:`algorithms.motto.from_pattern` does not accept) is planned alone by DP-B;
* MOTTO takes one :class:`cep.Statistics`; with one per pattern the first is used for its search.

The cost the registry reports is our Cost_tree^multi of the resulting MPM, not MOTTO's own
objective (which is kept in :attr:`last_motto_plan` for inspection).
"""

from __future__ import annotations

from collections import Counter

from cep.global_plans import GlobalPlan, Owner, build_global_plan
from cep.plans import TreePlan, left_deep_tree

MOTTO_TIME_BUDGET_S = 5.0  # the exact Steiner search's budget inside SH-MDT; annealing beyond it
last_motto_plan = None


def sh_mdt_plan(patterns, clauses, models, stats, *, time_budget_s: float = MOTTO_TIME_BUDGET_S,
                seed: int = 0) -> GlobalPlan:
    """SH-MDT's MPM for ``patterns`` (module docstring)."""
    global last_motto_plan
    from algorithms.motto import from_pattern, optimize
    from algorithms.registry import get_planner

    dpb = get_planner("DP-B")
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
    st = stats[0] if isinstance(stats, (list, tuple)) else stats
    sources: dict[int, tuple[str, ...]] = {}
    if queries:
        mp = optimize(queries, st, time_budget_s=time_budget_s, seed=seed,
                      sa_time_budget_s=time_budget_s)
        last_motto_plan = mp
        for i, name in qname.items():
            step = mp.step(mp.answer[name])
            d = step.derivation
            if step.source == "q0" or d.composition is None:
                continue
            sources[i] = tuple(mp.step(step.source).query.types)
    plans = {}
    for o, sp in clauses.items():
        model = models[o]
        sub = None
        types = sources.get(o[0])
        if types and len(set(types)) == len(types):
            pos = [v for v in sp.variables if v.name in set(sp.positive)]
            by_type = Counter(v.type for v in pos)
            if all(by_type[t] == 1 for t in types) and 2 <= len(types) < len(pos):
                var_of = {v.type: v.name for v in pos}
                sub = left_deep_tree([var_of[t] for t in sorted(types)])
        plans[o] = dpb.plan_containing(model, [sub]).plan if sub is not None else dpb.plan_model(model).plan
        if not isinstance(plans[o], TreePlan):
            plans[o] = TreePlan(plans[o])
    return build_global_plan("tree", clauses, plans, share=True)
