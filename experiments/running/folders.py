"""Where results go: a user's run writes to ``results_dir`` (default ``runs/``, ignored by git); the
committed reference reproduction in ``results/`` is written only with ``reference=true``, and only from
committed code, so that the commit its metadata records is the code that produced it."""

from __future__ import annotations

from pathlib import Path

from omegaconf import DictConfig

from cep.errors import ConfigError
from experiments.data.datasets import resolve_path
from experiments.running.metadata import uncommitted_changes

#: the committed reference reproduction (relative to the repository root)
REFERENCE_DIR = "results"
#: where a user's runs go by default (ignored by git)
RUNS_DIR = "runs"


def results_root(cfg: DictConfig) -> Path:
    """The folder a run writes under: ``results/`` with ``reference=true``, else ``results_dir``,
    which may not be the reference folder."""
    reference = resolve_path(REFERENCE_DIR)
    if cfg.get("reference"):
        if resolve_path(cfg.results_dir) not in (reference, resolve_path(RUNS_DIR)):
            raise ConfigError(f"reference=true writes the committed reproduction to {reference}; do not combine it with results_dir={cfg.results_dir}")
        require_committed_code()
        return reference
    root = resolve_path(cfg.results_dir)
    if root == reference or reference in root.parents:
        raise ConfigError(
            f"results_dir={cfg.results_dir} is the committed reference reproduction ({reference}); "
            "a run writes there only with reference=true"
        )
    return root


def require_committed_code() -> None:
    """Refuse a reference run on a tree whose code (anything tracked outside ``results/``) has uncommitted
    changes: a one-line ConfigError naming the first changed file."""
    changed = uncommitted_changes()
    if changed:
        raise ConfigError(f"reference=true runs committed code only; {len(changed)} tracked file(s) changed, e.g. "
                          f"{changed[0].strip()!r}: commit or stash them first")

