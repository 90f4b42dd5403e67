"""The NEXT rewriting planner (Section 4.3): rewrite a query into an equivalent, cheaper one.

Bottom-up over the query, every maximal group of unions is rebuilt by the Huffman greedy
(:mod:`algorithms.next.union`) and every maximal chain of nexts regrouped by the DP
(:mod:`algorithms.next.chain`); then the exception equivalence (:mod:`algorithms.next.exceptions`)
is applied wherever it is exact.  Each step is judged by the whole query's cost (Table 1,
:mod:`algorithms.next.costs`) and kept only if it lowers it: a union's burst size depends on its
grouping (Table 1), so the union tree that is cheapest on its own can make an enclosing next dearer.
The rewritten query is therefore never costlier than the query as issued.  Every rewrite is an
equivalence of :mod:`cep.next_algebra`: the rewritten query detects the same composite events.

    >>> from cep import parse_pattern, Statistics
    >>> p = parse_pattern("PATTERN E1 | E2 | E3 | E4 WITHIN 1 minutes")
    >>> r = NextRewriter().rewrite(p, Statistics({"E1": 800, "E2": 250, "E3": 350, "E4": 500}))
    >>> str(r.rewritten), r.cost_before, r.cost_after
    ('PATTERN E1 _1 | (E4 _4 | (E2 _2 | E3 _3)) WITHIN 1 minutes', 4350.0, 3600.0)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import cep.next_algebra as algebra
from cep.errors import ConfigError, PatternError
from cep.statistics import Statistics

import algorithms.next.chain as dp
from algorithms.next.costs import expr_chars, query_cost
from algorithms.next.exceptions import candidates, replace, subexpr
from algorithms.next.union import find_optimal_union
from algorithms.plan_ranking import cheaper

DP_VARIANTS = ("exact", "paper")
MAX_ROUNDS = 4  # passes of regrouping and exception rewrites; each kept step lowers the cost


@dataclass(frozen=True)
class RewriteStep:
    """One rewrite tried: what, where, the query's cost before and after, whether it was kept."""

    kind: str  # "union", "next" or "exception"
    before: str
    after: str
    cost_before: float
    cost_after: float
    accepted: bool

    def to_json(self) -> dict:
        return {"kind": self.kind, "before": self.before, "after": self.after,
                "cost_before": self.cost_before, "cost_after": self.cost_after, "accepted": self.accepted}


@dataclass(frozen=True)
class RewriteResult:
    planner: str
    original: algebra.NextPattern
    rewritten: algebra.NextPattern
    cost_before: float
    cost_after: float
    plan_time_s: float
    params: dict
    steps: tuple[RewriteStep, ...] = field(default=())

    def to_json(self) -> dict:
        """planner, kind ("rewrite"), the pattern before and after as text that parses, the CPU cost
        before and after (events per second, Table 1), plan_time_s, params and the steps tried."""
        return {
            "planner": self.planner,
            "kind": "rewrite",
            "pattern": str(self.original),
            "rewritten": str(self.rewritten),
            "cost_before": self.cost_before,
            "cost_after": self.cost_after,
            "plan_time_s": self.plan_time_s,
            "params": self.params,
            "steps": [s.to_json() for s in self.steps],
        }


class NextRewriter:
    """NEXT's query rewriting.  ``dp``: "exact" (the Pareto DP, default) or "paper" (Fig. 5 as printed,
    which keeps one subexpression per interval and can miss the cheapest grouping)."""

    name = "NEXT"
    kind = "rewrite"

    def __init__(self, *, dp: str = "exact", seed: int = 0) -> None:
        self.dp = dp
        self.seed = seed

    def get_params(self) -> dict:
        return {"dp": self.dp, "seed": self.seed}

    def rewrite(self, pattern: algebra.NextPattern, stats: Statistics) -> RewriteResult:
        if self.dp not in DP_VARIANTS:
            raise ConfigError(f"planner NEXT: dp must be one of {', '.join(DP_VARIANTS)}, got {self.dp!r}")
        stats.require_types(pattern.event_types)
        start = time.perf_counter()
        before = query_cost(pattern, stats)
        state = _State(pattern, stats, before)
        for _ in range(MAX_ROUNDS):
            kept = len([s for s in state.steps if s.accepted])
            self._regroup(state)
            while any(state.try_step("exception", path, new) for path, new in candidates(state.expr)):
                pass
            if len([s for s in state.steps if s.accepted]) == kept:
                break
        elapsed = time.perf_counter() - start
        rewritten = pattern.with_expr(state.expr)
        return RewriteResult(self.name, pattern, rewritten, before, state.cost, elapsed, self.get_params(), tuple(state.steps))


    def _regroup(self, state: "_State") -> None:
        """One bottom-up pass: Huffman on every union group, the DP on every chain."""
        a = state.pattern.with_expr(state.expr).analysis
        for path in _group_roots(state.expr):
            e = subexpr(state.expr, path)
            if isinstance(e, algebra.Union):
                ops = algebra.union_operands(e)
                new = find_optimal_union(ops, lambda o: expr_chars(o, state.stats, state.window).rate)
                state.try_step("union", path, new)
            else:
                ops = algebra.chain_operands(e)
                if len(ops) > 2:
                    rule = dp.skip_split_rule([(p, q) for _, p, q in a.chains[path].skip])
                    chars = [expr_chars(o, state.stats, state.window) for o in ops]
                    search = dp.exact_dp if self.dp == "exact" else dp.paper_dp
                    state.try_step("next", path, _build(search(chars, rule).tree, ops))


class _State:
    def __init__(self, pattern: algebra.NextPattern, stats: Statistics, cost: float) -> None:
        self.pattern = pattern
        self.stats = stats
        self.expr = pattern.expr
        self.cost = cost
        self.window = float(pattern.window.size)
        self.steps: list[RewriteStep] = []

    def try_step(self, kind: str, path: tuple, new: algebra.Expr) -> bool:
        old = subexpr(self.expr, path)
        if new == old:
            return False
        candidate = replace(self.expr, path, new)
        try:
            cost = query_cost(self.pattern.with_expr(candidate), self.stats)
        except PatternError:
            return False  # a predicate has no place in that grouping
        keep = cheaper(cost, self.cost)
        self.steps.append(RewriteStep(kind, algebra.format_next_expr(old), algebra.format_next_expr(new), self.cost, cost, keep))
        if keep:
            self.expr, self.cost = candidate, cost
        return keep


def _group_roots(e: algebra.Expr, path: tuple = (), parent: type | None = None) -> list[tuple]:
    """Paths of maximal union groups and chains, deepest first."""
    out = []
    for i, c in enumerate(algebra.children(e)):
        out.extend(_group_roots(c, path + (i,), type(e)))
    if isinstance(e, (algebra.Union, algebra.Next)) and parent is not type(e):
        out.append(path)
    return out


def _build(tree: dp.Tree, operands: list[algebra.Expr]) -> algebra.Expr:
    if isinstance(tree, int):
        return operands[tree]
    return algebra.Next(_build(tree[0], operands), _build(tree[1], operands))


def rewrite(pattern: algebra.NextPattern, stats: Statistics, **params) -> RewriteResult:
    """:meth:`NextRewriter.rewrite` with the given parameters."""
    return NextRewriter(**params).rewrite(pattern, stats)
