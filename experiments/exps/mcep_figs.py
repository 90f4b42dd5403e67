"""The ``mcep`` experiment kind: MCEP Figures 10, 11, 13 and 14 (Section 6.2, Appendix D) at a scale.

An experiment (``configs/exp/mcep_fig*.yaml``) lists *sweeps*: each varies one parameter of the base
workload (``exp.scales.<scale>.base``) over values, for a list of algorithms.  A cell is
(sweep, value, seed, algorithm): the workload of :mod:`experiments.workloads.mcep` (seeded) over the
type pool of the dataset, replayed at the papers' rate spread (:mod:`experiments.data.replay`); statistics
estimated on the stream (one selectivity table per pattern); the global plan of the algorithm (a
multi-pattern optimizer with the sweep's search time, or TRIVIAL: written orders, nothing shared);
then one pass of the multi-pattern evaluator over the stream (``repeats`` runs, median throughput).

Swept parameters: ``workload_size`` (patterns), ``pattern_size`` (average events), ``search_time``
(seconds of local search), ``window`` (seconds) and ``count_window`` (events), ``density`` (MPG
density) and ``rate_diff`` (normalized arrival-rate difference), and ``reshuffle_every`` (events
between two reshuffles of ``reshuffle_types`` types, MCEP 6.2.3), whose algorithms are ``static``
(one SA-EDGE plan made on the first chunk's statistics) and ``adaptive`` (re-planned with SA-EDGE
whenever a type's rate measured over the last chunk of ``chunk`` events differs from the one planned
for by more than ``drift`` -- a factor ``1 + drift`` either way).  Static runs the stream in one pass;
adaptive hands each new plan over by replaying the widest window before its segment
(:func:`adaptive_run`), so both report exactly the same matches, those spanning a re-planning point
included.

The search runs for ``search_steps`` steps when the scale gives them (deterministic: plans, costs
and counts re-run identically, as ``verify`` requires) and for ``search_time`` seconds otherwise and
in the search-time sweep (whose plans then depend on the machine's speed).  A time-limited cell
records the steps each MPG component's search took in its rows' ``params``
(``search_replay_steps``) and its total as the measured metric ``search_steps``; a cell whose params
carry ``search_replay_steps`` replays exactly those steps with no clock
(:func:`algorithms.multi.search.local_search`), which is how ``verify`` re-runs it.

Rows (:mod:`experiments.running.store`): ``dataset`` the dataset name; ``workload`` ``mcep``; ``algorithm``
the planner (or static/adaptive); ``x_name``/``x_value`` the sweep; metrics ``throughput_eps``,
``matches``, ``events``, ``peak_partial_matches``, ``plan_cost``, ``trivial_cost``, ``plan_time_s``,
``steps_per_s``, ``search_steps`` (time-limited searches), ``mpg_density``, ``replans``.  The report
pairs each algorithm with TRIVIAL (static with adaptive) of the same sweep, value and seed.  Counts
are equal across the algorithms of one cell group.
"""

from __future__ import annotations

import itertools
import json
import statistics
import time
from pathlib import Path
from typing import Mapping

from omegaconf import DictConfig

from cep.errors import EvaluationLimitError

SWEEPS = ("workload_size", "pattern_size", "search_time", "window", "count_window", "density", "rate_diff",
          "reshuffle_every")
ADAPTIVE = ("static", "adaptive")


def build_specs(cfg: DictConfig) -> list[dict]:
    from experiments.exps.grid import checked_sweeps, experiment_scale, replayed_pool_stream
    from experiments.running.metadata import git_commit

    exp = cfg.exp
    sc = experiment_scale(cfg)
    base = dict(sc["base"])
    dname, stream = replayed_pool_stream(cfg, sc, base["window"], 40)
    common = {"experiment": exp.name, "figure": exp.figure, "dataset": dname, "_code_version": git_commit()}
    specs = []
    for name, sweep in checked_sweeps(exp, SWEEPS):
        values = sc["values"][name]
        algs = list(sweep["algorithms"])
        for v in values:
            for seed in sc["seeds"]:
                params = {**base, name: v, "repeats": int(sc.get("repeats", 1)),
                          "max_partial_matches": int(sc.get("max_partial_matches", 200000)),
                          "max_work": int(sc.get("max_work", 20_000_000))}
                for alg in algs:
                    specs.append({**common, "x_name": name, "x_value": v, "seed": int(seed), "algorithm": alg,
                                  "pattern_id": f"{name}={v}-s{seed}", "params": params, "stream": stream})
    return specs


def run(cfg: DictConfig, out_dir: Path) -> int:
    from experiments.running.execution import run_all_cells

    return run_all_cells(cfg, out_dir, build_specs(cfg), run_cell)


