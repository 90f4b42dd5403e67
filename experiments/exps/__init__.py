"""The experiment kinds: one module per kind (``experiments/exps/<module>.py``), each with
``run(cfg, out_dir) -> int`` (the number of cells that failed) and ``run_cell(spec) -> rows`` (the one cell
pipeline, :mod:`experiments.running.cells`, with the kind's :class:`~experiments.running.cells.CellKind`).
Adding a kind is one module plus one line in :data:`EXPERIMENT_KINDS`; a composed Hydra config names its
kind in ``exp.kind``.
"""

from __future__ import annotations

import importlib

from omegaconf import DictConfig

from cep.errors import ConfigError

EXPERIMENT_KINDS: dict[str, str] = {
    "stats": "experiments.exps.stats",
    "grid": "experiments.exps.jqpg",
    "next": "experiments.exps.next",
    "mcep": "experiments.exps.mcep",
    "hamlet": "experiments.exps.hamlet",
    "fig12": "experiments.exps.fig12",
    "motto": "experiments.exps.motto",
}


def kind_module(kind: str):
    """The module of an experiment kind; an unknown kind is a one-line ConfigError."""
    if kind not in EXPERIMENT_KINDS:
        raise ConfigError(f"unknown experiment kind {kind!r}; known: {', '.join(EXPERIMENT_KINDS)}")
    return importlib.import_module(EXPERIMENT_KINDS[kind])


def run_experiment(cfg: DictConfig) -> int:
    """Run the experiment of ``cfg`` into ``<results root>/<exp name>/``; returns the number of cells
    that failed."""
    from experiments.running.folders import results_root

    if cfg.get("exp") is None:
        raise ConfigError("choose an experiment with +exp=<name>")
    kind = cfg.exp.get("kind")
    if kind not in EXPERIMENT_KINDS:
        raise ConfigError(f"experiment {cfg.exp.get('name')!r} has unknown kind {kind!r}; known: {', '.join(EXPERIMENT_KINDS)}")
    out_dir = results_root(cfg) / cfg.exp.name
    out_dir.mkdir(parents=True, exist_ok=True)
    return int(kind_module(kind).run(cfg, out_dir) or 0)
