"""Filter nodes of the MPM (MOTTO Section IV-C, OTT, Table I; condition and window filters): an
owner computes a sub-tree weaker (fewer precedence pairs, fewer conditions) under a filter node, the
weak sub-tree shared with the owners that *are* the weaker pattern.  Every pattern of such a global
plan detects exactly what it detects alone (brute force, single-pattern engine); the filter node is
charged in Cost_tree^multi by its output, its shared child once; SH-MDT uses it for OTT arcs."""

from __future__ import annotations

import dataclasses
import math
import random

import pytest
from evaluator_cases import random_stream
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from multi_cases import SEEDS, SLOW_OK, check_against_brute_force, random_workload

from cep.errors import PlanError
from cep.global_plans import ClauseShape, Weakening, build_global_plan, workload_clauses
from cep.parser import parse_patterns
from cep.pattern import Op, Operator, Window
from cep.plans import TreePlan, tree_leaves
from cep.statistics import Statistics

def _random_tree(rng, vs):
    vs = list(vs)
    rng.shuffle(vs)
    while len(vs) > 1:
        i = rng.randrange(len(vs) - 1)
        vs[i:i + 2] = [(vs[i], vs[i + 1])]
    return vs[0]


def _internal(t):
    if isinstance(t, tuple):
        yield t
        yield from _internal(t[0])
        yield from _internal(t[1])


def _random_weak(rng, shape: ClauseShape, tree):
    """Random weakened sub-trees of ``tree``: up to two (possibly nested), each a stack of one or two
    weakenings, every one keeping a random part of what the sub-tree around it keeps."""
    subs = list(_internal(tree))
    chosen = sorted(rng.sample(subs, min(len(subs), rng.randint(1, 2))), key=lambda t: -len(tuple(tree_leaves(t))))
    out: dict[int, tuple] = {}
    kept: dict[int, Weakening] = {}  # innermost weakening per chosen mask
    for t in chosen:
        vs = set(tree_leaves(t))
        m = shape.mask(vs)
        around = next((kept[o] for o in sorted(kept, key=int.bit_count) if o & m == m), None)
        pairs = [(u, v) for u, v in shape.closure if u in vs and v in vs]
        conds = [str(c) for c in shape.sp.conditions if c.variables <= vs]  # one-variable ones too
        pairs = [p for p in pairs if around is None or around.keeps_pair(*p)]
        conds = [c for c in conds if around is None or around.keep_conditions is None or c in around.keep_conditions]
        stack = []
        for _ in range(rng.randint(1, 2)):
            pairs = [p for p in pairs if rng.random() < 0.5]
            conds = [c for c in conds if rng.random() < 0.5]
            stack.append(Weakening(frozenset(pairs), frozenset(conds)))
        out[m] = tuple(stack)
        kept[m] = stack[-1]
    return out


def _weaker_variant(rng, p):
    """The pattern with its top SEQ read as AND and some of its conditions dropped (OTT's source)."""
    s = p.structure
    if isinstance(s, Operator) and s.op is Op.SEQ and rng.random() < 0.7:
        s = Operator(Op.AND, s.children)
    conds = tuple(c for c in p.conditions if rng.random() < 0.5)
    try:
        return dataclasses.replace(p, structure=s, conditions=conds)
    except Exception:  # noqa: BLE001 -- a NOT left without a positive neighbour etc.
        return p


@settings(SLOW_OK, max_examples=40)
@given(SEEDS)
def test_random_weakened_subtrees_detect_what_each_pattern_detects_alone(rng):
    """Random workloads (every operator, NOT, KL, both windows, every strategy) plus weaker variants
    of their patterns, random bushy plans shared by equal keys, and random weakened sub-trees --
    nested, stacked, any part of the order and of the conditions left to the filters."""
    base = random_workload(rng, n_base=2, n_variants=1)
    pats = base + [_weaker_variant(rng, rng.choice(base)) for _ in range(2)]
    clauses = workload_clauses(pats)
    plans, weak = {}, {}
    for o, sp in clauses.items():
        t = _random_tree(rng, sp.positive)
        plans[o] = TreePlan(t)
        if isinstance(t, tuple) and rng.random() < 0.8:
            weak[o] = _random_weak(rng, ClauseShape(sp), t)
    g = build_global_plan("tree", clauses, plans, weak=weak)
    stream = random_stream(rng, min_events=5, max_events=12)
    check_against_brute_force(pats, g, stream)


