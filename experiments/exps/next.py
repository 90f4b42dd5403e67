"""The ``next`` experiment kind: NEXT Figures 9-11 (Section 6) on eight Poisson sources of 1, 2, 4,
..., 128 events/s (:mod:`experiments.workloads.next`).

* ``fig9`` -- operators supported on one node against query size, with and without rewriting, for
  the next, union and mix workloads.  A cell is (workload, size, seed, original|rewritten): a pool of
  random queries is rewritten (or not), every operator's CPU load measured on the NEXT engine
  (:mod:`experiments.exps.next_measure`), and one simulated node of ``capacity_single`` filled
  (:mod:`algorithms.next.capacity`) with queries drawn from the pool with replacement, in an order
  fixed by the seed -- the same draws for the original and the rewritten queries.
* ``fig10`` -- complex events detected per CPU second against the number of 5-operator queries
  registered on one node, with and without rewriting.  A cell is (workload, queries, seed,
  original|rewritten): the queries run on the engine, unshared, over the sources; nothing is
  simulated.  "The maximum rate of complex event detection" is taken as detections per CPU second at
  the sources' rates (the paper raised the rates until the machine saturated).
* ``fig11`` -- queries supported against the number of nodes for the placement strategies, on the
  next and union workloads.  Cells of kind ``measure`` measure each query pool (original and
  rewritten) once and leave it in ``<out>/measurements/``; cells of kind ``placement`` --
  (workload, seed, strategy, sink proxies) -- place the pool on 1..40 simulated nodes with those
  measured costs, so that every strategy sees the same measurement.

Rows (:mod:`experiments.running.store`): ``dataset`` is ``poisson-8``; ``algorithm`` is original/rewritten
(Figures 9, 10) or the placement strategy (Figure 11); ``x_name``/``x_value`` the swept parameter;
``plan`` a digest of the queries the cell ran, so ``verify`` sees when a rerun drew other queries.
Measured metrics vary from run to run; the pools, plan costs and match counts do not.
"""

from __future__ import annotations

import hashlib
import random
import statistics
import time
from pathlib import Path
from typing import Mapping

import joblib
from omegaconf import DictConfig

from algorithms.next.capacity import simulate
from algorithms.next.costs import query_cost
from algorithms.next.rewrite import rewrite
from cep.errors import ConfigError
from evaluators.next.engine import run_queries
from experiments.exps.kit import common_fields
from experiments.exps.next_measure import measure, query_load
from experiments.running import cells
from experiments.running.execution import Cells, Phase, run_all_cells
from experiments.running.settings import Keys, resolve
from experiments.workloads.next import PAPER_RATES, make_queries, paper_statistics, source_stream

DATASET = "poisson-8"
FIGURES = ("fig9", "fig10", "fig11")
#: the per-scale settings each figure's cells read from ``exp.scales.<scale>`` (:mod:`experiments.running.settings`)
SETTINGS = {"fig9": Keys(("seeds", "duration_s", "capacity_single", "offers_fig9", "patience", "chunk", "pool_fig9")),
            "fig10": Keys(("seeds", "duration_s", "throughput_repeats")),
            "fig11": Keys(("seeds", "duration_s", "capacity", "patience", "chunk", "pool_fig11"))}
ORIGINAL, REWRITTEN = "original", "rewritten"


# ---- building cells ---------------------------------------------------------------------------------
def figure_keys(cfg: DictConfig) -> Keys:
    """The per-scale settings the experiment's figure reads."""
    fig = cfg.exp.figure
    if fig not in FIGURES:
        raise ConfigError(f"exp.figure of a next experiment must be one of {', '.join(FIGURES)}, got {fig!r}")
    return SETTINGS[fig]


