"""The multi-pattern graph MPG (MCEP Section 4.1 and Appendix A).

A vertex per clause (owner) of the workload; an edge between two owners whose maximal common
subpatterns are non-empty.  A *common subpattern* of clauses ``P_i`` and ``P_j`` is a one-to-one
correspondence between some positive variables of ``P_i`` and of ``P_j`` under which the two
sub-clauses are the same pattern -- so that a plan node over them in one clause is the very node of
the other (:mod:`cep.global_plans`):

* each pair of corresponding variables has the same type, kind (Kleene bounds) and one-variable
  conditions, the same window kind and SEQ timestamp order;
* *condition-aware*: the conditions over two corresponding variables are the same on both sides
  (Appendix A: "we project the conditions in C_i and C_j on S_ij and compare the resulting condition
  sets. If the sets are not equal, we ... reduce E_ij accordingly") -- so ``AND(A a, B b, C c) WHERE
  a.x < 10`` and ``AND(A a, B b, D d) WHERE a.x >= 10`` share only ``AND(B)``;
* *structure-aware*: SEQ order agrees -- ``u`` precedes ``v`` in one iff their images do in the
  other -- so ``SEQ(A, B, C)`` and ``SEQ(A, C, B)`` have two maximal common subpatterns, ``SEQ(A, B)``
  and ``SEQ(A, C)`` (Appendix A);
* the window of a common subpattern is the smaller of the two (Section 4.1, ``W_ij = min``).

Variables that appear in a condition over three or more variables are not shared (a simplification:
such a condition would have to be compared as a whole).  Negated variables are never part of a
common subpattern: they are checked per pattern at its root.

Correspondences that satisfy these constraints are closed under taking subsets, so the maximal
ones are the maximal cliques of a compatibility graph on pairs ``(u, u')`` of variables
(Bron--Kerbosch); ``Gamma_ij`` is every non-empty subset of one of them.

The compact representation of Appendix A: a hash table from each distinct maximal common subpattern
(by a name-independent canonical key) to the owners that contain it, and from each owner to its
maximal common subpatterns with its peers.  Connected components of the graph are optimized
independently (:func:`MultiPatternGraph.components`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from cep.dnf import SimplePattern
from cep.global_plans import ClauseShape, Owner


@dataclass(frozen=True)
class CommonSubpattern:
    """A maximal common subpattern of owners ``a`` and ``b``: ``pairs`` maps a's variables to b's."""

    a: Owner
    b: Owner
    pairs: tuple[tuple[str, str], ...]
    window: float  # min of the two windows (span limit)
    key: tuple = ()

    @property
    def size(self) -> int:
        return len(self.pairs)

    def mapping(self, owner: Owner) -> dict[str, str]:
        """From ``owner``'s variables to the other owner's."""
        return dict(self.pairs) if owner == self.a else {v: u for u, v in self.pairs}

    def other(self, owner: Owner) -> Owner:
        return self.b if owner == self.a else self.a

    def vars_of(self, owner: Owner) -> tuple[str, ...]:
        return tuple(u for u, _ in self.pairs) if owner == self.a else tuple(v for _, v in self.pairs)


def _shareable(shape: ClauseShape) -> list[str]:
    big = set()
    for m, c in shape.conds:
        if len(c.variables) > 2:
            big |= c.variables
    return [v for v in shape.positive if v not in big]


def _pair_conditions(shape: ClauseShape, u: str, v: str) -> tuple[str, ...]:
    want = shape.mask((u, v))
    return tuple(sorted(str(c.rename({u: "_0", v: "_1"})) for m, c in shape.conds if m == want))


def _maximal_common_subpatterns(sa: ClauseShape, sb: ClauseShape) -> list[tuple[tuple[str, str], ...]]:
    """The maximal correspondences between two clauses (see the module docstring), each sorted."""
    va, vb = _shareable(sa), _shareable(sb)
    verts = [(u, w) for u in va for w in vb if sa.leaf[u] == sb.leaf[w]]
    if not verts:
        return []
    n = len(verts)
    adj = [set() for _ in range(n)]
    for i in range(n):
        u, u2 = verts[i]
        for j in range(i + 1, n):
            v, v2 = verts[j]
            if u == v or u2 == v2:
                continue
            if ((u, v) in sa.closure) != ((u2, v2) in sb.closure) or ((v, u) in sa.closure) != ((v2, u2) in sb.closure):
                continue
            if _pair_conditions(sa, u, v) != _pair_conditions(sb, u2, v2):
                continue
            adj[i].add(j)
            adj[j].add(i)
    out: list[tuple] = []

    def bk(r: list[int], p: set[int], x: set[int]) -> None:
        if not p and not x:
            out.append(tuple(sorted(verts[k] for k in r)))
            return
        pivot = max(p | x, key=lambda k: len(adj[k] & p))
        for k in list(p - adj[pivot]):
            bk(r + [k], p & adj[k], x & adj[k])
            p.discard(k)
            x.add(k)

    bk([], set(range(n)), set())
    return sorted(set(out))


def _canonical_key(shape: ClauseShape, vs: tuple[str, ...], limit: int = 720) -> tuple:
    """A name-independent key of the sub-clause over ``vs``: the smallest description over the
    orders of ``vs`` that keep equal leaves together (at most ``limit`` orders are tried)."""
    groups: dict = {}
    for v in vs:
        groups.setdefault(repr(shape.leaf[v]), []).append(v)
    gl = [groups[k] for k in sorted(groups)]
    best = None
    count = 0
    for perm in itertools.product(*(itertools.permutations(g) for g in gl)):
        order = [v for g in perm for v in g]
        idx = {v: i for i, v in enumerate(order)}
        pairs = tuple(sorted((idx[u], idx[v]) for u, v in shape.closure if u in idx and v in idx))
        conds = tuple(sorted(str(c.rename({v: f"_{idx[v]}" for v in c.variables}))
                             for m, c in shape.conds if c.variables <= idx.keys()))
        desc = (tuple(repr(shape.leaf[v]) for v in order), pairs, conds)
        if best is None or desc < best:
            best = desc
        count += 1
        if count >= limit:
            break
    return best


class MultiPatternGraph:
    """The MPG of a workload's clauses, in the compact form of Appendix A.

    ``min_size``: the smallest common subpattern worth an edge -- 1 for prefix sharing (a shared
    first state), 2 for tree sharing (leaves are shared anyway)."""

    def __init__(self, clauses: dict[Owner, SimplePattern], *, min_size: int = 2, shapes: dict | None = None) -> None:
        self.clauses = dict(clauses)
        self.min_size = min_size
        self.shapes = shapes or {o: ClauseShape(sp) for o, sp in self.clauses.items()}
        owners = sorted(self.clauses)
        self.edges: dict[tuple[Owner, Owner], list[CommonSubpattern]] = {}
        self.by_key: dict[tuple, set[Owner]] = {}  # distinct maximal common subpattern -> owners containing it
        self.of_owner: dict[Owner, list[CommonSubpattern]] = {o: [] for o in owners}
        for i, a in enumerate(owners):
            for b in owners[i + 1:]:
                sa, sb = self.shapes[a], self.shapes[b]
                if sa.sp.window.kind is not sb.sp.window.kind:
                    continue
                found = []
                for pairs in _maximal_common_subpatterns(sa, sb):
                    if len(pairs) < min_size:
                        continue
                    key = _canonical_key(sa, tuple(u for u, _ in pairs))
                    w = min(sa.sp.window.span_limit, sb.sp.window.span_limit)
                    cs = CommonSubpattern(a, b, pairs, w, key)
                    found.append(cs)
                    self.by_key.setdefault(key, set()).update((a, b))
                    self.of_owner[a].append(cs)
                    self.of_owner[b].append(cs)
                if found:
                    self.edges[(a, b)] = found
        self.edge_list = sorted(self.edges)

    def components(self) -> list[list[Owner]]:
        """Connected components (each sorted), largest first, then by their owners; isolated owners
        are components of one."""
        import numpy as np
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components

        owners = sorted(self.clauses)
        index = {o: i for i, o in enumerate(owners)}
        ends = np.array([(index[a], index[b]) for a, b in self.edges], dtype=np.int64).reshape(-1, 2)
        adjacency = coo_matrix((np.ones(len(ends)), (ends[:, 0], ends[:, 1])), shape=(len(owners), len(owners)))
        _, label = connected_components(adjacency, directed=False)
        comps: dict = {}
        for o in owners:
            comps.setdefault(int(label[index[o]]), []).append(o)
        return sorted(comps.values(), key=lambda c: (-len(c), c))

    def containing(self, owner: Owner, vs: tuple[str, ...]) -> list[tuple[Owner, dict[str, str]]]:
        """The owners (other than ``owner``) with a common subpattern covering ``owner``'s variables
        ``vs``, each with the correspondence restricted to ``vs`` (``Gamma_P`` of N_vertex)."""
        out = []
        seen = set()
        want = set(vs)
        for cs in self.of_owner[owner]:
            other = cs.other(owner)
            if other in seen:
                continue
            m = cs.mapping(owner)
            if want <= m.keys():
                seen.add(other)
                out.append((other, {v: m[v] for v in vs}))
        return out
