"""``python -m experiments bench model-density``: the partial matches JQPG's cost model predicts per cell as
the density grows toward the paper's.

Every stored cell of a JQPG results folder is re-planned on its stored statistics with each arrival rate
scaled by a factor (:func:`experiments.reporting.jqpg_model.replan`, the paper's Cost_ord or Cost_tree
of the plan the planner picks at that density).  The model's cost is converted to partial matches with
the ratio the stored run measured at its own density (the median, over the cells that were not capped, of
``partial_matches_created`` over the model's cost at factor 1).  The table gives, per density, the
predicted partial matches per cell (median, 75th percentile) and the share of cells the model puts past
the cap: what decides whether a density can be run to completion (docs/dense.md).

An MCEP or MOTTO folder (``--exp mcep_fig10``, ``fig12``, ``motto_fig13``, ...) stores neither its workloads nor
their statistics, so a sample of its cells that ran the baseline (``--sample``; MCEP's TRIVIAL, MOTTO's NA) is
rebuilt as the run built it -- the replayed stream, the seeded workload, the statistics estimated on the
stream -- and the baseline's global plan (every pattern in its written order, nothing shared) is costed with
MCEP's Cost^multi (Section 3.3, Appendix C: the instances of every node
under its window, :func:`algorithms.multi.costs.cost_multi`) at each factor, the rates scaled, the
selectivities kept; the cost is converted to live partial matches with the ratio the stored run measured
(the median over the sampled cells that were not capped of ``peak_partial_matches`` over the cost at factor 1).
"""

from __future__ import annotations

import argparse
import json
import math

HELP = "JQPG, MCEP and MOTTO: the partial matches per cell the paper's cost model predicts at growing densities, against a cap"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--exp", default="jqpg_fig3", help="a JQPG, MCEP or MOTTO results folder name (default jqpg_fig3)")
    p.add_argument("--planner", default="DP-LD", help="the planner whose cells are re-planned (default DP-LD)")
    p.add_argument("--factors", default="1,3.33,10,33.3,100", help="density factors over the stored run's (comma-separated)")
    p.add_argument("--paper", action="store_true", help="add the paper's density (the stored run's factor to it)")
    p.add_argument("--cap", type=float, default=2e7, help="the cap the shares are counted against (default the paper's 20M)")
    p.add_argument("--results-dir", default=None, help="the results root (default results/, the committed reference)")
    p.add_argument("--sample", type=int, default=12, help="MCEP and MOTTO: baseline cells rebuilt and costed (default 12)")
    p.add_argument("--seed", type=int, default=0, help="MCEP and MOTTO: seed of the sample (default 0)")


def main(args: argparse.Namespace) -> int:
    import numpy as np
    import pandas as pd

    from cep.errors import ConfigError
    from experiments.data.datasets import resolve_path
    from experiments.reporting.jqpg_model import JqpgModel, replan, replan_key
    from experiments.running.folders import REFERENCE_DIR
    from experiments.running.settings import RENAMED_KINDS

    root = resolve_path(args.results_dir or REFERENCE_DIR) / args.exp
    if not (root / "results.parquet").exists() or not (root / "metadata.json").exists():
        raise ConfigError(f"{root}: no results.parquet and metadata.json of a run")
    if args.sample < 1:
        raise ConfigError(f"--sample {args.sample}: at least 1 cell")
    if not args.cap > 0:
        raise ConfigError(f"--cap {args.cap}: a positive number of partial matches")
    try:
        factors = [float(x) for x in args.factors.split(",") if x.strip()]
    except ValueError:
        raise ConfigError(f"--factors {args.factors!r}: comma-separated numbers") from None
    if not factors or any(not f > 0 for f in factors):
        raise ConfigError(f"--factors {args.factors!r}: positive numbers")
    meta = json.loads((root / "metadata.json").read_text())
    table = pd.read_parquet(root / "results.parquet")
    kind = (meta.get("config") or {}).get("exp", {}).get("kind")
    if RENAMED_KINDS.get(kind, kind) in MULTI_BASELINES:
        return _multi(args, root, meta, table, factors, RENAMED_KINDS.get(kind, kind))
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
    k, n = _per_unit_of_cost(measured, base, f"{root}: no uncapped {args.planner} cell with partial matches to relate the model to")
    print(f"{args.exp}, {args.planner}: {len(specs)} cells; measured partial matches per unit of model cost at the stored density "
          f"{k:.3g} (median of {n} uncapped cells); stored density {density:,.0f} events of the median type per window")
    _print_table(density, factors, lambda f: (base if f == 1.0 else costs(f)) * k, args.cap)
    return 0