# ---- one cell ----------------------------------------------------------------------------------------
def workload_of(spec: Mapping, pool: list[str], rates: Mapping[str, float], stream=None):
    from cep.pattern import Window
    from experiments.workloads.mcep import WorkloadSpec, calibrate_workload, make_workload

    p = spec["params"]
    window = Window.events(int(p["count_window"])) if spec["x_name"] == "count_window" else Window.seconds(float(p["window"]))
    ws = WorkloadSpec(n_patterns=int(p["workload_size"]), avg_size=float(p["pattern_size"]), window=window,
                      structure=p.get("structure", "mixed"), density=float(p["density"]), rate_diff=float(p["rate_diff"]),
                      special=float(p.get("special", 0.2)), kleene_max=p.get("kleene_max", 2), seed=int(spec["seed"]))
    by_rate = sorted(pool, key=lambda t: (rates.get(t, 0.0), t))
    pats = make_workload(ws, by_rate)
    if stream is not None and p.get("selectivity_range"):
        from experiments.data.statistics import StreamColumns

        pats = calibrate_workload(pats, StreamColumns(stream).attr, tuple(p["selectivity_range"]), seed=int(spec["seed"]))
    return pats


def _row(spec: Mapping, metric: str, value, *, plan: str = "", status: str = "ok", extra: Mapping | None = None) -> dict:
    from experiments.running.store import cell_id

    p = {**spec["params"], **(extra or {})}
    return {
        "experiment": spec["experiment"], "dataset": spec["dataset"], "workload": "mcep",
        "size": int(p["workload_size"]), "pattern_id": spec["pattern_id"],
        "seed": int(spec["seed"]), "algorithm": spec["algorithm"],
        "kind": "adaptive" if spec["x_name"] == "reshuffle_every" else "multi",
        "evaluator": None, "alpha": 0.0, "strategy": None, "metric": metric,
        "value": None if value is None else float(value), "status": status, "plan": plan,
        "params": json.dumps(p, sort_keys=True), "cell_id": cell_id(spec), "code_version": spec.get("_code_version"),
        "x_name": spec["x_name"], "x_value": float(spec["x_value"]),
    }


def _budget(spec: Mapping) -> dict:
    """The search budget: ``search_steps`` steps when the config gives them (a deterministic search,
    so ``verify`` can re-run the cell), except in the search-time sweep; else ``search_time`` seconds."""
    p = spec["params"]
    replay = p.get("search_replay_steps")
    if replay is not None:
        return {"time_limit": 3600.0, "replay_steps": [int(x) for x in replay]}
    steps = p.get("search_steps")
    if steps and spec["x_name"] != "search_time":
        return {"time_limit": 3600.0, "max_steps": int(steps)}
    return {"time_limit": float(p["search_time"])}


def _digest(gplan) -> str:
    import hashlib

    return hashlib.sha1(json.dumps(gplan.describe()["plans"], sort_keys=True).encode()).hexdigest()[:16]


def run_cell(spec: Mapping) -> list[dict]:
    if spec["x_name"] == "reshuffle_every":
        return _adaptive_cell(spec)
    from algorithms.multi import plan_workload
    from evaluators.multi import evaluate_workload
    from experiments.data.streams import experiment_stream
    from experiments.workloads.mcep import measured_density
    from experiments.data.statistics import estimate_workload_statistics

    p = spec["params"]
    stream = experiment_stream(spec["stream"])
    rates = {t: c for t, c in stream.type_counts().items()}
    pats = workload_of(spec, spec["stream"]["pool"], rates, stream)
    stats = estimate_workload_statistics(stream, pats, seed=int(spec["seed"]))
    budget = _budget(spec)
    r = plan_workload(pats, spec["algorithm"], stats, seed=int(spec["seed"]), **budget)
    plan = _digest(r.plan)
    timed = r.search is not None and "max_steps" not in budget
    extra = {"search_replay_steps": list(r.search.component_steps)} if timed else None

    def row(metric, value, status="ok"):
        return _row(spec, metric, value, plan=plan, status=status, extra=extra)

    rows = [
        row("plan_cost", r.cost),
        row("trivial_cost", r.trivial_cost),
        row("plan_time_s", r.plan_time_s),
        row("mpg_density", measured_density(pats)),
    ]
    if r.search is not None:
        rows.append(row("steps_per_s", r.steps_per_s))
        if timed:
            rows.append(row("search_steps", r.search.steps))
    try:
        runs = [evaluate_workload(pats, r.plan, stream, collect_matches=False, max_partial_matches=int(p["max_partial_matches"]),
                                  max_work=int(p["max_work"])) for _ in range(int(p["repeats"]))]
    except EvaluationLimitError as e:
        rows.append(row("throughput_eps", None, status=f"capped: {e}"))
        return rows
    m = runs[0].metrics
    rows += [
        row("throughput_eps", statistics.median(x.metrics["throughput_eps"] for x in runs)),
        row("matches", m["matches"]),
        row("events", m["events"]),
        row("peak_partial_matches", m["peak_partial_matches"]),
        row("work", m["work"]),
    ]
    return rows


