"""What several commands read from their arguments: patterns (text or file), events files (a dataset
name or a path, and a loader that decodes it inside the timed span), statistics, planner parameters;
and a command module's one-line help as argparse takes it."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cep.errors import ConfigError, PatternError
from cep.parser import parse_pattern_file, parse_patterns
from cep.statistics import Statistics
from cep.trends import TrendQuery
from experiments.data.datasets import dataset_config, dataset_names, dataset_path, load_dataset
from experiments.data.readers import read_events, sniff_format
from experiments.data.statistics import estimate_statistics


def load_patterns(args: argparse.Namespace, *, trends: bool = False):
    """The patterns of ``args.text`` or ``args.file``; a trend aggregation query (RETURN ...) is an
    error unless ``trends`` (it runs with ``aggregate``)."""
    if getattr(args, "file", None):
        patterns = parse_pattern_file(args.file)
    else:
        if not args.text or not args.text.strip():
            raise PatternError("empty pattern text")
        patterns = parse_patterns(args.text)
    if not trends:
        reject_trend_queries(patterns)
    return patterns


def reject_trend_queries(patterns) -> None:
    for p in patterns:
        if isinstance(p, TrendQuery):
            raise PatternError(f"{p.name + ': ' if p.name else ''}a trend aggregation query (RETURN ...) runs with "
                               "'python -m experiments aggregate QUERIES_FILE --data EVENTS'")


def events_loader(path: Path, fmt: str):
    """A zero-argument callable that decodes the events file (called inside the timed span)."""
    return lambda: read_events(path, format=fmt)


def resolve_data(spec: str) -> tuple[Path, str]:
    """The events file of a dataset name or path, and its format."""
    path = dataset_path(spec)
    fmt = (dataset_config(spec).get("format") or "auto") if spec in dataset_names() else "auto"
    return path, (sniff_format(path) if fmt == "auto" else fmt)


def parse_params(items: list[str]) -> dict:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--param expects KEY=VALUE, got {item!r}")
        try:
            out[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            out[key.strip()] = value
    return out


def load_statistics(args, patterns):
    if args.stats:
        return Statistics.load(args.stats)
    return estimate_statistics(load_dataset(args.dataset), patterns, seed=args.seed)


def warn_missing_selectivities(pattern, stats) -> list[str]:
    """Name on stderr every condition key of ``pattern`` that ``stats`` has no selectivity for."""
    missing = {}
    for c in pattern.conditions:
        if c.key not in stats.selectivities:
            missing.setdefault(c.key, []).append(str(c))
    for key, conds in missing.items():
        print(
            f"warning: {stats.source} has no selectivity for variables {key} ({'; '.join(conds)}): using 1.0 "
            "(compute it with --dataset, or: python -m experiments stats --pattern ... --out FILE)",
            file=sys.stderr,
        )
    return list(missing)


def add_results_dir(p: argparse.ArgumentParser, default: str) -> None:
    """``--results-dir DIR`` and, as ``run`` takes it, ``results_dir=DIR`` (the folder of results to read)."""
    p.add_argument("--results-dir", metavar="DIR", default=None, help=f"results folder (default: {default})")
    p.add_argument("setting", nargs="?", metavar="results_dir=DIR", help="the results folder, written as run takes it")


def results_dir_of(args: argparse.Namespace) -> str | None:
    """The results folder of ``--results-dir`` or ``results_dir=DIR`` (None: the command's default)."""
    given = None
    if args.setting is not None:
        key, sep, value = args.setting.partition("=")
        if key.strip() != "results_dir" or not sep or not value.strip():
            raise ConfigError(f"expected results_dir=DIR, got {args.setting!r}")
        given = value.strip()
    if given is not None and args.results_dir is not None and given != args.results_dir:
        raise ConfigError(f"two results folders: --results-dir {args.results_dir} and results_dir={given}")
    return given if given is not None else args.results_dir


def command_help(mod) -> str:
    """A command (or benchmark) module's one-line HELP as argparse wants it: argparse %-formats help strings."""
    return mod.HELP.replace("%", "%%")
