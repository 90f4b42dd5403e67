"""``python -m experiments stats``: arrival rates and condition selectivities of a dataset, on Spark."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cep.errors import ConfigError
from cep.io_utils import atomic_write_text
from cep.parser import parse_pattern_file, parse_patterns
from experiments.commands.inputs import reject_trend_queries
from experiments.data.datasets import load_dataset
from experiments.data.readers import ReadReport
from experiments.data.spark_statistics import compute_statistics_spark
from experiments.data.statistics import DEFAULT_MAX_PAIRS, estimate_statistics, format_statistics

HELP = "compute arrival rates (and a pattern's selectivities) of a dataset as a Spark job"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dataset", "-d", required=True, help="a dataset name (configs/dataset: nasdaq, traffic, ...) or a path to an events file")
    p.add_argument("--pattern", "-p", action="append", default=[], help="pattern text whose condition selectivities to estimate (repeatable)")
    p.add_argument("--pattern-file", help="a file of patterns whose selectivities to estimate")
    p.add_argument("--engine", choices=("spark", "pandas"), default="spark", help="spark (default) or the pandas reference implementation")
    p.add_argument("--master", default="local[*]", help="Spark master (default: embedded local[*]; e.g. spark://host:7077)")
    p.add_argument("--max-pairs", type=int, default=None, help="sample at most this many events/pairs per selectivity (default 100000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the selectivity sample")
    p.add_argument("--types", nargs="+", help="only these event types")
    p.add_argument("--skip-bad-rows", action="store_true", help="skip (and count) malformed or out-of-order rows instead of stopping")
    p.add_argument("--top", type=int, default=20, help="how many event types to list in the text output (default 20; 0 = all)")
    p.add_argument("--out", "-o", help="also write the statistics JSON to this file (usable as plan --stats)")
    p.add_argument("--json", action="store_true", help="print the statistics as JSON")


def main(args: argparse.Namespace) -> int:
    if args.max_pairs is not None and args.max_pairs < 1:
        raise ConfigError(f"--max-pairs {args.max_pairs}: the number of events or pairs sampled per selectivity is at least 1")
    if args.top < 0:
        raise ConfigError(f"--top {args.top}: the number of event types listed is at least 0 (0: all)")
    patterns = [p for text in args.pattern for p in parse_patterns(text)]
    if args.pattern_file:
        patterns += parse_pattern_file(args.pattern_file)
    reject_trend_queries(patterns)
    report = ReadReport(str(args.dataset))
    stream = load_dataset(args.dataset, types=args.types, skip_bad_rows=args.skip_bad_rows, report=report)
    if report.skipped:
        print(f"warning: {report.summary()}", file=sys.stderr)
    max_pairs = args.max_pairs or DEFAULT_MAX_PAIRS
    if args.engine == "spark":
        stats = compute_statistics_spark(stream, patterns, master=args.master, max_pairs=max_pairs, seed=args.seed, progress=sys.stderr.isatty())
    else:
        stats = estimate_statistics(stream, patterns, max_pairs=max_pairs, seed=args.seed)
    meta = {
        "dataset": str(args.dataset),
        "source": stream.source,
        "events": len(stream),
        "event_types": len(stream.types),
        "span_seconds": stream.span_seconds,
        "engine": args.engine,
        "max_pairs": max_pairs,
        "seed": args.seed,
        "skipped_rows": report.skipped,
    }
    doc = {**stats.to_dict(), "meta": meta}
    if args.out:
        atomic_write_text(Path(args.out), json.dumps(doc, indent=2, sort_keys=True) + "\n")
    if args.json:
        print(json.dumps(doc, indent=2, sort_keys=True))
        return 0
    print(format_statistics(stats, meta, top=args.top))
    return 0