def build_specs(cfg: DictConfig, out_dir: Path) -> list[list[dict]]:
    """The cells of the experiment, in phases (a later phase may use what an earlier one left)."""
    exp = cfg.exp
    fig = exp.figure
    sc = resolve(cfg, figure_keys(cfg))
    seeds = [int(s) for s in sc["seeds"]]
    base = common_fields(cfg)
    if fig == "fig9":
        single = {"duration": float(sc["duration_s"]), "chunk": int(sc["chunk"]), "capacity": float(sc["capacity_single"]),
                  "patience": int(sc["patience"]), "pool": int(sc["pool_fig9"]), "offers": int(sc["offers_fig9"])}
        return [[
            {**base, "workload": w, "size": int(size), "seed": s, "algorithm": alg, "kind": "rewrite",
             "pattern_id": f"{w}-{size}-s{s}", "params": single}
            for w in exp.workloads for size in exp.sizes for s in seeds for alg in (ORIGINAL, REWRITTEN)
        ]]
    if fig == "fig10":
        return [[
            {**base, "workload": w, "size": int(exp.query_size), "seed": s, "algorithm": alg, "kind": "rewrite",
             "pattern_id": f"{w}-{exp.query_size}-n{n}-s{s}",
             "params": {"queries": int(n), "duration": float(sc["duration_s"]), "repeats": int(sc["throughput_repeats"])}}
            for w in exp.workloads for n in exp.queries for s in seeds for alg in (ORIGINAL, REWRITTEN)
        ]]
    cache = str(out_dir / "measurements")
    measure_cells, place_cells = [], []
    for w in exp.workloads:
        for s in seeds:
            pid = f"{w}-{exp.query_size}-s{s}"
            pool = {"duration": float(sc["duration_s"]), "chunk": int(sc["chunk"]), "capacity": float(sc["capacity"]),
                    "patience": int(sc["patience"]), "pool": int(sc["pool_fig11"])}
            for alg in (ORIGINAL, REWRITTEN):
                measure_cells.append({**base, "workload": w, "size": int(exp.query_size), "seed": s, "algorithm": alg,
                                      "kind": "measure", "pattern_id": pid, "params": pool, "_cache": cache})
            for sinks in exp.sinks[w]:
                for strategy in exp.strategies:
                    place_cells.append({**base, "workload": w, "size": int(exp.query_size), "seed": s, "algorithm": strategy,
                                        "kind": "placement", "pattern_id": pid, "_cache": cache,
                                        "params": {**pool, "sinks": int(sinks), "nodes": [int(n) for n in exp.nodes]}})
    return [measure_cells, place_cells]


def specs(cfg: DictConfig, out_dir: Path, spark=None) -> list[dict]:
    """Every cell specification of the run, all phases (what ``--estimate`` samples)."""
    return [s for phase in build_specs(cfg, out_dir) for s in phase]


def run(cfg: DictConfig, out_dir: Path) -> int:
    facts = {"datasets": {DATASET: {"sources_events_per_s": PAPER_RATES, "kind": "Poisson (NEXT Section 6), generated"}}}
    phases = [Phase(specs) for specs in build_specs(cfg, out_dir)]
    return run_all_cells(cfg, out_dir, run_cell, Cells(phases, facts), keys=figure_keys(cfg))


# ---- one cell ---------------------------------------------------------------------------------------
def _digest(queries) -> str:
    h = hashlib.sha1()
    for q in queries:
        h.update(str(q).encode())
        h.update(b"\n")
    return h.hexdigest()[:16]


def pool_queries(workload: str, size: int, count: int, seed: int, rewritten: bool):
    """The pool of ``count`` random queries of ``workload`` and ``size`` (NEXT Section 6), rewritten by
    NEXT when asked; and the mean rewriting time (None without rewriting)."""
    qs = make_queries(workload, size, count, seed=seed)
    if not rewritten:
        return qs, None
    results = [rewrite(q, paper_statistics()) for q in qs]
    return [r.rewritten for r in results], statistics.mean(r.plan_time_s for r in results)


