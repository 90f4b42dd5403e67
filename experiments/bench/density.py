"""``python -m experiments bench density``: the evaluators at the papers' density.

The papers' streams held thousands of events of a type in a window (JQPG: 1 to 45 events/s over
20 minutes); there a 5-event pattern makes partial matches by the million, and how fast an engine
creates them decides whether a figure can run at the papers' density at all.  This benchmark
replays the bundled NASDAQ data (:func:`experiments.data.replay.replay`: real values, Poisson arrival
times) so that each of the ``--types`` most frequent tickers has ``--events-per-window`` events in
a window (all at one rate), and runs two dense patterns over it,

    SEQ(T1 a, T2 b, T3 c, T4 d, T5 e) WHERE a.diff < b.diff AND c.diff < d.diff WITHIN <window>
    AND(T1 a, T2 b, T3 c, T4 d, T5 e) WHERE a.diff < b.diff AND c.diff < d.diff WITHIN <window>

each under DP-LD's order on the lazy NFA and DP-B's tree on the tree evaluator (statistics estimated
on the replay).  At this density a plan makes partial matches by the million and full matches and
join candidates by the billion, so a run is bounded: a probe run stops at ``--cap`` live partial
matches or ``--max-work`` join candidates, and both engines are then timed on the events the probe
processed (the whole stream when the partial-match cap stopped it: both engines then stop at the same
event, having created exactly ``cap + 1`` partial matches before any could expire) -- the same
events, the same plan, the same partial matches created.  Printed per case: the events processed,
the partial matches created, partial matches created per second of detection (this engine and the
earlier one of ``--against``, default f697127: :mod:`experiments.bench.baseline`, measured in the same
run on the same columns, and their ratio), the state's bytes per partial match (the state's bytes at
the stop over its live partial matches and buffered events: the int32 rows of
:mod:`evaluators.kernel`) and the bytes per event of the columns the kernel reads (type code,
timestamp, window key, position, one float per attribute).

    python -m experiments bench density [--events-per-window 1100] [--cap 1000000] [--repeats 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics as pystats
import tempfile
import time
from pathlib import Path

import numpy as np

from cep.errors import ConfigError

HELP = "density: partial matches created per second on 5-event SEQ and AND at 1,000+ events per type per window"

CONDITIONS = "a.diff < b.diff AND c.diff < d.diff"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--events-per-window", type=float, default=1100.0,
                   help="events of each type per window the replay aims at (default 1100: Poisson arrivals leave 1,000+ in a full window)")
    p.add_argument("--window", type=float, default=1200.0, help="window in seconds (default 1200: JQPG's 20 minutes)")
    p.add_argument("--windows", type=float, default=2.0, help="stream length in windows (default 2)")
    p.add_argument("--types", type=int, default=5, help="the most frequent tickers replayed, one per variable (default 5)")
    p.add_argument("--cap", type=int, default=1_000_000, help="live partial matches that stop a run (default 1,000,000)")
    p.add_argument("--max-work", type=float, default=2e7,
                   help="join candidates that stop the probe run (default 2e7: the earlier engine takes about 2 us a candidate)")
    p.add_argument("--repeats", type=int, default=3, help="timed runs per case; the median is printed (default 3)")
    p.add_argument("--seed", type=int, default=0, help="seed of the replay and the planners")
    p.add_argument("--against", default=None, metavar="REV", help="the earlier engine (default experiments.bench.baseline.BASELINE_REVISION)")
    p.add_argument("--no-baseline", action="store_true", help="do not run the earlier engine")
    p.add_argument("--json", action="store_true", help="print one JSON object per case")


def dense_stream(args: argparse.Namespace):
    """The replayed NASDAQ stream of the ``--types`` most frequent tickers, and those tickers."""
    from experiments.bench.evaluators import most_frequent_types
    from experiments.data.datasets import load_dataset
    from experiments.data.replay import ReplaySpec, replay

    types = most_frequent_types("nasdaq", args.types)
    spec = ReplaySpec(window_seconds=args.window, events_per_window=args.events_per_window, rate_ratio=1.0,
                      windows=args.windows, seed=args.seed)
    return replay(load_dataset("nasdaq", types=types), types, spec).stream, types


def full_window_density(cols, types, window: float) -> float:
    """The smallest, over ``types``, of the mean number of a type's events in the window that ends at one of
    them, over the events at least a window after the stream's start (the first window is still filling)."""
    start = float(cols.ts[0]) + window if len(cols) else 0.0
    counts = []
    for t in types:
        ts = np.asarray(cols.ts[cols.codes == cols.type_names.index(t)], dtype=np.float64)
        full = ts >= start
        if full.any():
            counts.append(float(np.mean(np.arange(len(ts))[full] - np.searchsorted(ts, ts[full] - window, side="left") + 1)))
    return min(counts) if counts else 0.0


def prefix(cols, n: int):
    """The first ``n`` events of a stream's columns, as numeric arrays."""
    from cep.columnar import EventColumns

    return EventColumns(cols.type_names, cols.codes[:n], cols.ts[:n],
                        columns={a: np.asarray(cols.array(a)[:n], dtype=np.float64) for a in cols.attributes},
                        source=f"{cols.source}[:{n}]")


