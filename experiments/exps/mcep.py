"""The ``mcep`` experiment kind: MCEP Figures 10-14 (Section 6.2, Appendix D) at a scale.

An experiment (``configs/exp/mcep_fig*.yaml``) lists *sweeps*: each varies one parameter of the base
workload (``exp.scales.<scale>.base``) over values, for a list of algorithms.  A cell is
(sweep, value, seed, algorithm): the workload of :mod:`experiments.workloads.mcep` (seeded) over the
type pool of the dataset, replayed at the papers' rate spread (:mod:`experiments.data.replay`); statistics
estimated on the stream (one selectivity table per pattern); the global plan of the algorithm (a
multi-pattern optimizer with the sweep's search time, or TRIVIAL: written orders, nothing shared);
then one pass of the multi-pattern evaluator over the stream (``repeats`` runs, median throughput).

Swept parameters: ``workload_size`` (patterns), ``pattern_size`` (average events), ``search_time``
(seconds of local search), ``search_neighbours`` (its effort in evaluated neighbours), ``window`` (seconds) and ``count_window`` (events), ``density`` (MPG
density) and ``rate_diff`` (normalized arrival-rate difference), and ``reshuffle_every`` (events
between two reshuffles of ``reshuffle_types`` types, MCEP 6.2.3), whose algorithms are ``static``
(one SA-EDGE plan made on the first ``drift_window`` events' statistics) and ``adaptive`` (drift
tested on a sliding window, plans switched when the estimated gain exceeds the switching cost:
:mod:`experiments.exps.mcep_adaptive`); its settings are the scale's ``adaptive`` mapping
(``reshuffle_types``, ``drift_window``, ``check_every``, ``drift_alpha``; any base parameter it names, such
as ``window``, overrides base's for these cells, and its ``seeds`` replace the scale's).  Plans are handed over by
migration without replay (:class:`AdaptiveCell`), so both report exactly the same matches, those
spanning a switch included.

The search's budget is its effort, ``search_neighbours`` evaluated neighbours (:mod:`algorithms.effort`,
the calibration against the paper's 180 s of Java in docs/mcep.md; deterministic: plans, costs and
counts re-run identically, as ``verify`` requires), swept in Figure 11's ``search_neighbours`` sweep;
only the search-time sweep (``search_time`` seconds, Figure 11 against time) runs against the clock,
so its plans depend on the machine's speed.  Every searched cell records the neighbours its search
evaluated (``neighbours_evaluated``) and the MPG components whose neighbourhood ran out first
(``search_exhausted``); a time-limited cell also records those of each component in its rows'
``params`` (``search_replay_neighbours``), and a cell whose params carry them evaluates exactly those
with no clock (:func:`algorithms.multi.search.local_search`), which is how ``verify`` re-runs it.
SH-MDT (Figure 12) keeps MOTTO's own budgets (a 5 s exact search, then annealing of
:data:`algorithms.multi.sh_mdt.MOTTO_SA_NEIGHBOURS` neighbours) and records the annealing's neighbours.

Rows (:mod:`experiments.running.store`): ``dataset`` the dataset name; ``workload`` ``mcep``; ``algorithm``
the planner (or static/adaptive); ``x_name``/``x_value`` the sweep; metrics ``throughput_eps``,
``matches``, ``events``, ``peak_partial_matches``, ``plan_cost``, ``trivial_cost``, ``plan_time_s``,
``neighbours_per_s``, ``neighbours_evaluated``, ``search_exhausted``, ``mpg_density``; the reshuffling cells
``replans`` (plan switches), ``drift_detections``, ``replayed_events`` (0) and ``overlap_events``.  The report
pairs each algorithm with TRIVIAL (static with adaptive) of the same sweep, value and seed.  Counts
are equal across the algorithms of one cell group.

Figure 12 (``configs/exp/fig12.yaml``, Section 6.2.2) is this kind too: the throughput gain over the
trivial global plan of the baselines SH, RE, SH-RR (:mod:`algorithms.multi.baselines`), SH-MDT (MOTTO,
:mod:`algorithms.multi.sh_mdt`) and the local searches SA-EDGE and TS-EDGE against the workload size, the
pattern size, the time window and the count window, on both datasets.  SH-MDT's MOTTO search is
time-budgeted (5 s exact, then annealing), so its plan can differ between machines when the exact
search does not finish; every other plan is deterministic given the cell spec.

Per-scale settings (:data:`SETTINGS`, :mod:`experiments.running.settings`): the type pool, the replay
(events of the median type per window, stream length in windows, ``rate_ratio``), the seeds, the
evaluation runs and caps, the ``base`` workload, the swept ``values`` and the reshuffling study's
``adaptive`` settings.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Mapping

from omegaconf import DictConfig, OmegaConf

from algorithms.multi import plan_workload
from algorithms.multi.registry import multi_planner_names
from algorithms.registry import is_builtin
from evaluators.multi import evaluate_segments
from experiments.data.statistics import estimate_workload_statistics
from experiments.data.streams import experiment_stream
from experiments.exps.kit import (
    checked_sweeps,
    common_fields,
    evaluate_in_turns,
    evaluation_caps,
    extra_planners,
    neighbours_param,
    plan_digest,
    replayed_pool_stream,
)
from experiments.exps.mcep_adaptive import adaptive_plan
from experiments.running import cells
from experiments.running.execution import run_all_cells
from experiments.running.settings import Keys, resolve
from experiments.workloads.mcep import experiment_workload, measured_density, reshuffle_types

SWEEPS = ("workload_size", "pattern_size", "search_time", "search_neighbours", "window", "count_window", "density", "rate_diff",
          "reshuffle_every")
ADAPTIVE = ("static", "adaptive")
#: the reshuffling settings an earlier version read from ``base``: still there (every cell's params,
#: hence its id, carries them), the reshuffling cells take theirs from ``exp.scales.<scale>.adaptive``
LEGACY_ADAPTIVE_KEYS = ("reshuffle_types", "chunk", "drift")
#: the per-scale settings of ``exp.scales.<scale>`` (:mod:`experiments.running.settings`)
SETTINGS = Keys(("type_pool", "events_per_window", "windows", "seeds", "repeats", "max_partial_matches", "max_work", "base",
                 "values"), ("rate_ratio", "min_events", "adaptive", "value_order"))


def build_specs(cfg: DictConfig) -> list[dict]:
    """Every cell of the run: the sweeps' cells on each dataset of ``exp.datasets`` (or the one
    ``exp.dataset``, default NASDAQ), each dataset's stream its own type pool replayed alike."""
    specs = []
    for dname in list(cfg.exp.get("datasets") or [cfg.exp.get("dataset", "nasdaq")]):
        c = OmegaConf.create(OmegaConf.to_container(cfg, resolve=True))
        c.exp.dataset = dname
        specs += _dataset_specs(c)
    return specs


