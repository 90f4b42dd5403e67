"""The one cell pipeline (experiments/running/cells.py) and the metric registry (cep/metrics.py)."""

from __future__ import annotations

import pytest

from cep.metrics import DETERMINISTIC, EVALUATION, MEASURED, METRICS
from experiments.running import cells
from experiments.running.store import COLUMNS, cell_id, rows_table

SPEC = {"experiment": "toy", "pattern_id": "p1", "seed": 3, "params": {"a": 1}, "_code_version": "abc"}


class Toy(cells.CellKind):
    """Two algorithms: A is planned and evaluated, B is planned and capped; a reference run R is
    evaluated without a plan; A also sweeps an x inside the cell."""

    def stream(self, spec):
        return [1, 2, 3]

    def workload(self, spec, stream):
        return ("w", len(stream))

    def statistics(self, spec, stream, workload):
        return {"rate": workload[1]}

    def algorithms(self, spec):
        return ["A", "B"]

    def plan_one(self, spec, workload, stats, algorithm):
        return cells.Planned(plan=algorithm.lower(), digest=f"d-{algorithm}", metrics={"plan_cost": stats["rate"] * 10},
                             fields={"kind": f"kind-{algorithm}"})

    def evaluate(self, spec, stream, workload, planned):
        return {
            "A": cells.Evaluated({"matches": 7}, x_name="nodes", series={1: {"supported_queries": 4}, 2: {"supported_queries": 9}}),
            "B": cells.Evaluated({"throughput_eps": None}, status="capped: work"),
            "R": cells.Evaluated({"matches": 7}, digest="d-ref"),
        }

    def fields(self, spec, algorithm):
        return {"dataset": "toy-data", "workload": "w", "size": 3, "kind": None, "evaluator": "e", "alpha": 0.0,
                "strategy": None, "params": cells.params_json(spec["params"]), "x_name": None, "x_value": None}


def test_the_pipeline_builds_plan_rows_then_evaluation_rows_for_every_algorithm():
    rows = cells.run_cell(Toy(), SPEC)
    by = {(r["algorithm"], r["metric"], r["x_value"]): r for r in rows}
    assert set(by) == {("A", "plan_cost", None), ("B", "plan_cost", None), ("A", "matches", None),
                       ("A", "supported_queries", 1.0), ("A", "supported_queries", 2.0), ("B", "throughput_eps", None),
                       ("R", "matches", None)}
    assert by[("A", "plan_cost", None)]["value"] == 30.0 and by[("A", "plan_cost", None)]["kind"] == "kind-A"
    assert by[("A", "supported_queries", 2.0)]["value"] == 9.0 and by[("A", "supported_queries", 2.0)]["x_name"] == "nodes"
    assert by[("A", "matches", None)]["plan"] == "d-A" and by[("A", "matches", None)]["kind"] == "kind-A"
    capped = by[("B", "throughput_eps", None)]
    assert capped["status"] == "capped: work" and capped["value"] is None and capped["plan"] == "d-B"
    assert by[("B", "plan_cost", None)]["status"] == "ok"
    assert by[("R", "matches", None)]["plan"] == "d-ref" and by[("R", "matches", None)]["kind"] is None
    assert {r["cell_id"] for r in rows} == {cell_id(SPEC)} and {r["code_version"] for r in rows} == {"abc"}
    assert all(set(r) == set(COLUMNS) for r in rows)
    rows_table(rows)  # the store takes them as they are


def test_a_row_with_a_metric_outside_the_registry_is_refused():
    with pytest.raises(KeyError, match="registry"):
        cells.row(SPEC, {}, "A", "speed_of_light", 1.0)
    bad = {**cells.run_cell(Toy(), SPEC)[0], "metric": "speed_of_light"}
    with pytest.raises(ValueError, match="registry"):
        rows_table([bad])