def _measure_pool(workload: str, size: int, seed: int, variant: str, pool: int, duration: float, chunk: int,
                  code_version: str | None):
    """The measurement of a pool (:func:`experiments.exps.next_measure.measure`); ``code_version``
    only keys the cache, so that a measurement is reused only by the code that made it."""
    queries, _ = pool_queries(workload, size, pool, seed, variant == REWRITTEN)
    return measure(queries, duration=duration, seed=seed, chunk=chunk)


def measured_pool(spec: Mapping):
    """The cached measurement function of the cell's results folder (``joblib.Memory`` under
    ``<out>/measurements``) and its arguments for ``variant``: a measure cell calls it (forced, so
    that it measures and stores), a placement cell reads what the measure cell stored."""
    p = spec["params"]
    fn = joblib.Memory(spec["_cache"], verbose=0).cache(_measure_pool)

    def args(variant: str):
        return (spec["workload"], int(spec["size"]), int(spec["seed"]), variant, int(p["pool"]), float(p["duration"]),
                int(p["chunk"]), spec.get("_code_version"))

    return fn, args


class NextCell(cells.CellKind):
    """A NEXT cell: a pool of random queries (NEXT Section 6) on the paper's Poisson sources, rewritten by
    NEXT (algorithm ``rewritten``) or not (``original``), then measured on the operator engine.  The
    kinds of Figures 9-11 differ in what they measure (see the module docstring)."""

    x: tuple[str, str] | None = None  # the row's x: (name, spec key or params key)

    def pool_size(self, spec: Mapping) -> int:
        return int(spec["params"]["pool"])

    def variant(self, spec: Mapping) -> str:
        return spec["algorithm"]

    def workload(self, spec: Mapping, stream):
        return self.variant(spec) == REWRITTEN

    def statistics(self, spec: Mapping, stream, workload):
        return paper_statistics()

    def plan_one(self, spec: Mapping, rewritten, stats, algorithm: str) -> cells.Planned:
        queries, rewrite_s = pool_queries(spec["workload"], int(spec["size"]), self.pool_size(spec), int(spec["seed"]), rewritten)
        metrics = {"plan_cost": statistics.mean(query_cost(q, stats) for q in queries)}
        if rewrite_s is not None:
            metrics["plan_time_s"] = rewrite_s
        return cells.Planned(queries, _digest(queries), metrics)

    def x_of(self, spec: Mapping) -> tuple:
        return None, None

    def fields(self, spec: Mapping, algorithm: str) -> dict:
        x_name, x_value = self.x_of(spec)
        return {"dataset": DATASET, "workload": spec["workload"], "size": int(spec["size"]), "kind": spec["kind"],
                "evaluator": "next-engine", "alpha": None, "strategy": None, "params": cells.params_json(spec.get("params")),
                "x_name": x_name, "x_value": None if x_value is None else float(x_value)}


class CapacityCell(NextCell):
    """Figure 9: one simulated node of ``capacity`` filled with queries drawn from the pool with
    replacement, in an order fixed by the seed -- the same draws for the original and the rewritten
    queries -- each operator's CPU load measured on the engine."""

    def x_of(self, spec: Mapping) -> tuple:
        return "query_size", spec["size"]

    def evaluate(self, spec: Mapping, stream, rewritten, planned):
        (alg, p), = planned.items()
        params, queries = spec["params"], p.plan
        m = measure(queries, duration=params["duration"], seed=int(spec["seed"]), chunk=int(params["chunk"]))
        draws = random.Random(f"fig9-draws-{spec['workload']}-{spec['size']}-{spec['seed']}")
        offered = [queries[draws.randrange(len(queries))] for _ in range(int(params["offers"]))]
        r = simulate(offered, nodes=1, strategy="greedy", stats=paper_statistics(), measured=m.operators,
                     machine=m.machine(params["capacity"]), patience=int(params["patience"]))
        return {alg: cells.Evaluated({
            "supported_operators": r.operators, "supported_queries": r.supported,
            "query_cpu_ms": 1e3 * statistics.mean(query_load(m, q) for q in queries),
            "distinct_operators": m.distinct_operators})}


