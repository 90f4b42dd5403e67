"""The compiled per-event loop of the multi-pattern runtime (numba, compiled once and cached on disk).

One generic kernel, :func:`run_kernel`, interprets any global plan encoded as arrays
(:mod:`evaluators.multi.plan_arrays`) over any stream encoded as arrays
(:mod:`evaluators.multi.stream_arrays`), so a new plan or workload costs no compilation: the first call
in a process loads the machine code from numba's disk cache.  What it does is the runtime's
definition (:mod:`evaluators.multi.runtime`); how it stores things:

* a node's instances are rows of arrays -- ``MN``/``MX`` (the window keys of its oldest and newest
  events, float64), ``SL`` (its slots, ``size`` int64 per row), ``SER`` (a serial number, stable
  under compaction) -- appended in arrival order, so ``MX`` never decreases along them and a join
  finds the candidates its window and SEQ pairs allow by binary search on ``MX``;
* a hash index of a node (an equality condition of a parent between the two sides) keeps, per key
  value, a chain of its rows from the newest to the oldest (open addressing on the value, ``next``
  per row): a join walks the chain of the new instance's value from the newest row and stops at the
  first row older than its window;
* a Kleene slot holds a tuple id of a persistent list (``KPREV``, ``KLAST``, ``KFIRST``, ``KLEN``):
  extending a tuple by one event is O(1) and shares the rest;
* a new instance goes on a stack; processing it stores it (if a parent joins it), reports it at the
  owners whose root its node is, and joins it with the sibling's rows under every parent link,
  pushing what passes.  Rows made at the current event are never a join's candidates (each holds the
  arriving event, as the new instance does, so the pair would bind it twice);
* ``C`` holds the counters: live and peak partial matches, ``work`` (candidates examined), instances
  created; a cap sets a status and the kernel returns at once with the events processed.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict, List

from evaluators.multi.plan_arrays import (
    A_JROW,
    A_KLEAF,
    A_KSIDE,
    A_NODE,
    A_SIB,
    FILTER,
    G_COND0,
    G_COND1,
    G_DEP0,
    G_DEP1,
    G_PRED0,
    G_PRED1,
    G_SUCC0,
    G_SUCC1,
    G_TYPE,
    J_HIDX,
    J_HXPROG,
    J_LB0,
    J_LB1,
    J_PARENT,
    J_SIB,
    J_SIDE,
    J_SKIP,
    J_UB0,
    J_UB1,
    K_ANC0,
    K_ANC1,
    K_COND0,
    K_COND1,
    K_DIST0,
    K_DIST1,
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
    K_SEQ0,
    K_SEQ1,
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

# counters C[...]
C_LIVE, C_PEAK, C_WORK, C_CREATED, C_SERIAL, C_KN, C_SP, C_ON, C_EN, C_ETL, C_STATUS, C_CAPL, C_CAPW, C_J, C_EDEAD, C_ACC = range(16)
N_COUNTERS = 16
# growable int64 arrays IX[...]
X_KPREV, X_KLAST, X_KFIRST, X_KLEN, X_STN, X_STS, X_OUTO, X_OUTS, X_EXTKEY, X_EXTHEAD, X_EXTNALL, X_EXTNSHORT, X_EXTA, \
    X_ETLT, X_ETLN, X_ACC, X_GATH, X_TMPT = range(18)
N_IX = 18
# growable float64 arrays FX[...]
Y_STMN, Y_STMX, Y_EXTMN, Y_TMPM = range(4)
N_FX = 4

STATUS_OK, STATUS_PARTIAL_MATCHES, STATUS_WORK = 0, 1, 2
STRAT_NEXT, STRAT_STRICT, STRAT_PARTITION = 1, 2, 3


# ---- growable arrays --------------------------------------------------------------------------------
@njit(cache=True)
def _gi(L, i, need):
    a = L[i]
    if need > a.shape[0]:
        b = np.empty(max(need, 2 * a.shape[0], 16), np.int64)
        b[:a.shape[0]] = a
        L[i] = b
        return b
    return a


@njit(cache=True)
def _gf(L, i, need):
    a = L[i]
    if need > a.shape[0]:
        b = np.empty(max(need, 2 * a.shape[0], 16), np.float64)
        b[:a.shape[0]] = a
        L[i] = b
        return b
    return a


@njit(cache=True)
def _live(C, d):
    C[C_LIVE] += d
    if C[C_LIVE] > C[C_PEAK]:
        C[C_PEAK] = C[C_LIVE]
        if C[C_PEAK] > C[C_CAPL]:
            C[C_STATUS] = STATUS_PARTIAL_MATCHES


# ---- Kleene tuples ---------------------------------------------------------------------------------
@njit(cache=True)
def _knew(IX, C, prev, elem):
    """The tuple ``prev + (elem,)`` (``prev`` -1: the one-event tuple)."""
    t = C[C_KN]
    kp = _gi(IX, X_KPREV, t + 1)
    kl = _gi(IX, X_KLAST, t + 1)
    kf = _gi(IX, X_KFIRST, t + 1)
    kn = _gi(IX, X_KLEN, t + 1)
    kp[t] = prev
    kl[t] = elem
    if prev < 0:
        kf[t] = elem
        kn[t] = 1
    else:
        kf[t] = kf[prev]
        kn[t] = kn[prev] + 1
    C[C_KN] = t + 1
    return t


@njit(cache=True)
def _kcontains(KP, KL, t, e):
    while t >= 0:
        x = KL[t]
        if x == e:
            return True
        if x < e:
            return False
        t = KP[t]
    return False


@njit(cache=True)
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


# ---- condition programs ------------------------------------------------------------------------------
@njit(cache=True)
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


@njit(cache=True)
def _run_program(pid, ev, INS, PB, AT, CONSTS, stk):
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


@njit(cache=True)
def _cond(pid, comb, P, S, IX, BF):
    """Condition ``pid`` on the instance ``comb`` (slots: events or Kleene tuple ids); over Kleene
    slots it must hold for every element (every combination)."""
    INS, PB, PKB, PKS = P[21], P[22], P[23], P[24]
    AT, CONSTS = S[2], S[8]
    stk = BF[4]
    k0 = PKB[pid, 0]
    k1 = PKB[pid, 1]
    if k0 == k1:
        ok, v = _run_program(pid, comb, INS, PB, AT, CONSTS, stk)
        return ok and v != 0.0
    evb = BF[2]
    cur = BF[3]
    KP = IX[X_KPREV]
    KL = IX[X_KLAST]
    evb[:comb.shape[0]] = comb
    m = k1 - k0
    for i in range(m):
        cur[i] = comb[PKS[k0 + i]]
    while True:
        for i in range(m):
            evb[PKS[k0 + i]] = KL[cur[i]]
        ok, v = _run_program(pid, evb, INS, PB, AT, CONSTS, stk)
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


@njit(cache=True)
def _checks(p, comb, skip, P, S, IX, BF):
    """Node ``p``'s checks on ``comb`` (a leaf's filters; a join's distinct events, SEQ pairs and
    conditions; a filter node's SEQ pairs and conditions), but for condition ``skip``."""
    NI, NSLK, CONDS, DIST, SEQP = P[0], P[2], P[9], P[10], P[11]
    TS = S[0]
    KP = IX[X_KPREV]
    KL = IX[X_KLAST]
    KF = IX[X_KFIRST]
    for q in range(NI[p, K_DIST0], NI[p, K_DIST1]):
        a = DIST[q, 0]
        b = DIST[q, 1]
        ka = NSLK[p, a]
        kb = NSLK[p, b]
        if ka == 0 and kb == 0:
            if comb[a] == comb[b]:
                return False
        elif ka != 0 and kb != 0:
            if not _kdisjoint(KP, KL, comb[a], comb[b]):
                return False
        elif ka != 0:
            if _kcontains(KP, KL, comb[a], comb[b]):
                return False
        elif _kcontains(KP, KL, comb[b], comb[a]):
            return False
    strict = NI[p, K_STRICT] != 0
    for q in range(NI[p, K_SEQ0], NI[p, K_SEQ1]):
        u = SEQP[q, 0]
        v = SEQP[q, 1]
        tu = TS[KL[comb[u]]] if NSLK[p, u] != 0 else TS[comb[u]]
        tv = TS[KF[comb[v]]] if NSLK[p, v] != 0 else TS[comb[v]]
        if strict:
            if not tu < tv:
                return False
        elif not tu <= tv:
            return False
    for q in range(NI[p, K_COND0], NI[p, K_COND1]):
        if q != skip and not _cond(CONDS[q], comb, P, S, IX, BF):
            return False
    return True


