"""GREEDY (JQPG 6.1; Swami [48]): "proceeds by selecting at each step the relation which minimizes
the value of the cost function"."""

from __future__ import annotations

import math

import numpy as np

from algorithms.cost_model import ClauseCostModel
from algorithms.plan_ranking import first_tie
from algorithms.planners.base import OrderPlanner


def greedy_sequence(model: ClauseCostModel, unit_masks: list[int], start_mask: int = 0) -> list[int]:
    """Indices of ``unit_masks`` in greedy order: at each step the unit whose addition to the bound
    set ``S`` costs least, ``PM(S u U)`` plus ``alpha * PM(U)`` once ``T_n`` is bound (the next
    term of ``Cost_ord + alpha * Cost_lat_ord``); among units whose terms tie with the least
    (:mod:`algorithms.plan_ranking`) the earlier unit."""
    masks = np.array(unit_masks, dtype=np.int64)
    own = model.log_node(masks)
    left = list(range(len(unit_masks)))
    bound = start_mask
    out: list[int] = []
    while left:
        cand = masks[left]
        score = model.log_node(cand | np.int64(bound))
        if model.log_alpha > -math.inf and bound >> model.last & 1:
            score = np.logaddexp(score, model.log_alpha + own[left])
        k = int(first_tie(score[None, :], log=True)[0])
        out.append(left.pop(k))
        bound |= int(masks[out[-1]])
    return out


class GreedyPlanner(OrderPlanner):
    """Greedy cost-based order (see :func:`greedy_sequence`).

    >>> from cep import parse_pattern, to_dnf, Statistics
    >>> sp = to_dnf(parse_pattern("PATTERN SEQ(A a, B b, C c) WHERE a.x = c.x WITHIN 10 seconds"))[0]
    >>> stats = Statistics({"A": 1.0, "B": 1.0, "C": 1.0}, {"a,c": 0.001})
    >>> str(GreedyPlanner().plan(sp, stats))
    'a, c, b'
    """

    name = "GREEDY"

    def _order(self, model: ClauseCostModel, prefix: list[int], rng: np.random.Generator):
        rest = [i for i in range(model.n) if i not in prefix]
        start = sum(1 << i for i in prefix)
        picked = greedy_sequence(model, [1 << i for i in rest], start)
        return list(prefix) + [rest[k] for k in picked], None
