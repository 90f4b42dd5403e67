"""MOTTO's rewrites (Section IV): every derivation "q_i from q_x plus a composition and filters"
preserves q_i's matches, on random streams; the paper's worked examples reproduce."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from algorithms.motto.filters import CompleteFilter, OrderFilter, WindowFilter
from algorithms.motto.query import MOp, Query, Ref, conj, disj, seq
from algorithms.motto.rewrites import (
    MST_MERGE,
    MST_SUBSTRING,
    OTT,
    WINDOW,
    common_substrings,
    derive,
    extend_window,
    from_scratch,
    interesting_subqueries,
    long_strings,
    search_interesting,
)
from cep.pattern import Window
from motto_cases import apply_derivation, brute_composites, queries, streams

W = Window.seconds(10)


def assert_preserves(d, stream):
    src = brute_composites(d.source, stream)
    assert apply_derivation(d, stream, src) == brute_composites(d.target, stream), str(d)


@st.composite
def target_and_source(draw):
    """A random target and a source that may serve it: a subsequence (or subset) of its operands,
    or one of its nested operands, under an operator of equal or weaker strength (Table I's
    direction), a window of equal or larger size, and some of the target's conditions on its types."""
    t = draw(queries()).canonical()
    nested = [o for o in t.operands if isinstance(o, Query)]
    if nested and draw(st.booleans()):
        base = draw(st.sampled_from(nested))
        ops, op0 = base.operands, base.op
    else:
        idx = sorted(draw(st.sets(st.integers(0, len(t.operands) - 1), min_size=1)))
        ops, op0 = tuple(t.operands[i] for i in idx), t.op
    op = draw(st.sampled_from([o for o in MOp if o.strength >= op0.strength]))
    w = Window(t.window.kind, t.window.size + draw(st.sampled_from([0, 0, 1, 3])))
    types = {x for o in ops for x in ((o,) if isinstance(o, str) else o.types)}
    own = [c for c in t.conditions if c.variables <= types]
    conds = tuple(c for c in own if draw(st.booleans()))  # the source checks some of them
    s = Query(op, ops, w, t.seq_order, None, conds).canonical()
    assume(len(s.types) >= 1 and s.key != t.key)
    return t, s


@settings(max_examples=250, deadline=None)
@given(target_and_source(), streams())
def test_every_derivation_preserves_matches(ts, stream):
    """MST (substring and merge with the time filter), OTT (Filter_sc, Filter_cd), nested operands
    and the mark-point window filter, on random streams, against the brute-force matcher."""
    t, s = ts
    d = derive(t, s)
    assume(d is not None)
    assert_preserves(d, stream)


@settings(max_examples=150, deadline=None)
@given(target_and_source())
def test_a_weaker_relaxation_always_serves(ts):
    """A source made of the target's operands (or a nested operand), of an equal or weaker operator
    and an equal or larger window, can always serve the target -- derive is not vacuous."""
    t, s = ts
    assert derive(t, s) is not None, f"{t} from {s}"


@settings(max_examples=60, deadline=None)
@given(queries(), queries(), streams())
def test_interesting_subqueries_serve_both_queries(qi, qj, stream):
    """DST (Section IV-B) with OTT and nesting: every interesting sub-query of two queries is a
    source of both, and computing them from it preserves their matches."""
    for s in search_interesting([qi, qj]):
        for q in (qi, qj):
            d = derive(q, s)
            if q.canonical().key == s.canonical().key:
                continue
            assert d is not None, f"{q} from {s}"
            assert_preserves(d, stream)


@settings(max_examples=60, deadline=None)
@given(queries(), streams())
def test_window_extension_serves_both_ways(q, stream):
    """Section IV-D case 2: a source with a smaller window cannot serve ("fail to share"); extended,
    it serves the larger query and answers the original through the mark-point filter."""
    big = q.with_window(Window(q.window.kind, q.window.size + 2))
    assert derive(big, q) is None
    ext = extend_window(q, big.window)
    d = derive(q, ext)
    assert d is not None and d.composition is None and isinstance(d.filters[0], WindowFilter)
    assert_preserves(d, stream)


@settings(max_examples=40, deadline=None)
@given(queries(), streams())
def test_from_scratch_is_the_query(q, stream):
    """Figure 2: the default jumbo query plan computes every query from the primitive events."""
    d = from_scratch(q)
    assert d.source is None and brute_composites(d.composition, stream) == brute_composites(q, stream)


# ---- the paper's worked examples -------------------------------------------------------------
q1 = seq("E1", "E2", "E3", window=W, name="q1")
q2 = seq("E1", "E3", window=W, name="q2")
q3 = seq("E1", "E2", "E4", window=W, name="q3")
q4 = seq("E2", "E4", "E3", window=W, name="q4")
q5 = conj("E1", "E3", window=W, name="q5")
WORKLOAD1 = [q1, q2, q3, q4, q5]
T4 = ("E1", "E2", "E3", "E4")


