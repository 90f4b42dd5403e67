"""The JQPG cost models of one DNF clause, reduced to one function of variable subsets.

Every throughput cost in JQPG is a sum, over the prefixes of an order (Cost_ord, Section 3.1) or
over the nodes of a tree (Cost_tree, Section 3.2; MCEP Appendix C), of the expected number of
partial matches binding exactly a set ``S`` of variables.  That number depends only on ``S``:

    PM(S) = prod_{i in S} (W r_i) * prod_{K subset of S} sel_K * prod_{n : D(n) subset of S} q_n
                                                                         (skip-till-any-match)
    m(S)  = min_{i in S} (W r_i) * prod_{K subset of S} sel_K * ...     (skip-till-next-match, 5.2)

so :class:`ClauseCostModel` computes ``log PM(S)`` for any bitmask ``S`` (``log_node``) or for all
``2**n`` of them at once (``table``), and the planners and cost functions only add these values up.

The pieces, with the reading chosen where the papers leave room:

* ``W r_i`` is the expected number of events of the variable's type in a window
  (:mod:`algorithms.window_counts`: count windows, and Kleene variables as the power-set type).
* ``sel_K`` is ``stats.selectivity(K)`` for the variable set ``K`` of each WHERE condition of the
  clause over positive variables (JQPG 2.1 ``c_{i,j}``; conditions over 3+ variables use the
  selectivity of that set).  Filters (``K = {i}``, JQPG's ``c_{i,i}``) are applied where the event
  enters the plan, as in Cost_ord's product over ``i <= j`` and Cost_LDJ's ``C_1 = |R_i1| f_{i1,i1}``:
  the first step of an order and every leaf of a tree (the selection is pushed into each relation
  of the JQPG reduction, whose join costs tests/algorithms/join_costs.py computes).
* Negation (JQPG Section 4) is checked "at the earliest point possible, when all positive events it
  depends on are already received": every partial match whose variables include ``D(n)``
  (:meth:`cep.dnf.SimplePattern.negation_dependencies`) has passed the check, which keeps it with
  probability ``q_n = (1 - e^{-lam}) / lam`` where ``lam = W r_n * prod sel`` (the selectivities of
  ``n``'s conditions) is the expected number of candidate violating events in a window.  This is the
  probability of no Poisson arrival in an interval of uniformly random length in ``[0, W]`` -- the
  papers give no formula; ``q_n`` is 1 when ``lam`` is 0 and about ``1/lam`` when it is large.
* Implicit SEQ order (JQPG Section 4 rewrites ``SEQ`` as ``AND`` plus ``e_i.ts < e_j.ts`` predicates
  but its cost formulas only use the selectivities of the WHERE conditions): by default no
  selectivity is applied to the order, as in the paper.  With ``seq_selectivity=True`` the events of
  ``S`` respect the clause's precedence with probability ``e(S) / |S|!`` under random arrival, where
  ``e(S)`` is the number of linear extensions of the precedence restricted to ``S`` (``1/|S|!`` for a
  sequence; 1/2 for a pair).
* Contiguity (JQPG 5.2): the skip-till-next-match model plus a condition "adjacent in the stream"
  for each pair of potentially neighbouring variables (no positive variable must lie between
  them), with selectivity ``1/M`` for an ordered pair and ``2/M`` for an unordered one (capped at 1),
  ``M`` the expected number of stream events in a window.  Partition contiguity compares the
  partition first and the per-partition position second: ``(1/p) * (p/M) = 1/M`` for ``p`` equally
  likely partitions, the same as strict contiguity.

Latency (JQPG 5.1) needs ``T_n``, the last event of the clause: for a sequence the last variable;
for a clause whose last event is not determined (AND) the paper suggests an output profiler that
records the most frequent arrival order -- without one we take the declaration order, i.e. the
last-declared variable among those no positive variable must follow.
"""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np

from algorithms.window_counts import (
    log_window_counts,
    window_event_count,
    window_total_count,
)
from cep.dnf import SimplePattern
from cep.errors import ConfigError, PlanError
from cep.pattern import Strategy
from cep.statistics import Statistics

ANY, NEXT, CONTIGUITY = "any", "next", "contiguity"
THROUGHPUT_MODELS = (ANY, NEXT, CONTIGUITY)

