"""One experiment cell: plan one pattern with one planner, optionally evaluate the plan, emit rows.

A cell specification is a plain JSON-able dict (it travels to Spark executors and is stored in
``cells.jsonl`` for ``verify``):

    experiment, dataset {name}, stream (:mod:`experiments.data.streams`), workload, size,
    pattern_id, pattern (text), stats (rates + selectivities for planning), algorithm, alpha,
    strategy (null = the pattern's own), seed, params (planner parameters), evaluator (null = plan
    only), measure_memory, max_partial_matches, repeats

An evaluated cell feeds the whole stream to the evaluator ``repeats`` times (median throughput and
latency; ``throughput_spread`` is the largest run's throughput over the smallest's, the run-to-run
variation) and, with ``measure_memory``, once more to meter the bytes of its state.

Keys starting with ``_`` (such as ``_code_version``) are metadata and do not enter the cell id.
A cell whose evaluation crosses the partial-match cap or the work cap is a result: rows with
``status`` ``capped: ...`` and what it could measure.  Any other exception propagates (the runner records it
as a failure, and the next run retries the cell).
"""

from __future__ import annotations

import json
import statistics as pystats
from dataclasses import replace
from typing import Mapping

from cep.errors import EvaluationLimitError
from cep.parser import parse_pattern
from cep.pattern import Strategy
from cep.statistics import Statistics
from experiments.running.store import cell_id

OK = "ok"


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
    """Plan (and evaluate) one cell; returns its tidy rows (see :mod:`experiments.running.store`)."""
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
    from evaluators import DEFAULT_MAX_PARTIAL_MATCHES, compile_evaluator, run_program
    from experiments.data.streams import experiment_columns

    cols = experiment_columns(spec["stream"])
    cap = spec.get("max_partial_matches") or DEFAULT_MAX_PARTIAL_MATCHES
    repeats = max(1, int(spec.get("repeats", 1)))
    program = compile_evaluator(pattern, plan, spec["evaluator"])
    runs = []
    try:
        for i in range(repeats):
            meter = i == 0 and bool(spec.get("measure_memory"))
            runs.append(run_program(program, cols, max_partial_matches=cap, max_work=spec.get("max_work"), measure_memory=meter, collect_matches=False).metrics)
    except EvaluationLimitError as e:
        status = f"capped: {e}"
        return [
            _row(spec, "events", len(cols), status=status, plan=plan_text, kind=kind),
            _row(spec, "peak_partial_matches", cap, status=status, plan=plan_text, kind=kind),
        ]
    first = runs[0]
    out = {k: first[k] for k in DETERMINISTIC_RUN_METRICS}
    out.update({k: _median(runs, k) for k in MEASURED_RUN_METRICS})  # None when there is no match
    thr = [m["throughput_eps"] for m in runs]
    out["throughput_spread"] = max(thr) / min(thr) if len(thr) > 1 and min(thr) > 0 else None
    if spec.get("measure_memory"):
        out["peak_memory_bytes"] = first["peak_memory_bytes"]
    return [_row(spec, k, v, plan=plan_text, kind=kind) for k, v in out.items()]


#: metrics of an evaluation that every run gives alike, and those measured (medians over runs)
DETERMINISTIC_RUN_METRICS = ("events", "matches", "work", "peak_partial_matches", "mean_partial_matches", "peak_buffered_events", "peak_state")
MEASURED_RUN_METRICS = ("throughput_eps", "elapsed_s", "latency_ms_mean", "latency_ms_p95")
