"""The compiled per-event loop of the multi-pattern runtime (numba, compiled once and cached on disk).

One generic kernel, :func:`run_kernel`, interprets any global plan encoded as arrays
(:mod:`evaluators.multi.plan_arrays`) over any stream encoded as arrays
(:mod:`evaluators.multi.stream_arrays`), so a new plan or workload costs no compilation: a process
loads the machine code from numba's disk cache.  What it computes is the runtime's definition
(:mod:`evaluators.multi.runtime`); how it stores things:

* a node's instances are rows of arrays -- ``MN``/``MX`` (the window keys of their oldest and newest
  events), ``SL`` (their slots, one row of ``size`` int64 each), ``SER`` (a serial number that
  compaction keeps) -- appended in arrival order, so ``MX`` never decreases along them and a join
  finds the rows its window and SEQ pairs allow by binary search on ``MX``;
* an index of a node, for a parent's condition between the two sides over the node's slots, keeps
  the condition's value of every row: for an equality, hash buckets (open addressing on the value)
  chaining the rows newest first; for an order comparison, the rows in blocks of consecutive rows
  (merged as they grow, a logarithmic number of them) each sorted by the value.  A join reads the
  bucket, or the block entries in the value range the condition allows, within the rows its window
  allows -- or scans those rows when that is fewer (the rows after the last block are always
  scanned);
* a Kleene slot holds a tuple id of a persistent list (``KP`` previous tuple, ``KL`` last event,
  ``KF`` first event, ``KN`` length): extending a tuple by one event is O(1);
* a new instance goes on a stack; processing it stores it (if a parent joins it), reports it at the
  owners whose root its node is, and joins it with the sibling's rows under every parent link,
  pushing what passes.  Rows made at the current event are never a join's candidates (each holds the
  arriving event, as the new instance does, so the pair would bind it twice).

numba counts references to arrays: a helper that returns an array, an inlined helper given arrays and
an array view each cost atomic reference counting, measured at most of the kernel's time; so the
helpers take arrays as (borrowed) arguments of ordinary calls and return scalars, and an array is
reassigned only on the rare branch where it grows.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, types
from numba.typed import Dict

from evaluators.multi.plan_arrays import (
    A_JROW,
    A_KLEAF,
    A_KSIDE,
    A_NODE,
    A_SIB,
    CK_AA,
    CK_AC,
    CK_DIST,
    CK_SEQ,
    FILTER,
    G_CHK0,
    G_CHK1,
    G_DEP0,
    G_DEP1,
    G_PRED0,
    G_PRED1,
    G_SUCC0,
    G_SUCC1,
    G_TYPE,
    H_KIND,
    H_NODE,
    H_PROG,
    HASH,
    J_HIDX,
    J_HOP,
    J_HXPROG,
    J_LB0,
    J_LB1,
    J_PARENT,
    J_SIB,
    J_SIDE,
    J_CHK0,
    J_CHK1,
    J_CIDX,
    J_UB0,
    J_UB1,
    K_ANC0,
    K_ANC1,
    K_CHK0,
    K_CHK1,
    K_ENUM,
    K_HIX0,
    K_HIX1,
    K_INTERNAL,
    K_KIND,
    K_LEFT,
    K_LKL,
    K_LMAX,
    K_LMIN,
    K_ROOT0,
    K_ROOT1,
    K_SIZE,
    K_STORE,
    K_STRICT,
    K_TIME,
    K_UP0,
    K_UP1,
    O_NEG0,
    O_NEG1,
    O_PART,
    O_PAT,
    O_SIZE,
    O_SPAN,
    O_STRAT,
    O_STRICT,
    O_TIME,
    O_UNBOUNDED,
    O_WSIZE,
)
from evaluators.multi.programs import ADD, ATTR, CMP, CMP_AA, CMP_AC, CONST, DIV, MUL, NEG, SUB

#: expired instances are dropped every this many events
COMPACT_EVERY = 32
#: rows of a new sorted block of an order-comparison index
BLOCK = 64

STATUS_OK, STATUS_PARTIAL_MATCHES, STATUS_WORK = 0, 1, 2
STRAT_NEXT, STRAT_STRICT, STRAT_PARTITION = 1, 2, 3
#: the counters run_kernel returns
C_LIVE, C_PEAK, C_WORK, C_CREATED = range(4)


# ---- growable arrays --------------------------------------------------------------------------------
@njit(cache=True)
def _grow_f(a, need):
    b = np.empty(max(need, 2 * a.shape[0], 16), np.float64)
    b[:a.shape[0]] = a
    return b


@njit(cache=True)
def _grow_i(a, need):
    b = np.empty(max(need, 2 * a.shape[0], 16), np.int64)
    b[:a.shape[0]] = a
    return b


@njit(cache=True)
def _grow_i2(a, need):
    b = np.empty((max(need, 2 * a.shape[0], 16), a.shape[1]), np.int64)
    b[:a.shape[0]] = a
    return b


@njit(cache=True, _nrt=False, inline="always")
def _lower_bound(A, lo, hi, v):
    """The first index in ``[lo, hi)`` of sorted ``A`` whose value is ``>= v`` (``hi`` if none)."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if A[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, _nrt=False, inline="always")
