"""The compiled per-event loop of the lazy NFA and the tree evaluator: one generic kernel that interprets a
plan encoded as arrays (:class:`evaluators.program.PlanTables`), compiled once by numba and cached on disk.

Why one generic kernel (measured, ``docs/engine.md``): compiling a kernel per plan shape costs seconds
per shape in every fresh worker process, and experiments run thousands of cells with different plans;
the generic kernel is compiled once per machine (``cache=True``) and loaded from the cache in well under a
second per process.  numba rather than Cython: within 1.3-1.45x of Cython's speed on the same join
kernel, without a C toolchain at install time or a build step per platform.  Everything numba compiles
lives in this one file, because numba's disk cache notices edits only to the file that defines a
function (an edit to a helper in another file would leave stale callers cached).

The data (cep.semantics defines what a match is; :mod:`evaluators.join_plan` where each check goes).
Events are indices ``j`` into the stream filtered to the pattern's types, with ``ts``, ``key`` (the window
key: timestamp, or stream position for count windows), ``pos`` (stream position) and the attribute
columns.  Every node of a join tree except the root has a *store*: rows of int32 ``[mx, m, slot, ...]``
where ``mx`` is the newest event of the instance (so rows are appended in order of ``mx``), ``m`` the
oldest (the instance expires when ``m`` leaves the window), and the slots follow the node's leaves: an
event index, or for a Kleene variable the id of a subset in the *Kleene pool* (``parent, first, last,
length``: a subset is its parent subset plus its last event).

Candidates (JQPG Sections 2.2-2.3; the join candidates the cost models count).  A new instance of a node
is joined with the rows of its sibling's store that the window and the SEQ order allow: the store is
searched by binary search on ``mx`` (rows older than the window frontier ``fp``) and on ``ts[mx]`` (the
sibling's events must follow an event of the new instance: a lower bound; must precede one, when the
sibling's newest event is the one that must precede: an upper bound); rows inside those bounds whose
oldest event left the window, or that break a SEQ order pair placed at the node, are skipped.  When the
node holds an equality between an expression of each child's variables, the sibling's store is bucketed
by its side's value (a hash table) and the new instance reads only its bucket, newest first.  ``work``
counts the candidates that pass the window and the order: the combinations on which the node's other
checks (conditions, contiguity, distinct events, negation) run -- the pairs the cost models count
before the conditions' selectivities.

Per event: the window frontier moves (expiring instances exactly, by ``cnt[m]``), parked matches whose
release point has come are released, the event feeds every negated variable of its type (kill checks
against parked matches) and then every positive variable of its type: its leaf, then the join path to
the root, level by level (the new rows of a node are the last rows of its store).  Matches complete at
the root; a clause with negation parks them until their release point.  At the end of the event its
matches are reported: sorted into the canonical order when they are collected or selected
(skip-till-next-match accepts a match none of whose events is consumed, then purges every stored row
holding a consumed event: cep.semantics, "Selection strategies").

Latency.  A match's *latency work* is the join candidates examined on its own path from its last event's
arrival to its report (JQPG 5.1: a partial match moving up "is compared to all partial matches currently
buffered" on the sibling at each level), plus, for a match parked for negation, the work of the events
processed until its release.  Wall-clock latency is read with ``clock_gettime`` (a call the kernel links
by name, so the compiled code stays cacheable) at each event's arrival and at each report.

State metering (``peak_memory_bytes``): the bytes of the live rows of every store (4 bytes per int32
column), a Kleene subset counted with its pool entry (16 bytes); expired rows not yet compacted, hash
buckets, the negation buffers and parked matches are not state of the match search and are not counted.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.typed import Dict, List

# ---- the codes shared with evaluators.program (defined here: numba's cache sees edits to this file) ----
ANY, NEXT, STRICT, PARTITION = 0, 1, 2, 3
PLAIN, KLEENE, NEGATED = 0, 1, 2
EVENT_STORE, KLEENE_STORE, NODE_STORE = 0, 1, 2
OP_ATTR, OP_CONST, OP_NEG, OP_ADD, OP_SUB, OP_MUL, OP_DIV = 0, 1, 2, 3, 4, 5, 6
CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_EQ, CMP_NE, CMP_FALSE, CMP_TRUE = 0, 1, 2, 3, 4, 5, 6, 7
RELEASE_NOW, RELEASE_AFTER_TS, RELEASE_WINDOW_TIME, RELEASE_WINDOW_COUNT = 0, 1, 2, 3
(I_CLAUSES, I_VARS, I_NODES, I_STORES, I_STRATEGY, I_SEQ_STRICT, I_COUNT_WINDOW, I_MAX_SLOTS, I_NEGS, I_WINDOW_N, I_POSITION_SPAN,
 I_NFA) = range(12)
N_INTS = 12

# ---- counters (the int64 array C the kernel returns) ------------------------------------------------
(C_LIVE, C_BUF, C_WORK, C_PEAK, C_PEAKB, C_PEAKS, C_TOT, C_PURGED, C_NBYTES, C_PEAKBYTES, C_MATCHES, C_LATWORK,
 C_FP, C_NPEND, C_NBATCH, C_NOUT, C_NOUTE, C_NLAT, C_POOL, C_STATUS, C_STATUS_VALUE, C_PROCESSED, C_CREATED) = range(23)
N_COUNTERS = 23
STATUS_OK, STATUS_PARTIAL_MATCHES, STATUS_WORK = 0, 1, 2

HASH_TYPE = types.DictType(types.float64, types.int64)  # a store's hash buckets: key -> newest row
STORE_TYPE = types.int32[:, ::1]
POOL_BYTES = 16  # parent, first, last, length (int32)
ROW_BYTES = 4  # per int32 column of a store row


@intrinsic
def now_ns(typingctx):
    """Monotonic clock in nanoseconds (``clock_gettime(CLOCK_MONOTONIC)``, linked by symbol name)."""
    sig = types.int64()

    def codegen(context, builder, signature, args):
        i64, i32 = ir.IntType(64), ir.IntType(32)
        ts_t = ir.LiteralStructType([i64, i64])
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i32, [i32, ts_t.as_pointer()]), "clock_gettime")
        slot = cgutils.alloca_once(builder, ts_t)
        builder.call(fn, [ir.Constant(i32, 1), slot])
        v = builder.load(slot)
        return builder.add(builder.mul(builder.extract_value(v, 0), ir.Constant(i64, 1_000_000_000)), builder.extract_value(v, 1))

    return sig, codegen


# ---------------------------------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------------------------------
@nb.njit(cache=True)
def _grow2(a, rows):
    out = np.empty((max(rows, 2 * a.shape[0]), a.shape[1]), a.dtype)
    out[: a.shape[0]] = a
    return out


@nb.njit(cache=True)
def _grow1(a, n):
    out = np.empty(max(n, 2 * a.shape[0]), a.dtype)
    out[: a.shape[0]] = a
    return out


@nb.njit(cache=True)
def _ring_grow(a, fp, j, mask):
    """A ring of twice the size holding the entries of indices ``fp..j``."""
    out = np.zeros(2 * (mask + 1), a.dtype)
    nmask = 2 * mask + 1
    for m in range(fp, j + 1):
        out[m & nmask] = a[m & mask]
    return out


@nb.njit(cache=True)
def _before(a, b, strict):
    return a < b if strict else a <= b


@nb.njit(cache=True)
def _first_row_at_least(arr, n, lo, bound):
    """First row in ``[lo, n)`` whose column 0 (``mx``) is >= bound (rows are sorted by ``mx``)."""
    hi = n
    while lo < hi:
        mid = (lo + hi) >> 1
        if arr[mid, 0] < bound:
            lo = mid + 1
        else:
            hi = mid
    return lo


@nb.njit(cache=True)
def _first_row_ts(arr, n, lo, ts, bound, strict):
    """First row in ``[lo, n)`` with ``ts[mx] >= bound`` (``> bound`` when strict)."""
    hi = n
    while lo < hi:
        mid = (lo + hi) >> 1
        t = ts[arr[mid, 0]]
        if t < bound or (strict and t == bound):
            lo = mid + 1
        else:
            hi = mid
    return lo


@nb.njit(cache=True)
def _end_row_ts(arr, lo, n, ts, bound, strict):
    """End of the rows in ``[lo, n)`` with ``ts[mx] <= bound`` (``< bound`` when strict)."""
    hi = n
    while lo < hi:
        mid = (lo + hi) >> 1
        t = ts[arr[mid, 0]]
        if t < bound or (not strict and t == bound):
            lo = mid + 1
        else:
            hi = mid
    return lo


@nb.njit(cache=True)
def _search_right(a, n, x):
    """numpy's searchsorted(a[:n], x, side="right")."""
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] <= x:
            lo = mid + 1
        else:
            hi = mid
    return lo


