"""The ``motto`` experiment kind: MOTTO's own evaluation (MOTTO Section VII, Figures 13 and 14,
Table V) on the NASDAQ stock data.

Workloads are MOTTO's Table V workloads (:func:`algorithms.motto.workloads.table_v_workload`:
pairs of queries with one of seven sharing types, a fraction ``r`` from the basic group 1-4, the
rest from the complex group 5-7; no duplicate queries; no conditions, as in Table V) over 13 event
types -- the paper's 13 stock symbols -- which are here 13 NASDAQ symbols of the bundled data
(``E_1`` the rarest in the data, ``E_13`` the most frequent).  The stream is those symbols' real
events replayed in the project's regime (:mod:`experiments.data.replay`: per-type rates spread 45x, a
Poisson clock, ``events_per_window`` events of the median type per window of ``window`` seconds --
MOTTO's 10 s), so sharing has room to matter: with the dense regime of the MCEP experiments a
query's output (its matches) dwarfs what a shared sub-query saves.  Each query becomes a pattern of
our language (:meth:`algorithms.motto.Query.to_pattern`); every method's global plan runs on the
multi-pattern tree evaluator.  A cell is one workload (sweep value, seed) with all its methods,
run ``repeats`` times *in turns* (median throughput), so that a slow moment of the shared machine
hits every method alike (timed in separate cells, identical plans differed by up to 1.5x).
The parameters of a workload are the scale's ``base`` (``exp.scales.<scale>``), then the sweep's own
``base`` (every scale: the nesting study's r = 0, MOTTO VII-C), then the scale's ``sweep_base.<sweep>``
(quick runs the core study at 64 queries; the paper at its default 100), then the swept value.

Methods (MOTTO VII-A), all on the same evaluator, with the same DP-B local plans where nothing is
shared, and each MPM merging its leaves (the event buffers, which an MPM shares by definition) and
*only* the sub-trees its method decided to share (``shared_masks`` of :mod:`cep.global_plans`), so
that a gain over NA is the method's decisions and nothing else:

* ``NA`` -- no sharing: every pattern planned alone by DP-B;
* ``MST``, ``LCSE`` -- :mod:`algorithms.motto.baselines` (MST: MOTTO's planner restricted to
  whole-query merge sharing; LCSE: our syntactic reading of longest common sub-expression
  sharing), realized by :func:`algorithms.multi.sh_mdt.sharing_mpm`;
* ``SH-MDT`` -- MOTTO (MST + DST + OTT + nesting + windows, Steiner tree, planned for the MPM), realized
  by :func:`algorithms.multi.sh_mdt.sh_mdt_plan`.

What the MPM cannot run is left out and stated, not faked.  OTT (Table I) shares a query by a
filter over a *weaker* query's output: Filter_sc over a CONJ for a SEQ runs as an MPM filter node
over the CONJ query's shared sub-tree (:mod:`cep.global_plans`, :mod:`algorithms.multi.sh_mdt`), so
Table V's type 6 (the same list under SEQ and CONJ, whose only sharing is OTT) is in the workloads
(``sharing_types: [1, 2, 3, 4, 5, 6, 7]`` in the configs) and the complex group is types 5, 6 and 7;
Filter_cd (over a DISJ) does not arise, Table V having no DISJ.  In type 7 the two queries differ
in their outer operator; their common inner query (the innermost SEQ and the wrappers around it)
is shared as a nested operand.  Type 5's extended source
answering the smaller-window query (a window filter) *is* realized: MPM node keys ignore the window
and every owner checks its own at its root.  MOTTO's costs leave out the event buffers, which the
MPM shares whatever the plan.

MOTTO's Steiner search has two budgets (MOTTO V-B, VII-C): ``budget_s`` seconds for the exact
branch and bound (a node of it is no neighbour: it has none in evaluated neighbours), then, when it
does not finish, simulated annealing of ``search_neighbours`` evaluated neighbours
(:mod:`algorithms.effort`: one Steiner vertex flipped and the tree costed), with no clock; the
calibration against the paper's 20 s of annealing is in docs/motto.md ("Search effort").

Sweeps (``x_name``): ``r`` (Figure 13a, the basic-workload ratio); ``queries`` (Figure 14a: SH-MDT with
MOTTO's Steiner tree found by the exact MILP branch and bound within ``budget_s`` and by simulated
annealing alone, on one sharing graph built as SH-MDT builds it from the stream's statistics
(:func:`solver_plans`) -- each search's time, MOTTO's planned gain and whether the exact search
finished -- and both plans with NA, the normalizer, timed in turns on the evaluator);
``window_ratio`` (Figure 14c, source window over beneficiary window, the larger of the two equal to
``window``); ``nesting`` (Figure 14d, the nesting level of type-7 queries, r = 0); ``cores`` (Figure
14b: one workload's global plan of the sweep's one method split into ``k`` groups that keep shared
sub-trees together, run as ``k`` Spark tasks on a session of ``k`` cores -- ``local[k]``, or ``k``
one-core executors of the Spark runner's ``spark://`` master -- throughput measured at the driver,
the median of ``cores_repeats`` runs after a warm-up, over a longer stream of ``cores_windows``
windows; beside it the same plan once in one thread of the driver, whose per-pattern counts the
parallel run must equal; :mod:`experiments.exps.motto_parallel`).  A
core cell starts and stops its own SparkSession, which a Spark task cannot do (one SparkContext per
JVM): :func:`run` runs the other cells on the configured runner first, stops the runner's session,
then runs the core cells in the driver one after the other.  On a 2-core machine the throughput can
only flatten past 2 cores.

Rows (:mod:`experiments.running.store`): ``workload`` ``motto``; ``algorithm`` the method (``NA``, ``exact`` or
``annealing`` in the queries sweep; in the cores sweep the method, and ``serial`` for its plan in one
thread of the driver); ``x_name``/``x_value``; metrics ``throughput_eps``, ``matches``, ``events``,
``work``, ``peak_partial_matches``, ``plan_cost`` (our Cost_tree^multi of the MPM), ``trivial_cost``,
``plan_time_s``, ``shared_nodes`` (internal MPM nodes with two or more owners), for MST and SH-MDT
``planned_gain`` (MOTTO's own objective: its trivial plan's cost over its Steiner tree's) and
``neighbours_evaluated`` (its annealing's; 0 when the exact search finished); in the
queries sweep for exact and annealing ``optimizer_s``, ``planned_gain``, ``graph_vertices``,
``graph_arcs``, ``graph_build_s``, ``neighbours_evaluated`` and for exact ``finished`` (1 if the MILP finished within its
budget); in the cores sweep ``elapsed_s`` (the parallel run's wall time at the driver, median),
``throughput_spread`` (slowest over fastest run), ``parallel_groups``, ``speedup_bound`` (the whole
plan's planned cost over the largest group's), ``copied_nodes`` (internal nodes two or more groups
compute, one copy each), ``slowest_task_s`` (the slowest task's own detection time, median) and
``parallel_mismatches`` (patterns whose k-task counts differ from the one-thread run's).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path

from omegaconf import DictConfig

import experiments.exps.kit as kit
from algorithms.multi import plan_workload, sh_mdt
from algorithms.multi.costs import cost_multi, workload_models
from cep.errors import ConfigError
from cep.global_plans import workload_clauses
from evaluators.multi import evaluate_workload
from experiments.data.statistics import estimate_workload_statistics
from experiments.data.streams import experiment_stream
from experiments.exps.motto_parallel import check_cores, cores_session, group_payloads, partition_plan, run_parallel
from experiments.running import cells
from experiments.running.execution import Cells, Phase, run_all_cells
from experiments.running.settings import Keys, resolve
from experiments.workloads.motto import table_v_patterns

SWEEPS = ("r", "queries", "window_ratio", "nesting", "cores")
METHODS = ("NA", "MST", "LCSE", "SH-MDT")  # planner names of algorithms.multi.registry
OPTIMIZERS = ("exact", "annealing")  # MOTTO's Steiner search, forced one way (the queries sweep, beside NA)
PARAMS = ("queries", "r", "length", "level", "window", "window_ratio", "budget_s", "search_neighbours", "sharing_types")
PARAM_OF = {"r": "r", "queries": "queries", "window_ratio": "window_ratio", "nesting": "level", "cores": "cores"}  # sweep -> parameter
#: the per-scale settings of ``exp.scales.<scale>`` (:mod:`experiments.running.settings`)
SETTINGS = Keys(("type_pool", "events_per_window", "windows", "seeds", "repeats", "max_partial_matches", "max_work", "base",
                 "values"), ("rate_ratio", "min_events", "cores_repeats", "cores_windows", "sweep_base", "value_order"))


def build_specs(cfg: DictConfig) -> list[dict]:
    exp = cfg.exp
    sc = resolve(cfg, SETTINGS)
    base = dict(sc["base"])
    unknown = sorted(set(base) - set(PARAMS))
    if unknown:
        raise ConfigError(f"unknown parameter {unknown[0]!r} in {exp.name}; known: {', '.join(PARAMS)}")
    dname, stream = kit.replayed_pool_stream(cfg, sc, base["window"], 13)
    # the core study's runs are one Spark job each: a longer stream (cores_windows) keeps the job's
    # scheduling a small part of its time
    cores_stream = {**stream, "replay": {**stream["replay"], "windows": float(sc.get("cores_windows", sc["windows"]))}}
    common = kit.common_fields(cfg, dataset=dname)
    extra = kit.extra_planners(cfg, multi=True)
    specs = []
    for name, sweep in kit.checked_sweeps(exp, SWEEPS):
        # a sweep's own base values: every scale's (the sweep's base), then this scale's (scales.<s>.sweep_base)
        sweep_base = {**(sweep.get("base") or {}), **(sc.get("sweep_base") or {}).get(name, {})}
        unknown_params = sorted(set(sweep_base) - set(PARAMS))
        if unknown_params:
            raise ConfigError(f"unknown parameter {unknown_params[0]!r} in the {name} sweep of {exp.name}; known: {', '.join(PARAMS)}")
        algs = list(sweep["algorithms"])
        known = ("NA",) + OPTIMIZERS if name == "queries" else tuple(METHODS)
        bad = [a for a in algs if a not in known]
        if bad:
            raise ConfigError(f"unknown method {bad[0]!r} in the {name} sweep of {exp.name}; known: {', '.join(known)}")
        if name == "queries" and "NA" not in algs:
            raise ConfigError(f"the queries sweep of {exp.name} needs NA (the throughput normalizer) among its methods")
        if name == "cores" and len(algs) != 1:
            raise ConfigError(f"the cores sweep of {exp.name} runs one method's global plan, got {len(algs)}: {algs}")
        values = sc["values"].get(name) if name in sc["values"] else None
        if values is None:
            raise ConfigError(f"no values for the {name} sweep of {exp.name} at this scale (scales.<scale>.values.{name})")
        for v in values:
            if name == "cores":
                check_cores(v)
            for seed in sc["seeds"]:
                params = {**base, **sweep_base, PARAM_OF[name]: v, "repeats": int(sc["repeats"]),
                          **kit.evaluation_caps(sc)}
                spec = {**common, "x_name": name, "x_value": v, "seed": int(seed), "algorithms": algs,
                        "pattern_id": f"{name}={v}-s{seed}", "params": params, "stream": stream}
                if name == "cores":  # the runs' own Spark sessions (experiments.exps.motto_parallel.cores_master), a longer stream
                    params["repeats"] = int(sc.get("cores_repeats", params["repeats"]))
                    spec["spark_master"] = spark_master_of(cfg)
                    spec["stream"] = cores_stream
                specs.append(spec)  # every method of a workload in one cell, timed in turns
                if name not in ("queries", "cores"):  # +extra_planners: a cell of its own (the configured cells keep their ids)
                    specs += [{**spec, "algorithms": [a]} for a in extra if a not in algs]
    return specs


def spark_master_of(cfg: DictConfig) -> str | None:
    """The standalone master the core study uses (the Spark runner's ``spark://`` master), or None
    (``local[k]``)."""
    r = cfg.get("runner") or {}
    m = r.get("master") if r.get("name") == "spark" else None
    return str(m) if m and str(m).startswith("spark://") else None


def specs(cfg: DictConfig, out_dir: Path, spark=None) -> list[dict]:
    """Every cell specification of the run (what ``--estimate`` samples)."""
    return build_specs(cfg)


def run(cfg: DictConfig, out_dir: Path) -> int:
    """The cells on the configured runner, then the core study's cells in the driver, one after the
    other: each starts its own SparkSession of ``k`` cores, which a Spark task cannot do (one
    SparkContext per JVM)."""
    specs = build_specs(cfg)
    pooled = [s for s in specs if s["x_name"] != "cores"]
    driver = [s for s in specs if s["x_name"] == "cores"]
    masters = sorted({s.get("spark_master") or "local[k]" for s in driver})
    facts = {"driver_cells": {"cells": len(driver), "runner": "serial, in the driver", "spark_masters": masters}}
    phases = [Phase(pooled)] * bool(pooled) + [Phase(driver, in_driver=True, facts=facts)] * bool(driver)
    return run_all_cells(cfg, out_dir, run_cell, Cells(phases), keys=SETTINGS)


# ---- one cell ----------------------------------------------------------------------------------------
def search_neighbours(params: Mapping) -> int | None:
    """The annealing's budget in evaluated neighbours (``search_neighbours``; None: MOTTO's default,
    :data:`algorithms.multi.sh_mdt.MOTTO_SA_NEIGHBOURS`, within the time budget)."""
    return kit.neighbours_param(params, "search_neighbours of the motto experiment")


def solver_plans(patterns, stats, *, budget_s: float, seed: int, neighbours: int | None = None) -> dict:
    """SH-MDT's MPM with MOTTO's Steiner tree found each way (Figure 14a): ``"exact"`` by the MILP
    branch and bound within ``budget_s`` (its incumbent if it stops at the budget), ``"annealing"``
    by simulated annealing alone from scratch, of ``neighbours`` evaluated neighbours
    (:func:`algorithms.multi.sh_mdt.sh_mdt_plan` with ``solver``: the same sharing graph and mapping
    as SH-MDT).  Per method: the MPM, the MOTTO plan, the search's seconds, whether it finished; and
    the graph's size and build time."""
    clauses = workload_clauses(patterns)
    models = workload_models(clauses, stats)
    out: dict = {}
    for name in OPTIMIZERS:
        gplan, mp = sh_mdt.sh_mdt_plan(patterns, clauses, models, stats, time_budget_s=budget_s, seed=seed, solver=name,
                                       max_neighbours=neighbours)
        out[name] = {"plan": gplan, "motto": mp, "seconds": mp.search_seconds, "finished": mp.method == "exact"}
        out.update(graph=mp.graph_size, build_s=mp.optimizer_seconds - mp.search_seconds, trivial_cost=mp.trivial_cost)
    return out


