"""SHARON (evaluators/trends/sharon.py): its prefix counters are exact past 64 bits, its cap counts one
prefix extension per position of an event's element in every flattened sequence, and its flattened
layout has the positions the sequences have."""

from __future__ import annotations

import numpy as np
import pytest

from cep.errors import WorkLimitError
from cep.events import Event, EventStream
from cep.parser import parse_patterns
from evaluators.trends import NoSharing, run_greta, run_hamlet, run_sharon
from evaluators.trends.sharon import _flatten, _Layout


def _burst(n: int, first: float = 0.0) -> EventStream:
    """One A, then n B carrying x = 1..n, then one C, one second apart, one partition."""
    events = [Event("A", first, {})] + [Event("B", first + i, {"x": i}) for i in range(1, n + 1)]
    return EventStream(events + [Event("C", first + n + 1, {})])


def test_counts_past_2_to_the_63_stay_exact():
    """80 B between A and C: 2**80 - 1 trends, their summed x and its extremes, equal to GRETA's and
    HAMLET's Python ints (the prefix counters are object columns, never int64)."""
    s = _burst(80)
    qs = parse_patterns("RETURN COUNT(*), SUM(b.x), MIN(b.x), MAX(b.x) PATTERN SEQ(A a, B b+, C c) WITHIN 200 seconds")
    got = run_sharon(qs, s)
    row = got.rows()[0]
    # every non-empty subset of 1..80 once; each x lies in half of the subsets
    assert row[-4:] == [2**80 - 1, 2**79 * sum(range(1, 81)), 1, 80]
    assert got.as_dict() == run_greta(qs, s).as_dict() == run_hamlet(qs, s, policy=NoSharing()).as_dict()


@pytest.mark.parametrize("n", [60, 61, 80])
def test_count_only_queries_count_exactly_on_both_sides_of_int64(n):
    """COUNT(*) alone: 62 events (A, 60 B, C) are counted in int64, 63 and more in Python ints; either
    way the count is 2**n - 1 and a Python int (the rows' JSON digests depend on it)."""
    s = _burst(n)
    qs = parse_patterns("RETURN COUNT(*) PATTERN SEQ(A a, B b+, C c) WITHIN 200 seconds")
    got = run_sharon(qs, s).rows()[0][-1]
    assert got == 2**n - 1 and type(got) is int


def test_the_cap_counts_prefix_extensions():
    """A, three B, C: the sequences A B C, A B B C, A B B B C hold A 3 times, B 6 and C 3, so the run
    makes 3 + 3 * 6 + 3 = 24 prefix extensions: it finishes under a cap of 24 and stops under 23,
    having processed no event (the stream's one window was the one it stopped in)."""
    s = _burst(3)
    qs = parse_patterns("RETURN COUNT(*) PATTERN SEQ(A a, B b+, C c) WITHIN 10 seconds")
    assert run_sharon(qs, s, max_work=24).rows()[0][-1] == 7
    with pytest.raises(WorkLimitError, match="more than 23 prefix extensions") as e:
        run_sharon(qs, s, max_work=23)
    assert e.value.processed == 0


def test_layout_positions_are_the_flattened_sequences():
    """SEQ(A, B+, C+) with 2 B and 2 C: sequences ABC, ABCC, ABBC, ABBCC; each element's positions,
    which start a sequence, and the ends of each element's runs (where a negation after it cuts)."""
    lens = _flatten((False, True, True), (0, 2, 2))
    assert lens.tolist() == [[1, 1, 1], [1, 1, 2], [1, 2, 1], [1, 2, 2]]
    lay = _Layout(lens)
    seqs = "ABC" + "ABCC" + "ABBC" + "ABBCC"
    assert lay.size == len(seqs) and lay.last.tolist() == [2, 6, 10, 15]
    for i, t in enumerate("ABC"):
        assert lay.at[i].tolist() == [j for j, c in enumerate(seqs) if c == t]
        assert lay.kill[i].tolist() == [j for j, c in enumerate(seqs) if c == t and (j + 1 == len(seqs) or seqs[j + 1] != t)]
    assert np.array_equal(lay.at[0][lay.first[0]], [0, 3, 7, 11])
    assert not lay.first[1].any() and not lay.first[2].any()