# ---------------------------------------------------------------------------------------------------
# expressions and conditions
# ---------------------------------------------------------------------------------------------------
@nb.njit(cache=True)
def _eval_expr(T, e, attrs, ev, stack):
    """Value of expression ``e`` with variable ``v`` bound to event ``ev[v]``; ok is False when it divides by zero."""
    sp = 0
    for i in range(T.expr_ptr[e], T.expr_ptr[e + 1]):
        op = T.op_code[i]
        if op == OP_ATTR:
            stack[sp] = attrs[T.op_b[i], ev[T.op_a[i]]]
            sp += 1
        elif op == OP_CONST:
            stack[sp] = T.op_f[i]
            sp += 1
        elif op == OP_NEG:
            stack[sp - 1] = -stack[sp - 1]
        else:
            b = stack[sp - 1]
            a = stack[sp - 2]
            sp -= 1
            if op == OP_ADD:
                stack[sp - 1] = a + b
            elif op == OP_SUB:
                stack[sp - 1] = a - b
            elif op == OP_MUL:
                stack[sp - 1] = a * b
            else:
                if b == 0.0:
                    return 0.0, False
                stack[sp - 1] = a / b
    return stack[0], True


@nb.njit(cache=True)
def _compare(op, a, b):
    if op == CMP_LT:
        return a < b
    if op == CMP_LE:
        return a <= b
    if op == CMP_GT:
        return a > b
    if op == CMP_GE:
        return a >= b
    if op == CMP_EQ:
        return a == b
    return a != b


@nb.njit(cache=True)
def _cond_once(T, c, attrs, ev, stack):
    op = T.cond_op[c]
    if op == CMP_FALSE:
        return False
    if op == CMP_TRUE:
        return True
    a, ok = _eval_expr(T, T.cond_left[c], attrs, ev, stack)
    if not ok:
        return False
    b, ok = _eval_expr(T, T.cond_right[c], attrs, ev, stack)
    if not ok:
        return False
    return _compare(op, a, b)


@nb.njit(cache=True)
def _cond_holds(T, c, attrs, ev, kid, pool, stack, cur):
    """Condition ``c`` on the binding: for every element of each Kleene variable it mentions (every
    combination when it mentions several), with ``ev`` of plain variables bound."""
    k0, k1 = T.cond_kleene_ptr[c], T.cond_kleene_ptr[c + 1]
    if k0 == k1:
        return _cond_once(T, c, attrs, ev, stack)
    # odometer over the subsets' chains: cur[i] is the pool node of the i-th Kleene variable
    nk = k1 - k0
    for i in range(nk):
        v = T.cond_kleene[k0 + i]
        cur[i] = kid[v]
        ev[v] = pool[cur[i], 2]
    while True:
        if not _cond_once(T, c, attrs, ev, stack):
            return False
        i = 0
        while i < nk:
            v = T.cond_kleene[k0 + i]
            p = pool[cur[i], 0]
            if p >= 0:
                cur[i] = p
                ev[v] = pool[p, 2]
                break
            cur[i] = kid[v]
            ev[v] = pool[cur[i], 2]
            i += 1
        if i == nk:
            return True


@nb.njit(cache=True)
def _unary_ok(T, v, j, attrs, ev, stack):
    for q in range(T.var_unary_ptr[v], T.var_unary_ptr[v + 1]):
        ev[v] = j
        if not _cond_once(T, T.var_unary[q], attrs, ev, stack):
            return False
    return True


# ---------------------------------------------------------------------------------------------------
# bindings
# ---------------------------------------------------------------------------------------------------
@nb.njit(cache=True)
def _bind_row(T, node, arr, r, ev, kid, lo, hi, pool):
    """Bind the variables of ``node`` to the slots of row ``r`` of its store ``arr``."""
    p0 = T.node_vars_ptr[node]
    for i in range(T.node_vars_ptr[node + 1] - p0):
        v = T.node_vars[p0 + i]
        x = arr[r, 2 + i]
        if T.var_kind[v] == KLEENE:
            kid[v] = x
            lo[v] = pool[x, 1]
            hi[v] = pool[x, 2]
        else:
            ev[v] = x
            lo[v] = x
            hi[v] = x


@nb.njit(cache=True)
def _bind_clause(T, k, row, base, ev, kid, lo, hi, pool):
    """Bind clause ``k``'s positive variables to ``row[base:]`` (declaration order)."""
    p0 = T.clause_pos_ptr[k]
    for i in range(T.clause_pos_ptr[k + 1] - p0):
        v = T.clause_pos[p0 + i]
        x = row[base + i]
        if T.var_kind[v] == KLEENE:
            kid[v] = x
            lo[v] = pool[x, 1]
            hi[v] = pool[x, 2]
        else:
            ev[v] = x
            lo[v] = x
            hi[v] = x


@nb.njit(cache=True)
def _in_subset(pool, s, x):
    while s >= 0:
        e = pool[s, 2]
        if e == x:
            return True
        if e < x:
            return False
        s = pool[s, 0]
    return False


@nb.njit(cache=True)
def _subsets_disjoint(pool, a, b):
    while a >= 0 and b >= 0:
        x, y = pool[a, 2], pool[b, 2]
        if x == y:
            return False
        if x > y:
            a = pool[a, 0]
        else:
            b = pool[b, 0]
    return True


@nb.njit(cache=True)
def _distinct(T, u, v, ev, kid, pool):
    ku, kv = T.var_kind[u] == KLEENE, T.var_kind[v] == KLEENE
    if not ku and not kv:
        return ev[u] != ev[v]
    if ku and kv:
        return _subsets_disjoint(pool, kid[u], kid[v])
    if ku:
        return not _in_subset(pool, kid[u], ev[v])
    return not _in_subset(pool, kid[v], ev[u])


# ---------------------------------------------------------------------------------------------------
# negation (cep.semantics, "Negation")
# ---------------------------------------------------------------------------------------------------
@nb.njit(cache=True)
def _kill_test(T, nb_id, x, ts, key, attrs, ev, kid, lo, hi, pool, L, strict, stack, cur):
    """Does event ``x`` kill the binding through the negated variable of buffer ``nb_id``?
    Returns 1 (kills), 0 (does not), 2 (does not, and no later event of the buffer can)."""
    for q in range(T.neg_same_ptr[nb_id], T.neg_same_ptr[nb_id + 1]):
        v = T.neg_same[q]
        if T.var_kind[v] == KLEENE:
            if _in_subset(pool, kid[v], x):
                return 0
        elif ev[v] == x:
            return 0
    for q in range(T.neg_pred_ptr[nb_id], T.neg_pred_ptr[nb_id + 1]):
        if not _before(ts[hi[T.neg_pred[q]]], ts[x], strict):
            return 0
    for q in range(T.neg_succ_ptr[nb_id], T.neg_succ_ptr[nb_id + 1]):
        if not _before(ts[x], ts[lo[T.neg_succ[q]]], strict):
            return 2
    kmin = np.inf
    kmax = -np.inf
    for q in range(T.neg_dep_ptr[nb_id], T.neg_dep_ptr[nb_id + 1]):
        d = T.neg_dep[q]
        kmin = min(kmin, key[lo[d]])
        kmax = max(kmax, key[hi[d]])
    if key[x] - kmin > L:
        return 2
    if kmax - key[x] > L:
        return 0
    n = T.neg_var[nb_id]
    ev[n] = x
    for q in range(T.neg_cond_ptr[nb_id], T.neg_cond_ptr[nb_id + 1]):
        if not _cond_holds(T, T.neg_cond[q], attrs, ev, kid, pool, stack, cur):
            return 0
    return 1


@nb.njit(cache=True)
def _killed(T, nb_id, buf, nbn, after, ts, key, attrs, ev, kid, lo, hi, pool, L, strict, stack, cur):
    """Does some buffered event of negation buffer ``buf`` later than event ``after`` kill the binding?
    The scan starts where the order and the window allow (binary searches) and stops where they end."""
    a, b = 0, nbn
    while a < b:  # first buffered event > after
        mid = (a + b) >> 1
        if buf[mid] <= after:
            a = mid + 1
        else:
            b = mid
    start = a
    tb = -np.inf
    for q in range(T.neg_pred_ptr[nb_id], T.neg_pred_ptr[nb_id + 1]):
        tb = max(tb, ts[hi[T.neg_pred[q]]])
    kb = -np.inf
    for q in range(T.neg_dep_ptr[nb_id], T.neg_dep_ptr[nb_id + 1]):
        kb = max(kb, key[hi[T.neg_dep[q]]])
    kb -= L
    a, b = start, nbn
    while a < b:
        mid = (a + b) >> 1
        x = buf[mid]
        if ts[x] < tb or (strict and ts[x] == tb) or key[x] < kb:
            a = mid + 1
        else:
            b = mid
    for i in range(a, nbn):
        r = _kill_test(T, nb_id, buf[i], ts, key, attrs, ev, kid, lo, hi, pool, L, strict, stack, cur)
        if r == 1:
            return True
        if r == 2:
            return False
    return False