class DetectionCell(NextCell):
    """Figure 10: the queries run unshared on the engine over the sources; complex events detected per
    CPU second (the median of ``repeats`` runs), nothing simulated."""

    def pool_size(self, spec: Mapping) -> int:
        return int(spec["params"]["queries"])

    def x_of(self, spec: Mapping) -> tuple:
        return "queries", spec["params"]["queries"]

    def stream(self, spec: Mapping):
        return source_stream(spec["params"]["duration"], seed=int(spec["seed"]))

    def evaluate(self, spec: Mapping, stream, rewritten, planned):
        (alg, p), = planned.items()
        events = stream.to_events()  # NEXT's engine takes event objects (until it takes columns)
        runs = [run_queries(p.plan, events, share=False, collect=False, measure=False) for _ in range(int(spec["params"]["repeats"]))]
        detections = {r.detections for r in runs}
        assert len(detections) == 1, f"runs of the same queries detected different counts: {sorted(detections)}"
        cpu = statistics.median(r.total_cpu_s for r in runs)
        n = runs[0].detections
        return {alg: cells.Evaluated({
            "complex_events_per_cpu_s": n / cpu, "throughput_eps": len(stream) / statistics.median(r.elapsed_s for r in runs),
            "matches": n, "events": len(stream), "cpu_s": cpu})}


class MeasureCell(NextCell):
    """Figure 11, first phase: measure a pool (original or rewritten) once and store the measurement in
    the results folder's cache, for the placement cells."""

    def evaluate(self, spec: Mapping, stream, rewritten, planned):
        (alg, p), = planned.items()
        fn, args = measured_pool(spec)
        started = time.perf_counter()
        m, _ = fn.call(*args(alg))
        took = time.perf_counter() - started
        return {alg: cells.Evaluated({
            "query_cpu_ms": 1e3 * statistics.mean(query_load(m, q) for q in p.plan), "distinct_operators": m.distinct_operators,
            "send_us": 1e6 * m.send_s, "recv_us": 1e6 * m.recv_s, "measure_s": took})}


class PlacementCell(NextCell):
    """Figure 11, second phase: place the measured pool on 1..n simulated nodes with one strategy (the
    ``rewrite+`` strategies place the rewritten pool), every strategy with the same measurement."""

    def variant(self, spec: Mapping) -> str:
        return REWRITTEN if spec["algorithm"].startswith("rewrite") else ORIGINAL

    def plan_one(self, spec: Mapping, rewritten, stats, algorithm: str) -> cells.Planned:
        p = super().plan_one(spec, rewritten, stats, algorithm)
        return cells.Planned(p.plan, p.digest)  # the pool's plan metrics are the measure cell's rows

    def evaluate(self, spec: Mapping, stream, rewritten, planned):
        (alg, p), = planned.items()
        params = spec["params"]
        fn, args = measured_pool(spec)
        m = fn(*args(self.variant(spec)))
        machine = m.machine(params["capacity"], sinks=int(params["sinks"]))
        series = {}
        for n in params["nodes"]:
            started = time.perf_counter()
            r = simulate(p.plan, nodes=int(n), strategy=alg, stats=self.statistics(spec, None, None), measured=m.operators,
                         machine=machine, patience=int(params["patience"]))
            took = time.perf_counter() - started
            series[n] = {"supported_queries": r.supported, "supported_operators": r.operators, "deployed_operators": r.deployed,
                         "load_variance": r.load_variance, "paper_cost": r.paper_cost, "placement_time_s": took}
        return {alg: cells.Evaluated(x_name="nodes", series=series)}


KINDS = {"fig9": CapacityCell(), "fig10": DetectionCell(), "measure": MeasureCell(), "placement": PlacementCell()}


def run_cell(spec: Mapping) -> list[dict]:
    """One cell's rows (see the module docstring); raises on anything unexpected."""
    return cells.run_cell(KINDS[spec["figure"] if spec["figure"] != "fig11" else spec["kind"]], spec)
