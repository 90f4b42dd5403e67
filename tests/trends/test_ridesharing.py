"""The ridesharing generator (HAMLET Section 5.1) and the sharing workload of the bench."""

from __future__ import annotations

from cep.parser import parse_patterns
from experiments.data.readers import read_events
from experiments.data.ridesharing import TYPES, generate_ridesharing, write_csv
from experiments.workloads.hamlet import sharing_workload


def test_twenty_types_bursty_travel_and_deterministic(tmp_path):
    cols = generate_ridesharing(4000, seed=3)
    s = cols.to_events()
    assert len(TYPES) == 20 and set(e.type for e in s) <= set(TYPES) and len(set(e.type for e in s)) == 20
    share = sum(e.type == "Travel" for e in s) / len(s)
    assert 0.65 < share < 0.85
    runs, last = 0, None
    for e in s:
        runs += e.type == "Travel" and last != "Travel"
        last = e.type
    assert sum(e.type == "Travel" for e in s) / runs > 10  # in bursts, not scattered
    assert [(e.type, e.ts, e.attrs) for e in generate_ridesharing(500, seed=3).to_events()] == [(e.type, e.ts, e.attrs) for e in s[:500]]
    ts = [e.ts for e in s]
    assert ts == sorted(ts) and abs(cols.span_seconds - 4000 / (10_000 / 60)) < 1
    f = tmp_path / "r.csv"
    write_csv(cols, f)
    back = read_events(f).to_events()
    assert [(e.type, e.ts) for e in back] == [(e.type, e.ts) for e in s]


def test_sharing_workload_queries_share_travel():
    qs = parse_patterns(sharing_workload(12, window_seconds=60))
    assert len(qs) == 12 and all(q.elements[1].type == "Travel" and q.elements[1].kleene for q in qs)
    assert len({(q.elements[0].type, q.elements[2].type) for q in qs}) == 12
