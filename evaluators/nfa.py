"""The lazy NFA (JQPG Section 2.2; Kolchinsky et al., DEBS 2015): a chain of ``n + 1`` states in the
order of an order-based plan ``O = (v1, ..., vn)``.

State ``k + 1`` (``k = 1..n-1``) holds the instances that bound the prefix ``v1..vk``; state ``n + 1``
accepts.  Every incoming event is buffered under its variable (events of a variable's type that
pass the variable's own conditions), and the chain is driven by arrivals:

  * an event of ``v1`` opens an instance in state 2;
  * an event of ``vk`` (``k > 1``) advances every live instance waiting in state ``k`` whose checks
    with it hold -- the conditions and SEQ order between ``vk`` and ``v1..v(k-1)``, and the window;
  * an instance that reaches state ``k + 1`` at once fetches the matching buffered events of
    ``v(k+1)`` (which arrived before it: lazy, out-of-order evaluation), and so on up the chain, and
    stays in its state waiting for later events of its next variable.

This is the left-deep join of ``O`` evaluated by instance -- state ``k + 1`` is the left input of
step ``k``, the buffer of ``v(k+1)`` its right input (JQPG Theorem 1) -- so the chain is compiled by
the same join compiler as the tree evaluator; what differs is the shape (always left-deep, fixed by
the order).  Its state is counted as the tree evaluator's (:mod:`evaluators.join_plan`): the
instances of states ``3..n`` (prefixes of two to ``n - 1`` events) are partial matches, the events
buffered for every variable (state 2 holds those of ``v1``) are buffered events.

A negated variable is checked on the transition after which everything it depends on is bound
(:func:`cep.plans.negation_steps`) -- unless a later variable has its type (an event that kills there
might still be bound by that variable), then on the accepting transition -- and matches with
negation are held until no later event can kill them (cep.semantics, "Release").  A Kleene
variable's state consumes a non-empty subset of its buffered events, in stream order and within its
size bounds (JQPG Section 4, "modifying an edge type").
"""

from __future__ import annotations

from cep.dnf import SimplePattern
from cep.errors import PlanError
from cep.plans import OrderPlan, Plan, TreePlan, left_deep_tree, negation_steps, validate_plan

from evaluators.join_plan import JoinPlan, build_join_plan

NAME = "nfa"


def join_plan(sp: SimplePattern, plan: Plan) -> JoinPlan:
    """The chain of one clause under an order plan (or a tree plan that is left-deep)."""
    validate_plan(sp, plan)
    if isinstance(plan, TreePlan):
        order = _left_deep_order(plan.root)
        if order is None:
            raise PlanError(f"the lazy NFA needs an order plan; tree {plan} is not left-deep (use --evaluator tree)")
    elif isinstance(plan, OrderPlan):
        order = plan.order
    else:
        raise PlanError(f"the lazy NFA runs order plans, not {type(plan).__name__}")
    jp = build_join_plan(sp, left_deep_tree(order), kind=NAME)
    # the early negation checks sit on the chain's transitions (negation_steps) -- the node of the
    # left-deep tree whose prefix is order[:step]
    steps = negation_steps(sp, order)
    for n, node in jp.early_negations.items():
        assert node.vars == tuple(order[: steps[n]]), (n, node.vars, steps[n])
    return jp


def _left_deep_order(t) -> tuple[str, ...] | None:
    """The order of a tree whose every internal node has a leaf child (a left-deep tree, possibly
    with children swapped); None for any other tree."""
    out = []
    while isinstance(t, tuple):
        a, b = t
        if isinstance(b, tuple):
            a, b = b, a
        if isinstance(b, tuple):
            return None
        out.append(b)
        t = a
    out.append(t)
    return tuple(reversed(out))
