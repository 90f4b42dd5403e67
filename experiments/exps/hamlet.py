"""The ``hamlet`` experiment kind: HAMLET Figures 8-12 (Section 5.2) at our scales.

* ``fig8`` / ``fig9`` -- HAMLET (dynamic), two-step, SHARON-style and GRETA on the ridesharing
  stream (``experiments/data/ridesharing.py``): latency and throughput (fig8), peak memory (fig9) against
  events per minute and against the number of queries.  Queries: ``k`` COUNT(*) queries
  ``SEQ(S_i s, Travel t+, E_i e) WHERE [driver]`` sharing ``Travel+``, tumbling windows.
* ``fig10`` -- HAMLET against GRETA on the bursty stock stream and the traffic (Aarhus) data, standing in
  for the paper's NYC taxi and smart-home streams (not bundled); same sweeps.
* ``fig11`` / ``fig12`` -- dynamic against static sharing on the bursty stock stream (as the paper;
  ``nasdaq-bursty``: real NASDAQ values, an arrival process calibrated to the paper's 4.5K events per
  minute and bursts of 120 shared events, :mod:`experiments.data.bursty_stock`) and on
  the ridesharing stream (bursty, one partition): latency and throughput (fig11), memory (fig12);
  the queries are the paper's second workload (:func:`mixed_workload`: mixed aggregates, windows,
  pattern lengths and predicates); thresholds at quantiles of the shared Kleene type's ``close`` /
  ``speed`` make sharing cost event-level snapshots, so the dynamic optimizer may split.

Rates, workloads, windows, stream lengths, seeds and caps per scale: :data:`SETTINGS`, resolved by
:mod:`experiments.running.settings` from ``exp.scales`` (``configs/exp/hamlet_fig*.yaml`` over
``configs/scales/hamlet.yaml``; the paper's values at scale=standard and scale=paper).

Streams: ridesharing and ``nasdaq-bursty`` are generated (seeded); ``nasdaq`` and traffic are the bundled data restricted to a
pool of event types (the shared Kleene type -- the pool's first type -- plus start and end types),
in the data's order, with timestamps re-spaced to the cell's events per minute (the paper's
speed-up factor).  A cell is (figure, dataset, swept x, engine, seed); two-step and SHARON run under
caps (``max_trends``, ``sharon_max_work``), GRETA under ``greta_max_work`` where a figure's scale block sets it (Figure 10 at
scale=standard: the paper's GRETA fails at 40K events per minute), and a capped cell is a result (status
``capped: ...``), not a failure.

HAMLET's dynamic optimizer decides with ``exp.benefit_model`` (:data:`algorithms.trends.BENEFIT_MODELS`:
``equation7``, the default, is Equation 7 as published; ``tuple-width`` also charges the widths of
aggregate tuples), recorded in the ``params`` of every ``hamlet`` cell (``benefit_model``; rows from before
the option have none and ran ``tuple-width``).

Rows: ``algorithm`` is the engine; ``x_name``/``x_value`` the swept parameter (``events_per_minute``
or ``queries``); ``plan`` a digest of the cell's exact results, so ``verify`` sees any change in
what was computed; metrics ``throughput_eps``, ``latency_ms`` (mean per timestamp), ``latency_p95_ms``,
``peak_traced_memory_bytes`` (fig9, ``exp.memory: true``: tracemalloc's peak over a second run; it varies a
little from run to run), ``peak_memory_bytes`` (fig12, ``exp.memory: state``: the HAMLET executor's state,
counted deterministically in the timed run, :mod:`evaluators.trends.hamlet`), ``snapshots``, ``shared_graphlets``,
``graphlets``, ``events``, ``burst_mean``; HAMLET's ``bursts`` (decisions), ``decision_ms`` and
``analysis_ms`` (the static analysis); a capped cell's ``capped_elapsed_s`` and ``processed_events``
(a bound: :mod:`experiments.reporting.bounds`).
"""

from __future__ import annotations

import hashlib
import json
import statistics
import time
from collections.abc import Mapping
from pathlib import Path

from omegaconf import DictConfig

