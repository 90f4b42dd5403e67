"""TRIVIAL (JQPG 6.1): "the evaluation plan is set to the initial order of the sequence pattern",
as in SASE and Cayuga."""

from __future__ import annotations

import numpy as np

from algorithms.cost_model import ClauseCostModel
from algorithms.planners.base import OrderPlanner


class TrivialPlanner(OrderPlanner):
    """The declaration order of the positive variables (after a given prefix, the rest in
    declaration order).

    >>> from cep import parse_pattern, to_dnf, Statistics
    >>> sp = to_dnf(parse_pattern("PATTERN SEQ(A a, B b, C c) WITHIN 10 seconds"))[0]
    >>> str(TrivialPlanner().plan(sp, Statistics({"A": 3.0, "B": 1.0, "C": 2.0})))
    'a, b, c'
    """

    name = "TRIVIAL"

    def _order(self, model: ClauseCostModel, prefix: list[int], rng: np.random.Generator):
        return list(prefix) + [i for i in range(model.n) if i not in prefix], None