# ---------------------------------------------------------------------------------------------------
# stores
# ---------------------------------------------------------------------------------------------------
@nb.njit(cache=True)
def _hash_key(T, s, arr, r, attrs, ev, kid, lo, hi, pool, stack):
    _bind_row(T, T.store_node[s], arr, r, ev, kid, lo, hi, pool)
    v, ok = _eval_expr(T, T.store_hash_expr[s], attrs, ev, stack)
    return v + 0.0, ok and v == v  # -0.0 keys as 0.0; NaN never equals


@nb.njit(cache=True)
def _hash_insert(T, s, arr, r, hashes, attrs, ev, kid, lo, hi, pool, stack):
    hc = arr.shape[1] - 1
    k, ok = _hash_key(T, s, arr, r, attrs, ev, kid, lo, hi, pool, stack)
    if not ok:
        arr[r, hc] = -2
        return
    h = hashes[s]
    arr[r, hc] = h[k] if k in h else -1
    h[k] = r


@nb.njit(cache=True)
def _rebuild_hash(T, s, stores, ssize, hashes, attrs, ev, kid, lo, hi, pool, stack):
    if T.store_hash_expr[s] < 0:
        return
    hashes[s].clear()
    arr = stores[s]
    for r in range(ssize[s]):
        _hash_insert(T, s, arr, r, hashes, attrs, ev, kid, lo, hi, pool, stack)


@nb.njit(cache=True)
def _reserve(T, s, stores, ssize, hashes, fp, attrs, ev, kid, lo, hi, pool, stack):
    """Room for one more row in store ``s``: drop expired rows (their count already left ``live``)
    and grow when still more than half full."""
    arr = stores[s]
    n = ssize[s]
    if n < arr.shape[0]:
        return arr
    keep = 0
    for r in range(n):
        if arr[r, 1] >= fp:
            if keep != r:
                arr[keep] = arr[r]
            keep += 1
    ssize[s] = keep
    if 2 * keep > arr.shape[0]:
        arr = _grow2(arr, keep + 1)
        stores[s] = arr
    _rebuild_hash(T, s, stores, ssize, hashes, attrs, ev, kid, lo, hi, pool, stack)
    return arr


@nb.njit(cache=True)
def _row_hits(T, s, arr, r, consumed, pool):
    """Does row ``r`` of store ``s`` hold a consumed event?"""
    node = T.store_node[s]
    p0 = T.node_vars_ptr[node]
    for i in range(T.node_vars_ptr[node + 1] - p0):
        x = arr[r, 2 + i]
        if T.var_kind[T.node_vars[p0 + i]] == KLEENE:
            while x >= 0:
                if consumed[pool[x, 2]]:
                    return True
                x = pool[x, 0]
        elif consumed[x]:
            return True
    return False


@nb.njit(cache=True)
def _purge(T, stores, ssize, hashes, consumed, pool, cnt, cntb, byt, mask, C, attrs, ev, kid, lo, hi, stack):
    """Drop every stored row holding a consumed event (skip-till-next-match)."""
    fp = C[C_FP]
    for s in range(T.ints[I_STORES]):
        arr = stores[s]
        kind = T.store_kind[s]
        size = ROW_BYTES * T.store_width[s] + (POOL_BYTES if kind == KLEENE_STORE else 0)
        keep = 0
        for r in range(ssize[s]):
            if _row_hits(T, s, arr, r, consumed, pool):
                m = arr[r, 1]
                if m >= fp:
                    if kind == EVENT_STORE:
                        cntb[m & mask] -= 1
                        C[C_BUF] -= 1
                    else:
                        cnt[m & mask] -= 1
                        C[C_LIVE] -= 1
                        C[C_PURGED] += 1
                    byt[m & mask] -= size
                    C[C_NBYTES] -= size
            else:
                if keep != r:
                    arr[keep] = arr[r]
                keep += 1
        if keep != ssize[s]:
            ssize[s] = keep
            _rebuild_hash(T, s, stores, ssize, hashes, attrs, ev, kid, lo, hi, pool, stack)


@nb.njit(cache=True)
def _compact_pool(T, stores, ssize, hashes, poolL, C, pend, attrs, ev, kid, lo, hi, stack):
    """Drop the Kleene subsets no stored row or parked match refers to (ids are renumbered; a parent
    always has a smaller id than its extensions)."""
    pool = poolL[0]
    n = C[C_POOL]
    mark = np.zeros(n, np.bool_)
    for s in range(T.ints[I_STORES]):
        arr = stores[s]
        node = T.store_node[s]
        p0 = T.node_vars_ptr[node]
        for i in range(T.node_vars_ptr[node + 1] - p0):
            if T.var_kind[T.node_vars[p0 + i]] == KLEENE:
                for r in range(ssize[s]):
                    if arr[r, 1] >= C[C_FP]:
                        mark[arr[r, 2 + i]] = True
    for e in range(C[C_NPEND]):
        k = pend[e, 0]
        p0 = T.clause_pos_ptr[k]
        for i in range(T.clause_pos_ptr[k + 1] - p0):
            if T.var_kind[T.clause_pos[p0 + i]] == KLEENE:
                mark[pend[e, 1 + i]] = True
    for x in range(n - 1, -1, -1):
        if mark[x] and pool[x, 0] >= 0:
            mark[pool[x, 0]] = True
    new_id = np.full(n, -1, np.int64)
    m = 0
    for x in range(n):
        if mark[x]:
            new_id[x] = m
            pool[m, 0] = -1 if pool[x, 0] < 0 else new_id[pool[x, 0]]
            pool[m, 1] = pool[x, 1]
            pool[m, 2] = pool[x, 2]
            pool[m, 3] = pool[x, 3]
            m += 1
    C[C_POOL] = m
    for s in range(T.ints[I_STORES]):
        arr = stores[s]
        node = T.store_node[s]
        p0 = T.node_vars_ptr[node]
        has = False
        keep = 0
        for r in range(ssize[s]):
            if arr[r, 1] < C[C_FP]:
                continue
            if keep != r:
                arr[keep] = arr[r]
            keep += 1
        for i in range(T.node_vars_ptr[node + 1] - p0):
            if T.var_kind[T.node_vars[p0 + i]] == KLEENE:
                has = True
                for r in range(keep):
                    arr[r, 2 + i] = new_id[arr[r, 2 + i]]
        if keep != ssize[s] or has:
            ssize[s] = keep
            _rebuild_hash(T, s, stores, ssize, hashes, attrs, ev, kid, lo, hi, pool, stack)
    for e in range(C[C_NPEND]):
        k = pend[e, 0]
        p0 = T.clause_pos_ptr[k]
        for i in range(T.clause_pos_ptr[k + 1] - p0):
            if T.var_kind[T.clause_pos[p0 + i]] == KLEENE:
                pend[e, 1 + i] = new_id[pend[e, 1 + i]]


# ---------------------------------------------------------------------------------------------------
# reporting: canonical order, selection, output
# ---------------------------------------------------------------------------------------------------
@nb.njit(cache=True)
def _entry_events(T, row, pool, ev_out):
    """The filtered event indices of a match entry ``row`` ([clause, slots...]), into ``ev_out``; returns
    how many (Kleene elements in stream order)."""
    k = row[0]
    p0 = T.clause_pos_ptr[k]
    n = 0
    for i in range(T.clause_pos_ptr[k + 1] - p0):
        x = row[1 + i]
        if T.var_kind[T.clause_pos[p0 + i]] == KLEENE:
            ln = pool[x, 3]
            q = n + ln - 1
            while x >= 0:
                ev_out[q] = pool[x, 2]
                q -= 1
                x = pool[x, 0]
            n += ln
        else:
            ev_out[n] = x
            n += 1
    return n


@nb.njit(cache=True)
def _entry_keys(T, rows, count, rel, pool, pos, kptr, kbuf, scratch):
    """For each entry, its canonical key material in ``kbuf`` from ``kptr[i]``: the sorted positions
    of its events, then the positions by variable (cep.semantics, "canonical order")."""
    used = 0
    for i in range(count):
        n = _entry_events(T, rows[i], pool, scratch)
        if used + 2 * n > kbuf.shape[0]:
            kbuf = _grow1(kbuf, used + 2 * n)
        kptr[i] = used
        for q in range(n):
            kbuf[used + n + q] = pos[scratch[q]]
        tmp = np.sort(kbuf[used + n : used + 2 * n])
        kbuf[used : used + n] = tmp
        used += 2 * n
    kptr[count] = used
    return kbuf


