"""``python -m experiments parse``: print a pattern normalized, and its DNF (JQPG Section 4)."""

from __future__ import annotations

import argparse
import json

from cep.dnf import to_dnf
from cep.errors import PatternError
from cep.parser import format_pattern, parse_pattern_file, parse_patterns

HELP = "parse pattern text and print it normalized, with its DNF"


def add_arguments(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("text", nargs="?", help='pattern text, e.g. "PATTERN SEQ(A a, B b) WITHIN 1 minute"')
    src.add_argument("--file", "-f", help="a file of patterns (several allowed, separated by blank lines or ';')")
    p.add_argument("--json", action="store_true", help="print one JSON object per pattern")


def load_patterns(args: argparse.Namespace):
    if getattr(args, "file", None):
        return parse_pattern_file(args.file)
    if not args.text or not args.text.strip():
        raise PatternError("empty pattern text")
    return parse_patterns(args.text)


def main(args: argparse.Namespace) -> int:
    for p in load_patterns(args):
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
