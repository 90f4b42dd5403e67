"""``python -m experiments report``: draw every figure present in a results folder and write its REPORT.md."""

from __future__ import annotations

import argparse

from experiments.commands.inputs import results_dir_of

# What the command runs is imported inside its functions, not here: python -m experiments imports every command
# module to build its parser, and a command pays only for the imports of the work it does.

HELP = "draw the figures of every experiment in runs/ (your runs) or results/ (--reference) and write REPORT.md there"


def add_arguments(p: argparse.ArgumentParser) -> None:
    where = p.add_mutually_exclusive_group()
    where.add_argument("--reference", action="store_true", help="the committed reference reproduction in results/ (rewrites results/REPORT.md and its figures)")
    where.add_argument("--results-dir", metavar="DIR", default=None, help="another results folder (default: runs/, where your runs go)")
    p.add_argument("setting", nargs="?", metavar="results_dir=DIR", help="another results folder, written as run takes it")


def main(args: argparse.Namespace) -> int:
    from cep.errors import ConfigError
    from experiments.data.datasets import resolve_path
    from experiments.reporting import build_report
    from experiments.running.folders import REFERENCE_DIR, RUNS_DIR

    results_dir = results_dir_of(args)
    if args.reference and results_dir is not None:
        raise ConfigError(f"--reference reads results/; do not combine it with results_dir={results_dir}")
    root = resolve_path(REFERENCE_DIR if args.reference else (results_dir or RUNS_DIR))
    what = "the committed reference reproduction" if args.reference else ("your runs" if results_dir is None else "results")
    if not root.is_dir():
        raise ConfigError(f"{root}: no results folder; run an experiment first (python -m experiments run +exp=<name>) or pass --reference")
    print(f"reading {what} in {root}")
    out, sections = build_report(root)
    for s in sections:
        figs = ", ".join(str(p) for p in s.figures if p.suffix == ".png")
        print(f"  {s.experiment}: {figs or 'no figure'}")
    print(f"wrote {out} ({len(sections)} section{'s' if len(sections) != 1 else ''})")
    return 0