from algorithms.trends import BENEFIT_MODELS, DEFAULT_BENEFIT_MODEL
from cep.errors import ConfigError
from cep.io_utils import exact_integers
from cep.parser import parse_patterns
from evaluators.trends import HamletExecutor
from experiments.data.trend_streams import burst_mean, trend_stream
from experiments.exps.hamlet_engines import measure
from experiments.exps.kit import common_fields
from experiments.running import cells
from experiments.running.execution import run_all_cells
from experiments.running.settings import Keys, resolve
from experiments.workloads.hamlet import experiment_workload

FIGURES = ("fig8", "fig9", "fig10", "fig11", "fig12")
#: the per-scale settings of ``exp.scales.<scale>`` (:mod:`experiments.running.settings`): the seeds, the
#: stream's minutes and drivers, the windows, the caps of two-step and SHARON, the timed runs, the swept
#: rates and workloads; and GRETA's cap on predecessor vertices visited (uncapped where unset: a cell's
#: params carry it only where set, so the ids of uncapped cells do not change)
SETTINGS = Keys(("seeds", "minutes", "window_s", "drivers", "max_trends", "sharon_max_work", "repeats", "events_per_minute",
                 "default_queries", "queries", "default_events_per_minute"), ("greta_max_work",))


def build_specs(cfg: DictConfig) -> list[dict]:
    exp = cfg.exp
    if exp.figure not in FIGURES:
        raise ConfigError(f"exp.figure of a hamlet experiment must be one of {', '.join(FIGURES)}, got {exp.figure!r}")
    r = resolve(cfg, SETTINGS)
    memory = exp.get("memory", False)  # none, tracemalloc's peak over a second run (true), or the executor's state meter
    if not (isinstance(memory, bool) or memory == "state"):
        raise ConfigError(f"configs/exp/{exp.name}.yaml: exp.memory must be false, true (tracemalloc) or state, got {memory!r}")
    base = common_fields(cfg)
    params = {"minutes": float(r["minutes"]), "window_s": int(r["window_s"]), "drivers": int(r["drivers"]),
              "max_trends": int(r["max_trends"]), "sharon_max_work": int(r["sharon_max_work"]), "repeats": int(r["repeats"]),
              "memory": memory}
    params.update({k: int(r[k]) for k in SETTINGS.optional if r.get(k) is not None})
    benefit_model = _benefit_model(exp)
    specs = []
    for ds in exp.datasets:
        for x_name, xs, fixed in (("events_per_minute", r["events_per_minute"], {"queries": int(r["default_queries"])}),
                                  ("queries", r["queries"], {"events_per_minute": int(r["default_events_per_minute"])})):
            for x in xs:
                for eng in exp.engines:
                    for seed in r["seeds"]:
                        p = {**params, **fixed, x_name: int(x)}
                        if eng == "hamlet":
                            p["benefit_model"] = benefit_model
                        specs.append({**base, "dataset": ds, "algorithm": eng, "seed": int(seed), "x_name": x_name,
                                      "x_value": int(x), "pattern_id": f"{ds}-{x_name}-{x}-s{seed}", "params": p})
    return specs


def _benefit_model(exp) -> str:
    """``exp.benefit_model`` (default: Equation 7 as published), checked."""
    model = str(exp.get("benefit_model") or DEFAULT_BENEFIT_MODEL)
    if model not in BENEFIT_MODELS:
        raise ConfigError(f"configs/exp/{exp.name}.yaml: exp.benefit_model must be one of {', '.join(BENEFIT_MODELS)}, got {model!r}")
    return model


def specs(cfg: DictConfig, out_dir: Path, spark=None) -> list[dict]:
    """Every cell specification of the run (what ``--estimate`` samples)."""
    return build_specs(cfg)


def run(cfg: DictConfig, out_dir: Path) -> int:
    return run_all_cells(cfg, out_dir, run_cell, build_specs(cfg), keys=SETTINGS)


