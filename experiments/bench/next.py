"""``python -m experiments bench next``: how fast NEXT's rewriting and placement are.

1. The next-rewriting DP on chains of ``--size`` operands (default 10; target < 1 s): the exact DP
   (:func:`algorithms.next.chain.exact_dp`), Fig. 5 as printed (:func:`~algorithms.next.chain.paper_dp`)
   and the whole rewriting of a ``size``-operator next query (:mod:`algorithms.next.rewrite`), on random
   chains over the eight sources of NEXT Section 6; median and maximum over ``--repeats`` chains.
2. Placing ``--queries`` 5-operator queries on ``--nodes`` nodes (default 1,000 on 40; target < 10 s):
   the greedy bottom-up placement with and without reuse and round-robin
   (:class:`algorithms.next.placement.Placer`), with every operator's costs measured first on the NEXT
   engine over ``--measure-duration`` seconds of the sources (that measurement is timed apart).

Wall-clock times on this machine; other work on the machine makes them noisier, never faster.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from algorithms.next.chain import exact_dp, paper_dp
from algorithms.next.costs import source_chars
from algorithms.next.placement import Placer
from algorithms.next.rewrite import rewrite
from cep.errors import ConfigError
from cep.next_algebra import Next, NextPattern, Source, left_deep
from cep.pattern import Window
from experiments.exps.next_measure import measure
from experiments.workloads.next import PAPER_RATES, make_queries, paper_statistics

HELP = "NEXT: the next-rewriting DP at size 10 and placing 1,000 queries on 40 nodes (prints timings)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--size", type=int, default=10, help="chain length for the DP (default 10)")
    p.add_argument("--repeats", type=int, default=20, help="random chains timed (default 20)")
    p.add_argument("--queries", type=int, default=1000, help="queries to place (default 1000)")
    p.add_argument("--nodes", type=int, default=40, help="nodes to place them on (default 40)")
    p.add_argument("--workload", default="next", choices=["next", "union", "mix"], help="workload of the placed queries")
    p.add_argument("--measure-duration", type=float, default=2.0, help="seconds of the sources the operators are measured over")
    p.add_argument("--seed", type=int, default=0)


def _timed(fn) -> tuple[float, object]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def main(args: argparse.Namespace) -> int:
    if args.size < 2 or args.repeats < 1 or args.queries < 1 or args.nodes < 1:
        raise ConfigError("--size must be >= 2 and --repeats, --queries, --nodes >= 1")
    rng = random.Random(args.seed)
    st = paper_statistics()
    types = list(PAPER_RATES)
    print(f"1. next-rewriting DP, chains of {args.size} operands over the eight sources ({args.repeats} random chains)")
    rows = {"exact DP (Pareto)": [], "Fig. 5 DP as printed": [], "whole rewrite of the query": []}
    for _ in range(args.repeats):
        ops = [Source(rng.choice(types), f"e{i}") for i in range(args.size)]
        chars = [source_chars(PAPER_RATES[o.type]) for o in ops]
        rows["exact DP (Pareto)"].append(_timed(lambda: exact_dp(chars))[0])
        rows["Fig. 5 DP as printed"].append(_timed(lambda: paper_dp(chars))[0])
        q = NextPattern(left_deep(ops, Next), window=Window.seconds(60))
        rows["whole rewrite of the query"].append(_timed(lambda: rewrite(q, st))[0])
    print(f"   {'':<28} {'median':>10} {'max':>10}")
    for name, ts in rows.items():
        print(f"   {name:<28} {statistics.median(ts) * 1e3:>8.2f} ms {max(ts) * 1e3:>8.2f} ms")
    ok = max(rows["exact DP (Pareto)"]) < 1.0
    print(f"   target: the DP at size {args.size} in under 1 s -- {'met' if ok else 'NOT met'}")

    print(f"\n2. placing {args.queries} {args.workload} queries of 5 operators on {args.nodes} nodes")
    queries = make_queries(args.workload, 5, args.queries, seed=args.seed)
    t_rw, rewritten = _timed(lambda: [rewrite(q, st).rewritten for q in queries])
    t_m, m = _timed(lambda: measure(queries + rewritten, duration=args.measure_duration, seed=args.seed))
    print(f"   rewriting the {args.queries} queries: {t_rw:.2f} s; measuring their {m.distinct_operators} distinct operators "
          f"on the engine over {m.stream_seconds:.1f} s of the sources: {t_m:.2f} s (not placement)")
    results = []
    for strategy, pool in (("round-robin", queries), ("greedy", queries), ("reuse", queries), ("rewrite+reuse", rewritten)):
        placer = Placer(args.nodes, strategy, st, measured=m.operators, send_s=m.send_s, recv_s=m.recv_s)
        t, _ = _timed(lambda: [placer.place(q) for q in pool])
        results.append(t)
        print(f"   {strategy:<14} {t:6.2f} s  ({len(placer.deployed)} operators deployed, "
              f"{t / args.queries * 1e3:.2f} ms per query)")
    ok = max(results) < 10.0
    print(f"   target: {args.queries} queries on {args.nodes} nodes in under 10 s -- {'met' if ok else 'NOT met'}")
    return 0