def _upper_bound(A, lo, hi, v):
    """The first index in ``[lo, hi)`` of sorted ``A`` whose value is ``> v`` (``hi`` if none)."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if A[mid] <= v:
            lo = mid + 1
        else:
            hi = mid
    return lo


# ---- Kleene tuples and comparisons --------------------------------------------------------------------
@njit(cache=True, _nrt=False, inline="always")
def _kcontains(KP, KL, t, e):
    while t >= 0:
        x = KL[t]
        if x == e:
            return True
        if x < e:
            return False
        t = KP[t]
    return False


@njit(cache=True, _nrt=False, inline="always")
def _kdisjoint(KP, KL, a, b):
    while a >= 0 and b >= 0:
        ea = KL[a]
        eb = KL[b]
        if ea == eb:
            return False
        if ea > eb:
            a = KP[a]
        else:
            b = KP[b]
    return True


@njit(cache=True, _nrt=False, inline="always")
def _cmp(k, a, b):
    if k == 0:
        return a < b
    if k == 1:
        return a <= b
    if k == 2:
        return a > b
    if k == 3:
        return a >= b
    if k == 4:
        return a == b
    return a != b


# ---- condition programs ------------------------------------------------------------------------------
@njit(cache=True, _nrt=False, inline="always")
def _program(pid, ev, INS, PB, AT, CONSTS, stk):
    """Run program ``pid`` with slot ``s`` holding event ``ev[s]``: ``(ok, value)`` -- for a
    condition ``value`` is 1.0 or 0.0; ``ok`` is False where it divides by zero."""
    i = PB[pid, 0]
    e = PB[pid, 1]
    sp = 0
    while i < e:
        op = INS[i, 0]
        if op >= CMP_AC:
            v = _cmp(op - CMP_AC, AT[INS[i, 2], ev[INS[i, 1]]], CONSTS[INS[i, 3]])
            return True, 1.0 if v else 0.0
        if op >= CMP_AA:
            v = _cmp(op - CMP_AA, AT[INS[i, 2], ev[INS[i, 1]]], AT[INS[i, 4], ev[INS[i, 3]]])
            return True, 1.0 if v else 0.0
        if op >= CMP:
            v = _cmp(op - CMP, stk[sp - 2], stk[sp - 1])
            return True, 1.0 if v else 0.0
        if op == ATTR:
            stk[sp] = AT[INS[i, 2], ev[INS[i, 1]]]
            sp += 1
        elif op == CONST:
            stk[sp] = CONSTS[INS[i, 1]]
            sp += 1
        elif op == NEG:
            stk[sp - 1] = -stk[sp - 1]
        else:
            b = stk[sp - 1]
            a = stk[sp - 2]
            sp -= 1
            if op == ADD:
                stk[sp - 1] = a + b
            elif op == SUB:
                stk[sp - 1] = a - b
            elif op == MUL:
                stk[sp - 1] = a * b
            elif op == DIV:
                if b == 0.0:
                    return False, 0.0
                stk[sp - 1] = a / b
        i += 1
    return True, stk[sp - 1] if sp > 0 else 0.0


@njit(cache=True, _nrt=False)
def _cond_generic(pid, comb, INS, PB, PKB, PKS, AT, CONSTS, KP, KL, stk, evb, cur):
    """Condition program ``pid`` on ``comb`` (slots: events or Kleene tuple ids); over Kleene slots it
    must hold for every element (every combination)."""
    k0 = PKB[pid, 0]
    k1 = PKB[pid, 1]
    if k0 == k1:
        ok, v = _program(pid, comb, INS, PB, AT, CONSTS, stk)
        return ok and v != 0.0
    for s in range(comb.shape[0]):
        evb[s] = comb[s]
    m = k1 - k0
    for i in range(m):
        cur[i] = comb[PKS[k0 + i]]
    while True:
        for i in range(m):
            evb[PKS[k0 + i]] = KL[cur[i]]
        ok, v = _program(pid, evb, INS, PB, AT, CONSTS, stk)
        if not ok or v == 0.0:
            return False
        i = m - 1
        while i >= 0:
            cur[i] = KP[cur[i]]
            if cur[i] >= 0:
                break
            cur[i] = comb[PKS[k0 + i]]
            i -= 1
        if i < 0:
            return True


@njit(cache=True, _nrt=False, inline="always")
def _checks(c0, c1, comb, CHK, strict, TS, AT, CONSTS, KP, KL, KF, INS, PB, PKB, PKS, stk, evb, cur):
    """Check rows ``[c0, c1)`` on the instance ``comb``: distinct events, SEQ pairs, conditions (an
    attribute compared with an attribute or a constant inline, programs interpreted)."""
    for q in range(c0, c1):
        kind = CHK[q, 0]
        if kind == CK_AA:
            if not _cmp(CHK[q, 5], AT[CHK[q, 2], comb[CHK[q, 1]]], AT[CHK[q, 4], comb[CHK[q, 3]]]):
                return False
        elif kind == CK_AC:
            if not _cmp(CHK[q, 5], AT[CHK[q, 2], comb[CHK[q, 1]]], CONSTS[CHK[q, 3]]):
                return False
        elif kind == CK_SEQ:
            u = comb[CHK[q, 1]]
            v = comb[CHK[q, 2]]
            tu = TS[KL[u]] if CHK[q, 3] != 0 else TS[u]
            tv = TS[KF[v]] if CHK[q, 4] != 0 else TS[v]
            if strict:
                if not tu < tv:
                    return False
            elif not tu <= tv:
                return False
        elif kind == CK_DIST:
            a = comb[CHK[q, 1]]
            b = comb[CHK[q, 2]]
            ka = CHK[q, 3] != 0
            kb = CHK[q, 4] != 0
            if not ka and not kb:
                if a == b:
                    return False
            elif ka and kb:
                if not _kdisjoint(KP, KL, a, b):
                    return False
            elif ka:
                if _kcontains(KP, KL, a, b):
                    return False
            elif _kcontains(KP, KL, b, a):
                return False
        elif not _cond_generic(CHK[q, 1], comb, INS, PB, PKB, PKS, AT, CONSTS, KP, KL, stk, evb, cur):
            return False
    return True


# ---- indexes -----------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False, inline="always")
def _hslot(TK, TH, t0, size, v):
    """The slot (within the table at ``t0`` of ``size`` slots) of key ``v``; an empty one if absent."""
    if v == 0.0:  # -0.0 and 0.0 are one key
        h = np.int64(0)
    elif v == np.inf or v == -np.inf:
        h = np.int64(7 if v > 0 else 11)
    else:
        m, e = math.frexp(v)
        h = (np.int64(m * 9007199254740992.0) ^ (np.int64(e) << np.int64(53))) * np.int64(-7046029254386353131)
    mask = size - 1
    i = (h ^ (h >> 32)) & mask
    while TH[t0 + i] >= 0 and TK[t0 + i] != v:
        i = (i + 1) & mask
    return t0 + i


@njit(cache=True, _nrt=False, inline="always")
def _value_lo(RSV, base, k, e0, e1, op, v):
    """The first entry of a sorted block (entries ``[e0, e1)``) whose value ``y`` satisfies ``y op v``."""
    if op <= 1:
        return e0
    if op == 2:
        return _upper_bound(RSV[:, k], base + e0, base + e1, v) - base
    return _lower_bound(RSV[:, k], base + e0, base + e1, v) - base


@njit(cache=True, _nrt=False, inline="always")
def _value_hi(RSV, base, k, e0, e1, op, v):
    """One past the last entry of a sorted block whose value ``y`` satisfies ``y op v``."""
    if op == 0:
        return _lower_bound(RSV[:, k], base + e0, base + e1, v) - base
    if op == 1:
        return _upper_bound(RSV[:, k], base + e0, base + e1, v) - base
    return e1


@njit(cache=True, _nrt=False, inline="always")
def _candidates(jr, xmn, xmx, cx, cb, j, jplan, TS, KL, KF, AT, CONSTS, stk, cnt, markev, markcnt, rbase, RMX,
                RHN, RSV, RSR, RB, nblk, tbase, tsize, TK, TH, cand, cflag):
    """The candidate rows (local row numbers of the sibling) of join ``jr`` for the new instance ``cx``
    (its slots copied into ``cb``), written to ``cand``: ``(count, examined, lwin, need)`` -- ``cflag[i]``
    1 where the index answered the join's indexed condition; ``lwin`` the oldest key the parent's
    window allows; ``need`` > 0 (and nothing written) when ``cand`` must first grow to that size."""
    JT, NI, NF, NSLK, HX, HKS, LBS, UBS, INS, PB = jplan
    p = JT[jr, J_PARENT]
    side = JT[jr, J_SIDE]
    sib = JT[jr, J_SIB]
    size = NI[p, K_SIZE]
    nl = NI[NI[p, K_LEFT], K_SIZE]
    xoff = 0 if side == 0 else nl
    xs = nl if side == 0 else size - nl
    lwin = xmx - NF[p, 0]
    if xmn < lwin:
        return 0, 0, lwin, 0
    for s in range(xs):
        cb[xoff + s] = cx[s]
    timek = NI[p, K_TIME] != 0
    strict = NI[p, K_STRICT] != 0
    lo = lwin
    for q in range(JT[jr, J_LB0], JT[jr, J_LB1]):
        s = LBS[q]
        t = TS[KL[cb[s]]] if NSLK[p, s] != 0 else TS[cb[s]]
        if timek:
            b = np.nextafter(t, np.inf) if strict else t
        elif strict:
            b = np.float64(_upper_bound(TS, 0, TS.shape[0], t))
        else:
            b = np.float64(_lower_bound(TS, 0, TS.shape[0], t))
        if b > lo:
            lo = b
    hi = np.inf
    for q in range(JT[jr, J_UB0], JT[jr, J_UB1]):
        s = UBS[q]
        t = TS[KF[cb[s]]] if NSLK[p, s] != 0 else TS[cb[s]]
        if timek:
            b = np.nextafter(t, -np.inf) if strict else t
        elif strict:
            b = np.float64(_lower_bound(TS, 0, TS.shape[0], t) - 1)
        else:
            b = np.float64(_upper_bound(TS, 0, TS.shape[0], t) - 1)
        if b < hi:
            hi = b
    if hi < lo:
        return 0, 0, lwin, 0
    end = markcnt[sib] if markev[sib] == j else cnt[sib]
    if end == 0:
        return 0, 0, lwin, 0
    base = rbase[sib]
    a = _lower_bound(RMX, base, base + end, lo) - base
    bb = end if hi == np.inf else _upper_bound(RMX, base, base + end, hi) - base
    if bb <= a:
        return 0, 0, lwin, 0
    h = JT[jr, J_HIDX]
    if h >= 0:
        ok, v = _program(JT[jr, J_HXPROG], cb, INS, PB, AT, CONSTS, stk)
        if not ok or v != v:  # the condition is false for every candidate
            return 0, 0, lwin, 0
        k = HKS[h]
        if HX[h, H_KIND] == HASH:
            r = TH[_hslot(TK, TH, tbase[h], tsize[h], v)]
            n = 0
            while r >= a:
                if r < bb:
                    if n >= cand.shape[0]:
                        return 0, 0, lwin, 2 * cand.shape[0]
                    cand[n] = r
                    cflag[n] = 1
                    n += 1
                r = RHN[base + r, k]
            return n, n, lwin, 0
        op = JT[jr, J_HOP]
        nb = nblk[h]
        tail = RB[h, nb - 1, 3] if nb > 0 else 0
        est = max(0, bb - max(a, tail))
        for z in range(nb):
            if RB[h, z, 3] > a and RB[h, z, 2] < bb:
                est += (_value_hi(RSV, base, k, RB[h, z, 0], RB[h, z, 1], op, v)
                        - _value_lo(RSV, base, k, RB[h, z, 0], RB[h, z, 1], op, v))
        if est < bb - a:
            if est > cand.shape[0]:
                return 0, 0, lwin, est
            n = 0
            for z in range(nb):
                if RB[h, z, 3] > a and RB[h, z, 2] < bb:
                    e0 = _value_lo(RSV, base, k, RB[h, z, 0], RB[h, z, 1], op, v)
                    e1 = _value_hi(RSV, base, k, RB[h, z, 0], RB[h, z, 1], op, v)
                    for e in range(e0, e1):
                        r = RSR[base + e, k]
                        if a <= r < bb:
                            cand[n] = r
                            cflag[n] = 1
                            n += 1
            for r in range(max(a, tail), bb):
                cand[n] = r
                cflag[n] = 0
                n += 1
            return n, est, lwin, 0
    n = bb - a
    if n > cand.shape[0]:
        return 0, 0, lwin, n
    for i in range(n):
        cand[i] = a + i
        cflag[i] = 0
    return n, n, lwin, 0


@njit(cache=True, _nrt=False)
def _compact_range(h, base, k, newidx, RSV, RSR, RB, nblk, nent):
    """Renumber order index ``h``'s block entries after a compaction (``newidx``), dropping the gone."""
    e = 0
    nb = 0
    for z in range(nblk[h]):
        e0 = e
        for i in range(RB[h, z, 0], RB[h, z, 1]):
            r = RSR[base + i, k]
            if newidx[r + 1] > newidx[r]:
                RSV[base + e, k] = RSV[base + i, k]
                RSR[base + e, k] = newidx[r]
                e += 1
        lo = newidx[RB[h, z, 2]]
        hi = newidx[RB[h, z, 3]]
        if hi > lo:
            RB[h, nb, 0] = e0
            RB[h, nb, 1] = e
            RB[h, nb, 2] = lo
            RB[h, nb, 3] = hi
            nb += 1
    nblk[h] = nb
    nent[h] = e


