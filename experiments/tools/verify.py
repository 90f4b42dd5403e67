"""Reproducibility check: re-run a seeded sample of committed cells and compare with the table.

The plan and the status must be identical, and so must every deterministic metric of the registry
(:data:`cep.metrics.DETERMINISTIC`: costs to 1e-9 relative, counts of events, matches, partial
matches and buffered events, the metered bytes of the state, ...).  Measured metrics (throughput,
latency, plan time, neighbours evaluated per second, ...) depend on the machine and its load: they are shown side by side
with their ratio, and never fail the check.  A deterministic metric the committed rows do not have at
all (added to the registry after they were stored, such as ``latency_work_mean``) is shown as new and
does not fail the check; one the committed rows have must be identical on the re-run.

A plan that differs from the committed one while its cost (``plan_cost``) and every other deterministic
metric of the cell are identical is an exact cost tie broken the other way, shown as such and not failed
(:data:`TIE`).  Costs are sums and products of floats, and numpy dispatches its kernels to the CPU's SIMD
level: on an AVX-512 machine (``X86_V4``) and an AVX2 one (``X86_V3``) two plans of equal cost can differ
by a rounding unit in the other direction, so a planner or a search takes the other one of them
(``numpy_simd`` in a run's ``metadata.json`` says which level it ran on; ``NPY_DISABLE_CPU_FEATURES``
lowers it).  A different plan whose cost or counts differ, or a cell with no plan cost, still fails.

Time-limited searches (``mcep_fig11``'s search-time sweep) stop wherever the clock says, so they
cannot be re-run as such.  Their cells record the neighbours each component's search evaluated
(``search_replay_neighbours`` in the rows' ``params``, :mod:`experiments.exps.mcep`); verify re-runs
such a cell on exactly those neighbours and no clock (:func:`replay_spec`), and its plan, costs,
counts and ``neighbours_evaluated`` must then be identical like any other cell's.

An MCEP or MOTTO cell's plans re-made at the paper's density (``model_paper.parquet``,
:mod:`experiments.tools.model_paper`) are re-made again and compared the same way (``model_paper:``
before the column): the same methods, each rebuilt from the run's own workload and statistics, digests
identical, costs to 1e-9 relative; a plan that MOTTO's exact Steiner search made within its seconds
(``timed``) is shown, not failed.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from cep.errors import StoreError
from cep.metrics import DETERMINISTIC, MEASURED
from experiments.exps import kind_module
from experiments.running.paper_density import FILE as MODEL_PAPER_FILE
from experiments.running.paper_density import PLAN as MODEL_PAPER_PLAN
from experiments.running.paper_density import PLAN_COST as MODEL_PAPER_PLAN_COST
from experiments.running.paper_density import TRIVIAL_COST as MODEL_PAPER_TRIVIAL_COST
from experiments.running.metadata import load_meta
from experiments.running.store import DAMAGED, ResultStore
from experiments.tools.model_paper import cell_rows, multi_kind, stored_rows
from experiments.tools.tables import text_table

SHOWN = "shown only"
NEW = "new metric: not in the committed rows"
TIE = "identical, or an equal-cost tie"


@dataclass
class Difference:
    experiment: str
    cell_id: str
    pattern_id: str
    algorithm: str
    metric: str
    committed: object
    rerun: object
    ok: bool
    rule: str


def _close(a: float, b: float) -> bool:
    if a is None or b is None or (isinstance(a, float) and math.isnan(a)) or (isinstance(b, float) and math.isnan(b)):
        return (a is None or (isinstance(a, float) and math.isnan(a))) and (b is None or (isinstance(b, float) and math.isnan(b)))
    return a == b or abs(a - b) <= 1e-9 * max(abs(a), abs(b))


def cell_function(exp_dir: Path):
    """The cell function of the experiment kind that produced ``exp_dir`` (from its metadata; a folder whose
    metadata.json is missing or names no kind is a one-line StoreError naming the file)."""
    meta = load_meta(exp_dir)
    kind = ((meta.get("config") or {}).get("exp") or {}).get("kind")
    if kind is None:
        what = "names no experiment kind (config.exp.kind)" if meta else "is missing"
        raise StoreError(f"{Path(exp_dir) / 'metadata.json'}: {what}, so verify cannot tell how to re-run the cells; {DAMAGED}")
    return kind_module(kind).run_cell


def replay_spec(spec: dict, committed: pd.DataFrame) -> dict:
    """The cell's specification to re-run: with the recorded neighbours of a time-limited search
    (``search_replay_neighbours`` in the committed rows' params) when it has one."""
    for text in committed["params"].dropna().unique():
        replay = json.loads(text).get("search_replay_neighbours")
        if replay is not None:
            return {**spec, "params": {**spec["params"], "search_replay_neighbours": replay}}
    return spec


def pick_cells(cells: dict[str, dict], ids: list[str], sample: int, seed: int, max_cell_s: float | None = None) -> list[str]:
    """A seeded sample of ``sample`` of the stored cells ``ids``; with ``max_cell_s`` only among the cells whose
    run took at most that many seconds (``_cell_s`` of their stored specification; a cell stored without it
    counts as cheap), and when no cell is that cheap, the one cheapest cell, so that every experiment is
    checked (what keeps CI's verify as fast on a reference of scale=standard cells as on quick ones)."""
    if max_cell_s is not None:
        cost = {i: float(cells[i].get("_cell_s", 0.0)) for i in ids}
        ids = [i for i in ids if cost[i] <= max_cell_s] or sorted(ids, key=lambda i: (cost[i], i))[:1]
    return random.Random(seed).sample(ids, min(sample, len(ids)))


@dataclass
class Sampled:
    """A stored cell picked for re-running: its specification (as re-run), its committed rows, the run
    time stored with it (``_cell_s``: what the re-run is expected to take) and, for a cell whose plans
    were re-made at the paper's density, its stored planning time (about what re-making them again takes)."""

    exp_dir: Path
    cell_id: str
    spec: dict
    committed: pd.DataFrame
    stored_s: float
    replan_s: float = 0.0


def sample_experiment(exp_dir: Path, sample: int, seed: int, max_cell_s: float | None = None) -> list[Sampled]:
    """The cells of ``exp_dir`` that :func:`pick_cells` picks, ready to re-run."""
    store = ResultStore(exp_dir)
    table = store.load()
    cells = store.load_cells()
    if table.empty or not cells:
        return []
    picked = pick_cells(cells, sorted(set(table["cell_id"]) & set(cells)), sample, seed, max_cell_s)
    remade = set(pd.read_parquet(Path(exp_dir) / MODEL_PAPER_FILE, columns=["cell_id"])["cell_id"]) \
        if (Path(exp_dir) / MODEL_PAPER_FILE).exists() else set()
    out = []
    for cid in picked:
        committed = table[table["cell_id"] == cid]
        replan = float(committed.loc[committed["metric"] == "plan_time_s", "value"].sum()) if cid in remade else 0.0
        out.append(Sampled(Path(exp_dir), cid, replay_spec(cells[cid], committed), committed, float(cells[cid].get("_cell_s", 0.0)),
                           replan))
    return out


def verify_sampled(cell: Sampled, run_cell=None) -> list[Difference]:
    """Re-run one sampled cell (with ``run_cell``, default its experiment kind's) and compare."""
    run_cell = run_cell or cell_function(cell.exp_dir)
    rows = pd.DataFrame(run_cell(cell.spec))
    return compare_cell(experiment_label(cell.exp_dir), cell.cell_id, cell.spec, cell.committed, rows) + verify_model_paper(cell)


def experiment_label(exp_dir: Path) -> str:
    """How verify names a results folder: the experiment's name, a regime map's ``maps/<name>``."""
    exp_dir = Path(exp_dir)
    return f"maps/{exp_dir.name}" if exp_dir.parent.name == "maps" else exp_dir.name


def verify_model_paper(cell: Sampled) -> list[Difference]:
    """The cell's plans at the paper's density re-made and compared with its rows of ``model_paper.parquet``
    (the module docstring); none when the folder has no such rows for it."""
    path = cell.exp_dir / MODEL_PAPER_FILE
    if not path.exists():
        return []
    stored = pd.read_parquet(path)
    stored = stored[stored["cell_id"] == cell.cell_id].set_index("algorithm")
    kind = multi_kind(load_meta(cell.exp_dir))
    if stored.empty or kind is None:
        return []
    again = cell_rows(cell.spec, kind, float(stored["factor"].iloc[0]), stored_rows(cell.committed).get(cell.cell_id, {}))
    name, pid = experiment_label(cell.exp_dir), cell.spec["pattern_id"]
    methods = sorted(str(a) for a in stored.index), sorted(r["algorithm"] for r in again)
    out = [Difference(name, cell.cell_id, pid, ",".join(methods[1]), "model_paper:methods", ",".join(methods[0]), ",".join(methods[1]),
                      methods[0] == methods[1], "identical")]
    for r in again:
        if r["algorithm"] not in stored.index:
            continue
        c = stored.loc[r["algorithm"]]
        out.append(Difference(name, cell.cell_id, pid, r["algorithm"], "model_paper:rebuilt", bool(c["rebuilt"]), r["rebuilt"],
                              bool(c["rebuilt"]) and r["rebuilt"], "identical"))
        for k in (MODEL_PAPER_PLAN, MODEL_PAPER_PLAN_COST, MODEL_PAPER_TRIVIAL_COST):
            same = c[k] == r[k] if k == MODEL_PAPER_PLAN else _close(_number(c[k]), _number(r[k]))
            out.append(Difference(name, cell.cell_id, pid, r["algorithm"], f"model_paper:{k}",
                                  c[k], r[k], True if r["timed"] else bool(same), SHOWN if r["timed"] else "identical"))
    return out


def _number(x) -> float | None:
    return None if x is None else float(x)


def verify_experiment(exp_dir: Path, sample: int, seed: int, max_cell_s: float | None = None) -> list[Difference]:
    """Re-run a seeded sample of ``sample`` stored cells and compare (see the module docstring), picked by
    :func:`pick_cells`."""
    sampled = sample_experiment(exp_dir, sample, seed, max_cell_s)
    run_cell = cell_function(exp_dir) if sampled else None
    return [d for cell in sampled for d in verify_sampled(cell, run_cell)]


def compare_cell(name: str, cid: str, spec: dict, committed: pd.DataFrame, rows: pd.DataFrame) -> list[Difference]:
    """One cell's stored rows ``committed`` against another run's ``rows`` of the same cell: its plan and
    status (identical) and its metrics (:func:`compare_metrics`).  Used by :func:`verify_experiment` and by
    the cluster fail-over check (:mod:`experiments.tools.failover`), which compares two whole runs."""
    pid = spec["pattern_id"]
    alg = spec["algorithm"] if "algorithm" in spec else ",".join(spec.get("algorithms", []))
    c_plan, r_plan = _plans(committed), _plans(rows)
    metrics = compare_metrics(name, cid, pid, alg, _by_metric(committed), _by_metric(rows))
    c_status = sorted(set(committed["status"]))
    r_status = sorted(set(rows["status"]))
    status = Difference(name, cid, pid, alg, "status", ",".join(c_status), ",".join(r_status), c_status == r_status, "identical")
    if c_plan == r_plan:
        plan = Difference(name, cid, pid, alg, "plan", c_plan, r_plan, True, "identical")
    else:
        plan = Difference(name, cid, pid, alg, "plan", c_plan, r_plan, status.ok and is_tie(metrics), TIE)
    return [plan, status, *metrics]


def is_tie(metrics: list[Difference]) -> bool:
    """Whether a cell whose plan differs is a cost tie (the module docstring): it has a plan cost, and every
    deterministic metric the committed rows have is identical on the re-run."""
    checked = [d for d in metrics if d.rule == "identical"]
    return any(_metric(d.metric) == "plan_cost" for d in checked) and all(d.ok for d in checked)


def compare_metrics(name: str, cid: str, pid: str, alg: str, cv: dict, rv: dict) -> list[Difference]:
    """One cell's metrics, committed ``cv`` against re-run ``rv`` (see the module docstring)."""
    out = []
    for m in DETERMINISTIC:
        for k in sorted({k for k in (*cv, *rv) if _metric(k) == m}, key=_order):
            a, b = cv.get(k), rv.get(k)
            if not any(_metric(c) == m for c in cv):
                out.append(Difference(name, cid, pid, alg, k, a, b, True, NEW))
            else:
                out.append(Difference(name, cid, pid, alg, k, a, b, _close(a, b), "identical"))
    for m in MEASURED:
        for k in sorted({k for k in cv if _metric(k) == m} & set(rv), key=_order):
            out.append(Difference(name, cid, pid, alg, k, cv.get(k), rv.get(k), True, SHOWN))
    return out


def _plans(rows: pd.DataFrame):
    """The cell's plan digest, or ``algorithm=digest`` pairs for a cell of several algorithms."""
    d = rows[rows["plan"].notna() & (rows["plan"] != "")]
    if not len(d):
        return None
    if d["algorithm"].nunique() <= 1:
        return d["plan"].iloc[0]
    return ";".join(f"{a}={p}" for a, p in sorted(d.groupby("algorithm")["plan"].first().items()))


def _metric(key: str) -> str:
    return key.split("@")[0].split(":")[-1]


def _order(key: str) -> tuple:
    metric, _, x = key.partition("@")
    return (metric, float(x) if x else -math.inf)


def _by_metric(rows: pd.DataFrame) -> dict:
    """A cell's values by metric; a cell that sweeps an x value (``x_name``/``x_value``) has one per
    ``metric@x``, and a cell of several algorithms one per ``algorithm:metric``."""
    out = {}
    xs = rows["x_value"] if "x_value" in rows else pd.Series([None] * len(rows), index=rows.index)
    several = "algorithm" in rows and rows["algorithm"].nunique() > 1
    algs = rows["algorithm"] if several else pd.Series([None] * len(rows), index=rows.index)
    for m, x, a, v in zip(rows["metric"], xs, algs, rows["value"]):
        key = m if x is None or pd.isna(x) else f"{m}@{x:g}"
        out[f"{a}:{key}" if a is not None else key] = v
    return out


def difference_rows(diffs: list[Difference], show_all: bool = False) -> list[dict]:
    """The comparisons to show (all with ``show_all``; else the differences and the measured values), one
    dict each, with ``result``: ``ok``, ``DIFFERS``, ``tie: equal cost`` or ``measured x<rerun over committed>``."""
    out = []
    for d in diffs:
        if not (show_all or not d.ok or d.rule in (SHOWN, NEW, TIE)):
            continue
        if d.rule == NEW:
            result = "new metric"
        elif d.rule == TIE:
            result = "tie: equal cost" if d.ok else "DIFFERS"
        elif d.rule == SHOWN:
            a, b = d.committed, d.rerun
            numeric = isinstance(a, float) and isinstance(b, float) and a and not math.isnan(a) and not math.isnan(b)
            result = f"measured x{b / a:.2f}" if numeric else "measured"
        else:
            result = "ok" if d.ok else "DIFFERS"
        out.append({**d.__dict__, "result": result})
    return out


def _short(x) -> str:
    return f"{x:.6g}" if isinstance(x, float) else str(x)[:14]


COLUMNS = {"experiment": ("experiment", str), "pattern_id": ("pattern", str), "algorithm": ("algorithm", str),
           "metric": ("metric", str), "committed": ("committed", _short), "rerun": ("rerun", _short),
           "rule": ("rule", str), "result": ("result", str)}


def format_differences(diffs: list[Difference], show_all: bool = False) -> str:
    rows = difference_rows(diffs, show_all)
    return text_table(rows, COLUMNS) if rows else "(nothing to show)"
