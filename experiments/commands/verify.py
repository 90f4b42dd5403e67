"""``python -m experiments verify``: re-run a seeded sample of committed cells and compare."""

from __future__ import annotations

import argparse

HELP = "re-run a sample of committed result cells; deterministic values must match, measured ones lie within a tolerance"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--exp", action="append", help="experiment folder name (repeatable; default: every one with results)")
    p.add_argument("--sample", type=int, default=5, help="cells per experiment (default 5)")
    p.add_argument("--seed", type=int, default=0, help="seed of the sample")
    p.add_argument("--tolerance", type=float, default=None, help="allowed factor for measured values (default 4)")
    p.add_argument("--results-dir", default="results", help="results folder (default: results/)")
    p.add_argument("--all", action="store_true", help="print every comparison, not only differences")


def main(args: argparse.Namespace) -> int:
    from cep.errors import ConfigError
    from experiments.datasets import resolve_path
    from experiments.verify import DEFAULT_TOLERANCE, format_differences, verify_experiment

    root = resolve_path(args.results_dir)
    names = args.exp or sorted(p.name for p in root.iterdir() if (p / "results.parquet").exists() and (p / "cells.jsonl").exists()) if root.exists() else []
    if not names:
        raise ConfigError(f"{root}: no experiment results to verify")
    tol = args.tolerance or DEFAULT_TOLERANCE
    diffs = []
    for name in names:
        d = root / name
        if not (d / "results.parquet").exists():
            raise ConfigError(f"{d}: no results.parquet (known: {', '.join(sorted(p.name for p in root.iterdir() if p.is_dir()))})")
        diffs += verify_experiment(d, args.sample, args.seed, tol)
    bad = [d for d in diffs if not d.ok]
    print(format_differences(diffs, show_all=args.all))
    cells = len({(d.experiment, d.cell_id) for d in diffs})
    print(f"verified {cells} cells of {len(names)} experiment(s): {len(diffs) - len(bad)} comparisons agree, {len(bad)} differ")
    return 1 if bad else 0