@njit(cache=True, _nrt=False)
def _sort_small(a, n):
    """Sort ``a[:n]`` in place (insertion sort: a match binds few events)."""
    for i in range(1, n):
        v = a[i]
        z = i - 1
        while z >= 0 and a[z] > v:
            a[z + 1] = a[z]
            z -= 1
        a[z + 1] = v


@njit(cache=True, _nrt=False)
def _owner_accepts(o, mn, mx, comb, okl, owners, stream, KP, KL, KF, KN, progs, stk, evb, cur, g, ps):
    """What an owner checks itself on a match at its root: strict or partition contiguity, and that no
    negated variable kills it (:func:`cep.semantics.negation_kills`; the events of the negated type in
    the window before the release point, :func:`cep.semantics.release_point`).  Returns ``(accepted,
    need)``; ``need`` > 0 when the scratch arrays ``g`` and ``ps`` must first grow to that size."""
    OI, OF, NG, NSL, CHK = owners
    TS, TPR, TPOS, TPTS, PCODE, PPOS, AT, CONSTS = stream
    INS, PB, PKB, PKS = progs
    size = OI[o, O_SIZE]
    total = 0
    for s in range(size):
        total += KN[comb[s]] if okl[o, s] != 0 else 1
    if total > g.shape[0]:
        return False, total
    ng = 0
    for s in range(size):
        if okl[o, s] != 0:
            t = comb[s]
            while t >= 0:
                g[ng] = KL[t]
                ng += 1
                t = KP[t]
        else:
            g[ng] = comb[s]
            ng += 1
    strat = OI[o, O_STRAT]
    if strat == STRAT_STRICT or strat == STRAT_PARTITION:
        if strat == STRAT_STRICT:
            for i in range(ng):
                ps[i] = g[i]
        else:
            pa = OI[o, O_PART]
            c0 = PCODE[pa, g[0]]
            for i in range(1, ng):
                if PCODE[pa, g[i]] != c0:
                    return False, 0
            for i in range(ng):
                ps[i] = PPOS[pa, g[i]]
        _sort_small(ps, ng)
        for i in range(1, ng):
            if ps[i] != ps[i - 1] + 1:
                return False, 0
    if OI[o, O_NEG1] == OI[o, O_NEG0]:
        return True, 0
    n = TS.shape[0]
    timek = OI[o, O_TIME] != 0
    strict = OI[o, O_STRICT] != 0
    lim = OF[o, O_SPAN]
    max_pos = 0
    for i in range(ng):
        max_pos = max(max_pos, g[i])
    ts_thr = mx if timek else TS[np.int64(mx)]
    pos_thr = max_pos + 1
    if OI[o, O_UNBOUNDED] != 0:
        if timek:
            ts_thr = max(ts_thr, mn + OF[o, O_WSIZE])
        else:
            pos_thr = max(pos_thr, np.int64(mn) + np.int64(OF[o, O_WSIZE]))
    r = min(n, max(_upper_bound(TS, 0, n, ts_thr), pos_thr))
    lo_k = mx - lim
    hi_k = mn + lim
    for q in range(OI[o, O_NEG0], OI[o, O_NEG1]):
        t = NG[q, G_TYPE]
        a0 = TPR[t, 0]
        a1 = TPR[t, 1]
        if timek:
            a = _lower_bound(TPTS, a0, a1, lo_k)
            b = _upper_bound(TPTS, a0, a1, hi_k)
        else:
            a = _lower_bound(TPOS, a0, a1, lo_k)
            b = _upper_bound(TPOS, a0, a1, hi_k)
        for i in range(a, b):
            x = TPOS[i]
            if x >= r:
                break
            bound = False
            for z in range(ng):
                if g[z] == x:
                    bound = True
                    break
            if bound:
                continue
            tx = TS[x]
            ok = True
            for w in range(NG[q, G_PRED0], NG[q, G_PRED1]):
                s = NSL[w]
                tu = TS[KL[comb[s]]] if okl[o, s] != 0 else TS[comb[s]]
                if not (tu < tx if strict else tu <= tx):
                    ok = False
                    break
            if not ok:
                continue
            for w in range(NG[q, G_SUCC0], NG[q, G_SUCC1]):
                s = NSL[w]
                tv = TS[KF[comb[s]]] if okl[o, s] != 0 else TS[comb[s]]
                if not (tx < tv if strict else tx <= tv):
                    ok = False
                    break
            if not ok:
                continue
            comb[size] = x
            if not _checks(NG[q, G_CHK0], NG[q, G_CHK1], comb, CHK, strict, TS, AT, CONSTS, KP, KL, KF, INS, PB,
                           PKB, PKS, stk, evb, cur):
                continue
            kx = tx if timek else np.float64(x)
            kmin = kx
            kmax = kx
            for w in range(NG[q, G_DEP0], NG[q, G_DEP1]):
                s = NSL[w]
                if okl[o, s] != 0:
                    e0 = KF[comb[s]]
                    e1 = KL[comb[s]]
                else:
                    e0 = comb[s]
                    e1 = comb[s]
                k0 = TS[e0] if timek else np.float64(e0)
                k1 = TS[e1] if timek else np.float64(e1)
                kmin = min(kmin, k0)
                kmax = max(kmax, k1)
            if kmax - kmin <= lim:
                return False, 0
    return True, 0


@njit(cache=True, _nrt=False)
def _hash_fill(h, n, base, k, RHV, RHN, tbase, tsize, hused, t0, size, TK, TH):
    """(Re)build hash index ``h`` (column ``k`` of its node's rows at ``base``) over the node's first
    ``n`` rows in the table segment at ``t0`` of ``size`` slots."""
    for i in range(t0, t0 + size):
        TH[i] = -1
    tbase[h] = t0
    tsize[h] = size
    used = 0
    for r in range(n):
        v = RHV[base + r, k]
        if v != v:
            continue
        i = _hslot(TK, TH, t0, size, v)
        if TH[i] < 0:
            TK[i] = v
            used += 1
        RHN[base + r, k] = TH[i]
        TH[i] = r
    hused[h] = used


@njit(cache=True, _nrt=False)
def _range_block(h, row_hi, base, k, RHV, RSV, RSR, RB, nblk, nent, sbf, sbi):
    """Sort the rows after the last block of order index ``h``, up to ``row_hi``, into a new block, then
    merge the last two blocks while the newer is at least half the older (and always past
    :data:`MAX_BLOCKS`); ``sbf``, ``sbi`` are scratch of at least the node's rows."""
    nb = nblk[h]
    row_lo = RB[h, nb - 1, 3] if nb > 0 else 0
    e0 = nent[h]
    m = 0
    for r in range(row_lo, row_hi):  # insertion sort by value; NaN (no value) never satisfies a comparison
        v = RHV[base + r, k]
        if v != v:
            continue
        z = m - 1
        while z >= 0 and RSV[base + e0 + z, k] > v:
            RSV[base + e0 + z + 1, k] = RSV[base + e0 + z, k]
            RSR[base + e0 + z + 1, k] = RSR[base + e0 + z, k]
            z -= 1
        RSV[base + e0 + z + 1, k] = v
        RSR[base + e0 + z + 1, k] = r
        m += 1
    RB[h, nb, 0] = e0
    RB[h, nb, 1] = e0 + m
    RB[h, nb, 2] = row_lo
    RB[h, nb, 3] = row_hi
    nb += 1
    nent[h] = e0 + m
    while nb >= 2 and (2 * (RB[h, nb - 1, 3] - RB[h, nb - 1, 2]) >= RB[h, nb - 2, 3] - RB[h, nb - 2, 2]
                       or nb >= MAX_BLOCKS):
        a0 = RB[h, nb - 2, 0]
        a1 = RB[h, nb - 2, 1]
        b1 = RB[h, nb - 1, 1]
        i = a0
        j = a1
        w = 0
        while i < a1 or j < b1:
            if j >= b1 or (i < a1 and RSV[base + i, k] <= RSV[base + j, k]):
                sbf[w] = RSV[base + i, k]
                sbi[w] = RSR[base + i, k]
                i += 1
            else:
                sbf[w] = RSV[base + j, k]
                sbi[w] = RSR[base + j, k]
                j += 1
            w += 1
        for i in range(w):
            RSV[base + a0 + i, k] = sbf[i]
            RSR[base + a0 + i, k] = sbi[i]
        RB[h, nb - 2, 1] = b1
        RB[h, nb - 2, 3] = RB[h, nb - 1, 3]
        nb -= 1
    nblk[h] = nb


@njit(cache=True, _nrt=False)
def _index_one(h, r, base, k, comb, hkind, hprog, INS, PB, AT, CONSTS, stk, RHV, RHN, RB, nblk, tbase, tsize, hused,
               TK, TH):
    """Enter row ``r`` of its node (at ``base``; slots ``comb``) into index ``h`` (a hash index has room
    for one more key); returns whether an order index's rows after its last block make a new block."""
    ok, v = _program(hprog, comb, INS, PB, AT, CONSTS, stk)
    if not ok:
        v = np.nan
    RHV[base + r, k] = v
    if hkind == HASH:
        if v == v:
            i = _hslot(TK, TH, tbase[h], tsize[h], v)
            if TH[i] < 0:
                TK[i] = v
                hused[h] += 1
            RHN[base + r, k] = TH[i]
            TH[i] = r
        return False
    tail = RB[h, nblk[h] - 1, 3] if nblk[h] > 0 else 0
    return r + 1 - tail >= BLOCK


