"""``python -m experiments parse``: print a pattern normalized, and its DNF (JQPG Section 4).

For a NEXT pattern (:mod:`cep.next_algebra`) it prints the operator count and, where one exists, the
equivalent SEQ/OR/NOT pattern (:mod:`cep.next_mapping`) instead of a DNF."""

from __future__ import annotations

import argparse
import json

from cep.dnf import to_dnf
from cep.errors import PatternError
from cep.next_algebra import NextPattern, operator_count
from cep.next_mapping import to_pattern
from cep.pattern import format_pattern
from cep.trends import TrendQuery
from experiments.commands.inputs import load_patterns

HELP = "parse pattern text and print it normalized, with its DNF"


def add_arguments(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("text", nargs="?", help='pattern text, e.g. "PATTERN SEQ(A a, B b) WITHIN 1 minute"')
    src.add_argument("--file", "-f", help="a file of patterns (several allowed, separated by blank lines or ';')")
    p.add_argument("--json", action="store_true", help="print one JSON object per pattern")



def main(args: argparse.Namespace) -> int:
    for p in load_patterns(args, trends=True):
        if isinstance(p, NextPattern):
            _print_next(p, args.json)
            continue
        if isinstance(p, TrendQuery):
            _print_trend(p, args.json)
            continue
        clauses = to_dnf(p)
        if args.json:
            print(
                json.dumps(
                    {
                        "name": p.name,
                        "pattern": format_pattern(p),
                        "dnf": [str(sp) for sp in clauses],
                        "variables": p.variables,
                        "event_types": p.event_types,
                    }
                )
            )
            continue
        if p.name:
            print(f"# {p.name}")
        print(format_pattern(p))
        print(f"DNF: {len(clauses)} clause{'s' if len(clauses) != 1 else ''}")
        for sp in clauses:
            print(f"  {sp}")
    return 0


def _print_next(p, as_json: bool) -> None:
    try:
        ours, note = format_pattern(to_pattern(p)[0]), None
    except PatternError as e:
        ours, note = None, str(e)
    if as_json:
        print(json.dumps({"name": p.name, "pattern": format_pattern(p), "operators": operator_count(p.expr),
                          "as_seq_or_not": ours, "variables": p.variables, "event_types": p.event_types}))
        return
    if p.name:
        print(f"# {p.name}")
    print(format_pattern(p))
    print(f"NEXT pattern: {operator_count(p.expr)} operator(s)")
    print(f"as SEQ/OR/NOT: {ours}" if ours else f"no exact SEQ/OR/NOT form: {note}")


def _print_trend(q, as_json: bool) -> None:
    """A trend aggregation query (cep/trends.py): normalized text, elements, partitioning, windows."""
    info = {"name": q.name, "query": format_pattern(q), "return": [str(i) for i in q.items],
            "elements": [e.type + ("+" if e.kleene else "") for e in q.elements],
            "negations": [n.type for n in q.negations], "partition_attributes": list(q.partition_attributes),
            "window_s": float(q.window), "slide_s": float(q.slide)}
    if as_json:
        print(json.dumps(info))
        return
    if q.name:
        print(f"# {q.name}")
    print(format_pattern(q))
    print(f"trend aggregation query: SEQ of {', '.join(info['elements'])}"
          + (f", NOT {', '.join(info['negations'])}" if q.negations else "")
          + (f"; partitioned by {', '.join(q.partition_attributes)}" if q.partition_attributes else "")
          + f"; windows of {float(q.window):g} s every {float(q.slide):g} s")
