"""The one registry of metric names: what each metric measures, in which unit, whether every run of the
same cell gives it alike (*deterministic*: counts, costs, plans' sizes) or it depends on the machine and its
load (*measured*: times, rates, traced bytes), and how a figure labels its axis.

The evaluators report the metrics of :data:`EVALUATION`; the results store accepts exactly the names of
:data:`METRICS`; ``verify`` requires the deterministic ones to be identical on a re-run and shows the
measured ones beside the committed values; a cell that runs an evaluation several times keeps the first
run's deterministic metrics and the median of the measured ones.  The report draws a metric with its
``label`` and, where it has one, ``plot_unit``, its values multiplied by ``scale``; :data:`DERIVED` holds
the quantities the report computes from stored metrics and draws (never stored).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Metric:
    name: str
    deterministic: bool
    unit: str
    description: str
    label: str = ""  # a figure's axis label (words); empty for a metric no figure draws
    plot_unit: str = ""  # the unit of the drawn values ("" for none)
    scale: float = 1.0  # the drawn value = the stored value x scale

    def axis(self) -> str:
        """The axis label of a figure: the label, with the drawn unit in parentheses."""
        if not self.label:
            raise KeyError(f"no axis label for metric {self.name!r}: give it a label in cep/metrics.py")
        return f"{self.label} ({self.plot_unit})" if self.plot_unit else self.label


def _m(name: str, deterministic: bool, unit: str, description: str, label: str = "", plot_unit: str | None = None,
       scale: float = 1.0) -> Metric:
    """A registry entry; a drawn metric's ``plot_unit`` is its ``unit`` unless given."""
    return Metric(name, deterministic, unit, description, label, unit if plot_unit is None else plot_unit, scale)


MIB = 1 / 2**20


