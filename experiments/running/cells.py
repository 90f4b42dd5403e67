"""The one cell pipeline: stream -> workload -> statistics -> plan -> evaluate -> rows.

A cell specification is a plain JSON-able dict: it travels to Spark executors and is stored in
``cells.jsonl.gz`` for ``verify``.  Keys starting with ``_`` (such as ``_code_version``) are metadata and
do not enter the cell id (:func:`experiments.running.store.cell_id`).

Every experiment kind (``experiments/exps/*.py``) runs its cells through :func:`run_cell` and supplies a
:class:`CellKind`: the steps that differ between kinds (where the stream comes from, how the workload
is built, how statistics are gathered, which plans are made, how they are evaluated) and the row fields
that identify its rows.  The pipeline and :func:`row` are the same for every kind:

* ``stream(spec)`` -> the events the cell evaluates (or ``None`` when nothing is evaluated);
* ``workload(spec, stream)`` -> the patterns or queries;
* ``statistics(spec, stream, workload)`` -> what the planners plan on (or ``None``);
* ``plan(spec, workload, stats)`` -> one :class:`Planned` per algorithm of the cell;
* ``evaluate(spec, stream, workload, planned)`` -> one :class:`Evaluated` per algorithm (plus any
  extra row groups, such as a single-thread reference run);
* rows: each planning metric with status ``ok``, then each evaluation metric with its status
  (``ok`` or ``capped: ...``), every row built by :func:`row`.

A cell whose evaluation crosses a cap (:class:`cep.errors.EvaluationLimitError`) is a result: its
rows carry ``status`` ``capped: ...`` and what it could measure.  Any other exception propagates (the
runner records it as a failure, and the next run retries the cell).
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from cep.errors import EvaluationLimitError
from cep.metrics import METRICS, is_deterministic
from experiments.running.store import cell_id

OK = "ok"


@dataclass
class Planned:
    """One algorithm's plan in a cell: the plan the evaluator runs (``None`` for engines that plan
    online), its digest (the rows' ``plan`` column), the planning metrics, and row fields that depend
    on the plan (e.g. its kind)."""

    plan: object
    digest: str | None
    metrics: dict = field(default_factory=dict)
    fields: dict = field(default_factory=dict)


@dataclass
class Evaluated:
    """One algorithm's evaluation in a cell: its metrics and their status.  ``digest`` replaces the
    plan's (engines whose output is digested instead of a plan); ``series`` holds metrics per value of
    a swept x inside the cell (``{x: {metric: value}}``, with ``x_name``)."""

    metrics: dict = field(default_factory=dict)
    status: str = OK
    digest: str | None = None
    x_name: str | None = None
    series: dict | None = None


class CellKind:
    """The steps of one experiment kind's cells (see the module docstring).  The defaults suit a cell of
    one algorithm (``spec["algorithm"]``) that plans nothing and evaluates nothing."""

    def stream(self, spec: Mapping):
        return None

    def workload(self, spec: Mapping, stream):
        return None

    def statistics(self, spec: Mapping, stream, workload):
        return None

    def algorithms(self, spec: Mapping) -> list[str]:
        return [spec["algorithm"]]

    def inputs(self, spec: Mapping) -> tuple:
        """The cell's stream, workload and statistics, built as :func:`run_cell` builds them (what a
        re-plan of a stored cell starts from)."""
        stream = self.stream(spec)
        workload = self.workload(spec, stream)
        return stream, workload, self.statistics(spec, stream, workload)

    def plan(self, spec: Mapping, workload, stats) -> dict[str, Planned]:
        return {a: self.plan_one(spec, workload, stats, a) for a in self.algorithms(spec)}

    def plan_one(self, spec: Mapping, workload, stats, algorithm: str) -> Planned:
        return Planned(None, None)

    def evaluate(self, spec: Mapping, stream, workload, planned: Mapping[str, Planned]) -> dict[str, Evaluated]:
        return {}

    def fields(self, spec: Mapping, algorithm: str) -> dict:
        """The row fields of this kind (every column of :data:`experiments.running.store.COLUMNS`
        besides experiment, pattern_id, seed, algorithm, metric, value, status, plan, cell_id and
        code_version)."""
        raise NotImplementedError


def row(spec: Mapping, fields: Mapping, algorithm: str, metric: str, value, *, status: str = OK, plan: str | None = None) -> dict:
    """One tidy result row (:mod:`experiments.running.store`); ``metric`` must be in the registry."""
    if metric not in METRICS:
        raise KeyError(f"metric {metric!r} is not in the registry (cep/metrics.py)")
    return {
        "experiment": spec["experiment"],
        "pattern_id": spec["pattern_id"],
        "seed": int(spec["seed"]),
        "algorithm": algorithm,
        **fields,
        "metric": metric,
        "value": None if value is None else float(value),
        "status": status,
        "plan": plan,
        "cell_id": cell_id(spec),
        "code_version": spec.get("_code_version"),
    }


def run_cell(kind: CellKind, spec: Mapping) -> list[dict]:
    """The rows of one cell (see the module docstring)."""
    stream, workload, stats = kind.inputs(spec)
    planned = kind.plan(spec, workload, stats)
    evaluated = kind.evaluate(spec, stream, workload, planned)
    rows = []
    for alg, p in planned.items():
        fields = {**kind.fields(spec, alg), **p.fields}
        rows += [row(spec, fields, alg, m, v, plan=p.digest) for m, v in p.metrics.items()]
    for alg, e in evaluated.items():
        p = planned.get(alg)
        fields = {**kind.fields(spec, alg), **(p.fields if p else {})}
        digest = e.digest if e.digest is not None else (p.digest if p else None)
        rows += [row(spec, fields, alg, m, v, status=e.status, plan=digest) for m, v in e.metrics.items()]
        for x, metrics in (e.series or {}).items():
            at = {**fields, "x_name": e.x_name, "x_value": float(x)}
            rows += [row(spec, at, alg, m, v, status=e.status, plan=digest) for m, v in metrics.items()]
    return rows


def params_json(params: Mapping | None) -> str:
    """The rows' ``params`` column: the cell's parameters as sorted JSON."""
    return json.dumps(params or {}, sort_keys=True)


def summarize(runs: Sequence[Mapping], names: Iterable[str]) -> dict:
    """The metrics ``names`` of several runs of one evaluation: a deterministic metric's value in the
    first run, a measured one's median over the runs that have it (None when none has)."""
    out = {}
    for k in names:
        if is_deterministic(k):
            out[k] = runs[0][k]
        else:
            values = [r[k] for r in runs if r.get(k) is not None]
            out[k] = statistics.median(values) if values else None
    return out