def _dataset_specs(cfg: DictConfig) -> list[dict]:
    exp = cfg.exp
    sc = resolve(cfg, SETTINGS)
    base = dict(sc["base"])
    dname, stream = replayed_pool_stream(cfg, sc, base["window"], 40)
    common = common_fields(cfg, dataset=dname)
    extra = extra_planners(cfg, multi=True)
    specs = []
    for name, sweep in checked_sweeps(exp, SWEEPS):
        values = sc["values"][name]
        algs = list(sweep["algorithms"])
        if name != "reshuffle_every":  # static vs adaptive SA-EDGE: no optimizer to add
            algs += [a for a in extra if a not in algs]
        own, seeds = base, sc["seeds"]
        if name == "reshuffle_every":  # its own settings, not base's (kept there for the other cells' ids)
            adaptive = {k: x for k, x in sc["adaptive"].items() if k != "seeds"}
            own = {**{k: x for k, x in base.items() if k not in LEGACY_ADAPTIVE_KEYS}, **adaptive}
            seeds = sc["adaptive"].get("seeds", seeds)
        for v in values:
            for seed in seeds:
                params = {**own, name: v, "repeats": int(sc["repeats"]), **evaluation_caps(sc)}
                for alg in algs:
                    specs.append({**common, "x_name": name, "x_value": v, "seed": int(seed), "algorithm": alg,
                                  "pattern_id": f"{name}={v}-s{seed}", "params": params, "stream": stream})
    return specs


