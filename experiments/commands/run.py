"""``python -m experiments run +exp=<name> [overrides] [--multirun]``: run an experiment configured by Hydra.

The config is composed by Hydra's compose API (``configs/config.yaml`` with the groups ``exp/``,
``dataset/``, ``runner/``, ``scale/``); no Hydra application runs, so the working directory does not
change and Hydra writes no output folders.  Outputs land under ``runs/<exp name>/`` (ignored by git),
or ``results/<exp name>/`` -- the committed reference reproduction -- with ``reference=true``.
``--multirun`` runs every combination of the comma-separated values of the overrides, one after the
other.  Every run's config is composed before any work, so every mistake in an override (an unknown
key or option, ``exp=`` without its ``+``) is one line on stderr with exit status 2.  A run whose cells
failed ends with their count and exit status 1; the run then draws its report section and says where
its figure is.
"""

from __future__ import annotations

import argparse
import itertools
import sys

from cep.errors import ConfigError
from experiments.running.compose import GROUPS, check_job, compose_config  # noqa: F401 (run's own composition)

# What the command runs is imported inside its functions, not here: python -m experiments imports every command
# module to build its parser, and a command pays only for the imports of the work it does.

HELP = "run an experiment: python -m experiments run +exp=<name> [key=value ...] [--multirun]"

EXIT_FAILED_CELLS = 1


def experiments_table() -> str:
    """Every experiment of configs/exp/ with the first line of its description."""
    from experiments.data.datasets import CONFIG_DIR

    rows = []
    for p in sorted((CONFIG_DIR / "exp").glob("*.yaml")):
        desc = ""
        for line in p.read_text().splitlines():
            line = line.strip()
            if line.startswith("#") and "@package" not in line:
                desc = line.lstrip("# ").strip()
                break
        rows.append(f"  {p.stem:<14} {desc}")
    return "\n".join(rows)


def description() -> str:
    return (
        "Run an experiment configured by Hydra (configs/). Results go to runs/<exp>/ (ignored by git);\n"
        "reference=true rewrites the committed reproduction in results/<exp>/ instead.\n\n"
        "Examples:\n"
        "  python -m experiments run +exp=jqpg_fig3\n"
        "  python -m experiments run +exp=jqpg_fig7 dataset=traffic runner=serial\n"
        "  python -m experiments run +exp=jqpg_fig7 dataset=nasdaq dataset.path=/data/events.parquet\n"
        "  python -m experiments run +exp=jqpg_fig7 results_dir=/tmp/results --multirun seed=0,1\n\n"
        "Overrides: dataset=<name> runs on one dataset (configs/dataset/), dataset.path=<file> points it at\n"
        "another file; runner=spark|joblib|serial, runner.master=spark://host:7077; scale=quick|standard|paper;\n"
        "results_dir=<dir>; reference=true; seed=<n>; progress=false; any exp.* value: exp.<key>=... (+exp.<key>=...\n"
        "where the config does not name it) holds at every scale, exp.scales.<scale>.<key>=... at one.\n\n"
        "Experiments:\n" + experiments_table()
    )


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.description = description()
    p.add_argument("overrides", nargs="*", help="Hydra overrides: +exp=<name> (required), dataset=..., runner=..., scale=..., key=value")
    _add_flags(p)


def _add_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--multirun", "-m", action="store_true", help="sweep over comma-separated override values")
    p.add_argument("--replace", action="store_true", help="empty the experiment's results folder first if it holds the "
                   "cells of another configuration (reference=true refuses to mix configurations without it)")
    p.add_argument("--estimate", action="store_true", help="do not run: build the cells, time a random sample of them and "
                   "print the run's CPU time and whether it fits this machine in a day")
    p.add_argument("--estimate-sample", type=int, default=5, metavar="N", help="--estimate: cells timed (default 5)")
    p.add_argument("--estimate-timeout", type=float, default=600.0, metavar="S",
                   help="--estimate: stop a sampled cell after S seconds and count it as a lower bound (default 600)")
    p.add_argument("--estimate-budget", type=float, default=45.0, metavar="S",
                   help="--estimate: answer within about S seconds: the sampled cells share what building them leaves, "
                        "each at most --estimate-timeout (default 45; 0: no budget)")
    p.add_argument("--json", action="store_true", help="--estimate: print the estimate as JSON")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        raise ConfigError(f"{message} (python -m experiments run --help)")


def flags_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m experiments run", add_help=False)
    p.add_argument("overrides", nargs="*")
    _add_flags(p)
    return p


def main(args: argparse.Namespace) -> int:
    flags = [f"--{k.replace('_', '-')}={v}" for k, v in vars(args).items()
             if k.startswith("estimate_") and v != flags_parser().get_default(k)]
    return run_overrides(list(args.overrides) + (["--multirun"] if args.multirun else []) + (["--estimate"] if args.estimate else [])
                         + (["--replace"] if args.replace else [])
                         + (["--json"] if args.json else []) + flags)


