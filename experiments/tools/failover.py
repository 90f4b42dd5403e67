"""A figure run on a real Spark standalone cluster that loses a worker mid-run, checked against a local
run of the same cells (``python -m experiments cluster failover``; README, "Running on a cluster").

:func:`run_failover` starts a master and ``workers`` workers on 127.0.0.1
(:class:`~experiments.tools.cluster.LocalCluster`), runs ``python -m experiments run <overrides>
runner.master=spark://...`` into ``<out>/cluster/``, SIGKILLs worker 0 with its executors (its whole process
group, as a lost machine) once a fraction of the cells is stored and the run goes on, lets the run finish
and stops the cluster.  Then it checks

* the cells (:func:`check_cells`): every cell of the local run (of the datasets the cluster run ran) is
  stored exactly once -- one line in ``cells.jsonl.gz``, one row per (cell, algorithm, metric, x value) in
  ``results.parquet`` -- no other cell is stored, none failed, and the run counted each cell it ran once;
* the values (:func:`compare_runs`): each cell's plan, status and every deterministic metric
  (:data:`cep.metrics.DETERMINISTIC`) identical to the local run's, by ``verify``'s comparison
  (:func:`experiments.tools.verify.compare_cell`).

The local run is ``<out>/local/`` (run first, on the embedded ``local[*]`` Spark) or a complete run given
with ``local`` (read only).  The runs' output goes to ``<out>/local_<exp>.log`` and ``<out>/cluster_<exp>.log``.  Spark's own account of the lost worker is shown: the task attempts that failed
(the runner's count from Spark's status tracker, ``spark_failed_task_attempts`` in the run's metadata) and
the driver's ``Lost executor`` line (a task lost with its worker is logged at INFO, below the log level).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from cep.errors import ConfigError
from experiments.data.datasets import REPO_ROOT
from experiments.running.compose import compose_config
from experiments.running.metadata import load_meta
from experiments.running.store import ResultStore, read_rows
from experiments.tools.cluster import LocalCluster, pid_alive
from experiments.tools.verify import NEW, TIE, Difference, compare_cell

#: what the failover command sets itself
OWN_KEYS = ("runner", "runner.master", "results_dir", "reference", "progress")
#: the longest wait, once the threshold is reached, for a cell to be running on the worker to kill
BUSY_WAIT_S = 30.0
#: Spark properties of the cluster run: one-core executors of 1 GB, at most one per worker
CLUSTER_CONF = ("+runner.conf.spark.cores.max={cores}", "+runner.conf.spark.executor.memory=1g")


@dataclass
class CellCheck:
    """Which cells a run stored against the ones expected (:func:`check_cells`)."""

    expected: int
    stored: int
    missing: list[str]
    extra: list[str]
    duplicated: list[str]
    failed: list[str]
    reported_run: int | None

    @property
    def ok(self) -> bool:
        return not (self.missing or self.extra or self.duplicated or self.failed) and self.reported_run == self.expected


def cell_dataset(spec: dict) -> str | None:
    d = spec.get("dataset")
    return d.get("name") if isinstance(d, dict) else d


def expected_cells(local_dir: Path, datasets: set[str] | None = None) -> dict[str, dict]:
    """The cells of a complete local run (of ``datasets`` only, when given): id -> specification.  A run
    that did not finish or had failed cells is no reference: a one-line ConfigError."""
    meta_path = local_dir / "metadata.json"
    try:
        meta = json.loads(meta_path.read_text())
    except FileNotFoundError:
        raise ConfigError(f"{meta_path}: no local run there") from None
    if not meta.get("end_time") or meta.get("cells_failed") or meta.get("cells_run") is None:
        raise ConfigError(f"{meta_path}: the local run did not finish cleanly (end_time {meta.get('end_time')}, "
                          f"cells_failed {meta.get('cells_failed')}); run it again or use another")
    cells = ResultStore(local_dir).load_cells()
    return {cid: s for cid, s in cells.items() if datasets is None or cell_dataset(s) in datasets}


def check_cells(expected: set[str], exp_dir: Path) -> CellCheck:
    """The stored cells of ``exp_dir`` against ``expected``, from the raw files (the store's own loaders
    key by cell id, which would hide a duplicate): missing, extra, duplicated (a second line in
    ``cells.jsonl.gz`` or a second row for a cell's algorithm, metric and x value), failed (a log in
    ``failures/``), and the number of cells the run says it ran (``metadata.json``)."""
    store = ResultStore(exp_dir)
    lines = [json.loads(x)["cell_id"] for x in store.cell_lines()]
    rows = read_rows(store.table_path) if store.table_path.exists() else pd.DataFrame(columns=["cell_id", "algorithm", "metric", "x_value"])
    with_rows = set(rows["cell_id"])
    stored = set(lines) & with_rows
    twice = {c for c, n in Counter(lines).items() if n > 1}
    twice |= set(rows.loc[rows.duplicated(["cell_id", "algorithm", "metric", "x_value"], keep=False), "cell_id"])
    meta = json.loads((exp_dir / "metadata.json").read_text()) if (exp_dir / "metadata.json").exists() else {}
    return CellCheck(
        expected=len(expected), stored=len(stored),
        missing=sorted(expected - stored), extra=sorted((set(lines) | with_rows) - expected),
        duplicated=sorted(twice), failed=sorted(p.stem for p in store.failures()),
        reported_run=meta.get("cells_run"),
    )


def compare_runs(local_dir: Path, cluster_dir: Path, ids: set[str]) -> list[Difference]:
    """Every cell of ``ids`` that both runs stored, compared by ``verify``'s rule (:func:`compare_cell`)."""
    a, b = ResultStore(local_dir), ResultStore(cluster_dir)
    ta, tb, specs = a.load(), b.load(), b.load_cells()
    ga, gb = dict(tuple(ta.groupby("cell_id"))), dict(tuple(tb.groupby("cell_id")))
    out: list[Difference] = []
    for cid in sorted(ids & set(ga) & set(gb)):
        out += compare_cell(cluster_dir.name, cid, specs.get(cid, {"pattern_id": cid}), ga[cid], gb[cid])
    return out


