"""``python -m experiments aggregate``: run trend aggregation queries (HAMLET) over an events file.

    python -m experiments aggregate queries.txt --data events.csv [--engine hamlet|hamlet-static|greta|two-step|sharon] \\
        [--out rows.csv] [--json]

``QUERIES_FILE`` holds one or more trend aggregation queries (``RETURN ... PATTERN ... WITHIN ... SLIDE
...``; semantics in ``cep/trends.py``).  The result is one CSV row per query, window and group:
``query`` (0-based index in the file), ``window_start``, ``window_end`` (seconds), ``group`` (the
GROUP-BY values joined by ``|``), then one column per RETURN item of the workload (empty where a query
lacks it).  Rows go to ``--out`` (written atomically) or stdout.  ``--json`` prints one JSON object
instead: ``events``, ``throughput_eps``, ``latency_ms`` (``mean``, ``p95``: wall time the engine
spends on each arriving timestamp's events, including the bursts that arrival completes),
``peak_traced_memory_bytes`` (a second, untimed run under tracemalloc; ``--no-memory`` skips it),
``snapshots``, ``engine`` and the engine's counters, plus ``columns`` and ``rows`` when there is no
``--out``.
"""

from __future__ import annotations

import argparse
import csv
import io
import json

from cep.errors import PatternError
from cep.io_utils import atomic_open, exact_integers
from cep.parser import parse_pattern_file
from cep.trends import TrendQuery
from experiments.commands.inputs import resolve_data
from experiments.data.readers import read_events
from experiments.exps.hamlet_engines import engine, measure

HELP = "run trend aggregation queries (HAMLET) over an events file; one row per query, window and group"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("queries", metavar="QUERIES_FILE", help="file of trend aggregation queries")
    p.add_argument("--data", required=True, help="events file (CSV with type and ts columns, Parquet, ...) or dataset name")
    p.add_argument("--engine", default="hamlet", help="hamlet (dynamic sharing, default), hamlet-static, greta, two-step or sharon")
    p.add_argument("--max-trends", type=int, default=None, metavar="N", help="two-step: stop past N constructed trends")
    p.add_argument("--no-memory", action="store_true", help="skip the untimed traced run that measures peak memory")
    p.add_argument("--out", help="write the rows here (CSV)")
    p.add_argument("--json", action="store_true", help="print metrics (and rows) as one JSON object")


def _columns(queries) -> list[str]:
    cols: list[str] = []
    for q in queries:
        for it in q.items:
            if str(it) not in cols:
                cols.append(str(it))
    return cols


def table(queries, rows) -> tuple[list[str], list[list]]:
    cols = _columns(queries)
    out = []
    for r in rows:
        q = queries[r[0]]
        vals = dict(zip([str(i) for i in q.items], r[4:]))
        out.append([r[0], r[1], r[2], "|".join(str(g) for g in r[3])] + [vals.get(c, "") for c in cols])
    return ["query", "window_start", "window_end", "group"] + cols, out


def main(args: argparse.Namespace) -> int:
    engine(args.engine)  # an unknown name fails before any work
    queries = parse_pattern_file(args.queries)
    for i, q in enumerate(queries):
        if not isinstance(q, TrendQuery):
            raise PatternError(f"{args.queries}: pattern {i + 1} is not a trend aggregation query (RETURN ... PATTERN ... WITHIN ...)")
    path, fmt = resolve_data(args.data)
    columns = read_events(path, format=fmt)
    for i, q in enumerate(queries):  # an engine reads a missing attribute as no match: an empty table, not an error
        for attr, where in q.attributes_used.items():
            if attr not in columns.attributes:
                raise PatternError(f"{args.queries}: query {i + 1} reads attribute {attr!r} ({where}), which no event of {path} "
                                   f"carries; they have: {', '.join(columns.attributes) or 'no attributes'}")
    stream = columns.to_stream()  # the trend engines take event objects
    options = {"max_trends": args.max_trends} if args.max_trends is not None and args.engine == "two-step" else {}
    res, metrics = measure(args.engine, queries, stream, memory=not args.no_memory, **options)
    header, rows = table(queries, res.rows())
    with exact_integers():
        _write(args, queries, path, header, rows, metrics)
    return 0


def _write(args: argparse.Namespace, queries, path, header: list[str], rows: list[list], metrics: dict) -> None:
    """The rows to ``--out`` (CSV, atomically) and/or stdout (CSV, or one JSON object with ``--json``)."""
    if args.out:
        with atomic_open(args.out) as f:
            w = csv.writer(f)
            w.writerow(header)
            w.writerows(rows)
    if args.json:
        out = {"engine": metrics.pop("engine"), "events": metrics.pop("events"), "throughput_eps": metrics.pop("throughput_eps"),
               "latency_ms": {"mean": metrics.pop("latency_ms_mean"), "p95": metrics.pop("latency_ms_p95")},
               "peak_traced_memory_bytes": metrics.pop("peak_traced_memory_bytes"), "snapshots": metrics.pop("snapshots"), **metrics,
               "queries": len(queries), "data": str(path)}
        if not args.out:
            out["columns"] = header
            out["rows"] = rows
        print(json.dumps(out, default=str))
    elif not args.out:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
        print(buf.getvalue(), end="")
