"""EFREQ (JQPG 6.1): "the events are processed by the ascending order of their arrival
frequencies", as in PB-CED and the Lazy NFA."""

from __future__ import annotations

import numpy as np

from algorithms.cost_model import ClauseCostModel
from algorithms.plan_ranking import rank
from algorithms.planners.base import OrderPlanner


class EventFrequencyPlanner(OrderPlanner):
    """Ascending expected number of events per window (``W * r``; the power-set count for a Kleene
    variable, JQPG Section 4), counts that tie (:mod:`algorithms.plan_ranking`) in declaration
    order.  Conditions are ignored.

    >>> from cep import parse_pattern, to_dnf, Statistics
    >>> sp = to_dnf(parse_pattern("PATTERN SEQ(A a, B b, C c) WITHIN 10 seconds"))[0]
    >>> str(EventFrequencyPlanner().plan(sp, Statistics({"A": 3.0, "B": 1.0, "C": 2.0})))
    'b, c, a'
    """

    name = "EFREQ"

    def _order(self, model: ClauseCostModel, prefix: list[int], rng: np.random.Generator):
        rest = [i for i in range(model.n) if i not in prefix]
        return list(prefix) + rank(rest, cost=lambda i: float(model.log_count[i]), key=lambda i: i, log=True), None
