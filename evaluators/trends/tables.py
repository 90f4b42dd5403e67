"""A trend workload and a stream as the arrays the compiled engines read (:mod:`evaluators.trends.kernels`).

:class:`WorkloadTables` is built once per workload: the queries' layouts (pane slots, pattern elements,
predecessor edges, the rows of their aggregate states), their templates (queries with the same partition
attributes, HAMLET Section 3.1) with the shareable Kleene types, their candidates and the layout of a shared
graphlet's coefficients, and the distinct predicates.  :func:`stream_tables` turns a stream into rows:
one row per (template, event) for the events of the template's types that carry its partition attributes,
ordered as the executor takes them -- by timestamp, then template, then partition in order of its first
event at that timestamp -- with, per row, the queries whose element it matches (``hit``), the negations it
satisfies, and its aggregated values; and the number of limbs every exact number fits in (:func:`limb_bound`).

**Values.**  A ``SUM`` entry is kept as two non-negative numbers, the sums of the positive and of the negative
contributions, so the kernels only add and multiply.  An attribute's values are integers after scaling by
``2**K`` (every float is a dyadic fraction), ``K`` the least that makes every value of that attribute integral;
sums are divided by ``2**K`` when decoded.  ``MIN``/``MAX`` entries are ranks among the attribute's distinct
values (exact comparisons of ints and floats, as Python's), decoded back to the value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import repeat
from operator import attrgetter, methodcaller
from typing import Sequence

import numpy as np

import evaluators.trends.kernels as K
from cep.trends import number
from evaluators.trends.coefficients import coefficient_layout
from evaluators.trends.common import INF, CompiledQuery, PaneClock, _filter_fn

_KIND = {"sum": K.A_SUM, "min": K.A_MIN, "max": K.A_MAX}


_TYPE = attrgetter("type")
_MISSING = object()
_TS = attrgetter("ts")


def _cond_key(conds, var: str) -> tuple:
    return tuple(sorted(str(c.rename({var: "_"})) for c in conds))


@dataclass
class Template:
    """Queries with the same partition attributes (one merged template, HAMLET Section 3.1)."""

    index: int
    queries: list[CompiledQuery]
    attrs: tuple[str, ...]
    types: set[str] = field(default_factory=set)
    #: shareable Kleene type -> its candidate queries (Definition 3.1: ``E+`` in two or more of them)
    shareable: dict[str, list[CompiledQuery]] = field(default_factory=dict)


class WorkloadTables:
    """The per-workload arrays of the kernels (see the module docstring and the tuples documented in
    :mod:`evaluators.trends.kernels`)."""

    def __init__(self, compiled: Sequence[CompiledQuery]) -> None:
        self.compiled = list(compiled)
        nq = len(self.compiled)
        groups: dict = {}
        for cq in self.compiled:
            groups.setdefault(cq.query.partition_attributes, []).append(cq)
        self.templates = [Template(j, qs, attrs) for j, (attrs, qs) in enumerate(groups.items())]
        names: dict[str, int] = {}
        for cq in self.compiled:
            for t in list(cq.types) + list(cq.negs_of_type):
                names.setdefault(t, len(names))
        self.type_code = names
        NT = max(len(names), 1)
        self.NT = NT
        # aggregated attributes
        attrs: dict[str, int] = {}
        for cq in self.compiled:
            for _, _, a in cq.agg.specs:
                if a is not None:
                    attrs.setdefault(a, len(attrs))
        self.attr_index = attrs
        self.attr_kinds = {a: set() for a in attrs}
        for cq in self.compiled:
            for kind, _, a in cq.agg.specs:
                if a is not None:
                    self.attr_kinds[a].add(kind)
        # ---- queries
        elmax = max(len(cq.types) for cq in self.compiled)
        spmax = max([len(cq.agg.specs) for cq in self.compiled] + [1])
        self.qL = np.array([cq.L for cq in self.compiled], np.int64)
        self.qsig = np.array([cq.sigma for cq in self.compiled], np.int64)
        self.qnel = np.array([len(cq.types) for cq in self.compiled], np.int64)
        self.qkle = np.zeros((nq, elmax), np.bool_)
        self.elem_of_type = np.full((nq, NT), -1, np.int64)
        self.e_in = np.full((nq, elmax + 1), -1, np.int64)
        self.e_self = np.full((nq, elmax), -1, np.int64)
        self.qnspec = np.zeros(nq, np.int64)
        self.sp_el = np.full((nq, spmax), -1, np.int64)
        self.sp_attr = np.full((nq, spmax), -1, np.int64)
        self.sp_kind = np.zeros((nq, spmax), np.int64)
        self.sp_row = np.zeros((nq, spmax), np.int64)
        rows_of: list[list[int]] = []
        emax = 1
        for q, cq in enumerate(self.compiled):
            edges = 0
            for i, (t, kl) in enumerate(zip(cq.types, cq.kleene)):
                self.qkle[q, i] = kl
                self.elem_of_type[q, names[t]] = i
                if i > 0:
                    self.e_in[q, i] = edges
                    edges += 1
                if kl:
                    self.e_self[q, i] = edges
                    edges += 1
            emax = max(emax, edges)
            kinds = [K.K_COUNT]
            self.qnspec[q] = len(cq.agg.specs)
            for j, (kind, ei, a) in enumerate(cq.agg.specs):
                self.sp_el[q, j] = ei
                self.sp_attr[q, j] = -1 if a is None else attrs[a]
                self.sp_kind[q, j] = _KIND[kind]
                self.sp_row[q, j] = len(kinds)
                kinds += [K.K_POS, K.K_NEG] if kind == "sum" else [K.K_MIN if kind == "min" else K.K_MAX]
            rows_of.append(kinds)
        self.EMAX = emax
        self.qR = np.array([len(k) for k in rows_of], np.int64)
        self.qkinds = np.zeros((nq, int(self.qR.max())), np.int8)
        for q, k in enumerate(rows_of):
            self.qkinds[q, : len(k)] = k
        #: words of one pane-slot vector of a query for the state meter (L states of 1 + its aggregates)
        self.qwords = np.array([cq.L * (1 if cq.agg.count_only else len(cq.agg.zero())) for cq in self.compiled], np.int64)
        self.qlocal = np.zeros(nq, np.int64)
        # ---- templates
        tpl_qptr = [0]
        tpl_q: list[int] = []
        bt_ptr = [0]
        bt_q: list[int] = []
        self.si_of = np.full((len(self.templates), NT), -1, np.int64)
        si_cands: list[list[int]] = []
        self.si_type: list[str] = []
        self.si_template: list[int] = []
        for tpl in self.templates:
            for j, cq in enumerate(tpl.queries):
                self.qlocal[cq.index] = j
                tpl_q.append(cq.index)
                tpl.types.update(cq.types)
                tpl.types.update(cq.negs_of_type)
            tpl_qptr.append(len(tpl_q))
            for t in range(NT):
                name = self.type_name(t)
                for cq in tpl.queries:
                    if name in cq.types or name in cq.negs_of_type:
                        bt_q.append(cq.index)
                bt_ptr.append(len(bt_q))
            kle: dict[str, list] = {}
            for cq in tpl.queries:
                for t, kl in zip(cq.types, cq.kleene):
                    if kl:
                        kle.setdefault(t, []).append(cq)
            tpl.shareable = {t: qs for t, qs in kle.items() if len(qs) >= 2}
            for t, qs in tpl.shareable.items():
                self.si_of[tpl.index, names[t]] = len(si_cands)
                si_cands.append([cq.index for cq in qs])
                self.si_type.append(t)
                self.si_template.append(tpl.index)
        self.tpl_qptr = np.array(tpl_qptr, np.int64)
        self.tpl_q = np.array(tpl_q, np.int64)
        self.bt_ptr = np.array(bt_ptr, np.int64)
        self.bt_q = np.array(bt_q, np.int64)
        self._coefficient_layouts(si_cands, spmax)
        self.Q = (self.qL, self.qsig, self.qnel, self.qkle, self.qR, self.qkinds, self.qnspec, self.sp_el, self.sp_attr,
                  self.sp_kind, self.sp_row, self.qwords, self.qlocal, self.e_in, self.e_self, self.elem_of_type)
        # ---- distinct predicates per template and type: element filters and negation filters
        self._filters()

    def type_name(self, code: int) -> str:
        if not hasattr(self, "_names"):
            self._names = {c: t for t, c in self.type_code.items()}
        return self._names.get(code, "")

    def _coefficient_layouts(self, si_cands: list[list[int]], spmax: int) -> None:
        """Per shareable type of a template, the rows of a shared graphlet's coefficient
        (:func:`~evaluators.trends.coefficients.coefficient_layout`) as padded arrays."""
        n = len(si_cands)
        layouts = [coefficient_layout([self.compiled[q] for q in cands], t) for cands, t in zip(si_cands, self.si_type)]
        self.si_keys = [keys for keys, _, _, _ in layouts]
        self.si_ptr = np.concatenate(([0], np.cumsum([len(c) for c in si_cands]))).astype(np.int64)
        self.si_cand = np.array([q for c in si_cands for q in c], np.int64)
        self.si_CR = np.array([len(kinds) for _, _, kinds, _ in layouts], np.int64)
        self.si_nkeys = np.array([len(keys) for keys in self.si_keys], np.int64)
        size = max(n, 1)
        cmax = max([len(c) for c in si_cands] + [1])
        kmax = max([len(k) for k in self.si_keys] + [1])
        self.si_ckind = np.zeros((size, max([len(k) for _, _, k, _ in layouts] + [1])), np.int8)
        self.si_key_kind = np.zeros((size, kmax), np.int64)
        self.si_key_attr = np.full((size, kmax), -1, np.int64)
        self.si_key_row = np.zeros((size, kmax), np.int64)
        self.si_reads = np.full((size, cmax, spmax), -1, np.int64)
        for s, (keys, rows, kinds, reads) in enumerate(layouts):
            self.si_ckind[s, : len(kinds)] = kinds
            for kx, ((kind, a), row) in enumerate(zip(keys, rows)):
                self.si_key_kind[s, kx] = _KIND[kind]
                self.si_key_attr[s, kx] = -1 if a is None else self.attr_index[a]
                self.si_key_row[s, kx] = row
            for c, r in enumerate(reads):
                self.si_reads[s, c, : len(r)] = r

    def _filters(self) -> None:
        """Per template and type, the distinct predicates of its elements and negations (compiled once):
        ``elem_filters[(tpl, type)]`` lists ``(f or None, [(query, element)])`` and ``neg_filters[(tpl,
        type)]`` lists ``(f or None, [(query, after)])``; None is a predicate every routed event passes
        (no comparison and no numeric requirement: a routed event has the partition attributes)."""
        self.elem_filters: dict[tuple, list] = {}
        self.neg_filters: dict[tuple, list] = {}
        for tpl in self.templates:
            el: dict[tuple, dict] = {}
            ng: dict[tuple, dict] = {}
            for cq in tpl.queries:
                for i, e in enumerate(cq.query.elements):
                    numeric = tuple(sorted(set(cq.agg.required.get(i, []))))
                    key = (_cond_key(e.conditions, e.var), numeric)
                    slot = el.setdefault((e.type,), {}).setdefault(key, [None if not e.conditions and not numeric else cq.filters[i], []])
                    slot[1].append((cq.index, i))
                for n in cq.query.negations:
                    key = (_cond_key(n.conditions, n.var),)
                    f = _filter_fn(n.conditions, tpl.attrs) if n.conditions else None
                    slot = ng.setdefault((n.type,), {}).setdefault(key, [f, []])
                    slot[1].append((cq.index, n.after))
            for (t,), d in el.items():
                self.elem_filters[(tpl.index, t)] = list(d.values())
            for (t,), d in ng.items():
                self.neg_filters[(tpl.index, t)] = list(d.values())


@dataclass
class StreamTables:
    """A stream's rows for one workload (see the module docstring)."""

    n_events: int
    groups: int  # timestamp groups of the whole stream
    event_group: np.ndarray
    r_ev: np.ndarray
    r_ts: np.ndarray
    r_pane: np.ndarray
    r_type: np.ndarray
    r_tpl: np.ndarray
    r_part: np.ndarray
    hit: np.ndarray
    neg_ptr: np.ndarray
    neg_q: np.ndarray
    neg_after: np.ndarray
    seg_lo: np.ndarray
    seg_hi: np.ndarray
    seg_part: np.ndarray
    seg_group: np.ndarray
    part_tpl: np.ndarray
    part_key: list
    part_rows: np.ndarray
    # values: per row and aggregated attribute, the encoded value
    r_vidx: np.ndarray  # index into the value lists (-1: none)
    r_vsign: np.ndarray
    r_vrank: np.ndarray
    v_mant: np.ndarray
    v_shift: np.ndarray
    v_big: dict  # value index -> Python int magnitude too large for int64
    scale: dict  # attribute index -> K (sums are scaled by 2**K)
    rank_values: dict  # attribute index -> list of values by rank (rank 1 first)
    value_bits: int
    bound_bits: int

    def value_rows(self, width1: int) -> np.ndarray:
        """The encoded values as rows of ``width1`` uint32 (:func:`kernels.encode_values`)."""
        V = K.encode_values(self.v_mant, self.v_shift, width1)
        for j, big in self.v_big.items():
            V[j] = _row_of(big, width1)
        if len(V) == 0:
            V = np.zeros((1, width1), np.uint32)
        return V


