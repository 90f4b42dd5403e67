"""Exact dynamic programming over variable subsets (Selinger et al. [46] as used by JQPG 6.1).

Both JQPG cost functions are sums of ``PM(S)`` over the variable sets ``S`` of a plan's prefixes or
nodes (:mod:`algorithms.cost_model`), which gives the classic bitmask recurrences

    left-deep:  best(S) = PM(S) + min_{i in S} [ best(S - i) + alpha * lat(S - i, i) ]
    bushy:      best(S) = PM(S) + min_{L u R = S} [ best(L) + best(R) + alpha * lat(L, R) ]

with the latency terms of JQPG 5.1 (adding ``i`` after ``T_n`` costs ``PM({i})``; joining ``L``,
which holds ``T_n``, with ``R`` costs ``PM(R)``).  Both are evaluated layer by layer (all sets of
one size at a time) with numpy: the left-deep DP touches ``n 2**(n-1)`` (set, last element) pairs,
the bushy DP the ``3**n / 2`` (set, split) pairs with the split's left part holding the set's
lowest element.  Costs are added as plain floats when every value lies well inside the float64
range and as logarithms (``np.logaddexp``) otherwise, so overflow and underflow never change the
answer.  A feasible plan from a heuristic gives an upper bound that prunes whole sets before their
splits are enumerated (exact: a pruned set cannot be part of an optimal plan).

Equal costs (:mod:`algorithms.plan_ranking`): the recurrences give the least cost ``OPT``; the plan
is then read top down as the plan of least canonical key among all plans that cost at most
``OPT * (1 + COST_RTOL)`` -- whatever rounding the CPU did to the costs.  Each step takes the
choice of least key (left-deep: the later-declared variable last; bushy: the split whose part
holding the lowest-declared leaf has the least leaf bitmask) among those whose cheapest completion
fits the budget that is left, and passes the budget on (:func:`left_deep_dp`, :func:`bushy_dp`).
Choosing the least-key candidate among the near-cheapest at each set instead would not do: a term
common to every plan (``PM`` of the whole clause) can dwarf a difference of the set's own terms.
"""

from __future__ import annotations

import math

import numpy as np

from algorithms.cost_model import (
    TABLE_LIMIT,
    ClauseCostModel,
    set_positions,
    subsets_by_size,
)
from algorithms.costs import (
    log_latency_order,
    log_latency_tree,
    log_throughput_order,
    log_throughput_tree,
)
from algorithms.plan_ranking import COST_RTOL, tie_bound
from algorithms.planners.base import Unit
from cep.plans import Tree

CHUNK_ELEMENTS = 1 << 16  # (set, candidate) pairs per numpy call: small enough to stay in cache
LINEAR_LOG_LIMIT = 600.0  # largest |log-value| added as a plain float
# relative slack on the upper bound: far above the tie tolerance, so that no plan tied with the
# optimum loses a set to pruning
PRUNE_MARGIN = 1000 * COST_RTOL


class _Arithmetic:
    """Addition of costs either as floats or as logarithms."""

    def __init__(self, log_values: list[np.ndarray], log_alpha: float, terms: int) -> None:
        finite = [v[np.isfinite(v)] for v in log_values]
        top = max((float(v.max()) for v in finite if v.size), default=0.0)
        bottom = min((float(v.min()) for v in finite if v.size), default=0.0)
        top += max(log_alpha, 0.0) + math.log(4 * terms + 4)
        bottom += min(log_alpha, 0.0) if np.isfinite(log_alpha) else 0.0
        # plain floats only when no value overflows or underflows (a cost rounded to 0 would tie
        # with a true 0)
        self.linear = top < LINEAR_LOG_LIMIT and bottom > -LINEAR_LOG_LIMIT
        self.alpha = self.value(np.float64(log_alpha))
        self.zero = 0.0 if self.linear else -math.inf

    def value(self, log_x):
        return np.exp(log_x) if self.linear else log_x

    def add(self, a, b):
        return a + b if self.linear else np.logaddexp(a, b)

    def scale_alpha(self, x):
        return self.alpha * x if self.linear else self.alpha + x

    def relative(self, x, ref):
        """``x`` as a plain float relative to ``ref`` (both in this arithmetic; ``ref`` the optimum,
        so the plans near it come out near 1 whatever the range of the costs; a ``ref`` of 0 leaves
        ``x`` as it is)."""
        if self.linear:
            return x / ref if ref > 0 else x
        with np.errstate(over="ignore"):
            return np.exp(x - ref) if ref > -math.inf else np.exp(x)


