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

# ---- the plan blob: PlanTables flattened (evaluators.program.flatten) -----------------------------------
# Field X of the tables is TI[TI[F_X] + i] (ints) or TF[TI[G_X] + i] (floats): one array of each, not a
# tuple of arrays, because numba hands every array of a tuple to a called function and counts references
# on each (measured: a call with the tables as a tuple of 85 arrays cost more than a whole join).
INT_FIELDS = (
    "ints", "type_neg_ptr", "type_neg", "type_pos_ptr", "type_pos", "var_clause", "var_type", "var_kind", "var_min",
    "var_max", "var_leaf", "var_contig", "var_nb", "var_unary_ptr", "var_unary", "neg_var", "neg_same_ptr", "neg_same",
    "neg_pred_ptr", "neg_pred", "neg_succ_ptr", "neg_succ", "neg_dep_ptr", "neg_dep", "neg_cond_ptr", "neg_cond",
    "node_clause", "node_left", "node_right", "node_parent", "node_var", "node_store", "node_vars_ptr", "node_vars",
    "node_order_ptr", "node_order", "node_adj_ptr", "node_adj", "node_dist_ptr", "node_dist", "node_cond_ptr", "node_cond",
    "node_neg_ptr", "node_neg", "node_hash", "node_hash_probe", "clause_root", "clause_pos_ptr", "clause_pos",
    "clause_rootneg_ptr", "clause_rootneg", "clause_earlyneg_ptr", "clause_earlyneg", "clause_earlyneg_node",
    "clause_release", "store_node", "store_kind", "store_width", "store_hash_expr", "expr_ptr", "op_code", "op_a", "op_b",
    "cond_left", "cond_right", "cond_op", "cond_kleene_ptr", "cond_kleene", "cond_simple", "cond_sv",
)
FLOAT_FIELDS = ("floats", "op_f", "cond_sf")
(F_INTS, F_TYPE_NEG_PTR, F_TYPE_NEG, F_TYPE_POS_PTR, F_TYPE_POS, F_VAR_CLAUSE, F_VAR_TYPE, F_VAR_KIND, F_VAR_MIN,
 F_VAR_MAX, F_VAR_LEAF, F_VAR_CONTIG, F_VAR_NB, F_VAR_UNARY_PTR, F_VAR_UNARY, F_NEG_VAR, F_NEG_SAME_PTR, F_NEG_SAME,
 F_NEG_PRED_PTR, F_NEG_PRED, F_NEG_SUCC_PTR, F_NEG_SUCC, F_NEG_DEP_PTR, F_NEG_DEP, F_NEG_COND_PTR, F_NEG_COND,
 F_NODE_CLAUSE, F_NODE_LEFT, F_NODE_RIGHT, F_NODE_PARENT, F_NODE_VAR, F_NODE_STORE, F_NODE_VARS_PTR, F_NODE_VARS,
 F_NODE_ORDER_PTR, F_NODE_ORDER, F_NODE_ADJ_PTR, F_NODE_ADJ, F_NODE_DIST_PTR, F_NODE_DIST, F_NODE_COND_PTR, F_NODE_COND,
 F_NODE_NEG_PTR, F_NODE_NEG, F_NODE_HASH, F_NODE_HASH_PROBE, F_CLAUSE_ROOT, F_CLAUSE_POS_PTR, F_CLAUSE_POS,
 F_CLAUSE_ROOTNEG_PTR, F_CLAUSE_ROOTNEG, F_CLAUSE_EARLYNEG_PTR, F_CLAUSE_EARLYNEG, F_CLAUSE_EARLYNEG_NODE,
 F_CLAUSE_RELEASE, F_STORE_NODE, F_STORE_KIND, F_STORE_WIDTH, F_STORE_HASH_EXPR, F_EXPR_PTR, F_OP_CODE, F_OP_A, F_OP_B,
 F_COND_LEFT, F_COND_RIGHT, F_COND_OP, F_COND_KLEENE_PTR, F_COND_KLEENE, F_COND_SIMPLE, F_COND_SV,
 G_FLOATS, G_OP_F, G_COND_SF) = range(len(INT_FIELDS) + len(FLOAT_FIELDS))

# ---- counters (the int64 array C the kernel returns) ------------------------------------------------
(C_LIVE, C_BUF, C_WORK, C_PEAK, C_PEAKB, C_PEAKS, C_TOT, C_PURGED, C_NBYTES, C_PEAKBYTES, C_MATCHES, C_LATWORK,
 C_FP, C_NPEND, C_NBATCH, C_NOUT, C_NOUTE, C_NLAT, C_POOL, C_STATUS, C_STATUS_VALUE, C_PROCESSED, C_CREATED,
 C_ATOP, C_NTOP, C_CLOCK_NS, C_CLOCK_TICKS, C_NCOUNT) = range(28)
N_COUNTERS = 28
STATUS_OK, STATUS_PARTIAL_MATCHES, STATUS_WORK = 0, 1, 2

HASH_TYPE = types.DictType(types.float64, types.int64)  # a store's hash buckets: key -> newest row
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


@intrinsic
def _ticks(typingctx):
    """The processor's cycle counter (``llvm.readcyclecounter``: rdtsc on x86-64)."""
    sig = types.int64()

    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(64), []), "llvm.readcyclecounter")
        return builder.call(fn, [])

    return sig, codegen


@nb.njit(cache=True, inline="always")
def clock(record, tsc):
    """The latency clock: cycle counter ticks (``tsc``, x86-64), else nanoseconds; 0 when not recording."""
    if not record:
        return 0
    return _ticks() if tsc else now_ns()


@nb.njit(cache=True)
def _clock_start(C, tsc):
    C[C_CLOCK_NS] = now_ns()
    C[C_CLOCK_TICKS] = _ticks() if tsc else C[C_CLOCK_NS]
    return C[C_CLOCK_NS]


@nb.njit(cache=True)
def _calibrate(C, tsc, start):
    """``C[C_CLOCK_NS] / C[C_CLOCK_TICKS]``: nanoseconds per latency clock unit over the run."""
    ticks = (_ticks() - C[C_CLOCK_TICKS]) if tsc else 1
    C[C_CLOCK_NS] = now_ns() - start if tsc else 1
    C[C_CLOCK_TICKS] = max(ticks, 1)


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
def _ring_grow(ring, fp, j):
    """A ring of twice the size holding the entries of indices ``fp..j``."""
    mask = ring.shape[0] - 1
    out = np.zeros((2 * ring.shape[0], ring.shape[1]), ring.dtype)
    nmask = 2 * mask + 1
    for m in range(fp, j + 1):
        out[m & nmask] = ring[m & mask]
    return out


@nb.njit(cache=True, inline="always")
def _before(a, b, strict):
    return a < b if strict else a <= b


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
# the arenas: every store (and, in a second arena, every negation buffer) is a region of one int32 array
# ---------------------------------------------------------------------------------------------------
@nb.njit(cache=True)
def _region_grow(ar, base, cap, size, width, t, need, C, top):
    """Give region ``t`` room for ``need`` rows (at least twice its capacity) at the arena's top
    (``C[top]``); when the arena is full, copy every region into a larger arena (row indices kept).
    Returns the arena."""
    newcap = max(need, 2 * cap[t], 4)
    words = newcap * width[t]
    if C[top] + words > len(ar):
        total = words
        for u in range(len(base)):
            if u != t:
                total += cap[u] * width[u]
        nar = np.empty(max(2 * total, 1024), np.int32)
        at = 0
        for u in range(len(base)):
            n = size[u] * width[u]
            nar[at : at + n] = ar[base[u] : base[u] + n]
            base[u] = at
            if u == t:
                cap[u] = newcap
            at += cap[u] * width[u]
        C[top] = at
        return nar
    n = size[t] * width[t]
    at = C[top]
    ar[at : at + n] = ar[base[t] : base[t] + n]
    base[t] = at
    cap[t] = newcap
    C[top] = at + words
    return ar


@nb.njit(cache=True)
def _first_row_at_least(ar, b, w, lo, n, bound):
    """First row in ``[lo, n)`` of the store at ``b`` (width ``w``) whose ``mx`` is >= bound."""
    hi = n
    while lo < hi:
        mid = (lo + hi) >> 1
        if ar[b + mid * w] < bound:
            lo = mid + 1
        else:
            hi = mid
    return lo


@nb.njit(cache=True)
def _first_row_ts(ar, b, w, lo, n, ts, bound, strict):
    """First row in ``[lo, n)`` with ``ts[mx] >= bound`` (``> bound`` when strict)."""
    hi = n
    while lo < hi:
        mid = (lo + hi) >> 1
        t = ts[ar[b + mid * w]]
        if t < bound or (strict and t == bound):
            lo = mid + 1
        else:
            hi = mid
    return lo


# ---------------------------------------------------------------------------------------------------
# expressions and conditions
# ---------------------------------------------------------------------------------------------------
@nb.njit(cache=True)
def _eval_expr(TI, TF, e, attrs, ev, stack):
    """Value of expression ``e`` with variable ``v`` bound to event ``ev[v]``; ok is False when it divides by zero."""
    sp = 0
    for i in range(TI[TI[F_EXPR_PTR] + e], TI[TI[F_EXPR_PTR] + e + 1]):
        op = TI[TI[F_OP_CODE] + i]
        if op == OP_ATTR:
            stack[sp] = attrs[TI[TI[F_OP_B] + i], ev[TI[TI[F_OP_A] + i]]]
            sp += 1
        elif op == OP_CONST:
            stack[sp] = TF[TI[G_OP_F] + i]
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


@nb.njit(cache=True, inline="always")
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
def _cond_once(TI, TF, c, attrs, ev, stack):
    op = TI[TI[F_COND_OP] + c]
    if op == CMP_FALSE:
        return False
    if op == CMP_TRUE:
        return True
    a, ok = _eval_expr(TI, TF, TI[TI[F_COND_LEFT] + c], attrs, ev, stack)
    if not ok:
        return False
    b, ok = _eval_expr(TI, TF, TI[TI[F_COND_RIGHT] + c], attrs, ev, stack)
    if not ok:
        return False
    return _compare(op, a, b)


