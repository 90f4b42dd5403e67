"""A bench number and an experiment cell measure the same code: ``bench evaluators``' sweep plans and
evaluates with the JQPG cells' own steps, so its plans and counts are those a cell of the same pattern,
statistics and stream stores.  Real data (the bundled NASDAQ sample)."""

from __future__ import annotations

import argparse
import json

from cep.pattern import Window
from experiments.bench.evaluators import most_frequent_types, run_sweep
from experiments.data.datasets import load_dataset
from experiments.data.statistics import estimate_statistics
from experiments.exps.jqpg import KIND, evaluator_for
from experiments.running import cells
from experiments.workloads.jqpg import make_pattern


def test_the_sweep_reports_what_the_cells_pipeline_computes(capsys):
    args = argparse.Namespace(sizes="3", planners="EFREQ,DP-B", datasets="nasdaq", sets="seq", per_size=1, types=6,
                              window=600.0, seed=0, repeats=1, max_partial_matches=None, json=True)
    run_sweep(args)
    rows = {r["planner"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert set(rows) == {"EFREQ", "DP-B"} and all(r["consistent"] for r in rows.values())

    types = most_frequent_types("nasdaq", 6)
    stream = load_dataset("nasdaq", types=types)
    pattern = make_pattern("seq", 3, 0, types, Window.seconds(600.0), seed=0)
    stats = estimate_statistics(stream, [pattern], seed=0)
    for planner, row in rows.items():
        planned = KIND.plan_one({"seed": 0}, pattern, stats, planner)  # a JQPG cell's plan step
        spec = {"evaluator": evaluator_for({}, planned.fields["kind"]), "repeats": 1}
        evaluated = KIND.evaluate(spec, stream, pattern, {planner: planned})[planner]
        assert row["plan"] == planned.digest and row["evaluator"] == spec["evaluator"]
        assert evaluated.status == cells.OK and row["matches"] == evaluated.metrics["matches"]
        assert row["peak_partial_matches"] == evaluated.metrics["peak_partial_matches"]
