"""What a run will cost, before it runs: ``python -m experiments run +exp=X scale=S --estimate``.

A seeded random sample of ``sample`` of the experiment's cells is built as the run would build them
(statistics included, timed) and run one at a time, each in a fresh process, and the CPU seconds of
each (user and system, the process and its children) are scaled to all the cells: the estimate of the
run's CPU time is ``cells x mean`` with the Student-t 95% interval of the mean over the sample.

Nothing is built for the cells that are not sampled.  A kind that can pick its sample without
building every cell (``sample_specs``: the JQPG grid, whose cells carry statistics) builds only the
sampled patterns' events -- their calibration and selectivities read their own types' events, their
rates the whole replay's live time, which the replay's timestamps give -- and the other kinds' cell
specifications build nothing.  A sampled cell's process builds the events the cell reads before its
clock starts (a run's worker builds each stream once and shares it among its cells,
:mod:`experiments.data.streams`): the events of its pattern's types when its evaluation reads no other
(``cell_stream_types``: a time window and skip-till-any-match), the whole stream otherwise.  Those are
exactly the whole stream's events of those types, in the same order
(:meth:`experiments.data.replay.ReplayPlan.build`); ``tests/experiments/test_estimate_streams.py``
checks that a cell gives the same deterministic results on them as on the whole stream.

A sampled cell still running ``timeout_s`` seconds after its stream was built is stopped; it counts
the CPU seconds it had used by then, so the estimate is then a lower bound, and says so.  Whether the
run fits: its CPU time over this machine's cores, against a day.  Nothing is stored.

Before it builds anything, the estimate sizes the replayed streams from their specifications (the
expected events of :meth:`~experiments.data.replay.ReplaySpec.expected_events`): the timestamps of a
whole replay read for the JQPG rates (:data:`TIMESTAMP_BYTES_PER_EVENT`), and the events each sampled
cell builds (:data:`BYTES_PER_EVENT`).  Where they would not fit in the memory available, it builds
nothing, counts the cells from the configuration and says what the streams need.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import random
import resource
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from scipy import stats as st

from cep.columnar import load_columns, save_columns
from experiments.data.replay import ReplaySpec
from experiments.data.streams import experiment_stream, install, replay_plan, stream_key, stream_of_types
from experiments.exps import EXPERIMENT_KINDS, kind_module

DAY_S = 86_400.0
#: peak memory per event of building a replayed stream as columns and reading one attribute of it: 42.5 B
#: measured for the 62.4-million-event paper-scale traffic replay (2.47 GiB) on 2026-12-07
BYTES_PER_EVENT = 48
#: peak memory per event of the live time of a whole replay, from its timestamps alone (the sorted
#: timestamps and their gaps)
TIMESTAMP_BYTES_PER_EVENT = 32


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
    build_s: float  # building the cells (statistics included): all of them, or the sampled ones (build_all False)
    cpu_s: list[float] = field(default_factory=list)  # per sampled cell
    stopped: int = 0  # sampled cells stopped at the timeout (their time is a lower bound)
    cores: int = os.cpu_count() or 1
    streams: StreamSize | None = None  # None: streams not replayed (nothing to size)
    build_all: bool = True  # build_s built every cell (else only the sampled ones: the run's own building not counted)

    @property
    def total_s(self) -> tuple[float, float, float]:
        """The run's CPU seconds: the estimate and its 95% interval (building the cells included when
        every cell was built)."""
        base = self.build_s if self.build_all else 0.0
        k = len(self.cpu_s)
        if k == 0:
            return base, base, base
        m = sum(self.cpu_s) / k
        if k < 2:
            return base + self.cells * m, math.nan, math.nan
        sd = math.sqrt(sum((x - m) ** 2 for x in self.cpu_s) / (k - 1))
        half = float(st.t.ppf(0.975, k - 1)) * sd / math.sqrt(k)
        return (base + self.cells * m, base + self.cells * max(0.0, m - half), base + self.cells * (m + half))

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
                "stopped_at_timeout": self.stopped, "build_s": self.build_s, "built_every_cell": self.build_all,
                "cell_cpu_s": self.cpu_s,
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
                f"{z.needed / 2**30:.1f} GiB, this machine has {z.available / 2**30:.1f} GiB available",
                "estimated CPU time: not known -- sample it on a machine with that much memory; "
                "whether it fits in a day is not known",
            ])
        total, lo, hi = self.total_s
        bound = "at least " if self.stopped else ""
        ci = f" [{_hours(lo)}, {_hours(hi)}]" if math.isfinite(lo) else ""
        lines = [
            f"{self.experiment} at scale={self.scale}: {self.cells:,} cells; "
            + (f"building them took {self.build_s:.1f} s" if self.build_all else
               f"building the {len(self.cpu_s)} sampled took {self.build_s:.1f} s (the run's statistics over its "
               "whole streams are not in the estimate)"),
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


def _timed_cell(kind: str, spec: Mapping, events: str | None, conn) -> None:
    """Run one cell in this (fresh) process: map the events it reads (``events``: the folder the caller
    saved them to, :func:`cep.columnar.save_columns`) as its stream, say so (``ready``, with the CPU
    seconds spent so far), then send back the cell's own CPU seconds."""
    run_cell = kind_module(kind).run_cell
    if events is not None:  # a worker builds a stream once for all its cells
        install(spec["stream"], load_columns(events))
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


