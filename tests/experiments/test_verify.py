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