def deterministic_tally(diffs: list[Difference]) -> dict:
    """Counts of the deterministic comparisons (plans, statuses, metrics) and how many are identical; a
    deterministic metric only one run has counts as a difference (both runs are the same code), and so does
    a plan that differs even at equal cost (both runs are on the same machine: no tie to excuse)."""
    det = [d for d in diffs if d.rule in ("identical", NEW, TIE)]
    metrics = [d for d in det if d.metric not in ("plan", "status")]
    bad = [d for d in det if not d.ok or d.rule in (NEW, TIE)]
    return {"cells": len({d.cell_id for d in diffs}), "plans_and_statuses": len(det) - len(metrics),
            "metric_values": len(metrics), "metric_names": sorted({d.metric.split("@")[0].split(":")[-1] for d in metrics}),
            "identical": len(det) - len(bad), "differ": bad}


@dataclass
class Kill:
    worker: int
    pid: int
    after_s: float
    stored: int
    workers_alive_before: int | None = None
    workers_alive_after: int | None = None
    #: CPU seconds the worker's Python processes (its running cells) used in the half second before the kill
    busy_cpu_s: float = 0.0
    #: the worker's Python processes at the kill, and those of them still alive when the run ended
    python_pids: list[int] = field(default_factory=list)
    python_alive_at_end: list[int] = field(default_factory=list)


@dataclass
class FailoverRun:
    exp: str
    local_dir: Path
    cluster_dir: Path
    master_url: str
    worker_pids: list[int]
    local_wall_s: float | None
    local_ran_here: bool
    cluster_wall_s: float
    returncode: int
    log_path: Path
    kill: Kill | None
    cells: CellCheck
    tally: dict
    spark_log: list[str] = field(default_factory=list)
    cluster_meta: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return (self.returncode == 0 and self.kill is not None and 0 < self.kill.stored < self.cells.expected
                and self.cells.ok and not self.tally["differ"] and self.tally["metric_values"] > 0)


def _workers_alive(cluster) -> int | None:
    try:
        return int(cluster.state().get("aliveworkers", 0))
    except OSError:
        return None


def _python_descendants(root: int) -> dict[int, int]:
    """The Python processes descending from process ``root`` (a worker's executors' PySpark daemon and its
    workers, where its cells run; the daemon makes a process group of its own), with the CPU clock ticks
    each has used, from ``/proc``."""
    procs = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                comm, rest = (d / "stat").read_text().rsplit(")", 1)
                f = rest.split()
                procs[int(d.name)] = (int(f[1]), "python" in comm.lower(), int(f[11]) + int(f[12]))  # ppid, utime + stime
            except (OSError, ValueError, IndexError):
                continue
    below, grew = {root}, True
    while grew:
        new = {pid for pid, (ppid, _, _) in procs.items() if ppid in below and pid not in below}
        below |= new
        grew = bool(new)
    return {pid: ticks for pid, (_, py, ticks) in procs.items() if pid in below and py}