MAX_VARIABLES = 62  # variable sets are int64 bitmasks
# Largest clause for which the 2**n subset table may be built (2**26 floats = 512 MiB).
TABLE_LIMIT = 26


def _throughput_model_of(strategy: Strategy) -> str:
    """The JQPG 5.2 throughput model of a selection strategy."""
    if strategy is Strategy.ANY:
        return ANY
    if strategy is Strategy.NEXT:
        return NEXT
    return CONTIGUITY


def _popcount(x: np.ndarray) -> np.ndarray:
    return np.bitwise_count(np.asarray(x, dtype=np.int64)).astype(np.int64)


class ClauseCostModel:
    """``log PM(S)`` of one clause for bitmasks ``S`` over its positive variables (bit ``i`` is
    ``variables[i]``, declaration order), plus what the latency cost needs.

    ``alpha`` weighs the latency cost (JQPG 5.1: ``Cost = Cost_trpt + alpha * Cost_lat``);
    ``throughput`` overrides the model chosen by the clause's selection strategy.
    """

    def __init__(
        self,
        sp: SimplePattern,
        stats: Statistics,
        *,
        alpha: float = 0.0,
        seq_selectivity: bool = False,
        throughput: str | None = None,
    ) -> None:
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not math.isfinite(alpha) or alpha < 0:
            raise ConfigError(f"alpha (latency weight) must be a finite number >= 0, got {alpha!r}")
        if throughput is not None and throughput not in THROUGHPUT_MODELS:
            raise ConfigError(f"unknown throughput model {throughput!r}; expected one of {', '.join(THROUGHPUT_MODELS)}")
        stats.require_types(v.type for v in sp.variables)
        self.sp = sp
        self.stats = stats
        self.alpha = float(alpha)
        self.log_alpha = math.log(self.alpha) if self.alpha > 0 else -math.inf
        self.seq_selectivity = bool(seq_selectivity)
        self.throughput = throughput or _throughput_model_of(sp.strategy)
        self.variables: tuple[str, ...] = sp.positive
        self.n = len(self.variables)
        assert self.n >= 1, f"clause {sp.name} has no positive variable"
        if self.n > MAX_VARIABLES:
            raise PlanError(f"{sp.name}: {self.n} positive variables; the cost model handles at most {MAX_VARIABLES}")
        self.index = {v: i for i, v in enumerate(self.variables)}
        self._shifts = np.arange(self.n, dtype=np.int64)
        self._table: np.ndarray | None = None

        counts = log_window_counts(sp, stats)
        self.log_count = np.array([counts[v] for v in self.variables], dtype=np.float64)
        self.log_filter = np.zeros(self.n)  # finite: a zero selectivity goes to zero_masks instead
        self.pair = np.zeros((self.n, self.n))  # symmetric, zero diagonal: log selectivity of {i, j}
        self.multi: list[tuple[int, float]] = []  # (mask, log sel) of keys over 3+ variables
        self.zero_masks: list[int] = []  # PM(S) = 0 whenever S contains one of these
        for i, c in enumerate(self.log_count):
            if c == -math.inf:
                self.zero_masks.append(1 << i)
        self._add_condition_selectivities()
        if self.throughput == CONTIGUITY:
            self._add_adjacency_selectivities()
        self.negations: list[tuple[int, float]] = [self._negation_term(n) for n in sp.negated]
        self.order_kind = self._order_kind()
        last = sp.last_variables[-1] if sp.last_variables else self.variables[-1]
        self.last = self.index[last]
        # a zero count lives in zero_masks; the arithmetic uses a finite stand-in (no inf - inf)
        self._count_finite = np.where(np.isfinite(self.log_count), self.log_count, 0.0)

    # ---- construction ---------------------------------------------------------------------------
    def mask_of(self, names) -> int:
        m = 0
        for v in names:
            m |= 1 << self.index[v]
        return m

    def _add_condition_selectivities(self) -> None:
        keys = {c.key: c.variables for c in self.sp.positive_conditions}
        for key, vs in sorted(keys.items()):
            sel = self.stats.selectivity(vs)
            lsel = math.log(sel) if sel > 0 else -math.inf
            idx = sorted(self.index[v] for v in vs)
            if lsel == -math.inf:
                self.zero_masks.append(self.mask_of(vs))
                continue
            if len(idx) == 1:
                self.log_filter[idx[0]] += lsel
            elif len(idx) == 2:
                i, j = idx
                self.pair[i, j] += lsel
                self.pair[j, i] += lsel
            else:
                self.multi.append((self.mask_of(vs), lsel))

    def _add_adjacency_selectivities(self) -> None:
        m_events = window_total_count(self.stats, self.sp.window)
        prec = self.sp.positive_precedence
        pos = self.variables
        for a in range(self.n):
            for b in range(a + 1, self.n):
                u, v = pos[a], pos[b]
                ordered = (u, v) in prec or (v, u) in prec
                lo, hi = ((u, v) if (u, v) in prec else (v, u)) if ordered else (u, v)
                between = any((lo, w) in prec and (w, hi) in prec for w in pos) if ordered else False
                if between:
                    continue
                sel = min(1.0, (1.0 if ordered else 2.0) / m_events) if m_events > 0 else 1.0
                self.pair[a, b] += math.log(sel)
                self.pair[b, a] += math.log(sel)

    def _negation_term(self, neg: str) -> tuple[int, float]:
        sp = self.sp
        lam = window_event_count(sp.type_of(neg), self.stats, sp.window)
        allowed = set(self.variables) | {neg}
        keys = {c.key: c.variables for c in sp.negation_conditions(neg) if c.variables <= allowed}
        for vs in keys.values():
            lam *= self.stats.selectivity(vs)
        log_q = 0.0 if lam <= 0 else math.log(-math.expm1(-lam)) - math.log(lam)
        return self.mask_of(sp.negation_dependencies(neg)), log_q

    def _order_kind(self) -> str | None:
        if not self.seq_selectivity or self.sp.is_conjunction:
            return None
        return "chain" if self.sp.is_sequence else "poset"

    @cached_property
    def succ_masks(self) -> np.ndarray:
        """For each variable, the mask of positive variables that must follow it."""
        out = np.zeros(self.n, dtype=np.int64)
        for u, v in self.sp.positive_precedence:
            out[self.index[u]] |= 1 << self.index[v]
        return out

    # ---- evaluation -----------------------------------------------------------------------------
    @property
    def has_table(self) -> bool:
        return self._table is not None

    def table(self) -> np.ndarray:
        """``log PM(S)`` for every ``S`` in ``0 .. 2**n - 1`` (entry 0 is 0 and never used)."""
        if self._table is None:
            if self.n > TABLE_LIMIT:
                raise PlanError(f"{self.sp.name}: {self.n} variables exceed the subset-table limit of {TABLE_LIMIT}")
            self._table = self._build_table()
        return self._table

    def _build_table(self) -> np.ndarray:
        n = self.n
        additive = np.zeros(1)
        minimum = np.full(1, np.inf)
        for i in range(n):
            pair_sum = np.zeros(1)
            for j in range(i):
                pair_sum = np.concatenate((pair_sum, pair_sum + self.pair[i, j]))
            if self.throughput == ANY:
                step = self._count_finite[i] + self.log_filter[i]
            else:
                step = self.log_filter[i]
                minimum = np.concatenate((minimum, np.minimum(minimum, self._count_finite[i])))
            additive = np.concatenate((additive, additive + step + pair_sum))
        t = additive if self.throughput == ANY else additive + minimum
        t[0] = 0.0
        idx = np.arange(1 << n, dtype=np.int64)
        for mask, lsel in self.multi:
            t[(idx & mask) == mask] += lsel
        for mask, lq in self.negations:
            t[(idx & mask) == mask] += lq
        if self.order_kind == "chain":
            t -= _log_factorials(n)[_popcount(idx)]
        elif self.order_kind == "poset":
            t += self._log_linear_extension_table() - _log_factorials(n)[_popcount(idx)]
        for mask in self.zero_masks:
            t[(idx & mask) == mask] = -math.inf
        t[0] = 0.0
        return t

    def _log_linear_extension_table(self) -> np.ndarray:
        """``log e(S)``: linear extensions of the precedence restricted to ``S``, for every ``S``
        (``e(S) = sum over maximal v of S of e(S - v)``)."""
        n = self.n
        out = np.zeros(1 << n)
        succ = self.succ_masks
        for k, sets in subsets_by_size(n):
            if k == 0:
                continue
            pos = set_positions(sets, n, k)
            prev = sets[:, None] - (np.int64(1) << pos)
            maximal = (sets[:, None] & succ[pos]) == 0
            out[sets] = np.logaddexp.reduce(np.where(maximal, out[prev], -math.inf), axis=1)
        return out

    def log_node(self, masks) -> np.ndarray:
        """``log PM(S)`` for an array of bitmasks (any shape)."""
        masks = np.asarray(masks, dtype=np.int64)
        if self._table is not None:
            return self._table[masks]
        if self.order_kind == "poset":
            return self.table()[masks]
        flat = masks.reshape(-1)
        uniq, inverse = np.unique(flat, return_inverse=True)
        step = 1 << 16
        values = np.concatenate([self._direct(uniq[i : i + step]) for i in range(0, len(uniq), step)] or [np.zeros(0)])
        return values[inverse].reshape(masks.shape)

    def _direct(self, masks: np.ndarray) -> np.ndarray:
        """``log PM`` of ``masks`` added up in exactly the order :meth:`_build_table` adds them, so
        that both give the same bits: per variable ``i`` of the set, ascending, ``+ step_i`` and then
        ``+`` the sum of ``pair[i, j]`` over the set's ``j < i``, ascending.  Both sums run in that
        fixed order (absent terms add an exact 0), not as a matrix product, whose BLAS kernel would
        sum in an order it picks by CPU."""
        n = self.n
        bits = ((masks[:, None] >> self._shifts) & 1).astype(bool)
        step = self._count_finite + self.log_filter if self.throughput == ANY else self.log_filter
        pair_sum = np.zeros((len(masks), n))  # [r, i]: over the set's j < i, j ascending
        for j in range(n - 1):
            pair_sum += bits[:, j : j + 1] * self._pair_below[j]
        terms = np.zeros((len(masks), 2 * n))  # per variable i: step_i, then its pair sum
        terms[:, 0::2] = np.where(bits, step, 0.0)
        terms[:, 1::2] = np.where(bits, pair_sum, 0.0)
        out = np.cumsum(terms, axis=1)[:, -1]
        if self.throughput != ANY:
            out += np.where(bits, self._count_finite, np.inf).min(axis=1)
        for mask, lsel in self.multi:
            out += np.where((masks & mask) == mask, lsel, 0.0)
        for mask, lq in self.negations:
            out += np.where((masks & mask) == mask, lq, 0.0)
        if self.order_kind == "chain":
            out -= _log_factorials(self.n)[_popcount(masks)]
        for mask in self.zero_masks:
            out = np.where((masks & mask) == mask, -math.inf, out)
        return out

    @cached_property
    def _pair_below(self) -> np.ndarray:
        """Row ``j``: ``pair[i, j]`` for ``i > j``, 0 otherwise (what variable ``j`` adds to the pair
        sums of the later variables)."""
        return np.where(self._shifts[None, :] > self._shifts[:, None], self.pair.T, 0.0)

    @cached_property
    def log_leaf(self) -> np.ndarray:
        """``log PM({i})`` for each variable: the events a leaf (or the first step) holds."""
        return self.log_node(np.int64(1) << self._shifts)


def _log_factorials(n: int) -> np.ndarray:
    return np.array([math.lgamma(k + 1.0) for k in range(n + 1)])


def subsets_by_size(n: int):
    """Yield ``(k, masks)``: the bitmasks over ``n`` bits with ``k`` bits set, ascending, k = 0..n."""
    pc = np.bitwise_count(np.arange(1 << n, dtype=np.int64)).astype(np.uint8)
    for k in range(n + 1):
        yield k, np.flatnonzero(pc == k).astype(np.int64)


def set_positions(sets: np.ndarray, n: int, k: int) -> np.ndarray:
    """For masks that all have ``k`` bits set: the positions of their bits, ascending, as (len, k)."""
    bits = ((sets[:, None] >> np.arange(n, dtype=np.int64)) & 1).astype(bool)
    return np.nonzero(bits)[1].reshape(len(sets), k).astype(np.int64)
