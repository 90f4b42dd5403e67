"""``python -m experiments bench evaluators``: throughput of the lazy NFA and the tree evaluator.

Every figure is printed beside the same figure of an earlier engine (``--against``, default f697127:
:mod:`experiments.bench.baseline`), measured in the same run on the same stream, and their ratio: a
speed claim is that ratio (``--no-baseline`` skips the earlier engine).  Two parts
(``--part opencep|sweep|all``):

* **opencep** -- the three reference cases of issue [3 of 4], measured against OpenCEP (the authors'
  public Python engine; its tree evaluator, DP-B plan, run time including event decoding, Python
  3.11 on this machine): OpenCEP's ``NASDAQ_MEDIUM.txt`` repeated 10 times, copy ``k`` shifted ``k``
  days later (16,520 events), written as a NASDAQ text file and decoded inside each run (both
  engines decode the same file); the plan is DP-B on statistics estimated from that stream (tree
  evaluator) and, for comparison, DP-LD on the lazy NFA, each made by the JQPG cells' plan step
  (:func:`experiments.exps.jqpg.plan_step`).  Printed: matches (OpenCEP's counts in brackets), median events/s of detection over ``--repeats`` runs, the speed-up over OpenCEP's
  events/s -- on detection (``x OpenCEP``, the measure of issue [3 of 4]) and on decoding plus
  detection (``x incl. decode``: OpenCEP's figures include decoding its text file) --, the earlier
  engine's events/s and the ratio, peak partial matches and peak state bytes.  The matches are
  reported as rows of positions; the :class:`cep.Match` objects of ``result.matches`` are built
  when read, outside the timed span.
* **sweep** -- patterns of sizes 3 to 7 (:mod:`experiments.workloads.jqpg`: sequences and conjunctions
  with ``n/2`` ``diff`` conditions) on the bundled NASDAQ 5-minute sample and Aarhus traffic week,
  restricted to the ``--types`` most frequent event types, under every planner (its default
  evaluator), planned and evaluated by the JQPG cells' own steps (:func:`experiments.exps.jqpg.plan_step`,
  :func:`~experiments.exps.jqpg.evaluate_step`): a number here measures the code a cell runs.  Events are
  decoded once beforehand, so the events/s here measure evaluation only.
  Every planner must find the same matches for a pattern (plan invariance); a row whose count
  differs is flagged ``MISMATCH``.

    python -m experiments bench evaluators [--part all] [--repeats 5] [--sizes 3-7] [--against f697127] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics as pystats
import tempfile
from datetime import timedelta
from pathlib import Path

from cep.errors import ConfigError

# What the benchmark runs is imported inside its functions, not here: python -m experiments imports every
# benchmark module to build the parser of bench, and a benchmark pays only for the imports of its own work.

HELP = "evaluators: events/s and peak partial matches (OpenCEP reference cases; sizes 3-7 per planner)"

#: (pattern, OpenCEP's matches, OpenCEP's events/s) -- issue [3 of 4], measured on this machine
OPENCEP_CASES = (
    (
        "PATTERN SEQ(MSFT a, DRIV b, ORLY c, CBRL d) WHERE a.high < b.high AND b.high < c.high "
        "AND c.high < d.high WITHIN 3 minutes",
        790,
        24_200.0,
    ),
    (
        "PATTERN AND(MSFT a, DRIV b, ORLY c, CBRL d) WHERE a.high < b.high AND b.high < c.high "
        "AND c.high < d.high WITHIN 3 minutes",
        6_460,
        25_100.0,
    ),
    (
        "PATTERN SEQ(MSFT a, DRIV b, MSFT c, DRIV d, MSFT e) WHERE a.high < b.high AND b.high < c.high "
        "AND c.high < d.high AND d.high < e.high WITHIN 10 minutes",
        860,
        9_500.0,
    ),
)
SWEEP_DATASETS = ("nasdaq", "traffic")
SWEEP_SETS = ("seq", "conj")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--part", choices=("all", "opencep", "sweep", "multi"), default="all",
                   help="which part to run (default all; multi: the multi-pattern cases of experiments.bench.multi)")
    p.add_argument("--repeats", type=int, default=5, help="timed runs per case; the median is printed (default 5)")
    p.add_argument("--sizes", default="3-7", help="sweep: pattern sizes, '3-7' or '3,5,7' (default 3-7)")
    p.add_argument("--planners", default="all", help="sweep: comma-separated planner names or 'all' (default)")
    p.add_argument("--datasets", default=",".join(SWEEP_DATASETS), help="sweep: datasets (default nasdaq,traffic)")
    p.add_argument("--sets", default=",".join(SWEEP_SETS), help="sweep: pattern sets of experiments.workloads.jqpg (default seq,conj)")
    p.add_argument("--per-size", type=int, default=1, help="sweep: patterns per set and size (default 1)")
    p.add_argument("--types", type=int, default=12, help="sweep: the most frequent event types kept (default 12)")
    p.add_argument("--window", type=float, default=600.0, help="sweep: window in seconds (default 600; JQPG 6.2 used 1200, which on the bundled data makes size-7 conjunctions report millions of matches)")
    p.add_argument("--seed", type=int, default=0, help="seed of the patterns, the statistics sampling and the planners")
    p.add_argument("--max-partial-matches", type=int, default=None, metavar="N", help="cap on live partial matches")
    p.add_argument("--against", default=None, metavar="REV",
                   help="the earlier engine every figure is compared with (default: experiments.bench.baseline.BASELINE_REVISION)")
    p.add_argument("--no-baseline", action="store_true", help="do not run the earlier engine")
    p.add_argument("--json", action="store_true", help="print one JSON object per case")


def main(args: argparse.Namespace) -> int:
    if args.repeats < 1:
        raise ConfigError(f"--repeats must be >= 1, got {args.repeats}")
    if args.part in ("all", "opencep"):
        run_opencep_cases(args)
    if args.part in ("all", "sweep"):
        run_sweep(args)
    if args.part in ("all", "multi"):
        from experiments.bench.multi import run_detect

        run_detect(args)
    return 0


# ---------------------------------------------------------------------------------------------
# OpenCEP reference cases
# ---------------------------------------------------------------------------------------------


def run_opencep_cases(args: argparse.Namespace) -> None:
    from cep.columnar import read_nasdaq_text_columns
    from cep.parser import parse_pattern
    from evaluators import evaluate
    from experiments.bench.baseline import BASELINE_REVISION, evaluate_at_revision, plan_case
    from experiments.bench.opencep import OPENCEP_COPIES, write_shifted_copies
    from experiments.data.datasets import dataset_path
    from experiments.data.statistics import estimate_statistics
    from experiments.exps.jqpg import plan_step

    rev = args.against or BASELINE_REVISION
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "NASDAQ_MEDIUM_x10.txt"
        n = write_shifted_copies(dataset_path("nasdaq_minute"), path, OPENCEP_COPIES, timedelta(days=1))
        stream = read_nasdaq_text_columns(path).to_stream()
        load = lambda: read_nasdaq_text_columns(path)  # noqa: E731 - decoded inside each run
        rows, cases = [], []
        for i, (text, want, opencep_eps) in enumerate(OPENCEP_CASES, start=1):
            pattern = parse_pattern(text)
            stats = estimate_statistics(stream, [pattern], seed=args.seed)
            for planner in ("DP-B", "DP-LD"):
                planned = plan_step(pattern, planner, stats, seed=args.seed)
                runs = [
                    evaluate(pattern, planned.plan, load, measure_memory=True, max_partial_matches=args.max_partial_matches).metrics
                    for _ in range(args.repeats)
                ]
                evaluator = "tree" if planned.fields["kind"] == "tree" else "nfa"
                eps = pystats.median(m["throughput_eps"] for m in runs)
                with_decode = pystats.median(m["events"] / (m["elapsed_s"] + m["decode_s"]) for m in runs)
                rows.append({
                    "part": "opencep", "case": i, "pattern": text, "planner": planner, "evaluator": evaluator,
                    "plan": planned.digest, "events": runs[0]["events"], "matches": runs[0]["matches"], "opencep_matches": want,
                    "throughput_eps": eps, "throughput_eps_runs": [m["throughput_eps"] for m in runs],
                    "throughput_with_decode_eps": with_decode, "opencep_throughput_eps": opencep_eps,
                    "speedup": eps / opencep_eps, "speedup_with_decode": with_decode / opencep_eps,
                    "peak_partial_matches": runs[0]["peak_partial_matches"], "peak_memory_bytes": runs[0]["peak_memory_bytes"],
                    "latency_ms_mean": pystats.median(m["latency_ms_mean"] for m in runs),
                })
                cases.append(plan_case(text, planned.plan, evaluator, cap=args.max_partial_matches))
        if not args.no_baseline:
            base = evaluate_at_revision(cases, repeats=args.repeats, text=path, collect=True, rev=rev)
            for row, b in zip(rows, base):
                row.update(baseline_revision=rev, baseline_throughput_eps=b["throughput_eps"], baseline_matches=b["matches"],
                           ratio_to_baseline=row["throughput_eps"] / b["throughput_eps"])
        if not args.json:
            print(f"OpenCEP reference cases: {path.name} ({n:,} events), decoded inside each run; median of {args.repeats} runs;"
                  f" load {os.getloadavg()[0]:.1f}" + ("" if args.no_baseline else f"; the earlier engine: {rev}"))
            print(f"{'case':<5} {'planner':<6} {'eval':<5} {'matches':>14} {'events/s':>10} {'x OpenCEP':>9} {'x incl.dec':>10} "
                  f"{rev[:8] + ' ev/s':>13} {'ratio':>6} {'peak PM':>8} {'state':>8}  plan")
        for r in rows:
            _emit(args, r, lambda r: (
                f"{r['case']:<5} {r['planner']:<6} {r['evaluator']:<5} "
                f"{r['matches']:>7,} [{r['opencep_matches']:>5,}] {r['throughput_eps']:>10,.0f} {r['speedup']:>9.1f} "
                f"{r['speedup_with_decode']:>10.1f} "
                + (f"{r['baseline_throughput_eps']:>13,.0f} {r['ratio_to_baseline']:>6.1f} " if "ratio_to_baseline" in r else f"{'-':>13} {'-':>6} ")
                + f"{r['peak_partial_matches']:>8,} {r['peak_memory_bytes'] / 1e3:>6.1f}kB  {r['plan']}"
                + ("" if r["matches"] == r["opencep_matches"] and r.get("baseline_matches", r["matches"]) == r["matches"] else "   MISMATCH")
            ))
        if not args.json:
            print()


# ---------------------------------------------------------------------------------------------
# Sizes 3-7 under every planner
# ---------------------------------------------------------------------------------------------
def most_frequent_types(dataset: str, k: int) -> list[str]:
    """The ``k`` most frequent event types of a Parquet dataset (ties by name)."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from experiments.data.datasets import dataset_path

    path = dataset_path(dataset)
    names = set(pq.read_schema(path).names)
    col = "ticker" if "ticker" in names else "report_id"
    counts = pc.value_counts(pq.read_table(path, columns=[col]).column(col).combine_chunks()).to_pylist()
    ranked = sorted(((c["counts"], str(c["values"])) for c in counts), key=lambda t: (-t[0], t[1]))
    return [t for _, t in ranked[:k]]