@nb.njit(cache=True)
def _entry_less(T, a, b, rows, rel, kptr, kbuf, pool):
    if rel[a] != rel[b]:
        return rel[a] < rel[b]
    la = (kptr[a + 1] - kptr[a]) // 2
    lb = (kptr[b + 1] - kptr[b]) // 2
    for q in range(min(la, lb)):
        x, y = kbuf[kptr[a] + q], kbuf[kptr[b] + q]
        if x != y:
            return x < y
    if la != lb:
        return la < lb
    ka, kb = rows[a, 0], rows[b, 0]
    if ka != kb:
        return ka < kb
    # positions by variable: tuples of tuples (lengths matter only for Kleene variables)
    p0 = T.clause_pos_ptr[ka]
    ia, ib = kptr[a] + la, kptr[b] + lb
    for i in range(T.clause_pos_ptr[ka + 1] - p0):
        if T.var_kind[T.clause_pos[p0 + i]] == KLEENE:
            na, nb_ = pool[rows[a, 1 + i], 3], pool[rows[b, 1 + i], 3]
        else:
            na, nb_ = 1, 1
        for q in range(min(na, nb_)):
            x, y = kbuf[ia + q], kbuf[ib + q]
            if x != y:
                return x < y
        if na != nb_:
            return na < nb_
        ia += na
        ib += nb_
    return False


@nb.njit(cache=True)
def _canonical_order(T, rows, count, rel, pool, pos, kbuf, scratch):
    """Indices of the entries sorted by (release, canonical key): a stable merge sort."""
    kptr = np.empty(count + 1, np.int64)
    kbuf = _entry_keys(T, rows, count, rel, pool, pos, kptr, kbuf, scratch)
    idx = np.arange(count)
    tmp = np.empty(count, np.int64)
    width = 1
    while width < count:
        for start in range(0, count, 2 * width):
            mid = min(start + width, count)
            end = min(start + 2 * width, count)
            i, j, o = start, mid, start
            while i < mid and j < end:
                if _entry_less(T, idx[j], idx[i], rows, rel, kptr, kbuf, pool):
                    tmp[o] = idx[j]
                    j += 1
                else:
                    tmp[o] = idx[i]
                    i += 1
                o += 1
            while i < mid:
                tmp[o] = idx[i]
                i += 1
                o += 1
            while j < end:
                tmp[o] = idx[j]
                j += 1
                o += 1
        idx, tmp = tmp, idx
        width *= 2
    return idx, kbuf


@nb.njit(cache=True)
def _report(T, rows, count, rel, t0s, lws, per_entry_t0, pool, pos, consumed, select, collect, record, C, outL,
            kbuf, scratch, stores, ssize, hashes, cnt, cntb, byt, mask, attrs, ev, kid, lo, hi, stack):
    """Report ``count`` entries sharing or ordered by release: canonical order when collected or selected,
    skip-till-next-match selection and purge, counters, latency and the output rows."""
    if count == 0:
        return kbuf, scratch
    scratch = _ensure_scratch(T, rows, count, pool, scratch)
    if (collect or select) and (count > 1):
        order, kbuf = _canonical_order(T, rows, count, rel, pool, pos, kbuf, scratch)
    else:
        order = np.arange(count)
    newly = False
    now = now_ns() if record else 0
    accepted = 0
    for oi in range(count):
        e = order[oi]
        row = rows[e]
        if select:
            n = _entry_events(T, row, pool, scratch)
            hit = False
            for q in range(n):
                if consumed[scratch[q]]:
                    hit = True
                    break
            if hit:
                continue
            for q in range(n):
                consumed[scratch[q]] = 1
            newly = True
        accepted += 1
        C[C_MATCHES] += 1
        C[C_LATWORK] += lws[e]
        if record and per_entry_t0:
            _add_latency(outL, C, now - t0s[e], 1)
        if collect:
            out = outL[0]
            if C[C_NOUT] >= out.shape[0]:
                out = _grow2(out, C[C_NOUT] + 1)
                outL[0] = out
            k = row[0]
            out[C[C_NOUT], 0] = k
            p0 = T.clause_pos_ptr[k]
            for i in range(T.clause_pos_ptr[k + 1] - p0):
                x = row[1 + i]
                if T.var_kind[T.clause_pos[p0 + i]] == KLEENE:
                    ln = pool[x, 3]
                    oe = outL[1]
                    if C[C_NOUTE] + ln + 1 > oe.shape[0]:
                        oe = _grow2(oe, C[C_NOUTE] + ln + 1)
                        outL[1] = oe
                    base = C[C_NOUTE]
                    oe[base, 0] = ln
                    q = base + ln
                    while x >= 0:
                        oe[q, 0] = pos[pool[x, 2]]
                        q -= 1
                        x = pool[x, 0]
                    out[C[C_NOUT], 1 + i] = base
                    C[C_NOUTE] += ln + 1
                else:
                    out[C[C_NOUT], 1 + i] = pos[x]
            C[C_NOUT] += 1
    if record and not per_entry_t0 and accepted > 0:
        _add_latency(outL, C, now - t0s[0], accepted)
    if newly:
        _purge(T, stores, ssize, hashes, consumed, pool, cnt, cntb, byt, mask, C, attrs, ev, kid, lo, hi, stack)
    return kbuf, scratch


@nb.njit(cache=True)
def _add_latency(outL, C, ns, count):
    lat = outL[2]
    if C[C_NLAT] >= lat.shape[0]:
        lat = _grow2(lat, C[C_NLAT] + 1)
        outL[2] = lat
    lat[C[C_NLAT], 0] = ns
    lat[C[C_NLAT], 1] = count
    C[C_NLAT] += 1


@nb.njit(cache=True)
def _ensure_scratch(T, rows, count, pool, scratch):
    """Room in ``scratch`` for the events of the largest entry."""
    need = 0
    for e in range(count):
        k = rows[e, 0]
        p0 = T.clause_pos_ptr[k]
        n = 0
        for i in range(T.clause_pos_ptr[k + 1] - p0):
            n += pool[rows[e, 1 + i], 3] if T.var_kind[T.clause_pos[p0 + i]] == KLEENE else 1
        need = max(need, n)
    if need > scratch.shape[0]:
        return np.empty(2 * need, np.int64)
    return scratch


# ---------------------------------------------------------------------------------------------------
# completion of a match at a clause's root
# ---------------------------------------------------------------------------------------------------
@nb.njit(cache=True)
def _contiguous(T, k, ev, kid, pool, pos, pa, pp, strategy):
    """The exact contiguity test of a full match (strict: consecutive stream positions; partition: one
    partition, consecutive positions in it)."""
    key = pos if strategy == STRICT else pp
    kmin = np.iinfo(np.int64).max
    kmax = np.iinfo(np.int64).min
    count = 0
    part = -1
    first = True
    p0 = T.clause_pos_ptr[k]
    for i in range(T.clause_pos_ptr[k + 1] - p0):
        v = T.clause_pos[p0 + i]
        if T.var_kind[v] == KLEENE:
            x = kid[v]
            while x >= 0:
                e = pool[x, 2]
                kmin = min(kmin, key[e])
                kmax = max(kmax, key[e])
                count += 1
                if strategy == PARTITION:
                    if first:
                        part = pa[e]
                        first = False
                    elif pa[e] != part:
                        return False
                x = pool[x, 0]
        else:
            e = ev[v]
            kmin = min(kmin, key[e])
            kmax = max(kmax, key[e])
            count += 1
            if strategy == PARTITION:
                if first:
                    part = pa[e]
                    first = False
                elif pa[e] != part:
                    return False
    return kmax - kmin == count - 1