@nb.njit(cache=True)
def _cond_holds(TI, TF, c, attrs, ev, kid, pool, stack, cur):
    """Condition ``c`` on the binding: for every element of each Kleene variable it mentions (every
    combination when it mentions several), with ``ev`` of plain variables bound."""
    k0, k1 = TI[TI[F_COND_KLEENE_PTR] + c], TI[TI[F_COND_KLEENE_PTR] + c + 1]
    if k0 == k1:
        return _cond_once(TI, TF, c, attrs, ev, stack)
    # odometer over the subsets' chains: cur[i] is the pool node of the i-th Kleene variable
    nk = k1 - k0
    for i in range(nk):
        v = TI[TI[F_COND_KLEENE] + k0 + i]
        cur[i] = kid[v]
        ev[v] = pool[cur[i], 2]
    while True:
        if not _cond_once(TI, TF, c, attrs, ev, stack):
            return False
        i = 0
        while i < nk:
            v = TI[TI[F_COND_KLEENE] + k0 + i]
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
def _cond(TI, TF, c, attrs, ev, kid, pool, stack, cur):
    """Condition ``c``: a *simple* one (``x.a op y.b + k``, no Kleene variable; program.encode_conditions)
    evaluated here, any other by the expression machine."""
    if TI[TI[F_COND_SIMPLE] + c] == 1:
        q = TI[F_COND_SV] + 4 * c
        f = TI[G_COND_SF] + 2 * c
        a = TF[f]
        if TI[q] >= 0:
            a += attrs[TI[q + 1], ev[TI[q]]]
        b = TF[f + 1]
        if TI[q + 2] >= 0:
            b += attrs[TI[q + 3], ev[TI[q + 2]]]
        return _compare(TI[TI[F_COND_OP] + c], a, b)
    return _cond_holds(TI, TF, c, attrs, ev, kid, pool, stack, cur)


@nb.njit(cache=True)
def _unary_ok(TI, TF, v, j, attrs, ev, kid, pool, stack, cur):
    """The conditions on variable ``v`` alone, on event ``j`` (for a Kleene variable: on the element)."""
    ev[v] = j
    for q in range(TI[TI[F_VAR_UNARY_PTR] + v], TI[TI[F_VAR_UNARY_PTR] + v + 1]):
        if not _cond_once(TI, TF, TI[TI[F_VAR_UNARY] + q], attrs, ev, stack):
            return False
    return True


# ---------------------------------------------------------------------------------------------------
# bindings
# ---------------------------------------------------------------------------------------------------
@nb.njit(cache=True, inline="always")
def _bind_var(TI, v, x, ev, kid, lo, hi, pool):
    """Bind variable ``v`` to slot value ``x``: an event's position, or a Kleene subset's pool entry and its
    first and last events."""
    if TI[TI[F_VAR_KIND] + v] == KLEENE:
        kid[v] = x
        lo[v] = pool[x, 1]
        hi[v] = pool[x, 2]
    else:
        ev[v] = x
        lo[v] = x
        hi[v] = x


@nb.njit(cache=True)
def _bind_row(TI, node, ar, at, ev, kid, lo, hi, pool):
    """Bind the variables of ``node`` to the slots of the row at ``ar[at:]`` of its store."""
    p0 = TI[TI[F_NODE_VARS_PTR] + node]
    for i in range(TI[TI[F_NODE_VARS_PTR] + node + 1] - p0):
        _bind_var(TI, TI[TI[F_NODE_VARS] + p0 + i], ar[at + 2 + i], ev, kid, lo, hi, pool)


@nb.njit(cache=True)
def _bind_clause(TI, k, row, ev, kid, lo, hi, pool):
    """Bind clause ``k``'s positive variables to ``row[1:]`` (declaration order)."""
    p0 = TI[TI[F_CLAUSE_POS_PTR] + k]
    for i in range(TI[TI[F_CLAUSE_POS_PTR] + k + 1] - p0):
        _bind_var(TI, TI[TI[F_CLAUSE_POS] + p0 + i], row[1 + i], ev, kid, lo, hi, pool)


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
def _distinct(TI, u, v, ev, kid, pool):
    ku, kv = TI[TI[F_VAR_KIND] + u] == KLEENE, TI[TI[F_VAR_KIND] + v] == KLEENE
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
def _kill_test(TI, TF, nb_id, x, ts, key, attrs, ev, kid, lo, hi, pool, L, strict, stack, cur):
    """Does event ``x`` kill the binding through the negated variable of buffer ``nb_id``?
    Returns 1 (kills), 0 (does not), 2 (does not, and no later event of the buffer can)."""
    for q in range(TI[TI[F_NEG_SAME_PTR] + nb_id], TI[TI[F_NEG_SAME_PTR] + nb_id + 1]):
        v = TI[TI[F_NEG_SAME] + q]
        if TI[TI[F_VAR_KIND] + v] == KLEENE:
            if _in_subset(pool, kid[v], x):
                return 0
        elif ev[v] == x:
            return 0
    for q in range(TI[TI[F_NEG_PRED_PTR] + nb_id], TI[TI[F_NEG_PRED_PTR] + nb_id + 1]):
        if not _before(ts[hi[TI[TI[F_NEG_PRED] + q]]], ts[x], strict):
            return 0
    for q in range(TI[TI[F_NEG_SUCC_PTR] + nb_id], TI[TI[F_NEG_SUCC_PTR] + nb_id + 1]):
        if not _before(ts[x], ts[lo[TI[TI[F_NEG_SUCC] + q]]], strict):
            return 2
    kmin = np.inf
    kmax = -np.inf
    for q in range(TI[TI[F_NEG_DEP_PTR] + nb_id], TI[TI[F_NEG_DEP_PTR] + nb_id + 1]):
        d = TI[TI[F_NEG_DEP] + q]
        kmin = min(kmin, key[lo[d]])
        kmax = max(kmax, key[hi[d]])
    if key[x] - kmin > L:
        return 2
    if kmax - key[x] > L:
        return 0
    n = TI[TI[F_NEG_VAR] + nb_id]
    ev[n] = x
    for q in range(TI[TI[F_NEG_COND_PTR] + nb_id], TI[TI[F_NEG_COND_PTR] + nb_id + 1]):
        if not _cond(TI, TF, TI[TI[F_NEG_COND] + q], attrs, ev, kid, pool, stack, cur):
            return 0
    return 1


@nb.njit(cache=True)
def _killed(TI, TF, nb_id, nar, b0, nbn, after, ts, key, attrs, ev, kid, lo, hi, pool, L, strict, stack, cur):
    """Does some event of negation buffer ``nb_id`` (``nar[b0 : b0 + nbn]``) later than event ``after``
    kill the binding?  The scan starts where the order and the window allow (binary searches) and stops
    where they end."""
    a, b = 0, nbn
    while a < b:  # first buffered event > after
        mid = (a + b) >> 1
        if nar[b0 + mid] <= after:
            a = mid + 1
        else:
            b = mid
    start = a
    tb = -np.inf
    for q in range(TI[TI[F_NEG_PRED_PTR] + nb_id], TI[TI[F_NEG_PRED_PTR] + nb_id + 1]):
        tb = max(tb, ts[hi[TI[TI[F_NEG_PRED] + q]]])
    kb = -np.inf
    for q in range(TI[TI[F_NEG_DEP_PTR] + nb_id], TI[TI[F_NEG_DEP_PTR] + nb_id + 1]):
        kb = max(kb, key[hi[TI[TI[F_NEG_DEP] + q]]])
    kb -= L
    a, b = start, nbn
    while a < b:
        mid = (a + b) >> 1
        x = nar[b0 + mid]
        if ts[x] < tb or (strict and ts[x] == tb) or key[x] < kb:
            a = mid + 1
        else:
            b = mid
    for i in range(a, nbn):
        r = _kill_test(TI, TF, nb_id, nar[b0 + i], ts, key, attrs, ev, kid, lo, hi, pool, L, strict, stack, cur)
        if r == 1:
            return True
        if r == 2:
            return False
    return False


# ---------------------------------------------------------------------------------------------------
# stores
# ---------------------------------------------------------------------------------------------------
@nb.njit(cache=True)
def _hash_insert(TI, TF, s, ar, at, r, hashes, attrs, ev, kid, lo, hi, pool, stack):
    """File row ``r`` (at ``ar[at:]``) of store ``s`` in its hash bucket: the bucket's head is the newest
    row, each row points to the one before it (-1: none; -2: its key is undefined, in no bucket)."""
    w = TI[TI[F_STORE_WIDTH] + s]
    _bind_row(TI, TI[TI[F_STORE_NODE] + s], ar, at, ev, kid, lo, hi, pool)
    v, ok = _eval_expr(TI, TF, TI[TI[F_STORE_HASH_EXPR] + s], attrs, ev, stack)
    if not ok or v != v:  # a division by zero or NaN: equal to nothing
        ar[at + w - 1] = -2
        return
    k = v + 0.0  # -0.0 keys as 0.0
    h = hashes[s]
    ar[at + w - 1] = h[k] if k in h else -1
    h[k] = r


@nb.njit(cache=True)
def _rebuild_hash(TI, TF, s, ar, sbase, ssize, hashes, attrs, ev, kid, lo, hi, pool, stack):
    if TI[TI[F_STORE_HASH_EXPR] + s] < 0:
        return
    hashes[s].clear()
    w = TI[TI[F_STORE_WIDTH] + s]
    for r in range(ssize[s]):
        _hash_insert(TI, TF, s, ar, sbase[s] + r * w, r, hashes, attrs, ev, kid, lo, hi, pool, stack)


@nb.njit(cache=True)
def _compact_store(TI, TF, s, ar, sbase, ssize, swid, hashes, fp, attrs, ev, kid, lo, hi, pool, stack):
    """Drop the expired rows of store ``s`` in place (their count already left ``live``); the rows kept
    keep their order."""
    n = ssize[s]
    w = swid[s]
    b = sbase[s]
    keep = 0
    for r in range(n):
        if ar[b + r * w + 1] >= fp:
            if keep != r:
                ar[b + keep * w : b + keep * w + w] = ar[b + r * w : b + r * w + w]
            keep += 1
    if keep != n:
        ssize[s] = keep
        _rebuild_hash(TI, TF, s, ar, sbase, ssize, hashes, attrs, ev, kid, lo, hi, pool, stack)


@nb.njit(cache=True)
def _row_hits(TI, s, ar, at, consumed, pool):
    """Does the row at ``ar[at:]`` of store ``s`` hold a consumed event?"""
    node = TI[TI[F_STORE_NODE] + s]
    p0 = TI[TI[F_NODE_VARS_PTR] + node]
    for i in range(TI[TI[F_NODE_VARS_PTR] + node + 1] - p0):
        x = ar[at + 2 + i]
        if TI[TI[F_VAR_KIND] + TI[TI[F_NODE_VARS] + p0 + i]] == KLEENE:
            while x >= 0:
                if consumed[pool[x, 2]]:
                    return True
                x = pool[x, 0]
        elif consumed[x]:
            return True
    return False


