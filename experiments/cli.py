"""``python -m experiments <command>``: one entry point for every tool of the harness.

Each command is a module under ``experiments.commands`` with ``HELP`` (one line), ``add_arguments``
and ``main(args) -> int``; adding a command is one module plus one line in :data:`COMMANDS`.
``run`` hands its arguments to Hydra (``python -m experiments run +exp=jqpg_fig3 scale=quick``).

Errors of the user's making (bad pattern text, a malformed events file, an unknown planner, a
missing file) print one line to stderr and exit with status 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from cep.errors import CEPError
from experiments.commands.inputs import command_help
from experiments.running.exits import refusing_exit

COMMANDS: dict[str, str] = {
    "run": "experiments.commands.run",
    "parse": "experiments.commands.parse",
    "stats": "experiments.commands.stats",
    "plan": "experiments.commands.plan",
    "detect": "experiments.commands.detect",
    "bench": "experiments.commands.bench",
    "place": "experiments.commands.place",
    "aggregate": "experiments.commands.aggregate",
    "report": "experiments.commands.report",
    "verify": "experiments.commands.verify",
    "cluster": "experiments.commands.cluster",
    "check-planner": "experiments.commands.check_planner",
    "compare": "experiments.commands.compare",
    "map": "experiments.commands.map",
    "advise": "experiments.commands.advise",
    "model-paper": "experiments.commands.model_paper",
}

EXIT_USAGE = 2
#: commands whose positional arguments (Hydra overrides) may come after their options
INTERMIXED = ("compare", "map")


def _load(name: str):
    return importlib.import_module(COMMANDS[name])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m experiments",
        description="CEP plan-generation harness: parse patterns, compute statistics, plan, detect, "
        "benchmark, and run the papers' experiments.",
    )
    sub = parser.add_subparsers(dest="command", metavar="<command>")
    sub.required = True
    for name in COMMANDS:
        mod = _load(name)
        p = sub.add_parser(name, help=command_help(mod), description=getattr(mod, "DESCRIPTION", mod.HELP))
        mod.add_arguments(p)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] == "run" and "-h" not in argv[1:2] and "--help" not in argv[1:2]:
            with refusing_exit("run"):
                return _load("run").run_overrides(argv[1:])
        if argv and argv[0] in INTERMIXED:  # options and overrides in any order
            mod = _load(argv[0])
            p = argparse.ArgumentParser(prog=f"python -m experiments {argv[0]}", description=getattr(mod, "DESCRIPTION", mod.HELP))
            mod.add_arguments(p)
            args = p.parse_intermixed_args(argv[1:])
            with refusing_exit(argv[0]):
                return int(mod.main(args) or 0)
        args = build_parser().parse_args(argv)  # --help and usage errors end here, as argparse ends them
        with refusing_exit(args.command):  # a plugin's sys.exit or os._exit cannot pass for the command's status
            return int(_load(args.command).main(args) or 0)
    except CEPError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
