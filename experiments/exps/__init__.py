"""The experiment kinds, one per paper: one module per kind (``experiments/exps/<paper>.py``), each with
``SETTINGS`` (the per-scale keys it reads, :mod:`experiments.running.settings`), ``specs(cfg, out_dir,
spark=None)`` (every cell specification of a run), ``run(cfg, out_dir) -> int`` (the number of cells that
failed) and ``run_cell(spec) -> rows`` (the one cell pipeline, :mod:`experiments.running.cells`, with the
kind's :class:`~experiments.running.cells.CellKind`).  What several kinds build their cells with is in
:mod:`experiments.exps.kit`.  Adding a kind is one module plus one line in :data:`EXPERIMENT_KINDS`; a
composed Hydra config names its kind in ``exp.kind``.

Kinds are imported when a run names them (:func:`kind_module`): a command that runs one kind does not
import the others' planners and evaluators.
"""

from __future__ import annotations

import importlib

from omegaconf import DictConfig

from cep.errors import ConfigError
from experiments.running.folders import claim_folder, results_root
from experiments.running.lock import folder_lock
from experiments.running.settings import RENAMED_KINDS, Keys, resolve

EXPERIMENT_KINDS: dict[str, str] = {
    "stats": "experiments.exps.stats",
    "jqpg": "experiments.exps.jqpg",
    "mcep": "experiments.exps.mcep",
    "motto": "experiments.exps.motto",
    "hamlet": "experiments.exps.hamlet",
    "next": "experiments.exps.next",
    "map": "experiments.exps.maps",
}


def kind_module(kind: str):
    """The module of an experiment kind (also by the name results stored before the kinds were named by
    paper ran under); an unknown kind is a one-line ConfigError."""
    kind = RENAMED_KINDS.get(kind, kind)
    if kind not in EXPERIMENT_KINDS:
        raise ConfigError(f"unknown experiment kind {kind!r}; known: {', '.join(EXPERIMENT_KINDS)}")
    return importlib.import_module(EXPERIMENT_KINDS[kind])


def run_experiment(cfg: DictConfig, *, replace: bool = False) -> int:
    """Run the experiment of ``cfg`` into ``<results root>/<exp name>/``; returns the number of cells
    that failed.  ``replace``: empty the folder first if it holds another configuration's cells
    (:func:`experiments.running.folders.claim_folder`)."""
    if cfg.get("exp") is None:
        raise ConfigError("choose an experiment with +exp=<name>")
    kind = cfg.exp.get("kind")
    if kind not in EXPERIMENT_KINDS:
        raise ConfigError(f"experiment {cfg.exp.get('name')!r} has unknown kind {kind!r}; known: {', '.join(EXPERIMENT_KINDS)}")
    out_dir = results_root(cfg) / cfg.exp.name
    with folder_lock(out_dir):  # one run at a time in a folder; a second is one line naming the first
        claim_folder(cfg, out_dir, replace=replace)
        return int(kind_module(kind).run(cfg, out_dir) or 0)


def settings_keys(cfg: DictConfig) -> Keys | None:
    """The per-scale keys the experiment's kind reads (a NEXT figure's own); None for a kind without them."""
    keys = getattr(kind_module(cfg.exp.kind), "SETTINGS", None)
    return keys[cfg.exp.figure] if isinstance(keys, dict) else keys


def resolved_settings(cfg: DictConfig) -> dict:
    """The experiment's per-scale settings at the chosen scale, as its kind resolves them."""
    return resolve(cfg, settings_keys(cfg))