def run_sweep(args: argparse.Namespace) -> None:
    from algorithms.registry import get_planner, planner_names
    from cep.pattern import Window, format_pattern
    from experiments.bench.baseline import BASELINE_REVISION, evaluate_at_revision, plan_case, save_columns
    from experiments.bench.planners import parse_sizes
    from experiments.data.datasets import load_dataset
    from experiments.data.statistics import estimate_statistics
    from experiments.exps.jqpg import evaluate_step, plan_step
    from experiments.workloads.jqpg import make_pattern

    sizes = parse_sizes(args.sizes)
    planners = planner_names() if args.planners == "all" else [n.strip() for n in args.planners.split(",") if n.strip()]
    for name in planners:
        get_planner(name)
    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    rev = args.against or BASELINE_REVISION
    if not args.json:
        print(f"Sizes {args.sizes} under every planner: {args.types} most frequent types, window {args.window:g} s, "
              f"events decoded beforehand; median of {args.repeats} runs; load {os.getloadavg()[0]:.1f}"
              + ("" if args.no_baseline else f"; the earlier engine: {rev}"))
        print(f"{'dataset':<8} {'set':<5} {'n':>2} {'planner':<11} {'eval':<5} {'matches':>8} {'events/s':>10} "
              f"{rev[:8] + ' ev/s':>13} {'ratio':>6} {'peak PM':>9}  plan")
    for dataset in [d.strip() for d in args.datasets.split(",") if d.strip()]:
        types = most_frequent_types(dataset, args.types)
        stream = cols = load_dataset(dataset, types=types)
        rows, cases = [], []
        for pset in sets:
            for size in sizes:
                for index in range(args.per_size):
                    pattern = make_pattern(pset, size, index, types, Window.seconds(args.window), seed=args.seed)
                    stats = estimate_statistics(stream, [pattern], seed=args.seed)
                    counts = set()
                    for planner in planners:
                        planned = plan_step(pattern, planner, stats, seed=args.seed)
                        kind = planned.fields["kind"]
                        row = {"part": "sweep", "dataset": dataset, "set": pset, "size": size, "index": index,
                               "planner": planner, "kind": kind, "plan": planned.digest, "events": len(cols)}
                        evaluator = "nfa" if kind == "order" else "tree"
                        e = evaluate_step(pattern, planned.plan, cols, evaluator=evaluator, repeats=args.repeats,
                                          max_partial_matches=args.max_partial_matches)
                        if e.status != "ok":
                            row.update(evaluator="", matches=None, throughput_eps=None, peak_partial_matches=None, error=e.status)
                            rows.append(row)
                            continue
                        m = e.metrics
                        counts.add(m["matches"])
                        row.update(
                            evaluator=evaluator,
                            matches=m["matches"],
                            throughput_eps=m["throughput_eps"],
                            peak_partial_matches=m["peak_partial_matches"],
                            consistent=len(counts) == 1,
                        )
                        rows.append(row)
                        cases.append((len(rows) - 1, plan_case(format_pattern(pattern), planned.plan, evaluator,
                                                               cap=args.max_partial_matches)))
        if cases and not args.no_baseline:
            with tempfile.TemporaryDirectory() as tmp:
                base = evaluate_at_revision([c for _, c in cases], repeats=args.repeats,
                                            stream=save_columns(cols, Path(tmp) / "stream.npz"), rev=rev)
            for (i, _), b in zip(cases, base):
                rows[i].update(baseline_revision=rev, baseline_throughput_eps=b["throughput_eps"], baseline_matches=b["matches"],
                               ratio_to_baseline=rows[i]["throughput_eps"] / b["throughput_eps"])
        for row in rows:
            if row.get("error"):
                _emit(args, row, lambda r: f"{r['dataset']:<8} {r['set']:<5} {r['size']:>2} {r['planner']:<11} {r['error']}")
                continue
            _emit(args, row, lambda r: (
                f"{r['dataset']:<8} {r['set']:<5} {r['size']:>2} {r['planner']:<11} {r['evaluator']:<5} "
                f"{r['matches']:>8,} {r['throughput_eps']:>10,.0f} "
                + (f"{r['baseline_throughput_eps']:>13,.0f} {r['ratio_to_baseline']:>6.1f} " if "ratio_to_baseline" in r else f"{'-':>13} {'-':>6} ")
                + f"{r['peak_partial_matches']:>9,}  {r['plan']}"
                + ("" if r["consistent"] and r.get("baseline_matches", r["matches"]) == r["matches"] else "   MISMATCH")
            ))


def _emit(args, row: dict, text) -> None:
    print(json.dumps(row) if args.json else text(row), flush=True)
