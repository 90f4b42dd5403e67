"""``python -m experiments model-paper``: re-plan a multi-pattern results folder's workloads at the
paper's density and store what the papers' cost models predict there (issue [4 of 6], 6(b)).

    python -m experiments model-paper mcep_fig10 [--results-dir results] [--jobs 2]

Every static global-plan cell of an MCEP or MOTTO results folder (``<results dir>/<exp>/``) is rebuilt as
the run built it and each of its methods plans the workload again with the arrival rates scaled to the
paper's events per window (:mod:`experiments.tools.model_paper`); the rows go to ``model_paper.parquet``
in that folder, which the report reads for the diagnosis of every claim that does not hold.  It prints
the cells re-planned, how many rebuilt the stored trivial cost exactly, and the wall time.
"""

from __future__ import annotations

import argparse
import sys
import time

HELP = "MCEP and MOTTO: re-plan a results folder's workloads at the paper's density for the report's diagnosis"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("exp", metavar="EXP", help="an MCEP or MOTTO results folder name (mcep_fig10, fig12, motto_fig13, ...)")
    p.add_argument("--results-dir", default=None, help="the results root (default results/, the committed reference)")
    p.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="a progress bar on stderr (default: when stderr is a terminal)")


def main(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from cep.errors import ConfigError
    from experiments.data.datasets import resolve_path
    from experiments.tools.model_paper import compute
    from experiments.running.folders import REFERENCE_DIR
    from experiments.running.paper_density import FILE as MODEL_PAPER_FILE

    if args.jobs < 1:
        raise ConfigError(f"--jobs {args.jobs}: at least 1 process")
    root = resolve_path(args.results_dir or REFERENCE_DIR) / args.exp
    started = time.perf_counter()
    disable = None if args.progress is None else not args.progress
    out = compute(root, jobs=args.jobs, progress=lambda it: tqdm(it, desc=f"model-paper {args.exp}", unit="cell",
                                                                     file=sys.stderr, disable=disable))
    cells = out["cell_id"].nunique()
    rebuilt = out.groupby("cell_id")["rebuilt"].all().sum()
    factor = out["factor"].iloc[0] if len(out) else float("nan")
    print(f"{args.exp}: {cells} cells re-planned at {factor:.4g}x the run's events per window (the paper's); "
          f"{rebuilt} of them rebuilt the stored trivial costs exactly; {len(out)} rows in {root / MODEL_PAPER_FILE} "
          f"({time.perf_counter() - started:.0f} s)")
    return 0