def _python_cpu_s(root: int, interval: float) -> tuple[float, list[int]]:
    """CPU seconds :func:`_python_descendants` of ``root`` used over ``interval`` seconds, and their ids."""
    a = _python_descendants(root)
    time.sleep(interval)
    b = _python_descendants(root)
    return sum(t - a.get(pid, t) for pid, t in b.items()) / os.sysconf("SC_CLK_TCK"), sorted(b)


def _parts(exp_dir: Path) -> int:
    parts = exp_dir / "parts"
    return sum(1 for p in parts.glob("*.parquet") if p.with_suffix(".json").exists()) if parts.exists() else 0


def _run_cmd(overrides: list[str], *extra: str) -> list[str]:
    return [sys.executable, "-m", "experiments", "run", *overrides, "progress=false", *extra]


def run_failover(overrides: list[str], out: Path, *, local: Path | None = None, workers: int = 2, cores: int = 1,
                 kill_at: float = 1 / 3, say=print) -> FailoverRun:
    """The whole demonstration (module docstring); ``say`` gets a line as each step starts."""
    own = [o for o in overrides if o.split("=", 1)[0].lstrip("+~") in OWN_KEYS]
    if own:
        raise ConfigError(f"{own[0]!r}: cluster failover sets the runner, its master and the results folders itself")
    if not 0 < kill_at < 1:
        raise ConfigError(f"--kill-at must be a fraction between 0 and 1, got {kill_at}")
    if workers < 2:
        raise ConfigError(f"--workers must be at least 2 (one is killed), got {workers}")
    cfg = compose_config(overrides)  # every mistake in an override before any work
    exp = str(cfg.exp.name)
    cluster_dir = out / "cluster" / exp
    if ResultStore(cluster_dir).done_ids():
        raise ConfigError(f"{cluster_dir}: holds cells of an earlier run; give an empty --out")
    local_wall = None
    if local is None:
        local_dir = out / "local" / exp
        cmd = _run_cmd(overrides, f"results_dir={out / 'local'}")
        say(f"local run: {' '.join(cmd[3:])}")
        out.mkdir(parents=True, exist_ok=True)
        local_log = out / f"local_{exp}.log"
        t0 = time.perf_counter()
        with open(local_log, "w") as log:
            rc = subprocess.run(cmd, check=False, cwd=REPO_ROOT, stdout=log, stderr=subprocess.STDOUT).returncode
        local_wall = time.perf_counter() - t0
        if rc:
            raise ConfigError(f"the local run failed (exit status {rc}); see {local_log}")
    else:
        local_dir = local / exp
        local_wall = json.loads((local_dir / "metadata.json").read_text()).get("duration_s") if (local_dir / "metadata.json").exists() else None
    expected = expected_cells(local_dir, {str(d) for d in cfg.exp.datasets} if cfg.exp.get("datasets") else None)
    if not expected:
        raise ConfigError(f"{local_dir}: no cells of this configuration's datasets to compare with")
    threshold = max(1, math.ceil(kill_at * len(expected)))
    say(f"starting a master and {workers} workers of {cores} core(s) on 127.0.0.1")
    cluster = LocalCluster.start(cores=cores, memory="2g", workers=workers)
    conf = [c.format(cores=workers * cores) for c in CLUSTER_CONF]
    cmd = _run_cmd(overrides, "runner=spark", f"runner.master={cluster.master_url}", *conf, f"results_dir={out / 'cluster'}")
    say(f"master {cluster.master_url}, workers {cluster.worker_pids}; cluster run: {' '.join(cmd[3:])}")
    say(f"worker 0 (pid {cluster.worker_pids[0]}) is killed once {threshold} of {len(expected)} cells are stored")
    log_path = out / f"cluster_{exp}.log"
    out.mkdir(parents=True, exist_ok=True)
    kill: list[Kill] = []
    try:
        with open(log_path, "w") as log:
            t0 = time.perf_counter()
            proc = subprocess.Popen(cmd, cwd=REPO_ROOT, stdout=log, stderr=subprocess.STDOUT)

            def watch():
                while proc.poll() is None:
                    n = _parts(cluster_dir)
                    if n >= threshold:
                        # kill while a cell runs there (its Python worker uses CPU), so that the kill takes a
                        # running task with it; after BUSY_WAIT_S, whatever it does
                        waited = time.perf_counter()
                        cpu, pys = _python_cpu_s(cluster.worker_pids[0], 0.5)
                        while cpu <= 0 and time.perf_counter() - waited < BUSY_WAIT_S and proc.poll() is None:
                            cpu, pys = _python_cpu_s(cluster.worker_pids[0], 0.5)
                        n = _parts(cluster_dir)
                        before = _workers_alive(cluster)
                        cluster.kill_worker(0)
                        kill.append(Kill(0, cluster.worker_pids[0], time.perf_counter() - t0, n, before, busy_cpu_s=cpu, python_pids=pys))
                        say(f"killed worker 0 (pid {cluster.worker_pids[0]}, its process group) at {kill[0].after_s:.1f} s "
                            f"with {n} of {len(expected)} cells stored")
                        time.sleep(1.0)
                        kill[0].workers_alive_after = _workers_alive(cluster)
                        return
                    time.sleep(0.1)

            watcher = threading.Thread(target=watch, daemon=True)
            watcher.start()
            rc = proc.wait()
            wall = time.perf_counter() - t0
            watcher.join(10)
        if kill:
            kill[0].python_alive_at_end = [pid for pid in kill[0].python_pids if pid_alive(pid)]
        say(f"cluster run ended with exit status {rc} after {wall:.1f} s; stopping the cluster")
    finally:
        cluster.stop()
    lines = [x.strip() for x in log_path.read_text().splitlines() if "Lost task" in x or "Lost executor" in x]
    cells = check_cells(set(expected), cluster_dir)
    tally = deterministic_tally(compare_runs(local_dir, cluster_dir, set(expected)))
    return FailoverRun(exp, local_dir, cluster_dir, cluster.master_url, cluster.worker_pids, local_wall, local is None, wall, rc, log_path,
                       kill[0] if kill else None, cells, tally, lines, load_meta(cluster_dir))