def _row_of(x: int, width1: int) -> np.ndarray:
    """The row of a non-negative Python int (OverflowError when it does not fit)."""
    n = (x.bit_length() + 31) // 32
    if n > width1 - 1:
        raise OverflowError("trend kernel: a value outgrew its row")
    row = np.zeros(width1, np.uint32)
    row[0] = n
    if n:
        row[1:1 + n] = np.frombuffer(x.to_bytes(4 * n, "little"), dtype="<u4")
    return row


def decode_rows(rows: np.ndarray) -> list[int]:
    """Python ints of rows of limbs."""
    out = []
    for row in rows:
        n = int(row[0])
        out.append(int.from_bytes(row[1:1 + n].tobytes(), "little") if n else 0)
    return out


def event_panes(ts: np.ndarray, pane: Fraction) -> np.ndarray:
    """``floor(ts / pane)`` exactly for non-decreasing timestamps (:class:`~evaluators.trends.common.
    PaneClock`'s definition): vectorised and checked exactly when the pane is an integral number of seconds
    (``c * pane`` is then an exact float), otherwise per distinct timestamp through the PaneClock."""
    if len(ts) == 0:
        return np.zeros(0, np.int64)
    if pane.denominator == 1 and float(ts.max()) < 2.0**52 and float(ts.min()) > -2.0**52:
        p = float(pane)
        c = np.floor(ts / p)
        c = np.where(c * p > ts, c - 1, c)
        c = np.where((c + 1) * p <= ts, c + 1, c)
        return c.astype(np.int64)
    clock = PaneClock(pane)
    return np.array([clock(float(t)) for t in ts], np.int64)