#: the most blocks of one order index (merging keeps them logarithmic in its rows)
MAX_BLOCKS = 48


@njit(cache=True, _nrt=False)
def _compact_rows(u, thr, cnt, minmn, rbase, RMN, RMX, RSER, RSL, RHV, newidx):
    """Drop node ``u``'s rows older than ``thr``, keeping their order; ``newidx`` gets the rows kept
    before each old row (and, last, in all); returns how many were dropped."""
    n = cnt[u]
    base = rbase[u]
    w = 0
    low = np.inf
    for r in range(n):
        newidx[r] = w
        if RMN[base + r] >= thr:
            if w != r:
                RMN[base + w] = RMN[base + r]
                RMX[base + w] = RMX[base + r]
                RSER[base + w] = RSER[base + r]
                for s in range(RSL.shape[1]):
                    RSL[base + w, s] = RSL[base + r, s]
                for s in range(RHV.shape[1]):
                    RHV[base + w, s] = RHV[base + r, s]
            low = min(low, RMN[base + w])
            w += 1
    newidx[n] = w
    cnt[u] = w
    minmn[u] = low
    return n - w


@njit(cache=True, _nrt=False)
def _rows_move(u, newcap, rbase, rcap, cnt, rused, RMN, RMX, RSER, RSL, RHV, RHN, RSV, RSR):
    """Move node ``u``'s rows to a segment of ``newcap`` rows at the arena's end (``rused``)."""
    b0 = rbase[u]
    for r in range(cnt[u]):
        RMN[rused + r] = RMN[b0 + r]
        RMX[rused + r] = RMX[b0 + r]
        RSER[rused + r] = RSER[b0 + r]
        for s in range(RSL.shape[1]):
            RSL[rused + r, s] = RSL[b0 + r, s]
        for s in range(RHV.shape[1]):
            RHV[rused + r, s] = RHV[b0 + r, s]
            RHN[rused + r, s] = RHN[b0 + r, s]
            RSV[rused + r, s] = RSV[b0 + r, s]
            RSR[rused + r, s] = RSR[b0 + r, s]
    rbase[u] = rused
    rcap[u] = newcap


@njit(cache=True, _nrt=False)
def _grow_move(u, newcap, gbase, gcap, gcnt, gused, GMN, GT):
    b0 = gbase[u]
    for r in range(gcnt[u]):
        GMN[gused + r] = GMN[b0 + r]
        GT[gused + r] = GT[b0 + r]
    gbase[u] = gused
    gcap[u] = newcap


# ---- the map (sibling row serial, anchored node) -> anchored entry --------------------------------------
@njit(cache=True, _nrt=False)
def _xslot(XK, key):
    """The slot of ``key`` in the open-addressing map (keys >= 0; -1 empty, -2 deleted), or -1."""
    mask = XK.shape[0] - 1
    i = (key * np.int64(-7046029254386353131)) & mask
    while XK[i] != -1:
        if XK[i] == key:
            return i
        i = (i + 1) & mask
    return -1


@njit(cache=True, _nrt=False)
def _xput(XK, XV, key, val):
    """Insert ``key`` (absent) into the map."""
    mask = XK.shape[0] - 1
    i = (key * np.int64(-7046029254386353131)) & mask
    while XK[i] >= 0:
        i = (i + 1) & mask
    XK[i] = key
    XV[i] = val


# ---- the resumable event loop ------------------------------------------------------------------------------
# scalars of SC[...]
(S_J, S_QL, S_PHASE, S_ZA, S_T1, S_SP, S_LIVE, S_PEAK, S_WORK, S_CREATED, S_SERIAL, S_KN, S_ON, S_RUSED, S_GUSED,
 S_TUSED, S_EN, S_EDEAD, S_NLT, S_XUSED, S_STATUS, S_PROCESSED, S_NODE) = range(23)
N_SCALARS = 23
# what _resume returns: done, or which buffer must grow first
(DONE, NEED_ROWS, NEED_GROW, NEED_TAB, NEED_KPOOL, NEED_STACK, NEED_OUT, NEED_XMAP, NEED_EXT, NEED_LST, NEED_SCR,
 REBUILD_EXT) = range(12)
# phases of the current event: compaction, a leaf's new instances, draining the stack after a
# plain leaf, after a Kleene leaf's subsets, a start-anchored step, draining after it
PH_START, PH_LEAF, PH_DRAIN, PH_KDRAIN, PH_ANCHOR, PH_ADRAIN = range(6)


@njit(cache=True, _nrt=False, inline="always")
def _put(stn, smn, smx, sts, sp, u, mn, mx, comb, size):
    """Push an instance on the stack, which has room for it."""
    stn[sp] = u
    smn[sp] = mn
    smx[sp] = mx
    for s in range(size):
        sts[sp, s] = comb[s]


