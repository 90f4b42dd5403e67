"""``python -m experiments bench <name>``: benchmarks that print figures (never timed unit tests).

Each benchmark is a module with ``HELP``, ``add_arguments(parser)`` and ``main(args) -> int``;
adding one is one module plus one line in :data:`BENCHMARKS`.
"""

from __future__ import annotations

import argparse
import importlib

from experiments.commands.inputs import command_help

HELP = "run a benchmark (planners: plan time and cost; evaluators: throughput)"

BENCHMARKS: dict[str, str] = {
    "planners": "experiments.bench.planners",
    "evaluators": "experiments.bench.evaluators",
    "density": "experiments.bench.density",
    "next": "experiments.bench.next",
    "multi": "experiments.bench.multi",
    "hamlet": "experiments.bench.hamlet",
    "motto": "experiments.bench.motto",
    "streams": "experiments.bench.streams",
    "length": "experiments.bench.length",
    "model-density": "experiments.bench.model_density",
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="benchmark", metavar="<benchmark>")
    sub.required = True
    for name, module in BENCHMARKS.items():
        mod = importlib.import_module(module)
        b = sub.add_parser(name, help=command_help(mod), description=getattr(mod, "DESCRIPTION", mod.HELP))
        mod.add_arguments(b)


def main(args: argparse.Namespace) -> int:
    return int(importlib.import_module(BENCHMARKS[args.benchmark]).main(args) or 0)
