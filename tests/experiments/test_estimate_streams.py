"""What ``--estimate`` builds for its sample is what the run builds for those cells.

The JQPG sample is the cells ``random.Random(seed).sample`` picks from every cell the run specifies,
each specification identical (statistics included) though only the sampled patterns' types were
built; a sampled cell runs on its pattern's types only where its evaluation reads no other event,
and gives there exactly the deterministic results it gives on the whole stream.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from cep.metrics import is_deterministic
from experiments.commands.run import compose_config
from experiments.data.streams import experiment_stream, stream_of_types
from experiments.exps import jqpg as grid


def _cfg(exp: str, *overrides: str):
    return compose_config([f"+exp={exp}", "scale=quick", "runner=serial", *overrides])


@pytest.mark.parametrize("exp, seed", [("jqpg_fig3", 0), ("jqpg_fig9", 5)])
def test_the_sample_is_the_runs_cells_built_from_their_own_types(exp, seed):
    cfg = _cfg(exp)
    every = grid.specs(cfg, None)
    count, sample = grid.sample_specs(cfg, 6, seed)
    strip = lambda s: {k: v for k, v in s.items() if k != "_code_version"}  # noqa: E731
    assert count == len(every) == grid.count_cells(cfg)
    assert [strip(s) for s in sample] == [strip(s) for s in random.Random(seed).sample(every, 6)]


def test_a_replay_of_some_types_is_the_whole_replays_events_of_those_types():
    cfg = _cfg("jqpg_fig3")
    spec = grid.stream_specs(cfg)[0]
    whole = experiment_stream(spec)
    types = spec["pool"][3:9:2]
    part = stream_of_types(spec, types)
    rows = whole.rows_of_types(types)
    assert len(part) == len(rows) > 0
    assert np.array_equal(part.ts, whole.ts[rows]) and part.type_per_event().tolist() == whole.type_per_event()[rows].tolist()
    for a in whole.attributes:
        assert part.column(a) == whole.column(a, rows)


def _deterministic(rows):
    """The deterministic rows but ``events`` (the length of the stream the cell was fed)."""
    return sorted((r["algorithm"], r["metric"], r["value"], r["status"], r["plan"]) for r in rows
                  if is_deterministic(r["metric"]) and r["metric"] != "events")


def test_a_sampled_cell_gives_its_deterministic_results_on_its_types_alone():
    """Cells of every pattern set (negation and Kleene closure included) under skip-till-any-match:
    the evaluation on the pattern's types alone (what the estimate times) reports the work, matches,
    partial matches and state of the evaluation on the whole stream (only ``events``, the length of
    the stream fed, differs)."""
    from experiments.data import streams

    cfg = _cfg("jqpg_fig3", "+exp.measure_memory=true")
    specs = grid.specs(cfg, None)
    by_set = {}
    for s in specs:
        by_set.setdefault((s["workload"], s["evaluator"]), s)
    checked = 0
    for s in by_set.values():
        types = grid.cell_stream_types(s)
        assert types is not None and set(types) <= set(s["stream"]["pool"])
        whole = grid.run_cell(s)
        streams.install(s["stream"], stream_of_types(s["stream"], types))
        try:
            alone = grid.run_cell(s)
        finally:
            streams.install(s["stream"], streams.replay_plan(s["stream"]).build())
        assert _deterministic(alone) == _deterministic(whole), s["pattern_id"]
        checked += 1
    assert checked >= 4


def test_cells_whose_evaluation_reads_other_events_build_the_whole_stream():
    specs = grid.specs(_cfg("jqpg_fig9"), None)
    strategies = {s["strategy"]: grid.cell_stream_types(s) for s in specs}
    assert strategies["skip-till-any-match"] and strategies["skip-till-next-match"] is None
    assert strategies["strict-contiguity"] is None
    planning_only = _cfg("jqpg_fig7")
    assert all(grid.cell_stream_types(s) == [] for s in grid.sample_specs(planning_only, 3, 0)[1])
