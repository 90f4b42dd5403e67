"""The ``next`` experiment kind: NEXT Figures 9-11 (Section 6) on eight Poisson sources of 1, 2, 4,
..., 128 events/s (:mod:`experiments.workloads.next`).

* ``fig9`` -- operators supported on one node against query size, with and without rewriting, for
  the next, union and mix workloads.  A cell is (workload, size, seed, original|rewritten): a pool of
  random queries is rewritten (or not), every operator's CPU load measured on the NEXT engine
  (:mod:`experiments.running.next_measure`), and one simulated node of ``capacity_single`` filled
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
import json
import statistics
import time
from pathlib import Path
from typing import Mapping

from omegaconf import DictConfig, OmegaConf

from cep.errors import ConfigError

DATASET = "poisson-8"
FIGURES = ("fig9", "fig10", "fig11")
ORIGINAL, REWRITTEN = "original", "rewritten"


# ---- building cells ---------------------------------------------------------------------------------
def build_specs(cfg: DictConfig, out_dir: Path) -> list[list[dict]]:
    """The cells of the experiment, in phases (a later phase may use what an earlier one left)."""
    from experiments.running.metadata import git_commit

    exp, sc = cfg.exp, cfg.scale.next
    fig = exp.figure
    if fig not in FIGURES:
        raise ConfigError(f"exp.figure of a next experiment must be one of {', '.join(FIGURES)}, got {fig!r}")
    seeds = [int(s) for s in sc.seeds]
    base = {"experiment": exp.name, "figure": fig, "_code_version": git_commit()}
    common = {"duration": float(sc.duration_s), "chunk": int(sc.chunk), "capacity": float(sc.capacity), "patience": int(sc.patience)}
    if fig == "fig9":
        single = {**common, "capacity": float(sc.capacity_single), "pool": int(sc.pool_fig9), "offers": int(sc.offers_fig9)}
        return [[
            {**base, "workload": w, "size": int(size), "seed": s, "algorithm": alg, "kind": "rewrite",
             "pattern_id": f"{w}-{size}-s{s}", "params": single}
            for w in exp.workloads for size in exp.sizes for s in seeds for alg in (ORIGINAL, REWRITTEN)
        ]]
    if fig == "fig10":
        return [[
            {**base, "workload": w, "size": int(exp.query_size), "seed": s, "algorithm": alg, "kind": "rewrite",
             "pattern_id": f"{w}-{exp.query_size}-n{n}-s{s}",
             "params": {"queries": int(n), "duration": float(sc.duration_s), "repeats": int(sc.throughput_repeats)}}
            for w in exp.workloads for n in exp.queries for s in seeds for alg in (ORIGINAL, REWRITTEN)
        ]]
    cache = str(out_dir / "measurements")
    measure_cells, place_cells = [], []
    for w in exp.workloads:
        for s in seeds:
            pid = f"{w}-{exp.query_size}-s{s}"
            pool = {**common, "pool": int(sc.pool_fig11)}
            for alg in (ORIGINAL, REWRITTEN):
                measure_cells.append({**base, "workload": w, "size": int(exp.query_size), "seed": s, "algorithm": alg,
                                      "kind": "measure", "pattern_id": pid, "params": pool, "_cache": cache})
            for sinks in exp.sinks[w]:
                for strategy in exp.strategies:
                    place_cells.append({**base, "workload": w, "size": int(exp.query_size), "seed": s, "algorithm": strategy,
                                        "kind": "placement", "pattern_id": pid, "_cache": cache,
                                        "params": {**pool, "sinks": int(sinks), "nodes": [int(n) for n in exp.nodes]}})
    return [measure_cells, place_cells]


def run(cfg: DictConfig, out_dir: Path) -> int:
    from experiments.running.execution import execute_cells
    from experiments.running.metadata import RunMetadata
    from experiments.workloads.next import PAPER_RATES
    from experiments.running.runners import make_runner

    meta = RunMetadata(out_dir / "metadata.json", OmegaConf.to_container(cfg, resolve=True))
    phases = build_specs(cfg, out_dir)
    runner = make_runner(cfg.runner)
    try:
        meta.update(**runner.describe())
        meta.update(datasets={DATASET: {"sources_events_per_s": PAPER_RATES, "kind": "Poisson (NEXT Section 6), generated"}})
        failed = 0
        for specs in phases:
            failed += execute_cells(cfg, out_dir, specs, run_cell, runner=runner, meta=meta,
                                    configuration=[c for phase in phases for c in phase])
        return failed
    finally:
        runner.close()


# ---- running one cell -------------------------------------------------------------------------------
def run_cell(spec: Mapping) -> list[dict]:
    """One cell's rows (see the module docstring); raises on anything unexpected."""
    fig, kind = spec["figure"], spec["kind"]
    if fig == "fig9":
        return _fig9(spec)
    if fig == "fig10":
        return _fig10(spec)
    return _measure_cell(spec) if kind == "measure" else _placement_cell(spec)


