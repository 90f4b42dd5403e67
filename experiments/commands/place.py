"""``python -m experiments place``: place NEXT queries on simulated nodes and count how many they support.

    python -m experiments place queries.txt --nodes 10 --strategy rewrite+reuse [--json]

``QUERIES_FILE`` holds NEXT patterns (``PATTERN S1 a ; (S2 b | S4 c) WITHIN 1 minutes``, several per
file), or patterns of ours that have an exact NEXT counterpart (``PATTERN OR(S2 b, S4 c) WITHIN 1
minutes``, :func:`cep.next_mapping.to_next`); a pattern that has none is a one-line error naming the
construct.  Every operator of the queries (and, for the ``rewrite+`` strategies, of their rewritten
forms) is first run on the NEXT operator engine over ``--duration`` seconds of Poisson sources with
the rates of ``--stats`` (default: NEXT's eight sources ``S1, S2, S4, ..., S128``) to measure its CPU
and output rate, and the CPU of sending and receiving an event is measured; then the queries are
offered in file order to ``--nodes`` simulated nodes of ``--capacity`` CPU seconds per second each
(:mod:`algorithms.next.capacity`).  Printed: where each operator went (and which ones were reused),
the measured load of every node, and the number of queries supported.  ``--json`` prints one JSON
object with the same.  The simulated machine's defaults are NEXT Figure 11's settings at scale=quick
(``configs/exp/next_fig11.yaml`` over ``configs/scales/next.yaml``, resolved as the experiment resolves them).
"""

from __future__ import annotations

import argparse
import json

from algorithms.next.capacity import simulate
from algorithms.next.placement import DECIDE, STRATEGIES
from algorithms.next.rewrite import rewrite
from cep.errors import ConfigError, PatternError
from cep.next_mapping import as_next_pattern
from cep.parser import parse_pattern_file
from cep.statistics import Statistics
from experiments.exps.next import SETTINGS
from experiments.exps.next_measure import measure
from experiments.running.compose import compose_config
from experiments.running.settings import resolve
from experiments.workloads.next import paper_statistics

HELP = "place NEXT queries on simulated nodes (operator costs measured on the NEXT engine); print the placement"


#: where the simulated machine's defaults come from
DEFAULTS = "NEXT Figure 11's at scale=quick"


def _defaults() -> dict:
    """NEXT Figure 11's settings at scale=quick (the node capacity, the patience, the seconds measured)."""
    return resolve(compose_config(["+exp=next_fig11", "scale=quick"]), SETTINGS["fig11"])


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("queries_file", metavar="QUERIES_FILE",
                   help="a file of NEXT patterns (or of ours that have an exact NEXT counterpart)")
    p.add_argument("--nodes", type=int, required=True, help="number of simulated operator nodes")
    p.add_argument("--strategy", required=True, choices=STRATEGIES, help="placement strategy (NEXT Section 4.4)")
    p.add_argument("--stats", help="statistics JSON with the sources' rates (default: S1, S2, S4, ..., S128 at 1..128 events/s)")
    p.add_argument("--capacity", type=float, default=None,
                   help=f"CPU seconds per second of one node and sink proxy (default: {DEFAULTS})")
    p.add_argument("--sinks", type=int, default=0, help="sink proxies to simulate (default 0: not a bottleneck)")
    p.add_argument("--duration", type=float, default=None,
                   help=f"seconds of the sources the operators are measured over (default: {DEFAULTS})")
    p.add_argument("--patience", type=int, default=None,
                   help=f"stop after this many rejected queries in a row (default: {DEFAULTS})")
    p.add_argument("--decide", choices=DECIDE, default="measured", help="what the greedy minimizes: measured loads or Table 1 estimates")
    p.add_argument("--seed", type=int, default=0, help="seed of the sources")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def main(args: argparse.Namespace) -> int:
    if None in (args.capacity, args.duration, args.patience):
        d = _defaults()
        args.capacity = float(d["capacity"]) if args.capacity is None else args.capacity
        args.duration = float(d["duration_s"]) if args.duration is None else args.duration
        args.patience = int(d["patience"]) if args.patience is None else args.patience
    if args.nodes < 1:
        raise ConfigError(f"--nodes must be at least 1, got {args.nodes}")
    if args.duration <= 0:
        raise ConfigError(f"--duration must be positive, got {args.duration}")
    try:
        queries = [as_next_pattern(q) for q in parse_pattern_file(args.queries_file)]
    except PatternError as e:
        raise PatternError(f"{args.queries_file}: {e}") from None
    stats = Statistics.load(args.stats) if args.stats else paper_statistics()
    for q in queries:
        stats.require_types(q.event_types)
    if args.strategy.startswith("rewrite"):
        queries = [rewrite(q, stats).rewritten for q in queries]
    m = measure(queries, duration=args.duration, seed=args.seed, rates=dict(stats.rates))
    r = simulate(queries, nodes=args.nodes, strategy=args.strategy, stats=stats, measured=m.operators,
                 machine=m.machine(args.capacity, args.sinks), patience=max(1, args.patience), decide=args.decide)
    if args.json:
        print(json.dumps({**r.to_json(), "capacity": args.capacity, "queries_file": args.queries_file,
                          "queries": [str(q) for q in queries], "send_us": m.send_s * 1e6, "recv_us": m.recv_s * 1e6,
                          "measured_over_s": m.stream_seconds}))
        return 0
    print(f"{args.strategy} on {args.nodes} node(s) of {args.capacity:g} CPU s/s: {r.supported} of {len(queries)} queries "
          f"supported ({r.operators} operators, {r.deployed} deployed), {r.rejected} rejected"
          + (f"; last rejection would have overloaded {r.overloaded}" if r.overloaded else ""))
    print(f"operator costs measured over {m.stream_seconds:.1f} s of the sources; send {m.send_s * 1e6:.2f} us, "
          f"receive {m.recv_s * 1e6:.2f} us per event")
    print("placement (operator digest, kind -> node; * reused):")
    for qi, ops in zip(r.admitted, r.placements):
        cells = ", ".join(f"{kind} {digest[:8]}->{node}{'*' if reused else ''}" for digest, kind, node, reused in ops)
        print(f"  {queries[qi].name or f'query {qi + 1}'}: {cells or '(a bare source)'}")
    print("node load (CPU s/s measured, operators):")
    for n, (load, ops) in enumerate(zip(r.node_load, r.node_ops)):
        print(f"  node {n}: {load:.6f} ({100 * load / args.capacity:5.1f}% of capacity), {ops} operators")
    if r.sink_load:
        print("sink load (CPU s/s): " + ", ".join(f"{x:.6f}" for x in r.sink_load))
    return 0