SEQ_CONJ = """
    PATTERN SEQ(A a, B b, C c) WITHIN 4 seconds
    PATTERN AND(A a, B b, C c) WITHIN 5 seconds
    PATTERN SEQ(A a, B b, C c, D d) WHERE a.x < d.x WITHIN 3 seconds
"""


def _seq_conj_plan():
    pats = parse_patterns(SEQ_CONJ)
    cl = workload_clauses(pats)
    t3 = (("a", "b"), "c")
    plans = {(0, 0): TreePlan(t3), (1, 0): TreePlan(t3), (2, 0): TreePlan((t3, "d"))}
    none = Weakening(frozenset(), frozenset())
    g = build_global_plan("tree", cl, plans, weak={(0, 0): {0b111: none}, (2, 0): {0b111: none}})
    return pats, g


def test_seq_from_conj_is_a_filter_over_the_shared_conj_node():
    _, g = _seq_conj_plan()
    conj_root = g.roots[(1, 0)]
    seq_root = g.roots[(0, 0)]
    assert seq_root.is_filter and seq_root.left is conj_root  # Filter_sc over the CONJ query's own root
    assert seq_root.pairs == ((0, 1), (0, 2), (1, 2)) and not seq_root.conds
    assert set(conj_root.users) == {(0, 0), (1, 0), (2, 0)}  # computed once for all three
    # the four-type SEQ joins D onto the same filter node: one filter, shared
    top = g.roots[(2, 0)]
    assert top.left is seq_root and sum(n.is_filter for n in g.nodes.values()) == 1
    unshared = build_global_plan("tree", g.clauses, g.plans)
    assert len(g.shared_nodes()) > len(unshared.shared_nodes())


@settings(SLOW_OK, max_examples=40)
@given(SEEDS)
def test_seq_from_conj_detects_exactly(rng):
    pats, g = _seq_conj_plan()
    check_against_brute_force(pats, g, random_stream(rng, min_events=6, max_events=16, types=("A", "B", "C", "D")))


CONDS = """
    PATTERN SEQ(A a, B b, C c) WHERE a.x < c.x AND a.y <= b.y WITHIN 4 seconds
    PATTERN SEQ(A a, B b, C c) WHERE a.y <= b.y WITHIN 4 seconds
    PATTERN AND(A a, B b) WITHIN 4 seconds
"""


@settings(SLOW_OK, max_examples=40)
@given(SEEDS)
def test_condition_filter_over_a_query_without_the_condition(rng):
    """A condition filter (ours; MOTTO's queries have none) stacked on Filter_sc: the first pattern is
    the second's root filtered by ``a.x < c.x``; the second is built on the CONJ pattern's (a, b)
    node, whose order and condition it restores by a filter below its join with c."""
    pats = parse_patterns(CONDS)
    cl = workload_clauses(pats)
    t = (("a", "b"), "c")
    conj = Weakening(frozenset(), frozenset())  # (a, b) as the CONJ pattern computes it
    weak = {(0, 0): {0b111: Weakening(None, frozenset({"a.y <= b.y"})), 0b011: conj}, (1, 0): {0b011: conj}}
    g = build_global_plan("tree", cl, {(0, 0): TreePlan(t), (1, 0): TreePlan(t), (2, 0): TreePlan(("a", "b"))}, weak=weak)
    r0, r1, r2 = (g.roots[(i, 0)] for i in range(3))
    assert r0.is_filter and r0.left is r1 and len(r0.conds) == 1 and not r0.pairs
    ab = r1.left
    assert ab.is_filter and ab.left is r2 and ab.pairs == ((0, 1),) and len(ab.conds) == 1
    check_against_brute_force(pats, g, random_stream(rng, min_events=6, max_events=14, types=("A", "B", "C")))


