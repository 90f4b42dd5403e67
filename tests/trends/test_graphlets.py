"""The shared-graphlet propagation (evaluators/trends/graphlets.py) against the counts it stands for,
and the burst masks the executor hands it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cep.events import Event
from cep.parser import parse_patterns
from evaluators.trends.common import compile_queries
from evaluators.trends.graphlets import propagate_aggregates, propagate_counts
from evaluators.trends.hamlet import _burst_masks

# three COUNT(*) queries sharing B+, with two pane slots each (window 4 s, slide 2 s)
QUERIES = "\n".join(f"RETURN COUNT(*) PATTERN SEQ({t} a, B b+) WITHIN 4 seconds SLIDE 2 seconds" for t in "ACD")
_, SHARED = compile_queries(parse_patterns(QUERIES))


@st.composite
def graphlets(draw):
    """A burst of B events (ties included), which of the sharing queries match each, the sharing
    set's bits, and each query's snapshot x per pane slot."""
    n = draw(st.integers(1, 8))
    ts, events = 0.0, []
    for i in range(n):
        ts += draw(st.sampled_from([0.0, 1.0]))
        events.append(Event("B", ts, {}, i))
    bits = draw(st.sampled_from([[0, 1], [0, 2], [0, 1, 2]]))
    sel = sum(1 << b for b in bits)
    masks = draw(st.lists(st.integers(0, 7), min_size=n, max_size=n))
    start = {cq.index: draw(st.lists(st.integers(0, 5), min_size=cq.L, max_size=cq.L)) for cq in SHARED}
    return events, masks, bits, sel, start


def _counts_by_definition(events, masks, sel, bit, x):
    """Equation 2 literally for one query and pane slot: an event it matches counts x plus the counts
    of the earlier-timestamp events it matches; the graphlet's total is the sum of those counts."""
    counts = []
    for e, m in zip(events, masks):
        ok = m & sel and m >> bit & 1
        counts.append(x + sum(c for e2, c in zip(events, counts) if e2.ts < e.ts) if ok else 0)
    return sum(counts)


@settings(max_examples=300, deadline=None)
@given(graphlets())
def test_shared_counts_equal_each_querys_counts_by_definition(g):
    events, masks, bits, sel, start = g
    shared = [SHARED[b] for b in bits]
    want = [[_counts_by_definition(events, masks, sel, b, start[cq.index][sl]) for sl in range(cq.L)]
            for cq, b in zip(shared, bits)]
    assert propagate_counts(shared, bits, sel, events, masks, start).totals == want
    assert propagate_aggregates(shared, bits, sel, events, masks, start).totals == want


@settings(max_examples=200, deadline=None)
@given(graphlets())
def test_both_propagations_make_a_snapshot_exactly_where_an_event_splits_the_sharing_queries(g):
    events, masks, bits, sel, start = g
    shared = [SHARED[b] for b in bits]
    splits = sum(1 for m in masks if m & sel and m & sel != sel)
    for propagate in (propagate_counts, propagate_aggregates):
        got = propagate(shared, bits, sel, events, masks, start, trace=True)
        assert len(got.values) == 1 + splits
        assert [pos for pos, _ in got.coefficients] == [e.pos for e, m in zip(events, masks) if m & sel]


def test_an_untraced_propagation_records_no_coefficients():
    events = [Event("B", float(i), {}) for i in range(3)]
    got = propagate_counts(SHARED[:2], [0, 1], 0b11, events, [0b11] * 3, {0: [1, 0], 1: [2, 0]})
    assert got.coefficients == [] and got.totals == [[7, 0], [14, 0]]  # x (1 + 2 + 4)


def test_burst_masks_give_each_event_the_bits_of_the_classes_it_satisfies():
    events = [Event("B", 0.0, {"x": x}) for x in (0, 1, 2, 3)]
    small = (lambda a: a["x"] < 2, 0b001)
    even = (lambda a: a["x"] % 2 == 0, 0b110)
    assert _burst_masks([small, even], events) == [0b111, 0b001, 0b110, 0]
    assert _burst_masks([even], events) == [0b110, 0, 0b110, 0]