def _pool(spec: Mapping, count: int, rewritten: bool):
    """The cell's queries (rewritten by NEXT when asked) and the mean rewriting time."""
    from algorithms.next.rewrite import rewrite
    from experiments.workloads.next import make_queries, paper_statistics

    qs = make_queries(spec["workload"], int(spec["size"]), count, seed=int(spec["seed"]))
    if not rewritten:
        return qs, None, [None] * len(qs)
    st = paper_statistics()
    results = [rewrite(q, st) for q in qs]
    return [r.rewritten for r in results], statistics.mean(r.plan_time_s for r in results), results


def _digest(queries) -> str:
    h = hashlib.sha1()
    for q in queries:
        h.update(str(q).encode())
        h.update(b"\n")
    return h.hexdigest()[:16]


def _row(spec: Mapping, metric: str, value, *, plan: str, x_name: str, x_value, params: dict | None = None) -> dict:
    from experiments.running.store import cell_id

    return {
        "experiment": spec["experiment"],
        "dataset": DATASET,
        "workload": spec["workload"],
        "size": int(spec["size"]),
        "pattern_id": spec["pattern_id"],
        "seed": int(spec["seed"]),
        "algorithm": spec["algorithm"],
        "kind": spec["kind"],
        "evaluator": "next-engine",
        "alpha": None,
        "strategy": None,
        "metric": metric,
        "value": None if value is None else float(value),
        "status": "ok",
        "plan": plan,
        "params": json.dumps(params if params is not None else spec.get("params") or {}, sort_keys=True),
        "cell_id": cell_id(spec),
        "code_version": spec.get("_code_version"),
        "x_name": x_name,
        "x_value": None if x_value is None else float(x_value),
    }


def _fig9(spec: Mapping) -> list[dict]:
    from algorithms.next.capacity import simulate
    from algorithms.next.costs import query_cost
    from experiments.running.next_measure import measure, query_load
    from experiments.workloads.next import paper_statistics

    import random

    p = spec["params"]
    rewritten = spec["algorithm"] == REWRITTEN
    queries, rewrite_s, _ = _pool(spec, int(p["pool"]), rewritten)
    st = paper_statistics()
    m = measure(queries, duration=p["duration"], seed=int(spec["seed"]), chunk=int(p["chunk"]))
    draws = random.Random(f"fig9-draws-{spec['workload']}-{spec['size']}-{spec['seed']}")
    offered = [queries[draws.randrange(len(queries))] for _ in range(int(p["offers"]))]
    r = simulate(offered, nodes=1, strategy="greedy", stats=st, measured=m.operators,
                 machine=m.machine(p["capacity"]), patience=int(p["patience"]))
    plan = _digest(queries)
    x = ("query_size", spec["size"])
    rows = [
        _row(spec, "supported_operators", r.operators, plan=plan, x_name=x[0], x_value=x[1]),
        _row(spec, "supported_queries", r.supported, plan=plan, x_name=x[0], x_value=x[1]),
        _row(spec, "query_cpu_ms", 1e3 * statistics.mean(query_load(m, q) for q in queries), plan=plan, x_name=x[0], x_value=x[1]),
        _row(spec, "plan_cost", statistics.mean(query_cost(q, st) for q in queries), plan=plan, x_name=x[0], x_value=x[1]),
        _row(spec, "distinct_operators", m.distinct_operators, plan=plan, x_name=x[0], x_value=x[1]),
    ]
    if rewrite_s is not None:
        rows.append(_row(spec, "plan_time_s", rewrite_s, plan=plan, x_name=x[0], x_value=x[1]))
    return rows


