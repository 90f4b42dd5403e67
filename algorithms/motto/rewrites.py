"""MOTTO's query rewriter (Section IV): how one query is computed from another.

Every sharing technique produces the same kind of statement, a :class:`Derivation`: *q_i is
computed from q_x plus a composition and filters* -- the edge ``q_x -> q_i`` of MOTTO's jumbo query
plan (Section V-B) whose weight is ``Cost(q_i | q_x)`` (Section VI).

* ``composition`` is a query whose operands are event types, nested queries computed from
  primitive events, and one :class:`~algorithms.motto.query.Ref` to the source's composite events
  (MOTTO's merge operation ``CONJ({E_1, E_3} & E_2)``, or the "modified original query"
  ``SEQ(E_1, {E_2, E_4})`` of a decomposed plan); ``None`` when the source's composite events,
  filtered, *are* the target's (OTT's ``q_2 = Filter_sc(q_5)``, a window filter).
* ``filters`` run in order on the composition's (or the source's) output
  (:mod:`algorithms.motto.filters`).

The techniques, all in :func:`derive`:

* **MST** (Section IV-A), same operator: the source's operand list is a *substring* of the
  target's -- the target keeps its operator and the substring becomes one operand
  (``SEQ(E_1, {E_2, E_4})``; SEQ's associativity with the complete-history time filter, which our
  SEQ of a composite operand applies, :mod:`algorithms.motto.query`) -- or, for SEQ, a
  *subsequence but not a substring*: the merge ``CONJ({L_i} & rest)`` followed by the time filter
  over the target's order (Example 1).  For CONJ and DISJ the operand lists are sorted, so any
  subset is a merge with the same operator.
* **DST** (Section IV-B) finds the sub-queries worth sharing (:func:`interesting_subqueries`, with
  :func:`common_substrings` over a suffix automaton and :func:`long_strings`); a query is then
  computed from its sub-query by the MST rules above (a sub-query is a source query of its
  original query).
* **OTT** (Section IV-C, Table I): a target of a stronger operator is first transformed to the
  source's operator (SEQ -> CONJ -> DISJ), the MST rules apply, and ``Filter_cd`` then ``Filter_sc``
  restore the target.
* **Nested queries** (Section IV-D, Tables II-IV): queries are divided by nesting level
  (:func:`algorithms.motto.query.divide`); sub-queries are searched among the divided parts, whose
  nested operands are symbols; a target whose nested operand is computed from the source (at any
  depth) gets that operand replaced in its composition; the nested derivation's filters move up
  to the target (they constrain only that operand's events; under a DISJ, which need not bind the
  operand, Filter_cd is scoped to composites that bind it).
* **Different windows** (Section IV-D, mark points): a source with a larger window serves a target
  with a smaller one -- the composition's window (the target's) drops the composites that span the
  mark point, and where there is no composition a :class:`~algorithms.motto.filters.WindowFilter`
  does; a source with a smaller window cannot serve (MOTTO's "fail to share") until it is extended
  (:func:`extend_window`), and the extended source then answers the original one through a window
  filter.
* **Conditions** (ours; MOTTO's queries have none): a source may check a subset of the target's
  conditions; the others are checked in the composition, or by a
  :class:`~algorithms.motto.filters.ConditionFilter` where there is none.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from typing import Iterable, Sequence

from cep.pattern import Window

from algorithms.motto.filters import CompleteFilter, ConditionFilter, Filter, OrderFilter, WindowFilter
from algorithms.motto.query import MOp, Operand, Query, Ref, divide, operand_key

# technique labels
SCRATCH, MST_SUBSTRING, MST_MERGE, OTT, WINDOW, NESTED = "scratch", "MST-substring", "MST-merge", "OTT", "window", "nested"


@dataclass(frozen=True)
class Derivation:
    """``target`` computed from ``source`` (None: from the primitive events, MOTTO's ``q_0``)."""

    target: Query
    source: Query | None
    composition: Query | None
    filters: tuple[Filter, ...]
    techniques: tuple[str, ...]

    def __str__(self) -> str:
        src = "q0" if self.source is None else (self.source.name or self.source.body())
        what = self.composition.body() if self.composition is not None else f"{{{src}}}"
        flt = "".join(f" -> {f}" for f in self.filters)
        return f"{self.target.name or self.target.body()} <- {src}: {what}{flt} [{', '.join(self.techniques)}]"


def from_scratch(target: Query) -> Derivation:
    """The edge ``q_0 -> q_i``: the query computed from the primitive events."""
    return Derivation(target, None, target.expanded(), (), (SCRATCH,))


def extend_window(source: Query, window: Window) -> Query:
    """MOTTO's extended source ``q'_s`` (Section IV-D, case 2): the source with the larger window."""
    assert window.kind is source.window.kind and window.size >= source.window.size
    return source.expanded().with_window(window)


def _groups(q: Query) -> tuple[tuple[str, ...], ...]:
    return tuple(((o,) if isinstance(o, str) else tuple(o.types)) for o in q.operands)


def _transform_filters(target_c: Query, via: MOp) -> tuple[list[Filter], list[str]]:
    """Table I: the filters turning ``target`` transformed to operator ``via`` back into ``target``."""
    filters: list[Filter] = []
    if via is MOp.DISJ and target_c.op is not MOp.DISJ:
        out = target_c if target_c.op is MOp.CONJ else target_c.with_op(MOp.CONJ)
        filters.append(CompleteFilter(_groups(target_c), out))
    if target_c.op is MOp.SEQ and via is not MOp.SEQ:
        filters.append(OrderFilter(_groups(target_c), target_c))
    return filters, ([OTT] if filters else [])


def derive(target: Query, source: Query) -> Derivation | None:
    """How ``target`` is computed from ``source``'s composite events, or None if it cannot be.

    ``source`` must not have a smaller window than ``target`` (extend it first,
    :func:`extend_window`), and every condition of ``source`` must be one of ``target``'s (the
    target's other conditions are checked in the composition, or by a
    :class:`~algorithms.motto.filters.ConditionFilter` where there is none); two queries of equal
    meaning give None (they are one node).
    """
    tc, sc = target.canonical(), source.canonical()
    if tc.key == sc.key:
        return None
    if sc.window.kind is not tc.window.kind or sc.seq_order is not tc.seq_order or sc.window.size < tc.window.size:
        return None
    if not sc.type_set <= tc.type_set:
        return None
    tconds = {str(c): c for c in tc.conditions}
    sconds = {str(c) for c in sc.conditions}
    if not sconds <= tconds.keys():
        return None
    extra = tuple(c for k, c in sorted(tconds.items()) if k not in sconds)
    shape_t, shape_s = tc.without_conditions(), sc.without_conditions()
    # both ways may apply (a CONJ source is a nested operand of a SEQ target, and OTT also reaches
    # it at the top level): the one with fewer filters is kept, the nested replacement on ties
    found = [
        x
        for x in (_derive_nested(tc, shape_t, sc, source, extra), _derive_top(tc, shape_t, shape_s, source, extra))
        if x is not None
    ]
    if not found:
        return None
    comp, filters, techs = min(found, key=lambda x: len(x[1]))
    return Derivation(target, source, comp, tuple(filters), tuple(techs))


def _derive_top(tc: Query, shape_t: Query, shape_s: Query, source: Query, extra: tuple):
    if shape_s.op.strength < shape_t.op.strength:
        return None
    via = shape_s.op
    tv = shape_t.with_op(via).canonical()  # OTT step 1: the target under the source's operator
    wider = shape_s.window.size > shape_t.window.size
    ott_filters, ott_tech = _transform_filters(tc, via)
    win = [WINDOW] if wider else []
    if tv.with_window(shape_s.window).key == shape_s.key:
        filters: list[Filter] = [WindowFilter(tc)] if wider else []
        filters += [ConditionFilter(extra, tc)] if extra else []
        filters += ott_filters
        if not filters:
            return None
        return None, filters, ott_tech + win
    tsym, ssym = tv.symbols(), shape_s.symbols()
    if via is MOp.SEQ:
        k = _find_substring(tsym, ssym)
        if k is not None:
            ops = tv.operands[:k] + (Ref(source),) + tv.operands[k + len(ssym):]
            return Query(MOp.SEQ, ops, tc.window, tc.seq_order, None, extra), ott_filters, [MST_SUBSTRING] + ott_tech + win
        if not _is_subsequence(ssym, tsym):
            return None
        rest = [o for o, s in zip(tv.operands, tsym) if s not in set(ssym)]
        comp = Query(MOp.CONJ, (Ref(source), *rest), tc.window, tc.seq_order, None, extra)
        return comp, [OrderFilter(_groups(tv), tc, "time")] + ott_filters, [MST_MERGE] + ott_tech + win
    if not set(ssym) <= set(tsym):
        return None
    rest = [o for o, s in zip(tv.operands, tsym) if s not in set(ssym)]
    comp = Query(via, (Ref(source), *rest), tc.window, tc.seq_order, None, extra)
    tech = MST_SUBSTRING if _find_substring(tsym, ssym) is not None else MST_MERGE  # of the sorted lists
    return comp, ott_filters, [tech] + ott_tech + win


def _derive_nested(tc: Query, shape_t: Query, sc: Query, source: Query, extra: tuple):
    for i, o in enumerate(shape_t.operands):
        if not isinstance(o, Query) or not sc.type_set <= o.type_set:
            continue
        # the operand with the target's conditions on its types, within the target's window
        inner = replace(o.with_window(tc.window), conditions=tuple(c for c in tc.conditions if c.variables <= o.type_set))
        if inner.canonical().key == sc.with_window(tc.window).key and sc.window.size == tc.window.size:
            comp_o, filters, techs = Ref(source), [], []
        else:
            d = derive(inner, source)
            if d is None:
                continue
            comp_o = d.composition if d.composition is not None else Ref(source)
            # the composition's window and conditions (the target's) cover the operand's
            filters = [f for f in d.filters if not isinstance(f, (WindowFilter, ConditionFilter))]
            techs = list(d.techniques)
            if tc.op is MOp.DISJ:  # a DISJ need not bind this operand: Filter_cd only where it does
                filters = [replace(f, scoped=True) if isinstance(f, CompleteFilter) else f for f in filters]
        ops = shape_t.operands[:i] + (comp_o,) + shape_t.operands[i + 1:]
        return Query(tc.op, ops, tc.window, tc.seq_order, None, extra), filters, [NESTED] + techs
    return None


def _find_substring(hay: Sequence[str], needle: Sequence[str]) -> int | None:
    m = len(needle)
    for k in range(len(hay) - m + 1):
        if tuple(hay[k:k + m]) == tuple(needle):
            return k
    return None


def _is_subsequence(needle: Sequence[str], hay: Sequence[str]) -> bool:
    it = iter(hay)
    return all(any(x == h for h in it) for x in needle)


# ---- DST: all common substrings with a suffix automaton (Section IV-B) -------------------------
class SuffixAutomaton:
    """The suffix automaton of a sequence of symbols (Blumer et al.): every substring of the
    sequence is a path from the initial state; built in linear time.  MOTTO Section IV-B builds a
    suffix tree of ``L_i`` and inserts the suffixes of ``L_j``; the automaton answers the same
    question -- the longest common substring ending at each position of ``L_j`` -- with less code.
    """

    def __init__(self, seq: Sequence[str]) -> None:
        self.next: list[dict[str, int]] = [{}]
        self.link: list[int] = [-1]
        self.length: list[int] = [0]
        last = 0
        for c in seq:
            cur = len(self.next)
            self.next.append({})
            self.length.append(self.length[last] + 1)
            self.link.append(0)
            p = last
            while p != -1 and c not in self.next[p]:
                self.next[p][c] = cur
                p = self.link[p]
            if p != -1:
                q = self.next[p][c]
                if self.length[p] + 1 == self.length[q]:
                    self.link[cur] = q
                else:
                    clone = len(self.next)
                    self.next.append(dict(self.next[q]))
                    self.length.append(self.length[p] + 1)
                    self.link.append(self.link[q])
                    while p != -1 and self.next[p].get(c) == q:
                        self.next[p][c] = clone
                        p = self.link[p]
                    self.link[q] = clone
                    self.link[cur] = clone
            last = cur

    def matching_lengths(self, other: Sequence[str]) -> list[int]:
        """For each position ``j`` of ``other``, the length of the longest substring of ``other``
        ending at ``j`` that is also a substring of the automaton's sequence."""
        out, state, length = [], 0, 0
        for c in other:
            while state and c not in self.next[state]:
                state = self.link[state]
                length = self.length[state]
            if c in self.next[state]:
                state = self.next[state][c]
                length += 1
            else:
                state, length = 0, 0
            out.append(length)
        return out


def common_substrings(a: Sequence[str], b: Sequence[str]) -> list[tuple[str, ...]]:
    """The maximal common substrings of ``a`` and ``b`` (Section IV-B), in their order in ``b``.

    A common substring is reported when it is the longest one ending at its position in ``b`` and
    cannot be extended to the right there -- for sequences of distinct symbols (MOTTO's operand
    lists) exactly the common substrings that extend neither left nor right, as Example 4 lists
    them: ``S_1 .. S_5`` for its ``q_1, q_2``.
    """
    lens = SuffixAutomaton(a).matching_lengths(b)
    out: list[tuple[str, ...]] = []
    for j, n in enumerate(lens):
        if n and (j + 1 == len(b) or lens[j + 1] != n + 1):
            s = tuple(b[j - n + 1 : j + 1])
            if s not in out:
                out.append(s)
    return out


def long_strings(singles: Iterable[str], a: Sequence[str], b: Sequence[str]) -> list[tuple[str, ...]]:
    """Length-one common substrings joined into "long strings" (Section IV-B, Example 4).

    They are combined in their order in ``a``; two that appear in reverse order in ``b`` are put
    into different long strings -- each long string is a maximal set of pairwise consistently
    ordered symbols (a maximal clique of the "same order in a and b" relation, Bron-Kerbosch),
    listed in ``a``'s order.
    """
    xs = sorted(set(singles), key=list(a).index)
    pa, pb = {s: i for i, s in enumerate(a)}, {s: i for i, s in enumerate(b)}
    agree = {x: {y for y in xs if y != x and (pa[x] < pa[y]) == (pb[x] < pb[y])} for x in xs}
    cliques: list[set[str]] = []

    def bk(r: set[str], p: set[str], x: set[str]) -> None:
        if not p and not x:
            cliques.append(r)
            return
        for v in sorted(p, key=pa.get):
            bk(r | {v}, p & agree[v], x & agree[v])
            p = p - {v}
            x = x | {v}

    bk(set(), set(xs), set())
    out = [tuple(sorted(c, key=pa.get)) for c in cliques]
    return sorted(out, key=lambda s: [pa[x] for x in s])


def interesting_subqueries(qi: Query, qj: Query) -> list[Query]:
    """The interesting sub-queries of two non-nested queries (Section IV-B, with OTT, IV-C).

    Queries of different operators are first brought to the weaker one (Table I's direction); the
    operand lists (sorted for CONJ and DISJ) are matched: every maximal common substring of length
    two or more, and every long string of two or more symbols, becomes a sub-query with the
    common operator, the larger window (which serves both, Section IV-D) and the conditions both
    queries have on its types.  Queries with windows
    of different kinds or SEQ orders share nothing.
    """
    if qi.window.kind is not qj.window.kind or qi.seq_order is not qj.seq_order:
        return []
    if not (qi.type_set & qj.type_set):
        return []
    op = qi.op if qi.op.strength >= qj.op.strength else qj.op
    window = qi.window if qi.window.size >= qj.window.size else qj.window
    a_q, b_q = qi.with_op(op), qj.with_op(op)
    if op is not MOp.SEQ:
        a_q, b_q = _sorted(a_q), _sorted(b_q)
    a, b = a_q.symbols(), b_q.symbols()
    operand_of: dict[str, Operand] = {}
    for q in (a_q, b_q):
        for o, s in zip(q.operands, q.symbols()):
            operand_of.setdefault(s, o)
    subs = common_substrings(a, b)
    strings = [s for s in subs if len(s) >= 2]
    strings += [s for s in long_strings([s[0] for s in subs if len(s) == 1], a, b) if len(s) >= 2]
    common = {str(c): c for c in qi.conditions if str(c) in {str(d) for d in qj.conditions}}
    out = []
    for s in strings:
        ops = tuple(operand_of[x] for x in s)
        types = {t for o in ops for t in ((o,) if isinstance(o, str) else o.types)}
        conds = tuple(c for k, c in sorted(common.items()) if c.variables <= types)
        q = Query(op, ops, window, qi.seq_order, None, conds)
        if all(q.key != o.key for o in out):
            out.append(q)
    return out


def _sorted(q: Query) -> Query:
    return Query(q.op, tuple(sorted(q.operands, key=operand_key)), q.window, q.seq_order, q.name)


def search_interesting(queries: Sequence[Query], *, max_subqueries: int = 2000) -> list[Query]:
    """All interesting sub-queries of a workload, searched recursively (Section IV-B: "we need to
    search recursively among them ... only stops when no more interesting sub-queries can be
    identified"), nested queries divided first (Section IV-D, Table IV: every pair of divided parts).

    Returns the sub-queries not equal to a workload query, expanded (their :class:`Ref` operands
    replaced by the queries they stand for), at most ``max_subqueries`` of them (the search stops
    there; the cap is a parameter so that it is recorded with the plan).
    """
    known = {q.key for q in queries}
    pool: list[Query] = []
    seen: set[str] = set()
    origins: dict[str, set[int]] = {}
    out: list[Query] = []
    for i, q in enumerate(queries):
        for part in divide(q):
            origins.setdefault(part.key, set()).add(i)
            if part.key not in seen:
                seen.add(part.key)
                pool.append(part)
    emitted: set[str] = set()

    def emit(q: Query) -> None:
        if q.key not in known and q.key not in emitted:
            emitted.add(q.key)
            out.append(q.expanded())

    for part in pool:  # a divided part common to two queries is an interesting sub-query (Table IV, 3rd)
        if len(origins[part.key]) > 1:
            emit(part)
    frontier = list(pool)
    done_pairs: set[tuple[str, str]] = set()
    while frontier:
        new: list[Query] = []
        for x, y in itertools.product(frontier, pool):
            pair = tuple(sorted((x.key, y.key)))
            if x.key == y.key or pair in done_pairs:
                continue
            done_pairs.add(pair)
            for s in interesting_subqueries(x, y):
                emit(s)  # also when it is a divided part of one query: it serves another too
                if s.key not in seen:
                    seen.add(s.key)
                    new.append(s)
                if len(out) >= max_subqueries:
                    return out
        pool.extend(new)
        frontier = new
    return out
