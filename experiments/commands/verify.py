"""``python -m experiments verify``: re-run a seeded sample of committed cells and compare."""

from __future__ import annotations

import argparse
import json
import sys

from experiments.commands.inputs import add_results_dir, results_dir_of

# What the command runs is imported inside its functions, not here: python -m experiments imports every command
# module to build its parser, and a command pays only for the imports of the work it does.

HELP = "re-run a sample of the committed result cells (results/): deterministic values must be identical; measured ones are shown"

#: the default cap on the stored run time of the cells verify samples (seconds): the committed standard reference
#: then verifies in a few minutes on 2 cores (README, "Verify")
DEFAULT_MAX_CELL_S = 5.0


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--exp", action="append",
                   help="experiment folder name, or maps/<name> for a regime map (repeatable; default: every one with results)")
    p.add_argument("--sample", type=int, default=3, help="cells per experiment (default 3)")
    p.add_argument("--seed", type=int, default=0, help="seed of the sample")
    p.add_argument("--max-cell-s", type=float, default=DEFAULT_MAX_CELL_S, metavar="S",
                   help=f"sample only cells whose run took at most S seconds (as stored with them; default {DEFAULT_MAX_CELL_S:g}, "
                        "inf: every cell); an experiment with no cell that cheap verifies its cheapest cell")
    add_results_dir(p, "results/, the committed reference reproduction")
    p.add_argument("--all", action="store_true", help="print every comparison, not only differences and measured values")
    p.add_argument("--json", action="store_true", help="print one JSON object per comparison shown, then a summary object")


def stored_experiments(root) -> list[str]:
    """The folders of ``root`` holding stored cells: each experiment's name, and each regime map's as
    ``maps/<name>``."""
    from experiments.running.store import ResultStore

    def stored(folder) -> list:
        if not folder.is_dir():
            return []
        return sorted(p for p in folder.iterdir() if (p / "results.parquet").exists() and ResultStore(p).has_cells())

    return [p.name for p in stored(root)] + [f"maps/{p.name}" for p in stored(root / "maps")]


def main(args: argparse.Namespace) -> int:
    from cep.errors import ConfigError
    from experiments.data.datasets import resolve_path
    from experiments.running.folders import REFERENCE_DIR
    from tqdm import tqdm

    from experiments.tools.verify import (
        TIE,
        cell_function,
        difference_rows,
        format_differences,
        sample_experiment,
        verify_sampled,
    )

    if args.sample < 1:
        raise ConfigError(f"--sample {args.sample}: the number of cells verified per experiment is at least 1")
    if args.max_cell_s is not None and not args.max_cell_s > 0:
        raise ConfigError(f"--max-cell-s {args.max_cell_s}: a cell's stored run time cap is positive (seconds)")
    results_dir = results_dir_of(args)
    root = resolve_path(results_dir or REFERENCE_DIR)
    available = stored_experiments(root)
    names = args.exp or available
    if not names:
        raise ConfigError(f"{root}: no experiment results to verify")
    unknown = [n for n in names if n not in available]
    if unknown:
        raise ConfigError(f"{root / unknown[0]}: no results.parquet and cells.jsonl.gz (known: {', '.join(available) or 'none'})")
    what = "the committed reference reproduction" if results_dir is None else "results"
    sampled = [c for name in names for c in sample_experiment(root / name, args.sample, args.seed, args.max_cell_s)]
    stored = sum(c.stored_s for c in sampled)
    cap = "" if args.max_cell_s == float("inf") else f" among the cells stored with a run time of at most {args.max_cell_s:g} s"
    replan = sum(c.replan_s for c in sampled)
    print(f"verifying {what} in {root}: {args.sample} cell(s) per experiment{cap}, seed {args.seed}: {len(sampled)} cells "
          f"that ran {stored:.0f} s when stored" + (f", and planned {replan:.0f} s of it, whose plans at the paper's density "
                                                     "are re-made too" if replan else ""), file=sys.stderr if args.json else sys.stdout)
    diffs = []
    functions: dict = {}
    # the bar counts the sampled cells' stored run time (and planning time, re-made at the paper's density), so that
    # its estimate of the time left weighs each cell
    weights = [max(c.stored_s + c.replan_s, 0.01) for c in sampled]
    with tqdm(total=sum(weights), desc="verify", file=sys.stderr, disable=None,
              bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.0f}/{total:.0f} s of stored cell time [{elapsed}<{remaining}{postfix}]") as bar:
        for i, (cell, weight) in enumerate(zip(sampled, weights)):
            bar.set_postfix_str(f"{cell.exp_dir.name}, cell {i + 1} of {len(sampled)}")
            run_cell = functions.setdefault(cell.exp_dir, cell_function(cell.exp_dir))
            diffs += verify_sampled(cell, run_cell)
            bar.update(weight)
    bad = [d for d in diffs if not d.ok]
    ties = sum(1 for d in diffs if d.ok and d.rule == TIE)
    cells = len({(d.experiment, d.cell_id) for d in diffs})
    if args.json:
        for row in difference_rows(diffs, show_all=args.all):
            print(json.dumps(row, default=str))
        print(json.dumps({"cells": cells, "experiments": len(names), "agree": len(diffs) - len(bad), "ties": ties, "differ": len(bad)}))
        return 1 if bad else 0
    print(format_differences(diffs, show_all=args.all))
    print(f"verified {cells} cells of {len(names)} experiment(s): {len(diffs) - len(bad)} comparisons agree"
          f"{f' ({ties} of them equal-cost plan ties)' if ties else ''}, {len(bad)} differ")
    return 1 if bad else 0
