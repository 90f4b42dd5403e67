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

Before it builds anything, the estimate sizes the replayed streams from their specifications (the
expected events of :meth:`~experiments.data.replay.ReplaySpec.expected_events`, at
:data:`BYTES_PER_EVENT`): where the streams built in this process and in a sampled cell's would not fit
in the memory available, it builds nothing, counts the cells from the configuration and says what the
streams need (JQPG and MCEP at scale=paper: 13 to 62 million events a stream).
"""

from __future__ import annotations

import json
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

from experiments.data.replay import ReplaySpec
from experiments.data.streams import experiment_columns, experiment_stream
from experiments.exps import kind_module

DAY_S = 86_400.0
#: peak memory per event of building a replayed stream (the events and the replay's sort): 750 B measured
#: for a 1.27-million-event replay of the traffic pool on 2026-11-28
BYTES_PER_EVENT = 750


@dataclass(frozen=True)
class StreamSize:
    """What the largest stream of a run needs, against the memory this machine has available."""

    events: float  # expected events of the largest stream a sampled cell builds
    needed: float  # bytes: that stream, plus the streams the estimating process itself builds
    available: float  # bytes

    @property
    def fits(self) -> bool:
        return self.needed <= self.available


@dataclass
class Estimate:
    experiment: str
    scale: str
    cells: int
    build_s: float  # building the cells (statistics included)
    cpu_s: list[float] = field(default_factory=list)  # per sampled cell
    stopped: int = 0  # sampled cells stopped at the timeout (their time is a lower bound)
    cores: int = os.cpu_count() or 1
    streams: StreamSize | None = None  # None: streams not replayed (nothing to size)

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
        if not self.cpu_s:  # not sampled: nothing known
            return None
        fits = self.total_s[0] / self.cores <= DAY_S
        return None if fits and self.stopped else fits

    @property
    def sampled(self) -> bool:
        return self.streams is None or self.streams.fits

    def as_dict(self) -> dict:
        total, lo, hi = self.total_s
        return {"experiment": self.experiment, "scale": self.scale, "cells": self.cells, "sampled": len(self.cpu_s),
                "stopped_at_timeout": self.stopped, "build_s": self.build_s, "cell_cpu_s": self.cpu_s,
                "cpu_s": total, "cpu_s_low": lo, "cpu_s_high": hi, "lower_bound": self.stopped > 0, "cores": self.cores,
                "wall_s_on_this_machine": total / self.cores, "fits_in_a_day": self.fits_in_a_day,
                "stream_events": None if self.streams is None else round(self.streams.events),
                "stream_memory_needed_gib": None if self.streams is None else self.streams.needed / 2**30,
                "memory_available_gib": None if self.streams is None else self.streams.available / 2**30,
                "not_sampled": not self.sampled}

    def text(self) -> str:
        if not self.sampled:
            z = self.streams
            return "\n".join([
                f"{self.experiment} at scale={self.scale}: {self.cells:,} cells (counted from the configuration)",
                f"not sampled: its largest stream is {z.events:,.0f} events (expected); building it needs about "
                f"{z.needed / 2**30:.1f} GiB ({BYTES_PER_EVENT} B per event), this machine has {z.available / 2**30:.1f} GiB available",
                "estimated CPU time: not known -- sample it on a machine with that much memory; "
                "whether it fits in a day is not known",
            ])
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
    run_cell = kind_module(kind).run_cell
    if isinstance(spec.get("stream"), Mapping):  # a worker builds a stream once for all its cells
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


def available_memory() -> float:
    """The bytes of memory available to a new process (``MemAvailable`` of /proc/meminfo where there is one)."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return float(line.split()[1]) * 1024
    except OSError:
        pass
    return float(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))


def stream_events(stream) -> float | None:
    """The expected events of a stream specification that replays a pool (None for any other stream)."""
    replay = stream.get("replay") if isinstance(stream, Mapping) else None
    if not replay or not stream.get("pool"):
        return None
    keys = ("window_seconds", "events_per_window", "rate_ratio", "windows")
    return ReplaySpec(**{k: float(replay[k]) for k in keys if k in replay}).expected_events(len(stream["pool"]))


def _sized(built_here: list, per_cell: list) -> StreamSize | None:
    """The memory of the streams this process builds (``built_here``, all kept) and of the largest one
    a sampled cell's process builds (``per_cell``), from their expected events."""
    here = [e for e in map(stream_events, built_here) if e is not None]
    cell = [e for e in map(stream_events, per_cell) if e is not None]
    if not here and not cell:
        return None
    largest = max(cell or here)
    return StreamSize(largest, (sum(here) + largest) * BYTES_PER_EVENT, available_memory())


def estimate_run(cfg, out_dir, *, sample: int, seed: int, timeout_s: float, spark=None) -> Estimate:
    """The estimate of the run of ``cfg`` (see the module docstring).  A kind whose cell specifications
    build its streams here (``stream_specs``: JQPG's statistics) is sized before they are built; the
    others' streams are sized from the specifications."""
    kind = cfg.exp.kind
    mod = kind_module(kind)
    name, scale = cfg.exp.name, str(cfg.scale.get("name", "?"))
    builds_here = hasattr(mod, "stream_specs")
    if builds_here:
        streams = mod.stream_specs(cfg)
        size = _sized(streams, streams)
        if size is not None and not size.fits:
            return Estimate(name, scale, mod.count_cells(cfg), 0.0, streams=size)
    t0 = time.perf_counter()
    specs = mod.specs(cfg, out_dir, spark)
    est = Estimate(name, scale, len(specs), time.perf_counter() - t0)
    if builds_here:
        est.streams = size
    else:
        unique = {json.dumps(s["stream"], sort_keys=True): s["stream"] for s in specs if isinstance(s.get("stream"), Mapping)}
        est.streams = _sized([], list(unique.values()))
        if not est.sampled:
            return est
    for spec in random.Random(seed).sample(specs, min(sample, len(specs))):
        cpu, stopped = time_cell(kind, spec, timeout_s)
        est.cpu_s.append(cpu)
        est.stopped += stopped
    return est
