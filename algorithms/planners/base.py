"""What every single-pattern planner is: a named strategy that plans one DNF clause.

A planner is a small class with keyword-only constructor parameters that are stored as given and
can be read back (:meth:`Planner.get_params`), so every result records how it was configured.
Work happens in :meth:`Planner.plan_model`, which receives a
:class:`~algorithms.cost_model.ClauseCostModel` (the clause, the statistics and the cost options)
and returns an order or a tree, as the planner's ``kind`` declares.

Planners also answer the constrained questions of the multi-pattern optimizer (MCEP 4.2 and 5):
order planners :meth:`OrderPlanner.plan_with_prefix` ("the cheapest order starting with prefix
O'"), tree planners :meth:`TreePlanner.plan_containing` ("the cheapest tree containing all trees in
Y as subtrees").  Exact planners answer exactly; heuristics answer with their heuristic.

Subclasses implement ``_order(model, prefix, rng)`` or ``_tree(model, units, rng)`` on variable
indices; randomness comes only from ``rng``, a generator seeded by ``(seed, clause index)``, so
results are the same in every process.
"""

from __future__ import annotations

import inspect
import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar, Sequence

import numpy as np

from algorithms.cost_model import ClauseCostModel
from algorithms.costs import log_latency_tree, log_throughput_tree
from cep.dnf import SimplePattern
from cep.errors import ConfigError, PlanError
from cep.plans import OrderPlan, Plan, Tree, TreePlan, tree_leaves
from cep.statistics import Statistics


@dataclass(frozen=True)
class Planned:
    """A planner's answer for one clause; ``fallback`` names the planner that answered instead
    when a budget was exceeded (None otherwise)."""

    plan: Plan
    fallback: str | None = None


class Planner(ABC):
    name: ClassVar[str]
    kind: ClassVar[str]  # "order" or "tree"

    def __init__(self, *, seed: int = 0) -> None:
        self.seed = seed

    def get_params(self) -> dict:
        """The constructor parameters and their current values (scikit-learn style)."""
        out = {}
        for cls in type(self).__mro__:
            if "__init__" not in vars(cls):
                continue
            for p in inspect.signature(cls.__init__).parameters.values():
                if p.kind is p.KEYWORD_ONLY and p.name not in out:
                    out[p.name] = getattr(self, p.name)
        return dict(sorted(out.items()))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    def validate_params(self) -> None:
        """Raise ConfigError for parameter values the planner cannot use (called before planning)."""
        self.require_int("seed", 0)

    def require_int(self, param: str, lo: int, hi: int | None = None) -> None:
        v = getattr(self, param)
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo or (hi is not None and v > hi):
            bounds = f">= {lo}" if hi is None else f"in {lo}..{hi}"
            raise ConfigError(f"{self.name}: {param} must be an integer {bounds}, got {v!r}")

    def require_bool(self, param: str) -> None:
        v = getattr(self, param)
        if not isinstance(v, (bool, np.bool_)):
            raise ConfigError(f"{self.name}: {param} must be true or false, got {v!r}")

    def rng(self, model: ClauseCostModel) -> np.random.Generator:
        return np.random.default_rng([int(self.seed), int(model.sp.index)])

    def plan(self, sp: SimplePattern, stats: Statistics, *, alpha: float = 0.0, seq_selectivity: bool = False) -> Plan:
        """Plan one clause from statistics (builds the cost model)."""
        return self.plan_model(ClauseCostModel(sp, stats, alpha=alpha, seq_selectivity=seq_selectivity)).plan

    @abstractmethod
    def plan_model(self, model: ClauseCostModel) -> Planned: ...


class OrderPlanner(Planner):
    kind = "order"

    def plan_model(self, model: ClauseCostModel) -> Planned:
        return self.plan_with_prefix(model, ())

    def plan_with_prefix(self, model: ClauseCostModel, prefix: Sequence[str]) -> Planned:
        """The planner's order among those that start with ``prefix`` (MCEP 4.2, requirement 2)."""
        self.validate_params()
        pre = [_variable_index(model, v, "prefix") for v in prefix]
        if len(set(pre)) != len(pre):
            raise PlanError(f"prefix {', '.join(prefix)} names a variable twice")
        order, fallback = self._order(model, pre, self.rng(model))
        try:
            valid = sorted(order) == list(range(model.n)) and list(order[: len(pre)]) == pre
        except TypeError:  # not a sequence of indices
            valid = False
        if not valid:  # a planner may come from another package: checked under python -O too
            wanted = f"starting with {pre} " if pre else ""
            raise PlanError(f"planner {self.name} returned the order {order!r} for pattern {model.sp.name} (clause {model.sp.index}); "
                            f"_order returns every variable index 0..{model.n - 1} once, {wanted}(its variables: {', '.join(model.variables)})")
        return Planned(OrderPlan(tuple(model.variables[i] for i in order)), fallback)

    @abstractmethod
    def _order(self, model: ClauseCostModel, prefix: list[int], rng: np.random.Generator) -> tuple[list[int], str | None]:
        """A full order (variable indices) that starts with ``prefix``, and the fallback used (or None)."""


