"""Methods from outside this repository: one function resolves a name to a planner or optimizer class.

A researcher's package takes part without editing the registries.  Wherever a planner name is
accepted (``plan --planner``, ``exp.planners``, ``+extra_planners=[...]``, ``check-planner``,
``compare``) a name is, in this order:

1. a built-in name (:data:`algorithms.registry.PLANNERS`, :mod:`algorithms.multi.registry`);
2. the name of an entry point of the group :data:`PLANNER_GROUP` (single-pattern planners) or
   :data:`MULTI_GROUP` (multi-pattern optimizers), declared in the package's ``pyproject.toml``::

       [project.entry-points."cep_plan_bench.planners"]
       RAREST = "cep_plan_example.planners:RarestFirstPlanner"

3. ``module:Class`` (``mypkg.planners:MyPlanner``), imported on first use.

The contract is one base class per kind:

* a single-pattern planner subclasses :class:`algorithms.planners.base.OrderPlanner` (returns an
  :class:`cep.plans.OrderPlan`) or :class:`algorithms.planners.base.TreePlanner` (a
  :class:`cep.plans.TreePlan`); it receives one DNF clause at a time as a
  :class:`algorithms.cost_model.ClauseCostModel` (the clause ``model.sp``, its statistics, the cost
  model and ``alpha``); budgets (steps, a time limit) are its keyword-only constructor parameters,
  set per experiment in ``exp.planner_params``;
* a multi-pattern optimizer subclasses :class:`algorithms.multi.base.MultiOptimizer`: it receives the
  workload's clauses, their cost models, the time limit and the seed and returns a
  :class:`cep.global_plans.GlobalPlan`.

A method that compares plan costs should compare them with :mod:`algorithms.plan_ranking` (costs
within its relative tolerance tie, a tie goes to the plan of least canonical key), as every built-in
one does: then its plans do not depend on the CPU's rounding.

Every mistake is a one-line :class:`cep.errors.PlanError` (exit status 2 on the command line): a name
that resolves to nothing (with the close names), a module or class that does not import, a class of
the wrong kind.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
from importlib.metadata import entry_points
from typing import Iterable

from cep.errors import PlanError

PLANNER_GROUP = "cep_plan_bench.planners"
MULTI_GROUP = "cep_plan_bench.multi"
KIND_OF_GROUP = {PLANNER_GROUP: "single-pattern planner", MULTI_GROUP: "multi-pattern optimizer"}


def registered(group: str) -> dict[str, str]:
    """The entry points of ``group`` installed in this environment: name -> ``module:Class``."""
    return {ep.name: ep.value for ep in entry_points(group=group)}


def resolve(name: str, groups: tuple[str, ...], bases: tuple[type, ...], builtin: Iterable[str] = ()) -> type:
    """The class named ``name`` (an entry point of one of ``groups``, or ``module:Class``), checked to
    be a concrete subclass of one of ``bases``; ``builtin`` are the names the caller resolves itself
    (listed among the close names of an unknown one)."""
    what = " or ".join(KIND_OF_GROUP[g] for g in groups)
    if not isinstance(name, str) or not name:
        raise PlanError(f"a {what} name must be a non-empty string, got {name!r}")
    eps = {k: v for g in reversed(groups) for k, v in registered(g).items()}
    if name in eps:
        target = eps[name]
    elif ":" in name:
        target = name
    else:
        known = list(builtin) + sorted(eps)
        close = (difflib.get_close_matches(name, known, n=3, cutoff=0.5)
                 or difflib.get_close_matches(name.upper(), known, n=3, cutoff=0.5))
        hint = f"did you mean {', '.join(close)}? " if close else ""
        raise PlanError(f"unknown planner {name!r} (no {what} of that name); {hint}known: {', '.join(known)}; "
                        f"or an entry point of {' or '.join(map(repr, groups))}, or module:Class")
    module, _, attr = target.partition(":")
    try:
        obj = importlib.import_module(module)
    except ImportError as e:
        raise PlanError(f"{what} {name!r}: cannot import module {module!r} ({e})") from None
    except Exception as e:  # noqa: BLE001 - a module that fails while importing (SyntaxError, an error at its top level)
        where = f" ({e.filename}, line {e.lineno})" if isinstance(e, SyntaxError) else ""
        raise PlanError(f"{what} {name!r}: module {module!r} fails to import: {type(e).__name__}: {e.msg if isinstance(e, SyntaxError) else e}"
                        f"{where}") from None
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise PlanError(f"{what} {name!r}: module {module!r} has no {attr!r}") from None
    if not (isinstance(obj, type) and issubclass(obj, bases)):
        wanted = " or ".join(f"{b.__module__}.{b.__qualname__}" for b in bases)
        raise PlanError(f"{what} {name!r} is {_describe(obj)}, not a subclass of {wanted}{_kind_hint(obj)}")
    if inspect.isabstract(obj):
        missing = ", ".join(sorted(obj.__abstractmethods__))
        raise PlanError(f"{what} {name!r} ({obj.__qualname__}) is abstract: implement {missing}")
    _check_declared(obj, name, what, list(builtin))
    return obj


def _check_declared(cls: type, name: str, what: str, builtin: list[str]) -> None:
    """What a method must declare as class attributes: ``name``, a non-empty string that is not a built-in
    method's (its rows would be taken for the built-in's), and ``kind``, ``"order"`` or ``"tree"``."""
    declared = getattr(cls, "name", None)
    if not isinstance(declared, str) or not declared.strip():
        raise PlanError(f"{what} {name!r} ({cls.__qualname__}) declares no name: set the class attribute name = \"...\", "
                        "the name its results are stored and drawn under")
    if declared in builtin:
        raise PlanError(f"{what} {name!r} ({cls.__qualname__}) is named {declared!r}, the name of a built-in method: "
                        "its results would be taken for the built-in's; give it a name of its own")
    kind = getattr(cls, "kind", None)
    if kind not in ("order", "tree"):
        raise PlanError(f"{what} {name!r} ({cls.__qualname__}) declares kind {kind!r}; a method's kind is 'order' or 'tree'")


def _describe(obj) -> str:
    return f"class {obj.__module__}.{obj.__qualname__}" if isinstance(obj, type) else f"a {type(obj).__name__}"


def _kind_hint(obj) -> str:
    """Say so when the class is of the other kind (a multi-pattern optimizer given as a planner): the
    methods of the contracts (``optimize``; ``plan_model``) tell them apart."""
    if isinstance(obj, type) and callable(getattr(obj, "optimize", None)):
        return " (it is a multi-pattern optimizer: use it in the MCEP/MOTTO experiments)"
    if isinstance(obj, type) and callable(getattr(obj, "plan_model", None)):
        return " (it is a single-pattern planner)"
    return ""
