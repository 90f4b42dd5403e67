"""Worked examples of the papers: JQPG Figure 2 (leaf reordering) and Figure 1 (rare event first)."""

from __future__ import annotations

from algorithms import cost_tree, plan_pattern
from cep import Statistics, parse_pattern, to_dnf
from cep.plans import tree_leaves

FIG2 = "PATTERN SEQ(A a, B b, C c) WHERE a.x = c.x WITHIN 10 seconds"


def node_sets(tree):
    out = []

    def walk(t):
        if isinstance(t, tuple):
            walk(t[0])
            walk(t[1])
            out.append(frozenset(tree_leaves(t)))

    walk(tree)
    return out


def test_figure_2_dp_b_joins_a_with_c_first_while_zstream_cannot():
    stats = Statistics({"A": 1.0, "B": 1.0, "C": 1.0}, {"a,c": 0.001})  # equal rates, very selective a-c
    pattern = parse_pattern(FIG2)
    dp_b = plan_pattern(pattern, "DP-B", stats)
    zstream = plan_pattern(pattern, "ZSTREAM", stats)
    assert frozenset({"a", "c"}) in node_sets(dp_b.plan.plans[0].root)  # Figure 2(c): ((A, C), B)
    assert zstream.plan.plans[0].root in ((("a", "b"), "c"), ("a", ("b", "c")))  # Figures 2(a), 2(b)
    assert dp_b.cost < zstream.cost
    sp = to_dnf(pattern)[0]
    assert min(cost_tree(sp, t, stats) for t in ((("a", "b"), "c"), ("a", ("b", "c")))) == zstream.cost


def test_figure_1_rare_event_is_processed_first():
    text = "PATTERN SEQ(A a, B b, C c, D d) WHERE a.v = b.v AND b.v = c.v AND c.v = d.v WITHIN 10 seconds"
    stats = Statistics({"A": 1.0, "B": 1.0, "C": 1.0, "D": 0.1}, {"a,b": 0.5, "b,c": 0.5, "c,d": 0.5})
    for name in ("EFREQ", "GREEDY", "DP-LD"):
        assert plan_pattern(parse_pattern(text), name, stats).plan.plans[0].order[0] == "d", name
