"""The multi-pattern plans at the paper's density: what MCEP's and MOTTO's own cost models predict there
for the same workloads (issue [4 of 6], item 6(b); MCEP Section 3.3 and Appendix C, Cost^multi; MOTTO
Section IV, Cost_tree^multi, costed the same way).

A multi-pattern cell stores the parameters and seed its workload is drawn with, not the workload, and its
global plans only as digests, so the report cannot re-plan them.  This step does it once per results
folder, after the run: every cell of a static global plan on time windows (:data:`EXCLUDED_SWEEPS` says which
are not) is rebuilt as the run built it -- the replayed stream, the seeded workload, the statistics
estimated on the stream -- and each of its methods plans the workload again with every arrival rate
scaled by the paper's events per window over the run's (the selectivities kept; the factor of
``exp.scales``), with the same budget as in the run (the same evaluated neighbours; a time-limited
search's recorded neighbours replayed).  The rows of :data:`FILE` hold, per cell and method,
the plan's digest, its cost and the trivial plan's cost at that density, and whether the rebuilt trivial
plan of the plan's kind costs at the run's density what the run stored (``rebuilt``: the workload and
statistics are the run's).

A search bounded by seconds only (MOTTO's exact Steiner search within ``budget_s``: SH-MDT, MST and Figure
14a's ``exact``) depends on the machine at the paper's density as it did in the run; the rows say which
methods those are (``timed``).
"""

from __future__ import annotations

import gzip
import json
import math
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from algorithms.multi.registry import trivial_cost
from cep.errors import ConfigError
from cep.statistics import Statistics
from experiments.exps import kind_module
from experiments.running.paper_density import COLUMNS, EXCLUDED_SWEEPS, FILE, paper_factor
from experiments.running.settings import RENAMED_KINDS

def scaled(stats, factor: float):
    """``stats`` (one :class:`Statistics` or one per pattern) with every rate times ``factor``."""
    one = lambda s: Statistics({t: r * factor for t, r in s.rates.items()}, s.selectivities, s.source)  # noqa: E731
    return [one(s) for s in stats] if isinstance(stats, (list, tuple)) else one(stats)


def multi_kind(meta: Mapping) -> str | None:
    """The multi-pattern kind of a results folder's run (``mcep`` or ``motto``), else None."""
    kind = ((meta.get("config") or {}).get("exp") or {}).get("kind")
    kind = RENAMED_KINDS.get(kind, kind)
    return kind if kind in EXCLUDED_SWEEPS else None


def cell_specs(root: Path, kind: str) -> list[dict]:
    """The stored specifications (``cells.jsonl.gz``) of the folder's static global-plan cells."""
    path = root / "cells.jsonl.gz"
    if not path.exists():
        raise ConfigError(f"{path}: missing (the run stores its cell specifications there)")
    with gzip.open(path, "rt") as fh:
        return [s for s in map(json.loads, fh) if s.get("x_name") not in EXCLUDED_SWEEPS[kind]]


def cell_rows(spec: Mapping, kind: str, factor: float, stored: Mapping[str, Mapping]) -> list[dict]:
    """One cell's rows (module docstring).  ``stored``: per method, the run's row ``params`` (a
    time-limited search's recorded neighbours), its ``plan_cost`` and the trivial plan's (``trivial_cost``)."""
    cell = kind_module(kind).cell_kind(spec)
    _, patterns, stats = cell.inputs(spec)
    params = next((r["params"] for r in stored.values() if r.get("params")), None)
    at = {**spec, "params": json.loads(params)} if params else spec
    with np.errstate(over="ignore"):
        planned = cell.plan(at, patterns, scaled(stats, factor))
    rows = []
    for alg, p in planned.items():
        rows.append(dict(zip(COLUMNS, (spec["cell_id"], alg, factor, p.digest, _finite(p.metrics.get("plan_cost")),
                                       _finite(p.metrics.get("trivial_cost")), _rebuilt(cell, spec, patterns, stats, alg, p, stored),
                                       alg in TIMED))))
    return rows


def _finite(x) -> float:
    """A cost as stored: NaN for none or one past the floats' range (a verdict leaves it out)."""
    return float(x) if x is not None and math.isfinite(x) else math.nan