def specs(cfg: DictConfig, out_dir: Path, spark=None) -> list[dict]:
    """Every cell specification of the run (what ``--estimate`` samples)."""
    return build_specs(cfg)


def run(cfg: DictConfig, out_dir: Path) -> int:
    return run_all_cells(cfg, out_dir, run_cell, build_specs(cfg), keys=SETTINGS)


# ---- one cell ----------------------------------------------------------------------------------------
def _budget(spec: Mapping) -> dict:
    """The search budget: ``search_neighbours`` evaluated neighbours (a deterministic search, so ``verify``
    can re-run the cell), except in the search-time sweep and at a scale that gives none:
    ``search_time`` seconds; a time-limited cell's recorded neighbours when its params carry them."""
    p = spec["params"]
    replay = p.get("search_replay_neighbours")
    if replay is not None:
        return {"time_limit": 3600.0, "replay_neighbours": [int(x) for x in replay]}
    neighbours = neighbours_param(p, f"search_neighbours of {spec['x_name']}")
    if neighbours is not None and spec["x_name"] != "search_time":
        return {"time_limit": 3600.0, "max_neighbours": neighbours}
    return {"time_limit": float(p["search_time"])}


def _builtin(algorithm: str) -> bool:
    """Whether ``algorithm`` is one of this repository's methods; one from another package
    (``+extra_planners``) gets the sweep's ``search_time`` as its time limit, since budgets in evaluated
    neighbours are the built-in searches' own."""
    return is_builtin(algorithm) or algorithm in multi_planner_names()


class McepCell(cells.CellKind):
    """An MCEP cell: the seeded workload over the pool of the replayed stream, statistics estimated on
    the stream (one selectivity table per pattern), the algorithm's global plan, ``repeats`` passes
    of the multi-pattern evaluator (median throughput)."""

    def stream(self, spec: Mapping):
        return experiment_stream(spec["stream"])

    def workload(self, spec: Mapping, stream):
        return experiment_workload(spec["params"], spec["stream"]["pool"], stream, seed=int(spec["seed"]),
                                   count_window=spec["x_name"] == "count_window")

    def statistics(self, spec: Mapping, stream, patterns):
        return estimate_workload_statistics(stream, patterns, seed=int(spec["seed"]))

    def plan_one(self, spec: Mapping, patterns, stats, algorithm: str) -> cells.Planned:
        budget = _budget(spec) if _builtin(algorithm) else {"time_limit": float(spec["params"]["search_time"])}
        r = plan_workload(patterns, algorithm, stats, seed=int(spec["seed"]), **budget)
        metrics = {"plan_cost": r.cost, "trivial_cost": r.trivial_cost, "plan_time_s": r.plan_time_s,
                   "mpg_density": measured_density(patterns)}
        fields = {}
        if r.neighbours is not None:
            metrics["neighbours_evaluated"] = r.neighbours
        if r.search is not None:
            metrics.update(neighbours_per_s=r.neighbours_per_s, search_exhausted=r.search.exhausted)
            if budget.keys() == {"time_limit"}:  # a time-limited search: its neighbours, for verify to replay
                fields["params"] = cells.params_json({**spec["params"],
                                                      "search_replay_neighbours": list(r.search.component_neighbours)})
        return cells.Planned(r.plan, plan_digest(r.plan), metrics, fields)

    def evaluate(self, spec: Mapping, stream, patterns, planned):
        return evaluate_in_turns(patterns, planned, stream, spec["params"])

    def fields(self, spec: Mapping, algorithm: str) -> dict:
        return {"dataset": spec["dataset"], "workload": "mcep", "size": int(spec["params"]["workload_size"]),
                "kind": "multi", "evaluator": None, "alpha": 0.0, "strategy": None,
                "params": cells.params_json(spec["params"]), "x_name": spec["x_name"], "x_value": float(spec["x_value"])}


