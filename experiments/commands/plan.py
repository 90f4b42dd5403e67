"""``python -m experiments plan``: plan a pattern with one planner or all of them, print plan and cost.

    python -m experiments plan "PATTERN SEQ(A a, B b, C c) WHERE a.x = c.x WITHIN 10 seconds" \\
        --planner DP-B --stats stats.json [--alpha 0.5] [--json]

``--planner all`` prints every planner of the registry side by side, ``--planner A,B`` the named
ones.  ``--planner NEXT`` rewrites a NEXT pattern (``PATTERN S1 a ; (S2 b | S4 c) WITHIN 1 minutes``,
:mod:`cep.next_algebra`, or one of ours that has an exact NEXT counterpart, such as ``PATTERN OR(S1 a,
S2 b, S4 c) WITHIN 1 minutes``: :func:`cep.next_mapping.to_next`) and prints the rewritten pattern
(text that parses) with its CPU cost (NEXT Table 1) before and after.  Statistics come from a JSON
file (``--stats``, the form of :class:`cep.Statistics`) or are computed from events (``--dataset
nasdaq|traffic|<path>``).  A
condition whose variables have no selectivity in the file counts as 1.0 (no filtering); each such key
is named on stderr.  With ``--json`` each planner's result is one JSON object per
line with the keys planner, kind, plan (a list of variables for an order, nested two-element lists
for a tree; a list of those for a pattern with several DNF clauses), cost (null beyond the float
range), log10_cost, plan_time_s, params, fallbacks and pattern.
"""

from __future__ import annotations

import argparse
import json

from algorithms.planning import plan_pattern
from algorithms.registry import REWRITERS, get_planner, get_rewriter, planner_names
from cep.errors import PlanError
from cep.next_algebra import NextPattern
from cep.next_mapping import as_next_pattern
from cep.pattern import format_pattern
from cep.statistics import Statistics
from experiments.commands.inputs import (
    load_patterns,
    load_statistics,
    parse_params,
    warn_missing_selectivities,
)
from experiments.commands.workload import plan_main
from experiments.data.datasets import load_dataset

HELP = "plan a pattern with a JQPG planner (or all of them) and print the plan and its cost"


def add_arguments(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("text", nargs="?", help='pattern text, e.g. "PATTERN SEQ(A a, B b) WITHIN 1 minute"')
    src.add_argument("--file", "-f", help="a file of patterns")
    src.add_argument("--patterns", help="a workload file: plan all its patterns together with one global plan "
                     "(multi-pattern optimizers SA-EDGE, TS-EDGE, ..., see experiments/commands/workload.py)")
    p.add_argument("--planner", default="all", help=f"planner names separated by commas ({', '.join(planner_names())}) or 'all' (default)")
    stats = p.add_mutually_exclusive_group(required=True)
    stats.add_argument("--stats", help="statistics JSON file: {\"rates\": {...}, \"selectivities\": {...}}")
    stats.add_argument("--dataset", help="compute statistics from a dataset name (nasdaq, traffic, ...) or an events file")
    p.add_argument("--alpha", type=float, default=0.0, help="latency weight: cost = Cost_trpt + alpha * Cost_lat (JQPG 5.1)")
    p.add_argument("--seed", type=int, default=0, help="seed of randomized planners (II-RANDOM)")
    p.add_argument("--seq-selectivity", action="store_true", help="apply the selectivity of the implicit SEQ order (off in JQPG)")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="planner parameter, e.g. restarts=5 or max_variables=22 (repeatable)")
    p.add_argument("--time-limit", type=float, default=None, metavar="S",
                   help="with --patterns: the local search's time budget in seconds (default 5)")
    p.add_argument("--json", action="store_true", help="print one JSON object per planner")



def _params_for(name: str, params: dict, single: bool) -> dict:
    if single:
        return params
    accepted = set(get_planner(name).get_params())
    return {k: v for k, v in params.items() if k in accepted}



def main(args: argparse.Namespace) -> int:
    if getattr(args, "patterns", None):
        return plan_main(args)
    if args.planner in REWRITERS:
        return rewrite_main(args)

    names = planner_names() if args.planner == "all" else [n.strip() for n in args.planner.split(",") if n.strip()]
    if not names:
        raise PlanError("--planner names no planner")
    for name in names:
        get_planner(name)  # unknown names fail before any work
    single = len(names) == 1
    params = parse_params(args.param)
    if not single and params:
        unused = sorted(k for k in params if not any(k in get_planner(n).get_params() for n in names))
        if unused:
            raise PlanError(f"no planner has a parameter {unused[0]!r}")
    patterns = load_patterns(args)
    for pattern in patterns:
        if isinstance(pattern, NextPattern):
            raise PlanError(f"{pattern.name or format_pattern(pattern)} is a NEXT pattern: plan it with --planner "
                            f"{', '.join(REWRITERS)}")
    stats = load_statistics(args, patterns)
    for pattern in patterns:
        stats.require_types(pattern.event_types)
        warn_missing_selectivities(pattern, stats)
        results = [
            plan_pattern(pattern, name, stats, alpha=args.alpha, seed=args.seed,
                         seq_selectivity=args.seq_selectivity, **_params_for(name, params, single))
            for name in names
        ]
        label = pattern.name or format_pattern(pattern)
        if args.json:
            for r in results:
                print(json.dumps({**r.to_json(), "pattern": label}))
            continue
        print(format_pattern(pattern))
        width = max(len("planner"), *(len(r.planner) for r in results))
        print(f"  {'planner':<{width}}  {'kind':<5}  {'cost':>12}  {'time':>10}  plan")
        for r in results:
            note = "".join(f"  (fallback: {f})" for f in dict.fromkeys(r.fallbacks) if f)
            print(f"  {r.planner:<{width}}  {r.kind:<5}  {r.cost_text():>12}  {_ms(r.plan_time_s):>10}  {r.plan}{note}")
    return 0


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms" if seconds < 1 else f"{seconds:.2f} s"


def rewrite_main(args: argparse.Namespace) -> int:
    """``--planner NEXT``: rewrite each pattern -- written in NEXT's infix form, or in ours where it has
    an exact NEXT counterpart (:func:`cep.next_mapping.to_next`) -- and print it before and after with
    its CPU cost."""
    rewriter = get_rewriter(args.planner, seed=args.seed, **parse_params(args.param))
    written = load_patterns(args)
    patterns = [as_next_pattern(p) for p in written]
    stats = load_rates(args, patterns)
    for w, p in zip(written, patterns):
        r = rewriter.rewrite(p, stats)
        if args.json:
            print(json.dumps(r.to_json()))
            continue
        if w is not p:
            print(f"written:   {w}")
            print(f"as NEXT:   {p}")
        else:
            print(f"original:  {r.original}")
        print(f"rewritten: {r.rewritten}")
        print(f"CPU cost (events/s, NEXT Table 1): {r.cost_before:,.6g} -> {r.cost_after:,.6g}   "
              f"({_ms(r.plan_time_s)}, {sum(s.accepted for s in r.steps)} of {len(r.steps)} rewrites kept)")
    return 0


def load_rates(args, patterns):
    """Statistics for NEXT patterns: the ``--stats`` file, or each type's rate over the dataset's span."""
    if args.stats:
        return Statistics.load(args.stats)
    stream = load_dataset(args.dataset)
    span = stream.span_seconds or 1.0
    counts = stream.type_counts()
    types = {t for p in patterns for t in p.event_types}
    return Statistics({t: counts.get(t, 0) / span for t in types}, source=str(args.dataset))
