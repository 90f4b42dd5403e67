"""Planners and optimizers from "another package" for the tests of :mod:`algorithms.plugins` and the
conformance suite: one that is correct, and broken ones, each broken in one way."""

from __future__ import annotations

import os
import sys

from cep.global_plans import build_global_plan
from cep.plans import OrderPlan

from algorithms.multi.base import MultiOptimizer
from algorithms.planners.base import OrderPlanner, Planned, TreePlanner


class ReversePlanner(OrderPlanner):
    """Correct: the events in reverse declaration order (after the prefix)."""

    name = "REVERSE"

    def _order(self, model, prefix, rng):
        return list(prefix) + [i for i in reversed(range(model.n)) if i not in prefix], None


class DroppingPlanner(OrderPlanner):
    """Broken: leaves the last event of every clause out of its order."""

    name = "DROPPING"

    def plan_model(self, model):
        return Planned(OrderPlan(tuple(model.variables[:-1])))

    def _order(self, model, prefix, rng):
        raise NotImplementedError


class RaisingPlanner(OrderPlanner):
    """Broken: raises on every clause."""

    name = "RAISING"

    def _order(self, model, prefix, rng):
        raise ValueError("no plan today")


class OrderAsTreePlanner(TreePlanner):
    """Broken: a tree planner that returns an order."""

    name = "ORDER-AS-TREE"

    def plan_model(self, model):
        return Planned(OrderPlan(tuple(model.variables)))

    def _tree(self, model, units, rng):
        raise NotImplementedError


class WrittenOrderOptimizer(MultiOptimizer):
    """Correct: every clause in its written order, equal prefixes shared (an MPT)."""

    name = "WRITTEN"
    kind = "order"

    def optimize(self, clauses, models, *, time_limit):
        return build_global_plan("order", clauses, {o: OrderPlan(tuple(sp.positive)) for o, sp in clauses.items()})


class ForgetfulOptimizer(MultiOptimizer):
    """Broken: plans every clause but the workload's last one."""

    name = "FORGETFUL"
    kind = "order"

    def optimize(self, clauses, models, *, time_limit):
        kept = dict(list(clauses.items())[:-1])
        return build_global_plan("order", kept, {o: OrderPlan(tuple(sp.positive)) for o, sp in kept.items()})


class NotAPlanner:
    """Neither a planner nor an optimizer."""


class BudgetEchoOptimizer(WrittenOrderOptimizer):
    """Correct, and refuses a time limit above a minute (a placeholder budget reaching it is a bug)."""

    name = "BUDGET-ECHO"

    def optimize(self, clauses, models, *, time_limit):
        if time_limit > 60:
            raise ValueError(f"time limit {time_limit} s")
        return super().optimize(clauses, models, time_limit=time_limit)


class ExitingPlanner(ReversePlanner):
    """Broken: ends the process with sys.exit(0), as if all went well."""

    name = "EXITING"

    def _order(self, model, prefix, rng):
        sys.exit(0)


class HardExitingPlanner(ReversePlanner):
    """Broken: ends the process with os._exit(0), which skips every handler."""

    name = "HARD-EXITING"

    def _order(self, model, prefix, rng):
        os._exit(0)


class NamedLikeABuiltin(ReversePlanner):
    """Broken: takes a built-in planner's name, so its rows would pass for DP-LD's."""

    name = "DP-LD"


class Nameless(OrderPlanner):
    """Broken: declares no name."""

    def _order(self, model, prefix, rng):
        return list(range(model.n)), None


class RaisingConstructor(ReversePlanner):
    """Broken: its constructor raises."""

    name = "RAISING-CONSTRUCTOR"

    def __init__(self, *, seed: int = 0) -> None:
        raise RuntimeError("no constructor today")


class WrongOrder(OrderPlanner):
    """Broken: an order that names index 0 twice and forgets the last one."""

    name = "WRONG-ORDER"

    def _order(self, model, prefix, rng):
        return [0] * model.n, None


class BlockingPlanner(ReversePlanner):
    """Holds its run at its first pattern until told to go on: writes ``started`` into the folder named by
    the environment variable CEP_TEST_BLOCK_DIR, then waits there for ``release`` (a test's run that is
    surely still running, without guessing how long it takes)."""

    name = "BLOCKING"

    def _order(self, model, prefix, rng):
        import time
        from pathlib import Path

        where = Path(os.environ["CEP_TEST_BLOCK_DIR"])
        (where / "started").write_text(str(os.getpid()))
        deadline = time.monotonic() + 600
        while not (where / "release").exists():
            if time.monotonic() > deadline:
                raise TimeoutError("never released")
            time.sleep(0.05)
        return super()._order(model, prefix, rng)
