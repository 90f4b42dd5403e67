"""The results store: tidy rows, written as each cell finishes, never half-written.

Layout of ``<results_dir>/<experiment>/``:
  * ``results.parquet``: the tidy table, one row per (cell, metric), columns :data:`COLUMNS` in
    that order and of those types (docs/DESIGN.md, "Results");
  * ``cells.jsonl.gz``: the specification of every finished cell (what ``verify`` re-runs), one JSON
    object per line, keyed by ``cell_id``, sorted by it, gzip-compressed with a zero timestamp (so the
    same cells give the same bytes; ``zcat`` shows the lines). A standard-scale experiment repeats each
    stream's specification in thousands of cells: ``jqpg_fig7``'s 5,696 lines are 11.5 MB as text and
    1.2 MB compressed. A ``cells.jsonl`` written before the compression is read the same way and
    replaced by the compressed file at the next consolidation;
  * ``failures/<cell_id>.log``: the full traceback of every cell that raised in the latest run that
    tried it; such a cell is not done (a rerun retries it) and its log goes once it succeeds;
  * ``parts/``: while a run is going, one ``<cell_id>.parquet`` and ``<cell_id>.json`` per finished
    cell, each written to a temporary file and renamed into place (a killed run leaves whole files
    only); :meth:`ResultStore.consolidate` merges them into the two files above (again atomically)
    and removes them.
A cell counts as done when its rows are in ``results.parquet`` or in a part; a rerun with the same
configuration skips done cells (cell ids are hashes of the full cell specification).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import zlib
from pathlib import Path
from typing import Iterable, Mapping

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from cep.errors import StoreError
from cep.io_utils import atomic_write_bytes, atomic_write_text
from cep.metrics import METRICS

COLUMNS: dict[str, pa.DataType] = {
    "experiment": pa.string(),
    "dataset": pa.string(),
    "workload": pa.string(),
    "size": pa.int32(),
    "pattern_id": pa.string(),
    "seed": pa.int64(),
    "algorithm": pa.string(),
    "kind": pa.string(),
    "evaluator": pa.string(),
    "alpha": pa.float64(),
    "strategy": pa.string(),
    "metric": pa.string(),
    "value": pa.float64(),
    "status": pa.string(),
    "plan": pa.string(),
    "params": pa.string(),
    "cell_id": pa.string(),
    "code_version": pa.string(),
    # the swept parameter of the figure a row belongs to, and its value (e.g. "workload_size", 50)
    "x_name": pa.string(),
    "x_value": pa.float64(),
}
SCHEMA = pa.schema([pa.field(k, t) for k, t in COLUMNS.items()])
#: what a one-line StoreError on a damaged file of a results folder advises
DAMAGED = "restore it (git checkout -- <file>, in results/) or remove the folder and run again"



def rows_table(rows: Iterable[Mapping]) -> pa.Table:
    """Rows -> a table of exactly :data:`SCHEMA` (missing fields become nulls; extra fields, and metrics
    outside the registry :data:`cep.metrics.METRICS`, are an error)."""
    rows = list(rows)
    for r in rows:
        extra = set(r) - set(COLUMNS)
        if extra:
            raise ValueError(f"result row has fields outside the schema: {sorted(extra)}")
        if r.get("metric") not in METRICS:
            raise ValueError(f"result row has a metric outside the registry (cep/metrics.py): {r.get('metric')!r}")
    return pa.Table.from_pylist([{k: r.get(k) for k in COLUMNS} for r in rows], schema=SCHEMA)


def cell_id(spec: Mapping) -> str:
    """A cell's id: a hash of its specification; keys starting with ``_`` (metadata such as the code
    version) do not enter it."""
    core = {k: v for k, v in spec.items() if not k.startswith("_")}
    return hashlib.sha1(json.dumps(core, sort_keys=True, default=str).encode()).hexdigest()[:16]


def read_rows(path: Path) -> pd.DataFrame:
    """A rows file as a frame of exactly :data:`SCHEMA`; columns added to the schema after the file
    was written (``x_name``, ``x_value``) come back as nulls."""
    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError) as e:
        reason = " ".join(str(e).split()).replace(f"Could not open Parquet input source '{path}': ", "")
        raise StoreError(f"{path}: not a readable Parquet table ({reason}); {DAMAGED}") from None
    for name in SCHEMA.names:
        if name not in table.column_names:
            table = table.append_column(name, pa.nulls(len(table), SCHEMA.field(name).type))
    return table.select(SCHEMA.names).cast(SCHEMA).to_pandas()


class ResultStore:
    def __init__(self, directory: Path) -> None:
        self.dir = Path(directory)
        self.parts = self.dir / "parts"
        self.table_path = self.dir / "results.parquet"
        self.cells_path = self.dir / "cells.jsonl.gz"
        self.uncompressed_cells_path = self.dir / "cells.jsonl"
        self.failures_dir = self.dir / "failures"

    # ---- writing ---------------------------------------------------------------------------------
    def append(self, cell_id: str, spec: Mapping, rows: Iterable[Mapping]) -> None:
        """Record one finished cell: its rows and its specification, each file atomically."""
        self.parts.mkdir(parents=True, exist_ok=True)
        buf = io.BytesIO()
        pq.write_table(rows_table(rows), buf)
        atomic_write_bytes(self.parts / f"{cell_id}.parquet", buf.getvalue())
        atomic_write_text(self.parts / f"{cell_id}.json", json.dumps({"cell_id": cell_id, **spec}, sort_keys=True) + "\n")
        log = self.failures_dir / f"{cell_id}.log"
        if log.exists():
            log.unlink()
            if not any(self.failures_dir.iterdir()):
                self.failures_dir.rmdir()

    def record_failure(self, cell_id: str, spec: Mapping, trace: str) -> Path:
        """Keep the traceback of a cell that raised (the cell stays undone: a rerun retries it)."""
        log = self.failures_dir / f"{cell_id}.log"
        atomic_write_text(log, f"cell {cell_id}\n{json.dumps(spec, sort_keys=True, default=str)}\n\n{trace}")
        return log

    def failures(self) -> list[Path]:
        return sorted(self.failures_dir.glob("*.log")) if self.failures_dir.exists() else []

    def consolidate(self) -> pd.DataFrame:
        """Merge the parts into results.parquet and cells.jsonl.gz (atomically), then drop the parts."""
        table = self.load()
        cells = self.load_cells()
        part_files = sorted(self.parts.glob("*.parquet")) if self.parts.exists() else []
        spec_files = sorted(self.parts.glob("*.json")) if self.parts.exists() else []
        if table.empty and not part_files:
            return table
        frames = [table] if not table.empty else []
        frames += [read_rows(p) for p in part_files]
        merged = pd.concat(frames, ignore_index=True) if frames else table
        # a cell has one value per metric, or per metric and x value when it sweeps x (NEXT Figure 11),
        # per algorithm when it times several (MOTTO's motto_fig13/14)
        merged = merged.drop_duplicates(subset=["cell_id", "algorithm", "metric", "x_value"], keep="last")
        merged = merged.sort_values(["dataset", "workload", "size", "pattern_id", "algorithm", "evaluator", "alpha", "strategy", "x_value", "metric"], kind="stable")
        for p in spec_files:
            spec = json.loads(p.read_text())
            cells[spec["cell_id"]] = spec
        buf = io.BytesIO()
        pq.write_table(pa.Table.from_pandas(merged, schema=SCHEMA, preserve_index=False), buf, compression="zstd")
        atomic_write_bytes(self.table_path, buf.getvalue())
        self.write_cell_lines([json.dumps(cells[k], sort_keys=True) for k in sorted(cells)])
        for p in part_files + spec_files:
            p.unlink()
        if self.parts.exists() and not any(self.parts.iterdir()):
            self.parts.rmdir()
        return merged.reset_index(drop=True)

    # ---- reading ---------------------------------------------------------------------------------
    def load(self) -> pd.DataFrame:
        """The consolidated table (without unconsolidated parts); empty with the schema's columns."""
        if not self.table_path.exists():
            return SCHEMA.empty_table().to_pandas()
        return read_rows(self.table_path)

    def has_cells(self) -> bool:
        return self.cells_path.exists() or self.uncompressed_cells_path.exists()

    def cell_lines(self) -> list[str]:
        """The stored cell specifications, one JSON text per line as written (a repeated cell stays
        repeated: the failover check counts them)."""
        path = self.cells_path if self.cells_path.exists() else self.uncompressed_cells_path
        if not path.exists():
            return []
        try:
            data = path.read_bytes()
            text = (gzip.decompress(data) if path == self.cells_path else data).decode()
        except (OSError, EOFError, zlib.error, UnicodeDecodeError) as e:
            raise StoreError(f"{path}: not readable cell specifications ({type(e).__name__}: {' '.join(str(e).split())}); {DAMAGED}") from None
        return [line for line in text.splitlines() if line.strip()]

    def write_cell_lines(self, lines: Iterable[str]) -> None:
        """Replace the stored cell specifications (atomically; an uncompressed file goes after)."""
        text = "".join(line + "\n" for line in lines)
        atomic_write_bytes(self.cells_path, gzip.compress(text.encode(), compresslevel=9, mtime=0))
        if self.uncompressed_cells_path.exists():
            self.uncompressed_cells_path.unlink()

    def load_cells(self) -> dict[str, dict]:
        out: dict[str, dict] = {}
        for i, line in enumerate(self.cell_lines(), 1):
            try:
                spec = json.loads(line)
            except json.JSONDecodeError as e:
                raise StoreError(f"{self._cells_file()}, line {i}: not a JSON cell specification ({e.msg}); {DAMAGED}") from None
            if not isinstance(spec, dict) or not isinstance(spec.get("cell_id"), str):
                raise StoreError(f"{self._cells_file()}, line {i}: a cell specification without its cell_id; {DAMAGED}")
            out[spec["cell_id"]] = spec
        return out

    def _cells_file(self) -> Path:
        return self.cells_path if self.cells_path.exists() else self.uncompressed_cells_path

    def done_ids(self) -> set[str]:
        done = set(self.load()["cell_id"].unique())
        if self.parts.exists():
            done |= {p.stem for p in self.parts.glob("*.parquet") if (self.parts / f"{p.stem}.json").exists()}
        return done