def _shared_internal_nodes(gplan) -> int:
    return sum(1 for n in gplan.shared_nodes() if not n.is_leaf)


class MottoCell(cells.CellKind):
    """A MOTTO cell (Figure 13a, 14c, 14d): one Table V workload over the replayed pool, statistics
    estimated on the stream, every method's global plan, all plans evaluated ``repeats`` times in
    turns (median throughput) so that a slow moment of the shared machine hits every method alike."""

    def stream(self, spec: Mapping):
        return experiment_stream(spec["stream"])

    def workload(self, spec: Mapping, stream):
        return table_v_patterns(spec["params"], spec["stream"]["pool"], stream.type_counts(), seed=int(spec["seed"]),
                                window_ratio=spec["x_name"] == "window_ratio")

    def statistics(self, spec: Mapping, stream, patterns):
        return estimate_workload_statistics(stream, patterns, seed=int(spec["seed"]))

    def algorithms(self, spec: Mapping) -> list[str]:
        return list(spec["algorithms"])

    def plan_one(self, spec: Mapping, patterns, stats, algorithm: str) -> cells.Planned:
        r = plan_workload(patterns, algorithm, stats, seed=int(spec["seed"]), time_limit=float(spec["params"]["budget_s"]),
                          motto_neighbours=search_neighbours(spec["params"]))
        metrics = {}
        if algorithm in ("MST", "SH-MDT") and r.motto is not None:  # MOTTO's own objective, and its annealing's effort
            mp = r.motto
            metrics["planned_gain"] = mp.trivial_cost / mp.cost if mp.cost > 0 else None
            metrics["neighbours_evaluated"] = r.neighbours
        metrics.update(plan_cost=r.cost, trivial_cost=r.trivial_cost, plan_time_s=r.plan_time_s,
                       shared_nodes=_shared_internal_nodes(r.plan))
        return cells.Planned(r.plan, kit.plan_digest(r.plan), metrics)

    def evaluate(self, spec: Mapping, stream, patterns, planned):
        """Every plan over the stream, ``repeats`` times in turns; a plan past a cap stops being run."""
        return kit.evaluate_in_turns(patterns, planned, stream, spec["params"])

    def fields(self, spec: Mapping, algorithm: str) -> dict:
        evaluator = "spark-tasks" if spec["x_name"] == "cores" and algorithm != "serial" else "tree"
        return {"dataset": spec["dataset"], "workload": "motto", "size": int(spec["params"]["queries"]), "kind": "multi",
                "evaluator": evaluator, "alpha": 0.0, "strategy": None, "params": cells.params_json(spec["params"]),
                "x_name": spec["x_name"], "x_value": float(spec["x_value"])}