# ---- hash indexes ------------------------------------------------------------------------------------
@njit(cache=True)
def _hslot(HK, HH, v):
    """The table slot of key ``v`` (an empty one if absent)."""
    h = np.int64(hash(v)) * np.int64(-7046029254386353131)  # hash(-0.0) == hash(0.0)
    mask = HH.shape[0] - 1
    i = (h ^ (h >> 32)) & mask
    while HH[i] >= 0 and HK[i] != v:
        i = (i + 1) & mask
    return i


@njit(cache=True)
def _hrebuild(h, n, ST, size):
    """Rebuild index ``h`` over its node's first ``n`` rows in a table of ``size`` slots."""
    HKL, HHL, HVL, HNL, hused = ST[15], ST[16], ST[17], ST[18], ST[7]
    HK = np.empty(size, np.float64)
    HH = np.full(size, -1, np.int64)
    HV = HVL[h]
    HN = HNL[h]
    used = 0
    for r in range(n):
        v = HV[r]
        if v != v:
            continue
        i = _hslot(HK, HH, v)
        if HH[i] < 0:
            HK[i] = v
            used += 1
        HN[r] = HH[i]
        HH[i] = r
    HKL[h] = HK
    HHL[h] = HH
    hused[h] = used


@njit(cache=True)
def _hinsert(h, v, r, ST):
    HKL, HHL, HNL, hused = ST[15], ST[16], ST[18], ST[7]
    HK = HKL[h]
    HH = HHL[h]
    i = _hslot(HK, HH, v)
    if HH[i] < 0:
        HK[i] = v
        hused[h] += 1
    HNL[h][r] = HH[i]
    HH[i] = r


# ---- storing and pushing instances -------------------------------------------------------------------
@njit(cache=True)
def _push(u, mn, mx, comb, size, W, ST):
    C, IX, FX = ST[0], ST[19], ST[20]
    sp = C[C_SP]
    stn = _gi(IX, X_STN, sp + 1)
    sts = _gi(IX, X_STS, (sp + 1) * W)
    smn = _gf(FX, Y_STMN, sp + 1)
    smx = _gf(FX, Y_STMX, sp + 1)
    stn[sp] = u
    smn[sp] = mn
    smx[sp] = mx
    b = sp * W
    for s in range(size):
        sts[b + s] = comb[s]
    C[C_SP] = sp + 1


