"""``python -m experiments advise --data EVENTS --patterns PATTERNS [--budget SECONDS] [--out DIR]``: which planner
for your own events and patterns.

Estimates the statistics, places the workload on the regime maps' axes, plans with every candidate of its kind (the
single-pattern planners for one pattern, the multi-pattern optimizers for several, and the installed methods of other
packages), runs the plans on samples of the stream within the budget, and prints a ranked table with each candidate's
paired effect against the best (95% intervals), the plan each produced, the nearest region of the maps, and a
one-line recommendation that says when the evidence does not separate the top candidates
(:mod:`experiments.tools.advise`).  Writes ``advise.md`` and ``advise.png`` into ``--out`` (default
``runs/advise/``).  Bad input -- an unknown file format, an empty stream, a pattern naming event types or attributes
the events lack, a budget too short for one run -- is one line and exit status 2.
"""

from __future__ import annotations

import argparse

# What the command runs is imported inside its functions, not here: python -m experiments imports every command
# module to build its parser, and a command pays only for the imports of the work it does.

HELP = "which planner for your events and patterns: run the candidates on samples of your stream, ranked with intervals"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data", required=True, help="events file (NASDAQ text, NASDAQ/traffic Parquet, CSV/Parquet) or a dataset name")
    p.add_argument("--patterns", required=True, help="a file of patterns (one: single-pattern planners; several: multi-pattern optimizers)")
    p.add_argument("--budget", type=float, default=180.0, metavar="SECONDS", help="time for the whole advice (default 180)")
    p.add_argument("--out", default="runs/advise", metavar="DIR", help="where advise.md and its figure go (default runs/advise)")
    p.add_argument("--maps", action="append", metavar="DIR",
                   help="regime maps folder(s) to place the workload on (default: results/maps and runs/maps)")
    p.add_argument("--sample-windows", type=float, default=3.0, metavar="W", help="windows per sample of the stream (default 3)")
    p.add_argument("--max-samples", type=int, default=60, metavar="N", help="samples at most (default 60)")
    p.add_argument("--min-samples", type=int, default=None, metavar="N",
                   help="samples at least, past the budget if need be (default: the fewest a rank-based interval needs)")
    p.add_argument("--seed", type=int, default=0, help="seed of the samples' order, the statistics' sampling and randomized planners")
    p.add_argument("--no-progress", action="store_true", help="no progress on stderr")


def main(args: argparse.Namespace) -> int:
    from experiments.data.datasets import resolve_path
    from experiments.tools.advise import advise, text

    roots = args.maps or [resolve_path("results/maps"), resolve_path("runs/maps")]
    advice = advise(args.data, args.patterns, budget_s=args.budget, sample_windows=args.sample_windows, max_samples=args.max_samples,
                    **({} if args.min_samples is None else {"min_samples": args.min_samples}),
                    seed=args.seed, maps_roots=roots, out_dir=resolve_path(args.out), progress=not args.no_progress)
    print(text(advice))
    if advice.files:
        import sys

        print(f"advise: {advice.files[0]}, figure {advice.files[1]}", file=sys.stderr)
    return 0
