"""The sharing baselines of MOTTO's evaluation (MOTTO Section VII-A), as sharing decisions that
:func:`algorithms.multi.sh_mdt.sharing_mpm` turns into a multi-pattern multitree (MPM):

* **NA** -- "the baseline executes pattern queries independently (without any sharing)": every
  pattern planned alone by DP-B, the MPM merging nothing but its leaves (the event buffers).
* **MST** -- "this approach requires one query to be shared entirely with other queries" (merge
  sharing, MOTTO IV-A, after [11]): :func:`mst_sharing` runs MOTTO's planner on the sharing graph
  restricted to the workload's queries (no interesting sub-queries, no extended windows) and to the
  arcs whose techniques are MST's alone (substring or merge with its time filter; same operator,
  same window: no OTT, no window mark point, no nested replacement).
* **LCSE** -- "this approach identifies the longest common sub-expression among pattern queries to
  be shared" (after [14, 15, 16]).  **Our reading** (:func:`lcse_sharing`), syntactic as that
  family is: two queries have a common sub-expression only if they have the same operator, window
  and SEQ order; for SEQ it is a longest common *contiguous* run of their operand lists (a
  substring: ``SEQ(E_1, E_2)`` is a sub-expression of ``SEQ(E_1, E_2, E_3)``, ``SEQ(E_1, E_3)`` is
  not), for CONJ and DISJ (commutative, associative) their common operands.  Each query takes the
  longest sub-expression (most primitive types, at least two; ties: the smallest key) that it has
  in common with any other query, whole or in part; no cost model decides.  An operand that is a
  nested query is one symbol (a nested query is shared only whole and only under equal outer
  operators).

Both leave the complex group of Table V (different windows, different operators, nested queries
under different operators) unshared, as the paper says ("the sharing opportunities in the second
group are overlooked in the comparison approaches").
"""

from __future__ import annotations

from typing import Sequence

from cep.statistics import Statistics

from algorithms.motto.query import MOp, Query, operand_key
from algorithms.motto.rewrites import MST_MERGE, MST_SUBSTRING

MST_TECHNIQUES = frozenset({MST_SUBSTRING, MST_MERGE})


def mst_plan(queries: Sequence[Query], stats: Statistics, *, time_budget_s: float = 5.0, seed: int = 0,
             charge_leaves: bool = True, mpm_filters: bool = False, max_nodes: int | None = None,
             sa_neighbours: int = 20000, sa_time_budget_s: float | None = None):
    """MOTTO's planner restricted to MST between whole queries (module docstring); the annealing
    evaluates ``sa_neighbours`` neighbours within ``sa_time_budget_s`` (default: ``time_budget_s``)."""
    from algorithms.motto.plan import optimize

    return optimize(queries, stats, time_budget_s=time_budget_s, seed=seed,
                    sa_time_budget_s=time_budget_s if sa_time_budget_s is None else sa_time_budget_s, sa_neighbours=sa_neighbours,
                    max_subqueries=0, techniques=MST_TECHNIQUES, extend_windows=False, charge_leaves=charge_leaves,
                    mpm_filters=mpm_filters, max_nodes=max_nodes)


def _n_types(ops) -> int:
    return sum(1 if isinstance(o, str) else len(o.types) for o in ops)


def common_subexpression(a: Query, b: Query) -> Query | None:
    """The longest common sub-expression of two queries (module docstring), or None."""
    if a.op is not b.op or a.window != b.window or a.seq_order is not b.seq_order or a.conditions or b.conditions:
        return None
    sa, sb = a.symbols(), b.symbols()
    best: tuple = ()
    if a.op is MOp.SEQ:
        # longest common substring by dynamic programming over the two symbol lists
        prev = [0] * (len(sb) + 1)
        for i in range(1, len(sa) + 1):
            cur = [0] * (len(sb) + 1)
            for j in range(1, len(sb) + 1):
                if sa[i - 1] == sb[j - 1]:
                    cur[j] = prev[j - 1] + 1
                    run = a.operands[i - cur[j]:i]
                    if (_n_types(run), tuple(map(operand_key, run))) > (_n_types(best), tuple(map(operand_key, best))):
                        best = run
            prev = cur
    else:
        common = set(sb)
        best = tuple(o for o in a.operands if operand_key(o) in common)
    if _n_types(best) < 2:
        return None
    return Query(a.op, tuple(best), a.window, a.seq_order)


def lcse_sharing(queries: Sequence[Query]) -> dict[str, Query]:
    """{query name: the sub-expression it shares} (module docstring); queries without one are absent."""
    out: dict[str, Query] = {}
    for i, q in enumerate(queries):
        cands = [c for j, r in enumerate(queries) if j != i
                 for c in [common_subexpression(q.canonical(), r.canonical())] if c is not None]
        best = min(cands, key=lambda c: (-len(c.types), c.key), default=None)
        if best is not None:
            out[q.name] = best
    return out
