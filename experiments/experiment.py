"""Dispatch a composed Hydra config to the experiment kind it names (``exp.kind``).

An experiment kind is a module under ``experiments.exps`` with ``run(cfg, out_dir) -> None``;
adding one is one module plus one line in :data:`EXPERIMENT_KINDS`.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from omegaconf import DictConfig

from cep.errors import ConfigError

EXPERIMENT_KINDS: dict[str, str] = {
    "stats": "experiments.exps.stats",
    "grid": "experiments.exps.grid",
}


def results_root(cfg: DictConfig) -> Path:
    from experiments.datasets import resolve_path

    return resolve_path(cfg.results_dir)


def run_experiment(cfg: DictConfig) -> None:
    if cfg.get("exp") is None:
        raise ConfigError("choose an experiment with +exp=<name>")
    kind = cfg.exp.get("kind")
    if kind not in EXPERIMENT_KINDS:
        raise ConfigError(f"experiment {cfg.exp.get('name')!r} has unknown kind {kind!r}; known: {', '.join(EXPERIMENT_KINDS)}")
    out_dir = results_root(cfg) / cfg.exp.name
    out_dir.mkdir(parents=True, exist_ok=True)
    importlib.import_module(EXPERIMENT_KINDS[kind]).run(cfg, out_dir)
