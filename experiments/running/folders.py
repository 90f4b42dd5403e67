"""Where results go: a user's run writes to ``results_dir`` (default ``runs/``, ignored by git); the
committed reference reproduction in ``results/`` is written only with ``reference=true``, and only from
committed code, so that the commit its metadata records is the code that produced it."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from omegaconf import DictConfig, OmegaConf

from cep.errors import ConfigError
from experiments.data.datasets import resolve_path
from experiments.running.lock import LOCK_NAME
from experiments.running.metadata import CODE_DIRS, configuration, first_difference, load_meta, uncommitted_changes, untracked_code
from experiments.running.store import ResultStore

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
        if cfg.get("extra_planners"):
            raise ConfigError(f"reference=true runs the repository's own methods only; +extra_planners={list(cfg.extra_planners)} "
                              "loads code from outside it: run it into runs/ (or another results_dir) instead")
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
    changes, or with files under the package directories that git does not track: a one-line ConfigError
    naming the first such file."""
    changed = uncommitted_changes()
    if changed:
        raise ConfigError(f"reference=true runs committed code only; {len(changed)} tracked file(s) changed, e.g. "
                          f"{changed[0].strip()!r}: commit or stash them first")
    untracked = untracked_code()
    if untracked:
        raise ConfigError(f"reference=true runs committed code only; {len(untracked)} file(s) under {', '.join(CODE_DIRS)} "
                          f"are not tracked by git, e.g. {untracked[0]!r}: commit or remove them first")


def claim_folder(cfg: DictConfig, out_dir: Path, *, replace: bool = False) -> None:
    """Before a run into ``out_dir`` (holding its lock): a folder whose stored cells ran under another
    configuration (``metadata.json``'s config, all but how and where cells run) is refused with
    ``reference=true`` -- the reference keeps one configuration per folder, its metadata describing the
    whole table -- and emptied with ``replace`` (``run --replace``); another folder keeps them, and the run
    warns (:mod:`experiments.running.execution`)."""
    store = ResultStore(out_dir)
    if not (store.table_path.exists() or store.has_cells() or store.parts.exists()):
        return
    stored = load_meta(out_dir).get("config")
    here = OmegaConf.to_container(cfg, resolve=True)
    diff = first_difference(configuration(stored), configuration(here)) if stored is not None else ("metadata.json", "missing", "")
    if diff is None:
        return
    key, there, ours = diff
    if replace:
        print(f"{cfg.exp.name}: --replace: removing the cells of another configuration stored in {out_dir} "
              f"({key}: {there!r} there, {ours!r} here)", file=sys.stderr)
        for p in out_dir.iterdir():
            if p.name == LOCK_NAME:
                continue
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p)
            else:
                p.unlink()
        return
    if cfg.get("reference"):
        raise ConfigError(f"{out_dir} holds the cells of another configuration ({key}: {there!r} there, {ours!r} here); "
                          "reference=true keeps one configuration per folder: pass --replace to replace them")