# ---------------------------------------------------------------------------------------------------
# the lazy path
# ---------------------------------------------------------------------------------------------------
@nb.njit(cache=True)
def run_lazy(T, codes, ts, key, pos, attrs, pa, pp, full_ts, n_total, cap, wcap, collect, record):
    """Run the plan over the filtered stream.  Returns ``(C, out, out_elems, lat)``: the counters (the
    ``C_*`` indices), the collected matches in canonical order (``[clause, slot positions...]``, a Kleene
    slot the offset of ``[length, positions...]`` in ``out_elems``), and latencies (ns, matches)."""
    n = len(codes)
    strategy = T.ints[I_STRATEGY]
    strict = T.ints[I_SEQ_STRICT] == 1
    n_vars = T.ints[I_VARS]
    n_stores = T.ints[I_STORES]
    max_slots = T.ints[I_MAX_SLOTS]
    L = T.floats[0]
    W = T.floats[1]
    cspan = T.ints[I_POSITION_SPAN]
    select = strategy == NEXT
    contig = strategy == STRICT or strategy == PARTITION
    is_nfa = T.ints[I_NFA] == 1

    C = np.zeros(N_COUNTERS, np.int64)
    # live partial matches, buffered events and their bytes by oldest event m, in rings indexed by
    # m & mask (m lies in [fp, j]: the ring grows with the events of a window)
    cnt = np.zeros(1024, np.int64)
    cntb = np.zeros(1024, np.int64)
    byt = np.zeros(1024, np.int64)
    mask = 1023
    consumed = np.zeros(n if select else 1, np.uint8)
    ev = np.zeros(n_vars + 1, np.int64)
    kid = np.full(n_vars + 1, -1, np.int64)
    lo = np.zeros(n_vars + 1, np.int64)
    hi = np.zeros(n_vars + 1, np.int64)
    hev = np.zeros(n_vars + 1, np.int64)  # the same, for hash keys and purges (the join's binding survives them)
    hkid = np.full(n_vars + 1, -1, np.int64)
    hlo = np.zeros(n_vars + 1, np.int64)
    hhi = np.zeros(n_vars + 1, np.int64)
    stack = np.zeros(64, np.float64)
    cur = np.zeros(n_vars + 1, np.int64)
    scratch = np.zeros(256, np.int64)
    kbuf = np.zeros(1024, np.int64)

    stores = List.empty_list(types.int32[:, ::1])
    hashes = List.empty_list(HASH_TYPE)
    ssize = np.zeros(max(n_stores, 1), np.int64)
    for s in range(n_stores):
        stores.append(np.empty((16, T.store_width[s]), np.int32))
        hashes.append(Dict.empty(key_type=types.float64, value_type=types.int64))
    n_negs = T.ints[I_NEGS]
    nbufs = List.empty_list(types.int32[::1])
    nbn = np.zeros(max(n_negs, 1), np.int64)
    for q in range(n_negs):
        nbufs.append(np.empty(16, np.int32))
    poolL = List.empty_list(types.int32[:, ::1])
    poolL.append(np.empty((16, 4), np.int32))
    # parked matches: [clause, slots...]; their release time and position, arrival clock, work marks
    pend = np.empty((16, 1 + max_slots), np.int32)
    pend_t = np.empty(16, np.float64)
    pend_p = np.empty(16, np.int64)
    pend_t0 = np.empty(16, np.int64)
    pend_pw = np.empty(16, np.int64)
    pend_w = np.empty(16, np.int64)
    relT = np.inf
    # this event's matches
    batch = np.empty((16, 1 + max_slots), np.int32)
    batch_lw = np.zeros(16, np.int64)
    batch_t0 = np.zeros(16, np.int64)
    batch_rel = np.zeros(16, np.int64)
    # released matches
    rel_rows = np.empty((16, 1 + max_slots), np.int32)
    rel_r = np.zeros(16, np.int64)
    rel_t0 = np.zeros(16, np.int64)
    rel_lw = np.zeros(16, np.int64)
    # output: matches, Kleene elements, latencies
    outL = List.empty_list(types.int64[:, ::1])
    outL.append(np.empty((16 if collect else 1, 1 + max_slots), np.int64))
    outL.append(np.empty((16, 1), np.int64))
    outL.append(np.empty((16, 2), np.int64))
    # per level of a join path: path work of the new instances
    pw_cur = np.zeros(16, np.int64)
    pw_next = np.zeros(16, np.int64)

    fp = 0
    for j in range(n):
        t0 = now_ns() if record else 0
        # ---- window frontier: instances whose oldest event left the window expire -------------------
        thr = key[j] - L
        while key[fp] < thr:
            C[C_LIVE] -= cnt[fp & mask]
            C[C_BUF] -= cntb[fp & mask]
            C[C_NBYTES] -= byt[fp & mask]
            cnt[fp & mask] = 0
            cntb[fp & mask] = 0
            byt[fp & mask] = 0
            fp += 1
        if cspan >= 0:
            pthr = pos[j] - cspan
            while pos[fp] < pthr:
                C[C_LIVE] -= cnt[fp & mask]
                C[C_BUF] -= cntb[fp & mask]
                C[C_NBYTES] -= byt[fp & mask]
                cnt[fp & mask] = 0
                cntb[fp & mask] = 0
                byt[fp & mask] = 0
                fp += 1
        C[C_FP] = fp
        if j - fp + 1 > mask:
            cnt = _ring_grow(cnt, fp, j, mask)
            cntb = _ring_grow(cntb, fp, j, mask)
            byt = _ring_grow(byt, fp, j, mask)
            mask = 2 * mask + 1
        # ---- release of parked matches whose release point is this event (phase 0) -----------------
        if C[C_NPEND] > 0 and ts[j] > relT:
            nrel = 0
            keep = 0
            relT = np.inf
            for e in range(C[C_NPEND]):
                if ts[j] > pend_t[e] and pos[j] >= pend_p[e]:
                    if nrel >= rel_rows.shape[0]:
                        rel_rows = _grow2(rel_rows, nrel + 1)
                        rel_r = _grow1(rel_r, nrel + 1)
                        rel_t0 = _grow1(rel_t0, nrel + 1)
                        rel_lw = _grow1(rel_lw, nrel + 1)
                    rel_rows[nrel] = pend[e]
                    rel_r[nrel] = min(max(_search_right(full_ts, len(full_ts), pend_t[e]), pend_p[e]), n_total)
                    rel_t0[nrel] = pend_t0[e]
                    rel_lw[nrel] = pend_pw[e] + C[C_WORK] - pend_w[e]
                    nrel += 1
                else:
                    if keep != e:
                        pend[keep] = pend[e]
                        pend_t[keep] = pend_t[e]
                        pend_p[keep] = pend_p[e]
                        pend_t0[keep] = pend_t0[e]
                        pend_pw[keep] = pend_pw[e]
                        pend_w[keep] = pend_w[e]
                    relT = min(relT, pend_t[e])
                    keep += 1
            C[C_NPEND] = keep
            kbuf, scratch = _report(T, rel_rows, nrel, rel_r, rel_t0, rel_lw, True, poolL[0], pos, consumed, select, collect, record, C,
                           outL, kbuf, scratch, stores, ssize, hashes, cnt, cntb, byt, mask, attrs, hev, hkid, hlo, hhi, stack)
        # ---- Kleene pool compaction (between events only: ids are stable within an event) -----------
        if C[C_POOL] > 0 and 2 * C[C_POOL] > poolL[0].shape[0]:
            _compact_pool(T, stores, ssize, hashes, poolL, C, pend, attrs, hev, hkid, hlo, hhi, stack)
            if 4 * C[C_POOL] > poolL[0].shape[0]:
                poolL[0] = _grow2(poolL[0], C[C_POOL] + 1)
        c = codes[j]
        # ---- negated variables of the type: buffer the event, kill parked matches ------------------
        for q in range(T.type_neg_ptr[c], T.type_neg_ptr[c + 1]):
            nv = T.type_neg[q]
            if not _unary_ok(T, nv, j, attrs, ev, stack):
                continue
            b = T.var_nb[nv]
            buf = nbufs[b]
            if nbn[b] == buf.shape[0]:
                horizon = key[j] - 2 * L  # a negated event kills only with events of a live binding
                keep = 0
                for i in range(nbn[b]):
                    if key[buf[i]] >= horizon:
                        buf[keep] = buf[i]
                        keep += 1
                nbn[b] = keep
                if 2 * keep > buf.shape[0]:
                    buf = _grow1(buf, keep + 1)
                    nbufs[b] = buf
            buf[nbn[b]] = j
            nbn[b] += 1
            k = T.var_clause[nv]
            if C[C_NPEND] > 0:
                keep = 0
                pool = poolL[0]
                for e in range(C[C_NPEND]):
                    killed = False
                    if pend[e, 0] == k:
                        _bind_clause(T, k, pend[e], 1, ev, kid, lo, hi, pool)
                        killed = _kill_test(T, b, j, ts, key, attrs, ev, kid, lo, hi, pool, L, strict, stack, cur) == 1
                    if not killed:
                        if keep != e:
                            pend[keep] = pend[e]
                            pend_t[keep] = pend_t[e]
                            pend_p[keep] = pend_p[e]
                            pend_t0[keep] = pend_t0[e]
                            pend_pw[keep] = pend_pw[e]
                            pend_w[keep] = pend_w[e]
                        keep += 1
                C[C_NPEND] = keep
                relT = np.inf
                for e in range(keep):
                    relT = min(relT, pend_t[e])
        pend_before = C[C_NPEND]
        # ---- positive variables of the type: leaf, then the join path to the root ------------------
        for q in range(T.type_pos_ptr[c], T.type_pos_ptr[c + 1]):
            v = T.type_pos[q]
            if not _unary_ok(T, v, j, attrs, ev, stack):
                continue
            node = T.var_leaf[v]
            k = T.var_clause[v]
            root = T.clause_root[k]
            nnew = 0
            if T.var_kind[v] == KLEENE:
                # every live subset in the store extended by j, and j alone
                s = T.node_store[node]
                arr = _reserve(T, s, stores, ssize, hashes, fp, attrs, hev, hkid, hlo, hhi, poolL[0], stack)
                n0 = ssize[s]
                vmax = T.var_max[v]
                pool = poolL[0]
                for r in range(-1, n0):
                    if r >= 0:
                        if arr[r, 1] < fp:
                            continue
                        sid = arr[r, 2]
                        C[C_WORK] += 1
                        if C[C_WORK] > wcap:
                            C[C_STATUS] = STATUS_WORK
                            C[C_STATUS_VALUE] = C[C_WORK]
                            C[C_PROCESSED] = pos[j]
                            return C, outL[0], outL[1], outL[2]
                        if vmax >= 0 and pool[sid, 3] >= vmax:
                            continue
                        last = pool[sid, 2]
                        if strict and not ts[last] < ts[j]:
                            continue
                        if T.var_contig[v] == 1:
                            if strategy == STRICT and pos[last] + 1 != pos[j]:
                                continue
                            if strategy == PARTITION and (pa[last] != pa[j] or pp[last] + 1 != pp[j]):
                                continue
                    else:
                        sid = -1
                    if C[C_POOL] >= pool.shape[0]:
                        pool = _grow2(pool, C[C_POOL] + 1)
                        poolL[0] = pool
                    nid = C[C_POOL]
                    pool[nid, 0] = sid
                    pool[nid, 1] = j if sid < 0 else pool[sid, 1]
                    pool[nid, 2] = j
                    pool[nid, 3] = 1 if sid < 0 else pool[sid, 3] + 1
                    C[C_POOL] += 1
                    if ssize[s] == arr.shape[0]:
                        # grow without compaction: rows [0, n0) are being read
                        arr = _grow2(arr, ssize[s] + 1)
                        stores[s] = arr
                    m = pool[nid, 1]
                    w = ssize[s]
                    arr[w, 0] = j
                    arr[w, 1] = m
                    arr[w, 2] = nid
                    if T.store_hash_expr[s] >= 0:
                        _hash_insert(T, s, arr, w, hashes, attrs, hev, hkid, hlo, hhi, pool, stack)
                    ssize[s] += 1
                    nnew += 1
                    cnt[m & mask] += 1
                    C[C_CREATED] += 1
                    C[C_LIVE] += 1
                    sz = ROW_BYTES * T.store_width[s] + POOL_BYTES
                    byt[m & mask] += sz
                    C[C_NBYTES] += sz
                    if C[C_LIVE] > cap:
                        C[C_STATUS] = STATUS_PARTIAL_MATCHES
                        C[C_STATUS_VALUE] = C[C_LIVE]
                        C[C_PROCESSED] = pos[j]
                        return C, outL[0], outL[1], outL[2]
            elif node != root:
                s = T.node_store[node]
                arr = _reserve(T, s, stores, ssize, hashes, fp, attrs, hev, hkid, hlo, hhi, poolL[0], stack)
                w = ssize[s]
                arr[w, 0] = j
                arr[w, 1] = j
                arr[w, 2] = j
                if T.store_hash_expr[s] >= 0:
                    _hash_insert(T, s, arr, w, hashes, attrs, hev, hkid, hlo, hhi, poolL[0], stack)
                ssize[s] += 1
                nnew = 1
                cntb[j & mask] += 1
                C[C_BUF] += 1
                sz = ROW_BYTES * T.store_width[s]
                byt[j & mask] += sz
                C[C_NBYTES] += sz
            if node == root:
                # a clause of one variable: the event (or each new subset of enough events) is a match
                if T.var_kind[v] == KLEENE:
                    s = T.node_store[node]
                    arr = stores[s]
                    pool = poolL[0]
                    for r in range(ssize[s] - nnew, ssize[s]):
                        if pool[arr[r, 2], 3] < T.var_min[v]:
                            continue
                        _bind_row(T, node, arr, r, ev, kid, lo, hi, pool)
                        status, batch, batch_lw, batch_t0, pend, pend_t, pend_p, pend_t0, pend_pw, pend_w, relT = _complete(
                            T, k, j, t0, ev, kid, lo, hi, pool, ts, key, pos, attrs, pa, pp, full_ts, nbufs, nbn, C,
                            batch, batch_lw, batch_t0, pend, pend_t, pend_p, pend_t0, pend_pw, pend_w, relT, strategy, strict, L, W, stack, cur)
                else:
                    ev[v] = j
                    lo[v] = j
                    hi[v] = j
                    status, batch, batch_lw, batch_t0, pend, pend_t, pend_p, pend_t0, pend_pw, pend_w, relT = _complete(
                        T, k, j, t0, ev, kid, lo, hi, poolL[0], ts, key, pos, attrs, pa, pp, full_ts, nbufs, nbn, C,
                        batch, batch_lw, batch_t0, pend, pend_t, pend_p, pend_t0, pend_pw, pend_w, relT, strategy, strict, L, W, stack, cur)
                continue
            if nnew > pw_cur.shape[0]:
                pw_cur = _grow1(pw_cur, nnew)
            pw_cur[:nnew] = 0
            # ---- up the join path, one level at a time ----------------------------------------------
            while node != root and nnew > 0:
                P = T.node_parent[node]
                side = 0 if T.node_left[P] == node else 1
                S = T.node_right[P] if side == 0 else T.node_left[P]
                cs = T.node_store[node]
                ss = T.node_store[S]
                ps = T.node_store[P]
                carr = stores[cs]
                start = ssize[cs] - nnew
                kleene_leaf = T.store_kind[cs] == KLEENE_STORE
                vmin = T.var_min[T.node_var[node]] if kleene_leaf else 1
                hcond = T.node_hash[P, side]
                smin = T.var_min[T.node_var[S]] if T.store_kind[ss] == KLEENE_STORE else 1
                nfa_transition = is_nfa and side == 1 and T.node_var[node] >= 0
                nnext = 0
                for ri in range(nnew):
                    r = start + ri
                    pool = poolL[0]
                    if kleene_leaf and pool[carr[r, 2], 3] < vmin:
                        continue
                    _bind_row(T, node, carr, r, ev, kid, lo, hi, pool)
                    mr = carr[r, 1]
                    sarr = stores[ss]
                    ns = ssize[ss]
                    examined = 0
                    first_next = nnext
                    nb0 = C[C_NBATCH]
                    pend0 = C[C_NPEND]
                    # -- the candidate range: window and SEQ order by binary search, or a hash bucket --
                    hashed = hcond >= 0
                    row = -1
                    rlo = 0
                    rhi = ns
                    tlow = -np.inf
                    tlow_strict = False
                    if hashed:
                        hv, ok = _eval_expr(T, T.node_hash_probe[P, side], attrs, ev, stack)
                        hv = hv + 0.0
                        if not ok or hv != hv:
                            rhi = 0
                            hashed = False
                        else:
                            hb = hashes[ss]
                            row = hb[hv] if hv in hb else -1
                    # lower bound on ts[mx]: sibling variables that must follow a variable of the new instance
                    for o in range(T.node_order_ptr[P], T.node_order_ptr[P + 1], 2):
                        u = T.node_order[o]
                        w_ = T.node_order[o + 1]
                        if _var_in_node(T, node, u) and not _var_in_node(T, node, w_):
                            tb = ts[hi[u]]
                            if tb > tlow or (tb == tlow and strict):
                                tlow = tb
                                tlow_strict = strict
                    if not hashed and rhi > 0:
                        rlo = _first_row_at_least(sarr, ns, 0, fp)
                        if tlow > -np.inf:
                            rlo = _first_row_ts(sarr, ns, rlo, ts, tlow, tlow_strict)
                        if T.node_var[S] >= 0:
                            # a leaf sibling's event is its newest: order pairs bound it from above
                            sv = T.node_var[S]
                            for o in range(T.node_order_ptr[P], T.node_order_ptr[P + 1], 2):
                                if T.node_order[o] == sv:
                                    rhi = min(rhi, _end_row_ts(sarr, rlo, ns, ts, ts[lo[T.node_order[o + 1]]], strict))
                    ci = rlo - 1
                    first = True
                    while True:
                        if hashed:
                            ci = row if first else sarr[ci, sarr.shape[1] - 1]
                            first = False
                            if ci < 0 or sarr[ci, 0] < fp:
                                break
                            tmx = ts[sarr[ci, 0]]
                            if tmx < tlow or (tlow_strict and tmx == tlow):
                                break
                        else:
                            ci += 1
                            if ci >= rhi:
                                break
                        if sarr[ci, 1] < fp:
                            continue
                        if smin > 1 and pool[sarr[ci, 2], 3] < smin:
                            continue  # a Kleene subset not yet large enough
                        _bind_row(T, S, sarr, ci, ev, kid, lo, hi, pool)
                        ok = True
                        for o in range(T.node_order_ptr[P], T.node_order_ptr[P + 1], 2):
                            if not _before(ts[hi[T.node_order[o]]], ts[lo[T.node_order[o + 1]]], strict):
                                ok = False
                                break
                        if not ok:
                            continue
                        examined += 1
                        C[C_WORK] += 1
                        if C[C_WORK] > wcap:
                            C[C_STATUS] = STATUS_WORK
                            C[C_STATUS_VALUE] = C[C_WORK]
                            C[C_PROCESSED] = pos[j]
                            return C, outL[0], outL[1], outL[2]
                        # -- the node's other checks ----------------------------------------------
                        if contig:
                            ckey = pos if strategy == STRICT else pp
                            for o in range(T.node_adj_ptr[P], T.node_adj_ptr[P + 1], 2):
                                if ckey[hi[T.node_adj[o]]] + 1 != ckey[lo[T.node_adj[o + 1]]]:
                                    ok = False
                                    break
                            if ok and strategy == PARTITION:
                                lv = T.node_vars[T.node_vars_ptr[T.node_left[P]]]
                                rv = T.node_vars[T.node_vars_ptr[T.node_right[P]]]
                                if pa[lo[lv]] != pa[lo[rv]]:
                                    ok = False
                            if not ok:
                                continue
                        for o in range(T.node_dist_ptr[P], T.node_dist_ptr[P + 1], 2):
                            if not _distinct(T, T.node_dist[o], T.node_dist[o + 1], ev, kid, pool):
                                ok = False
                                break
                        if not ok:
                            continue
                        for o in range(T.node_cond_ptr[P], T.node_cond_ptr[P + 1]):
                            cc = T.node_cond[o]
                            if cc == hcond and hashed:
                                continue
                            if not _cond_holds(T, cc, attrs, ev, kid, pool, stack, cur):
                                ok = False
                                break
                        if not ok:
                            continue
                        for o in range(T.node_neg_ptr[P], T.node_neg_ptr[P + 1]):
                            b = T.var_nb[T.node_neg[o]]
                            if _killed(T, b, nbufs[b], nbn[b], -1, ts, key, attrs, ev, kid, lo, hi, pool, L, strict, stack, cur):
                                ok = False
                                break
                        if not ok:
                            continue
                        ms = sarr[ci, 1]
                        m = mr if mr < ms else ms
                        if P == root:
                            status, batch, batch_lw, batch_t0, pend, pend_t, pend_p, pend_t0, pend_pw, pend_w, relT = _complete(
                                T, k, j, t0, ev, kid, lo, hi, pool, ts, key, pos, attrs, pa, pp, full_ts, nbufs, nbn, C,
                                batch, batch_lw, batch_t0, pend, pend_t, pend_p, pend_t0, pend_pw, pend_w, relT, strategy, strict, L, W, stack, cur)
                            continue
                        parr = _reserve(T, ps, stores, ssize, hashes, fp, attrs, hev, hkid, hlo, hhi, pool, stack)
                        w = ssize[ps]
                        parr[w, 0] = j
                        parr[w, 1] = m
                        a_arr, a_r, a_n = (carr, r, T.node_vars_ptr[node + 1] - T.node_vars_ptr[node]) if side == 0 else (sarr, ci, T.node_vars_ptr[S + 1] - T.node_vars_ptr[S])
                        b_arr, b_r, b_n = (sarr, ci, T.node_vars_ptr[S + 1] - T.node_vars_ptr[S]) if side == 0 else (carr, r, T.node_vars_ptr[node + 1] - T.node_vars_ptr[node])
                        for i in range(a_n):
                            parr[w, 2 + i] = a_arr[a_r, 2 + i]
                        for i in range(b_n):
                            parr[w, 2 + a_n + i] = b_arr[b_r, 2 + i]
                        if T.store_hash_expr[ps] >= 0:
                            _hash_insert(T, ps, parr, w, hashes, attrs, hev, hkid, hlo, hhi, pool, stack)
                        ssize[ps] += 1
                        cnt[m & mask] += 1
                        C[C_CREATED] += 1
                        C[C_LIVE] += 1
                        sz = ROW_BYTES * T.store_width[ps]
                        byt[m & mask] += sz
                        C[C_NBYTES] += sz
                        if C[C_LIVE] > cap:
                            C[C_STATUS] = STATUS_PARTIAL_MATCHES
                            C[C_STATUS_VALUE] = C[C_LIVE]
                            C[C_PROCESSED] = pos[j]
                            return C, outL[0], outL[1], outL[2]
                        if nnext >= pw_next.shape[0]:
                            pw_next = _grow1(pw_next, nnext + 1)
                        nnext += 1
                    # the path work of what this instance's scan created: the candidates it was compared with;
                    # on the lazy NFA an event of the k-th variable (k > 1) is the transition of each
                    # instance waiting for it in state k (JQPG 2.2), one step on that instance's path
                    pwr = pw_cur[ri] + (1 if nfa_transition else examined)
                    for i in range(first_next, nnext):
                        pw_next[i] = pwr
                    for i in range(nb0, C[C_NBATCH]):
                        batch_lw[i] = pwr
                    for i in range(pend0, C[C_NPEND]):
                        pend_pw[i] = pwr
                node = P
                nnew = nnext
                pw_cur, pw_next = pw_next, pw_cur
        # ---- parked matches of this event: the work they wait for starts after it ----------------------
        for e in range(pend_before, C[C_NPEND]):
            pend_w[e] = C[C_WORK]
        # ---- bookkeeping -------------------------------------------------------------------------
        live = C[C_LIVE]
        C[C_TOT] += live
        if live > C[C_PEAK]:
            C[C_PEAK] = live
        if C[C_BUF] > C[C_PEAKB]:
            C[C_PEAKB] = C[C_BUF]
        if live + C[C_BUF] > C[C_PEAKS]:
            C[C_PEAKS] = live + C[C_BUF]
        if C[C_NBYTES] > C[C_PEAKBYTES]:
            C[C_PEAKBYTES] = C[C_NBYTES]
        nbt = C[C_NBATCH]
        if nbt > 0:
            if nbt > batch_rel.shape[0]:
                batch_rel = np.empty(batch.shape[0], np.int64)
            batch_rel[:nbt] = pos[j]
            C[C_NBATCH] = 0
            kbuf, scratch = _report(T, batch, nbt, batch_rel, batch_t0, batch_lw, False, poolL[0], pos, consumed, select, collect, record, C,
                           outL, kbuf, scratch, stores, ssize, hashes, cnt, cntb, byt, mask, attrs, hev, hkid, hlo, hhi, stack)
    # ---- end of the stream: every parked match is released ----------------------------------------------
    npd = C[C_NPEND]
    if npd > 0:
        for e in range(npd):
            if e >= rel_rows.shape[0]:
                rel_rows = _grow2(rel_rows, e + 1)
                rel_r = _grow1(rel_r, e + 1)
                rel_t0 = _grow1(rel_t0, e + 1)
                rel_lw = _grow1(rel_lw, e + 1)
            rel_rows[e] = pend[e]
            rel_r[e] = min(max(_search_right(full_ts, len(full_ts), pend_t[e]), pend_p[e]), n_total)
            rel_t0[e] = pend_t0[e]
            rel_lw[e] = pend_pw[e] + C[C_WORK] - pend_w[e]
        C[C_NPEND] = 0
        kbuf, scratch = _report(T, rel_rows, npd, rel_r, rel_t0, rel_lw, True, poolL[0], pos, consumed, select, collect, record, C,
                outL, kbuf, scratch, stores, ssize, hashes, cnt, cntb, byt, mask, attrs, hev, hkid, hlo, hhi, stack)
    C[C_PROCESSED] = n_total
    return C, outL[0], outL[1], outL[2]