@njit(cache=True, _nrt=False, inline="always")
def _drain(PL, SM, FX, BU):
    """Process the stack of new instances until it is empty (``DONE``), a cap stops the run (``DONE``
    with a status), or a buffer must grow first (its code; the instance on top is not touched)."""
    (NI, NF, NSLK, JT, OI, OF, NG, AN, HX, CHK, UPJ, ROOTO, ANCL, LBS, UBS, NSL, TLR, TLEAF, HIX, INS, PB, PKB, PKS,
     HKS, okl, jplan, owners, progs) = PL
    TS, TC, AT, PCODE, PPOS, TPR, TPOS, TPTS, CONSTS, KLO, KHI, OFAST, OOUT, NMAT, PRM, ostream = SM
    (SC, cnt, rbase, rcap, markev, markcnt, minmn, gcnt, gbase, gcap, gminmn, tbase, tsize, hused, nblk, nent, RB,
     counts, wbn, cbn, cx, cb, evb, cur, stk, one) = FX
    ROWS, GROW, TAB, KPOOL, STACK, OUT, XMAP, EXT, LST, SCR = BU
    RMN, RMX, RSER, RSL, RHV, RHN, RSV, RSR = ROWS
    TK, TH = TAB
    KP, KL, KF, KN = KPOOL
    stn, smn, smx, sts = STACK
    outo, outs = OUT
    cand, cflag, acc, tm, tt, gbuf, pbuf, newidx, sbf, sbi = SCR
    j = SC[S_J]
    capl = PRM[1]
    capw = PRM[2]
    while SC[S_SP] > 0:
        sp = SC[S_SP]
        x = stn[sp - 1]
        xsize = NI[x, K_SIZE]
        # ---- room for everything processing it may write -----------------------------------------
        if NI[x, K_STORE] != 0:
            if cnt[x] + 1 > rcap[x]:
                newcap = max(16, 2 * rcap[x], cnt[x] + 1)
                if SC[S_RUSED] + newcap > RMN.shape[0]:
                    SC[S_NODE] = x
                    return NEED_ROWS, cnt[x] + 1
                _rows_move(x, newcap, rbase, rcap, cnt, SC[S_RUSED], RMN, RMX, RSER, RSL, RHV, RHN, RSV, RSR)
                SC[S_RUSED] += newcap
            for q in range(NI[x, K_HIX0], NI[x, K_HIX1]):
                h = HIX[q]
                if HX[h, H_KIND] == HASH:
                    if 2 * (hused[h] + 1) > tsize[h]:
                        size = 16
                        while size < 2 * (cnt[x] + 1) + 2:
                            size *= 2
                        if SC[S_TUSED] + size > TK.shape[0]:
                            return NEED_TAB, size
                        _hash_fill(h, cnt[x], rbase[x], HKS[h], RHV, RHN, tbase, tsize, hused, SC[S_TUSED], size, TK, TH)
                        SC[S_TUSED] += size
                elif cnt[x] + 1 > sbf.shape[0]:
                    return NEED_SCR, cnt[x] + 1
        if _out_room(x, NI, SC, outo) < 0:
            return NEED_OUT, SC[S_ON] + NI[x, K_ROOT1] - NI[x, K_ROOT0]
        total = 0
        for s in range(xsize):
            total += KN[sts[sp - 1, s]] if NSLK[x, s] != 0 else 1
        if total > gbuf.shape[0]:
            return NEED_SCR, total
        need_c = 0
        need_s = sp - 1
        for q in range(NI[x, K_UP0], NI[x, K_UP1]):
            jr = UPJ[q]
            p = JT[jr, J_PARENT]
            if NI[p, K_KIND] == FILTER:
                need_s += 1
            else:
                c = cnt[JT[jr, J_SIB]]
                need_c = max(need_c, c)
                if NMAT[p] != 0:
                    need_s += c
        if need_c > cand.shape[0]:
            return NEED_SCR, need_c
        if need_s > stn.shape[0]:
            return NEED_STACK, need_s
        # ---- pop it -----------------------------------------------------------------------------------
        sp -= 1
        SC[S_SP] = sp
        xmn = smn[sp]
        xmx = smx[sp]
        for s in range(xsize):
            cx[s] = sts[sp, s]
        if NI[x, K_STORE] != 0:  # store it
            r = cnt[x]
            if markev[x] != j:
                markev[x] = j
                markcnt[x] = r
            g = rbase[x] + r
            RMN[g] = xmn
            RMX[g] = xmx
            for s in range(xsize):
                RSL[g, s] = cx[s]
            RSER[g] = SC[S_SERIAL]
            SC[S_SERIAL] += 1
            cnt[x] = r + 1
            if xmn < minmn[x]:
                minmn[x] = xmn
            for q in range(NI[x, K_HIX0], NI[x, K_HIX1]):
                h = HIX[q]
                if _index_one(h, r, rbase[x], HKS[h], cx, HX[h, H_KIND], HX[h, H_PROG], INS, PB, AT, CONSTS, stk, RHV,
                              RHN, RB, nblk, tbase, tsize, hused, TK, TH):
                    _range_block(h, r + 1, rbase[x], HKS[h], RHV, RSV, RSR, RB, nblk, nent, sbf, sbi)
            if NI[x, K_INTERNAL] != 0:
                SC[S_LIVE] += 1
                if SC[S_LIVE] > SC[S_PEAK]:
                    SC[S_PEAK] = SC[S_LIVE]
                    if SC[S_PEAK] > capl:
                        SC[S_STATUS] = STATUS_PARTIAL_MATCHES
                        return DONE, 0
        if KLO[x] <= xmn < KHI[x]:  # report it at the owners whose root it is
            for q in range(NI[x, K_ROOT0], NI[x, K_ROOT1]):
                o = ROOTO[q]
                if xmx - xmn > OF[o, O_SPAN]:
                    continue
                if OFAST[o] == 0:
                    if OI[o, O_STRAT] >= STRAT_STRICT or OI[o, O_NEG1] > OI[o, O_NEG0]:
                        ok, need = _owner_accepts(o, xmn, xmx, cx, okl, owners, ostream, KP, KL, KF, KN, progs, stk,
                                                  evb, cur, gbuf, pbuf)
                        if not ok:
                            continue
                    if OOUT[o] != 0:
                        on = SC[S_ON]
                        outo[on] = o
                        for s in range(xsize):
                            outs[on, s] = cx[s]
                        SC[S_ON] = on + 1
                        continue
                counts[OI[o, O_PAT]] += 1
        for ql2 in range(NI[x, K_UP0], NI[x, K_UP1]):  # join it under every parent link
            jr = UPJ[ql2]
            p = JT[jr, J_PARENT]
            psize = NI[p, K_SIZE]
            if NI[p, K_KIND] == FILTER:
                SC[S_WORK] += 1
                wbn[p] += 1
                if xmx - xmn <= NF[p, 0] and _checks(NI[p, K_CHK0], NI[p, K_CHK1], cx, CHK, NI[p, K_STRICT] != 0,
                                                     TS, AT, CONSTS, KP, KL, KF, INS, PB, PKB, PKS, stk, evb, cur):
                    SC[S_CREATED] += 1
                    cbn[p] += 1
                    if NMAT[p] != 0:
                        _put(stn, smn, smx, sts, sp, p, xmn, xmx, cx, psize)
                        sp += 1
                    elif KLO[p] <= xmn < KHI[p]:
                        for q in range(NI[p, K_ROOT0], NI[p, K_ROOT1]):
                            o = ROOTO[q]
                            if xmx - xmn <= OF[o, O_SPAN]:
                                counts[OI[o, O_PAT]] += 1
                continue
            ncand, ex, lwin, need = _candidates(jr, xmn, xmx, cx, cb, j, jplan, TS, KL, KF, AT, CONSTS, stk, cnt,
                                                markev, markcnt, rbase, RMX, RHN, RSV, RSR, RB, nblk, tbase, tsize, TK,
                                                TH, cand, cflag)
            SC[S_WORK] += ex
            wbn[p] += ex
            if SC[S_WORK] > capw:
                SC[S_SP] = sp
                SC[S_STATUS] = STATUS_WORK
                return DONE, 0
            if ncand == 0:
                continue
            base = rbase[JT[jr, J_SIB]]
            nl = NI[NI[p, K_LEFT], K_SIZE]
            yoff = nl if JT[jr, J_SIDE] == 0 else 0
            ys = psize - nl if JT[jr, J_SIDE] == 0 else nl
            c0 = JT[jr, J_CHK0]
            c1 = JT[jr, J_CHK1]
            c1i = c1 - JT[jr, J_CIDX]
            pstrict = NI[p, K_STRICT] != 0
            count_only = NMAT[p] == 0
            made = 0
            for i in range(ncand):
                row = base + cand[i]
                ymn = RMN[row]
                if ymn < lwin:
                    continue
                for s in range(ys):
                    cb[yoff + s] = RSL[row, s]
                if not _checks(c0, c1i if cflag[i] != 0 else c1, cb, CHK, pstrict, TS, AT, CONSTS, KP, KL, KF,
                               INS, PB, PKB, PKS, stk, evb, cur):
                    continue
                nmn = min(xmn, ymn)
                nmx = max(xmx, RMX[row])
                made += 1
                if count_only:
                    if KLO[p] <= nmn < KHI[p]:
                        for q in range(NI[p, K_ROOT0], NI[p, K_ROOT1]):
                            o = ROOTO[q]
                            if nmx - nmn <= OF[o, O_SPAN]:
                                counts[OI[o, O_PAT]] += 1
                    continue
                _put(stn, smn, smx, sts, sp, p, nmn, nmx, cb, psize)
                sp += 1
            SC[S_CREATED] += made
            cbn[p] += made
        SC[S_SP] = sp
    return DONE, 0


@njit(cache=True, _nrt=False, inline="always")
def _out_room(x, NI, SC, outo):
    """The room left in the output rows after writing every owner of node ``x`` (< 0: too little)."""
    return outo.shape[0] - SC[S_ON] - (NI[x, K_ROOT1] - NI[x, K_ROOT0])


@njit(cache=True, _nrt=False)
def _kleene_start(u, j, k, PL, SM, FX, BU):
    """Event ``j`` at Kleene leaf ``u``: the one-event tuple (``SC[S_T1]``) and, if the leaf enumerates,
    every subset ending with ``j`` -- each stored subset that may still grow, extended (JQPG Section 4)
    -- pushed where long enough.  Returns ``DONE`` or the buffer that must grow first."""
    NI, NF = PL[0], PL[1]
    TS = SM[0]
    PRM = SM[14]
    SC, gcnt, gbase, gcap, gminmn, one = FX[0], FX[7], FX[8], FX[9], FX[10], FX[25]
    GMN, GT = BU[1]
    KP, KL, KF, KN = BU[3]
    stn, smn, smx, sts = BU[4]
    SCR = BU[9]
    tm, tt = SCR[3], SCR[4]
    enum = NI[u, K_ENUM] != 0
    g0 = gcnt[u] if enum else 0
    kn = SC[S_KN]
    if kn + 1 + g0 > KP.shape[0]:
        return NEED_KPOOL, kn + 1 + g0
    if enum:
        if g0 + 1 > tm.shape[0]:
            return NEED_SCR, g0 + 1
        if gcnt[u] + g0 + 1 > gcap[u]:
            newcap = max(16, 2 * gcap[u], gcnt[u] + g0 + 1)
            if SC[S_GUSED] + newcap > GMN.shape[0]:
                SC[S_NODE] = u
                return NEED_GROW, gcnt[u] + g0 + 1
            _grow_move(u, newcap, gbase, gcap, gcnt, SC[S_GUSED], GMN, GT)
            SC[S_GUSED] += newcap
        if SC[S_SP] + g0 + 1 > stn.shape[0]:
            return NEED_STACK, SC[S_SP] + g0 + 1
    tj = TS[j]
    t1 = kn
    KP[t1] = -1
    KL[t1] = j
    KF[t1] = j
    KN[t1] = 1
    kn += 1
    SC[S_T1] = t1
    if enum:
        span = NF[u, 0]
        khi = NI[u, K_LMAX]
        klo = NI[u, K_LMIN]
        kstrict = NI[u, K_STRICT] != 0
        b0 = gbase[u]
        tm[0] = k
        tt[0] = t1
        m = 1
        for r in range(g0):
            if k - GMN[b0 + r] > span:
                continue
            t = GT[b0 + r]
            last = TS[KL[t]]
            if (last < tj) if kstrict else (last <= tj):
                KP[kn] = t
                KL[kn] = j
                KF[kn] = KF[t]
                KN[kn] = KN[t] + 1
                tm[m] = GMN[b0 + r]
                tt[m] = kn
                kn += 1
                m += 1
        for i in range(m):
            if khi < 0 or KN[tt[i]] < khi:
                g = gcnt[u]
                GMN[b0 + g] = tm[i]
                GT[b0 + g] = tt[i]
                gcnt[u] = g + 1
                gminmn[u] = min(gminmn[u], tm[i])
                SC[S_LIVE] += 1
                if SC[S_LIVE] > SC[S_PEAK]:
                    SC[S_PEAK] = SC[S_LIVE]
        if SC[S_PEAK] > PRM[1]:
            SC[S_STATUS] = STATUS_PARTIAL_MATCHES
        sp = SC[S_SP]
        for i in range(m):
            if KN[tt[i]] >= klo:
                one[0] = tt[i]
                _put(stn, smn, smx, sts, sp, u, tm[i], k, one, 1)
                sp += 1
        SC[S_SP] = sp
    SC[S_KN] = kn
    return DONE, 0


