"""The results store: fixed schema, atomic parts, consolidation, resume."""

from __future__ import annotations

import json
import os

import pyarrow.parquet as pq
import pytest

from experiments.running.store import COLUMNS, ResultStore


def row(cell, metric, value, **kw):
    base = {"experiment": "e", "dataset": "d", "workload": "seq", "size": 3, "pattern_id": "p", "seed": 0, "algorithm": "A",
            "kind": "order", "evaluator": "nfa", "alpha": 0.0, "strategy": "skip-till-any-match", "status": "ok", "plan": "a, b",
            "params": "{}", "cell_id": cell, "code_version": "x"}
    base.update(kw)
    return {**base, "metric": metric, "value": value}


def test_append_consolidate_and_schema(tmp_path):
    st = ResultStore(tmp_path / "e")
    st.append("c1", {"pattern": "P1"}, [row("c1", "plan_cost", 1.5), row("c1", "matches", 3)])
    st.append("c2", {"pattern": "P2"}, [row("c2", "plan_cost", 2.5)])
    assert st.done_ids() == {"c1", "c2"}
    df = st.consolidate()
    assert list(df.columns) == list(COLUMNS)
    assert pq.read_schema(st.table_path).names == list(COLUMNS)
    assert len(df) == 3 and not (tmp_path / "e" / "parts").exists()
    assert set(st.load_cells()) == {"c1", "c2"} and st.load_cells()["c2"]["pattern"] == "P2"
    st.append("c3", {"pattern": "P3"}, [row("c3", "plan_cost", 0.5)])
    assert st.done_ids() == {"c1", "c2", "c3"}
    assert len(st.consolidate()) == 4


def test_rows_outside_the_schema_are_refused(tmp_path):
    st = ResultStore(tmp_path)
    with pytest.raises(ValueError, match="outside the schema"):
        st.append("c1", {}, [{**row("c1", "x", 1.0), "surprise": 1}])


def test_a_crash_while_writing_leaves_no_partial_file(tmp_path, monkeypatch):
    st = ResultStore(tmp_path / "e")
    st.append("c1", {}, [row("c1", "plan_cost", 1.0)])
    st.consolidate()
    before = st.table_path.read_bytes()

    def boom(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        st.append("c2", {}, [row("c2", "plan_cost", 2.0)])
    with pytest.raises(KeyboardInterrupt):
        st.consolidate()
    monkeypatch.undo()
    assert st.table_path.read_bytes() == before
    leftovers = [p.name for p in (tmp_path / "e").rglob("*") if p.is_file() and p.name.endswith(".tmp")]
    assert leftovers == []
    assert st.done_ids() == {"c1"}


def test_a_failed_cell_is_logged_not_done_and_its_log_goes_when_it_succeeds(tmp_path):
    st = ResultStore(tmp_path / "e")
    log = st.record_failure("c1", {"pattern": "P1"}, "Traceback (most recent call last):\n  ...\nValueError: boom\n")
    assert log.read_text().endswith("ValueError: boom\n") and st.failures() == [log]
    assert "c1" not in st.done_ids()
    st.append("c1", {"pattern": "P1"}, [row("c1", "plan_cost", 1.0)])
    assert st.failures() == [] and "c1" in st.done_ids()


def test_written_files_are_readable_by_others(tmp_path):
    st = ResultStore(tmp_path / "e")
    st.append("c1", {"pattern": "P1"}, [row("c1", "plan_cost", 1.0)])
    st.consolidate()
    for p in (st.table_path, st.cells_path):
        assert os.stat(p).st_mode & 0o044 == 0o044, oct(os.stat(p).st_mode)


def test_cells_are_stored_compressed_with_the_same_bytes_for_the_same_cells(tmp_path):
    import gzip

    a, b = ResultStore(tmp_path / "a"), ResultStore(tmp_path / "b")
    for st, order in ((a, ("c1", "c2")), (b, ("c2", "c1"))):
        for c in order:
            st.append(c, {"pattern": f"P{c}"}, [row(c, "plan_cost", 1.0)])
        st.consolidate()
    assert a.cells_path.name == "cells.jsonl.gz" and not a.uncompressed_cells_path.exists()
    assert a.cells_path.read_bytes() == b.cells_path.read_bytes()
    lines = gzip.decompress(a.cells_path.read_bytes()).decode().splitlines()
    assert [json.loads(x)["cell_id"] for x in lines] == ["c1", "c2"] and a.load_cells()["c2"]["pattern"] == "Pc2"


def test_an_uncompressed_cells_file_is_read_and_replaced_at_the_next_consolidation(tmp_path):
    st = ResultStore(tmp_path / "e")
    st.append("c1", {"pattern": "P1"}, [row("c1", "plan_cost", 1.0)])
    st.consolidate()
    st.uncompressed_cells_path.write_text("".join(x + "\n" for x in st.cell_lines()))
    st.cells_path.unlink()
    assert set(st.load_cells()) == {"c1"} and st.done_ids() == {"c1"}
    st.append("c2", {"pattern": "P2"}, [row("c2", "plan_cost", 1.0)])
    st.consolidate()
    assert not st.uncompressed_cells_path.exists() and set(st.load_cells()) == {"c1", "c2"}


def test_tables_written_before_the_sweep_columns_load_with_nulls(tmp_path):
    import pyarrow as pa

    from experiments.running.store import SCHEMA

    old = pa.schema([f for f in SCHEMA if f.name not in ("x_name", "x_value")])
    st = ResultStore(tmp_path / "e")
    st.dir.mkdir()
    r = {k: v for k, v in row("c1", "plan_cost", 2.0).items()}
    pq.write_table(pa.Table.from_pylist([r], schema=old), st.table_path)
    df = st.load()
    assert list(df.columns) == list(COLUMNS) and df["x_name"].isna().all() and df.loc[0, "value"] == 2.0
