"""``python -m experiments bench model-density``: the partial matches JQPG's cost model predicts per cell as
the density grows toward the paper's.

Every stored cell of a JQPG results folder is re-planned on its stored statistics with each arrival rate
scaled by a factor (:func:`experiments.reporting.jqpg_model.replan`, the paper's Cost_ord or Cost_tree
of the plan the planner picks at that density).  The model's cost is converted to partial matches with
the ratio the stored run measured at its own density (the median, over the cells that were not capped, of
``partial_matches_created`` over the model's cost at factor 1).  The table gives, per density, the
predicted partial matches per cell (median, 75th percentile) and the share of cells the model puts past
the cap: what decides whether a density can be run to completion (docs/dense.md).
"""

from __future__ import annotations

import argparse
import json
import math

HELP = "JQPG: the partial matches per cell the paper's cost model predicts at growing densities, against a cap"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--exp", default="jqpg_fig3", help="a JQPG results folder name (default jqpg_fig3)")
    p.add_argument("--planner", default="DP-LD", help="the planner whose cells are re-planned (default DP-LD)")
    p.add_argument("--factors", default="1,3.33,10,33.3,100", help="density factors over the stored run's (comma-separated)")
    p.add_argument("--paper", action="store_true", help="add the paper's density (the stored run's factor to it)")
    p.add_argument("--cap", type=float, default=2e7, help="the cap the shares are counted against (default the paper's 20M)")
    p.add_argument("--results-dir", default=None, help="the results root (default results/, the committed reference)")


def main(args: argparse.Namespace) -> int:
    import numpy as np
    import pandas as pd

    from cep.errors import ConfigError
    from experiments.data.datasets import resolve_path
    from experiments.reporting.jqpg_model import JqpgModel, replan, replan_key
    from experiments.running.folders import REFERENCE_DIR

    root = resolve_path(args.results_dir or REFERENCE_DIR) / args.exp
    if not (root / "results.parquet").exists() or not (root / "metadata.json").exists():
        raise ConfigError(f"{root}: no results.parquet and metadata.json of a JQPG run")
    try:
        factors = [float(x) for x in args.factors.split(",") if x.strip()]
    except ValueError:
        raise ConfigError(f"--factors {args.factors!r}: comma-separated numbers") from None
    if not factors or any(not f > 0 for f in factors):
        raise ConfigError(f"--factors {args.factors!r}: positive numbers")
    meta = json.loads((root / "metadata.json").read_text())
    table = pd.read_parquet(root / "results.parquet")
    model = JqpgModel(root, meta, table)
    specs = model.specs[model.specs["algorithm"] == args.planner]
    if specs.empty:
        raise ConfigError(f"{root}: no stored cell specification of {args.planner} (cells.jsonl.gz)")
    paper = [f for f in model.factors.values() if f]
    if args.paper and paper:
        factors.append(float(np.median(paper)))
    created = table[(table["algorithm"] == args.planner) & (table["metric"] == "partial_matches_created")].set_index("cell_id")
    measured = created.loc[created["status"] == "ok", "value"]
    ours = {d: (f.get("events_per_type_per_window") or {}).get("median") for d, f in (meta.get("datasets") or {}).items()}
    density = float(np.median([v for v in ours.values() if v])) if any(ours.values()) else math.nan

    def costs(factor: float) -> pd.Series:
        facts = replan([replan_key(r.spec, factor) for r in specs.itertuples()], specs["size"].tolist())
        return pd.Series(np.exp(np.clip([f.log_trpt for f in facts], None, 700)), index=specs["cell_id"].to_numpy())

    base = costs(1.0)
    ratio = (measured / base.reindex(measured.index)).replace([np.inf, -np.inf], np.nan).dropna()
    ratio = ratio[ratio > 0]
    if ratio.empty:
        raise ConfigError(f"{root}: no uncapped {args.planner} cell with partial matches to relate the model to")
    k = float(ratio.median())
    print(f"{args.exp}, {args.planner}: {len(specs)} cells; measured partial matches per unit of model cost at the stored density "
          f"{k:.3g} (median of {len(ratio)} uncapped cells); stored density {density:,.0f} events of the median type per window")
    print("| events of the median type per window | x stored | predicted partial matches per cell, median | 75th percentile "
          f"| cells over {args.cap:,.0f} |")
    print("| --- | --- | --- | --- | --- |")
    for f in factors:
        pred = (base if f == 1.0 else costs(f)) * k
        print(f"| {density * f:,.0f} | {f:g} | {pred.median():.2g} | {pred.quantile(0.75):.2g} | {(pred > args.cap).mean():.0%} |")
    return 0
