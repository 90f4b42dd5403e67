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
on the replay), until ``--cap`` live partial matches stop the run -- long before the first window has
passed, so no partial match has expired and both engines have created exactly ``cap + 1`` of them.
Printed per case: the events the run processed, the partial matches it created, partial matches
created per second of detection (this engine and the earlier one of ``--against``, default f697127:
:mod:`experiments.bench.baseline`, measured in the same run on the same columns, and their ratio),
the state's bytes per partial match (``peak_memory_bytes`` over the live partial matches and
buffered events at the stop: the int32 rows of :mod:`evaluators.kernel`) and the bytes per event of
the columns the kernel reads (type code, timestamp, window key, position, one float per attribute).

    python -m experiments bench density [--events-per-window 1000] [--cap 1000000] [--repeats 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics as pystats
import tempfile
import time
from pathlib import Path

from cep.errors import ConfigError

HELP = "density: partial matches created per second on 5-event SEQ and AND at 1,000+ events per type per window"

CONDITIONS = "a.diff < b.diff AND c.diff < d.diff"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--events-per-window", type=float, default=1000.0, help="events of each type per window (default 1000)")
    p.add_argument("--window", type=float, default=1200.0, help="window in seconds (default 1200: JQPG's 20 minutes)")
    p.add_argument("--windows", type=float, default=2.0, help="stream length in windows (default 2)")
    p.add_argument("--types", type=int, default=5, help="the most frequent tickers replayed, one per variable (default 5)")
    p.add_argument("--cap", type=int, default=1_000_000, help="live partial matches that stop a run (default 1,000,000)")
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


def main(args: argparse.Namespace) -> int:
    from algorithms.planning import plan_pattern
    from cep.columnar import EventColumns
    from cep.parser import parse_pattern
    from evaluators import compile_evaluator, runtime
    from evaluators.timing import no_cyclic_gc
    from experiments.bench.baseline import BASELINE_REVISION, evaluate_at_revision, plan_case, save_columns
    from experiments.data.replay import events_per_window
    from experiments.data.statistics import estimate_statistics

    if args.repeats < 1 or args.cap < 1 or args.types < 5:
        raise ConfigError("--repeats and --cap must be >= 1 and --types >= 5 (one ticker per variable)")
    rev = args.against or BASELINE_REVISION
    stream, types = dense_stream(args)
    cols = EventColumns.from_events(stream)
    epw = events_per_window(stream, types, args.window)
    names = " ".join(f"{t} {v}" for t, v in zip(types, "abcde"))
    within = f"WITHIN {args.window:g} seconds"
    rows, cases = [], []
    for op in ("SEQ", "AND"):
        text = f"PATTERN {op}({', '.join(f'{t} {v}' for t, v in zip(types, 'abcde'))}) WHERE {CONDITIONS} {within}"
        pattern = parse_pattern(text)
        stats = estimate_statistics(stream, [pattern], seed=args.seed)
        for planner in ("DP-LD", "DP-B"):
            planned = plan_pattern(pattern, planner, stats, seed=args.seed)
            program = compile_evaluator(pattern, planned.plan)
            runtime.warm_up(program)
            times, out = [], None
            for _ in range(args.repeats):
                with no_cyclic_gc():
                    t = time.perf_counter()
                    data = runtime.prepare(program, cols)
                    out = runtime.run(program, data, cap=args.cap, work_cap=float("inf"), collect=False, record=False)
                    times.append(time.perf_counter() - t)
            elapsed = pystats.median(times)
            created = out["C_CREATED"]
            state = out["C_LIVE"] + out["C_BUF"]
            column_bytes = sum(a.nbytes for a in (data.codes, data.ts, data.key, data.pos, data.attrs)) / max(len(data.codes), 1)
            rows.append({
                "pattern": text, "planner": planner, "evaluator": program.kind, "plan": str(planned.plan),
                "events": len(cols), "events_per_type_per_window": min(epw.values()),
                "capped": out.stopped, "processed_events": out["C_PROCESSED"] if out.stopped else len(cols),
                "partial_matches_created": created, "elapsed_s": elapsed, "partial_matches_per_s": created / elapsed,
                "state_bytes_per_partial_match": out["C_NBYTES"] / state if state else None,
                "column_bytes_per_event": column_bytes,
            })
            cases.append(plan_case(text, planned.plan, program.kind, cap=args.cap, until_cap=True))
    if not args.no_baseline:
        with tempfile.TemporaryDirectory() as tmp:
            base = evaluate_at_revision(cases, repeats=args.repeats, stream=save_columns(cols, Path(tmp) / "dense.npz"), rev=rev)
        for row, b in zip(rows, base):
            # a run the cap stopped before any partial match expired created exactly cap + 1 of them
            created = args.cap + 1 if b["capped"] else b["partial_matches_created"]
            if b["capped"] != row["capped"] or (b["capped"] and row["partial_matches_created"] != args.cap + 1):
                row["note"] = "MISMATCH: the two engines stopped differently"
            row.update(baseline_revision=rev, baseline_capped=b["capped"], baseline_elapsed_s=b["elapsed_s"],
                       baseline_partial_matches_per_s=created / b["elapsed_s"])
            row["ratio_to_baseline"] = row["partial_matches_per_s"] / row["baseline_partial_matches_per_s"]
    if not args.json:
        print(f"Dense patterns on NASDAQ replayed at {min(epw.values()):,.0f}+ events per type per window ({names}; "
              f"window {args.window:g} s, {len(cols):,} events); runs stop at {args.cap:,} live partial matches; "
              f"median of {args.repeats} runs; load {os.getloadavg()[0]:.1f}" + ("" if args.no_baseline else f"; the earlier engine: {rev}"))
        print(f"{'pattern':<4} {'planner':<6} {'eval':<5} {'processed':>9} {'PM created':>11} {'PM/s':>11} "
              f"{rev[:8] + ' PM/s':>13} {'ratio':>6} {'B/PM':>6} {'B/event':>7}  plan")
    for r in rows:
        if args.json:
            print(json.dumps(r))
            continue
        print(f"{r['pattern'][8:11]:<4} {r['planner']:<6} {r['evaluator']:<5} {r['processed_events']:>9,} "
              f"{r['partial_matches_created']:>11,} {r['partial_matches_per_s']:>11,.0f} "
              + (f"{r['baseline_partial_matches_per_s']:>13,.0f} {r['ratio_to_baseline']:>6.1f} " if "ratio_to_baseline" in r
                 else f"{'-':>13} {'-':>6} ")
              + f"{r['state_bytes_per_partial_match'] or 0:>6.1f} {r['column_bytes_per_event']:>7.1f}  {r['plan']}")
    return 0
