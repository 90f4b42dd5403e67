"""Runners: how experiment cells are executed.

A runner maps a picklable, importable function over cell specifications and yields
``(spec, result)`` pairs *as each cell finishes*, so the caller can store it at once.

* :class:`SparkRunner` (default): each cell is a one-task Spark job; a driver thread pool keeps as
  many jobs in flight as the cluster has task slots (``spark.sparkContext.defaultParallelism``), and
  Spark schedules one task per core, so at most one timed cell runs per core.  ``master`` is
  ``local[*]`` (embedded) or ``spark://host:port`` (a standalone cluster; the same cells go there).
* :class:`JoblibRunner`: worker processes on this machine (``n_jobs``, at most the core count).
* :class:`SerialRunner`: one cell after the other in this process (debugging).
``concurrency`` (cells timed at the same time) is recorded in the run's metadata.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from functools import partial

from tqdm import tqdm

from cep.errors import ConfigError
from experiments.data.spark import get_spark, spark_version
from experiments.running.exits import refusing_exit

CellFn = Callable[[Mapping], object]


class SerialRunner:
    name = "serial"

    def __init__(self) -> None:
        self.concurrency = 1

    def map(self, fn: CellFn, specs: Sequence[Mapping]) -> Iterator[tuple[Mapping, object]]:
        for s in specs:
            yield s, fn(s)

    def describe(self) -> dict:
        return {"runner": self.name, "concurrency": self.concurrency}

    def close(self) -> None:
        pass


class JoblibRunner:
    name = "joblib"

    def __init__(self, n_jobs: int = 2) -> None:
        cores = os.cpu_count() or 1
        self.concurrency = max(1, min(int(n_jobs), cores))

    def map(self, fn: CellFn, specs: Sequence[Mapping]) -> Iterator[tuple[Mapping, object]]:
        """Each spec in a worker process.  A worker that dies (a crash, the out-of-memory killer) breaks the
        pool: every cell not finished by then yields ``{"error": ...}`` saying so, so that the run records it
        as failed (the next run retries it) rather than ending with a traceback or without it."""
        from joblib import Parallel, delayed  # the joblib runner's own dependency, imported when it runs
        from joblib.externals.loky.process_executor import BrokenProcessPool

        specs = list(specs)
        results = Parallel(n_jobs=self.concurrency, return_as="generator_unordered")(
            delayed(_tagged)(fn, i, s) for i, s in enumerate(specs)
        )
        finished: set[int] = set()
        try:
            for i, r in results:
                finished.add(i)
                yield specs[i], r
        except BrokenProcessPool as e:  # TerminatedWorkerError included
            reason = " ".join(str(e).split())
            for i, s in enumerate(specs):
                if i not in finished:
                    yield s, {"error": "a joblib worker process died while this cell or another ran, and the pool stopped "
                                       f"every cell not finished by then: {reason}\n"}

    def describe(self) -> dict:
        return {"runner": self.name, "concurrency": self.concurrency}

    def close(self) -> None:
        pass


def _tagged(fn: CellFn, i: int, spec: Mapping):
    return i, fn(spec)


class SparkRunner:
    name = "spark"

    def __init__(self, master: str = "local[*]", conf: Mapping | None = None, spark=None) -> None:
        self.master = master
        self.spark = spark or get_spark(master, conf=dict(conf or {}))
        self.concurrency = max(1, int(self.spark.sparkContext.defaultParallelism))
        self.version = spark_version()
        #: task attempts that failed, as Spark's status tracker counts them: a task lost with its worker
        #: (which Spark runs again elsewhere) or whose Python worker died
        self.failed_task_attempts = 0
        self._lock = threading.Lock()
        self._groups = itertools.count()

    def map(self, fn: CellFn, specs: Sequence[Mapping]) -> Iterator[tuple[Mapping, object]]:
        """Each spec as one Spark task.  ``fn`` is a :func:`guarded` cell; a task whose Python
        worker dies (killed for memory, crashed) yields ``{"error": ...}`` like a cell that raised,
        so the run goes on and records it, and the cells not yet started are cancelled if the
        caller stops early."""
        sc = self.spark.sparkContext

        def one(spec):
            group = f"cell-{next(self._groups)}"
            sc.setJobGroup(group, "one experiment cell")  # per thread (PySpark pins Python threads to JVM threads)
            try:
                return sc.parallelize([spec], 1).map(fn).collect()[0]
            except Exception:  # noqa: BLE001 - a lost task is that cell's failure, kept whole
                return {"error": "the cell's Spark task failed (its Python worker died; out of memory?):\n" + traceback.format_exc()}
            finally:
                self._count_failed_attempts(group)

        pool = ThreadPoolExecutor(max_workers=self.concurrency)
        try:
            futures = {pool.submit(one, s): s for s in specs}
            for fut in as_completed(futures):
                yield futures[fut], fut.result()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def _count_failed_attempts(self, group: str) -> None:
        tracker = self.spark.sparkContext.statusTracker()
        n = 0
        for job in tracker.getJobIdsForGroup(group):
            info = tracker.getJobInfo(job)
            for stage in info.stageIds if info else ():
                st = tracker.getStageInfo(stage)
                n += st.numFailedTasks if st else 0
        with self._lock:
            self.failed_task_attempts += n

    def describe(self) -> dict:
        return {
            "runner": self.name,
            "concurrency": self.concurrency,
            "spark_master": self.master,
            "spark_version": self.version,
        }

    def outcome(self) -> dict:
        """What the run's metadata records at its end: the failed task attempts."""
        return {"spark_failed_task_attempts": self.failed_task_attempts}

    def close(self) -> None:
        pass