@settings(max_examples=40, deadline=None)
@given(streams(types=T4))
def test_figure4_mst_merge_q1_from_q2(stream):
    """Example 1 / Figure 4: q1' = CONJ({E1, E3} & E2) with the time filter E1.ts < E2.ts < E3.ts."""
    d = derive(q1, q2)
    assert d.composition.op is MOp.CONJ and d.composition.operands == (Ref(q2), "E2")
    assert d.filters == (OrderFilter((("E1",), ("E2",), ("E3",)), q1.canonical(), "time"),)
    assert d.techniques == (MST_MERGE,)
    assert_preserves(d, stream)


@settings(max_examples=40, deadline=None)
@given(streams(types=T4))
def test_figure5_dst_q3_q4_share_seq_e2_e4(stream):
    """Figure 5 / Example 2: q3 and q4 share q_x = SEQ(E2, E4):
    SEQ(E2, E4) -> SEQ(E1, {E2, E4}) and SEQ(E2, E4) -> SEQ({E2, E4}, E3)."""
    subs = interesting_subqueries(q3, q4)
    qx = seq("E2", "E4", window=W)
    assert [s.key for s in subs] == [qx.key]
    d3, d4 = derive(q3, qx), derive(q4, qx)
    assert d3.composition.body() == "SEQ(E1, {SEQ(E2, E4)})" and d3.filters == ()
    assert d4.composition.body() == "SEQ({SEQ(E2, E4)}, E3)" and d4.filters == ()
    assert d3.techniques == d4.techniques == (MST_SUBSTRING,)
    assert_preserves(d3, stream)
    assert_preserves(d4, stream)


@settings(max_examples=40, deadline=None)
@given(streams(types=T4))
def test_figure8_ott_q2_from_q5(stream):
    """Example 5 / Figure 8: q2 = Filter_sc(q5), q5 = CONJ(E1 & E3) answering q2' entirely."""
    d = derive(q2, q5)
    assert d.composition is None and d.techniques == (OTT,)
    assert d.filters == (OrderFilter((("E1",), ("E3",)), q2.canonical()),)
    assert_preserves(d, stream)
    assert derive(q5, q2) is None  # Table I has no rule from SEQ to CONJ


@settings(max_examples=40, deadline=None)
@given(streams(types=T4))
def test_figure9_ott_with_dst_q6_and_q1(stream):
    """Example 6 / Figure 9: q6 = CONJ(E1 & E2 & E4) and q1' = CONJ(E1 & E2 & E3) -> Filter_sc share
    q_x = CONJ(E1 & E2)."""
    q6 = conj("E1", "E2", "E4", window=W, name="q6")
    qx = conj("E1", "E2", window=W)
    assert [s.key for s in interesting_subqueries(q1, q6)] == [qx.key]
    d1, d6 = derive(q1, qx), derive(q6, qx)
    assert d1.composition.body() == "CONJ({CONJ(E1 & E2)} & E3)" and d1.filters == (OrderFilter((("E1",), ("E2",), ("E3",)), q1.canonical()),)
    assert d6.composition.body() == "CONJ({CONJ(E1 & E2)} & E4)" and d6.filters == ()
    assert_preserves(d1, stream)
    assert_preserves(d6, stream)


def test_example4_common_substrings_ms1_ms2_s5():
    """Example 4: S1..S5, then MS1 = E1,E3,E5, MS2 = E1,E3,E6 and S5 = E7,E8."""
    a = ("E1", "E2", "E3", "E5", "E6", "E7", "E8")
    b = ("E1", "E3", "E6", "E5", "E7", "E8")
    subs = common_substrings(a, b)
    assert sorted(subs) == sorted([("E1",), ("E3",), ("E5",), ("E6",), ("E7", "E8")])
    singles = [s[0] for s in subs if len(s) == 1]
    assert long_strings(singles, a, b) == [("E1", "E3", "E5"), ("E1", "E3", "E6")]
    qa, qb = seq(*a, window=W), seq(*b, window=W)
    got = {s.body() for s in interesting_subqueries(qa, qb)}
    assert got == {"SEQ(E1, E3, E5)", "SEQ(E1, E3, E6)", "SEQ(E7, E8)"}


def test_example3_mst_after_dst():
    """Example 3: SEQ(E1,E2,E3,E5) and SEQ(E1,E3,E4) share SEQ(E1, E3) (a long string), which MST
    merges into the first query's sub-query SEQ(E1, E2, E3)."""
    a = seq("E1", "E2", "E3", "E5", window=W)
    b = seq("E1", "E3", "E4", window=W)
    subs = interesting_subqueries(a, b)
    assert [s.body() for s in subs] == ["SEQ(E1, E3)"]
    assert derive(seq("E1", "E2", "E3", window=W), subs[0]).techniques == (MST_MERGE,)
    assert derive(b, subs[0]).techniques == (MST_SUBSTRING,)