def _cell_context(kind: str):
    """Fresh processes for the sampled cells: forked from a server process started clean once, with
    the cell's kind and the engines imported (each cell then starts in a moment, its CPU counted from
    zero), or spawned where there is no fork server."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload([__name__, EXPERIMENT_KINDS[kind], "experiments.data.streams", "experiments.data.replay",
                                "evaluators", "algorithms"])
    return ctx


def time_cell(kind: str, spec: Mapping, timeout_s: float, events: str | None = None) -> tuple[float, bool]:
    """The CPU seconds of one cell run in a fresh process, and whether it was stopped at the timeout.
    The clock starts once the events the cell reads are there (``events``: a folder of saved columns,
    mapped as the cell's stream; None: a cell that makes its own).  A stopped cell counts the CPU it
    had used by then (at least its share of the timeout on a loaded machine), a lower bound of what it
    needs; a cell whose process dies (out of memory) counts nothing, also a lower bound."""
    ctx = _cell_context(kind)
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_timed_cell, args=(kind, dict(spec), None if events is None else str(events), send), daemon=True)
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
        try:
            _, cpu = recv.recv()
        except EOFError:  # the process died while the cell ran
            proc.join()
            return 0.0, True
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


def cell_events(stream, types: list[str] | None) -> float | None:
    """The events a sampled cell's process builds of a replayed stream specification: those of
    ``types`` (drawn by the replay's plan, nothing built) or, for None, the whole stream's expected
    events (None for a stream that is not a replay)."""
    if stream_events(stream) is None:
        return None
    if types is None:
        return stream_events(stream)
    counts = replay_plan(stream).counts
    return float(sum(counts.get(t, 0) for t in types))


def _sized(whole: list, cells: list[float | None]) -> StreamSize | None:
    """The memory of the largest thing the estimate holds at once: the timestamps of one of the
    ``whole`` streams (specifications whose live time this process reads) or the events one sampled
    cell's process builds (``cells``: their numbers of events)."""
    here = [e for e in map(stream_events, whole) if e is not None]
    cell = [e for e in cells if e is not None]
    if not here and not cell:
        return None
    need = max([e * TIMESTAMP_BYTES_PER_EVENT for e in here] + [e * BYTES_PER_EVENT for e in cell])
    return StreamSize(max(here + cell), need, available_memory())


def estimate_run(cfg, out_dir, *, sample: int, seed: int, timeout_s: float, budget_s: float | None = None) -> Estimate:
    """The estimate of the run of ``cfg`` (see the module docstring).  A kind that samples its own cells
    (``sample_specs``) builds only what the sampled cells read, once its whole streams' timestamps are
    sized (``stream_specs``); the others' cells are specified whole (nothing built) and sampled here.
    The sampled cells' streams are sized before any of them is built.  With ``budget_s`` the estimate
    answers within about that many seconds: the sampled cells share what building them leaves of it,
    each at most ``timeout_s`` (and at least :data:`MIN_CELL_S`).  Nothing runs on Spark: the statistics
    of a JQPG sample are the pandas reference's (:func:`experiments.exps.jqpg.sample_specs`)."""
    started = time.perf_counter()
    kind = cfg.exp.kind
    mod = kind_module(kind)
    name, scale = cfg.exp.name, str(cfg.scale.get("name", "?"))
    whole = mod.stream_specs(cfg) if hasattr(mod, "stream_specs") else []
    size = _sized(whole, [])
    if size is not None and not size.fits:
        return Estimate(name, scale, mod.count_cells(cfg), 0.0, streams=size)
    t0 = time.perf_counter()
    if hasattr(mod, "sample_specs"):
        cells, picked = mod.sample_specs(cfg, sample, seed)
    else:
        specs = mod.specs(cfg, out_dir)
        cells, picked = len(specs), random.Random(seed).sample(specs, min(sample, len(specs)))
    est = Estimate(name, scale, cells, time.perf_counter() - t0, build_all=not hasattr(mod, "sample_specs"))
    types = [mod.cell_stream_types(spec) if hasattr(mod, "cell_stream_types") else None for spec in picked]
    est.streams = _sized(whole, [cell_events(spec.get("stream"), t) for spec, t in zip(picked, types)])
    if not est.sampled:
        return est
    with tempfile.TemporaryDirectory(prefix="cep-estimate-") as tmp:
        saved: dict[tuple, Path] = {}
        for i, (spec, t) in enumerate(zip(picked, types)):
            events = _cell_events_folder(spec, t, saved, Path(tmp))
            timeout = timeout_s
            if budget_s:
                left = budget_s - (time.perf_counter() - started)
                timeout = min(timeout_s, max(MIN_CELL_S, left / (len(picked) - i)))
            cpu, stopped = time_cell(kind, spec, timeout, events)
            est.cpu_s.append(cpu)
            est.stopped += stopped
    return est


#: the least a sampled cell runs under a budget that building the sample used up
MIN_CELL_S = 1.0


def _cell_events_folder(spec: Mapping, types: list[str] | None, saved: dict, tmp: Path) -> Path | None:
    """The folder holding the events a sampled cell reads, built here once per stream and set of types
    and saved for the cell's process to map: its pattern's types (``types``) or its whole stream
    (None); None for a cell that reads no stream of a specification (it makes its own, or evaluates
    nothing)."""
    stream = spec.get("stream")
    if not isinstance(stream, Mapping) or types == []:
        return None
    key = (stream_key(stream), None if types is None else tuple(types))
    if key not in saved:
        cols = experiment_stream(stream) if types is None else stream_of_types(stream, types)
        saved[key] = save_columns(cols, tmp / f"events{len(saved)}")
    return saved[key]
