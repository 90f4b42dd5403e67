"""The compiled per-event loops of the trend engines (numba) and the exact arithmetic they run on.

Every numba function of the trend engines is in this one module: numba's on-disk cache (``cache=True``)
is keyed by the source file of the function it compiles, not by the files of the functions it calls, so
a kernel and its helpers kept in two modules could run a stale helper after an edit.

**Exact numbers.**  Trend counts grow exponentially (``COUNT(*)`` of a Kleene pattern over a window of
a few thousand events has thousands of digits), and :mod:`cep.trends` asks for them exactly.  A number
is a row of a ``uint32`` array: ``row[0]`` its length in limbs, ``row[1:]`` its magnitude in base 2**32,
least significant limb first, every limb past the length zero.  The engines only ever add and multiply
non-negative numbers (counts, and the positive and negative parts of sums kept apart, see
:mod:`evaluators.trends.tables`), so an addition is a carry chain over the longer operand's limbs and a
product a schoolbook loop over both operands' limbs: the cost follows the numbers' actual size, as it
does for Python integers.  A row has room for a fixed number of limbs (an upper bound computed from the
stream, :func:`evaluators.trends.tables.limb_bound`); a result past it raises ``OverflowError`` and the
driver runs again with twice the room, so a bound that is too small costs time, never exactness.
``MIN``/``MAX`` entries hold the rank of a value among the distinct values of that attribute
(``row[1]``; ``row[0]`` is 1), so they compare exactly whatever the values' types.

**Pools.**  Rows live in pools (:class:`Pool`: a 2-D array and the rows in use) that double when full;
a function that may allocate reads ``pool.rows`` again afterwards.  The scratch pool is emptied after
every commit.

**State layout.**  The aggregate state of a query (``[count, entry per aggregate]`` of
:mod:`evaluators.trends.common`) is a block of consecutive rows whose kinds (:data:`K_COUNT`,
:data:`K_POS`, :data:`K_NEG`, :data:`K_MIN`, :data:`K_MAX`) the query's layout gives; a ``SUM`` /
``COUNT(v)`` entry is two rows (its positive and negative parts).  A state whose count is zero is "no
trend" (the ``None`` of the Python states): its other rows are the identities.

**Clock.**  :func:`cycles` reads the CPU's time-stamp counter, so that a kernel can attribute its time to
the timestamps it processes (the engines' per-timestamp latency); the driver converts cycles to seconds
with the run's own wall-clock time (where no counter is read, every timestamp gets an equal share).
"""

from __future__ import annotations

import platform

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.experimental import structref
from numba.extending import intrinsic
from numba.typed import Dict, List

M32 = np.uint64(0xFFFFFFFF)
S32 = np.uint64(32)
MAXRANK = np.uint32(0xFFFFFFFF)
#: row kinds of a state or coefficient layout
K_COUNT, K_POS, K_NEG, K_MIN, K_MAX = 0, 1, 2, 3, 4
#: aggregate kinds of a query's specs (the entries beside the count)
A_SUM, A_MIN, A_MAX = 1, 3, 4
_T2 = types.UniTuple(types.int64, 2)
_T3 = types.UniTuple(types.int64, 3)
_T4 = types.UniTuple(types.int64, 4)
_T5 = types.UniTuple(types.int64, 5)
_T7 = types.UniTuple(types.int64, 7)

# indices into the HAMLET kernel's ``stats`` array
S_GRAPHLETS, S_SHARED, S_SNAPSHOTS, S_DECISIONS, S_PEAK, S_WORDS, S_BURSTS, S_GROUP, S_TRACE = range(9)
N_STATS = 9


#: whether :func:`cycles` reads a counter (x86's time-stamp counter; elsewhere reading the cycle counter
#: from user space may trap, so it reads 0 and the engines spread their time evenly over the timestamps)
HAS_CYCLES = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686")


@intrinsic
def cycles(typingctx):
    """The CPU's time-stamp counter (``llvm.readcyclecounter``; 0 where :data:`HAS_CYCLES` is false)."""
    sig = types.int64()

    def codegen(context, builder, signature, args):
        if not HAS_CYCLES:
            return ir.Constant(ir.IntType(64), 0)
        fn = builder.module.declare_intrinsic("llvm.readcyclecounter", fnty=ir.FunctionType(ir.IntType(64), []))
        return builder.call(fn, [])

    return sig, codegen


# ---- pools of rows -----------------------------------------------------------------------------------
@structref.register
class PoolType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class Pool(structref.StructRefProxy):
    """Rows of exact numbers: ``rows`` (uint32, one number per row) and ``top`` (the rows in use)."""


structref.define_proxy(Pool, PoolType, ["rows", "top"])


@njit(cache=True)
def pool_new(width1, cap):
    """An empty pool of rows ``width1`` uint32 wide (the length and the limbs)."""
    return Pool(np.zeros((max(cap, 16), width1), np.uint32), 0)


@njit(cache=True)
def pool_alloc(pool, n):
    """``n`` zero rows; returns the first one's index (the pool's array may be replaced)."""
    base = pool.top
    top = base + n
    rows = pool.rows
    if top > rows.shape[0]:
        new = np.zeros((max(2 * rows.shape[0], top), rows.shape[1]), np.uint32)
        new[:base] = rows[:base]
        pool.rows = new
        rows = new
    for r in range(base, top):
        row = rows[r]
        for j in range(int(row[0]) + 1):
            row[j] = 0
    pool.top = top
    return base


# ---- non-negative big integers in rows -----------------------------------------------------------------
@njit(cache=True)
def b_add(d, s):
    """d += s."""
    n = max(int(d[0]), int(s[0]))
    c = np.uint64(0)
    for j in range(1, n + 1):
        t = np.uint64(d[j]) + np.uint64(s[j]) + c
        d[j] = np.uint32(t & M32)
        c = t >> S32
    if c:
        n += 1
        if n >= d.shape[0]:
            raise OverflowError("trend kernel: a number outgrew its row")
        d[n] = np.uint32(c)
    d[0] = np.uint32(n)


@njit(cache=True)
def b_add_small(d, v):
    """d += v for 0 <= v < 2**32."""
    c = np.uint64(v)
    j = 1
    n = int(d[0])
    while c:
        if j >= d.shape[0]:
            raise OverflowError("trend kernel: a number outgrew its row")
        t = np.uint64(d[j]) + c
        d[j] = np.uint32(t & M32)
        c = t >> S32
        if j > n:
            n = j
        j += 1
    d[0] = np.uint32(n)


