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
    "grid": "experiments.exps.grid",
    "next": "experiments.exps.next_figs",
    "mcep": "experiments.exps.mcep_figs",
    "hamlet": "experiments.exps.hamlet_figs",
    "fig12": "experiments.exps.fig12",
    "motto": "experiments.exps.motto_figs",
}


def kind_module(kind: str):
    """The module of an experiment kind; an unknown kind is a one-line ConfigError."""
    if kind not in EXPERIMENT_KINDS:
        raise ConfigError(f"unknown experiment kind {kind!r}; known: {', '.join(EXPERIMENT_KINDS)}")
    return importlib.import_module(EXPERIMENT_KINDS[kind])


def extra_planners(cfg: DictConfig, *, multi: bool) -> list[str]:
    """The methods of the override ``+extra_planners=[NAME, ...]``, added to every cell of the experiment
    beside the configured ones (README, "Benchmark your own planner"): single-pattern planners in the
    JQPG figures, multi-pattern optimizers or single-pattern planners in the MCEP and MOTTO figures.
    Each is a built-in name, an entry point or ``module:Class`` (:mod:`algorithms.plugins`); one that
    resolves to nothing or to a method of the wrong kind is a one-line PlanError before any work."""
    from algorithms.multi.registry import method_kind

    names = cfg.get("extra_planners") or []
    names = [names] if isinstance(names, str) else [str(n) for n in names]
    for name in names:
        kind = method_kind(name)
        if kind == "multi" and not multi:
            raise ConfigError(f"extra_planners: {name!r} is a multi-pattern optimizer; experiment {cfg.exp.name} "
                              "plans single patterns (use it in the MCEP or MOTTO figures)")
    return list(dict.fromkeys(names))


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