@njit(cache=True)
def _store(u, mn, mx, comb, P, S, ST, BF):
    NI, HX, HIX, INS, PB = P[0], P[8], P[20], P[21], P[22]
    C, cnt, markev, markcnt, minmn = ST[0], ST[1], ST[3], ST[4], ST[5]
    MNL, MXL, SLL, SERL, HVL, HNL, hused = ST[9], ST[10], ST[11], ST[12], ST[17], ST[18], ST[7]
    size = NI[u, K_SIZE]
    n = cnt[u]
    if markev[u] != C[C_J]:
        markev[u] = C[C_J]
        markcnt[u] = n
    a = _gf(MNL, u, n + 1)
    a[n] = mn
    a = _gf(MXL, u, n + 1)
    a[n] = mx
    sl = _gi(SLL, u, (n + 1) * size)
    for s in range(size):
        sl[n * size + s] = comb[s]
    ser = _gi(SERL, u, n + 1)
    ser[n] = C[C_SERIAL]
    C[C_SERIAL] += 1
    cnt[u] = n + 1
    if mn < minmn[u]:
        minmn[u] = mn
    for q in range(NI[u, K_HIX0], NI[u, K_HIX1]):
        h = HIX[q]
        ok, v = _run_program(HX[h, 1], comb, INS, PB, S[2], S[8], BF[4])
        if not ok:
            v = np.nan
        hv = _gf(HVL, h, n + 1)
        hv[n] = v
        _gi(HNL, h, n + 1)
        if v == v:
            if 2 * (hused[h] + 1) > ST[16][h].shape[0]:
                _hrebuild(h, n, ST, 2 * ST[16][h].shape[0])
            _hinsert(h, v, n, ST)


# ---- reporting at an owner -----------------------------------------------------------------------------
@njit(cache=True)
def _events_of(o, comb, kleene, P, IX):
    """The positions of every event bound by ``comb`` at owner ``o`` (Kleene elements included)."""
    OI = P[4]
    size = OI[o, O_SIZE]
    KP = IX[X_KPREV]
    KL = IX[X_KLAST]
    KN = IX[X_KLEN]
    total = 0
    for s in range(size):
        total += KN[comb[s]] if kleene[s] != 0 else 1
    g = _gi(IX, X_GATH, total)
    KP = IX[X_KPREV]
    KL = IX[X_KLAST]
    n = 0
    for s in range(size):
        if kleene[s] != 0:
            t = comb[s]
            while t >= 0:
                g[n] = KL[t]
                n += 1
                t = KP[t]
        else:
            g[n] = comb[s]
            n += 1
    return g, n


@njit(cache=True)
def _killed(o, mn, mx, comb, kleene, g, ng, P, S, IX, BF):
    """Whether some negated variable of owner ``o`` kills the match ``comb`` (:func:`cep.semantics.
    negation_kills`), looking at the events of its type in the window before the match's release
    point (:func:`cep.semantics.release_point`)."""
    OI, OF, NG, CONDS, NSL = P[4], P[5], P[6], P[9], P[17]
    TS, TPR, TPOS, TPTS = S[0], S[5], S[6], S[7]
    KL = IX[X_KLAST]
    KF = IX[X_KFIRST]
    n = TS.shape[0]
    timek = OI[o, O_TIME] != 0
    strict = OI[o, O_STRICT] != 0
    lim = OF[o, O_SPAN]
    size = OI[o, O_SIZE]
    max_pos = 0
    for i in range(ng):
        if g[i] > max_pos:
            max_pos = g[i]
    ts_thr = mx if timek else TS[np.int64(mx)]
    pos_thr = max_pos + 1
    if OI[o, O_UNBOUNDED] != 0:
        if timek:
            ts_thr = max(ts_thr, mn + OF[o, O_WSIZE])
        else:
            pos_thr = max(pos_thr, np.int64(mn) + np.int64(OF[o, O_WSIZE]))
    r = min(n, max(np.searchsorted(TS, ts_thr, side="right"), pos_thr))
    lo_k = mx - lim
    hi_k = mn + lim
    for q in range(OI[o, O_NEG0], OI[o, O_NEG1]):
        t = NG[q, G_TYPE]
        a0 = TPR[t, 0]
        a1 = TPR[t, 1]
        if timek:
            a = a0 + np.searchsorted(TPTS[a0:a1], lo_k, side="left")
            b = a0 + np.searchsorted(TPTS[a0:a1], hi_k, side="right")
        else:
            a = a0 + np.searchsorted(TPOS[a0:a1], lo_k, side="left")
            b = a0 + np.searchsorted(TPOS[a0:a1], hi_k, side="right")
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
                tu = TS[KL[comb[s]]] if kleene[s] != 0 else TS[comb[s]]
                if not (tu < tx if strict else tu <= tx):
                    ok = False
                    break
            if not ok:
                continue
            for w in range(NG[q, G_SUCC0], NG[q, G_SUCC1]):
                s = NSL[w]
                tv = TS[KF[comb[s]]] if kleene[s] != 0 else TS[comb[s]]
                if not (tx < tv if strict else tx <= tv):
                    ok = False
                    break
            if not ok:
                continue
            comb[size] = x
            for w in range(NG[q, G_COND0], NG[q, G_COND1]):
                if not _cond(CONDS[w], comb, P, S, IX, BF):
                    ok = False
                    break
            if not ok:
                continue
            kx = tx if timek else np.float64(x)
            kmin = kx
            kmax = kx
            for w in range(NG[q, G_DEP0], NG[q, G_DEP1]):
                s = NSL[w]
                if kleene[s] != 0:
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
                return True
    return False