# ---- one cell ---------------------------------------------------------------------------------------
class TrendCell(cells.CellKind):
    """A HAMLET cell: the cell's stream (:mod:`experiments.data.trend_streams`), its queries
    (:mod:`experiments.workloads.hamlet`), and the engine run ``repeats`` times (median throughput and
    latency).  Nothing is planned beforehand: HAMLET's optimizer decides per burst while it runs, so the
    rows' ``plan`` is a digest of the engine's exact results, which ``verify`` compares."""

    def stream(self, spec: Mapping):
        p = spec["params"]
        return trend_stream(spec["dataset"], int(p["events_per_minute"]), float(p["minutes"]), int(spec["seed"]), int(p["drivers"]))

    def workload(self, spec: Mapping, stream_and_pool):
        stream, pool = stream_and_pool
        return parse_patterns(experiment_workload(spec, pool, stream))

    def evaluate(self, spec: Mapping, stream_and_pool, queries, planned):
        stream, pool = stream_and_pool
        p, eng = spec["params"], spec["algorithm"]
        caps = {"two-step": {"max_trends": p["max_trends"]}, "sharon": {"max_work": p["sharon_max_work"]}, "greta": {"max_work": p.get("greta_max_work")}}
        options = {k: int(v) for k, v in caps.get(eng, {}).items() if v is not None}
        base = {"events": len(stream), "burst_mean": burst_mean(stream, pool)}
        events = stream.to_stream()  # the trend engines take event objects (until they take columns)
        runs = cells.timed_runs({eng: lambda r: measure(eng, queries, events, memory=p["memory"] is True and r == 0,
                                                        state_memory=p["memory"] == "state", benefit_model=p.get("benefit_model"), **options)},
                                int(p["repeats"]), len(stream), burst_mean=base["burst_mean"])[eng]
        if isinstance(runs, cells.Evaluated):  # a bound: it processed processed_events events in its time (reporting/bounds.py)
            runs.digest = ""
            return {eng: runs}
        digest = results_digest(runs[0][0].rows())
        ms = [m for _, m in runs]
        values = {
            **cells.summarize(ms, ("throughput_eps", "snapshots")),
            "shared_graphlets": ms[0].get("shared_graphlets", 0),
            "graphlets": ms[0].get("graphlets", 0),
            "throughput_spread": self.spread([m["throughput_eps"] for m in ms if m["throughput_eps"]]),
            "latency_ms": cells.summarize(ms, ("latency_ms_mean",))["latency_ms_mean"],
            "latency_p95_ms": cells.summarize(ms, ("latency_ms_p95",))["latency_ms_p95"],
            **base,
        }
        if eng.startswith("hamlet"):  # the optimizer's bursts and decision time; the static analysis' time
            values.update(bursts=ms[0].get("decisions", 0), decision_ms=1000.0 * statistics.median(m.get("decision_seconds", 0.0) for m in ms),
                          analysis_ms=self.analysis_ms(queries))
        if ms[0]["peak_traced_memory_bytes"] is not None:
            values["peak_traced_memory_bytes"] = ms[0]["peak_traced_memory_bytes"]
        if "peak_memory_bytes" in ms[0]:
            values["peak_memory_bytes"] = ms[0]["peak_memory_bytes"]
        return {eng: cells.Evaluated(values, digest=digest)}

    @staticmethod
    def analysis_ms(queries) -> float:
        """The one-time static workload analysis (HAMLET Section 3.1): the queries compiled, panes and
        shareable Kleene sub-patterns found (the executor built, before any event)."""
        t0 = time.perf_counter()
        HamletExecutor(queries)
        return (time.perf_counter() - t0) * 1000.0

    @staticmethod
    def spread(throughputs: list[float]) -> float:
        return max(throughputs) / min(throughputs) if len(throughputs) > 1 else 1.0

    def fields(self, spec: Mapping, algorithm: str) -> dict:
        return {"dataset": spec["dataset"], "workload": spec["figure"], "size": int(spec["params"]["queries"]),
                "kind": "trends", "evaluator": algorithm, "alpha": None, "strategy": None,
                "params": cells.params_json(spec.get("params")), "x_name": spec["x_name"], "x_value": float(spec["x_value"])}


def results_digest(rows: list[list]) -> str:
    """A digest of an engine's exact results (the rows' ``plan``, which ``verify`` compares), counts of any
    length included."""
    with exact_integers():
        return hashlib.sha1(json.dumps(rows, default=str).encode()).hexdigest()[:16]


KIND = TrendCell()


def run_cell(spec: Mapping) -> list[dict]:
    return cells.run_cell(KIND, spec)