@nb.njit(cache=True)
def _purge(TI, TF, ar, sbase, ssize, swid, hashes, consumed, pool, ring, C, attrs, ev, kid, lo, hi, stack):
    """Drop every stored row holding a consumed event (skip-till-next-match)."""
    fp = C[C_FP]
    mask = ring.shape[0] - 1
    for s in range(TI[TI[F_INTS] + I_STORES]):
        kind = TI[TI[F_STORE_KIND] + s]
        w = swid[s]
        b = sbase[s]
        size = ROW_BYTES * w + (POOL_BYTES if kind == KLEENE_STORE else 0)
        keep = 0
        for r in range(ssize[s]):
            at = b + r * w
            if _row_hits(TI, s, ar, at, consumed, pool):
                m = ar[at + 1]
                if m >= fp:
                    if kind == EVENT_STORE:
                        ring[m & mask, 1] -= 1
                        C[C_BUF] -= 1
                    else:
                        ring[m & mask, 0] -= 1
                        C[C_LIVE] -= 1
                        C[C_PURGED] += 1
                    ring[m & mask, 2] -= size
                    C[C_NBYTES] -= size
            else:
                if keep != r:
                    ar[b + keep * w : b + keep * w + w] = ar[at : at + w]
                keep += 1
        if keep != ssize[s]:
            ssize[s] = keep
            _rebuild_hash(TI, TF, s, ar, sbase, ssize, hashes, attrs, ev, kid, lo, hi, pool, stack)


@nb.njit(cache=True)
def _compact_pool(TI, TF, ar, sbase, ssize, swid, hashes, pool, C, pend, attrs, ev, kid, lo, hi, stack):
    """Drop the Kleene subsets no live stored row or parked match refers to (ids are renumbered; a
    parent always has a smaller id than its extensions).  Stores drop their expired rows too."""
    n = C[C_POOL]
    fp = C[C_FP]
    mark = np.zeros(n, np.bool_)
    n_stores = TI[TI[F_INTS] + I_STORES]
    for s in range(n_stores):
        w = swid[s]
        b = sbase[s]
        keep = 0
        for r in range(ssize[s]):
            if ar[b + r * w + 1] >= fp:
                if keep != r:
                    ar[b + keep * w : b + keep * w + w] = ar[b + r * w : b + r * w + w]
                keep += 1
        ssize[s] = keep
        node = TI[TI[F_STORE_NODE] + s]
        p0 = TI[TI[F_NODE_VARS_PTR] + node]
        for i in range(TI[TI[F_NODE_VARS_PTR] + node + 1] - p0):
            if TI[TI[F_VAR_KIND] + TI[TI[F_NODE_VARS] + p0 + i]] == KLEENE:
                for r in range(keep):
                    mark[ar[b + r * w + 2 + i]] = True
    for e in range(C[C_NPEND]):
        k = pend[e, 0]
        p0 = TI[TI[F_CLAUSE_POS_PTR] + k]
        for i in range(TI[TI[F_CLAUSE_POS_PTR] + k + 1] - p0):
            if TI[TI[F_VAR_KIND] + TI[TI[F_CLAUSE_POS] + p0 + i]] == KLEENE:
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
    for s in range(n_stores):
        w = swid[s]
        b = sbase[s]
        node = TI[TI[F_STORE_NODE] + s]
        p0 = TI[TI[F_NODE_VARS_PTR] + node]
        for i in range(TI[TI[F_NODE_VARS_PTR] + node + 1] - p0):
            if TI[TI[F_VAR_KIND] + TI[TI[F_NODE_VARS] + p0 + i]] == KLEENE:
                for r in range(ssize[s]):
                    ar[b + r * w + 2 + i] = new_id[ar[b + r * w + 2 + i]]
        _rebuild_hash(TI, TF, s, ar, sbase, ssize, hashes, attrs, ev, kid, lo, hi, pool, stack)
    for e in range(C[C_NPEND]):
        k = pend[e, 0]
        p0 = TI[TI[F_CLAUSE_POS_PTR] + k]
        for i in range(TI[TI[F_CLAUSE_POS_PTR] + k + 1] - p0):
            if TI[TI[F_VAR_KIND] + TI[TI[F_CLAUSE_POS] + p0 + i]] == KLEENE:
                pend[e, 1 + i] = new_id[pend[e, 1 + i]]


# ---------------------------------------------------------------------------------------------------
# match entries: this event's matches, parked ones, released ones -- rows of int64
#   [clause, slot..., release position, arrival clock, latency work, work mark, release position bound]
# ---------------------------------------------------------------------------------------------------
@nb.njit(cache=True, inline="always")
def _xr(max_slots):
    return 1 + max_slots  # release position r (then X_T0 = +1, X_LW = +2, X_W = +3, X_RELP = +4)


@nb.njit(cache=True)
def _entry_events(TI, rows, e, pool, ev_out):
    """The filtered event indices of entry ``e`` into ``ev_out``; returns how many (Kleene elements in
    stream order)."""
    k = rows[e, 0]
    p0 = TI[TI[F_CLAUSE_POS_PTR] + k]
    n = 0
    for i in range(TI[TI[F_CLAUSE_POS_PTR] + k + 1] - p0):
        x = rows[e, 1 + i]
        if TI[TI[F_VAR_KIND] + TI[TI[F_CLAUSE_POS] + p0 + i]] == KLEENE:
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
def _entry_size(TI, rows, e, pool):
    k = rows[e, 0]
    p0 = TI[TI[F_CLAUSE_POS_PTR] + k]
    n = 0
    for i in range(TI[TI[F_CLAUSE_POS_PTR] + k + 1] - p0):
        n += pool[rows[e, 1 + i], 3] if TI[TI[F_VAR_KIND] + TI[TI[F_CLAUSE_POS] + p0 + i]] == KLEENE else 1
    return n


@nb.njit(cache=True)
def _report_need(TI, rows, count, pool, collect, select, C, out, oute, lat, kbuf, scratch, ordb):
    """The first buffer too small to report ``count`` entries: (NEED_*, size needed), or (0, 0)."""
    most = 0
    total = 0
    for e in range(count):
        n = _entry_size(TI, rows, e, pool)
        most = max(most, n)
        total += n
    if most > scratch.shape[0]:
        return NEED_SCRATCH, most
    if (collect or select) and 2 * total > kbuf.shape[0]:
        return NEED_KBUF, 2 * total
    if collect and C[C_NOUT] + count > out.shape[0]:
        return NEED_OUT, C[C_NOUT] + count
    if collect and C[C_NOUTE] + total + count > oute.shape[0]:
        return NEED_OUTE, C[C_NOUTE] + total + count
    if C[C_NLAT] + count + 1 > lat.shape[0]:
        return NEED_LAT, C[C_NLAT] + count + 1
    if 3 * count + 1 > ordb.shape[0]:
        return NEED_ORDB, 3 * count + 1
    return 0, 0


@nb.njit(cache=True)
def _entry_keys(TI, rows, count, pool, pos, kptr, kbuf, scratch):
    """For each entry, its canonical key material in ``kbuf`` from ``kptr[i]``: the sorted positions
    of its events, then the positions by variable (cep.semantics, "canonical order")."""
    used = 0
    for i in range(count):
        n = _entry_events(TI, rows, i, pool, scratch)
        kptr[i] = used
        for q in range(n):
            x = pos[scratch[q]]
            kbuf[used + n + q] = x
            t = used + q  # insertion into the sorted prefix (entries are short)
            while t > used and kbuf[t - 1] > x:
                kbuf[t] = kbuf[t - 1]
                t -= 1
            kbuf[t] = x
        used += 2 * n
    kptr[count] = used


@nb.njit(cache=True)
def _entry_less(TI, a, b, rows, xr, kptr, kbuf, pool):
    if rows[a, xr] != rows[b, xr]:
        return rows[a, xr] < rows[b, xr]
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
    p0 = TI[TI[F_CLAUSE_POS_PTR] + ka]
    ia, ib = kptr[a] + la, kptr[b] + lb
    for i in range(TI[TI[F_CLAUSE_POS_PTR] + ka + 1] - p0):
        if TI[TI[F_VAR_KIND] + TI[TI[F_CLAUSE_POS] + p0 + i]] == KLEENE:
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
def _canonical_order(TI, rows, count, xr, pool, pos, kbuf, scratch, ordb):
    """Indices of the entries sorted by (release, canonical key): a stable merge sort (``ordb``: room
    for ``3 * count + 1`` integers)."""
    kptr = ordb[: count + 1]
    _entry_keys(TI, rows, count, pool, pos, kptr, kbuf, scratch)
    idx = ordb[count + 1 : 2 * count + 1]
    tmp = ordb[2 * count + 1 : 3 * count + 1]
    for i in range(count):
        idx[i] = i
    width = 1
    while width < count:
        for start in range(0, count, 2 * width):
            mid = min(start + width, count)
            end = min(start + 2 * width, count)
            i, j, o = start, mid, start
            while i < mid and j < end:
                if _entry_less(TI, idx[j], idx[i], rows, xr, kptr, kbuf, pool):
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
        tmp2 = idx
        idx = tmp
        tmp = tmp2
        width *= 2
    return idx


@nb.njit(cache=True)
def _report(TI, rows, count, per_entry_t0, pool, pos, consumed, select, collect, record, C, out, oute, lat, kbuf, scratch,
            ordb, tick_now):
    """Report ``count`` entries (room checked by :func:`_report_need`): canonical order when collected or
    selected, skip-till-next-match selection, counters, latency, output rows.  Returns whether events
    were consumed (the caller then purges)."""
    xr = _xr(TI[TI[F_INTS] + I_MAX_SLOTS])
    ordered = (collect or select) and count > 1
    order = _canonical_order(TI, rows, count, xr, pool, pos, kbuf, scratch, ordb) if ordered else ordb[:1]
    newly = False
    now = tick_now
    accepted = 0
    for oi in range(count):
        e = order[oi] if ordered else oi
        if select:
            n = _entry_events(TI, rows, e, pool, scratch)
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
        C[C_LATWORK] += rows[e, xr + 2]
        if record and per_entry_t0:
            lat[C[C_NLAT], 0] = now - rows[e, xr + 1]
            lat[C[C_NLAT], 1] = 1
            C[C_NLAT] += 1
        if collect:
            k = rows[e, 0]
            o = C[C_NOUT]
            out[o, 0] = k
            p0 = TI[TI[F_CLAUSE_POS_PTR] + k]
            for i in range(TI[TI[F_CLAUSE_POS_PTR] + k + 1] - p0):
                x = rows[e, 1 + i]
                if TI[TI[F_VAR_KIND] + TI[TI[F_CLAUSE_POS] + p0 + i]] == KLEENE:
                    ln = pool[x, 3]
                    base = C[C_NOUTE]
                    oute[base] = ln
                    q = base + ln
                    while x >= 0:
                        oute[q] = pos[pool[x, 2]]
                        q -= 1
                        x = pool[x, 0]
                    out[o, 1 + i] = base
                    C[C_NOUTE] += ln + 1
                else:
                    out[o, 1 + i] = pos[x]
            C[C_NOUT] += 1
    if record and not per_entry_t0 and accepted > 0:
        lat[C[C_NLAT], 0] = now - rows[0, xr + 1]
        lat[C[C_NLAT], 1] = accepted
        C[C_NLAT] += 1
    return newly