@njit(cache=True)
def _emit(o, mn, mx, comb, P, S, R, ST, BF):
    """An instance at owner ``o``'s root that the owner checks itself: its own window, strict or
    partition contiguity, its negated variables; then counted, or written out (matches collected,
    skip-till-next-match candidates)."""
    OI, OF, NSLK, NI = P[4], P[5], P[2], P[0]
    PCODE, PPOS = S[3], S[4]
    OOUT, W = R[3], P[2].shape[1] - 1
    C, counts, IX = ST[0], ST[8], ST[19]
    if mx - mn > OF[o, O_SPAN]:
        return
    kleene = BF[5]
    size = OI[o, O_SIZE]
    for s in range(size):
        kleene[s] = BF[6][o * (W + 1) + s]
    strat = OI[o, O_STRAT]
    needs_events = strat == STRAT_STRICT or strat == STRAT_PARTITION or OI[o, O_NEG1] > OI[o, O_NEG0]
    if needs_events:
        g, ng = _events_of(o, comb, kleene, P, IX)
        if strat == STRAT_STRICT or strat == STRAT_PARTITION:
            if strat == STRAT_STRICT:
                ps = np.sort(g[:ng])
            else:
                pa = OI[o, O_PART]
                c0 = PCODE[pa, g[0]]
                for i in range(1, ng):
                    if PCODE[pa, g[i]] != c0:
                        return
                ps = np.empty(ng, np.int64)
                for i in range(ng):
                    ps[i] = PPOS[pa, g[i]]
                ps = np.sort(ps)
            for i in range(1, ng):
                if ps[i] != ps[i - 1] + 1:
                    return
        if OI[o, O_NEG1] > OI[o, O_NEG0]:
            if _killed(o, mn, mx, comb, kleene, g, ng, P, S, IX, BF):
                return
    if OOUT[o] != 0:
        k = C[C_ON]
        oo = _gi(IX, X_OUTO, k + 1)
        os_ = _gi(IX, X_OUTS, (k + 1) * W)
        oo[k] = o
        for s in range(size):
            os_[k * W + s] = comb[s]
        C[C_ON] = k + 1
    else:
        counts[OI[o, O_PAT]] += 1


@njit(cache=True)
def _report(u, mn, mx, comb, P, S, R, ST, BF):
    """Report a new instance of node ``u`` at the owners whose root it is."""
    NI, OI, OF, ROOTO = P[0], P[4], P[5], P[13]
    KLO, KHI, OFAST = R[0], R[1], R[2]
    counts = ST[8]
    if not (KLO[u] <= mn < KHI[u]):
        return
    for q in range(NI[u, K_ROOT0], NI[u, K_ROOT1]):
        o = ROOTO[q]
        if OFAST[o] != 0:
            if mx - mn <= OF[o, O_SPAN]:
                counts[OI[o, O_PAT]] += 1
        else:
            _emit(o, mn, mx, comb, P, S, R, ST, BF)


# ---- joins ---------------------------------------------------------------------------------------------
@njit(cache=True)
def _candidate(row, p, xmn, xmx, lwin, ys, yoff, size, skip, mode, count_only, passed, MN, MX, SL, P, S, R, ST, BF):
    """One candidate sibling row of :func:`_join`: the new instance's slots are in ``BF[1]`` already;
    returns the number passed so far."""
    NI, OI, OF, ROOTO = P[0], P[4], P[5], P[13]
    KLO, KHI = R[0], R[1]
    C, counts, IX = ST[0], ST[8], ST[19]
    cb = BF[1]
    ymn = MN[row]
    if ymn < lwin:
        return passed
    base = row * ys
    for s in range(ys):
        cb[yoff + s] = SL[base + s]
    if not _checks(p, cb, skip, P, S, IX, BF):
        return passed
    passed += 1
    nmn = min(xmn, ymn)
    nmx = max(xmx, MX[row])
    if mode == 1:
        acc = _gi(IX, X_ACC, passed)
        acc[passed - 1] = row
    elif count_only:
        C[C_CREATED] += 1
        if KLO[p] <= nmn < KHI[p]:
            for q in range(NI[p, K_ROOT0], NI[p, K_ROOT1]):
                o = ROOTO[q]
                if nmx - nmn <= OF[o, O_SPAN]:
                    counts[OI[o, O_PAT]] += 1
    else:
        C[C_CREATED] += 1
        _push(p, nmn, nmx, cb, size, P[2].shape[1] - 1, ST)
    return passed


