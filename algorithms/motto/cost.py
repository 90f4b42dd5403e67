"""``Cost(q_i | q_x)``: the weight of an edge of MOTTO's jumbo query plan (MOTTO Section VI), from
our cost models.

MOTTO substitutes "the cost model for each individual query ... from SAP ESP" and adds the filters:
``Cost(q_1 | q_2) = Cost(q'_1) + Cost(filter)`` (MST), ``Cost(q_3 | q_x) = Cost(q'_3)`` (DST),
``Cost(q_2 | q_5) = Cost(filter_sc)`` (OTT).  We substitute JQPG's tree cost (Cost_tree, JQPG 3.2,
:mod:`algorithms.cost_model`), our model of the partial matches a plan creates per window:

* ``Cost(q | q_0)``: the cheapest bushy tree of each DNF clause of ``q`` (DISJ has one clause per
  operand subset, :mod:`algorithms.motto.query`), summed over clauses -- ``sum_N PM(leaves(N))``
  over the nodes, leaves ``W r_i`` included.
* ``Cost(q'_i)`` of a composition with a reference to ``q_x``: the cheapest tree of ``q_i``'s
  clauses in which the referenced events are one leaf that costs nothing (its partial matches are
  ``q_x``'s, already paid on ``q_x``'s node): only the nodes above it and the other leaves are
  charged.  The filters that follow a composition (MST's time filter, Filter_sc, Filter_cd) are
  evaluated inside its joins, as our evaluators check SEQ order at every join node, so each node
  holds only the partial matches of ``q_i`` it stands for (``PM`` under ``q_i``'s clause) and the
  filters add nothing beyond the nodes they sit in.
* ``Cost(filter)`` where there is no composition (``q_2 = Filter_sc(q_5)``, a window filter): a
  filter is stateless; it is charged like a plan node, by the composite events it outputs (``PM``
  of its output query).  This is our reading of MOTTO's "much cheaper because of the significantly
  reduced input size".

With ``charge_leaves=False`` the primitive leaves cost nothing: an engine whose queries share one
buffer per event type (our multi-pattern multitree, which shares every leaf whatever the plan)
pays for them once whatever MOTTO decides, so sharing cannot save them.

With ``mpm_filters=True`` the filters are priced as the multi-pattern multitree runs them
(:mod:`cep.global_plans`, filter nodes; :mod:`algorithms.multi.sh_mdt`): a source *weaker* than the
target's projection onto its types (OTT's CONJ source of a SEQ, a source with fewer conditions) is
one weak sub-tree under **one filter node**, charged by its output -- ``PM`` of the target's
variables of the source's types, with the target's order and conditions among them -- for a
composition as for a filter-only arc; a filter-only arc whose filters are all window filters costs
nothing (node keys ignore the window: the target's root *is* the source's node, each owner checking
its own window), and one with several filters pays one node, not one per filter.

``PM`` uses the clause's order (``seq_selectivity=True``: a SEQ's partial matches respect the order
with probability ``1/|S|!`` under random arrival) -- without it a SEQ and a CONJ over the same types
would cost the same and Filter_sc would remove nothing.  A query's conditions (ours, over event
types) enter with the selectivities keyed by their *types* (``"E1,E3"``; :func:`type_selectivities`
translates a pattern's variable-keyed statistics).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Mapping

from cep.conditions import selectivity_key
from cep.dnf import to_dnf
from cep.pattern import Pattern
from cep.statistics import Statistics

from algorithms.cost_model import ClauseCostModel
from algorithms.motto.filters import WindowFilter
from algorithms.motto.query import Query, order_and_conditions
from algorithms.motto.rewrites import Derivation


def type_selectivities(pattern: Pattern, stats: Statistics) -> dict[str, float]:
    """A pattern's selectivities re-keyed from its variables to their event types (for
    :class:`MottoCosts` of :func:`algorithms.motto.query.from_pattern`'s query)."""
    types = pattern.var_types()
    out = {}
    for c in pattern.conditions:
        out[selectivity_key(types[v] for v in c.variables)] = stats.selectivity(c.variables)
    return out