# ---------------------------------------------------------------------------------------------------
# completion of a match at a clause's root
# ---------------------------------------------------------------------------------------------------
@nb.njit(cache=True)
def _contiguous(TI, k, ev, kid, pool, pos, pa, pp, strategy):
    """The exact contiguity test of a full match (strict: consecutive stream positions; partition: one
    partition, consecutive positions in it)."""
    key = pos if strategy == STRICT else pp
    kmin = np.iinfo(np.int64).max
    kmax = np.iinfo(np.int64).min
    count = 0
    part = -1
    first = True
    p0 = TI[TI[F_CLAUSE_POS_PTR] + k]
    for i in range(TI[TI[F_CLAUSE_POS_PTR] + k + 1] - p0):
        v = TI[TI[F_CLAUSE_POS] + p0 + i]
        x = kid[v] if TI[TI[F_VAR_KIND] + v] == KLEENE else -1
        e = ev[v] if x < 0 else pool[x, 2]
        while True:
            kmin = min(kmin, key[e])
            kmax = max(kmax, key[e])
            count += 1
            if strategy == PARTITION:
                if first:
                    part = pa[e]
                    first = False
                elif pa[e] != part:
                    return False
            if x < 0:
                break
            x = pool[x, 0]
            if x < 0:
                break
            e = pool[x, 2]
    return kmax - kmin == count - 1


@nb.njit(cache=True)
def _match_survives(TI, TF, k, ev, kid, lo, hi, pool, ts, key, pos, attrs, pa, pp, nar, nbase, nsize, strategy, strict, L,
                    stack, cur):
    """A full match of clause ``k``: the exact contiguity test and the negation checks left for the
    root (cep.semantics, "Negation")."""
    if strategy == STRICT or strategy == PARTITION:
        if not _contiguous(TI, k, ev, kid, pool, pos, pa, pp, strategy):
            return False
    for q in range(TI[TI[F_CLAUSE_ROOTNEG_PTR] + k], TI[TI[F_CLAUSE_ROOTNEG_PTR] + k + 1]):
        b = TI[TI[F_VAR_NB] + TI[TI[F_CLAUSE_ROOTNEG] + q]]
        if _killed(TI, TF, b, nar, nbase[b], nsize[b], -1, ts, key, attrs, ev, kid, lo, hi, pool, L, strict, stack, cur):
            return False
    for q in range(TI[TI[F_CLAUSE_EARLYNEG_PTR] + k], TI[TI[F_CLAUSE_EARLYNEG_PTR] + k + 1]):
        b = TI[TI[F_VAR_NB] + TI[TI[F_CLAUSE_EARLYNEG] + q]]
        node = TI[TI[F_CLAUSE_EARLYNEG_NODE] + q]
        created = -1  # the event at which the early check ran: it saw the buffer up to there
        for i in range(TI[TI[F_NODE_VARS_PTR] + node], TI[TI[F_NODE_VARS_PTR] + node + 1]):
            created = max(created, hi[TI[TI[F_NODE_VARS] + i]])
        if _killed(TI, TF, b, nar, nbase[b], nsize[b], created, ts, key, attrs, ev, kid, lo, hi, pool, L, strict, stack, cur):
            return False
    return True


@nb.njit(cache=True)
def _emit(TI, k, j, t0, ev, kid, lo, pool, ts, pos, C, bt, pe, pend_t, W):
    """A full match of clause ``k`` (its variables bound; room checked): with this event's matches
    (``bt``), or parked until its release point (``pe``; cep.semantics, "Release").  Returns its
    release time when parked, +inf otherwise."""
    xr = _xr(TI[TI[F_INTS] + I_MAX_SLOTS])
    release = TI[TI[F_CLAUSE_RELEASE] + k]
    parked = release != RELEASE_NOW
    e = C[C_NPEND] if parked else C[C_NBATCH]
    rows = pe if parked else bt
    rows[e, 0] = k
    p0 = TI[TI[F_CLAUSE_POS_PTR] + k]
    npos = TI[TI[F_CLAUSE_POS_PTR] + k + 1] - p0
    for i in range(npos):
        v = TI[TI[F_CLAUSE_POS] + p0 + i]
        rows[e, 1 + i] = kid[v] if TI[TI[F_VAR_KIND] + v] == KLEENE else ev[v]
    rows[e, xr + 1] = t0
    rows[e, xr + 2] = 0
    if not parked:
        C[C_NBATCH] += 1
        return np.inf
    mn = np.iinfo(np.int64).max
    for i in range(npos):
        mn = min(mn, lo[TI[TI[F_CLAUSE_POS] + p0 + i]])
    if release == RELEASE_WINDOW_TIME:
        rel_t = ts[mn] + W
        rel_p = 0
    elif release == RELEASE_WINDOW_COUNT:
        rel_t = ts[j]
        rel_p = pos[mn] + TI[TI[F_INTS] + I_WINDOW_N]
    else:
        rel_t = ts[j]
        rel_p = 0
    rows[e, xr + 3] = 0
    rows[e, xr + 4] = rel_p
    pend_t[e] = rel_t
    C[C_NPEND] += 1
    return rel_t


# ---------------------------------------------------------------------------------------------------
# the lazy path: a resumable event loop that never replaces an array, and a driver that grows them
# ---------------------------------------------------------------------------------------------------
# What the event loop asks the driver for when a buffer is full (C[C_NEED], C[C_NEED_ARG], C[C_NEED_SIZE]):
(NEED_STORE, NEED_NBUF, NEED_POOL, NEED_BATCH, NEED_PEND, NEED_REL, NEED_OUT, NEED_OUTE, NEED_LAT, NEED_RING, NEED_PW,
 NEED_KBUF, NEED_SCRATCH, NEED_ORDB) = range(1, 15)
# the resume state of the event loop (R): where it stopped
(R_J, R_STAGE, R_Q, R_NODE, R_NNEW, R_RI, R_CI, R_EXAM, R_FIRST_NEXT, R_NB0, R_PEND0, R_NNEXT, R_PWC, R_T0, R_PEND_BEFORE,
 R_KLR, R_KLN0, R_FP, R_NC0) = range(19)
N_RESUME = 19
C_NEED, C_NEED_ARG, C_NEED_SIZE = N_COUNTERS, N_COUNTERS + 1, N_COUNTERS + 2


@nb.njit(cache=True)
def _need(C, what, arg, size):
    C[C_NEED] = what
    C[C_NEED_ARG] = arg
    C[C_NEED_SIZE] = size


@nb.njit(cache=True)
def _stop(C, status, value, processed):
    C[C_STATUS] = status
    C[C_STATUS_VALUE] = value
    C[C_PROCESSED] = processed