@njit(cache=True)
def b_muladd(d, x, y):
    """d += x * y (``d`` must be neither ``x`` nor ``y``)."""
    nx = int(x[0])
    ny = int(y[0])
    if nx == 0 or ny == 0:
        return
    w = d.shape[0] - 1
    if nx + ny - 1 > w:
        raise OverflowError("trend kernel: a number outgrew its row")
    top = int(d[0])
    for i in range(nx):
        xi = np.uint64(x[1 + i])
        if xi == 0:
            continue
        c = np.uint64(0)
        for j in range(ny):
            k = 1 + i + j
            t = np.uint64(d[k]) + xi * np.uint64(y[1 + j]) + c
            d[k] = np.uint32(t & M32)
            c = t >> S32
        k = 1 + i + ny
        while c:
            if k > w:
                raise OverflowError("trend kernel: a number outgrew its row")
            t = np.uint64(d[k]) + c
            d[k] = np.uint32(t & M32)
            c = t >> S32
            k += 1
        if k - 1 > top:
            top = k - 1
    while top > 0 and d[top] == 0:
        top -= 1
    d[0] = np.uint32(top)


@njit(cache=True)
def b_copy(d, s):
    """d = s."""
    nd = int(d[0])
    ns = int(s[0])
    for j in range(1, ns + 1):
        d[j] = s[j]
    for j in range(ns + 1, nd + 1):
        d[j] = 0
    d[0] = np.uint32(ns)


@njit(cache=True)
def b_zero(d):
    for j in range(1, int(d[0]) + 1):
        d[j] = 0
    d[0] = 0


# ---- aggregate states and coefficients: blocks of rows of given kinds ----------------------------------
@njit(cache=True)
def st_zero(D, base, kinds, n):
    """The ``n`` rows of ``D`` at ``base`` become the state of no trend (identities) of layout ``kinds``."""
    for r in range(n):
        row = D[base + r]
        k = kinds[r]
        if k <= K_NEG:
            b_zero(row)
        else:
            row[0] = 1
            row[1] = MAXRANK if k == K_MIN else 0


@njit(cache=True)
def st_add(D, d, S, s, kinds, n):
    """state D[d] += state S[s] (counts and sums add, MIN/MAX ranks keep the extreme)."""
    for r in range(n):
        k = kinds[r]
        dr = D[d + r]
        sr = S[s + r]
        if k <= K_NEG:
            b_add(dr, sr)
        elif k == K_MIN:
            if sr[1] < dr[1]:
                dr[1] = sr[1]
        elif sr[1] > dr[1]:
            dr[1] = sr[1]


@njit(cache=True)
def st_copy(D, d, S, s, kinds, n):
    for r in range(n):
        dr = D[d + r]
        sr = S[s + r]
        if kinds[r] <= K_NEG:
            b_copy(dr, sr)
        else:
            dr[0] = 1
            dr[1] = sr[1]


@njit(cache=True)
def extend(D, base, q, i, r, Q, ST, one):
    """Extend the state ``D[base]`` of query ``q`` (count > 0) by the event of row ``r`` matched as
    element ``i`` (Equation 2 generalised: each aggregate of that element adds the event's value once
    per trend, MIN/MAX take it into account)."""
    qnspec, sp_el, sp_attr, sp_kind, sp_row = Q[6], Q[7], Q[8], Q[9], Q[10]
    r_vrow, r_vsign, r_vrank, V = ST[8], ST[9], ST[10], ST[11]
    cnt = D[base]
    for j in range(qnspec[q]):
        if sp_el[q, j] != i:
            continue
        a = sp_attr[q, j]
        row = base + sp_row[q, j]
        k = sp_kind[q, j]
        if k == A_SUM:
            if a < 0:
                b_muladd(D[row], one, cnt)
            elif r_vsign[r, a] >= 0:
                b_muladd(D[row], V[r_vrow[r, a]], cnt)
            else:
                b_muladd(D[row + 1], V[r_vrow[r, a]], cnt)
        else:
            rk = np.uint32(r_vrank[r, a])
            dst = D[row]
            if k == A_MIN:
                if rk < dst[1]:
                    dst[1] = rk
            elif rk > dst[1]:
                dst[1] = rk


@njit(cache=True)
def eval_add(D, acc, coef, x, q, si, cl, Q, TP):
    """acc += the state of query ``q`` that coefficient ``coef`` (shared graphlet ``si``'s layout,
    candidate ``cl``) times the snapshot value ``x`` stands for, all rows of ``D``
    (:mod:`evaluators.trends.coefficients`: count ``c * x.count``; a sum of the shared type
    ``c * x.sum + d * x.count``, another ``c * x.sum``; MIN/MAX of the shared type ``min(x, m)``,
    another ``x``)."""
    xc = D[x]
    if xc[0] == 0:
        return
    qnspec, sp_kind, sp_row = Q[6], Q[9], Q[10]
    si_reads = TP[15]
    c = D[coef]
    b_muladd(D[acc], c, xc)
    for j in range(qnspec[q]):
        jr = sp_row[q, j]
        e = si_reads[si, cl, j]
        k = sp_kind[q, j]
        if k == A_SUM:
            b_muladd(D[acc + jr], c, D[x + jr])
            b_muladd(D[acc + jr + 1], c, D[x + jr + 1])
            if e >= 0:
                b_muladd(D[acc + jr], D[coef + e], xc)
                b_muladd(D[acc + jr + 1], D[coef + e + 1], xc)
        else:
            v = D[x + jr][1]
            if e >= 0:
                m = D[coef + e][1]
                if (k == A_MIN and m < v) or (k == A_MAX and m > v):
                    v = m
            dst = D[acc + jr]
            if (k == A_MIN and v < dst[1]) or (k == A_MAX and v > dst[1]):
                dst[1] = v


