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
    which may not be the reference folder nor inside it -- compared after resolving symbolic links, so
    that a link to ``results/`` is the reference folder too -- nor a file."""
    reference = resolve_path(REFERENCE_DIR).resolve()
    if cfg.get("reference"):
        if resolve_path(cfg.results_dir).resolve() not in (reference, resolve_path(RUNS_DIR).resolve()):
            raise ConfigError(f"reference=true writes the committed reproduction to {reference}; do not combine it with results_dir={cfg.results_dir}")
        require_committed_code()
        return reference
    given = resolve_path(cfg.results_dir)
    root = given.resolve()
    if root == reference or reference in root.parents:
        via = f" (through a symbolic link: {given} is {root})" if given != root else ""
        raise ConfigError(
            f"results_dir={cfg.results_dir} is the committed reference reproduction ({reference}){via}; "
            "a run writes there only with reference=true"
        )
    existing = next(p for p in (root, *root.parents) if p.exists())
    if not existing.is_dir():
        raise ConfigError(f"results_dir={cfg.results_dir} is not a folder: {existing} is a file")
    return root


def require_committed_code() -> None:
    """Refuse a reference run on a tree whose code (anything tracked outside ``results/``) has uncommitted
    changes: a one-line ConfigError naming the first changed file."""
    changed = uncommitted_changes()
    if changed:
        raise ConfigError(f"reference=true runs committed code only; {len(changed)} tracked file(s) changed, e.g. "
                          f"{changed[0].strip()!r}: commit or stash them first")