def _fig10(spec: Mapping) -> list[dict]:
    from algorithms.next.costs import query_cost
    from evaluators.next.engine import run_queries
    from experiments.workloads.next import paper_statistics, source_stream

    p = spec["params"]
    rewritten = spec["algorithm"] == REWRITTEN
    queries, rewrite_s, _ = _pool(spec, int(p["queries"]), rewritten)
    stream = source_stream(p["duration"], seed=int(spec["seed"]))
    runs = [run_queries(queries, stream, share=False, collect=False, measure=False) for _ in range(int(p["repeats"]))]
    detections = {r.detections for r in runs}
    assert len(detections) == 1, f"runs of the same queries detected different counts: {sorted(detections)}"
    cpu = statistics.median(r.total_cpu_s for r in runs)
    wall = statistics.median(r.elapsed_s for r in runs)
    n = runs[0].detections
    plan = _digest(queries)
    x = ("queries", p["queries"])
    st = paper_statistics()
    rows = [
        _row(spec, "complex_events_per_cpu_s", n / cpu, plan=plan, x_name=x[0], x_value=x[1]),
        _row(spec, "throughput_eps", len(stream) / wall, plan=plan, x_name=x[0], x_value=x[1]),
        _row(spec, "matches", n, plan=plan, x_name=x[0], x_value=x[1]),
        _row(spec, "events", len(stream), plan=plan, x_name=x[0], x_value=x[1]),
        _row(spec, "cpu_s", cpu, plan=plan, x_name=x[0], x_value=x[1]),
        _row(spec, "plan_cost", statistics.mean(query_cost(q, st) for q in queries), plan=plan, x_name=x[0], x_value=x[1]),
    ]
    if rewrite_s is not None:
        rows.append(_row(spec, "plan_time_s", rewrite_s, plan=plan, x_name=x[0], x_value=x[1]))
    return rows


def _cache_path(spec: Mapping, variant: str) -> Path:
    p = spec["params"]
    key = f"{spec['workload']}-{spec['size']}-s{spec['seed']}-{variant}-pool{p['pool']}-d{p['duration']:g}-c{p['chunk']}"
    return Path(spec["_cache"]) / f"{key}.json"


def _measured_pool(spec: Mapping, variant: str):
    """The pool of ``variant`` and its measurement: from the cache an earlier cell left, else made now."""
    from experiments.running.next_measure import load_measurement, measure, save_measurement

    p = spec["params"]
    queries, rewrite_s, _ = _pool(spec, int(p["pool"]), variant == REWRITTEN)
    path = _cache_path(spec, variant)
    m = load_measurement(path)
    if m is None:
        m = measure(queries, duration=p["duration"], seed=int(spec["seed"]), chunk=int(p["chunk"]))
        try:
            save_measurement(m, path)
        except OSError:
            pass  # a worker that cannot write there measures again next time
    return queries, rewrite_s, m


def _measure_cell(spec: Mapping) -> list[dict]:
    from algorithms.next.costs import query_cost
    from experiments.running.next_measure import measure, query_load, save_measurement
    from experiments.workloads.next import paper_statistics

    p = spec["params"]
    variant = spec["algorithm"]
    queries, rewrite_s, _ = _pool(spec, int(p["pool"]), variant == REWRITTEN)
    started = time.perf_counter()
    m = measure(queries, duration=p["duration"], seed=int(spec["seed"]), chunk=int(p["chunk"]))
    took = time.perf_counter() - started
    save_measurement(m, _cache_path(spec, variant))
    st = paper_statistics()
    plan = _digest(queries)
    rows = [
        _row(spec, "query_cpu_ms", 1e3 * statistics.mean(query_load(m, q) for q in queries), plan=plan, x_name=None, x_value=None),
        _row(spec, "distinct_operators", m.distinct_operators, plan=plan, x_name=None, x_value=None),
        _row(spec, "send_us", 1e6 * m.send_s, plan=plan, x_name=None, x_value=None),
        _row(spec, "recv_us", 1e6 * m.recv_s, plan=plan, x_name=None, x_value=None),
        _row(spec, "plan_cost", statistics.mean(query_cost(q, st) for q in queries), plan=plan, x_name=None, x_value=None),
        _row(spec, "measure_s", took, plan=plan, x_name=None, x_value=None),
    ]
    if rewrite_s is not None:
        rows.append(_row(spec, "plan_time_s", rewrite_s, plan=plan, x_name=None, x_value=None))
    return rows


def _placement_cell(spec: Mapping) -> list[dict]:
    from algorithms.next.capacity import simulate
    from experiments.workloads.next import paper_statistics

    p = spec["params"]
    variant = REWRITTEN if spec["algorithm"].startswith("rewrite") else ORIGINAL
    queries, _, m = _measured_pool(spec, variant)
    st = paper_statistics()
    machine = m.machine(p["capacity"], sinks=int(p["sinks"]))
    plan = _digest(queries)
    rows = []
    for n in p["nodes"]:
        started = time.perf_counter()
        r = simulate(queries, nodes=int(n), strategy=spec["algorithm"], stats=st, measured=m.operators,
                     machine=machine, patience=int(p["patience"]))
        took = time.perf_counter() - started
        for metric, value in (("supported_queries", r.supported), ("supported_operators", r.operators),
                              ("deployed_operators", r.deployed), ("load_variance", r.load_variance),
                              ("paper_cost", r.paper_cost), ("placement_time_s", took)):
            rows.append(_row(spec, metric, value, plan=plan, x_name="nodes", x_value=n))
    return rows
