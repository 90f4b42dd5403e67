"""A global plan encoded as arrays, the input of the compiled kernel (:mod:`evaluators.multi.kernel`).

The kernel is one function compiled once (numba, cached on disk) for every plan; what differs
between plans is data.  :func:`encode_plan` turns a :class:`cep.global_plans.GlobalPlan` into the
tables below (int64 unless said otherwise; a "range" is a pair of offsets into a flat table):

* nodes, renumbered children first (``NI[u, K_*]``, ``NF[u, 0]`` the span, ``NSLK[u, s]`` whether
  slot ``s`` is Kleene): kind (leaf, join, filter), size, children, window kind, SEQ order, whether it
  stores its instances, a leaf's type and Kleene bounds, and ranges of its check rows (``CHK[q] =
  (kind, a, b, c, d, e, f)``: the cross-side slot pairs of one type that must hold different events,
  the SEQ pairs, the conditions -- an attribute compared with an attribute or a constant inline, any
  other a program, those over a Kleene slot last; a leaf's are its filters), of its parent links
  (``UPJ``), of the owners whose root it is (``ROOTO``), of the start-anchored nodes of a Kleene leaf
  (``ANCL``) and of the indexes kept on its instances;
* joins (``JT[k, J_*]``), one per parent link and per start-anchored node: parent, side of the new
  instance, sibling, the new instance's slots that bound the sibling's newest key from below
  (``LBS``: a SEQ pair from the new instance to the sibling) and from above (``UBS``: a pair from a
  slot of the sibling that is its latest), the index of the sibling and the key program of the
  condition it answers (an equality: hash buckets; an order comparison: sorted blocks), and the
  join's own check rows: the parent's, without the SEQ pairs the search decides exactly and with
  the indexed condition last (``J_CIDX``: the candidates the index found skip it);
* owners (``OI[o, O_*]``, ``OF[o]`` span and window size): pattern index, window kind, strategy,
  SEQ order, partition attribute, negated variables (``NG``: type, the root slots that precede and
  follow it, its conditions (check rows), the slots its window check depends on);
* start-anchored nodes (``AN``), indexes (``HX``: node, key program, kind), leaves by event type, and
  the condition programs (:mod:`evaluators.multi.programs`).

What a node, a link, an anchored node or a dead link is, is the runtime's business
(:mod:`evaluators.multi.runtime`); this module only lays it out.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cep.conditions import expr_variables
from cep.global_plans import GlobalPlan, SharedNode
from cep.pattern import SeqOrder, Strategy, WindowKind

from evaluators.multi.programs import CMP_AA, CMP_AC, CMP_CODES, Programs
from evaluators.multi.stream_arrays import Vocabulary

LEAF, JOIN, FILTER = 0, 1, 2

(K_KIND, K_SIZE, K_LEFT, K_RIGHT, K_TIME, K_STRICT, K_STORE, K_LTYPE, K_LKL, K_LMIN, K_LMAX, K_ENUM,
 K_CHK0, K_CHK1, K_UP0, K_UP1, K_ROOT0, K_ROOT1, K_ANC0, K_ANC1, K_HIX0, K_HIX1, K_INTERNAL, K_ANCHORED) = range(24)
N_KCOLS = 24

# a check row CHK[q] = (kind, a, b, c, d, e, f)
CK_DIST, CK_SEQ, CK_AA, CK_AC, CK_PROG = range(5)
N_CHKCOLS = 7

(J_PARENT, J_SIDE, J_SIB, J_LB0, J_LB1, J_UB0, J_UB1, J_HIDX, J_HXPROG, J_HOP, J_CHK0, J_CHK1, J_CIDX) = range(13)
N_JCOLS = 13

O_PAT, O_TIME, O_STRAT, O_STRICT, O_PART, O_NEG0, O_NEG1, O_SIZE, O_UNBOUNDED = range(9)
N_OCOLS = 9
O_SPAN, O_WSIZE = 0, 1

G_TYPE, G_PRED0, G_PRED1, G_SUCC0, G_SUCC1, G_CHK0, G_CHK1, G_DEP0, G_DEP1 = range(9)
N_GCOLS = 9

A_NODE, A_KSIDE, A_KLEAF, A_SIB, A_JROW = range(5)

#: index kinds of ``HX[h, H_KIND]``: hash buckets of an equality, blocks sorted by value of a comparison
H_NODE, H_PROG, H_KIND = range(3)
HASH, RANGE = 0, 1

#: strategy codes of ``OI[o, O_STRAT]``
STRATEGY_CODES = {Strategy.ANY: 0, Strategy.NEXT: 1, Strategy.STRICT: 2, Strategy.PARTITION: 3}


@dataclass
class PlanArrays:
    """The encoded plan (module docstring) and what the runtime needs to read results back."""

    tables: tuple
    n_nodes: int
    width: int  # the largest node size
    node_index: dict[int, int]  # SharedNode.id -> kernel node
    owners: list  # kernel owner -> (pattern index, clause index)
    owner_vars: list[tuple[str, ...]]  # kernel owner -> its variables in its root's slot order
    owner_kleene: list[tuple[bool, ...]]
    vocab: Vocabulary
    programs: Programs
    n_indexes: int
    anchored: dict[int, tuple[int, int, int]] = field(default_factory=dict)  # node id -> (side, K id, sibling id)
    enum: dict[int, bool] = field(default_factory=dict)  # Kleene leaf id -> whether it builds subsets


def _strict(n: SharedNode) -> bool:
    """Whether a node checks strict SEQ order (every leaf of a node has its owners' SEQ order)."""
    while n.leaf is None:
        n = n.left
    return n.leaf.seq_order == SeqOrder.STRICT.value


def anchors(nodes) -> dict[int, tuple[int, SharedNode, SharedNode]]:
    """The start-anchored nodes (:mod:`evaluators.multi.runtime`): node id -> (Kleene side, Kleene
    leaf, sibling), for an internal node of strict SEQ order one child of which is a Kleene leaf that
    every slot of the other child must precede."""
    out = {}
    for n in nodes:
        if n.leaf is not None or n.right is None or n.left is n.right:  # (right None: a one-child node)
            continue
        for side, k, p in ((1, n.right, n.left), (0, n.left, n.right)):
            if k.leaf is None or not k.leaf.kleene or not _strict(k):
                continue
            ks = n.left.size if side == 1 else 0
            ps = range(n.left.size) if side == 1 else range(1, n.size)
            pairs = set(n.pairs)
            if all((u, ks) in pairs for u in ps):
                out[n.id] = (side, k, p)
                break
    return out


def dead_links(nodes) -> frozenset[tuple[int, int]]:
    """``(node id, side)`` of the children whose every slot must strictly precede every slot of the
    sibling: a new instance of such a child holds the arriving event, which no stored sibling
    instance follows in time, so the join on that side never yields anything."""
    out = set()
    for n in nodes:
        if n.leaf is not None or n.right is None or not n.pairs or not _strict(n):
            continue
        pairs = set(n.pairs)
        nl = n.left.size
        left, right = range(nl), range(nl, n.size)
        if all((u, v) in pairs for u in left for v in right):
            out.add((n.id, 0))
        if all((u, v) in pairs for u in right for v in left):
            out.add((n.id, 1))
    return frozenset(out)


def _subtree_pairs(n: SharedNode, memo: dict) -> frozenset[tuple[int, int]]:
    """Every SEQ pair a node's instances satisfy, over its slots (checked somewhere below it)."""
    got = memo.get(n.id)
    if got is not None:
        return got
    if n.leaf is not None:
        out: set = set()
    elif n.right is None:
        out = set(_subtree_pairs(n.left, memo)) | set(n.pairs)
    else:
        nl = n.left.size
        out = set(_subtree_pairs(n.left, memo)) | {(u + nl, v + nl) for u, v in _subtree_pairs(n.right, memo)} | set(n.pairs)
    memo[n.id] = frozenset(out)
    return memo[n.id]


def _latest_slots(n: SharedNode, memo: dict) -> set[int]:
    """The slots of ``n`` every other slot of which precedes it: the newest key of an instance is
    that slot's (last) event's."""
    pairs = _subtree_pairs(n, memo)
    return {u for u in range(n.size) if all((w, u) in pairs for w in range(n.size) if w != u)}


_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "="}


