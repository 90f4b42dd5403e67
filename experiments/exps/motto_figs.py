"""The ``motto`` experiment kind: MOTTO's own evaluation (MOTTO Section VII, Figures 13 and 14,
Table V) on the NASDAQ stock data.

Workloads are MOTTO's Table V workloads (:func:`algorithms.motto.workloads.table_v_workload`:
pairs of queries with one of seven sharing types, a fraction ``r`` from the basic group 1-4, the
rest from the complex group 5-7; no duplicate queries; no conditions, as in Table V) over 13 event
types -- the paper's 13 stock symbols -- which are here 13 NASDAQ symbols of the bundled data
(``E_1`` the rarest in the data, ``E_13`` the most frequent).  The stream is those symbols' real
events replayed in the project's regime (:mod:`experiments.replay`: per-type rates spread 45x, a
Poisson clock, ``events_per_window`` events of the median type per window of ``window`` seconds --
MOTTO's 10 s), so sharing has room to matter: with the dense regime of the MCEP experiments a
query's output (its matches) dwarfs what a shared sub-query saves.  Each query becomes a pattern of
our language (:meth:`algorithms.motto.Query.to_pattern`); every method's global plan runs on the
multi-pattern tree evaluator.  A cell is one workload (sweep value, seed) with all its methods,
run ``repeats`` times *in turns* (median throughput), so that a slow moment of the shared machine
hits every method alike (timed in separate cells, identical plans differed by up to 1.5x).

Methods (MOTTO VII-A), all on the same evaluator, with the same DP-B local plans where nothing is
shared, and each MPM merging its leaves (the event buffers, which an MPM shares by definition) and
*only* the sub-trees its method decided to share (``shared_masks`` of :mod:`cep.global_plans`), so
that a gain over NA is the method's decisions and nothing else:

* ``NA`` -- no sharing: every pattern planned alone by DP-B;
* ``MST``, ``LCSE`` -- :mod:`algorithms.motto.baselines` (MST: MOTTO's planner restricted to
  whole-query merge sharing; LCSE: our syntactic reading of longest common sub-expression
  sharing), realized by :func:`algorithms.multi.sh_mdt.sharing_mpm`;
* ``SH-MDT`` -- MOTTO (MST + DST + nesting + windows, Steiner tree, planned for the MPM), realized
  by :func:`algorithms.multi.sh_mdt.sh_mdt_plan`.

What the MPM cannot run is left out and stated, not faked.  OTT (Table I) shares a query by a
filter over a *weaker* query's output: Filter_sc over a CONJ for a SEQ runs as an MPM filter node
over the CONJ query's shared sub-tree (:mod:`cep.global_plans`, :mod:`algorithms.multi.sh_mdt`), so
Table V's type 6 (the same list under SEQ and CONJ, whose only sharing is OTT) is in the workloads
(``sharing_types: [1, 2, 3, 4, 5, 6, 7]`` in the configs) and the complex group is types 5, 6 and 7;
Filter_cd (over a DISJ) does not arise, Table V having no DISJ.  In type 7 the two queries differ in their outer operator; their common inner query (the
innermost SEQ and the wrappers around it) is shared as a nested operand.  Type 5's extended source
answering the smaller-window query (a window filter) *is* realized: MPM node keys ignore the window
and every owner checks its own at its root.  MOTTO's costs leave out the event buffers, which the
MPM shares whatever the plan.  DISJ does not occur in Table V's templates.

Sweeps (``x_name``): ``r`` (Figure 13a, the basic-workload ratio); ``queries`` (Figure 14a, the
optimizer side only: MOTTO's exact Steiner search against annealing, time and planned gain, by
:func:`algorithms.motto.measure.measure` on its seeded rates); ``window_ratio`` (Figure 14c, source
window over beneficiary window, the larger of the two equal to ``window``); ``nesting`` (Figure 14d,
the nesting level of type-7 queries, r = 0).  Figure 14b (1 to 6 CPU cores) is not run: the
machine has 2 cores and the multi-pattern evaluator is single-threaded.

Rows (:mod:`experiments.store`): ``workload`` ``motto``; ``algorithm`` the method (``exact`` or
``annealing`` in the queries sweep); ``x_name``/``x_value``; metrics ``throughput_eps``,
``matches``, ``events``, ``work``, ``peak_partial_matches``, ``plan_cost`` (our Cost_tree^multi of
the MPM), ``trivial_cost``, ``plan_time_s``, ``shared_nodes`` (internal MPM nodes with two or more
owners), for MST and SH-MDT ``planned_gain`` (MOTTO's own objective: its trivial plan's cost over its
Steiner tree's); in the queries sweep ``optimizer_s``, ``planned_gain`` (trivial cost over the Steiner
tree's cost) and ``finished`` (1 if the exact search finished within its budget).
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Mapping

from omegaconf import DictConfig

from cep.errors import ConfigError, EvaluationLimitError

SWEEPS = ("r", "queries", "window_ratio", "nesting")
METHODS = ("NA", "MST", "LCSE", "SH-MDT")  # planner names of algorithms.multi.registry
OPTIMIZERS = ("exact", "annealing")
PARAMS = ("queries", "r", "length", "level", "window", "window_ratio", "budget_s", "sharing_types")
PARAM_OF = {"r": "r", "queries": "queries", "window_ratio": "window_ratio", "nesting": "level"}  # sweep -> parameter


def build_specs(cfg: DictConfig) -> list[dict]:
    from experiments.exps.grid import experiment_scale, replayed_pool_stream
    from experiments.metadata import git_commit

    exp = cfg.exp
    sc = experiment_scale(cfg)
    base = dict(sc["base"])
    unknown = sorted(set(base) - set(PARAMS))
    if unknown:
        raise ConfigError(f"unknown parameter {unknown[0]!r} in {exp.name}; known: {', '.join(PARAMS)}")
    dname, stream = replayed_pool_stream(cfg, sc, base["window"], 13)
    common = {"experiment": exp.name, "figure": exp.figure, "dataset": dname, "_code_version": git_commit()}
    specs = []
    for sweep in exp.sweeps:
        name = sweep["x"]
        if name not in SWEEPS:
            raise ConfigError(f"unknown sweep {name!r} in {exp.name}; known: {', '.join(SWEEPS)}")
        extra = sorted(set(sweep.get("base") or {}) - set(PARAMS))
        if extra:
            raise ConfigError(f"unknown parameter {extra[0]!r} in the {name} sweep of {exp.name}; known: {', '.join(PARAMS)}")
        algs = list(sweep["algorithms"])
        known = OPTIMIZERS if name == "queries" else tuple(METHODS)
        bad = [a for a in algs if a not in known]
        if bad:
            raise ConfigError(f"unknown method {bad[0]!r} in the {name} sweep of {exp.name}; known: {', '.join(known)}")
        for v in sc["values"][name]:
            for seed in sc["seeds"]:
                params = {**base, **(sweep.get("base") or {}), PARAM_OF[name]: v, "repeats": int(sc.get("repeats", 1)),
                          "max_partial_matches": int(sc.get("max_partial_matches", 200000)),
                          "max_work": int(sc.get("max_work", 20_000_000))}
                if name == "queries":  # optimizer side: one cell per optimizer
                    for alg in algs:
                        specs.append({**common, "x_name": name, "x_value": v, "seed": int(seed), "algorithms": [alg],
                                      "pattern_id": f"{name}={v}-s{seed}", "params": params, "stream": stream})
                else:  # every method of a workload in one cell, timed in turns
                    specs.append({**common, "x_name": name, "x_value": v, "seed": int(seed), "algorithms": algs,
                                  "pattern_id": f"{name}={v}-s{seed}", "params": params, "stream": stream})
    return specs


def run(cfg: DictConfig, out_dir: Path) -> int:
    from experiments.execution import run_all_cells

    return run_all_cells(cfg, out_dir, build_specs(cfg), run_cell)


# ---- one cell ----------------------------------------------------------------------------------------
def workload_of(spec: Mapping, counts: Mapping[str, int]):
    """The cell's Table V workload as patterns over the pool's symbols (``E_i`` = the i-th rarest)."""
    from cep.pattern import Window

    from algorithms.motto.query import Query
    from algorithms.motto.workloads import table_v_workload

    p = spec["params"]
    pool = spec["stream"]["pool"]
    w = float(p["window"])
    pair_windows = None
    if spec["x_name"] == "window_ratio":
        ratio = float(p["window_ratio"])  # source window / beneficiary window; the larger is `window`
        pair_windows = (Window.seconds(w), Window.seconds(w / ratio)) if ratio >= 1 else (Window.seconds(w * ratio), Window.seconds(w))
    qs = table_v_workload(int(p["queries"]), seed=int(spec["seed"]), r=float(p["r"]), n_types=len(pool),
                          length=int(p["length"]), window=Window.seconds(w), level=int(p["level"]), pair_windows=pair_windows,
                          types=tuple(int(t) for t in p.get("sharing_types") or range(1, 8)))
    by_rate = sorted(pool, key=lambda t: (counts.get(t, 0), t))
    tmap = {f"E{i + 1}": t for i, t in enumerate(by_rate)}

    def rename(q):
        if isinstance(q, str):
            return tmap[q]
        return Query(q.op, tuple(rename(o) for o in q.operands), q.window, q.seq_order, q.name)

    return [rename(q).to_pattern(q.name)[0] for q in qs]


def _row(spec: Mapping, alg: str, metric: str, value, *, plan: str = "", status: str = "ok") -> dict:
    from experiments.store import cell_id

    p = spec["params"]
    return {
        "experiment": spec["experiment"], "dataset": spec["dataset"], "workload": "motto",
        "size": int(p["queries"]), "pattern_id": spec["pattern_id"],
        "seed": int(spec["seed"]), "algorithm": alg, "kind": "multi",
        "evaluator": None if spec["x_name"] == "queries" else "tree", "alpha": 0.0, "strategy": None, "metric": metric,
        "value": None if value is None else float(value), "status": status, "plan": plan,
        "params": json.dumps(p, sort_keys=True), "cell_id": cell_id(spec), "code_version": spec.get("_code_version"),
        "x_name": spec["x_name"], "x_value": float(spec["x_value"]),
    }


def _optimizer_cell(spec: Mapping) -> list[dict]:
    """Figure 14a, optimizer side: MOTTO's exact search (MILP branch and bound within the budget)
    or annealing, on the sharing graph of a Table V workload (:func:`algorithms.motto.measure.measure`)."""
    from algorithms.motto.measure import measure

    p = spec["params"]
    alg = spec["algorithms"][0]
    m = measure(int(p["queries"]), seed=int(spec["seed"]), r=float(p["r"]), budget_s=float(p["budget_s"]), combinatorial=False)
    if alg == "exact":
        rows = [_row(spec, alg, "optimizer_s", m["milp_s"]), _row(spec, alg, "planned_gain", 1.0 / m["milp_cost/trivial"]),
                _row(spec, alg, "finished", 1.0 if m["milp_exact"] else 0.0)]
    else:
        rows = [_row(spec, alg, "optimizer_s", m["sa_s"]), _row(spec, alg, "planned_gain", 1.0 / m["sa_cost/trivial"])]
    return rows + [_row(spec, alg, "graph_vertices", m["vertices"]), _row(spec, alg, "graph_arcs", m["arcs"]),
                   _row(spec, alg, "graph_build_s", m["build_s"])]


def run_cell(spec: Mapping) -> list[dict]:
    if spec["x_name"] == "queries":
        return _optimizer_cell(spec)
    import algorithms.multi.sh_mdt as sh_mdt
    from algorithms.multi import plan_workload
    from evaluators.multi import evaluate_workload
    from experiments.exps.mcep_figs import _digest
    from experiments.experiment_stream import experiment_stream
    from experiments.statistics import estimate_workload_statistics

    p = spec["params"]
    stream = experiment_stream(spec["stream"])
    pats = workload_of(spec, stream.type_counts())
    stats = estimate_workload_statistics(stream, pats, seed=int(spec["seed"]))
    rows, planned = [], {}
    for alg in spec["algorithms"]:
        sh_mdt.last_motto_plan = None
        r = plan_workload(pats, alg, stats, seed=int(spec["seed"]), time_limit=float(p["budget_s"]))
        plan = _digest(r.plan)
        if alg in ("MST", "SH-MDT") and sh_mdt.last_motto_plan is not None:  # MOTTO's own objective
            mp = sh_mdt.last_motto_plan
            rows.append(_row(spec, alg, "planned_gain", mp.trivial_cost / mp.cost if mp.cost > 0 else None, plan=plan))
        planned[alg] = (r, plan)
        shared = sum(1 for n in r.plan.shared_nodes() if not n.is_leaf)
        rows += [_row(spec, alg, "plan_cost", r.cost, plan=plan), _row(spec, alg, "trivial_cost", r.trivial_cost, plan=plan),
                 _row(spec, alg, "plan_time_s", r.plan_time_s, plan=plan), _row(spec, alg, "shared_nodes", shared, plan=plan)]
    runs: dict[str, list] = {a: [] for a in planned}
    capped: dict[str, str] = {}
    for _ in range(int(p["repeats"])):  # in turns, so that every method sees the same machine
        for alg, (r, _plan) in planned.items():
            if alg in capped:
                continue
            try:
                runs[alg].append(evaluate_workload(pats, r.plan, stream, collect_matches=False,
                                                   max_partial_matches=int(p["max_partial_matches"]), max_work=int(p["max_work"])))
            except EvaluationLimitError as e:
                capped[alg] = f"capped: {e}"
    for alg, (_r, plan) in planned.items():
        if alg in capped:
            rows.append(_row(spec, alg, "throughput_eps", None, plan=plan, status=capped[alg]))
            continue
        m = runs[alg][0].metrics
        rows += [
            _row(spec, alg, "throughput_eps", statistics.median(x.metrics["throughput_eps"] for x in runs[alg]), plan=plan),
            _row(spec, alg, "matches", m["matches"], plan=plan),
            _row(spec, alg, "events", m["events"], plan=plan),
            _row(spec, alg, "peak_partial_matches", m["peak_partial_matches"], plan=plan),
            _row(spec, alg, "work", m["work"], plan=plan),
        ]
    return rows
