"""``python -m experiments verify``: re-run a seeded sample of committed cells and compare."""

from __future__ import annotations

import argparse

HELP = "re-run a sample of the committed result cells (results/): deterministic values must be identical; measured ones are shown"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--exp", action="append", help="experiment folder name (repeatable; default: every one with results)")
    p.add_argument("--sample", type=int, default=5, help="cells per experiment (default 5)")
    p.add_argument("--seed", type=int, default=0, help="seed of the sample")
    p.add_argument("--results-dir", metavar="DIR", default=None, help="results folder (default: results/, the committed reference reproduction)")
    p.add_argument("--all", action="store_true", help="print every comparison, not only differences and measured values")


def main(args: argparse.Namespace) -> int:
    from cep.errors import ConfigError
    from experiments.data.datasets import resolve_path
    from experiments.running.experiment import REFERENCE_DIR
    from experiments.running.verify import format_differences, verify_experiment

    root = resolve_path(args.results_dir or REFERENCE_DIR)
    available = sorted(p.name for p in root.iterdir() if (p / "results.parquet").exists() and (p / "cells.jsonl").exists()) if root.is_dir() else []
    names = args.exp or available
    if not names:
        raise ConfigError(f"{root}: no experiment results to verify")
    unknown = [n for n in names if n not in available]
    if unknown:
        raise ConfigError(f"{root / unknown[0]}: no results.parquet and cells.jsonl (known: {', '.join(available) or 'none'})")
    what = "the committed reference reproduction" if args.results_dir is None else "results"
    print(f"verifying {what} in {root}: {args.sample} cell(s) per experiment, seed {args.seed}")
    diffs = []
    for name in names:
        diffs += verify_experiment(root / name, args.sample, args.seed)
    bad = [d for d in diffs if not d.ok]
    print(format_differences(diffs, show_all=args.all))
    cells = len({(d.experiment, d.cell_id) for d in diffs})
    print(f"verified {cells} cells of {len(names)} experiment(s): {len(diffs) - len(bad)} comparisons agree, {len(bad)} differ")
    return 1 if bad else 0
