"""Named datasets: the files of ``configs/dataset/*.yaml``, resolved against the repository root.

The dataset config group is the one registry of dataset names: ``--dataset nasdaq`` on the command
line and ``dataset=nasdaq`` in Hydra both mean ``configs/dataset/nasdaq.yaml``.  Anything that is not
a dataset name is taken as a path to an events file.

Which data an experiment runs on (:func:`experiment_datasets`) is chosen one way: by default the
experiment's own ``exp.datasets``; ``dataset=<name>`` runs it on that dataset alone, and
``dataset=<name> dataset.path=<file>`` on another file with that dataset's settings.  A dataset's
``family`` (``nasdaq`` or ``traffic``) names the per-family settings of the scale (window, type
pool, replay) that apply to it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Mapping

from omegaconf import OmegaConf

from cep.errors import ConfigError, StreamError
from cep.columnar import EventColumns
from experiments.data.readers import ReadReport, read_events

REPO_ROOT = Path(__file__).resolve().parents[2]
CONFIG_DIR = REPO_ROOT / "configs"
DATASET_DIR = CONFIG_DIR / "dataset"


def dataset_names() -> list[str]:
    return sorted(p.stem for p in DATASET_DIR.glob("*.yaml"))


def dataset_config(name: str) -> Mapping:
    path = DATASET_DIR / f"{name}.yaml"
    if not path.exists():
        raise ConfigError(f"unknown dataset {name!r}; known: {', '.join(dataset_names())} (or give a path)")
    return OmegaConf.to_container(OmegaConf.load(path), resolve=True)


def dataset_family(d: Mapping) -> str:
    """The settings family of a dataset config (its own name when it names none)."""
    return str(d.get("family") or d["name"])


def require_events_file(d: Mapping) -> Path:
    """The events file of a dataset config; a one-line ConfigError naming the dataset, the path and
    how to change it when the file is missing."""
    path = resolve_path(d["path"])
    if not path.is_file():
        hint = (
            "set CEP_DATA to the folder that holds nasdaq/ and traffic/, or point dataset.path=<file> at a copy"
            if (DATASET_DIR / f"{d['name']}.yaml").exists() and "CEP_DATA" in (DATASET_DIR / f"{d['name']}.yaml").read_text()
            else "check dataset.path"
        )
        raise ConfigError(f"dataset {d['name']!r}: no events file at {path} ({hint})")
    return path


def experiment_datasets(cfg) -> list[dict]:
    """The datasets an experiment runs on, each a dataset config (name, family, path, format), with
    its events file checked: ``dataset=<name>`` (and ``dataset.path``) when given, else ``exp.datasets``."""
    if cfg.get("dataset") is not None:
        chosen = [OmegaConf.to_container(cfg.dataset, resolve=True)]
    else:
        chosen = [dict(dataset_config(n)) for n in (cfg.exp.get("datasets") or [])]
    if not chosen:
        raise ConfigError(f"experiment {cfg.exp.name!r} names no dataset; choose one with dataset=<name> ({', '.join(dataset_names())})")
    for d in chosen:
        require_events_file(d)
    return chosen


def resolve_path(path: str | os.PathLike) -> Path:
    """A path from a config: absolute as given, relative to the repository root otherwise."""
    p = Path(os.path.expanduser(str(path)))
    return p if p.is_absolute() else (REPO_ROOT / p).resolve()


def dataset_path(spec: str | Mapping) -> Path:
    """The events file of a dataset name, a dataset config mapping, or a path."""
    if isinstance(spec, Mapping):
        return resolve_path(spec["path"])
    if (DATASET_DIR / f"{spec}.yaml").exists():
        return resolve_path(dataset_config(spec)["path"])
    p = Path(spec)
    if p.exists() or p.suffix or os.sep in str(spec):
        return p
    raise ConfigError(f"unknown dataset {spec!r}; known: {', '.join(dataset_names())} (or give a path to an events file)")


def load_dataset(
    spec: str | Mapping,
    *,
    types: Iterable[str] | None = None,
    start: float | None = None,
    end: float | None = None,
    skip_bad_rows: bool = False,
    report: ReadReport | None = None,
) -> EventColumns:
    """Read a dataset (name, config mapping or path) into columns, optionally filtered."""
    fmt = "auto"
    if isinstance(spec, Mapping):
        fmt = spec.get("format", "auto") or "auto"
    elif (DATASET_DIR / f"{spec}.yaml").exists():
        fmt = dataset_config(spec).get("format", "auto") or "auto"
    path = dataset_path(spec)
    if not path.exists():
        raise StreamError(f"{path}: no such events file (dataset {spec if isinstance(spec, str) else spec.get('name')!r})")
    return read_events(path, format=fmt, types=types, start=start, end=end, skip_bad_rows=skip_bad_rows, report=report)