@nb.njit(cache=True)
def _lazy_events(TI, TF, codes, ts, key, pos, attrs, pa, pp, full_ts, n_total, cap, wcap, collect, record, direct, count_only,
                 C, R, ring, consumed, ev, kid, lo, hi, hev, hkid, hlo, hhi, stack, cur,
                 ar, sbase, scap, ssize, swid, hashes, nar, nbase, ncap, nsize, pool,
                 bt, pe, pend_t, rl, pw, out, oute, lat, kbuf, scratch, ordb, tsc):
    """Process events from the resume point ``R`` until the stream ends (True), a cap stops the run
    (True, ``C[C_STATUS]``) or a buffer is full (False, ``C[C_NEED]``: the driver grows it and calls
    again; nothing is half done: every step checks its room before it changes anything)."""
    n = len(codes)
    g = TI[F_INTS]
    strategy = TI[g + I_STRATEGY]
    strict = TI[g + I_SEQ_STRICT] == 1
    max_slots = TI[g + I_MAX_SLOTS]
    cspan = TI[g + I_POSITION_SPAN]
    is_nfa = TI[g + I_NFA] == 1
    L = TF[TI[G_FLOATS]]
    W = TF[TI[G_FLOATS] + 1]
    select = strategy == NEXT
    contig = strategy == STRICT or strategy == PARTITION
    ckey = pos if strategy != PARTITION else pp  # the positions contiguity counts in
    xr = _xr(max_slots)
    mask = ring.shape[0] - 1
    fp = R[R_FP]
    C[C_NEED] = 0
    relT = np.inf
    for e in range(C[C_NPEND]):
        relT = min(relT, pend_t[e])
    while R[R_J] < n:
        j = R[R_J]
        if R[R_STAGE] == 0:
            # ---- stage 0: window frontier, release of parked matches, negated variables ------------
            t0 = clock(record, tsc)
            R[R_T0] = t0
            thr = key[j] - L
            while key[fp] < thr or (cspan >= 0 and pos[fp] < pos[j] - cspan):
                m = fp & mask
                C[C_LIVE] -= ring[m, 0]
                C[C_BUF] -= ring[m, 1]
                C[C_NBYTES] -= ring[m, 2]
                ring[m, 0] = 0
                ring[m, 1] = 0
                ring[m, 2] = 0
                fp += 1
            R[R_FP] = fp
            C[C_FP] = fp
            if j - fp + 1 > mask:
                _need(C, NEED_RING, 0, 0)
                return False
            if C[C_NPEND] > 0 and ts[j] > relT:
                if C[C_NPEND] > rl.shape[0]:
                    _need(C, NEED_REL, 0, C[C_NPEND])
                    return False
                nrel = 0
                for e in range(C[C_NPEND]):
                    if ts[j] > pend_t[e] and pos[j] >= pe[e, xr + 4]:
                        rl[nrel] = pe[e]
                        nrel += 1
                what, size = _report_need(TI, rl, nrel, pool, collect, select, C, out, oute, lat, kbuf, scratch, ordb)
                if what:
                    _need(C, what, 0, size)
                    return False
                keep = 0
                relT = np.inf
                nrel = 0
                for e in range(C[C_NPEND]):
                    if ts[j] > pend_t[e] and pos[j] >= pe[e, xr + 4]:
                        rl[nrel, xr] = min(max(_search_right(full_ts, len(full_ts), pend_t[e]), pe[e, xr + 4]), n_total)
                        rl[nrel, xr + 2] = pe[e, xr + 2] + C[C_WORK] - pe[e, xr + 3]
                        nrel += 1
                    else:
                        if keep != e:
                            pe[keep] = pe[e]
                            pend_t[keep] = pend_t[e]
                        relT = min(relT, pend_t[e])
                        keep += 1
                C[C_NPEND] = keep
                if _report(TI, rl, nrel, True, pool, pos, consumed, select, collect, record, C, out, oute, lat, kbuf, scratch, ordb, clock(record, tsc)):
                    _purge(TI, TF, ar, sbase, ssize, swid, hashes, consumed, pool, ring, C, attrs, hev, hkid, hlo, hhi, stack)
            if C[C_POOL] > 0 and 2 * C[C_POOL] > pool.shape[0]:  # Kleene subsets: between events only
                _compact_pool(TI, TF, ar, sbase, ssize, swid, hashes, pool, C, pe, attrs, hev, hkid, hlo, hhi, stack)
                if 4 * C[C_POOL] > pool.shape[0]:
                    _need(C, NEED_POOL, 0, C[C_POOL] + 1)
                    return False
            c = codes[j]
            q0, q1 = TI[TI[F_TYPE_NEG_PTR] + c], TI[TI[F_TYPE_NEG_PTR] + c + 1]
            for q in range(q0, q1):  # room in each negation buffer first: then buffer and kill at once
                b = TI[TI[F_VAR_NB] + TI[TI[F_TYPE_NEG] + q]]
                if nsize[b] == ncap[b]:
                    horizon = key[j] - 2 * L  # a negated event kills only with events of a live binding
                    b0 = nbase[b]
                    keep = 0
                    for i in range(nsize[b]):
                        x = nar[b0 + i]
                        if key[x] >= horizon:
                            nar[b0 + keep] = x
                            keep += 1
                    nsize[b] = keep
                    if 2 * keep > ncap[b]:
                        _need(C, NEED_NBUF, b, keep + 1)
                        return False
            for q in range(q0, q1):
                nv = TI[TI[F_TYPE_NEG] + q]
                if TI[TI[F_VAR_UNARY_PTR] + nv] != TI[TI[F_VAR_UNARY_PTR] + nv + 1] and not _unary_ok(TI, TF, nv, j, attrs, ev, kid, pool, stack, cur):
                    continue
                b = TI[TI[F_VAR_NB] + nv]
                nar[nbase[b] + nsize[b]] = j
                nsize[b] += 1
                k = TI[TI[F_VAR_CLAUSE] + nv]
                if C[C_NPEND] > 0:
                    keep = 0
                    for e in range(C[C_NPEND]):
                        killed = False
                        if pe[e, 0] == k:
                            _bind_clause(TI, k, pe[e], ev, kid, lo, hi, pool)
                            killed = _kill_test(TI, TF, b, j, ts, key, attrs, ev, kid, lo, hi, pool, L, strict, stack, cur) == 1
                        if not killed:
                            if keep != e:
                                pe[keep] = pe[e]
                                pend_t[keep] = pend_t[e]
                            keep += 1
                    C[C_NPEND] = keep
                    relT = np.inf
                    for e in range(keep):
                        relT = min(relT, pend_t[e])
            R[R_PEND_BEFORE] = C[C_NPEND]
            R[R_STAGE] = 1
            R[R_Q] = TI[TI[F_TYPE_POS_PTR] + c]
            R[R_NODE] = -1
        t0 = R[R_T0]
        c = codes[j]
        if R[R_STAGE] == 1:
            # ---- stage 1: each positive variable of the type: its leaf, then the join path to the root ----
            while R[R_Q] < TI[TI[F_TYPE_POS_PTR] + c + 1]:
                v = TI[TI[F_TYPE_POS] + R[R_Q]]
                k = TI[TI[F_VAR_CLAUSE] + v]
                root = TI[TI[F_CLAUSE_ROOT] + k]
                leaf = TI[TI[F_VAR_LEAF] + v]
                if R[R_NODE] == -1:
                    if TI[TI[F_VAR_UNARY_PTR] + v] != TI[TI[F_VAR_UNARY_PTR] + v + 1] and not _unary_ok(TI, TF, v, j, attrs, ev, kid, pool, stack, cur):
                        R[R_Q] += 1
                        continue
                    if TI[TI[F_VAR_KIND] + v] == KLEENE:
                        # every live subset in the store extended by j, and j alone
                        s = TI[TI[F_NODE_STORE] + leaf]
                        w = swid[s]
                        if R[R_KLR] == -2:
                            if ssize[s] == scap[s]:
                                _compact_store(TI, TF, s, ar, sbase, ssize, swid, hashes, fp, attrs, hev, hkid, hlo, hhi, pool, stack)
                            most = ssize[s] + 1  # new subsets at most: room for them first, where they go next
                            if most > pw.shape[0]:
                                _need(C, NEED_PW, 0, most)
                                return False
                            if leaf == root and C[C_NBATCH] + most > bt.shape[0]:
                                _need(C, NEED_BATCH, 0, C[C_NBATCH] + most)
                                return False
                            if leaf == root and C[C_NPEND] + most > pe.shape[0]:
                                _need(C, NEED_PEND, 0, C[C_NPEND] + most)
                                return False
                            R[R_KLR] = -1
                            R[R_KLN0] = ssize[s]
                        vmax = TI[TI[F_VAR_MAX] + v]
                        while R[R_KLR] < R[R_KLN0]:
                            if ssize[s] == scap[s]:  # grow, not compact: the rows before are being read
                                _need(C, NEED_STORE, s, ssize[s] + 1)
                                return False
                            if C[C_POOL] >= pool.shape[0]:
                                _need(C, NEED_POOL, 0, C[C_POOL] + 1)
                                return False
                            r = R[R_KLR]
                            R[R_KLR] += 1
                            sid = -1
                            if r >= 0:
                                at = sbase[s] + r * w
                                if ar[at + 1] < fp:
                                    continue
                                sid = ar[at + 2]
                                C[C_WORK] += 1
                                if C[C_WORK] > wcap:
                                    _stop(C, STATUS_WORK, C[C_WORK], pos[j])
                                    return True
                                if vmax >= 0 and pool[sid, 3] >= vmax:
                                    continue
                                last = pool[sid, 2]
                                if strict and not ts[last] < ts[j]:
                                    continue
                                if TI[TI[F_VAR_CONTIG] + v] == 1:
                                    if strategy == STRICT and pos[last] + 1 != pos[j]:
                                        continue
                                    if strategy == PARTITION and (pa[last] != pa[j] or pp[last] + 1 != pp[j]):
                                        continue
                            nid = C[C_POOL]
                            pool[nid, 0] = sid
                            pool[nid, 1] = j if sid < 0 else pool[sid, 1]
                            pool[nid, 2] = j
                            pool[nid, 3] = 1 if sid < 0 else pool[sid, 3] + 1
                            C[C_POOL] += 1
                            m = pool[nid, 1]
                            at = sbase[s] + ssize[s] * w
                            ar[at] = j
                            ar[at + 1] = m
                            ar[at + 2] = nid
                            if TI[TI[F_STORE_HASH_EXPR] + s] >= 0:
                                _hash_insert(TI, TF, s, ar, at, ssize[s], hashes, attrs, hev, hkid, hlo, hhi, pool, stack)
                            ssize[s] += 1
                            ring[m & mask, 0] += 1
                            ring[m & mask, 2] += ROW_BYTES * w + POOL_BYTES
                            C[C_NBYTES] += ROW_BYTES * w + POOL_BYTES
                            C[C_CREATED] += 1
                            C[C_LIVE] += 1
                            if C[C_LIVE] > cap:
                                _stop(C, STATUS_PARTIAL_MATCHES, C[C_LIVE], pos[j])
                                return True
                        R[R_KLR] = -2
                        nnew = ssize[s] - R[R_KLN0]
                    elif leaf != root:
                        s = TI[TI[F_NODE_STORE] + leaf]
                        if ssize[s] == scap[s]:
                            _compact_store(TI, TF, s, ar, sbase, ssize, swid, hashes, fp, attrs, hev, hkid, hlo, hhi, pool, stack)
                            if 2 * ssize[s] > scap[s]:
                                _need(C, NEED_STORE, s, ssize[s] + 1)
                                return False
                        w = swid[s]
                        at = sbase[s] + ssize[s] * w
                        ar[at] = j
                        ar[at + 1] = j
                        ar[at + 2] = j
                        if TI[TI[F_STORE_HASH_EXPR] + s] >= 0:
                            _hash_insert(TI, TF, s, ar, at, ssize[s], hashes, attrs, hev, hkid, hlo, hhi, pool, stack)
                        ssize[s] += 1
                        nnew = 1
                        ring[j & mask, 1] += 1
                        ring[j & mask, 2] += ROW_BYTES * w
                        C[C_NBYTES] += ROW_BYTES * w
                        C[C_BUF] += 1
                    else:
                        if C[C_NBATCH] >= bt.shape[0]:  # a clause of one plain variable
                            _need(C, NEED_BATCH, 0, C[C_NBATCH] + 1)
                            return False
                        if C[C_NPEND] >= pe.shape[0]:
                            _need(C, NEED_PEND, 0, C[C_NPEND] + 1)
                            return False
                        nnew = 1
                    if leaf == root:
                        # a clause of one variable: the event (or each new subset of enough events) is a match
                        if TI[TI[F_VAR_KIND] + v] == KLEENE:
                            s = TI[TI[F_NODE_STORE] + leaf]
                            w = swid[s]
                            for r in range(ssize[s] - nnew, ssize[s]):
                                at = sbase[s] + r * w
                                if pool[ar[at + 2], 3] < TI[TI[F_VAR_MIN] + v]:
                                    continue
                                _bind_row(TI, leaf, ar, at, ev, kid, lo, hi, pool)
                                if count_only[k]:
                                    C[C_NCOUNT] += 1
                                elif direct[k] or _match_survives(TI, TF, k, ev, kid, lo, hi, pool, ts, key, pos, attrs, pa, pp, nar,
                                                                  nbase, nsize, strategy, strict, L, stack, cur):
                                    relT = min(relT, _emit(TI, k, j, t0, ev, kid, lo, pool, ts, pos, C, bt, pe, pend_t, W))
                        else:
                            ev[v] = j
                            lo[v] = j
                            hi[v] = j
                            if count_only[k]:
                                C[C_NCOUNT] += 1
                            elif direct[k] or _match_survives(TI, TF, k, ev, kid, lo, hi, pool, ts, key, pos, attrs, pa, pp, nar,
                                                              nbase, nsize, strategy, strict, L, stack, cur):
                                relT = min(relT, _emit(TI, k, j, t0, ev, kid, lo, pool, ts, pos, C, bt, pe, pend_t, W))
                        R[R_Q] += 1
                        continue
                    R[R_PWC] = 0
                    for i in range(nnew):
                        pw[i, 0] = 0
                    R[R_NODE] = leaf
                    R[R_NNEW] = nnew
                    R[R_RI] = 0
                    R[R_CI] = -2
                    R[R_NNEXT] = 0
                # ---- up the join path, one level at a time ----------------------------------------------
                while R[R_NODE] != root and R[R_NNEW] > 0:
                    node = R[R_NODE]
                    nnew = R[R_NNEW]
                    pc = R[R_PWC]
                    P = TI[TI[F_NODE_PARENT] + node]
                    side = 0 if TI[TI[F_NODE_LEFT] + P] == node else 1
                    S = TI[TI[F_NODE_RIGHT] + P] if side == 0 else TI[TI[F_NODE_LEFT] + P]
                    cs = TI[TI[F_NODE_STORE] + node]
                    ss = TI[TI[F_NODE_STORE] + S]
                    ps = TI[TI[F_NODE_STORE] + P]
                    cw = swid[cs]
                    sw = swid[ss]
                    kc = TI[TI[F_NODE_VARS_PTR] + node + 1] - TI[TI[F_NODE_VARS_PTR] + node]
                    ks = TI[TI[F_NODE_VARS_PTR] + S + 1] - TI[TI[F_NODE_VARS_PTR] + S]
                    start = ssize[cs] - nnew
                    kleene_leaf = TI[TI[F_STORE_KIND] + cs] == KLEENE_STORE
                    vmin = TI[TI[F_VAR_MIN] + TI[TI[F_NODE_VAR] + node]] if kleene_leaf else 1
                    smin = TI[TI[F_VAR_MIN] + TI[TI[F_NODE_VAR] + S]] if TI[TI[F_STORE_KIND] + ss] == KLEENE_STORE else 1
                    # on the lazy NFA an event of the k-th variable (k > 1) is the transition of each instance
                    # waiting for it in state k (JQPG 2.2): one step on that instance's path, not a scan
                    nfa_transition = is_nfa and side == 1 and TI[TI[F_NODE_VAR] + node] >= 0
                    hcond = TI[TI[F_NODE_HASH] + 2 * P + side]
                    o0 = TI[TI[F_NODE_ORDER_PTR] + P]
                    o1 = TI[TI[F_NODE_ORDER_PTR] + P + 1]
                    sleaf_var = TI[TI[F_NODE_VAR] + S]
                    cp0 = TI[TI[F_NODE_VARS_PTR] + node]
                    sp0 = TI[TI[F_NODE_VARS_PTR] + S]
                    while R[R_RI] < nnew:
                        ri = R[R_RI]
                        r = start + ri
                        cat = sbase[cs] + r * cw
                        if kleene_leaf and pool[ar[cat + 2], 3] < vmin:
                            R[R_RI] += 1
                            continue
                        if R[R_CI] == -2:  # a new scan: mark where its results begin
                            R[R_EXAM] = 0
                            R[R_FIRST_NEXT] = R[R_NNEXT]
                            R[R_NB0] = C[C_NBATCH]
                            R[R_PEND0] = C[C_NPEND]
                            R[R_NC0] = C[C_NCOUNT]
                        for i in range(kc):
                            vv = TI[TI[F_NODE_VARS] + cp0 + i]
                            x = ar[cat + 2 + i]
                            if TI[TI[F_VAR_KIND] + vv] == KLEENE:
                                kid[vv] = x
                                lo[vv] = pool[x, 1]
                                hi[vv] = pool[x, 2]
                            else:
                                ev[vv] = x
                                lo[vv] = x
                                hi[vv] = x
                        mr = ar[cat + 1]
                        ns = ssize[ss]
                        # -- the candidate range: window and SEQ order by binary search, or a hash bucket --
                        hashed = hcond >= 0
                        head = -1
                        rhi = ns
                        if hashed:
                            hv, okh = _eval_expr(TI, TF, TI[TI[F_NODE_HASH_PROBE] + 2 * P + side], attrs, ev, stack)
                            hv = hv + 0.0
                            if not okh or hv != hv:
                                rhi = 0
                                hashed = False
                            else:
                                hb = hashes[ss]
                                head = hb[hv] if hv in hb else -1
                        # lower bound on ts[mx]: sibling variables that must follow a variable of the new instance
                        tlow = -np.inf
                        tlow_strict = False
                        for o in range(o0, o1, 2):
                            u = TI[TI[F_NODE_ORDER] + o]
                            mine = False
                            for i in range(kc):
                                if TI[TI[F_NODE_VARS] + cp0 + i] == u:
                                    mine = True
                            if mine:
                                tb = ts[hi[u]]
                                if tb > tlow or (tb == tlow and strict):
                                    tlow = tb
                                    tlow_strict = strict
                        rlo = 0
                        if not hashed and rhi > 0:
                            sb = sbase[ss]
                            rlo = _first_row_at_least(ar, sb, sw, 0, ns, fp)
                            if tlow > -np.inf:
                                rlo = _first_row_ts(ar, sb, sw, rlo, ns, ts, tlow, tlow_strict)
                            if sleaf_var >= 0:
                                # a leaf sibling's event is its newest: order pairs bound it from above
                                for o in range(o0, o1, 2):
                                    if TI[TI[F_NODE_ORDER] + o] == sleaf_var:
                                        # the end of the rows with ts[mx] <= bound (< bound when strict)
                                        rhi = min(rhi, _first_row_ts(ar, sb, sw, rlo, ns, ts, ts[lo[TI[TI[F_NODE_ORDER] + o + 1]]], not strict))
                        ci = R[R_CI]
                        if ci == -2:
                            ci = head if hashed else rlo
                        while True:
                            if hashed:
                                if ci < 0:
                                    break
                                sat = sbase[ss] + ci * sw
                                if ar[sat] < fp:
                                    break
                                tmx = ts[ar[sat]]
                                if tmx < tlow or (tlow_strict and tmx == tlow):
                                    break
                            else:
                                if ci >= rhi:
                                    break
                                sat = sbase[ss] + ci * sw
                            # room for what this candidate may create, before anything changes
                            if P == root:
                                if C[C_NBATCH] >= bt.shape[0]:
                                    R[R_CI] = ci
                                    _need(C, NEED_BATCH, 0, C[C_NBATCH] + 1)
                                    return False
                                if C[C_NPEND] >= pe.shape[0]:
                                    R[R_CI] = ci
                                    _need(C, NEED_PEND, 0, C[C_NPEND] + 1)
                                    return False
                            else:
                                if ssize[ps] == scap[ps]:
                                    _compact_store(TI, TF, ps, ar, sbase, ssize, swid, hashes, fp, attrs, hev, hkid, hlo, hhi, pool, stack)
                                    if 2 * ssize[ps] > scap[ps]:
                                        R[R_CI] = ci
                                        _need(C, NEED_STORE, ps, ssize[ps] + 1)
                                        return False
                                if R[R_NNEXT] >= pw.shape[0]:
                                    R[R_CI] = ci
                                    _need(C, NEED_PW, 0, R[R_NNEXT] + 1)
                                    return False
                            cnext = ar[sat + sw - 1] if hashed else ci + 1
                            if ar[sat + 1] < fp or (smin > 1 and pool[ar[sat + 2], 3] < smin):
                                ci = cnext  # expired, or a Kleene subset not yet large enough
                                continue
                            for i in range(ks):
                                vv = TI[TI[F_NODE_VARS] + sp0 + i]
                                x = ar[sat + 2 + i]
                                if TI[TI[F_VAR_KIND] + vv] == KLEENE:
                                    kid[vv] = x
                                    lo[vv] = pool[x, 1]
                                    hi[vv] = pool[x, 2]
                                else:
                                    ev[vv] = x
                                    lo[vv] = x
                                    hi[vv] = x
                            ok = True
                            for o in range(o0, o1, 2):
                                if not _before(ts[hi[TI[TI[F_NODE_ORDER] + o]]], ts[lo[TI[TI[F_NODE_ORDER] + o + 1]]], strict):
                                    ok = False
                                    break
                            if not ok:
                                ci = cnext
                                continue
                            R[R_EXAM] += 1
                            C[C_WORK] += 1
                            if C[C_WORK] > wcap:
                                _stop(C, STATUS_WORK, C[C_WORK], pos[j])
                                return True
                            # -- the node's other checks ----------------------------------------------
                            if contig:
                                for o in range(TI[TI[F_NODE_ADJ_PTR] + P], TI[TI[F_NODE_ADJ_PTR] + P + 1], 2):
                                    if ckey[hi[TI[TI[F_NODE_ADJ] + o]]] + 1 != ckey[lo[TI[TI[F_NODE_ADJ] + o + 1]]]:
                                        ok = False
                                        break
                                if ok and strategy == PARTITION:
                                    lv = TI[TI[F_NODE_VARS] + TI[TI[F_NODE_VARS_PTR] + TI[TI[F_NODE_LEFT] + P]]]
                                    rv = TI[TI[F_NODE_VARS] + TI[TI[F_NODE_VARS_PTR] + TI[TI[F_NODE_RIGHT] + P]]]
                                    if pa[lo[lv]] != pa[lo[rv]]:
                                        ok = False
                            if ok:
                                for o in range(TI[TI[F_NODE_DIST_PTR] + P], TI[TI[F_NODE_DIST_PTR] + P + 1], 2):
                                    u = TI[TI[F_NODE_DIST] + o]
                                    w_ = TI[TI[F_NODE_DIST] + o + 1]
                                    if TI[TI[F_VAR_KIND] + u] != KLEENE and TI[TI[F_VAR_KIND] + w_] != KLEENE:
                                        if ev[u] == ev[w_]:
                                            ok = False
                                            break
                                    elif not _distinct(TI, u, w_, ev, kid, pool):
                                        ok = False
                                        break
                            if ok:
                                for o in range(TI[TI[F_NODE_COND_PTR] + P], TI[TI[F_NODE_COND_PTR] + P + 1]):
                                    cc = TI[TI[F_NODE_COND] + o]
                                    if cc == hcond and hashed:
                                        continue
                                    # _cond and _bind_var written out in this loop: calling them (inline="always") cut the
                                    # partial matches per second of bench density to 0.37-0.67x (2026-12-07, load 3, 5 runs each)
                                    if TI[TI[F_COND_SIMPLE] + cc] == 1:  # x.a + k op y.b + k', inlined
                                        q = TI[F_COND_SV] + 4 * cc
                                        f = TI[G_COND_SF] + 2 * cc
                                        va = TF[f]
                                        if TI[q] >= 0:
                                            va += attrs[TI[q + 1], ev[TI[q]]]
                                        vb = TF[f + 1]
                                        if TI[q + 2] >= 0:
                                            vb += attrs[TI[q + 3], ev[TI[q + 2]]]
                                        if not _compare(TI[TI[F_COND_OP] + cc], va, vb):
                                            ok = False
                                            break
                                    elif not _cond_holds(TI, TF, cc, attrs, ev, kid, pool, stack, cur):
                                        ok = False
                                        break
                            if ok:
                                for o in range(TI[TI[F_NODE_NEG_PTR] + P], TI[TI[F_NODE_NEG_PTR] + P + 1]):
                                    b = TI[TI[F_VAR_NB] + TI[TI[F_NODE_NEG] + o]]
                                    if _killed(TI, TF, b, nar, nbase[b], nsize[b], -1, ts, key, attrs, ev, kid, lo, hi, pool, L, strict, stack, cur):
                                        ok = False
                                        break
                            if ok:
                                ms = ar[sat + 1]
                                m = mr if mr < ms else ms
                                if P == root:
                                    if count_only[k]:
                                        C[C_NCOUNT] += 1
                                    elif direct[k] or _match_survives(TI, TF, k, ev, kid, lo, hi, pool, ts, key, pos, attrs, pa, pp,
                                                                      nar, nbase, nsize, strategy, strict, L, stack, cur):
                                        relT = min(relT, _emit(TI, k, j, t0, ev, kid, lo, pool, ts, pos, C, bt, pe, pend_t, W))
                                else:
                                    pwd = swid[ps]
                                    pat = sbase[ps] + ssize[ps] * pwd
                                    ar[pat] = j
                                    ar[pat + 1] = m
                                    first_at, first_n = (cat, kc) if side == 0 else (sat, ks)
                                    second_at, second_n = (sat, ks) if side == 0 else (cat, kc)
                                    for i in range(first_n):
                                        ar[pat + 2 + i] = ar[first_at + 2 + i]
                                    for i in range(second_n):
                                        ar[pat + 2 + first_n + i] = ar[second_at + 2 + i]
                                    if TI[TI[F_STORE_HASH_EXPR] + ps] >= 0:
                                        _hash_insert(TI, TF, ps, ar, pat, ssize[ps], hashes, attrs, hev, hkid, hlo, hhi, pool, stack)
                                    ssize[ps] += 1
                                    ring[m & mask, 0] += 1
                                    ring[m & mask, 2] += ROW_BYTES * pwd
                                    C[C_NBYTES] += ROW_BYTES * pwd
                                    C[C_CREATED] += 1
                                    C[C_LIVE] += 1
                                    R[R_NNEXT] += 1
                                    if C[C_LIVE] > cap:
                                        _stop(C, STATUS_PARTIAL_MATCHES, C[C_LIVE], pos[j])
                                        return True
                            ci = cnext
                        # the path work of what this instance's scan created: the candidates it was compared with
                        pwr = pw[ri, pc] + (1 if nfa_transition else R[R_EXAM])
                        for i in range(R[R_FIRST_NEXT], R[R_NNEXT]):
                            pw[i, 1 - pc] = pwr
                        for i in range(R[R_NB0], C[C_NBATCH]):
                            bt[i, xr + 2] = pwr
                        for i in range(R[R_PEND0], C[C_NPEND]):
                            pe[i, xr + 2] = pwr
                        C[C_LATWORK] += pwr * (C[C_NCOUNT] - R[R_NC0])
                        R[R_RI] += 1
                        R[R_CI] = -2
                    R[R_NODE] = P
                    R[R_NNEW] = R[R_NNEXT]
                    R[R_NNEXT] = 0
                    R[R_RI] = 0
                    R[R_CI] = -2
                    R[R_PWC] = 1 - pc
                R[R_Q] += 1
                R[R_NODE] = -1
            R[R_STAGE] = 2
        # ---- stage 2: bookkeeping and this event's report ---------------------------------------------
        nbt = C[C_NBATCH]
        if nbt > 0 and (collect or select):
            what, size = _report_need(TI, bt, nbt, pool, collect, select, C, out, oute, lat, kbuf, scratch, ordb)
            if what:
                _need(C, what, 0, size)
                return False
        elif record and nbt > 0 and C[C_NLAT] >= lat.shape[0]:
            _need(C, NEED_LAT, 0, C[C_NLAT] + 1)
            return False
        if record and C[C_NCOUNT] > 0 and C[C_NLAT] >= lat.shape[0]:
            _need(C, NEED_LAT, 0, C[C_NLAT] + 1)
            return False
        for e in range(R[R_PEND_BEFORE], C[C_NPEND]):  # parked in this event: their wait starts after it
            pe[e, xr + 3] = C[C_WORK]
        if C[C_NCOUNT] > 0:  # matches only counted (their latency work is already summed)
            C[C_MATCHES] += C[C_NCOUNT]
            if record:
                lat[C[C_NLAT], 0] = clock(record, tsc) - t0
                lat[C[C_NLAT], 1] = C[C_NCOUNT]
                C[C_NLAT] += 1
            C[C_NCOUNT] = 0
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
        if nbt > 0:
            C[C_NBATCH] = 0
            if not collect and not select:  # only counts: no order needed
                C[C_MATCHES] += nbt
                for i in range(nbt):
                    C[C_LATWORK] += bt[i, xr + 2]
                if record:
                    lat[C[C_NLAT], 0] = clock(record, tsc) - t0
                    lat[C[C_NLAT], 1] = nbt
                    C[C_NLAT] += 1
            else:
                for i in range(nbt):
                    bt[i, xr] = pos[j]
                if _report(TI, bt, nbt, False, pool, pos, consumed, select, collect, record, C, out, oute, lat, kbuf, scratch, ordb, clock(record, tsc)):
                    _purge(TI, TF, ar, sbase, ssize, swid, hashes, consumed, pool, ring, C, attrs, hev, hkid, hlo, hhi, stack)
        R[R_J] = j + 1
        R[R_STAGE] = 0
    # ---- end of the stream: every parked match is released ----------------------------------------------
    npd = C[C_NPEND]
    if npd > 0:
        if npd > rl.shape[0]:
            _need(C, NEED_REL, 0, npd)
            return False
        for e in range(npd):
            rl[e] = pe[e]
            rl[e, xr] = min(max(_search_right(full_ts, len(full_ts), pend_t[e]), pe[e, xr + 4]), n_total)
            rl[e, xr + 2] = pe[e, xr + 2] + C[C_WORK] - pe[e, xr + 3]
        what, size = _report_need(TI, rl, npd, pool, collect, select, C, out, oute, lat, kbuf, scratch, ordb)
        if what:
            _need(C, what, 0, size)
            return False
        C[C_NPEND] = 0
        _report(TI, rl, npd, True, pool, pos, consumed, select, collect, record, C, out, oute, lat, kbuf, scratch, ordb, clock(record, tsc))
    C[C_PROCESSED] = n_total
    return True