def test_examples_7_8_nested_tables_iii_iv():
    """Examples 7 and 8: the search between q_i and q_j finds CONJ(E2 & E3) (3rd iteration) and the
    MST-applicable SEQ(E1, E_gamma'') (6th iteration; it is q_j itself)."""
    qi = seq("E1", disj("E4", "E5", window=W), conj("E2", "E3", window=W), window=W, name="qi")
    qj = seq("E1", conj("E2", "E3", window=W), window=W, name="qj")
    found = search_interesting([qi, qj])
    assert [s.body() for s in found] == ["CONJ(E2 & E3)"]
    d = derive(qi, qj)
    assert d.techniques == (MST_MERGE,)
    assert d.composition.body() == "CONJ({SEQ(E1, CONJ(E2 & E3))} & DISJ(E4 | E5))"
    dn = derive(qi, found[0])
    assert dn.composition.body() == "SEQ(E1, DISJ(E4 | E5), {CONJ(E2 & E3)})"


def test_example9_window_mark_points():
    """Example 9 / Figure 10: q_s = SEQ(E1, E2), q_b = SEQ(E1, E2, E3)."""
    qb = seq("E1", "E2", "E3", window=W)
    big = seq("E1", "E2", window=Window.seconds(20))
    small = seq("E1", "E2", window=Window.seconds(5))
    d = derive(qb, big)  # case 1: shared, the composition's window drops what spans the mark point
    assert d is not None and WINDOW in d.techniques and d.composition.window == W
    assert derive(qb, small) is None  # case 2: "fail to share"
    ext = extend_window(small, W)
    assert derive(qb, ext) is not None
    back = derive(small, ext)
    assert back.composition is None and back.filters == (WindowFilter(small.canonical()),)


def test_filter_cd_with_nested_disj_operand():
    """Filter_cd keeps composites that bind every operand, not every type: CONJ(E1, DISJ(E2|E3))
    from DISJ(E1 | E2 | E3)."""
    t = conj("E1", disj("E2", "E3", window=W), window=W)
    s = disj("E1", "E2", "E3", window=W)
    d = derive(t, s)
    assert d.composition is None and d.filters == (CompleteFilter((("E1",), ("E2", "E3")), t.canonical()),)


@settings(max_examples=40, deadline=None)
@given(streams(types=T4))
def test_table1_seq_from_disj_needs_both_filters(stream):
    """Table I, third rule: SEQ(L) = Filter_sc(Filter_cd(DISJ(L)))."""
    t = seq("E1", "E2", "E3", window=W)
    s = disj("E3", "E1", "E2", window=W)
    d = derive(t, s)
    assert d.composition is None and [f.label for f in d.filters] == ["Filter_cd", "Filter_sc"]
    assert_preserves(d, stream)
    d2 = derive(t, disj("E1", "E2", window=W))  # then DST: DISJ({E1|E2} | E3), Filter_cd, Filter_sc
    assert d2.composition.body() == "DISJ({DISJ(E1 | E2)} | E3)" and [f.label for f in d2.filters] == ["Filter_cd", "Filter_sc"]
    assert_preserves(d2, stream)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from("abcd"), max_size=12), st.lists(st.sampled_from("abcd"), max_size=12))
def test_suffix_automaton_matching_lengths_against_naive(a, b):
    """The longest substring of b ending at each position that is also a substring of a."""
    from algorithms.motto.rewrites import SuffixAutomaton

    subs = {tuple(a[i:j]) for i in range(len(a)) for j in range(i + 1, len(a) + 1)}
    naive = [max((n for n in range(1, j + 2) if tuple(b[j - n + 1 : j + 1]) in subs), default=0) for j in range(len(b))]
    assert SuffixAutomaton(a).matching_lengths(b) == naive


@settings(max_examples=200, deadline=None)
@given(st.permutations("abcdefg"), st.permutations("abcdefg"), st.integers(2, 7), st.integers(2, 7))
def test_common_substrings_of_distinct_symbols_are_the_maximal_ones(pa, pb, na, nb):
    """For operand lists of distinct symbols, the reported common substrings are exactly those that
    extend neither left nor right in both lists."""
    a, b = pa[:na], pb[:nb]
    subs = {tuple(a[i:j]) for i in range(len(a)) for j in range(i + 1, len(a) + 1)}
    common = {tuple(b[i:j]) for i in range(len(b)) for j in range(i + 1, len(b) + 1)} & subs
    maximal = {s for s in common if not any(len(t) > len(s) and any(t[k : k + len(s)] == s for k in range(len(t))) for t in common)}
    assert set(common_substrings(a, b)) == maximal


def test_a_nested_part_of_one_query_common_with_another_is_interesting():
    """SEQ(E2, E3) is an inner part of CONJ(E5 & SEQ(E2, E3)) and a substring of SEQ(E1, E2, E3, E4)."""
    x = seq("E1", "E2", "E3", "E4", window=W)
    y = conj("E5", seq("E2", "E3", window=W), window=W)
    found = [s.body() for s in search_interesting([x, y])]
    assert "SEQ(E2, E3)" in found
