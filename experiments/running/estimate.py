"""What a run will cost, before it runs: ``python -m experiments run +exp=X scale=S --estimate``.

The experiment's cells are built as the run would build them (statistics included, timed), a seeded
random sample of ``sample`` cells is run one at a time, each in a fresh process, and the CPU seconds of
each (user and system, the process and its children) are scaled to all the cells: the estimate of the
run's CPU time is ``cells x mean`` with the Student-t 95% interval of the mean over the sample.  A
cell's stream is built before its clock starts (a run's worker builds each stream once and shares it
among its cells, :mod:`experiments.data.streams`).  A sampled cell still running ``timeout_s`` seconds
after its stream was built is stopped; it counts the CPU seconds it had used by then, so the estimate
is then a lower bound, and says so.  Whether the run fits: its CPU time over this machine's cores,
against a day.  Nothing is stored.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import random
import resource
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from scipy import stats as st

DAY_S = 86_400.0


@dataclass
class Estimate:
    experiment: str
    scale: str
    cells: int
    build_s: float  # building the cells (statistics included)
    cpu_s: list[float] = field(default_factory=list)  # per sampled cell
    stopped: int = 0  # sampled cells stopped at the timeout (their time is a lower bound)
    cores: int = os.cpu_count() or 1

    @property
    def total_s(self) -> tuple[float, float, float]:
        """The run's CPU seconds: the estimate and its 95% interval (building the cells included)."""
        k = len(self.cpu_s)
        if k == 0:
            return self.build_s, self.build_s, self.build_s
        m = sum(self.cpu_s) / k
        if k < 2:
            return self.build_s + self.cells * m, math.nan, math.nan
        sd = math.sqrt(sum((x - m) ** 2 for x in self.cpu_s) / (k - 1))
        half = float(st.t.ppf(0.975, k - 1)) * sd / math.sqrt(k)
        return (self.build_s + self.cells * m, self.build_s + self.cells * max(0.0, m - half),
                self.build_s + self.cells * (m + half))

    @property
    def fits_in_a_day(self) -> bool | None:
        """Whether the run's CPU time over this machine's cores is at most a day; None when the estimate
        is a lower bound that fits (the run may still not)."""
        fits = self.total_s[0] / self.cores <= DAY_S
        return None if fits and self.stopped else fits

    def as_dict(self) -> dict:
        total, lo, hi = self.total_s
        return {"experiment": self.experiment, "scale": self.scale, "cells": self.cells, "sampled": len(self.cpu_s),
                "stopped_at_timeout": self.stopped, "build_s": self.build_s, "cell_cpu_s": self.cpu_s,
                "cpu_s": total, "cpu_s_low": lo, "cpu_s_high": hi, "lower_bound": self.stopped > 0, "cores": self.cores,
                "wall_s_on_this_machine": total / self.cores, "fits_in_a_day": self.fits_in_a_day}

    def text(self) -> str:
        total, lo, hi = self.total_s
        bound = "at least " if self.stopped else ""
        ci = f" [{_hours(lo)}, {_hours(hi)}]" if math.isfinite(lo) else ""
        lines = [
            f"{self.experiment} at scale={self.scale}: {self.cells:,} cells; building them took {self.build_s:.1f} s",
            f"sampled {len(self.cpu_s)} cells: CPU per cell {', '.join(f'{x:.1f}' for x in self.cpu_s)} s"
            + (f" ({self.stopped} stopped at the timeout: lower bounds)" if self.stopped else ""),
            f"estimated CPU time: {bound}{_hours(total)}{ci} (95% interval of the mean cell)",
            f"on this machine's {self.cores} cores: {bound}{_hours(total / self.cores)} of wall time -- "
            + {True: "fits in a day", False: "does NOT fit in a day",
               None: "a lower bound: whether it fits in a day is not known"}[self.fits_in_a_day],
        ]
        return "\n".join(lines)


def _hours(s: float) -> str:
    if not math.isfinite(s):
        return "n/a"
    return f"{s / 3600:.2f} h" if s >= 3600 else (f"{s / 60:.1f} min" if s >= 60 else f"{s:.1f} s")


def _cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _timed_cell(kind: str, spec: Mapping, conn) -> None:
    """Run one cell in this (fresh) process: say when its stream is built (``ready``, with the CPU
    seconds spent so far), then send back the cell's own CPU seconds."""
    from experiments.exps import kind_module

    run_cell = kind_module(kind).run_cell
    if isinstance(spec.get("stream"), Mapping):  # a worker builds a stream once for all its cells
        from experiments.data.streams import experiment_columns, experiment_stream

        experiment_stream(spec["stream"])
        experiment_columns(spec["stream"])
    t0 = _cpu()
    conn.send(("ready", t0))
    try:
        run_cell(spec)
        conn.send(("ok", _cpu() - t0))
    except Exception as e:  # noqa: BLE001 - a failing cell still tells what it cost
        conn.send((f"failed: {type(e).__name__}: {e}", _cpu() - t0))
    finally:
        conn.close()


def _process_cpu(pid: int) -> float | None:
    """The CPU seconds (user and system) a live process has used, from /proc (None where there is none)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def time_cell(kind: str, spec: Mapping, timeout_s: float) -> tuple[float, bool]:
    """The CPU seconds of one cell run in a fresh process, and whether it was stopped at the timeout.
    The clock starts once the cell's stream is built; a stopped cell counts the CPU it had used by then
    (at least its share of the timeout on a loaded machine), a lower bound of what it needs."""
    ctx = multiprocessing.get_context("spawn")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_timed_cell, args=(kind, dict(spec), send), daemon=True)
    proc.start()
    send.close()
    try:
        status, value = recv.recv()  # "ready" once the stream is built
    except EOFError:  # the process died before (e.g. out of memory building the stream): nothing measured
        proc.join()
        return 0.0, True
    if status != "ready":
        proc.join()
        return value, False
    ready_cpu = value
    if recv.poll(timeout_s):
        _, cpu = recv.recv()
        proc.join()
        return cpu, False
    used = _process_cpu(proc.pid)
    proc.kill()
    proc.join()
    return (timeout_s if used is None else max(0.0, used - ready_cpu)), True


def estimate_run(cfg, out_dir, *, sample: int, seed: int, timeout_s: float, spark=None) -> Estimate:
    """The estimate of the run of ``cfg`` (see the module docstring)."""
    from experiments.exps import kind_module

    kind = cfg.exp.kind
    t0 = time.perf_counter()
    specs = kind_module(kind).specs(cfg, out_dir, spark)
    est = Estimate(cfg.exp.name, str(cfg.scale.get("name", "?")), len(specs), time.perf_counter() - t0)
    for spec in random.Random(seed).sample(specs, min(sample, len(specs))):
        cpu, stopped = time_cell(kind, spec, timeout_s)
        est.cpu_s.append(cpu)
        est.stopped += stopped
    return est