@njit(cache=True)
def _join(jr, xmn, xmx, cx, mode, P, S, R, ST, BF):
    """Join the new instance ``cx`` (keys ``xmn``..``xmx``) with the sibling's rows under join ``jr``.

    The candidates are the sibling rows made before this event whose newest key the window and the
    SEQ pairs allow (binary search on ``MX``), or, with a hash index, the rows of the bucket of the
    new instance's key, newest first, down to the first one too old.  Each candidate counts one unit
    of work.  ``mode`` 0: a passing combination is pushed (or, for a parent nobody stores, joins or
    checks, counted at its owners); mode 1: its sibling row is written to ``IX[X_ACC]`` (the
    start-anchored step); returns how many passed."""
    NI, NF, JT, LBS, UBS, INS, PB = P[0], P[1], P[3], P[15], P[16], P[21], P[22]
    TS = S[0]
    NMAT = R[4]
    C, cnt, markev, markcnt = ST[0], ST[1], ST[3], ST[4]
    MNL, MXL, SLL, HKL, HHL, HNL, IX = ST[9], ST[10], ST[11], ST[15], ST[16], ST[18], ST[19]
    cb = BF[1]
    p = JT[jr, J_PARENT]
    side = JT[jr, J_SIDE]
    sib = JT[jr, J_SIB]
    size = NI[p, K_SIZE]
    nl = NI[NI[p, K_LEFT], K_SIZE]
    xoff = 0 if side == 0 else nl
    yoff = nl if side == 0 else 0
    xs = nl if side == 0 else size - nl
    ys = size - xs
    span = NF[p, 0]
    lwin = xmx - span
    if xmn < lwin:
        return 0
    for s in range(xs):
        cb[xoff + s] = cx[s]
    timek = NI[p, K_TIME] != 0
    strict = NI[p, K_STRICT] != 0
    KL = IX[X_KLAST]
    KF = IX[X_KFIRST]
    lo = lwin
    for q in range(JT[jr, J_LB0], JT[jr, J_LB1]):
        s = LBS[q]
        t = TS[KL[cb[s]]] if P[2][p, s] != 0 else TS[cb[s]]
        if timek:
            b = np.nextafter(t, np.inf) if strict else t
        else:
            b = np.float64(np.searchsorted(TS, t, side="right") if strict else np.searchsorted(TS, t, side="left"))
        if b > lo:
            lo = b
    hi = np.inf
    for q in range(JT[jr, J_UB0], JT[jr, J_UB1]):
        s = UBS[q]
        t = TS[KF[cb[s]]] if P[2][p, s] != 0 else TS[cb[s]]
        if timek:
            b = np.nextafter(t, -np.inf) if strict else t
        else:
            b = np.float64((np.searchsorted(TS, t, side="left") if strict else np.searchsorted(TS, t, side="right")) - 1)
        if b < hi:
            hi = b
    if hi < lo:
        return 0
    end = markcnt[sib] if markev[sib] == C[C_J] else cnt[sib]
    if end == 0:
        return 0
    MN = MNL[sib]
    MX = MXL[sib]
    SL = SLL[sib]
    skip = JT[jr, J_SKIP]
    h = JT[jr, J_HIDX]
    count_only = mode == 0 and NMAT[p] == 0
    passed = 0
    if h < 0:
        a = np.searchsorted(MX[:end], lo, side="left")
        bb = end if hi == np.inf else np.searchsorted(MX[:end], hi, side="right")
        if bb <= a:
            return 0
        C[C_WORK] += bb - a
        if C[C_WORK] > C[C_CAPW]:
            C[C_STATUS] = STATUS_WORK
            return 0
        for row in range(a, bb):
            passed = _candidate(row, p, xmn, xmx, lwin, ys, yoff, size, skip, mode, count_only, passed,
                                MN, MX, SL, P, S, R, ST, BF)
    else:
        ok, v = _run_program(JT[jr, J_HXPROG], cb, INS, PB, S[2], S[8], BF[4])
        if not ok or v != v:
            return 0
        HK = HKL[h]
        HH = HHL[h]
        nxt = HNL[h]
        r = HH[_hslot(HK, HH, v)]
        while r >= 0:
            if r >= end or MX[r] > hi:
                r = nxt[r]
                continue
            if MX[r] < lo:
                break
            C[C_WORK] += 1
            if C[C_WORK] > C[C_CAPW]:
                C[C_STATUS] = STATUS_WORK
                return passed
            passed = _candidate(r, p, xmn, xmx, lwin, ys, yoff, size, skip, mode, count_only, passed,
                                MN, MX, SL, P, S, R, ST, BF)
            r = nxt[r]
    return passed


@njit(cache=True)
def _process(u, mn, mx, cx, P, S, R, ST, BF):
    """A new instance of node ``u``: store it, report it, join it under every parent link."""
    NI, NF, JT, OI, OF, UPJ, ROOTO = P[0], P[1], P[3], P[4], P[5], P[12], P[13]
    KLO, KHI, NMAT = R[0], R[1], R[4]
    C, counts = ST[0], ST[8]
    W = P[2].shape[1] - 1
    if NI[u, K_STORE] != 0:
        _store(u, mn, mx, cx, P, S, ST, BF)
        if NI[u, K_INTERNAL] != 0:
            _live(C, 1)
            if C[C_STATUS] != 0:
                return
    if NI[u, K_ROOT1] > NI[u, K_ROOT0]:
        _report(u, mn, mx, cx, P, S, R, ST, BF)
    for q in range(NI[u, K_UP0], NI[u, K_UP1]):
        jr = UPJ[q]
        p = JT[jr, J_PARENT]
        if NI[p, K_KIND] == FILTER:
            C[C_WORK] += 1
            if C[C_WORK] > C[C_CAPW]:
                C[C_STATUS] = STATUS_WORK
                return
            if mx - mn <= NF[p, 0] and _checks(p, cx, -1, P, S, ST[19], BF):
                C[C_CREATED] += 1
                if NMAT[p] != 0:
                    _push(p, mn, mx, cx, NI[p, K_SIZE], W, ST)
                elif KLO[p] <= mn < KHI[p]:
                    for r in range(NI[p, K_ROOT0], NI[p, K_ROOT1]):
                        o = ROOTO[r]
                        if mx - mn <= OF[o, O_SPAN]:
                            counts[OI[o, O_PAT]] += 1
        else:
            _join(jr, mn, mx, cx, 0, P, S, R, ST, BF)
        if C[C_STATUS] != 0:
            return