def _window_max(part: np.ndarray, ts: np.ndarray, w: float) -> int:
    """The most of these events (partition, timestamp) one partition has in a half-open interval of length
    ``w`` (0 when there are none)."""
    if len(ts) == 0:
        return 0
    t0 = float(ts.min())
    span = float(ts.max()) - t0 + 2.0 * w + 2.0
    key = part.astype(np.float64) * span + (ts - t0)
    key.sort()
    ends = np.searchsorted(key, key + w * (1.0 + 1e-9) + 1e-9, side="left")
    return int((ends - np.arange(len(key))).max())


def stream_tables(wt: WorkloadTables, events: Sequence, pane: Fraction) -> StreamTables:
    """The rows of ``events`` for workload ``wt`` (module docstring)."""
    n = len(events)
    code = wt.type_code
    ev_code = np.array(list(map(code.get, map(_TYPE, events), repeat(-1, n))), np.int64).reshape(n)
    ev_ts = np.array(list(map(_TS, events)), np.float64).reshape(n)
    if n:
        event_group = np.concatenate(([0], np.cumsum(ev_ts[1:] != ev_ts[:-1]))).astype(np.int64)
        groups = int(event_group[-1]) + 1
    else:
        event_group = np.zeros(0, np.int64)
        groups = 0
    ev_pane = event_panes(ev_ts, pane)
    # ---- rows per template
    rows_ev, rows_tpl, rows_part = [], [], []
    part_tpl: list[int] = []
    part_key: list[tuple] = []
    for tpl in wt.templates:
        mask = np.zeros(wt.NT + 1, np.bool_)
        for t in tpl.types:
            mask[code[t]] = True
        idx = np.flatnonzero(mask[ev_code])
        attrs = tpl.attrs
        ids: dict[tuple, int] = {}
        if not attrs:
            keep = idx
            local = np.zeros(len(idx), np.int64)
            if len(idx):
                ids[()] = 0
        else:  # an event lacking a partition attribute is in no trend of the template
            dicts = [events[j].attrs for j in idx.tolist()]
            cols = [list(map(methodcaller("get", x, _MISSING), dicts)) for x in attrs]
            keys = list(zip(*cols))
            if any(_MISSING in c for c in cols):
                ok = np.array([_MISSING not in k for k in keys], np.bool_)
                idx = idx[ok]
                keys = [k for k, good in zip(keys, ok.tolist()) if good]
            keep = idx
            local = np.array([ids.setdefault(k, len(ids)) for k in keys], np.int64)
        base = len(part_tpl)
        part_tpl += [tpl.index] * len(ids)
        part_key += list(ids)
        rows_ev.append(keep)
        rows_tpl.append(np.full(len(keep), tpl.index, np.int64))
        rows_part.append(local + base)
    r_ev = np.concatenate(rows_ev) if rows_ev else np.zeros(0, np.int64)
    r_tpl = np.concatenate(rows_tpl) if rows_tpl else np.zeros(0, np.int64)
    r_part = np.concatenate(rows_part) if rows_part else np.zeros(0, np.int64)
    # ---- processing order: timestamp group, template, partition by its first event there, event
    T = len(wt.templates)
    key1 = event_group[r_ev] * T + r_tpl
    order = np.lexsort((r_ev, key1))
    r_ev, r_tpl, r_part, key1 = r_ev[order], r_tpl[order], r_part[order], key1[order]
    P = len(part_tpl)
    comb = key1 * max(P, 1) + r_part
    _, first_idx, inverse = np.unique(comb, return_index=True, return_inverse=True)
    first_pos = r_ev[first_idx][inverse]
    order = np.lexsort((r_ev, first_pos, key1))
    r_ev, r_tpl, r_part, key1 = r_ev[order], r_tpl[order], r_part[order], key1[order]
    nr = len(r_ev)
    r_type = ev_code[r_ev]
    r_ts = ev_ts[r_ev]
    r_pane = ev_pane[r_ev]
    if nr:
        cut = np.flatnonzero((key1[1:] != key1[:-1]) | (r_part[1:] != r_part[:-1])) + 1
        seg_lo = np.concatenate(([0], cut)).astype(np.int64)
        seg_hi = np.concatenate((cut, [nr])).astype(np.int64)
    else:
        seg_lo = seg_hi = np.zeros(0, np.int64)
    seg_part = r_part[seg_lo]
    seg_group = event_group[r_ev[seg_lo]] if nr else np.zeros(0, np.int64)
    part_rows = np.bincount(r_part, minlength=P).astype(np.int64)
    # ---- predicates: which queries each row matches, which negations it satisfies
    nq = len(wt.compiled)
    hit = np.zeros((nr, nq), np.bool_)
    negs = []
    matched = []  # per distinct element predicate: its rows and its (query, element) users
    for tpl in wt.templates:
        in_tpl = r_tpl == tpl.index
        for t in tpl.types:
            sel = np.flatnonzero(in_tpl & (r_type == code[t]))
            if not len(sel):
                continue
            for f, users in wt.elem_filters.get((tpl.index, t), ()):
                ok = sel if f is None else sel[np.fromiter((f(events[j].attrs) for j in r_ev[sel].tolist()), np.bool_, len(sel))]
                for q, _ in users:
                    hit[ok, q] = True
                matched.append((ok, users))
            for f, users in wt.neg_filters.get((tpl.index, t), ()):
                ok = sel if f is None else sel[np.fromiter((f(events[j].attrs) for j in r_ev[sel].tolist()), np.bool_, len(sel))]
                for q, after in users:
                    negs.append(np.stack([ok, np.full(len(ok), q), np.full(len(ok), after)], axis=1))
    if negs:
        nn = np.concatenate(negs)
        nn = nn[np.lexsort((nn[:, 2], nn[:, 1], nn[:, 0]))]
        neg_ptr = np.searchsorted(nn[:, 0], np.arange(nr + 1), side="left").astype(np.int64)
        neg_q, neg_after = nn[:, 1].astype(np.int64), nn[:, 2].astype(np.int64)
    else:
        neg_ptr = np.zeros(nr + 1, np.int64)
        neg_q = neg_after = np.zeros(0, np.int64)
    tabs = StreamTables(n, groups, event_group, r_ev, r_ts, r_pane, r_type, r_tpl, r_part, hit, neg_ptr, neg_q,
                        neg_after, seg_lo, seg_hi, seg_part, seg_group, np.array(part_tpl, np.int64), part_key, part_rows,
                        *_values(wt, events, r_ev, hit), bound_bits=0)
    tabs.bound_bits = limb_bound(wt, tabs, matched)
    return tabs