def _expand(unit_masks: list[int]) -> np.ndarray:
    """For every subset ``U`` of the units (bit ``u`` = unit ``u``): the union of their variable masks."""
    out = np.zeros(1, dtype=np.int64)
    for m in unit_masks:
        out = np.concatenate((out, out | np.int64(m)))
    return out


def _row_chunks(rows: int, width: int):
    step = max(1, CHUNK_ELEMENTS // max(width, 1))
    for lo in range(0, rows, step):
        yield lo, min(rows, lo + step)


def left_deep_dp(model: ClauseCostModel, prefix: list[int], upper_bound: list[int] | None = None, *,
                 variables: list[int] | None = None) -> list[int]:
    """The order minimizing ``Cost_ord + alpha * Cost_lat_ord`` among those starting with ``prefix``.

    ``variables`` (default: all of the clause's) restricts the order to a sub-pattern: the terms are
    those of its own prefixes (the best plan of a sub-pattern, MCEP 4.2); ``prefix`` lies inside it.
    ``upper_bound``, a feasible order of the whole clause (e.g. GREEDY's), prunes every prefix set
    ``S`` with ``PM(S) > cost(upper_bound) - PM(all) - cost(prefix)``: such a set cannot be a prefix
    of an optimal order, whose other terms are non-negative.
    """
    assert upper_bound is None or variables is None, "a bound is a plan of the whole clause"
    if model.n <= TABLE_LIMIT:
        model.table()
    rest = [i for i in (range(model.n) if variables is None else sorted(variables)) if i not in prefix]
    m = len(rest)
    if m == 0:
        return list(prefix)
    base_mask = sum(1 << i for i in prefix)
    g_log = model.table() if variables is None and not prefix else model.log_node(_expand([1 << i for i in rest]) | np.int64(base_mask))
    leaf_log = model.log_leaf[rest]
    pre_names = [model.variables[i] for i in prefix]
    base_log = -math.inf
    if prefix:
        base_log = log_throughput_order(model, pre_names)
        if model.last in prefix:
            base_log = float(np.logaddexp(base_log, model.log_alpha + log_latency_order(model, pre_names)))
    ar = _Arithmetic([g_log, leaf_log, np.array([base_log])], model.log_alpha, 2 * model.n)
    g, leaf = ar.value(g_log), ar.value(leaf_log)
    with_latency = model.log_alpha > -math.inf
    last_bit = rest.index(model.last) if model.last in rest else -1
    slack = None
    if upper_bound is not None:
        ub = _order_log_cost(model, upper_bound)
        slack = _log_slack(ub, [g_log[-1], base_log])

    best = np.full(1 << m, np.inf)
    best[0] = ar.value(np.float64(base_log))

    def candidates(s: np.ndarray, k: int):
        """For sets ``s`` of ``k`` variables: each candidate last variable (later-declared first),
        the set before it, the cost of the best order of ``s`` ending with it (without ``PM(s)``), and
        the latency term it adds (None without latency)."""
        pos = set_positions(s, m, k)[:, ::-1]
        prev = s[:, None] - (np.int64(1) << pos)
        cand = np.take(best, prev, mode="clip")
        lat = None
        if with_latency:
            after_last = np.full(prev.shape, model.last in prefix) | (
                ((prev >> last_bit) & 1).astype(bool) if last_bit >= 0 else False
            )
            lat = np.where(after_last, ar.scale_alpha(leaf[pos]), ar.zero)
            cand = np.where(after_last, ar.add(cand, lat), cand)
        return pos, prev, cand, lat

    for k, sets in subsets_by_size(m):
        if k == 0:
            continue
        if slack is not None and k < m:
            sets = sets[g_log[sets] <= slack]
        for lo, hi in _row_chunks(len(sets), k):
            s = sets[lo:hi]
            best[s] = ar.add(g[s], candidates(s, k)[2].min(axis=1))

    # the order of least key among those within the tolerance of the optimum, read from its end
    ref = best[-1]
    budget = tie_bound(ar.relative(ref, ref))
    order: list[int] = []
    x = (1 << m) - 1
    while x:
        pos, prev, cand, lat = candidates(np.array([x], dtype=np.int64), x.bit_count())
        total = ar.relative(ar.add(g[x], cand[0]), ref)
        fits = np.flatnonzero(total <= budget)
        j = int(fits[0]) if len(fits) else int(np.argmin(total))  # (none fits: rounding at a full budget)
        budget -= ar.relative(g[x], ref) + (ar.relative(lat[0, j], ref) if lat is not None else 0.0)
        order.append(rest[int(pos[0, j])])
        x = int(prev[0, j])
    return list(prefix) + order[::-1]


def bushy_dp(model: ClauseCostModel, units: list[Unit], upper_bound: Tree | None = None) -> Tree:
    """The tree minimizing ``Cost_tree + alpha * Cost_lat_tree`` over all bushy trees whose leaves
    are the units (each unit's own tree kept whole).  Units that do not cover the clause give the best
    tree of that sub-pattern (MCEP 4.2, "the best plan of P"; its latency term only if it holds ``T_n``).

    ``upper_bound``, a feasible tree of the whole clause (e.g. ZSTREAM-ORD's), prunes every set ``S``
    with ``PM(S) > cost(upper_bound) - PM(all) - sum of the units' costs``: no optimal tree has such a node.
    """
    m = len(units)
    if m == 1:
        return units[0].tree
    if model.n <= TABLE_LIMIT:
        model.table()
    masks = [u.mask for u in units]
    assert upper_bound is None or sum(masks) == (1 << model.n) - 1, "a bound is a plan of the whole clause"
    identity = m == model.n and all(mk == 1 << u for u, mk in enumerate(masks))
    leaf_sets = None if identity else _expand(masks)  # unit set -> its variables' mask
    g_log = model.table() if identity else model.log_node(leaf_sets)
    base_log = np.array([np.logaddexp(u.log_cost, model.log_alpha + u.log_latency) for u in units])
    ar = _Arithmetic([g_log, base_log], model.log_alpha, 2 * model.n)
    g = ar.value(g_log)
    t_bit = next((u for u, mk in enumerate(masks) if mk >> model.last & 1), None)
    with_latency = model.log_alpha > -math.inf and t_bit is not None
    t_unit = np.int64(0) if t_bit is None else np.int64(1) << t_bit

    def latency(subs: np.ndarray, rest: np.ndarray) -> np.ndarray:
        """``alpha * PM`` of the sibling of the part holding ``T_n`` (zero where neither holds it)."""
        left_has = (subs & t_unit) != 0
        sib = np.where(left_has, np.take(g, rest), np.take(g, subs))
        return np.where(left_has | ((rest & t_unit) != 0), ar.scale_alpha(sib), ar.zero)

    slack = None
    if upper_bound is not None:
        slack = _log_slack(_tree_log_cost(model, upper_bound), [g_log[-1], *base_log])

    best = np.full(1 << m, np.inf)  # best[0] = inf rules out the empty split
    for u in range(m):
        best[1 << u] = ar.value(base_log[u])
    # preallocated buffers: fresh chunk-sized arrays would page-fault on every call
    size = max(CHUNK_ELEMENTS, 1 << (m - 1))
    buf_subs, buf_rest = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)
    buf_left, buf_right = np.empty(size), np.empty(size)
    for k, sets in subsets_by_size(m):
        if k < 2:
            continue
        if slack is not None and k < m:
            sets = sets[g_log[sets] <= slack]
        width = 1 << (k - 1)
        for lo, hi in _row_chunks(len(sets), width):
            s = sets[lo:hi]
            shape = (len(s), width)
            pos = set_positions(s, m, k)
            subs = buf_subs[: len(s) * width].reshape(shape)  # submasks holding the lowest unit
            subs[:, 0] = s & -s
            w = 1
            for c in range(1, k):
                np.add(subs[:, :w], np.int64(1) << pos[:, c : c + 1], out=subs[:, w : 2 * w])
                w *= 2
            rest = np.bitwise_xor(s[:, None], subs, out=buf_rest[: subs.size].reshape(shape))  # last column: 0
            left = np.take(best, subs, out=buf_left[: subs.size].reshape(shape), mode="clip")
            right = np.take(best, rest, out=buf_right[: subs.size].reshape(shape), mode="clip")
            cand = np.add(left, right, out=left) if ar.linear else np.logaddexp(left, right, out=left)
            if with_latency:
                cand = ar.add(cand, latency(subs, rest))
            best[s] = ar.add(g[s], cand.min(axis=1))
    assert best[-1] < np.inf, "the upper bound pruned every tree"

    # the tree of least key among those within the tolerance of the optimum, read from the root:
    # at each node the split whose part holding the lowest unit has the least variable mask among
    # those whose cheapest completion fits; that part gets the budget first (its key comes first)
    ref = best[-1]

    def build(x: int, budget: float) -> tuple[Tree, float]:
        """The least-key tree over the unit set ``x`` costing at most ``budget`` (relative to
        ``ref``), and its relative cost."""
        if x & (x - 1) == 0:
            return units[x.bit_length() - 1].tree, float(ar.relative(best[x], ref))
        subs = np.zeros(1, dtype=np.int64) | (x & -x)  # the parts holding x's lowest unit, ascending
        for p in range(((x & -x).bit_length()), m):
            if x >> p & 1:
                subs = np.concatenate((subs, subs + (np.int64(1) << p)))
        subs = subs[:-1]
        rest = x ^ subs
        lat = latency(subs, rest) if with_latency else np.full(len(subs), ar.zero)
        total = ar.relative(ar.add(g[x], ar.add(ar.add(best[subs], best[rest]), lat)), ref)
        fits = total <= budget
        key = subs if identity else leaf_sets[subs]
        j = int(np.argmin(np.where(fits, key, np.iinfo(np.int64).max))) if fits.any() else int(np.argmin(total))
        own = ar.relative(g[x], ref) + ar.relative(lat[j], ref)
        left, left_cost = build(int(subs[j]), budget - own - ar.relative(best[rest[j]], ref))
        right, right_cost = build(int(rest[j]), budget - own - left_cost)
        return (left, right), own + left_cost + right_cost

    return build((1 << m) - 1, tie_bound(ar.relative(ref, ref)))[0]


def _order_log_cost(model: ClauseCostModel, order: list[int]) -> float:
    names = [model.variables[i] for i in order]
    return float(np.logaddexp(log_throughput_order(model, names), model.log_alpha + log_latency_order(model, names)))


def _tree_log_cost(model: ClauseCostModel, tree: Tree) -> float:
    return float(np.logaddexp(log_throughput_tree(model, tree), model.log_alpha + log_latency_tree(model, tree)))


def _log_slack(log_upper: float, log_fixed: list[float]) -> float:
    """``log(upper - sum(fixed) + margin * upper)``: the most a pruned-to node may cost."""
    fixed = np.logaddexp.reduce(log_fixed)
    if log_upper == -math.inf:
        return -math.inf
    with np.errstate(divide="ignore"):
        ratio = math.exp(fixed - log_upper) if fixed > -math.inf else 0.0
        return log_upper + math.log(max(1.0 - ratio, 0.0) + PRUNE_MARGIN)
