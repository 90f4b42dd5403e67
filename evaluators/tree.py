"""The tree evaluator (JQPG Section 2.3): ZStream-style instance-based evaluation under sliding
windows.

Each leaf of the tree plan buffers the events of one variable (filtered by that variable's own
conditions); an internal node holds the instances (partial matches) of its subtree.  A new instance
is combined with every live instance of its sibling; each combination that satisfies the checks
placed at the parent becomes a parent instance, is stored there and goes up in turn; the root
reports.  A condition is checked at the lowest node holding all its variables, a negated event at the
lowest node holding the variables it depends on (JQPG Section 4, the NSEQ node).  An order plan runs
here as its left-deep tree.

Its state is counted as the lazy NFA's (:mod:`evaluators.join_plan`): events buffered at leaves,
and partial matches (instances) at the internal nodes below the root.
"""

from __future__ import annotations

from cep.dnf import SimplePattern
from cep.errors import PlanError
from cep.plans import OrderPlan, Plan, TreePlan, left_deep_tree, validate_plan

from evaluators.join_plan import JoinPlan, build_join_plan

NAME = "tree"


def join_plan(sp: SimplePattern, plan: Plan) -> JoinPlan:
    """The join plan of one clause under a tree plan (or an order plan's left-deep tree)."""
    validate_plan(sp, plan)
    if isinstance(plan, OrderPlan):
        tree = left_deep_tree(plan.order)
    elif isinstance(plan, TreePlan):
        tree = plan.root
    else:
        raise PlanError(f"the tree evaluator runs tree or order plans, not {type(plan).__name__}")
    return build_join_plan(sp, tree, kind=NAME)