def test_the_filter_node_costs_its_output_and_its_shared_child_once():
    from algorithms.multi.costs import (
        IncrementalCost,
        cost_multi,
        node_cost,
        workload_models,
    )

    _, g = _seq_conj_plan()
    stats = Statistics({"A": 2.0, "B": 0.5, "C": 1.5, "D": 1.0}, {"a,d": 0.3})
    models = workload_models(g, stats)
    f = g.roots[(0, 0)]
    # the filter's term: PM of its variables under the model of its user with the widest window (the
    # three-type SEQ, 4 s; the four-type SEQ filters it too, within 3 s)
    assert set(f.users) == {(0, 0), (2, 0)}
    want_f = math.exp(models[(0, 0)].log_node([0b111])[0])
    assert node_cost(g, f, models) == pytest.approx(want_f)
    total = cost_multi(g, models)
    assert total == pytest.approx(sum(node_cost(g, n, models) for n in g.nodes.values()))
    assert IncrementalCost(g, models).total == pytest.approx(total)
    # sharing saves the SEQ queries' own (a, b) and (a, b, c) nodes but pays one filter node
    alone = build_global_plan("tree", g.clauses, g.plans, shared_masks={o: frozenset() for o in g.clauses})
    saved = sum(node_cost(alone, n, models) for n in alone.nodes.values() if not n.is_leaf) - sum(
        node_cost(g, n, models) for n in g.nodes.values() if not n.is_leaf)
    assert cost_multi(alone, models) - total == pytest.approx(saved)
    assert saved > 0


def test_a_weak_node_is_costed_without_the_conditions_it_leaves_out():
    from algorithms.multi.costs import node_cost, workload_models

    pats = parse_patterns("""
        PATTERN SEQ(A a, B b) WHERE a.x < b.x WITHIN 4 seconds
        PATTERN SEQ(A a, B b) WITHIN 4 seconds""")
    cl = workload_clauses(pats)
    stats = [Statistics({"A": 2.0, "B": 3.0}, {"a,b": 0.1}), Statistics({"A": 2.0, "B": 3.0}, {})]
    models = workload_models(cl, stats)
    weak_alone = build_global_plan("tree", {(0, 0): cl[(0, 0)]}, {(0, 0): TreePlan(("a", "b"))},
                                   weak={(0, 0): {0b11: Weakening(None, frozenset())}})
    plain = build_global_plan("tree", {(1, 0): cl[(1, 0)]}, {(1, 0): TreePlan(("a", "b"))})
    f = weak_alone.roots[(0, 0)]
    assert f.is_filter
    assert node_cost(weak_alone, f.left, models) == pytest.approx(node_cost(plain, plain.roots[(1, 0)], models))
    assert node_cost(weak_alone, f, models) == pytest.approx(0.1 * node_cost(plain, plain.roots[(1, 0)], models))


def test_bad_weakenings_are_refused():
    pats = parse_patterns(SEQ_CONJ)
    cl = workload_clauses(pats)
    t3 = TreePlan((("a", "b"), "c"))
    plans = {(0, 0): t3, (1, 0): t3, (2, 0): TreePlan(((("a", "b"), "c"), "d"))}
    none = Weakening(frozenset(), frozenset())
    with pytest.raises(PlanError, match="no sub-tree"):
        build_global_plan("tree", cl, plans, weak={(0, 0): {0b101: none}})
    with pytest.raises(PlanError, match="checks more"):  # the inner sub-tree keeps an order the outer drops
        build_global_plan("tree", cl, plans, weak={(2, 0): {0b1111: none, 0b0011: Weakening(None, None)}})
    with pytest.raises(PlanError, match="MPT"):
        build_global_plan("order", cl, {o: ("a", "b", "c") if o[0] < 2 else ("a", "b", "c", "d") for o in cl},
                          weak={(0, 0): {0b111: none}})