@njit(cache=True, _nrt=False)
def _anchored_step(a, u, j, k, PL, SM, FX, BU):
    """A start-anchored node's new instances at event ``j`` of its Kleene leaf ``u`` (the runtime's
    module docstring): ``(x, (j,))`` for every sibling row ``x`` the node's join accepts with ``j``, and
    ``(x, T + (j,))`` for every tuple ``T`` stored for ``x`` whose last event is strictly earlier.
    Returns ``DONE`` or the buffer that must grow first (nothing changed then)."""
    (NI, NF, NSLK, JT, OI, OF, NG, AN, HX, CHK, UPJ, ROOTO, ANCL, LBS, UBS, NSL, TLR, TLEAF, HIX, INS, PB, PKB, PKS,
     HKS, okl, jplan, owners, progs) = PL
    TS, TC, AT, PCODE, PPOS, TPR, TPOS, TPTS, CONSTS, KLO, KHI, OFAST, OOUT, NMAT, PRM, ostream = SM
    (SC, cnt, rbase, rcap, markev, markcnt, minmn, gcnt, gbase, gcap, gminmn, tbase, tsize, hused, nblk, nent, RB,
     counts, wbn, cbn, cx, cb, evb, cur, stk, one) = FX
    ROWS, GROW, TAB, KPOOL, STACK, OUT, XMAP, EXT, LST, SCR = BU
    RMN, RMX, RSER, RSL, RHV, RHN, RSV, RSR = ROWS
    TK, TH = TAB
    KP, KL, KF, KN = KPOOL
    stn, smn, smx, sts = STACK
    XK, XV = XMAP
    EK, EH, ENA, ENS, EA, EM = EXT
    LT, LN = LST
    cand, cflag, acc, tm, tt, gbuf, pbuf, newidx, sbf, sbi = SCR
    node = AN[a, A_NODE]
    jr = AN[a, A_JROW]
    sib = AN[a, A_SIB]
    t1 = SC[S_T1]
    one[0] = t1
    ncand, ex, lwin, need = _candidates(jr, k, k, one, cb, j, jplan, TS, KL, KF, AT, CONSTS, stk, cnt, markev, markcnt,
                                        rbase, RMX, RHN, RSV, RSR, RB, nblk, tbase, tsize, TK, TH, cand, cflag)
    if need > 0:
        return NEED_SCR, need
    base = rbase[sib]
    size = NI[node, K_SIZE]
    ys = size - 1
    kslot = NI[NI[node, K_LEFT], K_SIZE] if AN[a, A_KSIDE] == 1 else 0
    yoff = 0 if AN[a, A_KSIDE] == 1 else 1
    c0 = JT[jr, J_CHK0]
    c1 = JT[jr, J_CHK1]
    c1i = c1 - JT[jr, J_CIDX]
    nacc = 0
    for i in range(ncand):
        row = cand[i]
        if RMN[base + row] < lwin:
            continue
        for s in range(ys):
            cb[yoff + s] = RSL[base + row, s]
        if not _checks(c0, c1i if cflag[i] != 0 else c1, cb, CHK, NI[node, K_STRICT] != 0, TS, AT, CONSTS, KP,
                       KL, KF, INS, PB, PKB, PKS, stk, evb, cur):
            continue
        acc[nacc] = row
        nacc += 1
    n_anch = AN.shape[0]
    total = 0
    longest = 1
    fresh = 0
    for i in range(nacc):
        slot = _xslot(XK, RSER[base + acc[i]] * n_anch + a)
        if slot >= 0:
            total += ENA[XV[slot]] + 1
            longest = max(longest, ENA[XV[slot]] + 1)
        else:
            total += 1
            fresh += 1
    kn = SC[S_KN]
    if kn + total > KP.shape[0]:
        return NEED_KPOOL, kn + total
    if longest > tt.shape[0]:
        return NEED_SCR, longest
    if SC[S_NLT] + total > LT.shape[0]:
        return NEED_LST, SC[S_NLT] + total
    if SC[S_EN] + fresh > EK.shape[0]:
        return NEED_EXT, SC[S_EN] + fresh
    if 2 * (SC[S_XUSED] + fresh) > XK.shape[0]:
        return NEED_XMAP, SC[S_XUSED] + fresh
    sp = SC[S_SP]
    if sp + total > stn.shape[0]:
        return NEED_STACK, sp + total
    SC[S_WORK] += ex
    wbn[node] += ex
    tj = TS[j]
    lo_k = NI[u, K_LMIN]
    hi_k = NI[u, K_LMAX]
    counted = NI[node, K_STORE] == 0
    nlt = SC[S_NLT]
    for i in range(nacc):
        row = acc[i]
        key = RSER[base + row] * n_anch + a
        tt[0] = t1
        m = 1
        slot = _xslot(XK, key)
        if slot >= 0:
            e = XV[slot]
            q = EH[e]
            while q >= 0:
                SC[S_WORK] += 1
                wbn[node] += 1
                t = LT[q]
                if TS[KL[t]] < tj:
                    KP[kn] = t
                    KL[kn] = j
                    KF[kn] = KF[t]
                    KN[kn] = KN[t] + 1
                    tt[m] = kn
                    kn += 1
                    m += 1
                q = LN[q]
        else:
            e = SC[S_EN]
            EK[e] = key
            EH[e] = -1
            ENA[e] = 0
            ENS[e] = 0
            EA[e] = a
            EM[e] = min(RMN[base + row], k)
            SC[S_EN] = e + 1
            _xput(XK, XV, key, e)
            SC[S_XUSED] += 1
        for z in range(m):
            t = tt[z]
            if hi_k < 0 or KN[t] < hi_k:
                LT[nlt] = t
                LN[nlt] = EH[e]
                EH[e] = nlt
                nlt += 1
                ENA[e] += 1
                short = KN[t] < lo_k
                if short:
                    ENS[e] += 1
                if counted or short:
                    SC[S_LIVE] += 1
                    if SC[S_LIVE] > SC[S_PEAK]:
                        SC[S_PEAK] = SC[S_LIVE]
        mn_e = EM[e]
        for s in range(ys):
            cb[yoff + s] = RSL[base + row, s]
        for z in range(m):
            t = tt[z]
            if KN[t] >= lo_k:
                cb[kslot] = t
                SC[S_CREATED] += 1
                cbn[node] += 1
                _put(stn, smn, smx, sts, sp, node, mn_e, k, cb, size)
                sp += 1
    SC[S_SP] = sp
    SC[S_KN] = kn
    SC[S_NLT] = nlt
    if SC[S_PEAK] > PRM[1]:
        SC[S_STATUS] = STATUS_PARTIAL_MATCHES
    if SC[S_WORK] > PRM[2]:
        SC[S_STATUS] = STATUS_WORK
    return DONE, 0


@njit(cache=True, _nrt=False)
def _compact(j, tj, PL, FX, BU):
    """Drop the stored instances, Kleene subsets and anchored tuples whose window has passed, and take
    the partial matches among them off the live count.  Returns ``DONE``, ``NEED_SCR`` or
    ``REBUILD_EXT`` (too many dead anchored entries; the rest is done)."""
    NI, NF, AN, HX, HIX, HKS = PL[0], PL[1], PL[7], PL[8], PL[18], PL[23]
    (SC, cnt, rbase, rcap, markev, markcnt, minmn, gcnt, gbase, gcap, gminmn, tbase, tsize, hused, nblk, nent, RB,
     counts, wbn, cbn, cx, cb, evb, cur, stk, one) = FX
    ROWS, GROW, TAB, KPOOL, STACK, OUT, XMAP, EXT, LST, SCR = BU
    RMN, RMX, RSER, RSL, RHV, RHN, RSV, RSR = ROWS
    GMN, GT = GROW
    TK, TH = TAB
    XK, XV = XMAP
    EK, EH, ENA, ENS, EA, EM = EXT
    newidx = SCR[7]
    N = NI.shape[0]
    most = 0
    for u in range(N):
        most = max(most, cnt[u])
    if most + 1 > newidx.shape[0]:
        return NEED_SCR, most + 1
    for u in range(N):
        thr = (tj if NI[u, K_TIME] != 0 else np.float64(j)) - NF[u, 0]
        if cnt[u] > 0 and minmn[u] < thr:
            gone = _compact_rows(u, thr, cnt, minmn, rbase, RMN, RMX, RSER, RSL, RHV, newidx)
            if NI[u, K_INTERNAL] != 0:
                SC[S_LIVE] -= gone
            for q in range(NI[u, K_HIX0], NI[u, K_HIX1]):
                h = HIX[q]
                if HX[h, H_KIND] == HASH:
                    _hash_fill(h, cnt[u], rbase[u], HKS[h], RHV, RHN, tbase, tsize, hused, tbase[h], tsize[h], TK, TH)
                else:
                    _compact_range(h, rbase[u], HKS[h], newidx, RSV, RSR, RB, nblk, nent)
        g = gcnt[u]
        if g > 0 and gminmn[u] < thr:
            b0 = gbase[u]
            w = 0
            low = np.inf
            for r in range(g):
                if GMN[b0 + r] >= thr:
                    GMN[b0 + w] = GMN[b0 + r]
                    GT[b0 + w] = GT[b0 + r]
                    low = min(low, GMN[b0 + w])
                    w += 1
            gcnt[u] = w
            gminmn[u] = low
            SC[S_LIVE] -= g - w
    en = SC[S_EN]
    for e in range(en):
        if EK[e] < 0:
            continue
        node = AN[EA[e], A_NODE]
        thr = (tj if NI[node, K_TIME] != 0 else np.float64(j)) - NF[node, 0]
        if EM[e] < thr:
            XK[_xslot(XK, EK[e])] = -2
            SC[S_LIVE] -= ENA[e] if NI[node, K_STORE] == 0 else ENS[e]
            EK[e] = -1
            SC[S_EDEAD] += 1
    if en > 0 and 2 * SC[S_EDEAD] > en:
        return REBUILD_EXT, 0
    return DONE, 0


