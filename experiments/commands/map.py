"""``python -m experiments map +map=<name> [overrides] [--estimate]``: run a regime map and draw it.

The config is ``configs/map/<name>.yaml`` composed with ``configs/config.yaml`` (Hydra's compose API, as
``run`` composes an experiment: ``scale=``, ``runner=``, ``results_dir=``, ``exp.<key>=...``).  The cells
(:mod:`experiments.exps.maps`) run through the one cell pipeline and store into
``<results_dir>/maps/<name>/`` (``runs/`` by default; ``results/`` only with ``reference=true``, from committed
code), Spark-parallel by default; a rerun runs only the cells not yet stored.  The run ends by drawing the
map (:mod:`experiments.reporting.maps`): one figure per pair of axes, ``MAP.md`` with the generated text under
each, ``effects.csv``.  ``--estimate`` builds the cells, times a sample and prints what the run would cost
(:mod:`experiments.tools.estimate`).  Exit status 1 when cells failed, 2 for a usage error.
"""

from __future__ import annotations

import argparse
import sys
import time

# What the command runs is imported inside its functions, not here: python -m experiments imports every command
# module to build its parser, and a command pays only for the imports of the work it does.

HELP = "run a regime map (configs/map/): where one planning method wins over another, as heatmaps with verdicts"
MAPS_DIR = "maps"


def add_arguments(p: argparse.ArgumentParser) -> None:
    from experiments.data.datasets import CONFIG_DIR

    names = ", ".join(sorted(f.stem for f in (CONFIG_DIR / "map").glob("*.yaml")))
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.description = (HELP + "\n\nExamples:\n  python -m experiments map +map=dpld_vs_dpb\n"
                     "  python -m experiments map +map=hamlet_vs_greta scale=standard --estimate\n"
                     "  python -m experiments map +map=dpld_vs_efreq exp.workloads=5 exp.pattern_set=conj runner=joblib\n\n"
                     f"Maps: {names}")
    p.add_argument("overrides", nargs="*", help="+map=<name> (required) and Hydra overrides: scale=..., runner=..., results_dir=..., exp.<key>=...")
    p.add_argument("--estimate", action="store_true", help="do not run: time a sample of the cells and print the map's cost")
    p.add_argument("--estimate-sample", type=int, default=5, metavar="N", help="--estimate: cells timed (default 5)")
    p.add_argument("--estimate-timeout", type=float, default=600.0, metavar="S", help="--estimate: stop a sampled cell after S seconds")
    p.add_argument("--estimate-budget", type=float, default=45.0, metavar="S",
                   help="--estimate: answer within about S seconds (default 45; 0: no budget)")
    p.add_argument("--json", action="store_true", help="--estimate: print the estimate as JSON")


def map_folder(cfg):
    """Where a map's results go: ``<results root>/maps/<name>/`` (the results root as a run's)."""
    from experiments.running.folders import results_root

    return results_root(cfg) / MAPS_DIR / str(cfg.exp.name)


def main(args: argparse.Namespace) -> int:
    from cep.errors import ConfigError
    from experiments.running.compose import compose_config

    if args.estimate_sample < 1 or args.estimate_timeout <= 0 or args.estimate_budget < 0:
        raise ConfigError("--estimate-sample must be at least 1, --estimate-timeout positive and --estimate-budget at least 0")
    cfg = compose_config(list(args.overrides), select="map")
    if cfg.exp.get("kind") != "map":
        raise ConfigError(f"configs/map/{cfg.exp.get('name')}.yaml is not a map (exp.kind must be map)")
    out_dir = map_folder(cfg)  # the guard on results/ before any work
    from experiments.exps import maps

    maps.build_specs(cfg)  # every mistake of the map's config before any work
    if args.estimate:
        import json

        from experiments.tools.estimate import estimate_run

        est = estimate_run(cfg, out_dir, sample=args.estimate_sample, seed=int(cfg.seed), timeout_s=args.estimate_timeout,
                           budget_s=args.estimate_budget)
        print(json.dumps(est.as_dict()) if args.json else est.text())
        return 0
    from experiments.reporting.maps import draw_map

    started = time.perf_counter()
    out_dir.mkdir(parents=True, exist_ok=True)
    failed = maps.run(cfg, out_dir)
    drawn = draw_map(out_dir)
    name = cfg.exp.name
    print(f"map {name}: {time.perf_counter() - started:.0f} s of wall time", file=sys.stderr)
    if drawn is not None:
        for _, _, files, _ in drawn.figures:
            print(f"map {name}: figure {next(p for p in files if p.suffix == '.png')}", file=sys.stderr)
        print(f"map {name}: page {drawn.page}", file=sys.stderr)
    return 1 if failed else 0