# ---- SH-MDT: MOTTO's OTT arcs on the MPM ----------------------------------------------------------
def _type6_workload(seed: int, n_pairs: int = 3):
    from algorithms.motto.workloads import sharing_pair

    rng = random.Random(seed)
    types = [f"E{i}" for i in range(1, 10)]
    out, keys = [], set()
    while len(out) < 2 * n_pairs:
        for q in sharing_pair(6, rng, types, length=3, window=Window.seconds(4)):
            if q.key not in keys:
                keys.add(q.key)
                out.append(q.to_pattern(f"q{len(out)}")[0])
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_sh_mdt_shares_the_conj_node_of_seq_conj_pairs(seed, monkeypatch):
    """Table V type 6 (SEQ(L), CONJ(L)): SH-MDT now plans with OTT arcs and the MPM runs them -- the
    SEQ query is a filter node over the CONJ query's root, so the MPM has filter nodes and more shared
    nodes than SH-MDT without OTT; every pattern detects exactly what it detects alone."""
    from algorithms.multi import plan_workload, sh_mdt

    pats = _type6_workload(seed)
    types = sorted({e for p in pats for e in p.var_types().values()})
    rng = random.Random(seed)
    stats = Statistics({t: rng.choice([0.5, 1.0, 2.0]) for t in types}, {})
    with_ott = plan_workload(pats, "SH-MDT", stats, max_nodes=10_000)  # a budget in nodes: no clock
    assert with_ott.motto.method == "exact"
    steps = with_ott.motto.shared()
    assert any("OTT" in s.derivation.techniques for s in steps)
    filters = [n for n in with_ott.plan.nodes.values() if n.is_filter]
    assert filters and all(n.left.users and len(n.left.users) >= 2 for n in filters)
    monkeypatch.setattr(sh_mdt, "MPM_TECHNIQUES", sh_mdt.MPM_TECHNIQUES - {"OTT"})
    without = plan_workload(pats, "SH-MDT", stats, max_nodes=10_000)
    assert not [n for n in without.plan.nodes.values() if n.is_filter]
    def shared(g):
        return len([n for n in g.shared_nodes() if not n.is_leaf])

    assert shared(with_ott.plan) > shared(without.plan)
    ev = random.Random(seed + 7)
    from cep import Event, EventStream

    t = 0.0
    events = []
    for _ in range(60):
        t += ev.choice((0.0, 0.5, 1.0))
        events.append(Event(ev.choice(types), t, {}))
    check_against_brute_force(pats, with_ott.plan, EventStream(events))


@st.composite
def _derivation_pair(draw):
    from motto_cases import queries

    from algorithms.motto.query import MOp, Query
    from algorithms.motto.rewrites import derive

    def no_disj(q):  # a DISJ is several DNF clauses, no MPM sub-tree: read it as CONJ here
        ops = tuple(no_disj(o) if isinstance(o, Query) else o for o in q.operands)
        return Query(MOp.CONJ if q.op is MOp.DISJ else q.op, ops, q.window, q.seq_order, None, q.conditions)

    t = no_disj(draw(queries(types=("A", "B", "C", "D"), max_depth=2))).canonical()
    n = len(t.operands)
    idx = sorted(draw(st.sets(st.integers(0, n - 1), min_size=min(2, n))))
    ops = tuple(t.operands[i] for i in idx)
    op = draw(st.sampled_from([o for o in (MOp.SEQ, MOp.CONJ) if o.strength >= t.op.strength]))  # Table I's direction
    types = {x for o in ops for x in ((o,) if isinstance(o, str) else o.types)}
    conds = tuple(c for c in t.conditions if c.variables <= types and draw(st.booleans()))
    s = Query(op, ops, t.window, t.seq_order, None, conds).canonical()
    assume(len(s.types) >= 2 and s.key != t.key)
    d = derive(t, s)
    assume(d is not None)
    return t, s, d