@njit(cache=True)
def _drain(P, S, R, ST, BF):
    """Process the stack of new instances until it is empty (or a cap stops the run)."""
    NI = P[0]
    C, IX, FX = ST[0], ST[19], ST[20]
    cx = BF[0]
    W = P[2].shape[1] - 1
    while C[C_SP] > 0 and C[C_STATUS] == 0:
        sp = C[C_SP] - 1
        C[C_SP] = sp
        u = IX[X_STN][sp]
        mn = FX[Y_STMN][sp]
        mx = FX[Y_STMX][sp]
        sts = IX[X_STS]
        for s in range(NI[u, K_SIZE]):
            cx[s] = sts[sp * W + s]
        _process(u, mn, mx, cx, P, S, R, ST, BF)
    C[C_SP] = 0


# ---- Kleene leaves and start-anchored nodes --------------------------------------------------------------
@njit(cache=True)
def _kleene_step(u, j, k, t1, P, S, R, ST, BF):
    """Every subset of a Kleene leaf's events ending with event ``j``: the one-event tuple ``t1`` and
    each stored subset that may still grow, extended by ``j`` (JQPG Section 4)."""
    NI, NF = P[0], P[1]
    TS = S[0]
    C, gcnt, gminmn, GMNL, GTL, IX, FX = ST[0], ST[2], ST[6], ST[13], ST[14], ST[19], ST[20]
    W = P[2].shape[1] - 1
    span = NF[u, 0]
    hi = NI[u, K_LMAX]
    lo = NI[u, K_LMIN]
    strict = NI[u, K_STRICT] != 0
    tj = TS[j]
    g0 = gcnt[u]
    tm = _gf(FX, Y_TMPM, 1)
    tt = _gi(IX, X_TMPT, 1)
    tm[0] = k
    tt[0] = t1
    m = 1
    GM = GMNL[u]
    GT = GTL[u]
    for r in range(g0):
        if k - GM[r] > span:
            continue
        t = GT[r]
        last = TS[IX[X_KLAST][t]]
        if (last < tj) if strict else (last <= tj):
            nt = _knew(IX, C, t, j)
            tm = _gf(FX, Y_TMPM, m + 1)
            tt = _gi(IX, X_TMPT, m + 1)
            tm[m] = GM[r]
            tt[m] = nt
            m += 1
    KN = IX[X_KLEN]
    for i in range(m):
        if hi < 0 or KN[tt[i]] < hi:
            g = gcnt[u]
            a = _gf(GMNL, u, g + 1)
            a[g] = tm[i]
            b = _gi(GTL, u, g + 1)
            b[g] = tt[i]
            gcnt[u] = g + 1
            if tm[i] < gminmn[u]:
                gminmn[u] = tm[i]
            _live(C, 1)
    one = BF[7]
    for i in range(m):
        if KN[tt[i]] >= lo:
            one[0] = tt[i]
            _push(u, tm[i], k, one, 1, W, ST)


@njit(cache=True)
def _anchored_step(a, j, k, t1, P, S, R, ST, BF):
    """A start-anchored node's new instances at event ``j`` of its Kleene leaf (the runtime's module
    docstring): ``(x, (j,))`` for every sibling row ``x`` the node's join accepts with ``j``, and
    ``(x, T + (j,))`` for every tuple ``T`` stored for ``x`` whose last event is strictly earlier."""
    NI, AN = P[0], P[7]
    TS = S[0]
    C, IX, FX, ext, SERL, SLL, MNL = ST[0], ST[19], ST[20], ST[21], ST[12], ST[11], ST[9]
    cb = BF[1]
    W = P[2].shape[1] - 1
    node = AN[a, A_NODE]
    kside = AN[a, A_KSIDE]
    kleaf = AN[a, A_KLEAF]
    sib = AN[a, A_SIB]
    n_anch = AN.shape[0]
    one = BF[7]
    one[0] = t1
    n = _join(AN[a, A_JROW], k, k, one, 1, P, S, R, ST, BF)
    if n == 0 or C[C_STATUS] != 0:
        return
    lo = NI[kleaf, K_LMIN]
    hi = NI[kleaf, K_LMAX]
    counted = NI[node, K_STORE] == 0
    size = NI[node, K_SIZE]
    nl = NI[NI[node, K_LEFT], K_SIZE]
    ys = size - 1
    kslot = nl if kside == 1 else 0
    yoff = 0 if kside == 1 else 1
    tj = TS[j]
    acc = IX[X_ACC][:n].copy()
    SER = SERL[sib]
    SL = SLL[sib]
    MN = MNL[sib]
    for i in range(n):
        row = acc[i]
        key = SER[row] * n_anch + a
        e = ext[key] if key in ext else -1
        tt = _gi(IX, X_TMPT, 1)
        tt[0] = t1
        m = 1
        if e < 0:
            e = C[C_EN]
            ek = _gi(IX, X_EXTKEY, e + 1)
            eh = _gi(IX, X_EXTHEAD, e + 1)
            na = _gi(IX, X_EXTNALL, e + 1)
            ns = _gi(IX, X_EXTNSHORT, e + 1)
            ea = _gi(IX, X_EXTA, e + 1)
            em = _gf(FX, Y_EXTMN, e + 1)
            ek[e] = key
            eh[e] = -1
            na[e] = 0
            ns[e] = 0
            ea[e] = a
            em[e] = min(MN[row], k)
            C[C_EN] = e + 1
            ext[key] = e
        else:
            q = IX[X_EXTHEAD][e]
            while q >= 0:
                C[C_WORK] += 1
                t = IX[X_ETLT][q]
                if TS[IX[X_KLAST][t]] < tj:
                    nt = _knew(IX, C, t, j)
                    tt = _gi(IX, X_TMPT, m + 1)
                    tt[m] = nt
                    m += 1
                q = IX[X_ETLN][q]
        KN = IX[X_KLEN]
        for z in range(m):
            t = tt[z]
            if hi < 0 or KN[t] < hi:
                q = C[C_ETL]
                lt = _gi(IX, X_ETLT, q + 1)
                ln = _gi(IX, X_ETLN, q + 1)
                lt[q] = t
                ln[q] = IX[X_EXTHEAD][e]
                IX[X_EXTHEAD][e] = q
                C[C_ETL] = q + 1
                IX[X_EXTNALL][e] += 1
                short = KN[t] < lo
                if short:
                    IX[X_EXTNSHORT][e] += 1
                if counted or short:
                    _live(C, 1)
        mn = FX[Y_EXTMN][e]
        for s in range(ys):
            cb[yoff + s] = SL[row * ys + s]
        for z in range(m):
            t = tt[z]
            if KN[t] >= lo:
                cb[kslot] = t
                C[C_CREATED] += 1
                _push(node, mn, k, cb, size, W, ST)
    if C[C_WORK] > C[C_CAPW]:
        C[C_STATUS] = STATUS_WORK