@dataclass(frozen=True)
class Unit:
    """A leaf of a constrained tree search: one variable, or a given subtree kept whole."""

    mask: int
    tree: Tree
    log_cost: float  # log of the sum of PM over the unit's nodes
    log_latency: float  # log Cost_lat of the unit as a tree (-inf unless it holds T_n)


def _make_units(model: ClauseCostModel, subtrees: Sequence[Tree] = ()) -> list[Unit]:
    """Units for a tree search: the given subtrees, then every variable they do not cover, each
    group in declaration order of its first leaf."""
    units: list[Unit] = []
    covered = 0
    for t in subtrees:
        leaves = list(tree_leaves(t))
        mask = 0
        for v in leaves:
            bit = 1 << _variable_index(model, v, "subtree")
            if mask & bit or covered & bit:
                raise PlanError(f"variable {v!r} appears in more than one given subtree (or twice in one)")
            mask |= bit
        covered |= mask
        holds_last = bool(mask >> model.last & 1)
        lat = log_latency_tree(model, t) if holds_last and isinstance(t, tuple) else -math.inf
        units.append(Unit(mask, t, log_throughput_tree(model, t), lat))
    for i, v in enumerate(model.variables):
        if not covered >> i & 1:
            units.append(Unit(1 << i, v, float(model.log_leaf[i]), -math.inf))
    return sorted(units, key=lambda u: (u.mask & -u.mask).bit_length())


class TreePlanner(Planner):
    kind = "tree"

    def plan_model(self, model: ClauseCostModel) -> Planned:
        return self.plan_containing(model, ())

    def plan_containing(self, model: ClauseCostModel, subtrees: Sequence[Tree]) -> Planned:
        """The planner's tree among those containing every tree of ``subtrees`` as a subtree
        (MCEP Section 5, requirement 2).  The subtrees must have disjoint leaves."""
        self.validate_params()
        units = _make_units(model, [s.root if isinstance(s, TreePlan) else s for s in subtrees])
        tree, fallback = self._tree(model, units, self.rng(model))
        return Planned(TreePlan(tree), fallback)

    @abstractmethod
    def _tree(self, model: ClauseCostModel, units: list[Unit], rng: np.random.Generator) -> tuple[Tree, str | None]:
        """A tree over all units (each unit's tree kept whole), and the fallback used (or None)."""


def check_clause_plan(name: str, sp: SimplePattern, plan, kind: str) -> None:
    """A one-line PlanError unless ``plan`` is an order (``kind="order"``) or a tree over exactly the
    positive variables of the clause ``sp``, each once."""
    want = OrderPlan if kind == "order" else TreePlan
    if not isinstance(plan, want):
        raise PlanError(f"planner {name} returned {type(plan).__name__} for pattern {sp.name} (clause {sp.index}); a {kind} planner returns {want.__name__}")
    got = list(plan.order) if isinstance(plan, OrderPlan) else list(tree_leaves(plan.root))
    if sorted(got) != sorted(sp.positive):
        dropped = sorted(set(sp.positive) - set(got))
        extra = sorted(set(got) - set(sp.positive))
        twice = sorted({v for v in got if got.count(v) > 1})
        what = (f"drops {', '.join(dropped)}" if dropped else f"names {', '.join(extra)}, not a positive variable" if extra
                else f"names {', '.join(twice)} twice")
        raise PlanError(f"planner {name} returned an invalid plan for pattern {sp.name} (clause {sp.index}): {plan} {what} "
                        f"(its positive variables: {', '.join(sp.positive)})")


def _variable_index(model: ClauseCostModel, v: str, what: str) -> int:
    try:
        return model.index[v]
    except (KeyError, TypeError):
        raise PlanError(
            f"{what} names {v!r}, which is not a positive variable of {model.sp.name} "
            f"({', '.join(model.variables)})"
        ) from None