PH_TYPE = 6


@njit(cache=True, _nrt=False)
def _resume(PL, SM, FX, BU):
    """Run the event loop from where it stopped (``SC``: the event, the leaf, the phase) until the end
    of the stream or a cap (``DONE``), or until a buffer must grow (its code and the size needed)."""
    NI, TLR, TLEAF, ANCL, CHK, INS, PB, PKB, PKS = PL[0], PL[16], PL[17], PL[12], PL[9], PL[19], PL[20], PL[21], PL[22]
    TS, TC, AT, CONSTS = SM[0], SM[1], SM[2], SM[8]
    SC, evb, cur, stk, one = FX[0], FX[22], FX[23], FX[24], FX[25]
    KP, KL, KF, KN = BU[3]
    stn, smn, smx, sts = BU[4]
    n = TS.shape[0]
    while SC[S_J] < n:
        j = SC[S_J]
        ph = SC[S_PHASE]
        tj = TS[j]
        if ph == PH_START:
            if j % COMPACT_EVERY == 0 and j > 0:
                code, arg = _compact(j, tj, PL, FX, BU)
                if code == NEED_SCR:
                    return code, arg
                SC[S_PHASE] = PH_TYPE
                if code == REBUILD_EXT:
                    return code, arg
            SC[S_PHASE] = PH_TYPE
            continue
        c = TC[j]
        if ph == PH_TYPE:
            if c < 0:
                SC[S_J] = j + 1
                SC[S_PHASE] = PH_START
            else:
                SC[S_QL] = TLR[c, 0]
                SC[S_PHASE] = PH_LEAF
            continue
        ql = SC[S_QL]
        if ql >= TLR[c, 1]:
            SC[S_J] = j + 1
            SC[S_PHASE] = PH_START
            continue
        u = TLEAF[ql]
        k = tj if NI[u, K_TIME] != 0 else np.float64(j)
        if ph == PH_LEAF:
            one[0] = j
            if NI[u, K_CHK1] > NI[u, K_CHK0] and not _checks(NI[u, K_CHK0], NI[u, K_CHK1], one, CHK, False, TS, AT,
                                                              CONSTS, KP, KL, KF, INS, PB, PKB, PKS, stk, evb, cur):
                SC[S_QL] = ql + 1
                continue
            if NI[u, K_LKL] == 0:
                _put(stn, smn, smx, sts, 0, u, k, k, one, 1)  # the stack is empty and holds at least one
                SC[S_SP] = 1
                SC[S_PHASE] = PH_DRAIN
            else:
                code, arg = _kleene_start(u, j, k, PL, SM, FX, BU)
                if code != DONE:
                    return code, arg
                if SC[S_STATUS] != STATUS_OK:
                    SC[S_PROCESSED] = j
                    return DONE, 0
                SC[S_ZA] = NI[u, K_ANC0]
                SC[S_PHASE] = PH_KDRAIN
            continue
        if ph == PH_ANCHOR:
            if SC[S_ZA] >= NI[u, K_ANC1]:
                SC[S_QL] = ql + 1
                SC[S_PHASE] = PH_LEAF
                continue
            code, arg = _anchored_step(ANCL[SC[S_ZA]], u, j, k, PL, SM, FX, BU)
            if code != DONE:
                return code, arg
            if SC[S_STATUS] != STATUS_OK:
                SC[S_PROCESSED] = j
                return DONE, 0
            SC[S_PHASE] = PH_ADRAIN
            continue
        code, arg = _drain(PL, SM, FX, BU)  # PH_DRAIN, PH_KDRAIN, PH_ADRAIN
        if code != DONE:
            return code, arg
        if SC[S_STATUS] != STATUS_OK:
            SC[S_PROCESSED] = j
            return DONE, 0
        if ph == PH_DRAIN:
            SC[S_QL] = ql + 1
            SC[S_PHASE] = PH_LEAF
        elif ph == PH_KDRAIN:
            SC[S_PHASE] = PH_ANCHOR
        else:
            SC[S_ZA] += 1
            SC[S_PHASE] = PH_ANCHOR
    SC[S_PROCESSED] = n
    return DONE, 0


# ---- growing buffers between resumptions (the only allocations) ---------------------------------------------
@njit(cache=True)
def _rows_repack(u, need, rbase, rcap, cnt, SC, ROWS):
    """A new row arena holding every node's rows, node ``u`` with room for ``need``."""
    RMN, RMX, RSER, RSL, RHV, RHN, RSV, RSR = ROWS
    newcap = max(16, need, 2 * rcap[u])
    total = newcap
    for v in range(rbase.shape[0]):
        if v != u:
            total += rcap[v]
    A = max(1024, 2 * total)
    nmn = np.empty(A, np.float64)
    nmx = np.empty(A, np.float64)
    nser = np.empty(A, np.int64)
    nsl = np.empty((A, RSL.shape[1]), np.int64)
    nhv = np.empty((A, RHV.shape[1]), np.float64)
    nhn = np.empty((A, RHN.shape[1]), np.int64)
    nsv = np.empty((A, RSV.shape[1]), np.float64)
    nsr = np.empty((A, RSR.shape[1]), np.int64)
    pos = 0
    for v in range(rbase.shape[0]):
        cap = newcap if v == u else rcap[v]
        if cap == 0:
            continue
        b0 = rbase[v]
        c = cnt[v]
        nmn[pos:pos + c] = RMN[b0:b0 + c]
        nmx[pos:pos + c] = RMX[b0:b0 + c]
        nser[pos:pos + c] = RSER[b0:b0 + c]
        nsl[pos:pos + c] = RSL[b0:b0 + c]
        nhv[pos:pos + c] = RHV[b0:b0 + c]
        nhn[pos:pos + c] = RHN[b0:b0 + c]
        nsv[pos:pos + c] = RSV[b0:b0 + c]
        nsr[pos:pos + c] = RSR[b0:b0 + c]
        rbase[v] = pos
        rcap[v] = cap
        pos += cap
    SC[S_RUSED] = pos
    return nmn, nmx, nser, nsl, nhv, nhn, nsv, nsr


@njit(cache=True)
def _grow_repack(u, need, gbase, gcap, gcnt, SC, GROW):
    """A new arena of Kleene subsets holding every leaf's, leaf ``u`` with room for ``need``."""
    GMN, GT = GROW
    newcap = max(16, need, 2 * gcap[u])
    total = newcap
    for v in range(gbase.shape[0]):
        if v != u:
            total += gcap[v]
    A = max(1024, 2 * total)
    nm = np.empty(A, np.float64)
    nt = np.empty(A, np.int64)
    pos = 0
    for v in range(gbase.shape[0]):
        cap = newcap if v == u else gcap[v]
        if cap == 0:
            continue
        b0 = gbase[v]
        c = gcnt[v]
        nm[pos:pos + c] = GMN[b0:b0 + c]
        nt[pos:pos + c] = GT[b0:b0 + c]
        gbase[v] = pos
        gcap[v] = cap
        pos += cap
    SC[S_GUSED] = pos
    return nm, nt


@njit(cache=True)
def _tab_repack(need, tbase, tsize, SC, TAB):
    """A new arena of hash tables holding the live ones, with room for a table of ``need`` slots."""
    TK, TH = TAB
    total = need
    for g in range(tbase.shape[0]):
        total += tsize[g]
    A = max(1024, 2 * total)
    nk = np.empty(A, np.float64)
    nh = np.full(A, -1, np.int64)
    pos = 0
    for g in range(tbase.shape[0]):
        if tsize[g] > 0:
            nk[pos:pos + tsize[g]] = TK[tbase[g]:tbase[g] + tsize[g]]
            nh[pos:pos + tsize[g]] = TH[tbase[g]:tbase[g] + tsize[g]]
            tbase[g] = pos
            pos += tsize[g]
    SC[S_TUSED] = pos
    return nk, nh


@njit(cache=True)
def _xmap(EK, en, need):
    """A new map of the live anchored entries, with room for ``need`` keys."""
    size = 16
    while size < 4 * (need + 1):
        size *= 2
    XK = np.full(size, -1, np.int64)
    XV = np.empty(size, np.int64)
    used = 0
    for e in range(en):
        if EK[e] >= 0:
            _xput(XK, XV, EK[e], e)
            used += 1
    return XK, XV, used


@njit(cache=True)
def _rebuild_ext(SC, EXT, LST):
    """Drop the dead anchored entries and their tuple lists, renumbering the live ones."""
    EK, EH, ENA, ENS, EA, EM = EXT
    LT, LN = LST
    nlt = SC[S_NLT]
    nt = np.empty(max(16, 2 * nlt), np.int64)
    nn = np.empty(max(16, 2 * nlt), np.int64)
    w = 0
    q = 0
    for e in range(SC[S_EN]):
        if EK[e] < 0:
            continue
        z = EH[e]
        first = -1
        prev = -1
        while z >= 0:  # copy the list in its order
            nt[q] = LT[z]
            nn[q] = -1
            if prev >= 0:
                nn[prev] = q
            else:
                first = q
            prev = q
            q += 1
            z = LN[z]
        EK[w] = EK[e]
        EH[w] = first
        ENA[w] = ENA[e]
        ENS[w] = ENS[e]
        EA[w] = EA[e]
        EM[w] = EM[e]
        w += 1
    SC[S_EN] = w
    SC[S_NLT] = q
    SC[S_EDEAD] = 0
    return nt, nn