def test_summarize_keeps_the_first_run_of_deterministic_metrics_and_the_median_of_measured_ones():
    runs = [{"matches": 5, "throughput_eps": 10.0, "latency_ms_mean": None},
            {"matches": 5, "throughput_eps": 30.0, "latency_ms_mean": None},
            {"matches": 5, "throughput_eps": 20.0, "latency_ms_mean": None}]
    assert cells.summarize(runs, ("matches", "throughput_eps", "latency_ms_mean")) == \
        {"matches": 5, "throughput_eps": 20.0, "latency_ms_mean": None}


def test_the_registry_is_the_one_list_of_metrics():
    from evaluators import METRIC_NAMES
    from experiments.tools import verify

    assert set(DETERMINISTIC) | set(MEASURED) == set(METRICS) and not set(DETERMINISTIC) & set(MEASURED)
    assert METRIC_NAMES == EVALUATION and set(EVALUATION) <= set(METRICS)
    assert verify.DETERMINISTIC is DETERMINISTIC and verify.MEASURED is MEASURED
    # the evaluators' metered state is deterministic; HAMLET's tracemalloc peak is measured
    assert METRICS["peak_memory_bytes"].deterministic and not METRICS["peak_traced_memory_bytes"].deterministic


def test_a_capped_evaluation_stores_what_makes_it_a_bound():
    """A capped run keeps the stream's events and the time to the cap (its throughput is at most their
    ratio, experiments/reporting/bounds.py), and the events it processed where the evaluator knows them."""
    from cep.errors import PartialMatchLimitError, WorkLimitError

    e = cells.capped(WorkLimitError("more than 10 candidates", processed=40), 100, 0.5, peak_partial_matches=7)
    assert e.status == "capped: more than 10 candidates"
    assert e.metrics == {"throughput_eps": None, "peak_partial_matches": 7, "events": 100, "capped_elapsed_s": 0.5,
                         "processed_events": 40}
    assert "processed_events" not in cells.capped(PartialMatchLimitError("more than 5"), 100, 0.5).metrics
    assert all(k in METRICS for k in e.metrics)


def test_timed_runs_run_the_algorithms_in_turns_and_stop_one_at_its_cap():
    """Run i of every algorithm before run i + 1 of any; an algorithm whose run crosses a cap stops there and
    is a capped evaluation, the others go on."""
    from cep.errors import PartialMatchLimitError

    order = []

    def run(name, cap_at=None):
        def one(i):
            order.append((name, i))
            if cap_at == i:
                raise PartialMatchLimitError("too many partial matches")
            return {"throughput_eps": float(i + 1), "matches": 5}
        return one

    out = cells.timed_runs({"A": run("A"), "B": run("B", cap_at=1)}, 3, events=10, peak_partial_matches=99)
    assert order == [("A", 0), ("B", 0), ("A", 1), ("B", 1), ("A", 2)]
    assert [m["throughput_eps"] for m in out["A"]] == [1.0, 2.0, 3.0]
    assert isinstance(out["B"], cells.Evaluated) and out["B"].status.startswith("capped: ")
    assert out["B"].metrics["events"] == 10 and out["B"].metrics["peak_partial_matches"] == 99
    assert cells.timed_runs({"A": run("A")}, 0, events=1)["A"] != []  # at least one run


def test_a_metric_a_figure_draws_has_its_label_and_scale_in_its_registry_entry():
    from cep.metrics import DERIVED, drawn

    assert drawn("peak_memory_bytes").axis() == "Peak memory of the evaluator state (MiB)"
    assert drawn("peak_memory_bytes").scale == 2**-20 and drawn("throughput_eps").axis() == "Throughput (events/s)"
    assert drawn("matches").axis() == "Matches" and "normalized_cost" in DERIVED and "normalized_cost" not in METRICS
    with pytest.raises(KeyError, match="cep/metrics.py"):
        drawn("events").axis()  # stored, but no figure draws it: no label
    with pytest.raises(KeyError, match="neither stored nor derived"):
        drawn("no_such_metric")