#: the methods whose plan comes from MOTTO's exact Steiner search within a budget of seconds (SH-MDT and MST in
#: MCEP's and MOTTO's cells, Figure 14a's ``exact``): on a busy machine it may stop at another incumbent
TIMED = ("SH-MDT", "MST", "exact")


def _rebuilt(cell, spec: Mapping, patterns, stats, alg: str, planned, stored: Mapping[str, Mapping]) -> bool:
    """Whether the rebuilt workload and statistics are the run's: the trivial global plan of the plan's kind
    costs what the run stored beside it; in a cell that stored no trivial cost (MOTTO's Figure 14a), NA's
    plan re-made at the run's density costs what the run stored for it."""
    was = (stored.get(alg) or {}).get("trivial_cost")
    if was is not None and hasattr(planned.plan, "kind"):
        own = trivial_cost(patterns, stats, planned.plan.kind)
    else:
        was = (stored.get("NA") or {}).get("plan_cost")
        own = cell.plan_one(spec, patterns, stats, "NA").metrics.get("plan_cost") if was is not None else None
    return bool(own is not None and was is not None and math.isclose(own, was, rel_tol=1e-9))


def stored_rows(table: pd.DataFrame) -> dict[str, dict[str, dict]]:
    """Per cell and method, the run's row ``params``, ``plan_cost`` and ``trivial_cost`` (:func:`cell_rows`'s ``stored``)."""
    out: dict[str, dict[str, dict]] = {}
    costs = {m: table[table["metric"] == m].set_index(["cell_id", "algorithm"])["value"].to_dict() for m in ("plan_cost", "trivial_cost")}
    for (cid, alg), params in table.groupby(["cell_id", "algorithm"])["params"].first().items():
        out.setdefault(cid, {})[alg] = {"params": params, **{m: c.get((cid, alg)) for m, c in costs.items()}}
    return out


def compute(root: Path, *, jobs: int = 1, progress: Callable | None = None, factor: float | None = None,
            sample: int | None = None, seed: int = 0, write: bool = True) -> pd.DataFrame:
    """The rows of :data:`FILE` for the results folder ``root`` (every static global-plan
    cell, ``jobs`` processes), written there (``write``); ``progress`` wraps the iterable of cells (a
    progress bar).  ``factor`` replaces the paper's (1: the run's own density, where every re-made plan is
    the stored one) and ``sample`` takes that many cells at random (``seed``), both for checks: a folder's
    file is always every cell at the paper's density."""
    import contextlib
    import io
    import random

    from joblib import Parallel, delayed

    from cep.io_utils import atomic_write_bytes
    from experiments.running.folders import require_committed_code
    from experiments.running.lock import folder_lock

    if write and (factor is not None or sample is not None):
        raise ConfigError("model-paper writes a folder's file only for every cell at the paper's density (no factor, no sample)")
    meta_path, table_path = root / "metadata.json", root / "results.parquet"
    if not meta_path.exists() or not table_path.exists():
        raise ConfigError(f"{root}: no metadata.json and results.parquet of a run")
    meta = json.loads(meta_path.read_text())
    kind = multi_kind(meta)
    if kind is None:
        raise ConfigError(f"{root}: not an MCEP or MOTTO run (exp.kind {((meta.get('config') or {}).get('exp') or {}).get('kind')!r})")
    factor = paper_factor(meta, meta_path) if factor is None else float(factor)
    if write and (meta.get("config") or {}).get("reference"):
        require_committed_code()  # the committed reference's file comes from committed code, as its cells do
    with folder_lock(root, "model-paper") if write else contextlib.nullcontext():
        stored = stored_rows(pd.read_parquet(table_path, columns=["cell_id", "algorithm", "metric", "value", "params"]))
        specs = [s for s in cell_specs(root, kind) if s["cell_id"] in stored]
        if sample is not None:
            specs = random.Random(seed).sample(specs, min(sample, len(specs)))
        wrap = progress or (lambda it: it)
        parts = Parallel(n_jobs=jobs, return_as="generator")(delayed(cell_rows)(s, kind, factor, stored[s["cell_id"]]) for s in specs)
        out = pd.DataFrame([r for part in wrap(parts) for r in part], columns=COLUMNS)
        if write:
            buf = io.BytesIO()
            out.to_parquet(buf, index=False)
            atomic_write_bytes(root / FILE, buf.getvalue())
    return out
