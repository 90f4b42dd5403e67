"""``python -m experiments compare NAME --against DP-B,DP-LD --exp jqpg_fig3[,...] [--workloads N] [overrides]``:
run one method against others on the cells of the named experiments and print the paired effects.

For each experiment only the cells of ``NAME`` and of the ``--against`` methods run (the JQPG figures'
``exp.planners`` become the against methods; each MCEP/MOTTO sweep that compares optimizers runs
them and the sweeps that do not -- MCEP's static/adaptive, MOTTO's solver and core studies -- are
left out), with ``NAME`` added by ``+extra_planners`` so its cells are those ``run`` would make.
Cells land in ``<results_dir>/<exp>/`` (``runs/`` by default) and a cell already done there is not
run again.  ``--workloads N`` keeps N patterns per size (JQPG) or N seeds (MCEP, MOTTO); any other
subset is an override (``exp.datasets=[nasdaq]``, ``exp.pattern_sets=[seq]``, ``exp.sizes=[3,4]``).
Runs use ``runner=serial`` unless an override names another local runner.  The effects (per
experiment and dataset, :mod:`experiments.reporting.compare`) are printed and written with a figure to
``<results_dir>/compare/<NAME>/``.  Exit status 1 when cells failed (their tracebacks are in the
experiment's ``failures/``; the effects use the cells that finished), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import re
import sys

import pandas as pd
from omegaconf import open_dict

from algorithms.multi.registry import multi_planner_names
from algorithms.registry import is_builtin
from cep.errors import ConfigError
from experiments.exps import kind_module, run_experiment
from experiments.running.compose import compose_config
from experiments.running.folders import results_root
from experiments.running.store import ResultStore, cell_id

HELP = "run a method against others on an experiment's cells and print the paired effects with 95% CIs and verdicts"
KINDS = ("jqpg", "mcep", "motto")
SKIPPED_SWEEPS = {"mcep": ("reshuffle_every",), "motto": ("queries", "cores")}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", help="the method: a built-in name, an entry point, or module:Class")
    p.add_argument("--against", required=True, help="comma-separated methods to compare with (e.g. DP-B,DP-LD)")
    p.add_argument("--exp", required=True, help="comma-separated experiments (e.g. jqpg_fig3,jqpg_fig5 or mcep_fig10)")
    p.add_argument("--workloads", type=int, default=None, metavar="N",
                   help="N patterns per size (JQPG) or N seeds (MCEP, MOTTO) instead of the scale's")
    p.add_argument("overrides", nargs="*", help="Hydra overrides of the runs (scale=quick, exp.datasets=[nasdaq], ...)")


def _configs(args) -> list:
    against = [a for a in args.against.split(",") if a]
    if not against or args.name in against:
        raise ConfigError("--against names the methods to compare with, not the method itself")
    if args.workloads is not None and args.workloads < 1:
        raise ConfigError("--workloads must be at least 1")
    overrides = list(args.overrides)
    bad = [o for o in overrides if o.split("=", 1)[0].lstrip("+~") in ("exp", "extra_planners")]
    if bad:
        raise ConfigError(f"{bad[0]!r}: compare sets the experiment (--exp) and the methods (NAME, --against) itself")
    if not any(o.startswith("runner=") for o in overrides):
        overrides.insert(0, "runner=serial")
    if "runner=spark" in overrides:
        raise ConfigError("compare runs locally: runner=serial or runner=joblib")
    out = []
    for exp in [e for e in args.exp.split(",") if e]:
        cfg = compose_config([f"+exp={exp}", *overrides])
        kind = cfg.exp.get("kind")
        if kind not in KINDS:
            raise ConfigError(f"compare runs the JQPG, MCEP and MOTTO figures (kinds {', '.join(KINDS)}); {exp} is of kind {kind!r}")
        builtin = [a for a in against if is_builtin(a) or a in multi_planner_names()]
        if not builtin:  # the configured methods of the cells; the others are added like NAME
            raise ConfigError(f"{exp}: --against needs at least one built-in method")
        with open_dict(cfg):
            cfg.extra_planners = [args.name] + [a for a in against if a not in builtin]
            if kind == "jqpg":
                cfg.exp.planners = builtin
                if args.workloads:
                    cfg.exp.patterns_per_size = args.workloads
            else:
                cfg.exp.sweeps = [dict(s, algorithms=builtin) for s in cfg.exp.sweeps if s["x"] not in SKIPPED_SWEEPS[kind]]
                if not cfg.exp.sweeps:
                    raise ConfigError(f"{exp} has no sweep that compares optimizers")
                if args.workloads:
                    sc = cfg.exp.scales[cfg.scale.name]
                    sc.seeds = list(sc.seeds)[: args.workloads]
        out.append((exp, kind, cfg))
    return out


def main(args: argparse.Namespace) -> int:
    # lazy: the effects' figure code imports scipy (about 500 modules, seconds), and every python -m experiments
    # call imports this module to build its parser
    from experiments.reporting.compare import paired_effects, write_section

    configs = _configs(args)  # every mistake before any work
    against = [a for a in args.against.split(",") if a]
    frames, notes, failed = [], [], 0
    for exp, kind, cfg in configs:
        out_dir = results_root(cfg) / cfg.exp.name
        ids = {cell_id(s) for s in kind_module(kind).specs(cfg, out_dir)}
        print(f"{exp}: {len(ids)} cells ({args.name} and {', '.join(against)}) into {out_dir}", file=sys.stderr)
        failed += run_experiment(cfg)
        rows = ResultStore(out_dir).load()
        rows = rows[rows["cell_id"].isin(ids)]
        missing = len(ids) - rows["cell_id"].nunique()
        if missing:
            notes.append(f"{exp}: {missing} of {len(ids)} cells failed (tracebacks in {out_dir / 'failures'}); left out")
        capped = rows[rows["status"].str.startswith("capped")]["cell_id"].nunique()
        if capped:
            notes.append(f"{exp}: {capped} cells stopped at a cap (no throughput; left out of the throughput ratios)")
        frames.append(rows)
    effects = paired_effects(pd.concat(frames, ignore_index=True), args.name, against)
    for e in effects:
        print(e.line(args.name))
    for n in notes:
        print(f"note: {n}")
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", args.name)
    md, png = write_section(effects, args.name, results_root(configs[0][2]) / "compare" / safe, notes)
    print(f"report section {md}, figure {png}", file=sys.stderr)
    return 1 if failed else 0