def _values(wt: WorkloadTables, events, r_ev: np.ndarray, hit: np.ndarray):
    """The aggregated values of the rows (module docstring): per row and attribute an index into the value
    lists, its sign and rank; the magnitudes as (mantissa, shift) pairs; the per-attribute scales and the
    values by rank."""
    nr, na = len(r_ev), len(wt.attr_index)
    r_vidx = np.full((nr, max(na, 1)), -1, np.int64)
    r_vsign = np.zeros((nr, max(na, 1)), np.int8)
    r_vrank = np.zeros((nr, max(na, 1)), np.int64)
    mant: list[np.ndarray] = []
    shifts: list[np.ndarray] = []
    big: dict[int, int] = {}
    scale: dict[int, int] = {}
    ranks: dict[int, list] = {}
    value_bits = 0
    count = 0
    for a, ai in wt.attr_index.items():
        users = [cq.index for cq in wt.compiled if any(at == a for _, _, at in cq.agg.specs)]
        rows = np.flatnonzero(hit[:, users].any(axis=1)) if users else np.zeros(0, np.int64)
        vals = [events[j].attrs.get(a) for j in r_ev[rows].tolist()]
        ok = [type(v) in (int, float) for v in vals]
        rows = rows[np.array(ok, np.bool_)] if rows.size else rows
        vals = [v for v, k in zip(vals, ok) if k]
        if not vals:
            continue
        if "min" in wt.attr_kinds[a] or "max" in wt.attr_kinds[a]:
            distinct = sorted(set(vals))
            rank = {v: j + 1 for j, v in enumerate(distinct)}
            r_vrank[rows, ai] = [rank[v] for v in vals]
            ranks[ai] = [number(v) for v in distinct]
        if "sum" not in wt.attr_kinds[a]:
            continue
        m = np.zeros(len(vals), np.int64)
        e = np.zeros(len(vals), np.int64)
        sign = np.zeros(len(vals), np.int8)
        huge: dict[int, int] = {}
        isf = np.array([type(v) is float for v in vals], np.bool_)
        if isf.any():
            fv = np.array([v for v, f in zip(vals, isf) if f], np.float64)
            if not np.isfinite(fv).all():
                raise ValueError(f"attribute {a!r}: a non-finite value cannot be summed exactly")
            fm, fe = np.frexp(np.abs(fv))
            M = (fm * 2.0**53).astype(np.int64)
            E = fe.astype(np.int64) - 53
            tz = np.zeros(len(M), np.int64)
            nz = M != 0
            low = M & -M
            tz[nz] = np.log2(low[nz].astype(np.float64)).astype(np.int64)
            M = np.where(nz, M >> tz, 0)
            E = np.where(nz, E + tz, 0)
            m[isf] = M
            e[isf] = E
            sign[isf] = np.where(fv < 0, -1, 1)
        for j in np.flatnonzero(~isf).tolist():
            v = vals[j]
            sign[j] = -1 if v < 0 else 1
            if abs(v) < 2**63:
                m[j] = abs(v)
            else:
                huge[j] = abs(v)
        K_a = int(max(0, -int(e.min())))
        scale[ai] = K_a
        sh = e + K_a
        idx = np.arange(count, count + len(vals))
        r_vidx[rows, ai] = idx
        r_vsign[rows, ai] = sign
        mant.append(m)
        shifts.append(sh)
        for j, x in huge.items():
            big[count + j] = x << K_a
        bits = [int(mm).bit_length() + int(s) for mm, s in zip(m.tolist(), sh.tolist())] + [x.bit_length() + K_a for x in huge.values()]
        value_bits = max(value_bits, max(bits))
        count += len(vals)
    v_mant = np.concatenate(mant) if mant else np.zeros(0, np.int64)
    v_shift = np.concatenate(shifts) if shifts else np.zeros(0, np.int64)
    return r_vidx, r_vsign, r_vrank, v_mant, v_shift, big, scale, ranks, value_bits