def parse_overrides(argv: list[str]) -> tuple[list, argparse.Namespace]:
    """The Hydra overrides of ``argv`` (parsed) and its flags (``--multirun``, ``--estimate`` ...); a flag
    or override that is not valid is one line naming it and what was expected."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import OverrideParseException

    flags, rest = flags_parser().parse_known_intermixed_args(argv)
    if rest:
        raise ConfigError(f"unknown option {rest[0]!r}; run takes Hydra overrides (key=value), --multirun and --estimate")
    if flags.replace and flags.multirun:
        raise ConfigError("--replace with --multirun would replace each run's cells with the next run's: run the sweep into an empty folder")
    if flags.estimate_sample < 1 or flags.estimate_timeout <= 0 or flags.estimate_budget < 0:
        raise ConfigError("--estimate-sample must be at least 1, --estimate-timeout positive and --estimate-budget at least 0")
    parser = OverridesParser.create()
    parsed = []
    for a in flags.overrides:
        try:
            (o,) = parser.parse_overrides([a])
        except OverrideParseException as e:
            msg = " ".join(str(e).split("See https://")[0].split())
            raise ConfigError(f"cannot parse override {a!r}: {msg} (quote values with brackets or commas, e.g. runner.master=\"'local[2]'\")") from None
        parsed.append(o)
    return parsed, flags


def jobs(parsed: list, multirun: bool) -> list[list[str]]:
    """The override lists of the runs: one, or with ``multirun`` one per combination of the sweeps'
    values (the cartesian product, as Hydra's basic sweeper); a sweep without ``--multirun`` is an error."""
    values = []
    for o in parsed:
        key = o.get_key_element()
        if o.is_sweep_override():
            if not multirun:
                raise ConfigError(f"{o.input_line!r} sweeps several values: add --multirun")
            values.append([f"{key}={v}" for v in o.sweep_string_iterator()])
        else:
            values.append([f"{key}={o.get_value_element_as_str()}"])
    return [list(combo) for combo in itertools.product(*values)]


def run_overrides(argv: list[str]) -> int:
    """Run the experiment of ``argv`` (every run of a ``--multirun`` sweep in turn); the exit status:
    0, or :data:`EXIT_FAILED_CELLS` if a run had failed cells."""
    from experiments.exps import run_experiment
    from experiments.running.folders import results_root

    parsed, flags = parse_overrides(argv)
    runs = jobs(parsed, flags.multirun)
    configs = [compose_config(overrides) for overrides in runs]  # every mistake before any work
    if flags.estimate:
        return _estimate(configs, flags)
    code = 0
    for i, cfg in enumerate(configs):
        if len(configs) > 1:
            print(f"run {i + 1} of {len(configs)}: {' '.join(runs[i])}", file=sys.stderr)
        root = results_root(cfg)  # checked once, before the run: a file edited meanwhile does not stop its report
        if run_experiment(cfg, replace=flags.replace):
            code = EXIT_FAILED_CELLS
        if cfg.model_paper and not _model_paper(cfg, root / cfg.exp.name):
            code = EXIT_FAILED_CELLS
        if cfg.report:
            _report(root, cfg.exp.name)
    return code


def _model_paper(cfg, out_dir) -> bool:
    """An MCEP or MOTTO run's plans re-made at the paper's density (:mod:`experiments.tools.model_paper`),
    for the report's diagnoses, in as many processes as the runner uses here; a kind without them, or a
    run that stored no cells, has none.  A failure is one line on stderr and False: the report is still
    drawn (without the diagnoses at the paper's density)."""
    import os
    import time

    from tqdm import tqdm

    from experiments.running.metadata import load_meta
    from experiments.running.paper_density import FILE as MODEL_PAPER_FILE
    from experiments.running.paper_density import paper_factor
    from experiments.tools.model_paper import compute, multi_kind

    meta = load_meta(out_dir)
    if multi_kind(meta) is None or not (out_dir / "results.parquet").exists():
        return True
    try:
        paper_factor(meta, out_dir / "metadata.json")
    except ConfigError as e:  # an experiment of one's own without the paper's events per window: nothing to scale to
        print(f"model-paper: {out_dir.name}: not computed: {e}", file=sys.stderr)
        return True
    runner = cfg.get("runner") or {}
    jobs = {"serial": 1, "joblib": int(runner.get("n_jobs") or 1)}.get(runner.get("name"), os.cpu_count() or 1)
    started = time.perf_counter()
    try:
        out = compute(out_dir, jobs=max(1, jobs), progress=lambda it: tqdm(it, desc="model-paper", unit="cell", file=sys.stderr,
                                                                         disable=not cfg.progress))
    except Exception as e:  # noqa: BLE001 - the run's cells are stored; the report is drawn without this step
        print(f"model-paper: {out_dir.name}: not computed: {type(e).__name__}: {e}", file=sys.stderr)
        return False
    print(f"{out_dir.name}: {out['cell_id'].nunique()} cells re-planned at the paper's density in {time.perf_counter() - started:.0f} s "
          f"({out_dir / MODEL_PAPER_FILE})", file=sys.stderr)
    return True


def _report(root, experiment: str) -> None:
    """Redraw the report of ``root`` and say where this experiment's figure and section are."""
    from experiments.reporting import SECTIONS, anchor, build_report

    if experiment not in SECTIONS:
        return
    out, sections = build_report(root)
    for s in sections:
        if s.experiment == experiment:
            for p in s.figures:
                if p.suffix == ".png":
                    print(f"{experiment}: figure {p}", file=sys.stderr)
            print(f"{experiment}: report section {out}#{anchor(s)}", file=sys.stderr)


def _estimate(configs, flags) -> int:
    """Print the estimate of every run (see :mod:`experiments.tools.estimate`)."""
    import json

    from experiments.tools.estimate import estimate_run
    from experiments.running.folders import results_root

    for cfg in configs:  # no runner: the sample is built here, each sampled cell run in a process of its own
        est = estimate_run(cfg, results_root(cfg) / cfg.exp.name, sample=flags.estimate_sample, seed=int(cfg.seed),
                           timeout_s=flags.estimate_timeout, budget_s=flags.estimate_budget)
        print(json.dumps(est.as_dict()) if flags.json else est.text())
    return 0

