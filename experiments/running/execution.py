"""Run an experiment's cells into its results folder: skip the finished ones, store each as it
finishes, keep the traceback of each that fails, and say at the end what happened.  Cells stored
by another configuration of the same experiment are kept, and the run warns that they are there.

Every experiment kind (``experiments/exps/*.py``) hands its cells, with its cell function, to
:func:`run_all_cells`: the run's metadata (with the settings the kind resolved,
:mod:`experiments.running.settings`), the configured runner, and each :class:`Phase` through
:func:`execute_cells`.  A cell is done when its rows are stored; a cell that raised is not done (its
traceback is in ``failures/<cell_id>.log``) and the next run retries it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from omegaconf import OmegaConf

from cep.errors import ConfigError

from experiments.data.spark import stop_spark
from experiments.running.metadata import RunMetadata
from experiments.running.runners import RunSummary, SerialRunner, make_runner, run_cells
from experiments.running.settings import Keys, record
from experiments.running.store import ResultStore, cell_id


@dataclass(frozen=True)
class Phase:
    """Cells that run together; a later phase may use what an earlier one left (NEXT Figure 11's
    measurements).  ``in_driver``: one after the other in this process, after the runner's Spark session
    is stopped -- cells that start Spark sessions of their own (a JVM holds one SparkContext, so a Spark
    task cannot); ``facts`` go into the run's metadata when the phase starts."""

    specs: Sequence[Mapping]
    in_driver: bool = False
    facts: Mapping = field(default_factory=dict)


@dataclass
class Cells:
    """What a kind runs: its phases, and ``facts`` for the run's metadata (e.g. each dataset's regime)."""

    phases: list[Phase]
    facts: dict = field(default_factory=dict)

    @classmethod
    def of(cls, specs: Sequence[Mapping]) -> "Cells":
        return cls([Phase(list(specs))])

    @property
    def specs(self) -> list[Mapping]:
        return [s for p in self.phases for s in p.specs]


def execute_cells(
    cfg,
    out_dir: Path,
    specs: Sequence[Mapping],
    cell_fn: Callable[[Mapping], list],
    *,
    runner,
    meta: RunMetadata,
    configuration: Sequence[Mapping] | None = None,
) -> RunSummary:
    """Run the specs not yet done; returns how many ran and how many failed.  ``configuration``: all
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
            "folder to keep them apart, or pass --replace to replace them",
            file=sys.stderr,
        )
    meta.write()
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
    print(f"{name}: {len(df)} result rows in {store.table_path}", file=sys.stderr)
    lost = unaccounted(store, todo)
    if lost:
        print(f"{name}: {len(lost)} of {len(todo)} cells were neither stored nor recorded as failed (e.g. {lost[0]}): "
              "the run counts them as failed and the next run retries them", file=sys.stderr)
        summary = RunSummary(summary.run, summary.failed + len(lost))
    if summary.failed:
        print(
            f"{name}: {summary.failed} of {len(todo)} cells failed; their tracebacks are in {store.failures_dir}/ "
            "and the next run retries them",
            file=sys.stderr,
        )
    return summary


def unaccounted(store: ResultStore, specs: Sequence[Mapping]) -> list[str]:
    """The ids of the cells of ``specs`` that are neither stored nor recorded as failed: what a run that ends
    checks, so that a runner or a cell that lost cells without a word cannot pass for a complete run."""
    done = store.done_ids()
    failed = {p.stem for p in store.failures()}
    return [cid for cid in (cell_id(s) for s in specs) if cid not in done and cid not in failed]


def run_all_cells(cfg, out_dir: Path, cell_fn: Callable[[Mapping], list], cells, *, keys: Keys | None) -> int:
    """A whole run of an experiment kind: its metadata (with the settings record of ``keys``,
    :func:`experiments.running.settings.record`), the configured runner, every phase of ``cells``;
    returns the number of cells that failed.  ``cells``: the specs, a :class:`Cells`, or a function of the
    runner's Spark session (None on another runner) that returns one (a kind whose cells need Spark to be
    built: JQPG's statistics)."""
    meta = RunMetadata(out_dir / "metadata.json", OmegaConf.to_container(cfg, resolve=True), settings=record(cfg, keys))
    runner = make_runner(cfg.runner)
    summaries: list[RunSummary] = []
    everything: list[Mapping] = []
    try:
        meta.update(**runner.describe())
        plan = cells(getattr(runner, "spark", None)) if callable(cells) else cells
        plan = plan if isinstance(plan, Cells) else Cells.of(plan)
        meta.update(**plan.facts)
        everything = plan.specs
        if not everything:
            raise ConfigError(f"{cfg.exp.name}: this configuration gives no cells (see its settings: python -m experiments "
                              f"run +exp={cfg.exp.name} --estimate); nothing to run or store")
        for phase in plan.phases:
            on = runner
            if phase.in_driver:
                runner.close()
                stop_spark()
                on = SerialRunner()
            meta.update(**phase.facts)
            summaries.append(execute_cells(cfg, out_dir, phase.specs, cell_fn, runner=on, meta=meta, configuration=everything))
    finally:
        runner.close()
        outcome = runner.outcome() if hasattr(runner, "outcome") else {}
        if everything:
            meta.finish(cells_total=len(everything), cells_run=sum(s.run for s in summaries),
                        cells_failed=sum(s.failed for s in summaries), rows=len(ResultStore(out_dir).load()), **outcome)
    return sum(s.failed for s in summaries)