def limb_bound(wt: WorkloadTables, tabs: StreamTables, matched: list) -> int:
    """An upper bound on the bits of any number the engines keep (counts, sums' parts, coefficients).

    A count is a number of trends (or trend prefixes) of one query within one window's span of one
    partition, at most ``prod_i f_i`` over its elements, ``f_i = 2**m_i`` for a Kleene element and ``m_i + 1``
    otherwise, ``m_i`` the most events of element ``i`` in such a span; a sum's part is at most a count
    times the events of a trend times the largest scaled value.  ``matched``: per distinct element
    predicate, the rows it matches and its (query, element) users."""
    m: dict[tuple[int, int], int] = {}
    windows: dict[float, list] = {}
    for rows, users in matched:
        for q, i in users:
            windows.setdefault(float(wt.compiled[q].query.window), []).append((rows, q, i))
    for w, items in windows.items():
        done: dict[int, int] = {}
        for rows, q, i in items:
            key = id(rows)
            if key not in done:
                done[key] = _window_max(tabs.r_part[rows], tabs.r_ts[rows], w)
            m[(q, i)] = done[key]
    best = 1
    for cq in wt.compiled:
        q = cq.index
        bits = 0.0
        total = 0
        for i in range(len(cq.types)):
            mi = m.get((q, i), 0)
            total += mi
            bits += mi if cq.kleene[i] else math.log2(mi + 1)
        if cq.agg.specs:
            bits += math.log2(total + 1) + tabs.value_bits + 1
        best = max(best, int(math.ceil(bits)))
    return best + 8


