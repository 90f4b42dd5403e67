"""Run metadata: what produced a results folder (config, seed, code version, packages, machine)."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import time
from datetime import datetime, timezone
from importlib import metadata as importlib_metadata
from pathlib import Path

from cep.errors import StoreError
from cep.io_utils import atomic_write_text
from experiments.data.datasets import REPO_ROOT, resolve_path
from experiments.running.store import DAMAGED

PACKAGES = ("pyspark", "hydra-core", "pandas", "pyarrow", "numpy", "matplotlib", "seaborn", "joblib", "lark", "tqdm")


#: what is not code: committed results change with every reference run and say nothing of the code
_NOT_CODE = (":(exclude)results",)


def uncommitted_changes() -> list[str]:
    """The tracked files outside ``results/`` with uncommitted changes (``git status --porcelain``
    lines); empty outside git."""
    try:
        out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".", *_NOT_CODE],
                             cwd=REPO_ROOT, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [line for line in out.stdout.splitlines() if line.strip()] if out.returncode == 0 else []


#: the package directories whose files are the code a run runs (and configs/, what it is configured with)
CODE_DIRS = ("cep", "algorithms", "evaluators", "experiments", "configs")


def untracked_code() -> list[str]:
    """The files under :data:`CODE_DIRS` that git does not track (and does not ignore): code a run may
    import that no commit holds.  Empty outside git."""
    try:
        out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "--", *CODE_DIRS],
                             cwd=REPO_ROOT, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [line[3:] for line in out.stdout.splitlines() if line.startswith("?? ")] if out.returncode == 0 else []


#: keys of a run's config that do not change what its cells are (how and where they run)
NOT_CONFIGURATION = ("runner", "progress", "report", "model_paper", "results_dir", "reference")


def configuration(config: dict) -> dict:
    """What of a run's resolved config decides its cells: all but :data:`NOT_CONFIGURATION`."""
    return {k: v for k, v in (config or {}).items() if k not in NOT_CONFIGURATION}


def first_difference(a, b, at: str = "") -> tuple[str, object, object] | None:
    """The first dotted key (in key order) where two configs differ, with its two values; None if equal."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            d = first_difference(a.get(k), b.get(k), f"{at}.{k}" if at else str(k))
            if d is not None:
                return d
        return None
    return None if a == b else (at, a, b)


#: what ``legs`` keeps of each earlier leg of a resumed run
LEG_KEYS = ("start_time", "end_time", "duration_s", "git_commit", "runner", "cells_run", "cells_failed")


def git_commit() -> str | None:
    """The checked-out commit, with "-dirty" if tracked code files (outside ``results/``) are modified;
    None outside git."""
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if sha.returncode != 0:
        return None
    return sha.stdout.strip() + ("-dirty" if uncommitted_changes() else "")


def package_versions() -> dict[str, str | None]:
    out = {}
    for p in PACKAGES:
        try:
            out[p] = importlib_metadata.version(p)
        except importlib_metadata.PackageNotFoundError:
            out[p] = None
    return out


def numpy_simd() -> list[str] | None:
    """The SIMD extensions numpy dispatches its kernels to on this CPU (as ``numpy.show_runtime`` lists
    them under ``found``).  Exact cost ties can break differently between levels (``X86_V3`` against
    ``X86_V4``, AVX-512): see :mod:`experiments.tools.verify`."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:
        return None
    return [f for f in __cpu_dispatch__ if __cpu_features__.get(f)]


def machine() -> dict:
    return {
        "hostname": platform.node(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "numpy_simd": numpy_simd(),
    }


def file_facts(dcfg) -> dict:
    """What data ran: the dataset's name, its file, the file's size and SHA-256."""
    path = resolve_path(dcfg["path"])
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return {"dataset": dcfg["name"], "path": str(path), "bytes": path.stat().st_size, "sha256": h.hexdigest()}


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class RunMetadata:
    """Collects the metadata of a run and writes ``metadata.json`` atomically (at start and end)."""

    def __init__(self, path: Path, config: dict, **extra) -> None:
        self.path = Path(path)
        self._t0 = time.time()
        self.data = {
            "config": config,
            "seed": config.get("seed"),
            "git_commit": git_commit(),
            "packages": package_versions(),
            "machine": machine(),
            "start_time": now_iso(),
            "end_time": None,
            **extra,
        }
        # a run resumed in a folder its configuration ran in before: the folder's table is every leg's
        earlier = load_meta(self.path.parent)
        if earlier and first_difference(configuration(earlier.get("config")), configuration(config)) is None:
            self.data["legs"] = [*earlier.get("legs", []), {k: earlier.get(k) for k in LEG_KEYS}]

    def update(self, **kw) -> None:
        self.data.update(kw)

    def write(self) -> None:
        atomic_write_text(self.path, json.dumps(self.data, indent=2, sort_keys=True, default=str) + "\n")

    def finish(self, **kw) -> None:
        self.data.update(kw)
        self.data["end_time"] = now_iso()
        self.data["duration_s"] = round(time.time() - self._t0, 3)
        self.write()


def load_meta(exp_dir: Path) -> dict:
    """The ``metadata.json`` of a results folder (empty if it has none); a damaged one is a one-line
    :class:`StoreError` naming it."""
    p = Path(exp_dir) / "metadata.json"
    if not p.exists():
        return {}
    try:
        meta = json.loads(p.read_text())
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise StoreError(f"{p}: not a readable metadata file ({' '.join(str(e).split())}); {DAMAGED}") from None
    if not isinstance(meta, dict):
        raise StoreError(f"{p}: holds a JSON {type(meta).__name__}, not the object a run writes; {DAMAGED}")
    return meta