def rates_drifted(planned: Mapping[str, float], measured: Mapping[str, float], drift: float) -> bool:
    """Whether some type's measured rate differs from the planned one by more than a factor ``1 + drift``."""
    f = 1.0 + drift
    for t in set(planned) | set(measured):
        a, b = planned.get(t, 0.0), measured.get(t, 0.0)
        if a == 0.0 and b == 0.0:
            continue
        if a == 0.0 or b == 0.0 or not (1 / f <= b / a <= f):
            return True
    return False


def adaptive_run(spec: Mapping):
    """Static or adaptive detection over the reshuffled stream (MCEP 6.2.3); returns the
    :class:`evaluators.multi.MultiResult`, the planning time and the number of re-plans.

    The stream is looked at in chunks of ``chunk`` events.  ``static`` plans once (SA-EDGE on the first
    chunk's statistics) and runs the whole stream in one pass.  ``adaptive`` re-plans after every chunk
    whose measured rates drifted (:func:`rates_drifted`) from the ones planned for, the new plan taking
    over at the next chunk; the stream then runs as segments of one plan each
    (:func:`evaluators.multi.evaluate_segments`: each plan replays the widest window before its segment
    and reports the matches whose last event is in it), so both report exactly the matches of one pass
    over the whole stream, those spanning a re-planning point included.
    """
    from algorithms.multi import plan_workload
    from cep.events import Event, EventStream
    from evaluators.multi import evaluate_segments
    from experiments.data.streams import experiment_stream
    from experiments.workloads.mcep import reshuffle_types
    from experiments.data.statistics import estimate_workload_statistics

    p = spec["params"]
    base = experiment_stream(spec["stream"])
    pool = spec["stream"]["pool"]
    every = int(spec["x_value"])
    stream = reshuffle_types(base, every, int(p["reshuffle_types"]), pool, seed=int(spec["seed"])) if every > 0 else base
    pats = workload_of(spec, pool, dict(base.type_counts()), base)
    chunk = int(p["chunk"])
    starts = list(range(0, len(stream), chunk))

    def sub(a):
        return EventStream([Event(e.type, e.ts, e.attrs) for e in stream.events[a:a + chunk]], "<chunk>")

    def chunk_rates(s):
        span = (s[-1].ts - s[0].ts) or 1.0 if len(s) else 1.0
        return {t: c / span for t, c in s.type_counts().items()}

    def plan_for(s):
        st = estimate_workload_statistics(s, pats, seed=int(spec["seed"]))
        r = plan_workload(pats, "SA-EDGE", st, seed=int(spec["seed"]), **_budget(spec))
        return r, chunk_rates(s)

    r, planned_rates = plan_for(sub(0))
    plan_time = r.plan_time_s
    segments = [(0, r.plan)]
    digest = _digest(r.plan)
    replans = 0
    if spec["algorithm"] == "adaptive":
        for a, nxt in itertools.pairwise(starts):
            s = sub(a)
            if rates_drifted(planned_rates, chunk_rates(s), float(p["drift"])):
                t0 = time.perf_counter()
                r, planned_rates = plan_for(s)
                plan_time += time.perf_counter() - t0
                replans += 1
                d = _digest(r.plan)
                if d != digest:  # an unchanged plan keeps running: no hand-over
                    segments.append((nxt, r.plan))
                    digest = d
    res = evaluate_segments(pats, segments, stream, max_partial_matches=int(p["max_partial_matches"]),
                            max_work=int(p["max_work"]))
    return res, plan_time, replans


def _adaptive_cell(spec: Mapping) -> list[dict]:
    try:
        res, plan_time, replans = adaptive_run(spec)
    except EvaluationLimitError as e:
        return [_row(spec, "throughput_eps", None, status=f"capped: {e}")]
    m = res.metrics
    return [
        _row(spec, "throughput_eps", m["throughput_eps"] if m["elapsed_s"] > 0 else None),
        _row(spec, "matches", m["matches"]),
        _row(spec, "events", m["events"]),
        _row(spec, "peak_partial_matches", m["peak_partial_matches"]),
        _row(spec, "plan_time_s", plan_time),
        _row(spec, "replans", replans),
    ]