def limbs_for(bits: int) -> int:
    return bits // 32 + 2


def decode_results(wt: WorkloadTables, tabs: StreamTables, keys: np.ndarray, rows: np.ndarray) -> list[dict]:
    """Per query ``{(window k, group): state}`` from a kernel's results (per (query, partition, window) key
    ``((q * P + p) << 32) + k + 2**31`` the query's state rows), the partitions of one group added up."""
    P = max(len(tabs.part_tpl), 1)
    qp = keys >> 32
    q_of, p_of = qp // P, qp % P
    k_of = (keys & 0xFFFFFFFF) - (1 << 31)
    counts = wt.qR[q_of]
    ints = decode_rows(rows)
    states: list[dict] = [dict() for _ in wt.compiled]
    o = 0
    for q, p, k, n in zip(q_of.tolist(), p_of.tolist(), k_of.tolist(), counts.tolist()):
        cq = wt.compiled[q]
        state = state_values(wt, tabs, q, ints[o:o + n], rows[o:o + n])
        o += n
        if state is None:
            continue
        key = (k, cq.group_of(tabs.part_key[p]))
        cur = states[q].get(key)
        if cur is None:
            states[q][key] = state
        else:
            cq.agg.add(cur, state)
    return states


def state_values(wt: WorkloadTables, tabs: StreamTables, q: int, ints: list[int], rows) -> list | None:
    """The Python aggregate state ``[count, entry per spec]`` of query ``q`` from its decoded rows (None:
    no trend)."""
    if ints[0] == 0:
        return None
    cq = wt.compiled[q]
    return [ints[0]] + [entry_value(tabs, kind, a, ints, rows, int(wt.sp_row[q, j]), wt.attr_index)
                        for j, (kind, _, a) in enumerate(cq.agg.specs)]


def entry_value(tabs: StreamTables, kind: str, attr: str | None, ints: list[int], rows, r: int, attr_index: dict):
    """The value of a state's or coefficient's entry of ``kind`` on ``attr`` whose first row is ``r``: a sum's
    positive part minus its negative part, unscaled; a MIN/MAX rank's value."""
    ai = -1 if attr is None else attr_index[attr]
    if kind == "sum":
        return scaled(ints[r] - ints[r + 1], tabs.scale.get(ai, 0))
    return rank_value(tabs, ai, kind, int(rows[r][1]))


def rank_value(tabs: StreamTables, ai: int, kind: str, rank: int):
    """The value of a MIN/MAX rank (the identities: no value yet)."""
    if kind == "min" and rank == 0xFFFFFFFF:
        return INF
    if kind == "max" and rank == 0:
        return -INF
    return tabs.rank_values[ai][rank - 1]


def scaled(x: int, k: int):
    """A sum of values scaled by ``2**k``, unscaled (an int when it is one)."""
    return x if k == 0 else (Fraction(x, 1 << k) if x % (1 << k) else x >> k)