@nb.njit(cache=True)
def run_lazy(TI, TF, codes, ts, key, pos, attrs, pa, pp, full_ts, n_total, cap, wcap, collect, record, tsc):
    """Run the plan over the filtered stream.  Returns ``(C, out, out_elems, lat)``: the counters (the
    ``C_*`` indices), the collected matches in canonical order (``[clause, slot positions...]``, a Kleene
    slot the offset of ``[length, positions...]`` in ``out_elems``), and latencies (ns, matches).  This
    driver owns every buffer and grows the one the event loop (:func:`_lazy_events`) finds full."""
    n = len(codes)
    g = TI[F_INTS]
    n_vars = TI[g + I_VARS]
    n_stores = TI[g + I_STORES]
    n_negs = TI[g + I_NEGS]
    max_slots = TI[g + I_MAX_SLOTS]
    strategy = TI[g + I_STRATEGY]
    contig = strategy == STRICT or strategy == PARTITION
    ew = _xr(max_slots) + 5  # width of a match entry
    # direct[k]: clause k's full matches need no further check and are reported with their last event
    direct = np.zeros(TI[g + I_CLAUSES], np.bool_)
    for k in range(TI[g + I_CLAUSES]):
        direct[k] = (not contig and TI[TI[F_CLAUSE_ROOTNEG_PTR] + k] == TI[TI[F_CLAUSE_ROOTNEG_PTR] + k + 1]
                     and TI[TI[F_CLAUSE_EARLYNEG_PTR] + k] == TI[TI[F_CLAUSE_EARLYNEG_PTR] + k + 1]
                     and TI[TI[F_CLAUSE_RELEASE] + k] == RELEASE_NOW)
    count_only = np.zeros(TI[g + I_CLAUSES], np.bool_)  # nothing to sort, select or keep: only count them
    for k in range(TI[g + I_CLAUSES]):
        count_only[k] = direct[k] and not collect and strategy != NEXT
    C = np.zeros(N_COUNTERS + 3, np.int64)
    clock_start = _clock_start(C, tsc)
    R = np.zeros(N_RESUME, np.int64)
    R[R_CI] = -2
    R[R_KLR] = -2
    R[R_NODE] = -1
    # live partial matches, buffered events and their bytes by oldest event m, in a ring indexed by
    # m & (len - 1): m lies in [fp, j], so the ring grows with the events of a window
    ring = np.zeros((1024, 3), np.int64)
    consumed = np.zeros(n if strategy == NEXT else 1, np.uint8)
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
    # the stores: regions of one arena
    ns_ = max(n_stores, 1)
    swid = np.ones(ns_, np.int64)
    sbase = np.zeros(ns_, np.int64)
    scap = np.zeros(ns_, np.int64)
    ssize = np.zeros(ns_, np.int64)
    hashes = List.empty_list(HASH_TYPE)
    top = 0
    for s in range(n_stores):
        swid[s] = TI[TI[F_STORE_WIDTH] + s]
        sbase[s] = top
        scap[s] = 64
        top += 64 * swid[s]
        hashes.append(Dict.empty(key_type=types.float64, value_type=types.int64))
    ar = np.empty(max(2 * top, 16), np.int32)
    C[C_ATOP] = top
    # the negation buffers: regions of a second arena
    nn_ = max(n_negs, 1)
    nwid = np.ones(nn_, np.int64)
    nbase = np.arange(nn_) * 64
    ncap = np.full(nn_, 64, np.int64)
    nsize = np.zeros(nn_, np.int64)
    nar = np.empty(64 * nn_, np.int32)
    C[C_NTOP] = 64 * nn_
    pool = np.empty((64, 4), np.int32)  # Kleene subsets: parent, first, last, length
    bt = np.zeros((64, ew), np.int64)  # this event's matches
    pe = np.zeros((64, ew), np.int64)  # parked matches
    pend_t = np.zeros(64, np.float64)  # their release times
    rl = np.zeros((64, ew), np.int64)  # released matches
    pw = np.zeros((64, 2), np.int64)  # path work of the new instances of a level, and of the next
    out = np.empty((64 if collect else 1, 1 + max_slots), np.int64)
    oute = np.empty(64, np.int64)
    lat = np.empty((64, 2), np.int64)
    kbuf = np.zeros(1024, np.int64)
    scratch = np.zeros(256, np.int64)
    ordb = np.zeros(1024, np.int64)
    while not _lazy_events(TI, TF, codes, ts, key, pos, attrs, pa, pp, full_ts, n_total, cap, wcap, collect, record, direct, count_only,
                           C, R, ring, consumed, ev, kid, lo, hi, hev, hkid, hlo, hhi, stack, cur,
                           ar, sbase, scap, ssize, swid, hashes, nar, nbase, ncap, nsize, pool,
                           bt, pe, pend_t, rl, pw, out, oute, lat, kbuf, scratch, ordb, tsc):
        what = C[C_NEED]
        size = C[C_NEED_SIZE]
        if what == NEED_STORE:
            s = C[C_NEED_ARG]
            ar = _region_grow(ar, sbase, scap, ssize, swid, s, size, C, C_ATOP)
        elif what == NEED_NBUF:
            nar = _region_grow(nar, nbase, ncap, nsize, nwid, C[C_NEED_ARG], size, C, C_NTOP)
        elif what == NEED_POOL:
            pool = _grow2(pool, size)
        elif what == NEED_BATCH:
            bt = _grow2(bt, size)
        elif what == NEED_PEND:
            pe = _grow2(pe, size)
            pend_t = _grow1(pend_t, size)
        elif what == NEED_REL:
            rl = _grow2(rl, size)
        elif what == NEED_OUT:
            out = _grow2(out, size)
        elif what == NEED_OUTE:
            oute = _grow1(oute, size)
        elif what == NEED_LAT:
            lat = _grow2(lat, size)
        elif what == NEED_RING:
            ring = _ring_grow(ring, C[C_FP], R[R_J])
        elif what == NEED_PW:
            pw = _grow2(pw, size)
        elif what == NEED_KBUF:
            kbuf = _grow1(kbuf, size)
        elif what == NEED_ORDB:
            ordb = _grow1(ordb, size)
        else:
            scratch = _grow1(scratch, size)
    _calibrate(C, tsc, clock_start)
    return C[:N_COUNTERS], out, oute, lat