class SolverCell(MottoCell):
    """Figure 14a: NA and SH-MDT with MOTTO's exact and annealing Steiner searches (:func:`solver_plans`)
    on one workload: the optimizer side (seconds, MOTTO's planned gain, whether the exact search
    finished, the graph) and every plan on the evaluator, timed in turns."""

    def plan(self, spec: Mapping, patterns, stats) -> dict[str, cells.Planned]:
        p = spec["params"]
        sp = solver_plans(patterns, stats, budget_s=float(p["budget_s"]), seed=int(spec["seed"]), neighbours=search_neighbours(p))
        models = workload_models(sp["exact"]["plan"], stats)
        out = {}
        for alg in self.algorithms(spec):
            if alg == "NA":
                r = plan_workload(patterns, "NA", stats, seed=int(spec["seed"]), time_limit=float(p["budget_s"]))
                gplan, cost = r.plan, r.cost
            else:
                gplan, cost = sp[alg]["plan"], cost_multi(sp[alg]["plan"], models)
            metrics = {"plan_cost": cost, "shared_nodes": _shared_internal_nodes(gplan)}
            if alg != "NA":
                mp = sp[alg]["motto"]
                metrics.update(optimizer_s=sp[alg]["seconds"], planned_gain=mp.trivial_cost / mp.cost if mp.cost > 0 else None,
                               neighbours_evaluated=mp.neighbours,
                               graph_vertices=sp["graph"]["vertices"], graph_arcs=sp["graph"]["arcs"], graph_build_s=sp["build_s"])
                if alg == "exact":
                    metrics["finished"] = 1.0 if sp[alg]["finished"] else 0.0
            out[alg] = cells.Planned(gplan, kit.plan_digest(gplan, shared_nodes=True), metrics)
        return out


