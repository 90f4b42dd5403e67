"""The cluster fail-over check (experiments/tools/failover.py) on stores written by the results store: a
lost cell, a duplicated cell, a cell of another run, a miscount of the cells run, or a deterministic
metric that differs from the local run's each fail it; measured metrics never do."""

from __future__ import annotations

import json

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from experiments.tools.failover import check_cells, compare_runs, deterministic_tally
from experiments.running.store import SCHEMA, ResultStore, cell_id


def _spec(i: int) -> dict:
    return {"experiment": "e", "dataset": "d", "pattern_id": f"p{i}", "algorithm": "greta", "seed": i}


def _rows(i: int, matches: float = 5.0, throughput: float = 100.0) -> list[dict]:
    base = {"experiment": "e", "dataset": "d", "pattern_id": f"p{i}", "algorithm": "greta", "status": "ok",
            "plan": f"digest{i}", "cell_id": cell_id(_spec(i))}
    return [{**base, "metric": "matches", "value": matches}, {**base, "metric": "events", "value": 50.0},
            {**base, "metric": "throughput_eps", "value": throughput}]


def _store(path, cells: dict[int, dict], ran: int | None = None):
    store = ResultStore(path)
    for i, kw in cells.items():
        store.append(cell_id(_spec(i)), _spec(i), _rows(i, **kw))
    store.consolidate()
    (path / "metadata.json").write_text(json.dumps({"cells_run": len(cells) if ran is None else ran}))
    return store


IDS = {cell_id(_spec(i)) for i in range(3)}


def test_every_cell_stored_once_passes(tmp_path):
    c = check_cells(IDS, _store(tmp_path / "e", {0: {}, 1: {}, 2: {}}).dir)
    assert c.ok and (c.expected, c.stored) == (3, 3) and not (c.missing or c.duplicated or c.extra)


def test_a_lost_cell_fails(tmp_path):
    c = check_cells(IDS, _store(tmp_path / "e", {0: {}, 1: {}}).dir)
    assert not c.ok and c.missing == [cell_id(_spec(2))]


def test_a_cell_of_another_run_fails(tmp_path):
    c = check_cells(IDS, _store(tmp_path / "e", {0: {}, 1: {}, 2: {}, 3: {}}).dir)
    assert not c.ok and c.extra == [cell_id(_spec(3))]


def test_a_cell_stored_twice_fails(tmp_path):
    store = _store(tmp_path / "e", {0: {}, 1: {}, 2: {}})
    lines = store.cell_lines()
    store.write_cell_lines(lines + lines[:1])
    c = check_cells(IDS, store.dir)
    assert not c.ok and len(c.duplicated) == 1

    store = _store(tmp_path / "f", {0: {}, 1: {}, 2: {}})
    table = pq.read_table(store.table_path).to_pandas()
    twice = pd.concat([table, table[table["cell_id"] == cell_id(_spec(1))]], ignore_index=True)
    pq.write_table(pa.Table.from_pandas(twice, schema=SCHEMA, preserve_index=False), store.table_path)
    c = check_cells(IDS, store.dir)
    assert not c.ok and c.duplicated == [cell_id(_spec(1))]


def test_a_run_that_counted_a_cell_twice_fails(tmp_path):
    assert not check_cells(IDS, _store(tmp_path / "e", {0: {}, 1: {}, 2: {}}, ran=4).dir).ok


def test_a_deterministic_metric_that_differs_fails_and_a_measured_one_does_not(tmp_path):
    local = _store(tmp_path / "local" / "e", {0: {}, 1: {}, 2: {}})
    same = _store(tmp_path / "same" / "e", {0: {"throughput": 7.0}, 1: {}, 2: {}})
    t = deterministic_tally(compare_runs(local.dir, same.dir, IDS))
    assert not t["differ"] and t["metric_values"] == 6 and t["identical"] == 6 + 6  # + a plan and a status per cell
    other = _store(tmp_path / "other" / "e", {0: {}, 1: {"matches": 6.0}, 2: {}})
    t = deterministic_tally(compare_runs(local.dir, other.dir, IDS))
    assert [(d.cell_id, d.metric) for d in t["differ"]] == [(cell_id(_spec(1)), "matches")]