@njit(cache=True)
def add_result(Q, main, results, P, q, p, sp, ep, S, src):
    """Add the state ``S[src]`` (trends of query ``q`` in partition ``p`` from pane ``sp`` to ``ep``) to every
    window holding both panes: ``results`` maps ``((q * P + p) << 32) + k + 2**31`` to the window's state
    in the ``main`` pool."""
    L, sig, R, kinds = Q[0][q], Q[1][q], Q[4][q], Q[5][q]
    lo = -((-(ep - L + 1)) // sig)
    hi = sp // sig
    for k in range(lo, hi + 1):
        key = ((q * P + p) << 32) + (k + (1 << 31))
        v = results.get(key, -1)
        if v < 0:
            v = pool_alloc(main, R)
            st_zero(main.rows, v, kinds, R)
            results[key] = v
        st_add(main.rows, v, S, src, kinds, R)


# ---- the HAMLET executor (evaluators/trends/hamlet.py) -------------------------------------------------
# Q  (queries):    qL, qsig, qnel, qkle, qR, qkinds, qnspec, sp_el, sp_attr, sp_kind, sp_row, qwords, qlocal, e_in,
#                  e_self, elem_of_type
# TP (templates):  part_tpl, part_id, part_eoff, part_roff, bt_ptr, bt_q, si_of, si_ptr, si_cand, si_CR, si_ckind,
#                  si_nkeys, si_key_kind, si_key_attr, si_key_row, si_reads, NT, EMAX, P, tpl_qptr, tpl_q
# ST (rows):       r_ev, r_ts, r_pane, r_type, hit, neg_ptr, neg_q, neg_after, r_vrow, r_vsign, r_vrank, V
# A  (arrays):     part_pane, part_n, part_since, run_type, run_len, run_buf, eidx, stats, qrows, in_shared, seen,
#                  group_cycles, one
# M  (the kernel's state: A's arrays and what the kernel makes):
#                  0 part_pane, 1 part_n, 2 part_since, 3 run_type, 4 run_len, 5 run_buf, 6 eidx, 7 stats, 8 main pool,
#                  9 scratch pool, 10 trace pool, 11 results, 12 defer, 13 kills, 14 trace headers, 15 qrows,
#                  16 bursts queued (type, first, count), 17 graphlets queued (query, element, first, count),
#                  18 in_shared, 19 seen, 20 group_cycles, 21 one
# B  (bursts):     b_part, b_type, b_ptr, b_rows, b_n, b_g, b_group, ch_ptr, ch_c, b_psnap
#
# A timestamp's events of one partition are taken in two steps, each a call of :func:`_process`, the one place that
# computes: first, when they end the partition's buffered burst, that burst; then, unless they extend the buffer, the
# events themselves (each of a shareable type in a burst of its own type, the others in graphlets of one event).  The
# work of a step is queued (bursts, then per-query graphlets) and computed against the state before the step, then
# committed; each large function thus has one caller (numba inlines callees, and compiles a caller once per call site).
SCAN, EXEC = 0, 1
NO_PANE = np.iinfo(np.int64).min


@njit(cache=True)
def _meter(M, transient):
    stats = M[7]
    w = transient + stats[S_WORDS]
    if w > stats[S_PEAK]:
        stats[S_PEAK] = w


@njit(cache=True)
def _edge(M, Q, TP, p, q, e):
    """The first row (main pool) of query ``q``'s running-sum vector on edge ``e`` in partition ``p`` (one
    state per pane slot), -1 if it does not exist."""
    return M[6][TP[2][p] + Q[12][q] * TP[17] + e]


@njit(cache=True)
def _edge_made(M, Q, TP, p, q, e):
    """:func:`_edge`, created (empty) if it does not exist; the state meter counts its words."""
    k = TP[2][p] + Q[12][q] * TP[17] + e
    v = M[6][k]
    if v < 0:
        L, R = Q[0][q], Q[4][q]
        main = M[8]
        v = pool_alloc(main, L * R)
        Mn = main.rows
        for sl in range(L):
            st_zero(Mn, v + sl * R, Q[5][q], R)
        M[6][k] = v
        M[7][S_WORDS] += Q[11][q]
    return v


@njit(cache=True)
def _incoming(M, Q, TP, p, q, i, cur, Sc, out):
    """At ``Sc[out]`` (L states): the sum of query ``q``'s predecessor-edge vectors into element ``i``, plus
    the start term in the current pane's slot when ``i`` is the first element (Eq. 1)."""
    Mn = M[8].rows
    L, R, kinds = Q[0][q], Q[4][q], Q[5][q]
    for sl in range(L):
        st_zero(Sc, out + sl * R, kinds, R)
    for which in range(2):
        e = Q[13][q, i] if which == 0 else (Q[14][q, i] if Q[3][q, i] else -1)
        if e < 0:
            continue
        v = _edge(M, Q, TP, p, q, e)
        if v < 0:
            continue
        for sl in range(L):
            st_add(Sc, out + sl * R, Mn, v + sl * R, kinds, R)
    if i == 0:
        b_add_small(Sc[out + (cur % L) * R], 1)


@njit(cache=True)
def _nonshared(M, Q, TP, ST, p, q, i, first, count, cur):
    """One query's own graphlet over the queued rows ``first .. first + count`` it matches (all of element
    ``i``; Equations 1-3 with running sums, events of one timestamp never each other's predecessors); its
    summed states go to the commits."""
    r_ts, hit = ST[1], ST[4]
    qrows = M[15]
    L, R, kinds = Q[0][q], Q[4][q], Q[5][q]
    scr = M[9]
    base = pool_alloc(scr, 4 * L * R + R)
    Sc = scr.rows
    total = base + L * R
    run = total + L * R
    pend = run + L * R
    tmp = pend + L * R
    _incoming(M, Q, TP, p, q, i, cur, Sc, base)
    for sl in range(3 * L):
        st_zero(Sc, total + sl * R, kinds, R)
    st_zero(Sc, tmp, kinds, R)
    kle = Q[3][q, i]
    if not kle:  # no edge within the element: each event extends the incoming state alone
        for idx in range(first, first + count):
            r = qrows[idx]
            if not hit[r, q]:
                continue
            for sl in range(L):
                if Sc[base + sl * R, 0] == 0:
                    continue
                st_copy(Sc, tmp, Sc, base + sl * R, kinds, R)
                extend(Sc, tmp, q, i, r, Q, ST, M[21])
                st_add(Sc, total + sl * R, Sc, tmp, kinds, R)
        M[12].append((q, i, total))
        return
    fresh = True
    last = 0.0
    for idx in range(first, first + count):
        r = qrows[idx]
        if not hit[r, q]:
            continue
        if fresh or r_ts[r] != last:
            if not fresh:
                for sl in range(L):
                    st_add(Sc, run + sl * R, Sc, pend + sl * R, kinds, R)
                    st_zero(Sc, pend + sl * R, kinds, R)
            last = r_ts[r]
            fresh = False
        for sl in range(L):
            st_copy(Sc, tmp, Sc, base + sl * R, kinds, R)
            st_add(Sc, tmp, Sc, run + sl * R, kinds, R)
            if Sc[tmp, 0] != 0:
                extend(Sc, tmp, q, i, r, Q, ST, M[21])
                st_add(Sc, pend + sl * R, Sc, tmp, kinds, R)
                st_add(Sc, total + sl * R, Sc, tmp, kinds, R)
    M[12].append((q, i, total))


@njit(cache=True)
def _apply(M, Q, TP, p, cur):
    """Commit what a step computed: the negations first (each empties the edge into the element after its
    gap), then each element's summed states; the scratch pool is emptied."""
    defer, kills = M[12], M[13]
    for j in range(len(kills)):
        q, after = kills[j]
        v = _edge(M, Q, TP, p, q, Q[13][q, after + 1])
        if v >= 0:
            R = Q[4][q]
            Mn = M[8].rows
            for sl in range(Q[0][q]):
                st_zero(Mn, v + sl * R, Q[5][q], R)
    # each element's new events (their summed states) to its successor edges and to the results
    Sc = M[9].rows
    for j in range(len(defer)):
        q, i, total = defer[j]
        L, R, kinds, nel = Q[0][q], Q[4][q], Q[5][q], Q[2][q]
        for which in range(2):
            if which == 0:
                e = Q[14][q, i] if Q[3][q, i] else -1
            else:
                e = Q[13][q, i + 1] if i + 1 < nel else -1
            if e < 0:
                continue
            v = _edge_made(M, Q, TP, p, q, e)
            Mn = M[8].rows
            for sl in range(L):
                if Sc[total + sl * R, 0] != 0:
                    st_add(Mn, v + sl * R, Sc, total + sl * R, kinds, R)
        if i == nel - 1:
            for sl in range(L):
                if Sc[total + sl * R, 0] != 0:
                    add_result(Q, M[8], M[11], TP[18], q, p, cur - ((cur - sl) % L), cur, Sc, total + sl * R)
    kills.clear()
    defer.clear()
    M[9].top = 0


@njit(cache=True)
def _trace_rows(M, S, base, n, kinds):
    """Copy ``n`` rows of ``S`` into the trace pool; their first index there."""
    tp = M[10]
    t = pool_alloc(tp, n)
    st_copy(tp.rows, t, S, base, kinds, n)
    return t


@njit(cache=True)
def _share(M, Q, TP, ST, B, p, si, bi, first, nrows, cur, t):
    """One graphlet shared by the chosen candidates over the queued rows ``first .. first + nrows`` (Algorithm 1
    lines 7-20, Definitions 3.9 and 3.11; the "Shared graphlets" of :mod:`evaluators.trends.hamlet`): snapshot x
    is each query's incoming state (Equation 5); each event's coefficients are propagated once for all of them
    while it matches all of them, an event matched by only some creates an event-level snapshot; each query's
    total is evaluated from the summed coefficients at the end."""
    stats, scr, qrows = M[7], M[9], M[15]
    hit, r_ts, r_vrow, r_vsign, r_vrank, V, r_ev = ST[4], ST[1], ST[8], ST[9], ST[10], ST[11], ST[0]
    ch_ptr, ch_c, b_psnap = B[7], B[8], B[9]
    si_ptr, si_cand, si_CR, si_ckind, si_nkeys = TP[7], TP[8], TP[9], TP[10], TP[11]
    si_key_kind, si_key_attr, si_key_row = TP[12], TP[13], TP[14]
    elem_of_type = Q[15]
    tracing = stats[S_TRACE] != 0
    stats[S_GRAPHLETS] += 1
    stats[S_SHARED] += 1
    gid = stats[S_SHARED] - 1
    lo, hi = ch_ptr[bi], ch_ptr[bi + 1]
    k = hi - lo
    qs = np.empty(k, np.int64)
    off = np.zeros(k + 1, np.int64)
    for kk in range(k):
        q = si_cand[si_ptr[si] + ch_c[lo + kk]]
        qs[kk] = q
        off[kk + 1] = off[kk] + Q[0][q] * Q[4][q]
    blk = off[k]
    CR = si_CR[si]
    ck = si_ckind[si]
    nkeys = si_nkeys[si]
    cap = nrows + 1
    vb = np.empty(cap, np.int64)  # per snapshot: its values (a state per sharing query and pane slot)
    sb = np.empty(cap, np.int64)  # per snapshot: its coefficient summed over the committed timestamps (S)
    pb = np.empty(cap, np.int64)  # per snapshot: its coefficient summed over the current timestamp (pend)
    if tracing:
        M[14].append((2, gid, bi, 0, 0, 0, 0))
    first_row = pool_alloc(scr, blk + 4 * CR + 1)
    vb[0] = first_row
    sb[0] = first_row + blk
    pb[0] = sb[0] + CR
    preds0 = pb[0] + CR
    pc = preds0 + CR
    Sc = scr.rows
    for kk in range(k):
        q = qs[kk]
        _incoming(M, Q, TP, p, q, elem_of_type[q, t], cur, Sc, vb[0] + off[kk])
    st_zero(Sc, sb[0], ck, CR)
    st_zero(Sc, pb[0], ck, CR)
    nsnap = 1
    fresh = True
    last = 0.0
    for idx in range(first, first + nrows):
        r = qrows[idx]
        nm = 0
        for kk in range(k):
            if hit[r, qs[kk]]:
                nm += 1
        if nm == 0:
            continue
        if fresh or r_ts[r] != last:
            if not fresh:
                for s in range(nsnap):
                    if Sc[pb[s], 0] != 0:
                        st_add(Sc, sb[s], Sc, pb[s], ck, CR)
                        st_zero(Sc, pb[s], ck, CR)
            last = r_ts[r]
            fresh = False
        if nm == k:  # the same predecessors for every sharing query: Equation 2 once for all
            for s in range(nsnap):
                if s > 0 and Sc[sb[s], 0] == 0:
                    continue
                if tracing or nkeys > 0:
                    # preds[s] = S[s] (+ the snapshot itself for x), then its step by this event
                    st_copy(Sc, preds0, Sc, sb[s], ck, CR)
                    if s == 0:
                        b_add_small(Sc[preds0], 1)
                    b_copy(Sc[pc], Sc[preds0])
                    for kx in range(nkeys):
                        a = si_key_attr[si, kx]
                        row = preds0 + si_key_row[si, kx]
                        kind = si_key_kind[si, kx]
                        if kind == A_SUM:
                            if a < 0:
                                b_add(Sc[row], Sc[pc])
                            elif r_vsign[r, a] >= 0:
                                b_muladd(Sc[row], V[r_vrow[r, a]], Sc[pc])
                            else:
                                b_muladd(Sc[row + 1], V[r_vrow[r, a]], Sc[pc])
                        else:
                            rk = np.uint32(r_vrank[r, a])
                            dst = Sc[row]
                            if (kind == A_MIN and rk < dst[1]) or (kind == A_MAX and rk > dst[1]):
                                dst[1] = rk
                    st_add(Sc, pb[s], Sc, preds0, ck, CR)
                    if tracing:
                        M[14].append((0, gid, r_ev[r], s, 0, _trace_rows(M, Sc, preds0, CR, ck), CR))
                else:
                    st_add(Sc, pb[s], Sc, sb[s], ck, CR)
                    if s == 0:
                        b_add_small(Sc[pb[0]], 1)
        else:  # predicates differ: an event-level snapshot z (Definition 3.11)
            z = nsnap
            nb = pool_alloc(scr, blk + 2 * CR)
            Sc = scr.rows
            vb[z] = nb
            sb[z] = nb + blk
            pb[z] = sb[z] + CR
            st_copy(Sc, preds0, Sc, sb[0], ck, CR)
            b_add_small(Sc[preds0], 1)
            for kk in range(k):
                q = qs[kk]
                R, kinds = Q[4][q], Q[5][q]
                cl = ch_c[lo + kk]
                for sl in range(Q[0][q]):
                    vr = vb[z] + off[kk] + sl * R
                    st_zero(Sc, vr, kinds, R)
                    if not hit[r, q]:
                        continue
                    for s in range(nsnap):
                        if s == 0:
                            coef = preds0
                        elif Sc[sb[s], 0] == 0:
                            continue
                        else:
                            coef = sb[s]
                        eval_add(Sc, vr, coef, vb[s] + off[kk] + sl * R, q, si, cl, Q, TP)
                    if Sc[vr, 0] != 0:
                        extend(Sc, vr, q, elem_of_type[q, t], r, Q, ST, M[21])
            st_zero(Sc, sb[z], ck, CR)
            st_zero(Sc, pb[z], ck, CR)
            b_add_small(Sc[pb[z]], 1)
            nsnap += 1
            if tracing:
                M[14].append((0, gid, r_ev[r], z, 0, _trace_rows(M, Sc, pb[z], CR, ck), CR))
    for s in range(nsnap):
        if Sc[pb[s], 0] != 0:
            st_add(Sc, sb[s], Sc, pb[s], ck, CR)
    stats[S_SNAPSHOTS] += nsnap
    _meter(M, 2 * nrows + nsnap * b_psnap[bi])
    if tracing:
        for s in range(nsnap):
            for kk in range(k):
                q = qs[kk]
                R = Q[4][q]
                for sl in range(Q[0][q]):
                    M[14].append((1, gid, s, kk, sl, _trace_rows(M, Sc, vb[s] + off[kk] + sl * R, R, Q[5][q]), R))
    tot = pool_alloc(scr, blk)
    Sc = scr.rows
    for kk in range(k):
        q = qs[kk]
        L, R, kinds = Q[0][q], Q[4][q], Q[5][q]
        cl = ch_c[lo + kk]
        for sl in range(L):
            st_zero(Sc, tot + off[kk] + sl * R, kinds, R)
            for s in range(nsnap):
                if Sc[sb[s], 0] == 0:
                    continue
                eval_add(Sc, tot + off[kk] + sl * R, sb[s], vb[s] + off[kk] + sl * R, q, si, cl, Q, TP)
        M[12].append((q, elem_of_type[q, t], tot + off[kk]))


@njit(cache=True)
def _process(mode, M, Q, TP, ST, B, NW, p, cur):
    """Compute a step's queued bursts and graphlets, then commit them (execute only).

    A burst (Definition 4.1): scan, record it for the sharing policy; execute, the policy's choice shares one
    graphlet, the other queries get graphlets of their own (queued), the negations its events satisfy are
    noted."""
    bq, gq = M[16], M[17]
    stats, qrows = M[7], M[15]
    part_n, part_since = M[1], M[2]
    tpl = TP[0][p]
    neg_ptr, neg_q, neg_after, hit = ST[5], ST[6], ST[7], ST[4]
    ch_ptr, ch_c = B[7], B[8]
    si_ptr, si_cand = TP[7], TP[8]
    in_shared = M[18]
    bt_ptr, bt_q = TP[4], TP[5]
    NT = TP[16]
    for jb in range(len(bq)):
        t, first, nrows = bq[jb]
        si = TP[6][tpl, t]
        bi = stats[S_BURSTS]
        stats[S_BURSTS] += 1
        stats[S_DECISIONS] += 1
        if mode == SCAN:
            b_ptr, b_rows = B[2], B[3]
            B[0][bi] = p
            B[1][bi] = t
            B[4][bi] = part_n[p] + nrows
            B[5][bi] = part_since[p]
            B[6][bi] = stats[S_GROUP]
            o = b_ptr[bi]
            for j in range(nrows):
                b_rows[o + j] = qrows[first + j]
            b_ptr[bi + 1] = o + nrows
            part_n[p] += nrows
            part_since[p] = 0
            continue
        _meter(M, 2 * nrows + NW)
        part_n[p] += nrows
        part_since[p] = 0
        lo, hi = ch_ptr[bi], ch_ptr[bi + 1]
        for j in range(lo, hi):
            in_shared[si_cand[si_ptr[si] + ch_c[j]]] = True
        for j in range(bt_ptr[tpl * NT + t], bt_ptr[tpl * NT + t + 1]):
            q = bt_q[j]
            i = Q[15][q, t]
            if i >= 0 and not in_shared[q]:
                for idx in range(first, first + nrows):
                    if hit[qrows[idx], q]:
                        M[17].append((q, i, first, nrows))
                        break
        for idx in range(first, first + nrows):
            r = qrows[idx]
            for j in range(neg_ptr[r], neg_ptr[r + 1]):
                M[13].append((neg_q[j], neg_after[j]))
        if hi - lo >= 2:
            _share(M, Q, TP, ST, B, p, si, bi, first, nrows, cur, t)
        for j in range(lo, hi):
            in_shared[si_cand[si_ptr[si] + ch_c[j]]] = False
    bq.clear()
    if mode == EXEC:
        for j in range(len(gq)):
            q, i, first, n = gq[j]
            _nonshared(M, Q, TP, ST, p, q, i, first, n, cur)
            stats[S_GRAPHLETS] += 1
        _apply(M, Q, TP, p, cur)
    gq.clear()


@njit(cache=True)
def _expire(M, Q, TP, p, old, cur):
    """Partition ``p`` enters pane ``cur`` from ``old``: the slots of the panes no window holding ``cur``
    starts in are emptied."""
    tpl = TP[0][p]
    Mn = M[8].rows
    EMAX = TP[17]
    eoff = TP[2][p]
    eidx = M[6]
    tpl_qptr, tpl_q = TP[19], TP[20]
    for j in range(tpl_qptr[tpl], tpl_qptr[tpl + 1]):
        q = tpl_q[j]
        L, R, kinds = Q[0][q], Q[4][q], Q[5][q]
        for e in range(EMAX):
            v = eidx[eoff + Q[12][q] * EMAX + e]
            if v < 0:
                continue
            if cur - old >= L:
                for sl in range(L):
                    st_zero(Mn, v + sl * R, kinds, R)
            else:
                for sp in range(old - L + 1, cur - L + 1):
                    st_zero(Mn, v + (sp % L) * R, kinds, R)


@njit(cache=True)
def _queue_events(M, Q, TP, ST, p, lo, hi):
    """Queue a timestamp's events of partition ``p`` that are not one burst: per shareable type a burst
    of its events (in order of the types' first events), every other event a graphlet of one event per
    query it matches; the negations they satisfy are noted."""
    r_type, hit, neg_ptr, neg_q, neg_after = ST[3], ST[4], ST[5], ST[6], ST[7]
    tpl = TP[0][p]
    si_of = TP[6]
    NT = TP[16]
    bt_ptr, bt_q = TP[4], TP[5]
    qrows, seen = M[15], M[19]
    n = 0
    for r in range(lo, hi):
        t = r_type[r]
        if si_of[tpl, t] >= 0:
            continue
        qrows[n] = r
        queued = False
        for j in range(bt_ptr[tpl * NT + t], bt_ptr[tpl * NT + t + 1]):
            q = bt_q[j]
            i = Q[15][q, t]
            if i >= 0 and hit[r, q]:
                M[17].append((q, i, n, 1))
                queued = True
        if queued:
            n += 1
        for j in range(neg_ptr[r], neg_ptr[r + 1]):
            M[13].append((neg_q[j], neg_after[j]))
    for r in range(lo, hi):
        t = r_type[r]
        if si_of[tpl, t] < 0 or seen[t]:
            continue
        seen[t] = 1
        first = n
        for r2 in range(r, hi):
            if r_type[r2] == t:
                qrows[n] = r2
                n += 1
        M[16].append((t, first, n - first))
    for r in range(lo, hi):
        seen[r_type[r]] = 0


@njit(cache=True)
def hamlet_kernel(mode, Q, TP, ST, A, B, SEG, NW, width1, tracing):
    """Run the HAMLET executor over the rows (one template's events of one partition and timestamp
    per segment; segments in stream order): per segment, the partition enters the segment's pane, a
    burst of a shareable type is buffered, anything else ends it and is processed at once; at the end
    every buffered burst.  ``mode`` SCAN records the bursts only, EXEC computes with the decisions.

    Returns the results -- per (query, partition, window) key its state's rows (``qR[q]`` rows each) --
    and, when ``tracing``, the trace's headers and rows."""
    main = pool_new(width1, 256)
    scr = pool_new(width1, 256)
    trc = pool_new(width1, 16)
    results = Dict.empty(key_type=types.int64, value_type=types.int64)
    defer = List.empty_list(_T3)
    kills = List.empty_list(_T2)
    trace = List.empty_list(_T7)
    bq = List.empty_list(_T3)
    gq = List.empty_list(_T4)
    A[7][S_TRACE] = 1 if tracing else 0
    M = (A[0], A[1], A[2], A[3], A[4], A[5], A[6], A[7], main, scr, trc, results, defer, kills, trace, A[8], bq, gq,
         A[9], A[10], A[11], A[12])
    # the segments in order, then every partition's buffered burst (two steps per segment, see above)
    seg_lo, seg_hi, seg_part, seg_group = SEG
    stats, group_cycles, qrows = M[7], M[20], M[15]
    part_pane, part_n, part_since, run_type, run_len, run_buf = M[0], M[1], M[2], M[3], M[4], M[5]
    r_type, r_pane = ST[3], ST[2]
    part_tpl, part_roff, si_of = TP[0], TP[3], TP[6]
    nseg = len(seg_lo)
    P = len(part_pane)
    t_prev = cycles()
    g_prev = -1
    for s in range(nseg + P):
        end = s >= nseg
        if end:
            p = s - nseg
            lo = hi = cur = t = 0
            buffer = False
        else:
            g = seg_group[s]
            if g != g_prev:
                now = cycles()
                if g_prev >= 0:
                    group_cycles[g_prev] += now - t_prev
                t_prev = now
                g_prev = g
                stats[S_GROUP] = g
            p = seg_part[s]
            lo, hi = seg_lo[s], seg_hi[s]
            cur = r_pane[lo]
            t = r_type[lo]
            buffer = si_of[part_tpl[p], t] >= 0
            for r in range(lo + 1, hi):
                if r_type[r] != t:
                    buffer = False
                    break
        for step in range(2):
            if step == 0:  # the buffered burst ends: a new pane, another type, anything not one burst, the end
                if run_len[p] == 0 or not (end or part_pane[p] != cur or not buffer or run_type[p] != t):
                    continue
                o = part_roff[p]
                n = run_len[p]
                for j in range(n):
                    qrows[j] = run_buf[o + j]
                M[16].append((run_type[p], 0, n))
                run_len[p] = 0
                run_type[p] = -1
                pcur = part_pane[p]
            else:
                if end:
                    break
                if part_pane[p] != cur:
                    if mode == EXEC and part_pane[p] != NO_PANE:
                        _expire(M, Q, TP, p, part_pane[p], cur)
                    part_pane[p] = cur
                    part_n[p] = 0
                if buffer:
                    run_type[p] = t
                    o = part_roff[p] + run_len[p]
                    for r in range(lo, hi):
                        run_buf[o + r - lo] = r
                    run_len[p] += hi - lo
                    break
                _queue_events(M, Q, TP, ST, p, lo, hi)
                pcur = cur
            _process(mode, M, Q, TP, ST, B, NW, p, pcur)
        if not end and not buffer:
            other = 0
            for r in range(lo, hi):
                if si_of[part_tpl[p], r_type[r]] < 0:
                    other += 1
            part_n[p] += other
            part_since[p] += other
    if g_prev >= 0:
        group_cycles[g_prev] += cycles() - t_prev
    if mode == EXEC:
        _meter(M, 0)
    keys, bases = dict_items(results)
    counts = np.empty(len(keys), np.int64)
    P = TP[18]
    for j in range(len(keys)):
        counts[j] = Q[4][(keys[j] >> 32) // P]
    rows = rows_out(main.rows, bases, counts, width1)
    hdr = np.zeros((len(trace), 7), np.int64)
    for j in range(len(trace)):
        for f in range(7):
            hdr[j, f] = trace[j][f]
    trows = rows_out(trc.rows, hdr[:, 5].copy(), hdr[:, 6].copy(), width1)
    return keys, rows, hdr, trows


# ---- GRETA (evaluators/trends/greta.py) -------------------------------------------------------------------
# G  (graphs):     r_tpl, r_part, grp_lo, grp_hi, grp_id, tpl_qptr, tpl_q, tpl_pbase, g_off, v_off, ELMAX, f_off, P
# GS (state):      g_pane, g_not, v_head, v_tail, v_ts, v_pane, v_base, f_stack, f_top, stats, group_cycles, one
# GRETA's ``stats``: work, stored, peak, capped group (-1: none)
G_WORK, G_STORED, G_PEAK, G_CAPPED = 0, 1, 2, 3


@njit(cache=True)
def acc_add(acc, row):
    """Accumulate a number into ``acc`` (uint64 limbs, ``acc[0]`` the longest length added) without
    carrying: each limb adds into its own 64-bit lane, so a run of additions is one vectorisable loop and
    the carries are propagated once, by :func:`acc_into`."""
    n = np.int64(row[0])
    for j in range(1, n + 1):
        acc[j] += np.uint64(row[j])
    if n > np.int64(acc[0]):
        acc[0] = np.uint64(n)


@njit(cache=True)
def acc_into(d, acc):
    """d += the accumulated sum (carries propagated); ``acc`` is emptied."""
    n = max(np.int64(acc[0]), np.int64(d[0]))
    c = np.uint64(0)
    for j in range(1, n + 1):
        a = acc[j]
        t = np.uint64(d[j]) + (a & M32) + c
        d[j] = np.uint32(t & M32)
        c = (t >> S32) + (a >> S32)
        acc[j] = 0
    while c:
        n += 1
        if n >= d.shape[0]:
            raise OverflowError("trend kernel: a number outgrew its row")
        t = np.uint64(d[n]) + (c & M32)
        d[n] = np.uint32(t & M32)
        c = (c >> S32) + (t >> S32)
    while n > 0 and d[n] == 0:
        n -= 1
    d[0] = np.uint32(n)
    acc[0] = 0


@njit(cache=True)
def greta_kernel(Q, G, ST, GS, width1, max_work):
    """GRETA over the rows (:mod:`evaluators.trends.greta`): per timestamp, per event and query that
    matches or negates it, the query's graph of the event's partition drops the vertices that left every
    window when it enters a new pane; Equation 2 visits every predecessor vertex -- of the previous
    element (not before the gap's latest negated event) and, for a Kleene element, of its own -- and sums
    their states per start pane; after the timestamp the negations are noted and the new vertices stored.
    Stops after the first timestamp at which more than ``max_work`` (>= 0) vertices were visited.

    Returns the results, as :func:`hamlet_kernel` does."""
    qL, qnel, qkle, qR, qkinds, elem_of_type = Q[0], Q[2], Q[3], Q[4], Q[5], Q[15]
    r_ts, r_pane, r_type, hit, neg_ptr, neg_q, neg_after = ST[1], ST[2], ST[3], ST[4], ST[5], ST[6], ST[7]
    r_tpl, r_part, grp_lo, grp_hi, grp_id, tpl_qptr, tpl_q, tpl_pbase, g_off, v_off, ELMAX, f_off, P = G
    g_pane, g_not, v_head, v_tail, v_ts, v_pane, v_base, f_stack, f_top, stats, group_cycles, one = GS
    main = pool_new(width1, 256)
    scr = pool_new(width1, 64)
    results = Dict.empty(key_type=types.int64, value_type=types.int64)
    new = List.empty_list(_T5)
    kills = List.empty_list(_T2)
    Lmax = 1
    Rmax = 1
    for q in range(len(qL)):
        Lmax = max(Lmax, qL[q])
        Rmax = max(Rmax, qR[q])
    acc = np.zeros((Lmax * Rmax, width1), np.uint64)
    rank = np.zeros(Lmax * Rmax, np.uint32)
    touched = np.zeros(Lmax, np.bool_)
    work = stats[G_WORK]
    for j in range(len(grp_lo)):
        t0 = cycles()
        lo, hi = grp_lo[j], grp_hi[j]
        ts = r_ts[lo]
        cur = r_pane[lo]
        for r in range(lo, hi):
            tpl = r_tpl[r]
            p = r_part[r]
            t = r_type[r]
            for qj in range(tpl_qptr[tpl], tpl_qptr[tpl + 1]):
                q = tpl_q[qj]
                i = elem_of_type[q, t]
                h = i >= 0 and hit[r, q]
                negated = False
                for x in range(neg_ptr[r], neg_ptr[r + 1]):
                    if neg_q[x] == q:
                        negated = True
                if not h and not negated:
                    continue
                L, R, kinds = qL[q], qR[q], qkinds[q]
                gid = g_off[q] + p - tpl_pbase[tpl]
                oldest = cur - L + 1
                if g_pane[gid] != cur:
                    for e in range(qnel[q]):
                        vid = gid * ELMAX + e
                        hd = v_head[vid]
                        while hd < v_tail[vid] and v_pane[hd] < oldest:
                            f_stack[f_off[q] + f_top[q]] = v_base[hd]
                            f_top[q] += 1
                            hd += 1
                            stats[G_STORED] -= 1
                        v_head[vid] = hd
                    g_pane[gid] = cur
                for x in range(neg_ptr[r], neg_ptr[r + 1]):
                    if neg_q[x] == q:
                        kills.append((gid, neg_after[x]))
                if not h:
                    continue
                # Equation 2: every predecessor vertex, per start pane
                for sl in range(L):
                    touched[sl] = False
                    for rr in range(R):
                        acc[sl * R + rr, 0] = 0
                        rank[sl * R + rr] = MAXRANK if kinds[rr] == K_MIN else 0
                Mn = main.rows
                for which in range(2):
                    src = i - 1 if which == 0 else (i if qkle[q, i] else -1)
                    if src < 0:
                        continue
                    vid = gid * ELMAX + src
                    a, b = v_head[vid], v_tail[vid]
                    bound = g_not[gid * ELMAX + src] if src != i else -np.inf
                    # vertices are in timestamp order: [first >= bound, first >= ts)
                    vlo = a + np.searchsorted(v_ts[a:b], bound)
                    x0 = vlo + np.searchsorted(v_ts[vlo:b], ts)
                    if L == 1 and R == 1:  # COUNT(*) over tumbling windows: one number per vertex
                        for v in range(vlo, x0):
                            row = Mn[v_base[v]]
                            if row[0] == 0 or v_pane[v] < oldest:
                                continue
                            work += 1
                            touched[0] = True
                            acc_add(acc[0], row)
                        continue
                    for v in range(vlo, x0):
                        vp = v_pane[v]
                        base = v_base[v]
                        for sl in range(L):
                            if Mn[base + sl * R, 0] == 0:
                                continue
                            if vp - ((vp - sl) % L) < oldest:
                                continue
                            work += 1
                            touched[sl] = True
                            for rr in range(R):
                                k = kinds[rr]
                                if k <= K_NEG:
                                    acc_add(acc[sl * R + rr], Mn[base + sl * R + rr])
                                elif k == K_MIN:
                                    if Mn[base + sl * R + rr, 1] < rank[sl * R + rr]:
                                        rank[sl * R + rr] = Mn[base + sl * R + rr, 1]
                                elif Mn[base + sl * R + rr, 1] > rank[sl * R + rr]:
                                    rank[sl * R + rr] = Mn[base + sl * R + rr, 1]
                out = pool_alloc(scr, L * R)
                S = scr.rows
                mine = False
                for sl in range(L):
                    st_zero(S, out + sl * R, kinds, R)
                    if touched[sl]:
                        for rr in range(R):
                            if kinds[rr] <= K_NEG:
                                acc_into(S[out + sl * R + rr], acc[sl * R + rr])
                            else:
                                S[out + sl * R + rr, 1] = rank[sl * R + rr]
                    if i == 0 and sl == cur % L:
                        b_add_small(S[out + sl * R], 1)
                    if S[out + sl * R, 0] != 0:
                        extend(S, out + sl * R, q, i, r, Q, ST, one)
                        mine = True
                if mine:
                    new.append((q, gid, i, out, p))
        for x in range(len(kills)):
            gid, after = kills[x]
            g_not[gid * ELMAX + after] = ts
        S = scr.rows
        for x in range(len(new)):
            q, gid, i, out, p = new[x]
            L, R, kinds = qL[q], qR[q], qkinds[q]
            if f_top[q] > 0:
                f_top[q] -= 1
                base = f_stack[f_off[q] + f_top[q]]
            else:
                base = pool_alloc(main, L * R)
            Mn = main.rows
            for sl in range(L):
                st_copy(Mn, base + sl * R, S, out + sl * R, kinds, R)
            vid = gid * ELMAX + i
            at = v_tail[vid]
            v_ts[at] = ts
            v_pane[at] = cur
            v_base[at] = base
            v_tail[vid] = at + 1
            stats[G_STORED] += 1
            if i == qnel[q] - 1:
                for sl in range(L):
                    if S[out + sl * R, 0] != 0:
                        add_result(Q, main, results, P, q, p, cur - ((cur - sl) % L), cur, S, out + sl * R)
        new.clear()
        kills.clear()
        scr.top = 0
        group_cycles[grp_id[j]] += cycles() - t0
        stats[G_WORK] = work
        if max_work >= 0 and work > max_work:
            stats[G_CAPPED] = grp_id[j]
            break
        if stats[G_STORED] > stats[G_PEAK]:
            stats[G_PEAK] = stats[G_STORED]
    keys, bases = dict_items(results)
    counts = np.empty(len(keys), np.int64)
    for j in range(len(keys)):
        counts[j] = qR[(keys[j] >> 32) // P]
    return keys, rows_out(main.rows, bases, counts, width1)


# ---- conversions -----------------------------------------------------------------------------------------
@njit(cache=True)
def rows_out(D, bases, counts, width1):
    """Copy blocks of rows (``counts[j]`` rows of ``D`` from ``bases[j]``) into one array."""
    total = 0
    for j in range(len(bases)):
        total += counts[j]
    out = np.zeros((total, width1), np.uint32)
    o = 0
    for j in range(len(bases)):
        for r in range(counts[j]):
            out[o, :] = D[bases[j] + r]
            o += 1
    return out


@njit(cache=True)
def dict_items(d):
    """The keys and values of a typed int64 -> int64 dict, as arrays."""
    keys = np.empty(len(d), np.int64)
    vals = np.empty(len(d), np.int64)
    j = 0
    for k, v in d.items():
        keys[j] = k
        vals[j] = v
        j += 1
    return keys, vals


@njit(cache=True)
def encode_values(mant, shift, width1):
    """Rows of the numbers ``mant[j] * 2**shift[j]`` (``0 <= mant[j] < 2**63``, ``shift[j] >= 0``)."""
    out = np.zeros((len(mant), width1), np.uint32)
    w = width1 - 1
    for j in range(len(mant)):
        m = np.uint64(mant[j])
        limb = shift[j] // 32
        bit = np.uint64(shift[j] % 32)
        m0 = m & M32
        m1 = m >> S32
        if bit == 0:
            v0, v1, v2 = m0, m1, np.uint64(0)
        else:
            back = np.uint64(32) - bit
            v0 = (m0 << bit) & M32
            v1 = ((m0 >> back) | (m1 << bit)) & M32
            v2 = m1 >> back
        top = 0
        for k, v in enumerate((v0, v1, v2)):
            if v != 0:
                if limb + k >= w:
                    raise OverflowError("trend kernel: a value outgrew its row")
                out[j, 1 + limb + k] = np.uint32(v)
                top = limb + k + 1
        out[j, 0] = np.uint32(top)
    return out
