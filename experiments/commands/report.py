"""``python -m experiments report``: draw every figure present in the results and write REPORT.md."""

from __future__ import annotations

import argparse

HELP = "draw the figures of every experiment in results/ and write results/REPORT.md"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--results-dir", dest="results_dir_opt", default=None, help="results folder (default: results/ of the repository)")
    p.add_argument("results_dir", nargs="?", default=None, help="Hydra-style override results_dir=<path> is accepted too")


def main(args: argparse.Namespace) -> int:
    from experiments.datasets import resolve_path
    from experiments.report import build_report

    target = args.results_dir_opt or args.results_dir or "results"
    if target.startswith("results_dir="):
        target = target.split("=", 1)[1]
    out = build_report(resolve_path(target))
    print(f"wrote {out}")
    return 0
