"""Run an experiment's cells into its results folder: skip the finished ones, store each as it
finishes, keep the traceback of each that fails, and say at the end what happened.  Cells stored
by another configuration of the same experiment are kept, and the run warns that they are there.

Every experiment kind (``experiments/exps/*.py``) builds its cell specifications and hands them,
with its cell function, to :func:`execute_cells`.  A cell is done when its rows are stored; a cell
that raised is not done (its traceback is in ``failures/<cell_id>.log``) and the next run retries it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from experiments.running.metadata import RunMetadata
from experiments.running.runners import run_cells
from experiments.running.store import ResultStore, cell_id


def execute_cells(
    cfg,
    out_dir: Path,
    specs: Sequence[Mapping],
    cell_fn: Callable[[Mapping], list],
    *,
    runner,
    meta: RunMetadata,
    configuration: Sequence[Mapping] | None = None,
) -> int:
    """Run the specs not yet done; returns the number of cells that failed.  ``configuration``: all
    the cells of this configuration when ``specs`` is one phase of it (default: ``specs``), so that
    the cells of the other phases are not taken for another configuration's."""
    store = ResultStore(out_dir)
    done = store.done_ids()
    todo = [s for s in specs if cell_id(s) not in done]
    name = cfg.exp.name
    print(
        f"{name}: {len(specs)} cells ({len(specs) - len(todo)} already done in {out_dir}), running {len(todo)} "
        f"on {runner.describe()['runner']} with {runner.concurrency} at a time",
        file=sys.stderr,
    )
    stale = len(done - {cell_id(s) for s in (specs if configuration is None else configuration)})
    if stale:
        print(
            f"{name}: warning: {stale} cells stored in {out_dir} are not cells of this configuration (an earlier "
            "one); they stay in the store and its tables and report include them -- run into an empty results "
            "folder to keep them apart",
            file=sys.stderr,
        )
    meta.write()
    summary = None
    try:
        summary = run_cells(
            runner,
            cell_fn,
            todo,
            lambda spec, rows, seconds: store.append(cell_id(spec), {**spec, "_cell_s": round(seconds, 3)}, rows),
            lambda spec, trace: store.record_failure(cell_id(spec), spec, trace),
            progress=bool(cfg.progress),
            desc=name,
        )
    finally:
        df = store.consolidate()
        failed = summary.failed if summary else None
        outcome = runner.outcome() if hasattr(runner, "outcome") else {}
        meta.finish(cells_total=len(specs), cells_run=summary.run if summary else None, cells_failed=failed, rows=len(df), **outcome)
    print(f"{name}: {len(df)} result rows in {store.table_path}", file=sys.stderr)
    if summary.failed:
        print(
            f"{name}: {summary.failed} of {len(todo)} cells failed; their tracebacks are in {store.failures_dir}/ "
            "and the next run retries them",
            file=sys.stderr,
        )
    return summary.failed


def run_all_cells(cfg, out_dir: Path, specs: Sequence[Mapping], cell_fn: Callable[[Mapping], list]) -> int:
    """A whole run of an experiment kind whose specs are known up front: its metadata, the
    configured runner, :func:`execute_cells`; returns the number of cells that failed."""
    from omegaconf import OmegaConf

    from experiments.running.runners import make_runner

    meta = RunMetadata(out_dir / "metadata.json", OmegaConf.to_container(cfg, resolve=True))
    runner = make_runner(cfg.runner)
    try:
        meta.update(**runner.describe())
        return execute_cells(cfg, out_dir, specs, cell_fn, runner=runner, meta=meta)
    finally:
        runner.close()
