"""``python -m experiments detect``: plan a pattern, run it over an events file, report matches and metrics.

    python -m experiments detect "PATTERN SEQ(MSFT a, DRIV b) WHERE a.high < b.high WITHIN 3 minutes" \\
        --data data/nasdaq/NASDAQ_MEDIUM.txt --planner DP-B [--evaluator tree|nfa] \\
        [--out matches.jsonl] [--json]

The plan comes from the named planner on statistics from ``--stats FILE`` or, by default, estimated
from the events file itself (planning is not timed).  The evaluator defaults to the tree for tree
planners and the lazy NFA for order planners.  ``--data`` takes an events file in any format the
readers know (the NASDAQ minute text, decoded by the fast columnar reader; the NASDAQ and traffic
Parquet; generic CSV/Parquet) or a dataset name (``nasdaq``, ``traffic``, ...).

The timed span starts when the file is opened and ends when the last match is reported, so the
throughput includes decoding (as OpenCEP's run time does).  ``--json`` prints one JSON object with
the metrics of :mod:`evaluators.engine` plus planner, evaluator, plan, plan_cost and pattern;
``--out`` writes one JSON object per match, mapping each variable to the stream positions of its
events (``{"a": [12], "b": [15, 17]}``), in the canonical order of cep.semantics.  The file is
written only after detection succeeded, and atomically: an error leaves no partial file.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from algorithms.planning import plan_pattern
from algorithms.registry import planner_kind, planner_names
from cep.errors import ConfigError, PatternError
from cep.io_utils import atomic_open
from cep.next_algebra import NextPattern
from cep.pattern import format_pattern
from cep.statistics import Statistics
from evaluators import DEFAULT_MAX_PARTIAL_MATCHES, evaluate, evaluator_names
from experiments.commands.inputs import events_loader, load_patterns, resolve_data, warn_missing_selectivities
from experiments.commands.workload import detect_main
from experiments.data.statistics import estimate_statistics

HELP = "detect a pattern in an events file with a planner's plan; print matches and metrics"


def add_arguments(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("text", nargs="?", help='pattern text, e.g. "PATTERN SEQ(A a, B b) WITHIN 1 minute"')
    src.add_argument("--file", "-f", help="a file holding exactly one pattern")
    src.add_argument("--patterns", help="a workload file: detect all its patterns in one pass with one global plan "
                     "(see experiments/commands/workload.py)")
    p.add_argument("--data", required=True, help="events file (NASDAQ text, NASDAQ/traffic Parquet, CSV/Parquet) or dataset name")
    p.add_argument("--planner", default="DP-B", help=f"planner name (default DP-B): {', '.join(planner_names())}")
    p.add_argument("--evaluator", default="auto", help="tree or nfa (default: tree for tree planners, nfa for order planners)")
    p.add_argument("--stats", help="statistics JSON for the planner (default: estimated from --data)")
    p.add_argument("--alpha", type=float, default=0.0, help="latency weight of the plan cost (JQPG 5.1)")
    p.add_argument("--seed", type=int, default=0, help="seed of randomized planners and of the statistics sampling")
    p.add_argument("--max-partial-matches", type=int, default=None, metavar="N",
                   help="stop with an error when live partial matches exceed N (default 1,000,000)")
    p.add_argument("--no-memory", action="store_true", help="skip the (untimed, traced) run that measures peak memory")
    p.add_argument("--out", help="write the matches here, one JSON object per line")
    p.add_argument("--time-limit", type=float, default=None, metavar="S",
                   help="with --patterns: the local search's time budget in seconds (default 5)")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")



def main(args: argparse.Namespace) -> int:
    if getattr(args, "patterns", None):
        return detect_main(args)
    if args.evaluator not in ("auto", *evaluator_names()):
        raise ConfigError(f"unknown evaluator {args.evaluator!r}; known: auto, {', '.join(evaluator_names())}")
    patterns = load_patterns(args)
    if len(patterns) != 1:
        raise PatternError(f"detect runs exactly one pattern; the input holds {len(patterns)}")
    pattern = patterns[0]
    if isinstance(pattern, NextPattern):
        raise PatternError("detect runs SEQ/AND/OR patterns; a NEXT pattern runs on the NEXT operator engine "
                           "(python -m experiments place, or evaluators.next.engine.run_queries)")
    kind = planner_kind(args.planner)
    path, fmt = resolve_data(args.data)
    load = events_loader(path, fmt)
    if args.stats:
        stats = Statistics.load(args.stats)
        stats.require_types(pattern.event_types)
        warn_missing_selectivities(pattern, stats)
    else:
        stats = estimate_statistics(load().to_stream(), [pattern], seed=args.seed)
    planned = plan_pattern(pattern, args.planner, stats, alpha=args.alpha, seed=args.seed)
    evaluator = args.evaluator if args.evaluator != "auto" else ("tree" if kind == "tree" else "nfa")
    cap = DEFAULT_MAX_PARTIAL_MATCHES if args.max_partial_matches is None else args.max_partial_matches
    result = evaluate(
        pattern,
        planned.plan,
        load,
        evaluator=evaluator,
        max_partial_matches=cap,
        measure_memory=not args.no_memory,
        collect_matches=bool(args.out),
    )
    if args.out:
        with atomic_open(Path(args.out)) as f:
            for m in result.matches:
                f.write(m.to_json() + "\n")
    m = result.metrics
    if args.json:
        print(json.dumps({
            **m,
            "planner": args.planner,
            "evaluator": result.evaluator,
            "plan": planned.plan.to_json(),
            "plan_cost": planned.cost,
            "pattern": format_pattern(pattern),
            "data": str(path),
        }))
        return 0
    print(format_pattern(pattern))
    print(f"plan ({args.planner}, {planned.kind}): {planned.plan}   cost {planned.cost_text()}")
    print(f"evaluator: {result.evaluator}   events: {m['events']:,}   matches: {m['matches']:,}")
    print(f"throughput: {m['throughput_eps']:,.0f} events/s   elapsed: {m['elapsed_s']:.3f} s (decoding included)")
    print(f"peak partial matches: {m['peak_partial_matches']:,}"
          + (f"   peak memory: {m['peak_memory_bytes'] / 1e6:.1f} MB" if m["peak_memory_bytes"] is not None else ""))
    if m["latency_ms_mean"] is not None:
        print(f"latency: mean {m['latency_ms_mean']:.3f} ms, p95 {m['latency_ms_p95']:.3f} ms")
    if args.out:
        print(f"matches written to {args.out}")
    return 0
