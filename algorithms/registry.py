"""The single-pattern planners by the names JQPG uses (Section 6.1); configs refer to these names.

Adding a planner is one module under :mod:`algorithms.planners` plus one line in :data:`PLANNERS`; a
planner from another package is named by an entry point or ``module:Class`` (:mod:`algorithms.plugins`).
Query-rewriting planners (NEXT), which return an equivalent pattern rather than a plan of one, are
registered in :data:`REWRITERS`.
"""

from __future__ import annotations

import functools
import importlib
import inspect

from cep.errors import CEPError, PlanError

from algorithms.planners.base import Planner


class PlannerFactory:
    """A planner class named by ``"module:Class"``, imported on first use; calling it builds a planner."""

    def __init__(self, target: str | type[Planner], *, foreign: bool = False) -> None:
        self.target = target
        #: a planner from another package (:mod:`algorithms.plugins`): its constructor's failure is one line naming it
        self.foreign = foreign

    @property
    def cls(self) -> type[Planner]:
        if isinstance(self.target, type):
            return self.target
        module, _, name = self.target.partition(":")
        return getattr(importlib.import_module(module), name)

    def __call__(self, **params) -> Planner:
        cls = self.cls
        accepted = _keyword_parameters(cls)
        unknown = sorted(set(params) - accepted)
        if unknown:
            raise PlanError(f"planner {getattr(cls, 'name', cls.__qualname__)} has no parameter {unknown[0]!r}; its parameters: {', '.join(sorted(accepted))}")
        if not self.foreign:
            return cls(**params)
        try:
            return cls(**params)
        except CEPError:
            raise
        except Exception as e:  # noqa: BLE001
            raise PlanError(f"planner {cls.name} ({cls.__module__}:{cls.__qualname__}): its constructor raised {type(e).__name__}: {e}") from None

    def __repr__(self) -> str:
        return f"PlannerFactory({self.target!r})"


@functools.cache
def _keyword_parameters(cls: type) -> frozenset[str]:
    """The keyword-only parameters of ``cls``'s constructors along its MRO (read once per class)."""
    return frozenset(p.name for c in cls.__mro__ if "__init__" in vars(c)
                     for p in inspect.signature(c.__init__).parameters.values() if p.kind is p.KEYWORD_ONLY)


PLANNERS: dict[str, PlannerFactory] = {
    "TRIVIAL": PlannerFactory("algorithms.planners.trivial:TrivialPlanner"),
    "EFREQ": PlannerFactory("algorithms.planners.efreq:EventFrequencyPlanner"),
    "GREEDY": PlannerFactory("algorithms.planners.greedy:GreedyPlanner"),
    "II-RANDOM": PlannerFactory("algorithms.planners.iterative_improvement:IIRandomPlanner"),
    "II-GREEDY": PlannerFactory("algorithms.planners.iterative_improvement:IIGreedyPlanner"),
    "DP-LD": PlannerFactory("algorithms.planners.dp_left_deep:DPLeftDeepPlanner"),
    "ZSTREAM": PlannerFactory("algorithms.planners.zstream:ZStreamPlanner"),
    "ZSTREAM-ORD": PlannerFactory("algorithms.planners.zstream:ZStreamOrdPlanner"),
    "DP-B": PlannerFactory("algorithms.planners.dp_bushy:DPBushyPlanner"),
}


#: query-rewriting planners (a pattern in, an equivalent cheaper pattern out), by the names the papers use
REWRITERS: dict[str, PlannerFactory] = {
    "NEXT": PlannerFactory("algorithms.next.rewrite:NextRewriter"),
}


def get_rewriter(name: str, **params):
    """A rewriting planner by name (see :data:`REWRITERS`); unknown names or parameters raise PlanError."""
    try:
        factory = REWRITERS[name]
    except (KeyError, TypeError):
        raise PlanError(f"unknown rewriting planner {name!r}; valid names: {', '.join(REWRITERS)}") from None
    return factory(**params)


def planner_names() -> list[str]:
    """Every registered planner name, in the order of :data:`PLANNERS`."""
    return list(PLANNERS)


def is_builtin(name: str) -> bool:
    """Whether ``name`` is one of the planners of this repository (:data:`PLANNERS`)."""
    return isinstance(name, str) and name in PLANNERS


def _factory(name: str) -> PlannerFactory:
    """The built-in planner ``name``, or the one an entry point or ``module:Class`` names."""
    if is_builtin(name):
        return PLANNERS[name]
    from algorithms.plugins import PLANNER_GROUP, resolve

    return PlannerFactory(resolve(name, (PLANNER_GROUP,), (Planner,), PLANNERS), foreign=True)


def planner_kind(name: str) -> str:
    """``"order"`` or ``"tree"``: the kind of plan the named planner returns."""
    return _factory(name).cls.kind


def get_planner(name: str, **params) -> Planner:
    """A planner by name with keyword parameters (seed, budgets); unknown names or parameters raise PlanError."""
    return _factory(name)(**params)