@nb.njit(cache=True)
def _var_in_node(T, node, v):
    p0 = T.node_vars_ptr[node]
    for i in range(p0, T.node_vars_ptr[node + 1]):
        if T.node_vars[i] == v:
            return True
    return False


@nb.njit(cache=True)
def _complete(T, k, j, t0, ev, kid, lo, hi, pool, ts, key, pos, attrs, pa, pp, full_ts, nbufs, nbn, C,
              batch, batch_lw, batch_t0, pend, pend_t, pend_p, pend_t0, pend_pw, pend_w, relT, strategy, strict, L, W, stack, cur):
    """A full match of clause ``k`` at its root: the exact contiguity test, the remaining negation checks,
    then reported with this event's matches or parked until its release point (cep.semantics, "Release")."""
    if strategy == STRICT or strategy == PARTITION:
        if not _contiguous(T, k, ev, kid, pool, pos, pa, pp, strategy):
            return 0, batch, batch_lw, batch_t0, pend, pend_t, pend_p, pend_t0, pend_pw, pend_w, relT
    for q in range(T.clause_rootneg_ptr[k], T.clause_rootneg_ptr[k + 1]):
        b = T.var_nb[T.clause_rootneg[q]]
        if _killed(T, b, nbufs[b], nbn[b], -1, ts, key, attrs, ev, kid, lo, hi, pool, L, strict, stack, cur):
            return 0, batch, batch_lw, batch_t0, pend, pend_t, pend_p, pend_t0, pend_pw, pend_w, relT
    for q in range(T.clause_earlyneg_ptr[k], T.clause_earlyneg_ptr[k + 1]):
        b = T.var_nb[T.clause_earlyneg[q]]
        node = T.clause_earlyneg_node[q]
        created = -1
        for i in range(T.node_vars_ptr[node], T.node_vars_ptr[node + 1]):
            created = max(created, hi[T.node_vars[i]])
        if _killed(T, b, nbufs[b], nbn[b], created, ts, key, attrs, ev, kid, lo, hi, pool, L, strict, stack, cur):
            return 0, batch, batch_lw, batch_t0, pend, pend_t, pend_p, pend_t0, pend_pw, pend_w, relT
    p0 = T.clause_pos_ptr[k]
    npos = T.clause_pos_ptr[k + 1] - p0
    release = T.clause_release[k]
    if release == RELEASE_NOW:
        e = C[C_NBATCH]
        if e >= batch.shape[0]:
            batch = _grow2(batch, e + 1)
            batch_lw = _grow1(batch_lw, e + 1)
            batch_t0 = _grow1(batch_t0, e + 1)
        batch[e, 0] = k
        for i in range(npos):
            v = T.clause_pos[p0 + i]
            batch[e, 1 + i] = kid[v] if T.var_kind[v] == KLEENE else ev[v]
        batch_lw[e] = 0
        batch_t0[e] = t0
        C[C_NBATCH] += 1
        return 0, batch, batch_lw, batch_t0, pend, pend_t, pend_p, pend_t0, pend_pw, pend_w, relT
    mn = np.iinfo(np.int64).max
    for i in range(npos):
        mn = min(mn, lo[T.clause_pos[p0 + i]])
    if release == RELEASE_WINDOW_TIME:
        rel_t = ts[mn] + W
        rel_p = 0
    elif release == RELEASE_WINDOW_COUNT:
        rel_t = ts[j]
        rel_p = pos[mn] + T.ints[I_WINDOW_N]
    else:
        rel_t = ts[j]
        rel_p = 0
    e = C[C_NPEND]
    if e >= pend.shape[0]:
        pend = _grow2(pend, e + 1)
        pend_t = _grow1(pend_t, e + 1)
        pend_p = _grow1(pend_p, e + 1)
        pend_t0 = _grow1(pend_t0, e + 1)
        pend_pw = _grow1(pend_pw, e + 1)
        pend_w = _grow1(pend_w, e + 1)
    pend[e, 0] = k
    for i in range(npos):
        v = T.clause_pos[p0 + i]
        pend[e, 1 + i] = kid[v] if T.var_kind[v] == KLEENE else ev[v]
    pend_t[e] = rel_t
    pend_p[e] = rel_p
    pend_t0[e] = t0
    pend_pw[e] = 0
    pend_w[e] = 0
    C[C_NPEND] += 1
    if rel_t < relT:
        relT = rel_t
    return 0, batch, batch_lw, batch_t0, pend, pend_t, pend_p, pend_t0, pend_pw, pend_w, relT