def timed_runs(runs: Mapping[str, Callable[[int], Mapping]], repeats: int, events: int, **at_cap) -> dict[str, list | Evaluated]:
    """``repeats`` timed runs (at least one) of each algorithm's ``run(i)``, which returns the run's
    metrics, in turns: run ``i`` of every algorithm before run ``i + 1`` of any, so that a slow moment of
    a shared machine hits every algorithm alike.  A run that crosses a cap
    (:class:`cep.errors.EvaluationLimitError`) ends its algorithm's runs: that algorithm's entry is the
    capped evaluation (:func:`capped`, with the metrics ``at_cap``), every other one the list of its
    runs' metrics (:func:`summarize` makes them one)."""
    out: dict[str, list | Evaluated] = {alg: [] for alg in runs}
    for i in range(max(1, int(repeats))):
        for alg, run in runs.items():
            if isinstance(out[alg], Evaluated):
                continue
            started = time.perf_counter()
            try:
                out[alg].append(run(i))
            except EvaluationLimitError as e:
                out[alg] = capped(e, events, time.perf_counter() - started, **at_cap)
    return out


def capped(error, events: int, elapsed_s: float, **metrics) -> Evaluated:
    """The evaluation of a run stopped at a cap (:class:`cep.errors.EvaluationLimitError`): a bound, not
    a gap.  It ran ``elapsed_s`` seconds over a stream of ``events`` events before the cap stopped it,
    so its throughput over the whole stream is at most ``events / elapsed_s``
    (:mod:`experiments.reporting.bounds`); ``processed_events`` where the evaluator knows it."""
    out = {"throughput_eps": None, **metrics, "events": events, "capped_elapsed_s": elapsed_s}
    if getattr(error, "processed", None) is not None:
        out["processed_events"] = error.processed
    return Evaluated(out, status=f"capped: {error}")