# ---- compaction ----------------------------------------------------------------------------------------
@njit(cache=True)
def _compact(j, tj, P, ST):
    """Drop the stored instances, Kleene subsets and anchored tuples whose window has passed; take
    the partial matches among them off the live count."""
    NI, NF, AN, HIX = P[0], P[1], P[7], P[20]
    C, cnt, gcnt, minmn, gminmn = ST[0], ST[1], ST[2], ST[5], ST[6]
    MNL, MXL, SLL, SERL, GMNL, GTL, HHL, HVL, HNL, IX, FX, ext = (ST[9], ST[10], ST[11], ST[12], ST[13], ST[14],
                                                                 ST[16], ST[17], ST[18], ST[19], ST[20], ST[21])
    N = NI.shape[0]
    for u in range(N):
        thr = (tj if NI[u, K_TIME] != 0 else np.float64(j)) - NF[u, 0]
        n = cnt[u]
        if n > 0 and minmn[u] < thr:
            size = NI[u, K_SIZE]
            MN = MNL[u]
            MX = MXL[u]
            SL = SLL[u]
            SER = SERL[u]
            w = 0
            low = np.inf
            for r in range(n):
                if MN[r] >= thr:
                    if w != r:
                        MN[w] = MN[r]
                        MX[w] = MX[r]
                        SER[w] = SER[r]
                        for s in range(size):
                            SL[w * size + s] = SL[r * size + s]
                        for q in range(NI[u, K_HIX0], NI[u, K_HIX1]):
                            HV = HVL[HIX[q]]
                            HV[w] = HV[r]
                    if MN[w] < low:
                        low = MN[w]
                    w += 1
            cnt[u] = w
            minmn[u] = low
            if NI[u, K_INTERNAL] != 0:
                C[C_LIVE] -= n - w
            for q in range(NI[u, K_HIX0], NI[u, K_HIX1]):
                h = HIX[q]
                size_t = 16
                while size_t < 2 * w + 2:
                    size_t *= 2
                _hrebuild(h, w, ST, size_t)
        g = gcnt[u]
        if g > 0 and gminmn[u] < thr:
            GM = GMNL[u]
            GT = GTL[u]
            w = 0
            low = np.inf
            for r in range(g):
                if GM[r] >= thr:
                    GM[w] = GM[r]
                    GT[w] = GT[r]
                    if GM[w] < low:
                        low = GM[w]
                    w += 1
            gcnt[u] = w
            gminmn[u] = low
            C[C_LIVE] -= g - w
    # anchored tuples
    na = AN.shape[0]
    if C[C_EN] == 0 or na == 0:
        return
    EK = IX[X_EXTKEY]
    EA = IX[X_EXTA]
    EM = FX[Y_EXTMN]
    for e in range(C[C_EN]):
        if EK[e] < 0:
            continue
        a = EA[e]
        node = AN[a, A_NODE]
        thr = (tj if NI[node, K_TIME] != 0 else np.float64(j)) - NF[node, 0]
        if EM[e] < thr:
            del ext[EK[e]]
            C[C_LIVE] -= IX[X_EXTNALL][e] if NI[node, K_STORE] == 0 else IX[X_EXTNSHORT][e]
            EK[e] = -1
            C[C_EDEAD] += 1
    if 2 * C[C_EDEAD] > C[C_EN]:
        _rebuild_ext(ST)


@njit(cache=True)
def _rebuild_ext(ST):
    """Drop the dead anchored entries and their tuple lists (renumbering the live ones)."""
    C, IX, FX, ext = ST[0], ST[19], ST[20], ST[21]
    EK, EH, NA, NS, EA, EM = IX[X_EXTKEY], IX[X_EXTHEAD], IX[X_EXTNALL], IX[X_EXTNSHORT], IX[X_EXTA], FX[Y_EXTMN]
    LT, LN = IX[X_ETLT], IX[X_ETLN]
    nlt = np.empty(max(16, C[C_ETL]), np.int64)
    nln = np.empty(max(16, C[C_ETL]), np.int64)
    w = 0
    q = 0
    for e in range(C[C_EN]):
        if EK[e] < 0:
            continue
        head = -1
        z = EH[e]
        first = -1
        prev = -1
        while z >= 0:  # copy the list in its order
            nlt[q] = LT[z]
            nln[q] = -1
            if prev >= 0:
                nln[prev] = q
            else:
                first = q
            prev = q
            q += 1
            z = LN[z]
        head = first
        EK[w] = EK[e]
        EH[w] = head
        NA[w] = NA[e]
        NS[w] = NS[e]
        EA[w] = EA[e]
        EM[w] = EM[e]
        ext[EK[w]] = w
        w += 1
    IX[X_ETLT] = nlt
    IX[X_ETLN] = nln
    C[C_ETL] = q
    C[C_EN] = w
    C[C_EDEAD] = 0


