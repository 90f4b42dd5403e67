"""``python -m experiments check-planner NAME``: the conformance suite of a planner or multi-pattern optimizer
(:mod:`experiments.tools.conformance`); exit status 0 when every check passes, 1 when one fails, 2
when the name resolves to nothing or to a class of the wrong kind."""

from __future__ import annotations

import argparse

from cep.errors import ConfigError
from experiments.tools.conformance import check_planner

HELP = "run a planner or multi-pattern optimizer (built-in, entry point or module:Class) through the conformance suite"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", help="a built-in name, an entry point of cep_plan_bench.planners / cep_plan_bench.multi, or module:Class")
    p.add_argument("--streams", type=int, default=4, help="random streams per case (default 4)")
    p.add_argument("--events", type=int, default=24, help="events per stream (default 24)")
    p.add_argument("--seed", type=int, default=0, help="seed of the streams and of the method (default 0)")
    p.add_argument("--time-limit", type=float, default=2.0, metavar="S", help="a multi-pattern optimizer's time limit (default 2 s)")


def main(args: argparse.Namespace) -> int:
    if args.streams < 1 or args.events < 1 or not args.time_limit > 0:
        raise ConfigError("--streams and --events must be at least 1 and --time-limit positive")
    report = check_planner(args.name, streams=args.streams, events=args.events, seed=args.seed, time_limit=args.time_limit)
    print(report.text())
    return 0 if report.ok else 1