def make_runner(cfg: Mapping, spark=None):
    name = cfg.get("name")
    if name == "spark":
        return SparkRunner(cfg.get("master", "local[*]"), cfg.get("conf") or {}, spark=spark)
    if name == "joblib":
        return JoblibRunner(cfg.get("n_jobs", 2))
    if name == "serial":
        return SerialRunner()
    raise ConfigError(f"unknown runner {name!r}; known: spark, joblib, serial")


def guarded(fn: CellFn, spec: Mapping) -> dict:
    """Run one cell where it is scheduled: ``{"rows": ..., "seconds": wall time}``, or ``{"error":
    traceback}`` when it raises (so that a failing cell neither stops the run nor is stored as finished)."""
    started = time.perf_counter()
    try:
        with refusing_exit("a cell"):  # sys.exit or os._exit in a cell is its failure, not the end of the run
            rows = fn(spec)
    except Exception:  # noqa: BLE001 - kept whole in the failure log, never hidden
        return {"error": traceback.format_exc()}
    return {"rows": rows, "seconds": time.perf_counter() - started}


@dataclass
class RunSummary:
    run: int
    failed: int


def run_cells(
    runner,
    fn: CellFn,
    specs: Iterable[Mapping],
    on_result: Callable[[Mapping, object, float], None],
    on_failure: Callable[[Mapping, str], None],
    *,
    progress: bool = True,
    desc: str = "cells",
) -> RunSummary:
    """Run ``specs`` on ``runner``; as each finishes call ``on_result(spec, rows, seconds)``, or
    ``on_failure(spec, traceback)`` if it raised.  A tqdm bar shows cells done, failed, total and
    time left."""
    specs = list(specs)
    run = failed = 0
    with tqdm(total=len(specs), desc=desc, unit="cell", disable=not progress, dynamic_ncols=True) as bar:
        for spec, outcome in runner.map(partial(guarded, fn), specs):
            if "error" in outcome:
                failed += 1
                on_failure(spec, outcome["error"])
                bar.set_postfix(failed=failed)
            else:
                on_result(spec, outcome["rows"], outcome["seconds"])
            run += 1
            bar.update(1)
    return RunSummary(run, failed)