def main(args: argparse.Namespace) -> int:
    from algorithms.planning import plan_pattern
    from cep.parser import parse_pattern
    from evaluators import compile_evaluator, kernel, runtime
    from evaluators.timing import no_cyclic_gc
    from experiments.bench.baseline import BASELINE_REVISION, evaluate_at_revision, plan_case, save_columns
    from experiments.data.statistics import estimate_statistics

    if args.repeats < 1 or args.cap < 1 or args.types < 5:
        raise ConfigError("--repeats and --cap must be >= 1 and --types >= 5 (one ticker per variable)")
    rev = args.against or BASELINE_REVISION
    stream, types = dense_stream(args)
    cols = prefix(stream, len(stream))  # numeric columns, as an experiment's stream
    density = full_window_density(cols, types, args.window)
    names = " ".join(f"{t} {v}" for t, v in zip(types, "abcde"))
    within = f"WITHIN {args.window:g} seconds"
    rows, cases, stream_files = [], [], []
    for op in ("SEQ", "AND"):
        text = f"PATTERN {op}({', '.join(f'{t} {v}' for t, v in zip(types, 'abcde'))}) WHERE {CONDITIONS} {within}"
        pattern = parse_pattern(text)
        stats = estimate_statistics(stream, [pattern], seed=args.seed)
        for planner in ("DP-LD", "DP-B"):
            planned = plan_pattern(pattern, planner, stats, seed=args.seed)
            program = compile_evaluator(pattern, planned.plan)
            runtime.warm_up(program)
            probe = runtime.run(program, runtime.prepare(program, cols), cap=args.cap, work_cap=args.max_work, collect=False,
                                record=False)
            by_work = probe.stopped and probe["C_STATUS"] == kernel.STATUS_WORK
            events = cols if not by_work else prefix(cols, probe["C_PROCESSED"])
            times, out = [], None
            for _ in range(args.repeats):
                with no_cyclic_gc():
                    t = time.perf_counter()
                    data = runtime.prepare(program, events)
                    out = runtime.run(program, data, cap=args.cap, work_cap=float("inf"), collect=False, record=False)
                    times.append(time.perf_counter() - t)
            elapsed = pystats.median(times)
            created = out["C_CREATED"]
            state = out["C_LIVE"] + out["C_BUF"]
            column_bytes = sum(a.nbytes for a in (data.codes, data.ts, data.key, data.pos, data.attrs)) / max(len(data.codes), 1)
            rows.append({
                "pattern": text, "planner": planner, "evaluator": program.kind, "plan": str(planned.plan),
                "events": len(cols), "events_per_type_per_window": density,
                "stopped_by": "partial matches" if out.stopped else ("work, probe" if by_work else "end"),
                "processed_events": out["C_PROCESSED"] if out.stopped else len(events),
                "partial_matches_created": created, "work": out["C_WORK"], "matches": out["C_MATCHES"],
                "elapsed_s": elapsed, "partial_matches_per_s": created / elapsed,
                "state_bytes_per_partial_match": out["C_NBYTES"] / state if state else None,
                "column_bytes_per_event": column_bytes,
            })
            stream_files.append(events)
            cases.append(plan_case(text, planned.plan, program.kind, cap=args.cap, until_cap=True))
    if not args.no_baseline:
        with tempfile.TemporaryDirectory() as tmp:
            for i, (row, case, events) in enumerate(zip(rows, cases, stream_files)):
                b, = evaluate_at_revision([case], repeats=args.repeats, stream=save_columns(events, Path(tmp) / f"dense{i}.npz"), rev=rev)
                row.update(baseline_revision=rev, baseline_elapsed_s=b["elapsed_s"],
                           baseline_partial_matches_created=b["partial_matches_created"],
                           baseline_partial_matches_per_s=b["partial_matches_created"] / b["elapsed_s"],
                           same_partial_matches=b["partial_matches_created"] == row["partial_matches_created"])
                row["ratio_to_baseline"] = row["partial_matches_per_s"] / row["baseline_partial_matches_per_s"]
    if not args.json:
        print(f"Dense patterns on NASDAQ replayed at {density:,.0f}+ events per type per window (mean, after the first window) ({names}; "
              f"window {args.window:g} s, {len(cols):,} events); runs stop at {args.cap:,} live partial matches; "
              f"median of {args.repeats} runs; load {os.getloadavg()[0]:.1f}" + ("" if args.no_baseline else f"; the earlier engine: {rev}"))
        print(f"{'pattern':<4} {'planner':<6} {'eval':<5} {'stop':<16} {'processed':>9} {'PM created':>11} {'PM/s':>11} "
              f"{rev[:8] + ' PM/s':>13} {'ratio':>6} {'B/PM':>6} {'B/event':>7}  plan")
    for r in rows:
        if args.json:
            print(json.dumps(r))
            continue
        print(f"{r['pattern'][8:11]:<4} {r['planner']:<6} {r['evaluator']:<5} {r['stopped_by']:<16} {r['processed_events']:>9,} "
              f"{r['partial_matches_created']:>11,} {r['partial_matches_per_s']:>11,.0f} "
              + (f"{r['baseline_partial_matches_per_s']:>13,.0f} {r['ratio_to_baseline']:>6.1f} " if "ratio_to_baseline" in r
                 else f"{'-':>13} {'-':>6} ")
              + f"{r['state_bytes_per_partial_match'] or 0:>6.1f} {r['column_bytes_per_event']:>7.1f}  {r['plan']}"
              + ("" if r.get("same_partial_matches", True) else "   MISMATCH: different partial matches created"))
    return 0
