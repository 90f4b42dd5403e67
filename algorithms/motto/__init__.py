"""MOTTO (Zhang, Vo, Dahlmeier, He: "Multi-Query Optimization for Complex Event Processing in SAP
ESP", ICDE'17), the optimizer MCEP 6.2.2 calls SH-MDT.  Self-contained; registered as the
multi-pattern planner ``SH-MDT`` (and its baselines ``NA``, ``MST``, ``LCSE``) by
:mod:`algorithms.multi.sh_mdt`.

Modules, in the order of MOTTO's workflow (Figure 3):

* :mod:`~algorithms.motto.query` -- pattern queries SEQ/CONJ/DISJ over our patterns (Section II),
  canonical forms, division of nested queries by nesting level (Section IV-D, Table II);
* :mod:`~algorithms.motto.filters` -- the time filter, Filter_sc, Filter_cd (Table I), the window
  mark-point filter (Section IV-D);
* :mod:`~algorithms.motto.rewrites` -- the query rewriter: MST, DST (suffix automaton, long
  strings, interesting sub-queries), OTT, nesting, windows -- each a :class:`Derivation`
  "q_i computed from q_x plus a composition and filters" (Section IV);
* :mod:`~algorithms.motto.cost` -- ``Cost(q_i | q_x)`` from our Cost_tree (Section VI);
* :mod:`~algorithms.motto.graph` -- the DSMT instance: root q_0, terminals = queries, Steiner
  vertices = interesting sub-queries and extended-window sources (Section V-B);
* :mod:`~algorithms.motto.steiner` -- exact branch and bound within a time budget, simulated
  annealing beyond it (Section V-B);
* :mod:`~algorithms.motto.plan` -- :func:`optimize` and its result :class:`MottoPlan`;
* :mod:`~algorithms.motto.workloads` -- Table V workloads (``python -m experiments bench motto``
  measures how large a workload the exact search solves within its budget);
* :mod:`~algorithms.motto.baselines` -- the baselines of Section VII-A (MST, LCSE).

How a :class:`MottoPlan` maps onto the global plans of the multi-pattern branch (MCEP's shared
prefixes and subtrees), for wiring SH-MDT later -- each :class:`PlanStep` is one of:

1. **from q_0** (``source == "q0"``): a local plan of that query or sub-query, planned alone
   (any tree planner; the cost model charged DP-B's tree);
2. **a composition without filters** (MST substring, DST's shared sub-query, a nested operand
   replaced): the step's tree *contains the source's tree as a subtree* -- exactly a shared
   subtree of MCEP's multi-pattern multitree (``algorithms.constrained.cheapest_tree_containing``
   with the source's tree); a SEQ source as a prefix of a SEQ step is also a shared prefix of an
   order-based multi-pattern tree;
3. **a composition with filters** (MST merge with its time filter, OTT then DST): still a subtree
   containing the source's subtree, but the source computes a *weaker* sub-pattern than the
   projection of the step (CONJ where the step has SEQ, a larger window, fewer conditions): the
   join nodes above the shared subtree must check the step's order, completeness, window and
   conditions -- which our tree
   evaluator's nodes do for the step's own clause; a global-plan evaluator must allow a shared
   node whose clause is weaker than the projection of the pattern that reuses it;
4. **filters only** (``composition is None``: ``q_2 = Filter_sc(q_5)``, a window filter, the
   conditions the source does not check): a
   stateless filter node on the output of the source's root; MCEP's global plans have no such
   node, so SH-MDT needs one (or may drop these edges and fall back to 1.-3.).

Extended-window vertices (Section IV-D case 2) are ordinary steps whose query has the larger window.
"""

from algorithms.motto.plan import MottoPlan, PlanStep, optimize
from algorithms.motto.query import MOp, Query, Ref, conj, disj, from_pattern, seq

__all__ = ["MOp", "MottoPlan", "PlanStep", "Query", "Ref", "conj", "disj", "from_pattern", "optimize", "seq"]