def _per_unit_of_cost(measured, base, why: str) -> tuple[float, int]:
    """The median, over the cells measured uncapped, of the measured count over the model's cost at the stored
    density, and how many cells it is over (a :class:`ConfigError` saying ``why`` when there is none)."""
    import numpy as np

    from cep.errors import ConfigError

    ratio = (measured / base.reindex(measured.index)).replace([np.inf, -np.inf], np.nan).dropna()
    ratio = ratio[ratio > 0]
    if ratio.empty:
        raise ConfigError(why)
    return float(ratio.median()), len(ratio)


def _print_table(density: float, factors: list[float], predicted, cap: float) -> None:
    print("| events of the median type per window | x stored | predicted partial matches per cell, median | 75th percentile "
          f"| cells over {cap:,.0f} |")
    print("| --- | --- | --- | --- | --- |")
    for f in factors:
        pred = predicted(f)
        print(f"| {density * f:,.0f} | {f:g} | {pred.median():.2g} | {pred.quantile(0.75):.2g} | {(pred > cap).mean():.0%} |")


#: per multi-pattern kind, the baseline whose global plan is costed, and the sweeps whose cells run other studies
MULTI_BASELINES = {"mcep": ("TRIVIAL", ("reshuffle_every",)), "motto": ("NA", ("queries", "cores"))}


def _multi(args: argparse.Namespace, root, meta: dict, table, factors: list[float], kind_name: str) -> int:
    """The MCEP and MOTTO part (module docstring): baseline cells rebuilt, their global plans costed at each factor."""
    import gzip
    import random

    import numpy as np
    import pandas as pd

    from algorithms.multi.costs import cost_multi, workload_models
    from cep.errors import ConfigError
    from experiments.exps import kind_module
    from experiments.running.paper_density import paper_factor
    from experiments.tools.model_paper import scaled

    baseline, other_studies = MULTI_BASELINES[kind_name]
    with gzip.open(root / "cells.jsonl.gz", "rt") as fh:
        specs = [s for s in map(json.loads, fh) if baseline in (s.get("algorithms") or [s.get("algorithm")])
                 and s.get("x_name") not in other_studies]
    if not specs:
        raise ConfigError(f"{root}: no stored {baseline} cell specification (cells.jsonl.gz)")
    picked = random.Random(args.seed).sample(specs, min(args.sample, len(specs)))
    factor = paper_factor(meta, root / "metadata.json")
    density = float(meta["config"]["exp"]["scales"]["paper"]["events_per_window"]) / factor
    if args.paper:
        factors.append(factor)
    mod = kind_module(kind_name)
    peak = table[(table["algorithm"] == baseline) & (table["metric"] == "peak_partial_matches")].set_index("cell_id")
    stored_cost = table[(table["algorithm"] == baseline) & (table["metric"] == "plan_cost")].set_index("cell_id")["value"]
    plans, same = [], 0
    for spec in picked:
        kind = mod.cell_kind(spec)
        _, patterns, stats = kind.inputs(spec)
        g = kind.plan_one(spec, patterns, stats, baseline).plan
        plans.append((spec["cell_id"], g, stats))
        c1 = cost_multi(g, workload_models(g, stats))
        same += bool(np.isclose(c1, stored_cost.get(spec["cell_id"], np.nan), rtol=1e-9))

    def costs(f: float) -> pd.Series:
        with np.errstate(over="ignore"):
            return pd.Series([cost_multi(g, workload_models(g, scaled(st, f))) for _, g, st in plans], index=[c for c, _, _ in plans])

    base = costs(1.0)
    ok = peak[peak["status"] == "ok"]["value"].reindex(base.index).dropna()
    k, n = _per_unit_of_cost(ok, base, f"{root}: none of the {len(plans)} sampled {baseline} cells ran uncapped with partial "
                                       "matches to relate the model to")
    print(f"{args.exp}, {baseline}: {len(plans)} sampled cells rebuilt (Cost^multi at factor 1 equal to the stored plan cost in {same}); "
          f"measured peak live partial matches per unit of model cost {k:.3g} (median of {n} uncapped cells); "
          f"stored density {density:,.0f} events of the median type per window")
    _print_table(density, factors, lambda f: (base if f == 1.0 else costs(f)) * k, args.cap)
    return 0