def _slot_names(k: int, offset: int = 0) -> dict[str, int]:
    return {f"_{i}": i - offset for i in range(offset, offset + k)}


def encode_plan(g: GlobalPlan, *, anchor_kleene: bool = True) -> PlanArrays:
    """The arrays of the kernel for global plan ``g`` (module docstring)."""
    nodes = sorted(g.nodes.values(), key=lambda n: n.id)  # children are made before their parents
    index = {n.id: i for i, n in enumerate(nodes)}
    N = len(nodes)
    width = max([n.size for n in nodes] + [1])
    clauses = g.clauses
    owners = sorted(g.roots)
    owner_index = {o: i for i, o in enumerate(owners)}
    anchored = anchors(nodes) if anchor_kleene else {}
    dead = dead_links(nodes) if anchor_kleene else frozenset()
    vocab = Vocabulary.of(clauses)
    prog = Programs({c: i for i, c in enumerate(vocab.columns)})
    memo: dict = {}
    types = {t: i for i, t in enumerate(vocab.types)}
    parts = list(vocab.partitions)

    NI = np.zeros((N, N_KCOLS), np.int64)
    NF = np.zeros((N, 1), np.float64)
    NSLK = np.zeros((N, width + 1), np.int64)
    chk: list[list[int]] = []
    cond_rows: dict[int, list[tuple[int, object]]] = {}  # node -> (check row, condition)
    upj: list[int] = []
    rooto: list[int] = []
    ancl: list[int] = []
    hix: list[int] = []
    jt: list[list[int]] = []
    lbs: list[int] = []
    ubs: list[int] = []
    hx: list[tuple[int, int, int]] = []
    hx_of: dict = {}

    def add_conditions(conds, slot_of: dict, kleene: dict) -> list[tuple[int, object]]:
        """Check rows of conditions, the fused ones first, those over a Kleene slot last."""
        rows = []
        for c in sorted(conds, key=lambda c: any(kleene.get(slot_of[v], False) for v in c.variables)):
            pid = prog.condition(c, slot_of, kleene)
            ins = prog.instructions[prog.bounds[pid][0]]
            if prog.kleene_slots[pid] or ins[0] < CMP_AA:
                rows.append(([CK_PROG, pid, 0, 0, 0, 0, 0], c))
            elif ins[0] >= CMP_AC:
                rows.append(([CK_AC, ins[1], ins[2], ins[3], 0, ins[0] - CMP_AC, 0], c))
            else:
                rows.append(([CK_AA, ins[1], ins[2], ins[3], ins[4], ins[0] - CMP_AA, 0], c))
        rows.sort(key=lambda r: r[0][0] == CK_PROG)
        out = []
        for row, c in rows:
            out.append((len(chk), c))
            chk.append(row)
        return out

    roots_of: dict[int, list[int]] = {}
    for o in owners:
        roots_of.setdefault(g.roots[o].id, []).append(owner_index[o])

    # ---- nodes ---------------------------------------------------------------------------------
    for i, n in enumerate(nodes):
        users = [clauses[o] for o in n.users]
        NF[i, 0] = max(sp.window.span_limit for sp in users)
        NI[i, K_TIME] = users[0].window.kind is WindowKind.TIME
        NI[i, K_STRICT] = _strict(n)
        NI[i, K_STORE] = any(not p.is_filter for p, _ in n.parents.values())
        NI[i, K_SIZE] = n.size
        NI[i, K_INTERNAL] = n.leaf is None
        NI[i, K_ANCHORED] = -1
        NI[i, K_LEFT] = index[n.left.id] if n.left is not None else -1
        NI[i, K_RIGHT] = index[n.right.id] if n.right is not None else -1
        for s, kl in enumerate(n.slot_kleene):
            NSLK[i, s] = kl
        kleene = {s: kl for s, kl in enumerate(n.slot_kleene)}
        NI[i, K_CHK0] = len(chk)
        if n.leaf is not None:
            NI[i, K_KIND] = LEAF
            NI[i, K_LTYPE] = types[n.leaf.type]
            NI[i, K_LKL] = n.leaf.kleene
            NI[i, K_LMIN] = n.leaf.min_size
            NI[i, K_LMAX] = -1 if n.leaf.max_size is None else n.leaf.max_size
            add_conditions(n.leaf.filters, {"_0": 0}, {0: False})
        else:
            NI[i, K_KIND] = FILTER if n.is_filter else JOIN
            if not n.is_filter:
                nl = n.left.size
                for a in range(nl):
                    for b in range(nl, n.size):
                        if n.slot_types[a] == n.slot_types[b]:
                            chk.append([CK_DIST, a, b, kleene[a], kleene[b], 0, 0])
            for u, v in n.pairs:
                chk.append([CK_SEQ, u, v, kleene[u], kleene[v], 0, 0])
            cond_rows[i] = add_conditions(n.conds, _slot_names(n.size), kleene)
        NI[i, K_CHK1] = len(chk)

    def index_for(p: SharedNode, xs: set[int], sib: SharedNode, yoff: int) -> tuple[int, int, int, int]:
        """``(index, key program of the new instance, check row it replaces, comparison)`` of the
        first condition of ``p`` between the two sides, over no Kleene slot, that an index of the
        sibling answers: an equality (hash buckets) before an order comparison (sorted blocks)."""
        kl = p.slot_kleene
        best = None
        for q, c in cond_rows[index[p.id]]:
            if c.op == "!=":
                continue
            lv = {int(v[1:]) for v in expr_variables(c.left)}
            rv = {int(v[1:]) for v in expr_variables(c.right)}
            if not lv or not rv or any(kl[s] for s in lv | rv):
                continue
            if rv <= xs and not (lv & xs):  # sibling on the left: y op x
                ye, xe, op = c.left, c.right, c.op
            elif lv <= xs and not (rv & xs):
                ye, xe, op = c.right, c.left, _FLIP[c.op]
            else:
                continue
            kind = HASH if op == "=" else RANGE
            if best is None or (kind == HASH and best[0] == RANGE):
                best = (kind, q, ye, xe, op)
            if kind == HASH:
                break
        if best is None:
            return -1, -1, -1, 0
        kind, q, ye, xe, op = best
        key = (index[sib.id], prog.value(ye, _slot_names(sib.size, yoff)), kind)
        if key not in hx_of:
            hx_of[key] = len(hx)
            hx.append(key)
        return hx_of[key], prog.value(xe, _slot_names(p.size)), q, CMP_CODES[op]

    def join_row(p: SharedNode, side: int) -> int:
        """A join descriptor: parent ``p`` with a new instance on ``side``."""
        pi = index[p.id]
        if p.is_filter:
            jt.append([pi, side, -1, len(lbs), len(lbs), len(ubs), len(ubs), -1, -1, 0, NI[pi, K_CHK0], NI[pi, K_CHK1], 0])
            return len(jt) - 1
        nl = p.left.size
        xs = set(range(nl)) if side == 0 else set(range(nl, p.size))
        sib = p.right if side == 0 else p.left
        yoff = nl if side == 0 else 0
        latest = _latest_slots(sib, memo)
        kl = p.slot_kleene
        lb0 = len(lbs)
        lbs.extend(sorted({u for u, v in p.pairs if u in xs and v not in xs}))
        lb1, ub0 = len(lbs), len(ubs)
        ubs.extend(sorted({v for u, v in p.pairs if v in xs and u not in xs and (u - yoff) in latest}))
        ub1 = len(ubs)
        # SEQ pairs the search on the sibling's newest key decides exactly: to a latest (plain) slot
        # of the sibling, and from one
        implied = {(u, v) for u, v in p.pairs if u in xs and v not in xs and (v - yoff) in latest and not kl[v]}
        implied |= {(u, v) for u, v in p.pairs if v in xs and u not in xs and (u - yoff) in latest}
        hidx, hprog, skip, op = index_for(p, xs, sib, yoff)
        c0 = len(chk)
        for q in range(NI[pi, K_CHK0], NI[pi, K_CHK1]):
            row = chk[q]
            if q != skip and not (row[0] == CK_SEQ and (row[1], row[2]) in implied):
                chk.append(list(row))
        if skip >= 0:  # the indexed condition last: the rows the index answered skip it
            chk.append(list(chk[skip]))
        jt.append([pi, side, index[sib.id], lb0, lb1, ub0, ub1, hidx, hprog, op, c0, len(chk), int(skip >= 0)])
        return len(jt) - 1

    # ---- links, roots, anchored nodes --------------------------------------------------------------
    an: list[list[int]] = []
    anc_of: dict[int, list[int]] = {}
    for nid, (side, k, p) in anchored.items():
        a = len(an)
        an.append([index[nid], side, index[k.id], index[p.id], join_row(nodes[index[nid]], side)])
        NI[index[nid], K_ANCHORED] = a
        anc_of.setdefault(k.id, []).append(a)
    enum: dict[int, bool] = {}
    for i, n in enumerate(nodes):
        NI[i, K_UP0] = len(upj)
        for (pid, side), (parent, _) in n.parents.items():
            if pid in anchored or (pid, side) in dead:
                continue
            upj.append(join_row(parent, side))
        NI[i, K_UP1] = len(upj)
        NI[i, K_ROOT0] = len(rooto)
        rooto.extend(roots_of.get(n.id, []))
        NI[i, K_ROOT1] = len(rooto)
        NI[i, K_ANC0] = len(ancl)
        ancl.extend(anc_of.get(n.id, []))
        NI[i, K_ANC1] = len(ancl)
        if n.leaf is not None and n.leaf.kleene:
            e = True
            if anc_of.get(n.id):
                e = bool(roots_of.get(n.id)) or any(pid not in anchored or anchored[pid][0] != side
                                                    for pid, side in n.parents)
            NI[i, K_ENUM] = e
            enum[n.id] = e
    for i in range(N):
        NI[i, K_HIX0] = len(hix)
        hix.extend(h for h, (node, _, _) in enumerate(hx) if node == i)
        NI[i, K_HIX1] = len(hix)

    # ---- owners and their negated variables ------------------------------------------------------
    OI = np.zeros((max(1, len(owners)), N_OCOLS), np.int64)
    OF = np.zeros((max(1, len(owners)), 2), np.float64)
    ng: list[list[int]] = []
    nsl: list[int] = []
    owner_vars, owner_kleene = [], []
    for oi, o in enumerate(owners):
        sp = clauses[o]
        vs = g.root_vars[o]
        root = g.roots[o]
        owner_vars.append(tuple(vs))
        owner_kleene.append(tuple(root.slot_kleene))
        slot = {v: s for s, v in enumerate(vs)}
        OI[oi, O_PAT] = o[0]
        OI[oi, O_TIME] = sp.window.kind is WindowKind.TIME
        OI[oi, O_STRAT] = STRATEGY_CODES[sp.strategy]
        OI[oi, O_STRICT] = sp.seq_order is SeqOrder.STRICT
        OI[oi, O_PART] = parts.index(sp.partition_attribute) if sp.strategy is Strategy.PARTITION else -1
        OI[oi, O_SIZE] = root.size
        OI[oi, O_UNBOUNDED] = bool(sp.unbounded_negations)
        OF[oi, O_SPAN] = sp.window.span_limit
        OF[oi, O_WSIZE] = sp.window.size
        OI[oi, O_NEG0] = len(ng)
        pos = set(sp.positive)
        kleene = {s: kl for s, kl in enumerate(root.slot_kleene)}
        kleene[root.size] = False
        for neg in sp.negated:
            row = [types[sp.type_of(neg)]]
            for group in (sp.preds[neg] & pos, sp.succs[neg] & pos):
                row += [len(nsl), len(nsl) + len(group)]
                nsl.extend(sorted(slot[v] for v in group))
            c0 = len(chk)
            add_conditions(sp.negation_conditions(neg), {**slot, neg: root.size}, kleene)
            row += [c0, len(chk)]
            deps = sp.negation_dependencies(neg)
            row += [len(nsl), len(nsl) + len(deps)]
            nsl.extend(sorted(slot[v] for v in deps))
            ng.append(row)
        OI[oi, O_NEG1] = len(ng)

    tlr = np.zeros((max(1, len(types)), 2), np.int64)
    tleaf: list[int] = []
    for t, c in types.items():
        tlr[c, 0] = len(tleaf)
        tleaf.extend(i for i, n in enumerate(nodes) if n.leaf is not None and n.leaf.type == t)
        tlr[c, 1] = len(tleaf)

    def arr(x, cols=None):
        if cols is None:
            return np.asarray(x or [0], np.int64)
        return np.asarray(x or [[0] * cols], np.int64).reshape(-1, cols)

    ins, pb, pkb, pks = prog.arrays()
    tables = (NI, NF, NSLK, arr(jt, N_JCOLS), OI, OF, arr(ng, N_GCOLS), arr(an, 5), arr(hx, 3)[:max(1, len(hx))],
              arr(chk, N_CHKCOLS), arr(upj), arr(rooto), arr(ancl), arr(lbs), arr(ubs), arr(nsl), tlr, arr(tleaf),
              arr(hix), ins, pb, pkb, pks)
    return PlanArrays(tables, N, width, index, owners, owner_vars, owner_kleene, vocab, prog, len(hx),
                      {nid: (s, k.id, p.id) for nid, (s, k, p) in anchored.items()}, enum)
