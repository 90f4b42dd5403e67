"""What every multi-pattern optimizer from outside this repository is (MCEP Section 3: a global plan
for a workload of patterns, some of whose sub-plans are shared).

Subclass :class:`MultiOptimizer`, set ``name`` and ``kind`` and implement :meth:`MultiOptimizer.optimize`;
register the class through the entry-point group ``cep_plan_bench.multi`` or name it as
``module:Class`` (:mod:`algorithms.plugins`).  :func:`algorithms.multi.registry.plan_workload` calls it
with every DNF clause of the workload and their cost models, checks what it returns
(:func:`check_global_plan`) and costs it like every built-in optimizer's plan.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar, Mapping

from cep.dnf import SimplePattern
from cep.errors import PlanError
from cep.global_plans import GlobalPlan, Owner

from algorithms.planners.base import check_clause_plan


class MultiOptimizer(ABC):
    """A multi-pattern optimizer: a workload's clauses in, one global plan out.

    ``kind`` is ``"order"`` (a multi-pattern tree of orders, MPT, run by the multi-pattern NFA) or
    ``"tree"`` (a multi-pattern multitree of trees, MPM).  The constructor takes keyword-only
    parameters; ``seed`` is always given (the cell's seed), and randomness must come from it only."""

    name: ClassVar[str]
    kind: ClassVar[str]  # "order" (MPT) or "tree" (MPM)

    def __init__(self, *, seed: int = 0) -> None:
        self.seed = seed

    @abstractmethod
    def optimize(self, clauses: Mapping[Owner, SimplePattern], models: Mapping[Owner, object], *,
                 time_limit: float) -> GlobalPlan:
        """The global plan of the workload.

        ``clauses``: owner ``(pattern index, clause index)`` -> DNF clause; ``models``: owner ->
        :class:`algorithms.cost_model.ClauseCostModel` (the clause's statistics, ``alpha``, the cost
        functions of :mod:`algorithms.costs`; :func:`algorithms.multi.costs.cost_multi` costs a global
        plan over them); ``time_limit``: seconds the search may take.  Build the plan with
        :func:`cep.global_plans.build_global_plan` (``share=True`` merges equal sub-plans)."""


def check_global_plan(name: str, g, clauses: Mapping[Owner, SimplePattern], kind: str | None = None) -> None:
    """A one-line PlanError unless ``g`` is a global plan of ``kind`` (when given) with one local plan per
    clause of the workload, each covering exactly the clause's positive variables."""
    if not isinstance(g, GlobalPlan):
        raise PlanError(f"optimizer {name} returned {type(g).__name__}, not a cep.global_plans.GlobalPlan")
    if kind is not None and g.kind != kind:
        raise PlanError(f"optimizer {name} declares kind {kind!r} but returned a global plan of kind {g.kind!r}")
    missing = sorted(set(clauses) - set(g.plans))
    if missing:
        p, c = missing[0]
        raise PlanError(f"optimizer {name} returned no plan for pattern {p} clause {c} ({clauses[missing[0]].name})")
    for o, sp in clauses.items():
        check_clause_plan(name, sp, g.plans[o], g.kind)