_ALL = (
    # planning (JQPG, MCEP, MOTTO, NEXT)
    _m("plan_cost", True, "cost", "the planner's cost of its plan (the cost model of the plan's kind)",
       label="Plan cost (expected partial matches)", plot_unit=""),
    _m("plan_cost_tree", True, "cost", "Cost_tree of the plan, an order taken as its left-deep tree (JQPG 3.2)"),
    _m("plan_time_s", False, "s", "planning time",
       label="Plan generation time"),
    _m("trivial_cost", True, "cost", "cost of the trivial global plan (written orders, nothing shared)"),
    _m("plan_cost_paper", True, "cost", "the plan a method makes with the rates at the paper's events per window, costed there "
       "(model_paper.parquet beside an MCEP or MOTTO run; experiments/tools/model_paper.py)"),
    _m("trivial_cost_paper", True, "cost", "the trivial global plan's cost at the paper's events per window (model_paper.parquet)"),
    _m("neighbours_per_s", False, "1/s", "neighbours a local search evaluated per second"),
    _m("neighbours_evaluated", True, "neighbours",
       "neighbours the plan's search evaluated (algorithms/effort.py: one per neighbour whose cost was computed); "
       "a time-limited search is re-run on exactly these, so the count is a property of the cell",
       label="Search effort (neighbours evaluated)", plot_unit=""),
    _m("search_exhausted", True, "components",
       "searched MPG components (MOTTO: the annealing) whose neighbourhood ran out before their budget"),
    _m("mpg_density", True, "", "the multi-pattern graph density the workload reached (MCEP App. D)"),
    _m("replans", True, "", "plan switches of the adaptive method (MCEP 6.2.3)"),
    _m("drift_detections", True, "", "drifts of the arrival statistics the adaptive method detected (MCEP 6.2.3)"),
    _m("replayed_events", True, "events", "events a plan entered before the point it took over at (plan migration)"),
    _m("overlap_events", True, "events", "events two plans entered side by side while one handed over to the other"),
    # evaluation (evaluators/engine.py and the multi-pattern evaluators)
    _m("events", True, "events", "events of the stream (of every type)"),
    _m("matches", True, "matches", "matches reported",
       label="Matches", plot_unit=""),
    _m("throughput_eps", False, "events/s", "events of the stream over the detection time",
       label="Throughput"),
    _m("throughput_spread", False, "", "largest over smallest throughput of a cell's runs"),
    _m("elapsed_s", False, "s", "detection time",
       label="Detection time"),
    _m("decode_s", False, "s", "time to turn the input into columns, timed apart from detection"),
    _m("work", True, "candidates", "candidate combinations the joins examined"),
    _m("partial_matches_created", True, "", "partial matches the run created (live, expired or purged)"),
    _m("peak_partial_matches", True, "", "largest number of live partial matches after any event",
       label="Peak live partial matches"),
    _m("mean_partial_matches", True, "", "live partial matches averaged over the events of the pattern's types",
       label="Mean live partial matches"),
    _m("peak_buffered_events", True, "", "largest number of events buffered for later joins",
       label="Peak buffered events"),
    _m("peak_state", True, "", "largest sum of live partial matches and buffered events",
       label="Peak state (partial matches + buffered events)"),
    _m("peak_memory_bytes", True, "bytes", "peak bytes of the evaluator's state, metered in an untimed run",
       label="Peak memory of the evaluator state", plot_unit="MiB", scale=MIB),
    _m("latency_ms_mean", False, "ms", "mean time from a match's last event to its report",
       label="Mean detection latency"),
    _m("latency_ms_p95", False, "ms", "95th percentile of that latency",
       label="95th-percentile detection latency"),
    _m("latency_work_mean", True, "candidates",
       "mean join candidates examined from a match's last event to its report (JQPG 5.1's Cost_lat, measured)",
       label="Mean latency work (join candidates from a match's last event to its report)", plot_unit=""),
    # NEXT (experiments/exps/next.py)
    _m("supported_operators", False, "operators", "operators the simulated nodes hold (measured CPU loads)",
       label="Operators supported before overload", plot_unit=""),
    _m("supported_queries", False, "queries", "queries the simulated nodes admit (measured CPU loads)",
       label="Queries supported before overload", plot_unit=""),
    _m("query_cpu_ms", False, "ms", "measured CPU per second of stream of a query's operators",
       label="Measured CPU per query", plot_unit="ms per s of stream"),
    _m("distinct_operators", True, "operators", "distinct operators of a query pool"),
    _m("complex_events_per_cpu_s", False, "1/s", "complex events detected per CPU second",
       label="Complex events detected per CPU second", plot_unit="events/s"),
    _m("cpu_s", False, "s", "CPU time of the engine"),
    _m("send_us", False, "us", "measured CPU of sending one event between nodes"),
    _m("recv_us", False, "us", "measured CPU of receiving one event"),
    _m("measure_s", False, "s", "time the measurement of a pool took"),
    _m("deployed_operators", False, "operators", "operators deployed by a placement"),
    _m("load_variance", False, "", "variance of the nodes' loads after a placement",
       label="Variance of node CPU load", plot_unit="(CPU s/s)^2"),
    _m("paper_cost", False, "cost", "NEXT's cost of a placement (over measured loads)",
       label="Deployment cost cost(Q,P) (Table 1 units)", plot_unit="events/s"),
    _m("placement_time_s", False, "s", "time a placement took"),
    # HAMLET (experiments/exps/hamlet.py)
    _m("latency_ms", False, "ms", "mean latency per timestamp of the trend aggregation",
       label="Mean latency per arriving timestamp"),
    _m("latency_p95_ms", False, "ms", "95th percentile of that latency"),
    _m("peak_traced_memory_bytes", False, "bytes", "tracemalloc's peak over an untimed run",
       label="Peak traced memory", plot_unit="MiB", scale=MIB),
    _m("snapshots", True, "", "snapshots the HAMLET executor created",
       label="Snapshots created"),
    _m("shared_graphlets", True, "", "graphlets shared by several queries"),
    _m("graphlets", True, "", "graphlets"),
    _m("burst_mean", True, "events", "mean length of a burst of the shared Kleene type"),
    _m("bursts", True, "", "bursts of shareable types the HAMLET optimizer decided on"),
    _m("decision_ms", False, "ms", "time of the HAMLET optimizer's per-burst decisions over the run"),
    _m("analysis_ms", False, "ms", "time of the static workload analysis (parsing and compiling the queries)"),
    # capped runs (experiments/reporting/bounds.py): a run stopped at a cap is a bound
    _m("capped_elapsed_s", False, "s", "time a capped run ran until its cap stopped it"),
    _m("processed_events", True, "events", "events a capped run had processed when its cap stopped it"),
    # MOTTO (experiments/exps/motto.py)
    _m("shared_nodes", True, "nodes", "internal MPM nodes with two or more owners"),
    _m("optimizer_s", False, "s", "time of MOTTO's Steiner search"),
    _m("planned_gain", True, "", "MOTTO's own objective: its trivial plan's cost over its Steiner tree's"),
    _m("finished", False, "", "1 if the exact Steiner search finished within its budget"),
    _m("graph_vertices", True, "", "vertices of MOTTO's sharing graph"),
    _m("graph_arcs", True, "", "arcs of MOTTO's sharing graph"),
    _m("graph_build_s", False, "s", "time to build MOTTO's sharing graph"),
    # MOTTO Figure 14b (experiments/exps/motto_parallel.py)
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


#: the quantities a report derives from stored metrics and draws (never stored)
DERIVED: dict[str, Metric] = {m.name: m for m in (
    _m("normalized_cost", True, "x", "EFREQ's plan cost over the plan's, in the plan's cost model (JQPG Figure 7)",
       label="Normalized plan cost (EFREQ's / the plan's)"),
    _m("gain_over_trivial", False, "x", "throughput over the trivial global plan's on the same workload (MCEP)",
       label="Throughput gain over the trivial global plan"),
)}


def drawn(name: str) -> Metric:
    """The entry of a metric a figure draws: a stored metric or a :data:`DERIVED` one (a KeyError naming the
    registry otherwise)."""
    metric = METRICS.get(name) or DERIVED.get(name)
    if metric is None:
        raise KeyError(f"metric {name!r} is neither stored nor derived: register it in cep/metrics.py")
    return metric


def is_deterministic(name: str) -> bool:
    """Whether ``name`` is a deterministic metric; an unknown name is a KeyError."""
    return METRICS[name].deterministic
