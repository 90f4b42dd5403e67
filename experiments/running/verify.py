"""Reproducibility check: re-run a seeded sample of committed cells and compare with the table.

Deterministic quantities must be identical: the plan, the status, the plan costs (to 1e-9
relative), the number of events and matches, the partial-match and buffered-event counts and the
metered bytes of the state.  Measured quantities (throughput, latency, plan time, search steps and
steps per second) depend on the machine and its load: they are shown side by side with their ratio,
and never fail the check.

Time-limited searches (``mcep_fig11``'s search-time sweep) stop wherever the clock says, so they
cannot be re-run as such.  Their cells record the steps each component's search took
(``search_replay_steps`` in the rows' ``params``, :mod:`experiments.exps.mcep_figs`); verify re-runs
such a cell with exactly those steps and no clock (:func:`replay_spec`), and its plan, costs and
counts must then be identical like any other cell's: what is checked is everything but how many
steps the machine managed in the time (``search_steps``, shown as measured).
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from experiments.running.store import ResultStore

DETERMINISTIC = (
    "plan_cost",
    "plan_cost_tree",
    "events",
    "matches",
    "work",
    "peak_partial_matches",
    "mean_partial_matches",
    "peak_buffered_events",
    "peak_state",
    "peak_memory_bytes",
    "distinct_operators",
    # HAMLET (experiments/exps/hamlet_figs.py): the executor's decisions do not depend on timing
    "snapshots",
    "shared_graphlets",
    "graphlets",
    "burst_mean",
)
MEASURED = ("throughput_eps", "latency_ms_mean", "latency_ms_p95", "plan_time_s", "search_steps", "steps_per_s",
            "supported_queries", "supported_operators", "query_cpu_ms", "complex_events_per_cpu_s", "cpu_s",
            "deployed_operators", "paper_cost", "latency_ms", "latency_p95_ms", "peak_traced_memory_bytes")
SHOWN = "shown only"


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
    """The cell function of the experiment kind that produced ``exp_dir`` (from its metadata)."""
    import importlib

    from experiments.running.experiment import EXPERIMENT_KINDS
    from experiments.reporting.core import load_meta

    kind = ((load_meta(exp_dir).get("config") or {}).get("exp") or {}).get("kind", "grid")
    return importlib.import_module(EXPERIMENT_KINDS[kind]).run_cell


def replay_spec(spec: dict, committed: pd.DataFrame) -> dict:
    """The cell's specification to re-run: with the recorded step budget of a time-limited search
    (``search_replay_steps`` in the committed rows' params) when it has one."""
    for text in committed["params"].dropna().unique():
        replay = json.loads(text).get("search_replay_steps")
        if replay is not None:
            return {**spec, "params": {**spec["params"], "search_replay_steps": replay}}
    return spec


def verify_experiment(exp_dir: Path, sample: int, seed: int) -> list[Difference]:
    store = ResultStore(exp_dir)
    table = store.load()
    cells = store.load_cells()
    if table.empty or not cells:
        return []
    run_cell = cell_function(exp_dir)
    ids = sorted(set(table["cell_id"]) & set(cells))
    picked = random.Random(seed).sample(ids, min(sample, len(ids)))
    out: list[Difference] = []
    for cid in picked:
        committed = table[table["cell_id"] == cid]
        spec = replay_spec(cells[cid], committed)
        rows = pd.DataFrame(run_cell(spec))
        name, pid = exp_dir.name, spec["pattern_id"]
        alg = spec["algorithm"] if "algorithm" in spec else ",".join(spec.get("algorithms", []))
        c_plan, r_plan = _plans(committed), _plans(rows)
        out.append(Difference(name, cid, pid, alg, "plan", c_plan, r_plan, c_plan == r_plan, "identical"))
        c_status = sorted(set(committed["status"]))
        r_status = sorted(set(rows["status"]))
        out.append(Difference(name, cid, pid, alg, "status", ",".join(c_status), ",".join(r_status), c_status == r_status, "identical"))
        cv, rv = _by_metric(committed), _by_metric(rows)
        for m in DETERMINISTIC:
            for k in sorted({k for k in (*cv, *rv) if _metric(k) == m}, key=_order):
                a, b = cv.get(k), rv.get(k)
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


def format_differences(diffs: list[Difference], show_all: bool = False) -> str:
    rows = [d for d in diffs if show_all or not d.ok or d.rule == SHOWN]
    lines = [f"{'experiment':<11} {'pattern':<12} {'algorithm':<11} {'metric':<20} {'committed':>14} {'rerun':>14}  rule         result"]
    for d in rows:
        def f(x):
            if isinstance(x, float):
                return f"{x:.6g}"
            return str(x)[:14]

        if d.rule == SHOWN:
            a, b = d.committed, d.rerun
            ratio = f"x{b / a:.2f}" if isinstance(a, float) and isinstance(b, float) and a and not math.isnan(a) and not math.isnan(b) else ""
            result = f"measured {ratio}".strip()
        else:
            result = "ok" if d.ok else "DIFFERS"
        lines.append(f"{d.experiment:<11} {d.pattern_id:<12} {d.algorithm:<11} {d.metric:<20} {f(d.committed):>14} {f(d.rerun):>14}  {d.rule:<12} {result}")
    return "\n".join(lines)