# ---------------------------------------------------------------------------------------------------
# the eager path (JQPG Section 6, Figure 9): strict contiguity, the pattern's own order
# ---------------------------------------------------------------------------------------------------
@nb.njit(cache=True)
def _eager_events(TI, TF, codes, ts, key, pos, attrs, cap, wcap, collect, record, C, R, act, steps, vars_, ev, kid, stack,
                  cur, pool, out, lat, tsc):
    """The event loop of :func:`run_eager` (resumable like :func:`_lazy_events`: it asks for room in the
    outputs before an event, which completes at most one match)."""
    n = len(codes)
    strict = TI[TI[F_INTS] + I_SEQ_STRICT] == 1
    L = TF[TI[G_FLOATS]]
    npos = len(vars_)
    row_bytes = ROW_BYTES * act.shape[2]
    while R[R_J] < n:
        j = R[R_J]
        if collect and C[C_NOUT] >= out.shape[0]:
            _need(C, NEED_OUT, 0, C[C_NOUT] + 1)
            return False
        if record and C[C_NLAT] >= lat.shape[0]:
            _need(C, NEED_LAT, 0, C[C_NLAT] + 1)
            return False
        t0 = clock(record, tsc)
        c = codes[j]
        a_in = j & 1  # the instances ending at the previous event are in act[a_in], the new ones go to act[1 - a_in]
        a_out = 1 - a_in
        nact = C[C_NBATCH]
        nn = 0
        matched = -1
        if j > 0 and pos[j] == pos[j - 1] + 1:
            for a in range(nact):
                ln = act[a_in, a, 0]
                v = vars_[ln]
                if TI[TI[F_VAR_TYPE] + v] != c:
                    continue
                C[C_WORK] += 1
                if C[C_WORK] > wcap:
                    _stop(C, STATUS_WORK, C[C_WORK], pos[j])
                    return True
                if not _before(ts[act[a_in, a, 1 + ln]], ts[j], strict):
                    continue
                if key[j] - key[act[a_in, a, 1]] > L:
                    continue
                if TI[TI[F_VAR_UNARY_PTR] + v] != TI[TI[F_VAR_UNARY_PTR] + v + 1] and not _unary_ok(TI, TF, v, j, attrs, ev, kid, pool, stack, cur):
                    continue
                for i in range(ln):
                    ev[vars_[i]] = act[a_in, a, 2 + i]
                ev[v] = j
                ok = True
                P = steps[ln]
                for o in range(TI[TI[F_NODE_COND_PTR] + P], TI[TI[F_NODE_COND_PTR] + P + 1]):
                    if not _cond(TI, TF, TI[TI[F_NODE_COND] + o], attrs, ev, kid, pool, stack, cur):
                        ok = False
                        break
                if not ok:
                    continue
                if ln + 1 == npos:
                    matched = a
                    continue
                act[a_out, nn, :] = act[a_in, a, :]
                act[a_out, nn, 0] = ln + 1
                act[a_out, nn, 2 + ln] = j
                nn += 1
                C[C_CREATED] += 1
        v0 = vars_[0]
        if TI[TI[F_VAR_TYPE] + v0] == c and _unary_ok(TI, TF, v0, j, attrs, ev, kid, pool, stack, cur):
            if npos == 1:
                matched = npos  # the event alone
            else:
                act[a_out, nn, 0] = 1
                act[a_out, nn, 1] = j
                act[a_out, nn, 2] = j
                nn += 1
        C[C_NBATCH] = nn
        live = 0
        for a in range(nn):
            if act[a_out, a, 0] >= 2:
                live += 1
        C[C_LIVE] = live
        C[C_BUF] = nn - live
        C[C_NBYTES] = nn * row_bytes
        if live > cap:
            _stop(C, STATUS_PARTIAL_MATCHES, live, pos[j])
            return True
        C[C_TOT] += live
        C[C_PEAK] = max(C[C_PEAK], live)
        C[C_PEAKB] = max(C[C_PEAKB], nn - live)
        C[C_PEAKS] = max(C[C_PEAKS], nn)
        C[C_PEAKBYTES] = max(C[C_PEAKBYTES], C[C_NBYTES])
        if matched >= 0:
            C[C_MATCHES] += 1
            C[C_LATWORK] += 1 if npos > 1 else 0
            if record:
                lat[C[C_NLAT], 0] = clock(record, tsc) - t0
                lat[C[C_NLAT], 1] = 1
                C[C_NLAT] += 1
            if collect:
                o = C[C_NOUT]
                out[o, 0] = 0
                for i in range(npos - 1):
                    out[o, 1 + i] = pos[act[a_in, matched, 2 + i]]
                out[o, npos] = pos[j]
                C[C_NOUT] += 1
        R[R_J] = j + 1
    return True