class AdaptiveCell(McepCell):
    """MCEP 6.2.3: static or adaptive detection over the reshuffled stream.

    ``static`` plans once (SA-EDGE on the first ``drift_window`` events' statistics); ``adaptive``
    tests a sliding window for drift and switches plans when the estimated gain exceeds the cost of
    switching (:mod:`experiments.exps.mcep_adaptive`).  The row's plan digest is the first plan's
    when nothing switched (so an adaptive run that kept the static plan pairs with it as one plan, a
    tie) and the segments' otherwise; ``plan_cost`` is the first plan's.  Both run through
    :func:`evaluators.multi.evaluate_segments` (plan migration, no replay), so they report exactly
    the matches of one pass over the whole stream."""

    def stream(self, spec: Mapping):
        base = super().stream(spec)
        every = int(spec["x_value"])
        if every <= 0:
            return base
        return reshuffle_types(base, every, int(spec["params"]["reshuffle_types"]), spec["stream"]["pool"], seed=int(spec["seed"]))

    def workload(self, spec: Mapping, stream):
        return super().workload(spec, super().stream(spec))  # drawn over the stream before reshuffling

    def statistics(self, spec: Mapping, stream, patterns):
        return stream  # estimated on sliding windows while planning

    def plan_one(self, spec: Mapping, patterns, stream, algorithm: str) -> cells.Planned:
        p = spec["params"]
        r = adaptive_plan(stream, patterns, drift_window=int(p["drift_window"]), check_every=int(p["check_every"]),
                          drift_alpha=float(p["drift_alpha"]), window_s=float(p["window"]), seed=int(spec["seed"]),
                          budget=_budget(spec), adaptive=algorithm == "adaptive")
        digest = plan_digest(r.segments[0][1]) if len(r.segments) == 1 else _segments_digest(r.segments)
        return cells.Planned(r.segments, digest, {"plan_time_s": r.plan_time_s, "replans": r.replans,
                                                  "drift_detections": r.detections, "plan_cost": r.initial_cost})

    def evaluate(self, spec: Mapping, stream, patterns, planned):
        (alg, p), = planned.items()
        events = stream.to_stream()  # the multi-pattern runtime takes event objects (until it takes columns)
        run = cells.timed_runs({alg: lambda i: evaluate_segments(patterns, p.plan, events, **evaluation_caps(spec["params"])).metrics},
                               1, len(stream))[alg]
        if isinstance(run, cells.Evaluated):
            return {alg: run}
        m = run[0]
        return {alg: cells.Evaluated({"throughput_eps": m["throughput_eps"] if m["elapsed_s"] > 0 else None,
                                      "matches": m["matches"], "events": m["events"],
                                      "peak_partial_matches": m["peak_partial_matches"], "work": m["work"],
                                      "replayed_events": m["replayed_events"], "overlap_events": m["overlap_events"]})}

    def fields(self, spec: Mapping, algorithm: str) -> dict:
        return {**super().fields(spec, algorithm), "kind": "adaptive"}


def _segments_digest(segments) -> str:
    """A digest of plan segments: their starts and their plans' digests."""
    content = [(int(a), plan_digest(g)) for a, g in segments]
    return hashlib.sha1(json.dumps(content).encode()).hexdigest()[:16]


MCEP, ADAPTIVE_CELL = McepCell(), AdaptiveCell()


def cell_kind(spec: Mapping) -> cells.CellKind:
    """The cell kind that runs ``spec``: the reshuffling sweep's adaptive cell, else the MCEP cell."""
    return ADAPTIVE_CELL if spec["x_name"] == "reshuffle_every" else MCEP


def run_cell(spec: Mapping) -> list[dict]:
    return cells.run_cell(cell_kind(spec), spec)
