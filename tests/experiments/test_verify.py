"""verify's comparison of one cell's metrics: a deterministic metric must be identical on the re-run,
unless the committed rows do not have it at all (a metric added after they were stored); measured
metrics are shown, never failed."""

from __future__ import annotations

from pathlib import Path

from experiments.tools.verify import NEW, SHOWN, compare_metrics


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

    from experiments.tools.verify import pick_cells

    cells, ids = _stored("mcep_fig14")
    cap = median(cells[i]["_cell_s"] for i in ids)  # half the cells are over it
    for seed in range(5):
        picked = pick_cells(cells, ids, 3, seed, cap)
        assert len(picked) == 3 and all(cells[i]["_cell_s"] <= cap for i in picked)
    assert pick_cells(cells, ids, 3, 0) == pick_cells(cells, ids, 3, 0, None)  # no cap: the plain seeded sample


def test_an_experiment_with_no_cell_within_the_cap_verifies_its_cheapest():
    from experiments.tools.verify import pick_cells

    cells, ids = _stored("motto_fig13")
    cheapest = min(ids, key=lambda i: cells[i]["_cell_s"])
    assert pick_cells(cells, ids, 3, 0, cells[cheapest]["_cell_s"] / 2) == [cheapest]


def test_ci_runs_the_readmes_verify():
    """.ci/run's verify is the README's command, whose default caps the stored time of the cells it samples."""
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    ci = [line for line in (repo / ".ci" / "run").read_text().splitlines() if "-m experiments verify" in line and not line.startswith("#")]
    readme = [line.split("#")[0].strip() for line in (repo / "README.md").read_text().splitlines() if line.startswith("python -m experiments verify")]
    assert readme == ["python -m experiments verify"]
    assert ci == [".venv/bin/" + readme[0]]


def test_the_default_verify_of_the_committed_reference_takes_minutes_not_hours():
    """verify's default (issue 36, item 8): 3 cells per experiment among those stored with a run time of at most
    5 s (an experiment with none: its cheapest), at most 5 minutes of stored cell time over the committed reference;
    the README's former ``--sample 5`` with no cap sampled 659 s, some cells of minutes each."""
    import argparse

    from experiments.commands import verify as command
    from experiments.tools.verify import pick_cells

    p = argparse.ArgumentParser()
    command.add_arguments(p)
    args = p.parse_args([])
    assert args.max_cell_s is not None and args.max_cell_s <= 10
    root = Path(__file__).resolve().parents[2] / "results"
    total = 0.0
    names = command.stored_experiments(root)
    assert any(n.startswith("maps/") for n in names)  # the regime maps are verified too
    for name in names:
        cells, ids = _stored(name)
        picked = pick_cells(cells, ids, args.sample, args.seed, args.max_cell_s)
        seconds = [float(cells[i].get("_cell_s", 0.0)) for i in picked]
        assert picked and (max(seconds) <= args.max_cell_s or len(picked) == 1), name  # over the cap: only its cheapest
        total += sum(seconds)
    assert total <= 300


# ---- a different plan: an equal-cost tie, or a failure ----------------------------------------------------
def _cell_rows(plan: str, cost: float, matches: float):
    import pandas as pd

    return pd.DataFrame({"algorithm": ["DP-B"] * 3, "plan": [plan] * 3, "status": ["ok"] * 3,
                         "metric": ["plan_cost", "matches", "throughput_eps"], "value": [cost, matches, 1000.0]})


def _plan_row(committed, rerun):
    from experiments.tools.verify import compare_cell

    return _by(compare_cell("e", "c", {"pattern_id": "p", "algorithm": "DP-B"}, committed, rerun))["plan"]


def test_another_plan_of_identical_cost_and_counts_is_a_tie_not_a_failure():
    from experiments.tools.verify import TIE, difference_rows

    d = _plan_row(_cell_rows("(a, (b, c))", 12.5, 3), _cell_rows("((a, b), c)", 12.5, 3))
    assert d.ok and d.rule == TIE
    assert difference_rows([d])[0]["result"] == "tie: equal cost"  # shown even without --all


def test_another_plan_whose_cost_or_counts_differ_fails():
    for cost, matches in ((12.6, 3), (12.5, 4)):
        d = _plan_row(_cell_rows("(a, (b, c))", 12.5, 3), _cell_rows("((a, b), c)", cost, matches))
        assert not d.ok


def test_another_plan_with_no_plan_cost_to_compare_fails():
    c, r = _cell_rows("(a, (b, c))", 12.5, 3), _cell_rows("((a, b), c)", 12.5, 3)
    c, r = c[c.metric != "plan_cost"], r[r.metric != "plan_cost"]
    assert not _plan_row(c, r).ok


def test_the_failover_check_counts_even_a_tie_as_a_difference():
    """Both runs of the cluster check are on one machine: an equal-cost plan flip is not excused there."""
    from experiments.tools.failover import deterministic_tally
    from experiments.tools.verify import compare_cell

    diffs = compare_cell("e", "c", {"pattern_id": "p", "algorithm": "DP-B"}, _cell_rows("(a, (b, c))", 12.5, 3),
                         _cell_rows("((a, b), c)", 12.5, 3))
    assert [d.metric for d in deterministic_tally(diffs)["differ"]] == ["plan"]


def test_verify_shows_a_progress_bar_on_a_terminal(monkeypatch, capsys):
    """On a terminal verify draws a bar over the sampled cells' stored run time, with its estimate of the time left."""
    import io
    import sys

    from experiments.cli import main as cli_main

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    err = Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    assert cli_main(["verify", "--exp", "jqpg_fig3", "--sample", "1"]) == 0
    bar = err.getvalue()
    assert "verify: 100%|" in bar and "s of stored cell time [" in bar and "jqpg_fig3, cell 1 of 1]" in bar, bar
    assert "verified 1 cells of 1 experiment(s)" in capsys.readouterr().out


def test_a_regime_maps_cells_are_verified_like_an_experiments(capsys):
    """verify samples a map's stored cells (``--exp maps/<name>``): plans, costs and counts identical on a re-run."""
    from experiments.cli import main as cli_main

    assert cli_main(["verify", "--exp", "maps/dpld_vs_efreq", "--sample", "1"]) == 0
    assert "verified 1 cells of 1 experiment(s)" in capsys.readouterr().out