@njit(cache=True)
def run_kernel(P, S, R):
    """Run the encoded plan ``P`` over the encoded stream ``S`` with the run's settings ``R``
    (``KLO``, ``KHI``: the first-event range per node; ``OFAST``: owners counted inline; ``OOUT``:
    owners whose matches are written out; ``NMAT``: nodes whose instances are built; ``PRM``:
    ``scan_from``, the partial-match cap, the work cap, the number of patterns).  The event loop
    (:func:`_resume`) allocates nothing; it stops when a buffer must grow, and this function grows it
    and resumes.

    Returns ``(status, processed, counters, counts, out_owner, out_slots, kprev, klast, work_by_node,
    created_by_node)``: ``counters`` live and peak partial matches, work, instances created;
    ``work_by_node`` and ``created_by_node`` split the last two by the node joined into."""
    (NI, NF, NSLK, JT, OI, OF, NG, AN, HX, CHK, UPJ, ROOTO, ANCL, LBS, UBS, NSL, TLR, TLEAF, HIX,
     INS, PB, PKB, PKS) = P
    TS, TC, AT, PCODE, PPOS, TPR, TPOS, TPTS, CONSTS = S
    KLO, KHI, OFAST, OOUT, NMAT, PRM = R
    N = NI.shape[0]
    W = NSLK.shape[1] - 1
    H = HX.shape[0]
    O = OI.shape[0]
    SC = np.zeros(N_SCALARS, np.int64)
    SC[S_J] = PRM[0]
    KH = 1
    for u in range(N):
        KH = max(KH, NI[u, K_HIX1] - NI[u, K_HIX0])
    HKS = np.zeros(max(1, H), np.int64)  # each index's column among its node's
    for u in range(N):
        for q in range(NI[u, K_HIX0], NI[u, K_HIX1]):
            HKS[HIX[q]] = q - NI[u, K_HIX0]
    okl = np.zeros((max(1, O), W + 1), np.int64)  # each owner's root slots: Kleene or not
    for u in range(N):
        for q in range(NI[u, K_ROOT0], NI[u, K_ROOT1]):
            for s in range(W + 1):
                okl[ROOTO[q], s] = NSLK[u, s]
    PL = (NI, NF, NSLK, JT, OI, OF, NG, AN, HX, CHK, UPJ, ROOTO, ANCL, LBS, UBS, NSL, TLR, TLEAF, HIX, INS, PB, PKB, PKS,
          HKS, okl, (JT, NI, NF, NSLK, HX, HKS, LBS, UBS, INS, PB), (OI, OF, NG, NSL, CHK), (INS, PB, PKB, PKS))
    SM = (TS, TC, AT, PCODE, PPOS, TPR, TPOS, TPTS, CONSTS, KLO, KHI, OFAST, OOUT, NMAT, PRM,
          (TS, TPR, TPOS, TPTS, PCODE, PPOS, AT, CONSTS))
    counts = np.zeros(PRM[3], np.int64)
    wbn = np.zeros(N, np.int64)
    cbn = np.zeros(N, np.int64)
    cnt = np.zeros(N, np.int64)
    rbase = np.zeros(N, np.int64)
    rcap = np.zeros(N, np.int64)
    gcnt = np.zeros(N, np.int64)
    gbase = np.zeros(N, np.int64)
    gcap = np.zeros(N, np.int64)
    tbase = np.zeros(max(1, H), np.int64)
    tsize = np.zeros(max(1, H), np.int64)
    hused = np.zeros(max(1, H), np.int64)
    nblk = np.zeros(max(1, H), np.int64)
    nent = np.zeros(max(1, H), np.int64)
    FX = (SC, cnt, rbase, rcap, np.full(N, -1, np.int64), np.zeros(N, np.int64), np.full(N, np.inf), gcnt, gbase, gcap,
          np.full(N, np.inf), tbase, tsize, hused, nblk, nent, np.zeros((max(1, H), MAX_BLOCKS, 4), np.int64), counts,
          wbn, cbn, np.zeros(W + 2, np.int64), np.zeros(W + 2, np.int64), np.zeros(W + 2, np.int64),
          np.zeros(W + 2, np.int64), np.zeros(64, np.float64), np.zeros(W + 2, np.int64))
    A0 = 1024
    ROWS = (np.empty(A0, np.float64), np.empty(A0, np.float64), np.empty(A0, np.int64), np.empty((A0, W + 1), np.int64),
            np.empty((A0, KH), np.float64), np.empty((A0, KH), np.int64), np.empty((A0, KH), np.float64),
            np.empty((A0, KH), np.int64))
    GROW = (np.empty(256, np.float64), np.empty(256, np.int64))
    TAB = (np.empty(1024, np.float64), np.full(1024, -1, np.int64))
    for h in range(H):  # every hash index starts with a small table
        if HX[h, H_KIND] == HASH:
            if SC[S_TUSED] + 16 > TAB[0].shape[0]:
                TAB = _tab_repack(16, tbase, tsize, SC, TAB)
            _hash_fill(h, 0, 0, 0, ROWS[4], ROWS[5], tbase, tsize, hused, SC[S_TUSED], 16, TAB[0], TAB[1])
            SC[S_TUSED] += 16
    KPOOL = (np.empty(64, np.int64), np.empty(64, np.int64), np.empty(64, np.int64), np.empty(64, np.int64))
    STACK = (np.empty(64, np.int64), np.empty(64, np.float64), np.empty(64, np.float64), np.empty((64, W + 1), np.int64))
    OUT = (np.empty(64, np.int64), np.empty((64, W + 1), np.int64))
    XMAP = (np.full(16, -1, np.int64), np.empty(16, np.int64))
    EXT = (np.empty(16, np.int64), np.empty(16, np.int64), np.empty(16, np.int64), np.empty(16, np.int64),
           np.empty(16, np.int64), np.empty(16, np.float64))
    LST = (np.empty(16, np.int64), np.empty(16, np.int64))
    m = 256
    SCR = (np.empty(m, np.int64), np.empty(m, np.int64), np.empty(m, np.int64), np.empty(m, np.float64),
           np.empty(m, np.int64), np.empty(m, np.int64), np.empty(m, np.int64), np.empty(m, np.int64),
           np.empty(m, np.float64), np.empty(m, np.int64))
    while True:
        BU = (ROWS, GROW, TAB, KPOOL, STACK, OUT, XMAP, EXT, LST, SCR)
        code, arg = _resume(PL, SM, FX, BU)
        if code == DONE:
            break
        if code == NEED_ROWS:
            ROWS = _rows_repack(SC[S_NODE], arg, rbase, rcap, cnt, SC, ROWS)
        elif code == NEED_GROW:
            GROW = _grow_repack(SC[S_NODE], arg, gbase, gcap, gcnt, SC, GROW)
        elif code == NEED_TAB:
            TAB = _tab_repack(arg, tbase, tsize, SC, TAB)
        elif code == NEED_KPOOL:
            KPOOL = (_grow_i(KPOOL[0], arg), _grow_i(KPOOL[1], arg), _grow_i(KPOOL[2], arg), _grow_i(KPOOL[3], arg))
        elif code == NEED_STACK:
            STACK = (_grow_i(STACK[0], arg), _grow_f(STACK[1], arg), _grow_f(STACK[2], arg), _grow_i2(STACK[3], arg))
        elif code == NEED_OUT:
            OUT = (_grow_i(OUT[0], arg), _grow_i2(OUT[1], arg))
        elif code == NEED_XMAP:
            XK, XV, used = _xmap(EXT[0], SC[S_EN], arg)
            XMAP = (XK, XV)
            SC[S_XUSED] = used
        elif code == NEED_EXT:
            EXT = (_grow_i(EXT[0], arg), _grow_i(EXT[1], arg), _grow_i(EXT[2], arg), _grow_i(EXT[3], arg),
                   _grow_i(EXT[4], arg), _grow_f(EXT[5], arg))
        elif code == NEED_LST:
            LST = (_grow_i(LST[0], arg), _grow_i(LST[1], arg))
        elif code == NEED_SCR:
            SCR = (_grow_i(SCR[0], arg), _grow_i(SCR[1], arg), _grow_i(SCR[2], arg), _grow_f(SCR[3], arg),
                   _grow_i(SCR[4], arg), _grow_i(SCR[5], arg), _grow_i(SCR[6], arg), _grow_i(SCR[7], arg),
                   _grow_f(SCR[8], arg), _grow_i(SCR[9], arg))
        elif code == REBUILD_EXT:
            LST = _rebuild_ext(SC, EXT, LST)
            XK, XV, used = _xmap(EXT[0], SC[S_EN], SC[S_EN])
            XMAP = (XK, XV)
            SC[S_XUSED] = used
    C = np.zeros(4, np.int64)
    C[C_LIVE] = SC[S_LIVE]
    C[C_PEAK] = SC[S_PEAK]
    C[C_WORK] = SC[S_WORK]
    C[C_CREATED] = SC[S_CREATED]
    return (SC[S_STATUS], SC[S_PROCESSED], C, counts, OUT[0][:SC[S_ON]].copy(), OUT[1][:SC[S_ON]].copy(),
            KPOOL[0][:SC[S_KN]].copy(), KPOOL[1][:SC[S_KN]].copy(), wbn, cbn)