@settings(SLOW_OK, max_examples=60, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(_derivation_pair(), SEEDS)
def test_motto_derivations_realized_on_the_mpm_detect_exactly(tsd, rng):
    """Every MOTTO derivation between a DISJ-free target and source (MST, OTT's Filter_sc, nested
    operands, condition filters), realized by :func:`algorithms.multi.sh_mdt.sharing_mpm` -- the
    target built on the source's sub-tree, weakened under filter nodes where the source checks less
    -- detects per query exactly what the query detects alone; where the source is weaker there is a
    filter node over a node both queries use."""
    from algorithms.motto.query import order_and_conditions
    from algorithms.multi.costs import workload_models
    from algorithms.multi.sh_mdt import Sharing, sharing_mpm

    t, s, _ = tsd
    assume(order_and_conditions(t) is not None and order_and_conditions(s) is not None)
    pats = [t.to_pattern("T")[0], s.to_pattern("S")[0]]
    clauses = workload_clauses(pats)
    stats = Statistics({x: 1.0 for x in "ABCD"}, {})
    sharing = Sharing({"T": tuple(t.types), "S": tuple(s.types)}, {"T": "S", "S": None}, {0: "T", 1: "S"},
                      stats.rates, {"T": t, "S": s})
    g = sharing_mpm(clauses, workload_models(clauses, stats), sharing)
    if order_and_conditions(s) != order_and_conditions(t, s.types):
        filt = [n for n in g.nodes.values() if n.is_filter]
        assert filt and any((1, 0) in n.left.users and (0, 0) in n.left.users for n in filt)
    check_against_brute_force(pats, g, random_stream(rng, min_events=4, max_events=12, types=("A", "B", "C", "D")))


def test_motto_prices_filters_as_the_mpm_runs_them():
    """With ``mpm_filters`` MOTTO charges what the MPM builds: one filter node per filter-only arc,
    whatever the number of its filters (none for window filters alone: the target's root *is* the
    source's node), and one filter node over a weaker source of a composition."""
    from algorithms.motto import conj, seq
    from algorithms.motto.cost import MottoCosts
    from algorithms.motto.rewrites import derive, extend_window
    from cep.conditions import Attr, Comparison

    w = Window.seconds(10)
    stats = Statistics({"A": 1.0, "B": 2.0, "C": 0.5, "D": 1.5}, {"A,C": 0.4})
    plain, mpm = MottoCosts(stats, charge_leaves=False), MottoCosts(stats, charge_leaves=False, mpm_filters=True)
    target = seq("A", "B", "C", window=w, where=(Comparison("<", Attr("A", "x"), Attr("C", "x")),))
    d = derive(target, conj("A", "B", "C", window=w))  # Filter_sc and a condition filter, no composition
    assert d.composition is None and len(d.filters) == 2
    assert plain.edge_cost(d) == pytest.approx(2 * plain.count(target))
    assert mpm.edge_cost(d) == pytest.approx(mpm.count(target))
    small = seq("A", "B", window=Window.seconds(5))
    dw = derive(small, extend_window(small, w))  # window filter only
    assert dw.composition is None and mpm.edge_cost(dw) == 0.0 < plain.edge_cost(dw)
    big = seq("A", "B", "C", "D", window=w)
    weak, same = derive(big, conj("A", "B", window=w)), derive(big, seq("A", "B", window=w))
    assert weak.composition is not None and same.composition is not None
    assert mpm.edge_cost(weak) - plain.edge_cost(weak) == pytest.approx(mpm.count(big, frozenset({"A", "B"})))
    assert mpm.edge_cost(same) == pytest.approx(plain.edge_cost(same))
