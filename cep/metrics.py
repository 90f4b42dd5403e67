"""The one registry of metric names: what each metric measures, in which unit, and whether every run of
the same cell gives it alike (*deterministic*: counts, costs, plans' sizes) or it depends on the machine and
its load (*measured*: times, rates, traced bytes).

The evaluators report the metrics of :data:`EVALUATION`; the results store accepts exactly the names of
:data:`METRICS`; ``verify`` requires the deterministic ones to be identical on a re-run and shows the
measured ones beside the committed values; a cell that runs an evaluation several times keeps the first
run's deterministic metrics and the median of the measured ones.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Metric:
    name: str
    deterministic: bool
    unit: str
    description: str


def _m(name: str, deterministic: bool, unit: str, description: str) -> Metric:
    return Metric(name, deterministic, unit, description)


_ALL = (
    # planning (JQPG, MCEP, MOTTO, NEXT)
    _m("plan_cost", True, "cost", "the planner's cost of its plan (the cost model of the plan's kind)"),
    _m("plan_cost_tree", True, "cost", "Cost_tree of the plan, an order taken as its left-deep tree (JQPG 3.2)"),
    _m("plan_time_s", False, "s", "planning time"),
    _m("trivial_cost", True, "cost", "cost of the trivial global plan (written orders, nothing shared)"),
    _m("steps_per_s", False, "1/s", "local-search steps per second"),
    _m("search_steps", False, "steps", "steps a time-limited local search reached"),
    _m("mpg_density", True, "", "the multi-pattern graph density the workload reached (MCEP App. D)"),
    _m("replans", True, "", "plan switches of the adaptive method (MCEP 6.2.3)"),
    _m("drift_detections", True, "", "drifts of the arrival statistics the adaptive method detected (MCEP 6.2.3)"),
    _m("replayed_events", True, "events", "events a plan entered before the point it took over at (plan migration)"),
    _m("overlap_events", True, "events", "events two plans entered side by side while one handed over to the other"),
    # evaluation (evaluators/engine.py and the multi-pattern evaluators)
    _m("events", True, "events", "events of the stream (of every type)"),
    _m("matches", True, "matches", "matches reported"),
    _m("throughput_eps", False, "events/s", "events of the stream over the detection time"),
    _m("throughput_spread", False, "", "largest over smallest throughput of a cell's runs"),
    _m("elapsed_s", False, "s", "detection time"),
    _m("decode_s", False, "s", "time to turn the input into columns, timed apart from detection"),
    _m("work", True, "candidates", "candidate combinations the joins examined"),
    _m("partial_matches_created", True, "", "partial matches the run created (live, expired or purged)"),
    _m("peak_partial_matches", True, "", "largest number of live partial matches after any event"),
    _m("mean_partial_matches", True, "", "live partial matches averaged over the events of the pattern's types"),
    _m("peak_buffered_events", True, "", "largest number of events buffered for later joins"),
    _m("peak_state", True, "", "largest sum of live partial matches and buffered events"),
    _m("peak_memory_bytes", True, "bytes", "peak bytes of the evaluator's state, metered in an untimed run"),
    _m("latency_ms_mean", False, "ms", "mean time from a match's last event to its report"),
    _m("latency_ms_p95", False, "ms", "95th percentile of that latency"),
    _m("latency_work_mean", True, "candidates",
       "mean join candidates examined from a match's last event to its report (JQPG 5.1's Cost_lat, measured)"),
    # NEXT (experiments/exps/next_figs.py)
    _m("supported_operators", False, "operators", "operators the simulated nodes hold (measured CPU loads)"),
    _m("supported_queries", False, "queries", "queries the simulated nodes admit (measured CPU loads)"),
    _m("query_cpu_ms", False, "ms", "measured CPU per second of stream of a query's operators"),
    _m("distinct_operators", True, "operators", "distinct operators of a query pool"),
    _m("complex_events_per_cpu_s", False, "1/s", "complex events detected per CPU second"),
    _m("cpu_s", False, "s", "CPU time of the engine"),
    _m("send_us", False, "us", "measured CPU of sending one event between nodes"),
    _m("recv_us", False, "us", "measured CPU of receiving one event"),
    _m("measure_s", False, "s", "time the measurement of a pool took"),
    _m("deployed_operators", False, "operators", "operators deployed by a placement"),
    _m("load_variance", False, "", "variance of the nodes' loads after a placement"),
    _m("paper_cost", False, "cost", "NEXT's cost of a placement (over measured loads)"),
    _m("placement_time_s", False, "s", "time a placement took"),
    # HAMLET (experiments/exps/hamlet_figs.py)
    _m("latency_ms", False, "ms", "mean latency per timestamp of the trend aggregation"),
    _m("latency_p95_ms", False, "ms", "95th percentile of that latency"),
    _m("peak_traced_memory_bytes", False, "bytes", "tracemalloc's peak over an untimed run"),
    _m("snapshots", True, "", "snapshots the HAMLET executor created"),
    _m("shared_graphlets", True, "", "graphlets shared by several queries"),
    _m("graphlets", True, "", "graphlets"),
    _m("burst_mean", True, "events", "mean length of a burst of the shared Kleene type"),
    _m("bursts", True, "", "bursts of shareable types the HAMLET optimizer decided on"),
    _m("decision_ms", False, "ms", "time of the HAMLET optimizer's per-burst decisions over the run"),
    _m("analysis_ms", False, "ms", "time of the static workload analysis (parsing and compiling the queries)"),
    # capped runs (experiments/reporting/bounds.py): a run stopped at a cap is a bound
    _m("capped_elapsed_s", False, "s", "time a capped run ran until its cap stopped it"),
    _m("processed_events", True, "events", "events a capped run had processed when its cap stopped it"),
    # MOTTO (experiments/exps/motto_figs.py)
    _m("shared_nodes", True, "nodes", "internal MPM nodes with two or more owners"),
    _m("optimizer_s", False, "s", "time of MOTTO's Steiner search"),
    _m("planned_gain", True, "", "MOTTO's own objective: its trivial plan's cost over its Steiner tree's"),
    _m("finished", False, "", "1 if the exact Steiner search finished within its budget"),
    _m("graph_vertices", True, "", "vertices of MOTTO's sharing graph"),
    _m("graph_arcs", True, "", "arcs of MOTTO's sharing graph"),
    _m("graph_build_s", False, "s", "time to build MOTTO's sharing graph"),
    # MOTTO Figure 14b (experiments/running/parallel_mpm.py)
    _m("parallel_groups", True, "", "groups a global plan was split into"),
    _m("speedup_bound", True, "", "the plan's cost over its largest group's"),
    _m("copied_nodes", True, "nodes", "internal nodes two or more groups compute"),
    _m("slowest_task_s", False, "s", "the slowest task's own detection time"),
    _m("parallel_mismatches", True, "patterns", "patterns whose matches in the k-task run differ from the single-thread run's"),
)

#: every metric by name, in a stable order
METRICS: dict[str, Metric] = {m.name: m for m in _ALL}
DETERMINISTIC: tuple[str, ...] = tuple(m.name for m in _ALL if m.deterministic)
MEASURED: tuple[str, ...] = tuple(m.name for m in _ALL if not m.deterministic)

#: what an evaluator's run reports (:func:`evaluators.engine.run_program`), in this order
EVALUATION: tuple[str, ...] = (
    "events", "matches", "throughput_eps", "elapsed_s", "decode_s", "work", "partial_matches_created",
    "peak_partial_matches", "mean_partial_matches", "peak_buffered_events", "peak_state", "peak_memory_bytes",
    "latency_ms_mean", "latency_ms_p95", "latency_work_mean",
)


def is_deterministic(name: str) -> bool:
    """Whether ``name`` is a deterministic metric; an unknown name is a KeyError."""
    return METRICS[name].deterministic