@nb.njit(cache=True)
def run_eager(TI, TF, codes, ts, key, pos, attrs, cap, wcap, collect, record, tsc):
    """A pure sequence under strict contiguity and ``SEQ_ORDER strict``, in its own order: an NFA whose
    instances all end at the previous stream position.  On each event every instance whose next variable
    has the event's type is a candidate (it extends or dies), and the event opens a new instance; an
    event that is not adjacent in the stream to the previous one ends them all.  Nothing is buffered
    and nothing reordered.  Instances of one event are counted as buffered events (the first state of
    the chain holds them), of two or more as partial matches, as on the lazy path.  Returns what
    :func:`run_lazy` returns."""
    p0 = TI[TI[F_CLAUSE_POS_PTR]]
    npos = TI[TI[F_CLAUSE_POS_PTR] + 1] - p0
    vars_ = TI[TI[F_CLAUSE_POS] + p0 : TI[F_CLAUSE_POS] + p0 + npos].copy()
    # steps[i]: the node of the left-deep tree where vars_[i] joins the prefix (its conditions are checked there)
    steps = np.full(npos, -1, np.int64)
    node = TI[TI[F_VAR_LEAF] + vars_[0]]
    for i in range(1, npos):
        node = TI[TI[F_NODE_PARENT] + node]
        steps[i] = node
    n_vars = TI[TI[F_INTS] + I_VARS]
    C = np.zeros(N_COUNTERS + 3, np.int64)
    clock_start = _clock_start(C, tsc)
    R = np.zeros(N_RESUME, np.int64)
    ev = np.zeros(n_vars + 1, np.int64)
    kid = np.full(n_vars + 1, -1, np.int64)
    stack = np.zeros(64, np.float64)
    cur = np.zeros(n_vars + 1, np.int64)
    pool = np.zeros((1, 4), np.int32)
    act = np.zeros((2, npos + 1, 2 + npos), np.int32)  # [length, oldest event, slots...], by parity of the event
    out = np.empty((64 if collect else 1, 1 + npos), np.int64)
    lat = np.empty((64, 2), np.int64)
    while not _eager_events(TI, TF, codes, ts, key, pos, attrs, cap, wcap, collect, record, C, R, act, steps, vars_, ev, kid,
                            stack, cur, pool, out, lat, tsc):
        if C[C_NEED] == NEED_OUT:
            out = _grow2(out, C[C_NEED_SIZE])
        else:
            lat = _grow2(lat, C[C_NEED_SIZE])
    _calibrate(C, tsc, clock_start)
    return C[:N_COUNTERS], out, np.zeros(1, np.int64), lat