# ---- the run -----------------------------------------------------------------------------------------------
@njit(cache=True)
def run_kernel(P, S, R):
    """Run the encoded plan ``P`` over the encoded stream ``S`` with the run's settings ``R``
    (``KLO``, ``KHI``: the first-event range per node; ``OFAST``: owners counted inline; ``OOUT``:
    owners whose matches are written out; ``NMAT``: nodes whose instances are built; ``PRM``:
    ``scan_from``, the partial-match cap, the work cap, the number of patterns).

    Returns ``(status, processed, counters, counts, out_owner, out_slots, kprev, klast)``."""
    NI, NSLK, ROOTO, TLR, TLEAF, ANCL = P[0], P[2], P[13], P[18], P[19], P[14]
    OI = P[4]
    TS, TC = S[0], S[1]
    PRM = R[5]
    N = NI.shape[0]
    W = NSLK.shape[1] - 1
    n = TS.shape[0]
    C = np.zeros(N_COUNTERS, np.int64)
    C[C_CAPL] = PRM[1]
    C[C_CAPW] = PRM[2]
    C[C_J] = -1
    cnt = np.zeros(N, np.int64)
    gcnt = np.zeros(N, np.int64)
    markev = np.full(N, -1, np.int64)
    markcnt = np.zeros(N, np.int64)
    minmn = np.full(N, np.inf)
    gminmn = np.full(N, np.inf)
    H = P[8].shape[0]
    hused = np.zeros(H, np.int64)
    counts = np.zeros(PRM[3], np.int64)
    MNL = List()
    MXL = List()
    SLL = List()
    SERL = List()
    GMNL = List()
    GTL = List()
    for u in range(N):
        MNL.append(np.empty(16, np.float64))
        MXL.append(np.empty(16, np.float64))
        SLL.append(np.empty(16 * NI[u, K_SIZE], np.int64))
        SERL.append(np.empty(16, np.int64))
        GMNL.append(np.empty(16 if NI[u, K_LKL] != 0 else 0, np.float64))
        GTL.append(np.empty(16 if NI[u, K_LKL] != 0 else 0, np.int64))
    HKL = List()
    HHL = List()
    HVL = List()
    HNL = List()
    for h in range(H):
        HKL.append(np.empty(16, np.float64))
        HHL.append(np.full(16, -1, np.int64))
        HVL.append(np.empty(16, np.float64))
        HNL.append(np.empty(16, np.int64))
    IX = List()
    for i in range(N_IX):
        IX.append(np.empty(16, np.int64))
    FX = List()
    for i in range(N_FX):
        FX.append(np.empty(16, np.float64))
    ext = Dict.empty(key_type=types.int64, value_type=types.int64)
    ST = (C, cnt, gcnt, markev, markcnt, minmn, gminmn, hused, counts, MNL, MXL, SLL, SERL, GMNL, GTL,
          HKL, HHL, HVL, HNL, IX, FX, ext)
    O = OI.shape[0]
    okl = np.zeros(O * (W + 1), np.int64)  # each owner's root slots: Kleene or not
    for q in range(N):
        for r in range(NI[q, K_ROOT0], NI[q, K_ROOT1]):
            o = ROOTO[r]
            for s in range(W + 1):
                okl[o * (W + 1) + s] = NSLK[q, s]
    BF = (np.zeros(W + 2, np.int64), np.zeros(W + 2, np.int64), np.zeros(W + 2, np.int64),
          np.zeros(W + 2, np.int64), np.zeros(64, np.float64), np.zeros(W + 2, np.int64), okl,
          np.zeros(W + 2, np.int64))
    one = BF[7]
    processed = n
    for j in range(PRM[0], n):
        tj = TS[j]
        C[C_J] = j
        if j % COMPACT_EVERY == 0 and j > 0:
            _compact(j, tj, P, ST)
        c = TC[j]
        if c < 0:
            continue
        for q in range(TLR[c, 0], TLR[c, 1]):
            u = TLEAF[q]
            one[0] = j
            if not _checks(u, one, -1, P, S, IX, BF):
                continue
            k = tj if NI[u, K_TIME] != 0 else np.float64(j)
            if NI[u, K_LKL] == 0:
                _push(u, k, k, one, 1, W, ST)
                _drain(P, S, R, ST, BF)
            else:
                t1 = _knew(IX, C, -1, j)
                if NI[u, K_ENUM] != 0:
                    _kleene_step(u, j, k, t1, P, S, R, ST, BF)
                    _drain(P, S, R, ST, BF)
                for z in range(NI[u, K_ANC0], NI[u, K_ANC1]):
                    if C[C_STATUS] != 0:
                        break
                    _anchored_step(ANCL[z], j, k, t1, P, S, R, ST, BF)
                    _drain(P, S, R, ST, BF)
            if C[C_STATUS] != 0:
                break
        if C[C_STATUS] != 0:
            processed = j
            break
    return (C[C_STATUS], processed, C.copy(), counts, IX[X_OUTO][:C[C_ON]].copy(), IX[X_OUTS][:C[C_ON] * W].copy(),
            IX[X_KPREV][:C[C_KN]].copy(), IX[X_KLAST][:C[C_KN]].copy())
