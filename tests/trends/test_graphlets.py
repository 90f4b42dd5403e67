"""Shared graphlets on the compiled path (evaluators/trends/kernels.py::_share): a burst of B events shared
by three COUNT(*) queries whose predicates split it arbitrarily, with ties and two pane slots; and the
burst masks the executor hands the sharing policy."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cep.events import Event, EventStream
from cep.parser import parse_patterns
from evaluators.trends import HamletExecutor, run_reference

# three COUNT(*) queries sharing B+, with two pane slots each (window 4 s, slide 2 s); query j matches a B
# event when its attribute m<j> is 1, so the events' attributes are the burst's masks
QUERIES = parse_patterns("\n".join(f"RETURN COUNT(*) PATTERN SEQ({t} a, B b+) WHERE b.m{j} = 1 WITHIN 4 seconds SLIDE 2 seconds"
                                   for j, t in enumerate("ACD")))


@st.composite
def graphlets(draw):
    """Start events of each query in the two panes before the burst (its snapshot x per pane slot), then
    one burst of B events (ties included) with a mask each."""
    events = []
    for t in "ACD":
        for ts in (0.0, 2.0):
            events += [Event(t, ts, {})] * draw(st.integers(0, 2))
    events.sort(key=lambda e: e.ts)
    n = draw(st.integers(1, 8))
    ts = 2.2  # the burst stays in pane 1 (2 s to 4 s): one graphlet
    masks = draw(st.lists(st.integers(0, 7), min_size=n, max_size=n))
    for m in masks:
        events.append(Event("B", ts, {f"m{j}": m >> j & 1 for j in range(3)}))
        ts += draw(st.sampled_from([0.0, 0.2]))
    return EventStream([Event(e.type, e.ts, dict(e.attrs)) for e in events]), masks


@settings(max_examples=300, deadline=None)
@given(graphlets())
def test_a_shared_graphlet_counts_what_each_query_counts_by_definition(g):
    stream, masks = g
    ex = HamletExecutor(QUERIES)
    ex.trace = []
    res = ex.run(stream)
    assert res.as_dict() == run_reference(QUERIES, stream).as_dict()
    (graphlet,) = ex.trace
    assert graphlet["queries"] == [0, 1, 2]


@settings(max_examples=200, deadline=None)
@given(graphlets())
def test_a_snapshot_is_made_exactly_where_an_event_splits_the_sharing_queries(g):
    stream, masks = g
    ex = HamletExecutor(QUERIES)
    ex.trace = []
    ex.run(stream)
    splits = sum(1 for m in masks if m and m != 7)
    b_pos = [e.pos for e in stream if e.type == "B"]
    (graphlet,) = ex.trace  # static sharing shares every burst, one no query matches too
    assert len(graphlet["snapshots"]) == 1 + splits
    assert [pos for pos, _ in graphlet["coefficients"]] == [p for p, m in zip(b_pos, masks) if m]
    # an event every query matches propagates x and the snapshots before it; a split event only its own z
    for (_, coef), m in zip(graphlet["coefficients"], [m for m in masks if m]):
        assert (len(coef) == 1 and next(iter(coef)) > 0) == (m != 7)


def test_the_policy_sees_each_events_mask_of_candidates():
    seen = []

    class Recording:
        name = "recording"

        def decide(self, burst):
            seen.append((burst.candidates, burst.masks))
            return frozenset()

    events = [Event("A", 0.0, {})] + [Event("B", 1.0 + i / 5, {"m0": m & 1, "m1": m >> 1 & 1, "m2": m >> 2 & 1}) for i, m in enumerate([7, 1, 6, 0])]
    HamletExecutor(QUERIES, Recording()).run(EventStream(events))
    assert seen == [((0, 1, 2), [7, 1, 6, 0])]
