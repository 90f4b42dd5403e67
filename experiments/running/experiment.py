"""Dispatch a composed Hydra config to the experiment kind it names (``exp.kind``).

An experiment kind is a module under ``experiments.exps`` with ``run(cfg, out_dir) -> int`` (the
number of cells that failed); adding one is one module plus one line in :data:`EXPERIMENT_KINDS`.

Where results go: a user's run writes to ``results_dir`` (default ``runs/``, ignored by git); the
committed reference reproduction in ``results/`` is written only with ``reference=true``.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from omegaconf import DictConfig

from cep.errors import ConfigError

EXPERIMENT_KINDS: dict[str, str] = {
    "stats": "experiments.exps.stats",
    "grid": "experiments.exps.grid",
    "next": "experiments.exps.next_figs",
    "mcep": "experiments.exps.mcep_figs",
    "hamlet": "experiments.exps.hamlet_figs",
    "fig12": "experiments.exps.fig12",
    "motto": "experiments.exps.motto_figs",
}

#: the committed reference reproduction (relative to the repository root)
REFERENCE_DIR = "results"
#: where a user's runs go by default (ignored by git)
RUNS_DIR = "runs"


def results_root(cfg: DictConfig) -> Path:
    """The folder a run writes under: ``results/`` with ``reference=true``, else ``results_dir``,
    which may not be the reference folder."""
    from experiments.data.datasets import resolve_path

    reference = resolve_path(REFERENCE_DIR)
    if cfg.get("reference"):
        if resolve_path(cfg.results_dir) not in (reference, resolve_path(RUNS_DIR)):
            raise ConfigError(f"reference=true writes the committed reproduction to {reference}; do not combine it with results_dir={cfg.results_dir}")
        return reference
    root = resolve_path(cfg.results_dir)
    if root == reference or reference in root.parents:
        raise ConfigError(
            f"results_dir={cfg.results_dir} is the committed reference reproduction ({reference}); "
            "a run writes there only with reference=true"
        )
    return root


def run_experiment(cfg: DictConfig) -> int:
    """Run the experiment of ``cfg``; returns the number of cells that failed."""
    if cfg.get("exp") is None:
        raise ConfigError("choose an experiment with +exp=<name>")
    kind = cfg.exp.get("kind")
    if kind not in EXPERIMENT_KINDS:
        raise ConfigError(f"experiment {cfg.exp.get('name')!r} has unknown kind {kind!r}; known: {', '.join(EXPERIMENT_KINDS)}")
    root = results_root(cfg)
    out_dir = root / cfg.exp.name
    out_dir.mkdir(parents=True, exist_ok=True)
    failed = int(importlib.import_module(EXPERIMENT_KINDS[kind]).run(cfg, out_dir) or 0)
    _report(root, cfg.exp.name)
    return failed


def _report(root: Path, experiment: str) -> None:
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
