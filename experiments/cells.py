"""One experiment cell: plan one pattern with one planner, optionally evaluate the plan, emit rows.

A cell specification is a plain JSON-able dict (it travels to Spark executors and is stored in
``cells.jsonl`` for ``verify``):

    experiment, dataset {name, path, format}, slice {types, start, end, copies, shift},
    workload, size, pattern_id, pattern (text), stats (rates + selectivities for planning),
    algorithm, alpha, strategy (null = the pattern's own), seed, params (planner parameters),
    evaluator (null = plan only), measure_memory, max_partial_matches, repeats

Keys starting with ``_`` (such as ``_code_version``) are metadata and do not enter the cell id.
A cell whose evaluation crosses the partial-match cap is a result: rows with ``status``
``capped: ...`` and what it could measure.  Any other exception propagates (the runner records it
as a failure, and the next run retries the cell).
"""

from __future__ import annotations

import json
import statistics as pystats
from dataclasses import replace
from functools import lru_cache
from typing import Mapping

from cep.errors import PartialMatchLimitError
from cep.events import EventStream
from cep.parser import parse_pattern
from cep.pattern import Strategy
from cep.statistics import Statistics
from experiments.store import cell_id

OK = "ok"


@lru_cache(maxsize=8)
def _base_stream(name: str, path: str, fmt: str, types: tuple[str, ...] | None, start, end) -> EventStream:
    from experiments.datasets import load_dataset

    return load_dataset({"name": name, "path": path, "format": fmt}, types=types, start=start, end=end)


def cell_stream(spec: Mapping) -> EventStream:
    """The events a cell evaluates: the dataset slice restricted to the pattern's event types,
    optionally repeated ``copies`` times shifted by ``shift`` seconds (cached per process)."""
    d, s = spec["dataset"], spec["slice"]
    types = tuple(sorted(s["types"])) if s.get("types") else None
    base = _base_stream(d["name"], d["path"], d.get("format", "auto"), types, s.get("start"), s.get("end"))
    copies = int(s.get("copies", 1) or 1)
    return base if copies == 1 else base.repeat_shifted(copies, float(s["shift"]))


def _row(spec: Mapping, metric: str, value, status: str = OK, plan: str | None = None, kind: str | None = None) -> dict:
    return {
        "experiment": spec["experiment"],
        "dataset": spec["dataset"]["name"],
        "workload": spec["workload"],
        "size": spec["size"],
        "pattern_id": spec["pattern_id"],
        "seed": spec["seed"],
        "algorithm": spec["algorithm"],
        "kind": kind,
        "evaluator": spec.get("evaluator") or "none",
        "alpha": float(spec.get("alpha", 0.0)),
        "strategy": spec.get("strategy") or Strategy.ANY.value,
        "metric": metric,
        "value": None if value is None else float(value),
        "status": status,
        "plan": plan,
        "params": json.dumps(spec.get("params") or {}, sort_keys=True),
        "cell_id": cell_id(spec),
        "code_version": spec.get("_code_version"),
    }


def cell_pattern(spec: Mapping):
    p = parse_pattern(spec["pattern"])
    if spec.get("strategy"):
        p = replace(p, strategy=Strategy(spec["strategy"]), partition_attribute=spec.get("partition_attribute"))
    return p


def tree_cost(pattern, plan, stats) -> float:
    """Cost_tree of a pattern plan (JQPG Section 3.2), an order plan taken as its left-deep tree, summed
    over DNF clauses: one scale on which order and tree plans compare (Cost_tree also counts the
    leaves that Cost_ord leaves out, so the two costs of one order differ)."""
    import math

    from algorithms import plan_log_cost

    from cep.dnf import to_dnf
    from cep.plans import OrderPlan, TreePlan, left_deep_tree

    logs = []
    for sp, p in zip(to_dnf(pattern), plan.plans):
        tree = TreePlan(left_deep_tree(p.order)) if isinstance(p, OrderPlan) else p
        logs.append(plan_log_cost(sp, tree, stats))
    top = max(logs)
    if not math.isfinite(top):
        return 0.0 if top == -math.inf else math.inf
    log_total = top + math.log(sum(math.exp(x - top) for x in logs))
    return math.exp(log_total) if log_total < 709.0 else math.inf


def _median(runs, key):
    values = [m[key] for m in runs if m.get(key) is not None]
    return pystats.median(values) if values else None


def run_cell(spec: Mapping) -> list[dict]:
    """Plan (and evaluate) one cell; returns its tidy rows (see :mod:`experiments.store`)."""
    from algorithms import plan_pattern

    pattern = cell_pattern(spec)
    stats = Statistics.from_dict(spec["stats"], source=f"cell {spec['pattern_id']}")
    planned = plan_pattern(
        pattern, spec["algorithm"], stats, alpha=float(spec.get("alpha", 0.0)), seed=int(spec["seed"]), **(spec.get("params") or {})
    )
    plan_text, kind = str(planned.plan), planned.kind
    rows = [
        _row(spec, "plan_cost", planned.cost, plan=plan_text, kind=kind),
        _row(spec, "plan_cost_tree", tree_cost(pattern, planned.plan, stats), plan=plan_text, kind=kind),
        _row(spec, "plan_time_s", planned.plan_time_s, plan=plan_text, kind=kind),
    ]
    if not spec.get("evaluator"):
        return rows
    return rows + _evaluate_rows(spec, pattern, planned.plan, plan_text, kind)


def _evaluate_rows(spec: Mapping, pattern, plan, plan_text: str, kind: str) -> list[dict]:
    from evaluators import evaluate

    from evaluators import DEFAULT_MAX_PARTIAL_MATCHES

    stream = cell_stream(spec)
    cap = spec.get("max_partial_matches") or DEFAULT_MAX_PARTIAL_MATCHES
    repeats = max(1, int(spec.get("repeats", 1)))
    runs = []
    try:
        for _ in range(repeats):
            r = evaluate(pattern, plan, stream, evaluator=spec["evaluator"], max_partial_matches=cap, measure_memory=False, collect_matches=False)
            runs.append(r.metrics)
        mem = None
        if spec.get("measure_memory"):
            mem = evaluate(pattern, plan, stream, evaluator=spec["evaluator"], max_partial_matches=cap, measure_memory=True, collect_matches=False).metrics
    except PartialMatchLimitError as e:
        status = f"capped: {e}"
        return [
            _row(spec, "events", len(stream), status=status, plan=plan_text, kind=kind),
            _row(spec, "peak_partial_matches", cap, status=status, plan=plan_text, kind=kind),
        ]
    first = runs[0]
    out = {
        "events": first["events"],
        "matches": first["matches"],
        "throughput_eps": _median(runs, "throughput_eps"),
        "elapsed_s": _median(runs, "elapsed_s"),
        "peak_partial_matches": first["peak_partial_matches"],
        "latency_ms_mean": _median(runs, "latency_ms_mean"),  # None when there is no match
        "latency_ms_p95": _median(runs, "latency_ms_p95"),
    }
    if mem is not None:
        out["peak_memory_bytes"] = mem["peak_memory_bytes"]
    return [_row(spec, k, v, plan=plan_text, kind=kind) for k, v in out.items()]
