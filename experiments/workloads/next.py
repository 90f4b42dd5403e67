"""NEXT's evaluation setup (Section 6): eight Poisson sources and the next, union and mix workloads.

"We set up 8 sources publishing Poisson-distributed events.  The mean of the distribution was chosen
exponentially increasing for each source, ranging from one event per second, for the slowest one, to
128 events per second, for the fastest one. [...] messages were kept small, only including
timestamps and their ids."  The sources are the event types ``S1, S2, S4, ..., S128`` (named by
rate); events carry no attributes.

Workloads: "queries of the next and union workloads [are composed] by uniformly generating trees of
a given size and randomly allocating sources to leaves" -- a binary tree with ``size`` operators,
uniform over the Catalan many shapes, leaves drawn from the sources uniformly with replacement.
"Queries of the mix workload were built by recursively nesting union or next subtrees of two
operators": a block is a two-operator subtree (either shape) of one kind, next or union at random,
one of whose three operand slots holds the next block, until the size is used up (an odd size ends
with a one-operator block).  Every query has a window of ``window`` seconds, wide enough not to cut
what the sources produce.
"""

from __future__ import annotations

import math
import random
from functools import lru_cache

from cep.next_algebra import Next, NextPattern, Source, Union
from cep.pattern import Window
from cep.statistics import Statistics
from experiments.data.synthetic import TypeSpec, generate_stream

PAPER_RATES: dict[str, float] = {f"S{2 ** i}": float(2 ** i) for i in range(8)}  # 1 .. 128 events/s
WORKLOADS = ("next", "union", "mix")
DEFAULT_WINDOW_S = 60.0


def paper_statistics(rates: dict[str, float] | None = None) -> Statistics:
    return Statistics(dict(rates or PAPER_RATES), source="NEXT Section 6 sources")


def source_stream(duration: float, *, seed: int = 0, rates: dict[str, float] | None = None):
    """``duration`` seconds of the Poisson sources (timestamps at microsecond resolution)."""
    specs = {t: TypeSpec(r, attributes={}, price_walk=None) for t, r in (rates or PAPER_RATES).items()}
    return generate_stream(specs, duration, seed=seed, attributes={}, resolution=1e-6)


@lru_cache(maxsize=None)
def _catalan(n: int) -> int:
    return math.comb(2 * n, n) // (n + 1)


def uniform_tree(rng: random.Random, operators: int, leaf, op):
    """A binary tree with ``operators`` internal nodes, uniform over its shapes."""
    if operators == 0:
        return leaf()
    r = rng.randrange(_catalan(operators))
    for k in range(operators):  # k internal nodes on the left
        w = _catalan(k) * _catalan(operators - 1 - k)
        if r < w:
            return op(uniform_tree(rng, k, leaf, op), uniform_tree(rng, operators - 1 - k, leaf, op))
        r -= w
    raise AssertionError("unreachable")


class _Leaves:
    def __init__(self, rng: random.Random, types: list[str]) -> None:
        self.rng, self.types, self.n = rng, types, 0

    def __call__(self) -> Source:
        self.n += 1
        return Source(self.rng.choice(self.types), f"e{self.n}")


def make_query(workload: str, size: int, rng: random.Random, *, types: list[str] | None = None,
               window: float = DEFAULT_WINDOW_S, name: str | None = None) -> NextPattern:
    """One random query of ``size`` operators of the ``next``, ``union`` or ``mix`` workload."""
    if workload not in WORKLOADS:
        raise ValueError(f"unknown NEXT workload {workload!r}; known: {', '.join(WORKLOADS)}")
    if size < 1:
        raise ValueError(f"a query needs at least one operator, got size {size}")
    leaves = _Leaves(rng, list(types or PAPER_RATES))
    if workload == "next":
        expr = uniform_tree(rng, size, leaves, Next)
    elif workload == "union":
        expr = uniform_tree(rng, size, leaves, Union)
    else:
        expr = _mix(rng, size, leaves)
    return NextPattern(expr, window=Window.seconds(window), name=name)


def _mix(rng: random.Random, size: int, leaves):
    op = rng.choice((Next, Union))
    if size <= 2:
        return uniform_tree(rng, size, leaves, op)
    slot = rng.randrange(3)
    parts = [_mix(rng, size - 2, leaves) if i == slot else leaves() for i in range(3)]
    return op(op(parts[0], parts[1]), parts[2]) if rng.random() < 0.5 else op(parts[0], op(parts[1], parts[2]))


def make_queries(workload: str, size: int, count: int, *, seed: int = 0, types: list[str] | None = None,
                 window: float = DEFAULT_WINDOW_S) -> list[NextPattern]:
    """``count`` queries, the same for the same arguments in every process."""
    rng = random.Random(f"next-{workload}-{size}-{seed}")
    return [make_query(workload, size, rng, types=types, window=window, name=f"{workload}-{size}-{i}") for i in range(count)]