def _ids(ids: list[str]) -> str:
    return f"{len(ids)}" + (f" ({', '.join(ids[:5])}{', ...' if len(ids) > 5 else ''})" if ids else "")


def format_summary(r: FailoverRun) -> str:
    """The closing summary: cells, lost and duplicated, the deterministic comparison, wall times, the kill."""
    c, t, k = r.cells, r.tally, r.kill
    out = [f"experiment {r.exp}: local run {r.local_dir}, cluster run {r.cluster_dir} (master {r.master_url})"]
    out.append(f"cells: expected {c.expected}, stored {c.stored}, the run counted {c.reported_run} run")
    out.append(f"cells lost (missing) {_ids(c.missing)}, duplicated {_ids(c.duplicated)}, not of the run {_ids(c.extra)}, failed {_ids(c.failed)}")
    out.append(f"deterministic comparison with the local run, over {t['cells']} cells: {t['metric_values']} metric values "
               f"({', '.join(t['metric_names'])}) and {t['plans_and_statuses']} plans and statuses; "
               f"{t['identical']} identical, {len(t['differ'])} differ")
    for d in t["differ"][:10]:
        out.append(f"  DIFFERS {d.cell_id} {d.algorithm} {d.metric}: local {d.committed} cluster {d.rerun}")
    if k is None:
        out.append("worker killed: none (the run ended before the threshold was reached)")
    else:
        out.append(f"worker killed: worker {k.worker} (pid {k.pid}, SIGKILL to its process group) {k.after_s:.1f} s into "
                   f"the cluster run, with {k.stored} of {c.expected} cells stored, "
                   + (f"while a cell ran there (its Python workers used {k.busy_cpu_s:.2f} s of CPU in the 0.5 s before)"
                      if k.busy_cpu_s > 0 else "while no cell ran there (its Python workers used no CPU in the 0.5 s before)")
                   + f"; alive workers before {k.workers_alive_before}, 1 s after {k.workers_alive_after}; its "
                   f"{len(k.python_pids)} Python process(es) at the kill, {len(k.python_alive_at_end)} still alive at the run's end")
    retried = r.cluster_meta.get("spark_failed_task_attempts")
    out.append(f"Spark: {retried} failed task attempt(s) in the cluster run (tasks lost with the worker, run again on "
               f"the other; its status tracker, metadata.json spark_failed_task_attempts); its driver log ({r.log_path}):")
    out += [f"  {x[:220]}" for x in r.spark_log[:6]]
    local = "unknown" if r.local_wall_s is None else f"{r.local_wall_s:.1f} s" + ("" if r.local_ran_here else " (its metadata's duration_s)")
    out.append(f"wall time: local run {local}, cluster run {r.cluster_wall_s:.1f} s (exit status {r.returncode})")
    out.append("RESULT: " + ("OK: no cell lost or duplicated, deterministic metrics identical to the local run" if r.ok else "FAILED"))
    return "\n".join(out)