class MottoCosts:
    """Costs of queries, compositions and filters under one set of statistics (cached by query key).

    ``selectivities`` are keyed by event types (``"E1,E3"``; default: ``stats.selectivities``);
    a condition without one has selectivity 1."""

    def __init__(self, stats: Statistics, selectivities: Mapping[str, float] | None = None, *,
                 charge_leaves: bool = True, mpm_filters: bool = False) -> None:
        self.stats = stats
        self.charge_leaves = charge_leaves
        self.mpm_filters = mpm_filters
        self.type_sels = dict(stats.selectivities if selectivities is None else selectivities)
        self._cache: dict[tuple[str, frozenset[str]], float] = {}

    def _pattern(self, q: Query):
        """``q``'s pattern, its variable types, and statistics keyed by its variables."""
        pattern, var_type = q.to_pattern()
        sels = {}
        for c in pattern.conditions:
            sels[c.key] = self.type_sels.get(selectivity_key(var_type[v] for v in c.variables), 1.0)
        stats = Statistics(self.stats.rates, sels, self.stats.source) if sels else self.stats
        return pattern, var_type, stats

    def count(self, q: Query, types=None) -> float:
        """Expected composite events of ``q`` per window: ``sum_clauses PM(all variables)``; with
        ``types``, the partial matches of ``q`` over its variables of those types."""
        pattern, var_type, stats = self._pattern(q)
        total = 0.0
        for sp in to_dnf(pattern):
            model = ClauseCostModel(sp, stats, seq_selectivity=True)
            vs = [v for v in sp.positive if types is None or var_type[v] in types]
            total += math.exp(float(model.log_node(model.mask_of(vs))))
        return total

    def tree_cost(self, q: Query, free_types: frozenset[str] = frozenset()) -> float:
        """The cheapest Cost_tree of ``q`` (summed over its clauses), the events of ``free_types``
        entering as one leaf of cost 0 (a reference to a source query)."""
        key = (q.key, free_types)
        if key not in self._cache:
            self._cache[key] = self._tree_cost(q, free_types)
        return self._cache[key]

    def _tree_cost(self, q: Query, free_types: frozenset[str]) -> float:
        pattern, var_type, stats = self._pattern(q)
        total = 0.0
        for sp in to_dnf(pattern):
            model = ClauseCostModel(sp, stats, seq_selectivity=True)
            free = [v for v in sp.positive if var_type[v] in free_types]
            units = [model.mask_of(free)] if free else []
            units += [model.mask_of([v]) for v in sp.positive if var_type[v] not in free_types]
            total += _best_tree(model, tuple(units), 0 if free else -1, self.charge_leaves)
        return total

    def edge_cost(self, d: Derivation) -> float:
        """``Cost(q_i | q_x)`` of a derivation (Section VI)."""
        if d.source is None:
            return self.tree_cost(d.target.expanded())
        if d.composition is not None:
            cost = self.tree_cost(d.target.expanded(), frozenset(d.source.types))
            if self.mpm_filters and _weaker(d.source, d.target):
                cost += self.count(d.target.expanded(), frozenset(d.source.types))  # the filter node
            return cost
        if self.mpm_filters:
            return 0.0 if all(isinstance(f, WindowFilter) for f in d.filters) else self.count(d.target)
        return sum(self.count(f.output) for f in d.filters)


def _weaker(source: Query, target: Query) -> bool:
    """Whether ``source`` checks less than ``target`` among the source's types (precedence pairs,
    conditions; :func:`algorithms.motto.query.order_and_conditions`)."""
    s = order_and_conditions(source)
    t = order_and_conditions(target, source.types)
    return s is not None and t is not None and s != t


def _best_tree(model: ClauseCostModel, units: tuple[int, ...], free_unit: int, charge_leaves: bool = True) -> float:
    """Subset DP over the units: ``best(U) = PM(U) + min_{A|B = U} best(A) + best(B)``; a single
    unit costs its ``PM`` (a primitive leaf, ``W r_i``), or 0 (the free unit, and every primitive
    leaf without ``charge_leaves``)."""
    n = len(units)
    pm = {}

    def mask(u: int) -> int:
        m = 0
        for i in range(n):
            if u >> i & 1:
                m |= units[i]
        return m

    @lru_cache(maxsize=None)
    def best(u: int) -> float:
        if u & (u - 1) == 0:
            i = u.bit_length() - 1
            return 0.0 if i == free_unit or not charge_leaves else _pm(u)
        lo = u & -u
        out = math.inf
        sub = (u - 1) & u
        while sub:
            if sub & lo:  # each split once: the part holding the lowest unit
                out = min(out, best(sub) + best(u ^ sub))
            sub = (sub - 1) & u
        return _pm(u) + out

    def _pm(u: int) -> float:
        if u not in pm:
            pm[u] = math.exp(float(model.log_node(mask(u))))
        return pm[u]

    return best((1 << n) - 1)
