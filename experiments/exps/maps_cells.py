"""One cell of a regime map (:mod:`experiments.exps.maps`): a point's workload, every method of the map
planned and evaluated on the same stream, in turns (:func:`experiments.running.cells.timed_runs`).

* :class:`PatternCell` (JQPG planners): the pattern of ``pattern_set`` over the workload's types, its
  predicates calibrated on the stream into the point's selectivity range
  (:func:`experiments.workloads.jqpg.calibrate_selectivities`), statistics estimated on the stream, each
  planner's plan (:func:`experiments.exps.jqpg.plan_step`: its cost, Cost_tree and planning time), then
  -- unless the point is planned only -- each plan on its evaluator (order plans on the lazy NFA, trees
  on the tree evaluator) fed the whole stream ``repeats`` times in turns, under the cell's caps.
* :class:`WorkloadCell` (MCEP optimizers): the workload of :func:`experiments.workloads.mcep.experiment_workload`
  over the replayed pool, one selectivity table per pattern, each method's global plan (local searches
  of ``search_neighbours`` evaluated neighbours: deterministic), one pass of the multi-pattern evaluator per plan in turns
  (:func:`experiments.exps.kit.evaluate_in_turns`).
* :class:`TrendCell` (HAMLET engines): the bursty stock stream at the point's rate and burstiness, the
  first workload of HAMLET 5.1 with the point's number of queries, each engine as the HAMLET figures run
  it (:class:`experiments.exps.hamlet.TrendCell`, its caps).
"""

from __future__ import annotations

from typing import Mapping

from algorithms import planner_kind
from algorithms.multi import plan_workload
from algorithms.multi.registry import multi_planner_names
from algorithms.registry import is_builtin
from cep.metrics import EVALUATION
from cep.parser import parse_patterns
from cep.pattern import SeqOrder, Window
from evaluators import compile_evaluator, run_program
from experiments.data.bursty_stock import bursty_stock_stream
from experiments.data.statistics import StreamColumns, estimate_workload_statistics
from experiments.data.streams import experiment_stream
import experiments.exps.hamlet as hamlet
from experiments.exps.jqpg import plan_step
from experiments.exps.kit import evaluate_in_turns, evaluation_caps, neighbours_param, plan_digest
from experiments.running import cells
from experiments.workloads.hamlet import experiment_workload as trend_workload
from experiments.workloads.jqpg import calibrate_selectivities, make_pattern
from experiments.workloads.mcep import experiment_workload, measured_density

#: the single-pattern metrics a cell stores of each evaluation (memory is not metered in a map)
_SINGLE_METRICS = tuple(k for k in EVALUATION if k not in ("decode_s", "peak_memory_bytes"))


def evaluator_of(kind: str) -> str:
    """The evaluator of a plan kind: the lazy NFA for orders, the tree evaluator for trees."""
    return "nfa" if kind == "order" else "tree"


def _fields(spec: Mapping, *, size: int, kind: str | None, evaluator: str | None) -> dict:
    return {"dataset": spec["dataset"], "workload": spec["map"], "size": int(size), "kind": kind, "evaluator": evaluator,
            "alpha": 0.0, "strategy": None, "params": cells.params_json(spec["point"]), "x_name": None, "x_value": None}


class PatternCell(cells.CellKind):
    """A point of a single-pattern map (see the module docstring)."""

    def stream(self, spec: Mapping):
        return experiment_stream(spec["stream"])

    def workload(self, spec: Mapping, stream):
        size, w = int(spec["point"]["size"]), int(spec["seed"])
        p = make_pattern(spec["pattern_set"], size, w, spec["stream"]["pool"], Window.seconds(float(spec["window_seconds"])),
                         seed=int(spec.get("base_seed", 0)), seq_order=SeqOrder.STRICT)
        return calibrate_selectivities([p], StreamColumns(stream).attr, tuple(spec["selectivity_range"]),
                                       seed=int(spec.get("base_seed", 0)))[0]

    def statistics(self, spec: Mapping, stream, pattern):
        return estimate_workload_statistics(stream, [pattern], max_pairs=int(spec["stats_max_pairs"]), seed=int(spec["seed"]))[0]

    def algorithms(self, spec: Mapping) -> list[str]:
        return list(spec["methods"])

    def plan_one(self, spec: Mapping, pattern, stats, algorithm: str) -> cells.Planned:
        return plan_step(pattern, algorithm, stats, seed=int(spec["seed"]))

    def evaluate(self, spec: Mapping, stream, pattern, planned):
        if not spec["evaluate"]:
            return {}
        caps = evaluation_caps(spec)
        programs = {alg: compile_evaluator(pattern, p.plan, evaluator_of(p.fields["kind"])) for alg, p in planned.items()}

        def runner(program):
            return lambda i: run_program(program, stream, **caps, collect_matches=False).metrics

        runs = cells.timed_runs({alg: runner(prog) for alg, prog in programs.items()}, int(spec["repeats"]), len(stream),
                                peak_partial_matches=caps["max_partial_matches"])
        return {alg: r if isinstance(r, cells.Evaluated) else cells.Evaluated(cells.summarize(r, _SINGLE_METRICS))
                for alg, r in runs.items()}

    def fields(self, spec: Mapping, algorithm: str) -> dict:
        kind = planner_kind(algorithm)
        return _fields(spec, size=spec["point"]["size"], kind=kind, evaluator=evaluator_of(kind) if spec["evaluate"] else "none")


