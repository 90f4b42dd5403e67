"""verify's comparison of one cell's metrics: a deterministic metric must be identical on the re-run,
unless the committed rows do not have it at all (a metric added after they were stored); measured
metrics are shown, never failed."""

from __future__ import annotations

from experiments.running.verify import NEW, SHOWN, compare_metrics


def _by(diffs):
    return {d.metric: d for d in diffs}


def test_a_deterministic_metric_the_committed_rows_lack_is_new_not_a_failure():
    d = _by(compare_metrics("e", "c", "p", "a", {"matches": 3, "work": 10}, {"matches": 3, "work": 10, "latency_work_mean": 2.5}))
    assert d["latency_work_mean"].ok and d["latency_work_mean"].rule == NEW
    assert d["matches"].ok and d["work"].ok


def test_a_deterministic_metric_that_changed_or_vanished_on_the_rerun_fails():
    d = _by(compare_metrics("e", "c", "p", "a", {"matches": 3, "latency_work_mean": 2.5}, {"matches": 4}))
    assert not d["matches"].ok and not d["latency_work_mean"].ok and d["latency_work_mean"].rule != NEW
    d = _by(compare_metrics("e", "c", "p", "a", {"latency_work_mean": 2.5}, {"latency_work_mean": 3.0}))
    assert not d["latency_work_mean"].ok


def test_measured_metrics_are_shown_only():
    d = _by(compare_metrics("e", "c", "p", "a", {"throughput_eps": 1.0}, {"throughput_eps": 2.0}))
    assert d["throughput_eps"].ok and d["throughput_eps"].rule == SHOWN


# ---- which cells verify re-runs: CI's cap on the stored seconds of a cell ------------------------------
def _stored(experiment: str):
    """The committed cells of one experiment (its cells.jsonl.gz) and the ids verify samples from."""
    from pathlib import Path

    from experiments.running.store import ResultStore

    store = ResultStore(Path(__file__).resolve().parents[2] / "results" / experiment)
    cells = store.load_cells()
    return cells, sorted(set(store.load()["cell_id"]) & set(cells))


def test_a_cap_samples_only_cells_that_ran_within_it():
    from statistics import median

    from experiments.running.verify import pick_cells

    cells, ids = _stored("mcep_fig14")
    cap = median(cells[i]["_cell_s"] for i in ids)  # half the cells are over it
    for seed in range(5):
        picked = pick_cells(cells, ids, 3, seed, cap)
        assert len(picked) == 3 and all(cells[i]["_cell_s"] <= cap for i in picked)
    assert pick_cells(cells, ids, 3, 0) == pick_cells(cells, ids, 3, 0, None)  # no cap: the plain seeded sample


def test_an_experiment_with_no_cell_within_the_cap_verifies_its_cheapest():
    from experiments.running.verify import pick_cells

    cells, ids = _stored("motto_fig13")
    cheapest = min(ids, key=lambda i: cells[i]["_cell_s"])
    assert pick_cells(cells, ids, 3, 0, cells[cheapest]["_cell_s"] / 2) == [cheapest]


def test_ci_verifies_with_a_cap():
    """.ci/run's verify samples cheap cells, so that a reference of scale=standard cells does not slow CI."""
    from pathlib import Path

    ci = (Path(__file__).resolve().parents[2] / ".ci" / "run").read_text()
    verify = [line for line in ci.splitlines() if "-m experiments verify" in line and not line.startswith("#")]
    assert verify and all("--max-cell-s" in line for line in verify)