# ---------------------------------------------------------------------------------------------------
# the eager path (JQPG Section 6, Figure 9): strict contiguity, the pattern's own order
# ---------------------------------------------------------------------------------------------------
@nb.njit(cache=True)
def run_eager(T, codes, ts, key, pos, attrs, cap, wcap, collect, record):
    """A pure sequence under strict contiguity and ``SEQ_ORDER strict``, in its own order: an NFA whose
    instances all end at the previous stream position.  On each event every instance whose next variable
    has the event's type is a candidate (it extends or dies), and the event opens a new instance; an
    event that is not adjacent in the stream to the previous one ends them all.  Nothing is buffered
    and nothing reordered.  Instances of one event are counted as buffered events (the first state of
    the chain holds them), of two or more as partial matches, as on the lazy path.  Returns what
    :func:`run_lazy` returns."""
    n = len(codes)
    strict = T.ints[I_SEQ_STRICT] == 1
    L = T.floats[0]
    p0 = T.clause_pos_ptr[0]
    npos = T.clause_pos_ptr[1] - p0
    vars_ = T.clause_pos[p0 : p0 + npos]
    # steps[i]: the node of the left-deep tree where vars_[i] joins the prefix (its conditions are checked there)
    steps = np.full(npos, -1, np.int64)
    node = T.var_leaf[vars_[0]]
    for i in range(1, npos):
        node = T.node_parent[node]
        steps[i] = node
    width = 2 + npos  # [length, oldest event, slots...]
    row_bytes = ROW_BYTES * width
    C = np.zeros(N_COUNTERS, np.int64)
    ev = np.zeros(T.ints[I_VARS] + 1, np.int64)
    kid = np.full(T.ints[I_VARS] + 1, -1, np.int64)
    stack = np.zeros(64, np.float64)
    cur = np.zeros(T.ints[I_VARS] + 1, np.int64)
    pool = np.zeros((1, 4), np.int32)
    act = np.empty((npos + 1, width), np.int32)
    nxt = np.empty((npos + 1, width), np.int32)
    nact = 0
    outL = List.empty_list(types.int64[:, ::1])
    outL.append(np.empty((16 if collect else 1, 1 + npos), np.int64))
    outL.append(np.empty((1, 1), np.int64))
    outL.append(np.empty((16, 2), np.int64))
    for j in range(n):
        t0 = now_ns() if record else 0
        c = codes[j]
        nn = 0
        matched = -1
        if j > 0 and pos[j] == pos[j - 1] + 1:
            for a in range(nact):
                ln = act[a, 0]
                v = vars_[ln]
                if T.var_type[v] != c:
                    continue
                C[C_WORK] += 1
                if C[C_WORK] > wcap:
                    C[C_STATUS] = STATUS_WORK
                    C[C_STATUS_VALUE] = C[C_WORK]
                    C[C_PROCESSED] = pos[j]
                    return C, outL[0], outL[1], outL[2]
                if not _before(ts[act[a, 1 + ln]], ts[j], strict):
                    continue
                if key[j] - key[act[a, 1]] > L:
                    continue
                if not _unary_ok(T, v, j, attrs, ev, stack):
                    continue
                for i in range(ln):
                    ev[vars_[i]] = act[a, 2 + i]
                ev[v] = j
                ok = True
                P = steps[ln]
                for o in range(T.node_cond_ptr[P], T.node_cond_ptr[P + 1]):
                    if not _cond_holds(T, T.node_cond[o], attrs, ev, kid, pool, stack, cur):
                        ok = False
                        break
                if not ok:
                    continue
                if ln + 1 == npos:
                    matched = a
                    continue
                nxt[nn, :] = act[a, :]
                nxt[nn, 0] = ln + 1
                nxt[nn, 2 + ln] = j
                nn += 1
                C[C_CREATED] += 1
        v0 = vars_[0]
        if T.var_type[v0] == c and _unary_ok(T, v0, j, attrs, ev, stack):
            if npos == 1:
                matched = npos  # the event alone
            else:
                nxt[nn, 0] = 1
                nxt[nn, 1] = j
                nxt[nn, 2] = j
                nn += 1
        act, nxt = nxt, act
        nact = nn
        live = 0
        for a in range(nact):
            if act[a, 0] >= 2:
                live += 1
        C[C_LIVE] = live
        C[C_BUF] = nact - live
        C[C_NBYTES] = nact * row_bytes
        if live > cap:
            C[C_STATUS] = STATUS_PARTIAL_MATCHES
            C[C_STATUS_VALUE] = live
            C[C_PROCESSED] = pos[j]
            return C, outL[0], outL[1], outL[2]
        C[C_TOT] += live
        C[C_PEAK] = max(C[C_PEAK], live)
        C[C_PEAKB] = max(C[C_PEAKB], nact - live)
        C[C_PEAKS] = max(C[C_PEAKS], nact)
        C[C_PEAKBYTES] = max(C[C_PEAKBYTES], C[C_NBYTES])
        if matched >= 0:
            C[C_MATCHES] += 1
            C[C_LATWORK] += 1 if npos > 1 else 0
            if record:
                _add_latency(outL, C, now_ns() - t0, 1)
            if collect:
                out = outL[0]
                if C[C_NOUT] >= out.shape[0]:
                    out = _grow2(out, C[C_NOUT] + 1)
                    outL[0] = out
                out[C[C_NOUT], 0] = 0
                for i in range(npos - 1):
                    out[C[C_NOUT], 1 + i] = pos[nxt[matched, 2 + i]]
                out[C[C_NOUT], npos] = pos[j]
                C[C_NOUT] += 1
    return C, outL[0], outL[1], outL[2]