def parallel_mismatches(parallel: Sequence[int], serial: Sequence[int]) -> int:
    """How many patterns the k-task run detected a different number of matches for than the
    single-thread run (a pattern one run lacks counts as differing)."""
    parallel, serial = list(parallel), list(serial)
    return sum(a != b for a, b in zip(parallel, serial)) + abs(len(parallel) - len(serial))


class CoresCell(MottoCell):
    """Figure 14b: one workload's global plan (the sweep's one method) partitioned into ``cores`` groups
    and run as that many Spark tasks on a session of that many cores
    (:mod:`experiments.exps.motto_parallel`); beside it the same plan in one thread of the driver
    (algorithm ``serial``).  Runs in the driver (:func:`run`), never in a Spark task.  The parallel
    run's per-pattern counts are compared with the driver's: the patterns that differ are the cell's
    ``parallel_mismatches`` (a result, stored like any other, so the report's claim can fail)."""

    def plan_one(self, spec: Mapping, patterns, stats, algorithm: str) -> cells.Planned:
        p = spec["params"]
        r = plan_workload(patterns, algorithm, stats, seed=int(spec["seed"]), time_limit=float(p["budget_s"]),
                          motto_neighbours=search_neighbours(p))
        part = partition_plan(r.plan, workload_models(r.plan, stats), check_cores(p["cores"]))
        metrics = {"plan_cost": part.total_cost, "parallel_groups": len(part.groups), "speedup_bound": part.speedup_bound,
                   "copied_nodes": part.copied_nodes}
        return cells.Planned((r.plan, part), kit.plan_digest(r.plan, shared_nodes=True), metrics)

    def evaluate(self, spec: Mapping, stream, patterns, planned):
        p = spec["params"]
        k = check_cores(p["cores"])
        (alg, planned_alg), = planned.items()
        gplan, part = planned_alg.plan
        serial = evaluate_workload(patterns, gplan, stream.to_stream(), collect_matches=False, **kit.evaluation_caps(p))  # the reference counts (event objects)
        payloads = group_payloads(patterns, gplan, part, spec["stream"], **kit.evaluation_caps(p))
        with cores_session(k, spec.get("spark_master")) as spark:
            run = run_parallel(spark, payloads, repeats=int(p["repeats"]))
        m = serial.metrics
        return {
            alg: cells.Evaluated({
                "throughput_eps": run.throughput_eps, "elapsed_s": statistics.median(run.wall_s),
                "throughput_spread": max(run.wall_s) / min(run.wall_s), "events": run.events, "matches": sum(run.counts),
                "work": run.work, "slowest_task_s": statistics.median([max(t) for t in run.task_s]),
                "parallel_mismatches": parallel_mismatches(run.counts, serial.counts)}),
            "serial": cells.Evaluated({"throughput_eps": m["throughput_eps"], "matches": m["matches"], "work": m["work"]},
                                      digest=planned_alg.digest),
        }


MOTTO, SOLVERS, CORES = MottoCell(), SolverCell(), CoresCell()


def cell_kind(spec: Mapping) -> cells.CellKind:
    """The cell kind that runs ``spec``: the solver and core studies' own, else the MOTTO cell."""
    return {"queries": SOLVERS, "cores": CORES}.get(spec["x_name"], MOTTO)


def run_cell(spec: Mapping) -> list[dict]:
    return cells.run_cell(cell_kind(spec), spec)
