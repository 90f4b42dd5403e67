"""``plan_pattern``: plan every DNF clause of a pattern with a named planner and report the cost.

A pattern is planned clause by clause (JQPG Section 4: "a separate evaluation plan is created for
each conjunctive subpattern"), each clause by its own combined cost ``Cost_trpt + alpha * Cost_lat``
(:mod:`algorithms.costs`).  The pattern's cost combines the clauses as the throughput sum plus
``alpha`` times the latency maximum (:func:`algorithms.costs.pattern_log_cost`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from cep.dnf import SimplePattern, to_dnf
from cep.errors import CEPError, PlanError
from cep.pattern import Pattern
from cep.plans import PatternPlan
from cep.statistics import Statistics

from algorithms.cost_model import ClauseCostModel
from algorithms.costs import ClauseCost, clause_cost, exp_cost, format_log_cost, pattern_log_cost
from algorithms.planners.base import Planned, check_clause_plan
from algorithms.registry import get_planner, is_builtin


@dataclass(frozen=True)
class PlanResult:
    """The plan of a pattern by one planner, its cost and how it was made.

    ``cost`` is the float cost, ``inf`` only when it exceeds the float range (then ``log_cost``, the
    natural log, is exact); ``clause_costs`` holds each clause's log throughput/latency costs;
    ``fallbacks`` names, per clause, a planner that answered instead of an exact one whose budget was
    exceeded (None where the planner itself answered).
    """

    planner: str
    kind: str
    plan: PatternPlan
    cost: float
    log_cost: float
    plan_time_s: float
    params: dict
    clause_costs: tuple[ClauseCost, ...] = field(default=())
    fallbacks: tuple[str | None, ...] = field(default=())

    def cost_text(self) -> str:
        return format_log_cost(self.log_cost)

    def to_json(self) -> dict:
        """A JSON-ready dict: planner, kind, plan (list of variables, or nested pairs), cost
        (null when beyond the float range), log10_cost, plan_time_s, params, fallbacks."""
        return {
            "planner": self.planner,
            "kind": self.kind,
            "plan": self.plan.to_json(),
            "cost": self.cost if math.isfinite(self.cost) else None,
            "log10_cost": self.log_cost / math.log(10) if math.isfinite(self.log_cost) else None,
            "plan_time_s": self.plan_time_s,
            "params": self.params,
            "fallbacks": list(self.fallbacks),
        }


def plan_clauses(
    clauses: list[SimplePattern],
    planner: str,
    stats: Statistics,
    *,
    alpha: float = 0.0,
    seed: int = 0,
    seq_selectivity: bool = False,
    **params,
) -> PlanResult:
    """:func:`plan_pattern` on an explicit list of DNF clauses."""
    p = get_planner(planner, seed=seed, **params)
    start = time.perf_counter()
    plans, costs, fallbacks = [], [], []
    for sp in clauses:
        model = ClauseCostModel(sp, stats, alpha=alpha, seq_selectivity=seq_selectivity)
        answer = answer_clause(planner, p, model)
        check_clause_plan(planner, sp, answer.plan, p.kind)
        plans.append(answer.plan)
        fallbacks.append(answer.fallback)
        costs.append(clause_cost(model, answer.plan))
    elapsed = time.perf_counter() - start
    log_cost = pattern_log_cost(costs)
    return PlanResult(
        planner=p.name,
        kind=p.kind,
        plan=PatternPlan(tuple(plans)),
        cost=exp_cost(log_cost, warn=False),
        log_cost=log_cost,
        plan_time_s=elapsed,
        params={**p.get_params(), "alpha": float(alpha), "seq_selectivity": bool(seq_selectivity)},
        clause_costs=tuple(costs),
        fallbacks=tuple(fallbacks),
    )


def answer_clause(name: str, p, model: ClauseCostModel) -> Planned:
    """The planner's answer for one clause; a planner from another package that raises (anything but
    this project's own errors) is a one-line PlanError naming it and the pattern it failed on."""
    if is_builtin(name):
        return p.plan_model(model)
    try:
        answer = p.plan_model(model)
    except CEPError:
        raise
    except Exception as e:  # noqa: BLE001 - a foreign planner's failure becomes one line
        raise PlanError(f"planner {name} failed on pattern {model.sp.name} (clause {model.sp.index}): "
                        f"{type(e).__name__}: {e}") from e
    if not isinstance(answer, Planned):
        raise PlanError(f"planner {name} returned {type(answer).__name__} for pattern {model.sp.name} (clause {model.sp.index}); "
                        "plan_model returns algorithms.planners.base.Planned")
    return answer


def plan_pattern(
    pattern: Pattern,
    planner: str,
    stats: Statistics,
    *,
    alpha: float = 0.0,
    seed: int = 0,
    seq_selectivity: bool = False,
    **params,
) -> PlanResult:
    """Plan every DNF clause of ``pattern`` with the named planner (deterministic under ``seed``).

    ``alpha`` weighs latency against throughput (JQPG 5.1); ``seq_selectivity`` switches on the
    selectivity of the implicit SEQ order (off by default, as in JQPG's formulas; see
    :mod:`algorithms.cost_model`); ``params`` go to the planner (e.g. ``restarts`` for II-RANDOM,
    ``max_variables`` for the DPs).  ``plan_time_s`` covers the cost model and the search.

    >>> from cep import parse_pattern, Statistics
    >>> p = parse_pattern("PATTERN SEQ(A a, B b, C c) WHERE a.x = c.x WITHIN 10 seconds")
    >>> r = plan_pattern(p, "DP-B", Statistics({"A": 1.0, "B": 1.0, "C": 1.0}, {"a,c": 0.001}))
    >>> str(r.plan), r.kind, round(r.cost, 6)
    ('((a, c), b)', 'tree', 31.1)
    """
    stats.require_types(pattern.event_types)
    return plan_clauses(to_dnf(pattern), planner, stats, alpha=alpha, seed=seed, seq_selectivity=seq_selectivity, **params)
