"""The synthetic generator: deterministic under a seed, Poisson rates, bursts."""

from __future__ import annotations

import subprocess
import sys

from experiments.data.synthetic import Burst, Distribution, TypeSpec, generate_stream


def fingerprint(s):
    return [(e.type, e.ts, tuple(sorted(e.attrs.items()))) for e in s.to_events()]


def test_same_seed_same_stream_and_different_seed_different_stream():
    a = generate_stream({"A": 2.0, "B": 1.0}, 50.0, seed=11)
    b = generate_stream({"A": 2.0, "B": 1.0}, 50.0, seed=11)
    c = generate_stream({"A": 2.0, "B": 1.0}, 50.0, seed=12)
    assert fingerprint(a) == fingerprint(b)
    assert fingerprint(a) != fingerprint(c)


def test_same_seed_same_stream_across_processes():
    code = (
        "from experiments.data.synthetic import generate_stream;"
        "s = generate_stream({'A': 2.0, 'B': 1.0}, 50.0, seed=11);"
        "print(repr([(e.type, e.ts, sorted(e.attrs.items())) for e in s.to_events()]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    here = generate_stream({"A": 2.0, "B": 1.0}, 50.0, seed=11)
    assert out == repr([(e.type, e.ts, sorted(e.attrs.items())) for e in here.to_events()])


def test_adding_a_type_keeps_the_other_types_arrivals():
    a = generate_stream({"A": 2.0, "B": 1.0}, 50.0, seed=5).to_events()
    b = generate_stream({"A": 2.0, "B": 1.0, "C": 3.0}, 50.0, seed=5).to_events()
    assert [e.ts for e in a if e.type == "A"] == [e.ts for e in b if e.type == "A"]


def test_rates_and_order():
    s = generate_stream({"A": 4.0, "B": 1.0}, 2000.0, seed=2)
    counts = s.type_counts()
    assert abs(counts["A"] / 2000.0 - 4.0) < 0.2
    assert abs(counts["B"] / 2000.0 - 1.0) < 0.1
    assert (s.ts[1:] >= s.ts[:-1]).all()


def test_burst_multiplies_the_rate_inside_its_interval():
    s = generate_stream({"A": 1.0, "B": 1.0}, 1000.0, seed=4, bursts=[Burst(400.0, 100.0, 10.0, ("A",))]).to_events()
    inside = sum(1 for e in s if e.type == "A" and 400 <= e.ts < 500)
    outside = sum(1 for e in s if e.type == "A" and 100 <= e.ts < 200)
    b_inside = sum(1 for e in s if e.type == "B" and 400 <= e.ts < 500)
    assert inside > 5 * outside
    assert b_inside < 200


def test_attribute_distributions_and_price_walk():
    spec = TypeSpec(5.0, {"v": Distribution("uniform", 10, 20)}, price_walk=(50.0, 0.5))
    s = generate_stream({"A": spec}, 100.0, seed=9).to_events()
    assert all(10 <= e.attrs["v"] <= 20 for e in s)
    prices = [e.attrs["price"] for e in s]
    diffs = [e.attrs["diff"] for e in s]
    assert diffs[0] == 0.0
    assert all(abs((p1 - p0) - d) < 1e-9 for p0, p1, d in zip(prices, prices[1:], diffs[1:]))