class WorkloadCell(cells.CellKind):
    """A point of a multi-pattern map (see the module docstring)."""

    def stream(self, spec: Mapping):
        return experiment_stream(spec["stream"])

    def workload(self, spec: Mapping, stream):
        return experiment_workload(spec["params"], spec["stream"]["pool"], stream, seed=int(spec["seed"]))

    def statistics(self, spec: Mapping, stream, patterns):
        return estimate_workload_statistics(stream, patterns, seed=int(spec["seed"]))

    def algorithms(self, spec: Mapping) -> list[str]:
        return list(spec["methods"])

    def plan_one(self, spec: Mapping, patterns, stats, algorithm: str) -> cells.Planned:
        own = is_builtin(algorithm) or algorithm in multi_planner_names()  # a budget in neighbours is the built-in searches' own
        neighbours = neighbours_param(spec["params"], "search_neighbours of the map's cells")
        budget = {"time_limit": 3600.0, "max_neighbours": neighbours} if own and neighbours is not None else {"time_limit": 5.0}
        r = plan_workload(patterns, algorithm, stats, seed=int(spec["seed"]), **budget)
        return cells.Planned(r.plan, plan_digest(r.plan), {"plan_cost": r.cost, "trivial_cost": r.trivial_cost,
                                                           "plan_time_s": r.plan_time_s, "mpg_density": measured_density(patterns)})

    def evaluate(self, spec: Mapping, stream, patterns, planned):
        return evaluate_in_turns(patterns, planned, stream, spec["params"])

    def fields(self, spec: Mapping, algorithm: str) -> dict:
        return _fields(spec, size=spec["point"]["workload_size"], kind="multi", evaluator=None)


class TrendCell(cells.CellKind):
    """A point of a trend aggregation map (see the module docstring)."""

    def stream(self, spec: Mapping):
        p = spec["params"]
        return bursty_stock_stream(int(p["events_per_minute"]), float(p["minutes"]), int(spec["seed"]),
                                   burst_mean=float(p["burst_mean"]), kleene_share=float(p["kleene_share"]))

    def workload(self, spec: Mapping, stream_and_pool):
        stream, pool = stream_and_pool
        as_figure = {"params": spec["params"], "dataset": spec["dataset"], "figure": "fig10"}  # HAMLET's first workload
        return parse_patterns(trend_workload(as_figure, pool, stream))

    def algorithms(self, spec: Mapping) -> list[str]:
        return list(spec["methods"])

    def plan(self, spec: Mapping, queries, stats) -> dict[str, cells.Planned]:
        return {}  # the engines decide online (HAMLET per burst): nothing is planned beforehand

    def evaluate(self, spec: Mapping, stream_and_pool, queries, planned):
        out = {}
        for engine in self.algorithms(spec):
            out.update(hamlet.KIND.evaluate({**spec, "algorithm": engine}, stream_and_pool, queries, {}))
        return out

    def fields(self, spec: Mapping, algorithm: str) -> dict:
        return _fields(spec, size=spec["point"]["queries"], kind="trends", evaluator=algorithm)


KINDS = {"patterns": PatternCell(), "workloads": WorkloadCell(), "trends": TrendCell()}


def run_map_cell(spec: Mapping) -> list[dict]:
    return cells.run_cell(KINDS[spec["family"]], spec)

