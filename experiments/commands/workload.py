"""``plan --patterns`` and ``detect --patterns``: a whole workload (several patterns in one file) with
one global plan (MCEP).

    python -m experiments plan --patterns FILE --planner SA-EDGE --time-limit 5 [--stats S | --dataset D] [--json]
    python -m experiments detect --patterns FILE --data EVENTS --planner SA-EDGE [--time-limit S] [--json]

``--planner`` is a multi-pattern optimizer of :mod:`algorithms.multi.registry` (SA-EDGE, TS-EDGE,
SA-VERTEX4, TS-VERTEX4, SA-VERTEX8, TS-VERTEX8, SA-EDGE-PREFIX, TS-EDGE-PREFIX), ``TRIVIAL`` (written
orders, nothing shared) or any single-pattern planner (each pattern planned alone, nothing shared).
``plan`` prints the global plan -- its shared nodes (size two or more, with the patterns sharing
each) and each pattern's plan --, its cost (Cost_tree^multi for an MPM, Cost_ord^multi for an MPT),
the cost of the trivial global plan of the same kind, and the neighbours its search evaluated per second.
``detect`` plans on statistics from ``--stats`` or estimated from the events (one selectivity table
per pattern), then runs the workload on the multi-pattern evaluator in one pass; ``--json`` prints
``matches_by_pattern`` (file order), ``matches``, ``events``, ``throughput_eps`` (events over the
detection time, decoding timed apart as ``decode_s``), ``peak_partial_matches`` and ``planner``.
With ``--stats FILE`` one table serves every pattern: selectivities are keyed by variable names, so
patterns that reuse a name with different conditions should use ``--dataset`` (or ``--data``).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from algorithms.multi.registry import method_kind, plan_workload
from cep.errors import ConfigError, PlanError
from cep.io_utils import atomic_open
from cep.next_algebra import NextPattern
from cep.parser import parse_pattern_file
from cep.pattern import format_pattern
from cep.statistics import Statistics
from evaluators.multi import evaluate_workload
from experiments.commands.inputs import events_loader, resolve_data
from experiments.data.datasets import load_dataset
from experiments.data.statistics import estimate_workload_statistics


def _patterns(path: str):
    pats = parse_pattern_file(path)
    if not pats:
        raise ConfigError(f"{path} holds no pattern")
    for p in pats:
        if isinstance(p, NextPattern):
            raise PlanError(f"{path}: NEXT patterns run on the NEXT engine, not in a multi-pattern workload")
    return pats


def _planner_name(args) -> str:
    name = (args.planner or "").strip()
    if name == "all" or "," in name or not name:
        raise PlanError("--patterns plans a workload with one planner: --planner SA-EDGE (or TS-EDGE, SA-VERTEX4, "
                        "TS-VERTEX4, SA-VERTEX8, TS-VERTEX8, SA-EDGE-PREFIX, TS-EDGE-PREFIX, TRIVIAL, SH, RE, SH-RR, SH-MDT, NA, MST, "
                        "LCSE, or a "
                        "single-pattern planner)")
    return name


def _check_planner(name: str) -> None:
    """A one-line PlanError unless ``name`` is a multi-pattern optimizer or single-pattern planner (built-in,
    an entry point or ``module:Class``)."""
    method_kind(name)


def _time_limit(args) -> float:
    t = getattr(args, "time_limit", None)
    t = 5.0 if t is None else t
    if not t > 0:
        raise ConfigError(f"--time-limit must be a positive number of seconds, got {t}")
    return t


def _print_plan(r, pats, out=None) -> None:
    out = out or sys.stdout
    d = r.to_json()
    kind = "MPM (tree)" if d["kind"] == "tree" else "MPT (order)"
    print(f"global plan ({r.planner}, {kind}): {d['nodes']} nodes", file=out)
    shared = [s for s in d["shared_nodes"] if s["size"] > 1]
    multi_clause = {p for p, c in r.plan.plans if c > 0}

    def name(p: int, c: int) -> str:
        base = pats[p].name or f"P{p + 1}"
        return f"{base}.{c}" if p in multi_clause else base

    if shared:
        print("shared nodes:", file=out)
        for s in shared:
            owners = ", ".join(name(p, c) for p, c in s["owners"])
            print(f"  {json.dumps(s['plan'])} (node {s['node']}) shared by {owners}", file=out)
    else:
        print("shared nodes: none (beyond leaves)", file=out)
    print("plans:", file=out)
    for (p, c), plan in sorted(r.plan.plans.items()):
        print(f"  {name(p, c)}: {plan}    # {format_pattern(pats[p])}", file=out)
    gain = d["gain_over_trivial"]
    print(f"cost: {r.cost:,.6g}   trivial global plan: {r.trivial_cost:,.6g}"
          + (f"   gain: {gain:.3g}x" if gain else ""), file=out)
    if r.search is not None:
        print(f"search: {r.search.neighbours:,} neighbours evaluated in {r.search.elapsed_s:.2f} s "
              f"({r.search.neighbours_per_s:,.0f}/s), "
              f"start cost {r.initial_cost:,.6g}", file=out)


def plan_main(args) -> int:
    name = _planner_name(args)
    _check_planner(name)
    pats = _patterns(args.patterns)
    if args.stats:
        stats = Statistics.load(args.stats)
        for p in pats:
            stats.require_types(p.event_types)
    else:
        stats = estimate_workload_statistics(load_dataset(args.dataset), pats, seed=args.seed)
    r = plan_workload(pats, name, stats, time_limit=_time_limit(args), seed=args.seed, alpha=args.alpha)
    if args.json:
        print(json.dumps(r.to_json()))
    else:
        _print_plan(r, pats)
    return 0


def detect_main(args) -> int:
    name = _planner_name(args)
    _check_planner(name)
    pats = _patterns(args.patterns)
    path, fmt = resolve_data(args.data)
    load = events_loader(path, fmt)
    t0 = time.perf_counter()
    stream = load().to_stream()
    decode_s = time.perf_counter() - t0
    if args.stats:
        stats = Statistics.load(args.stats)
        for p in pats:
            stats.require_types(p.event_types)
    else:
        stats = estimate_workload_statistics(stream, pats, seed=args.seed)
    r = plan_workload(pats, name, stats, time_limit=_time_limit(args), seed=args.seed, alpha=args.alpha)
    cap = 1_000_000 if args.max_partial_matches is None else args.max_partial_matches
    res = evaluate_workload(pats, r.plan, stream, collect_matches=bool(args.out), max_partial_matches=cap)
    if args.out:
        with atomic_open(Path(args.out)) as f:
            for i, ms in enumerate(res.matches_by_pattern):
                for m in ms:
                    f.write(json.dumps({"pattern": i, **m.as_dict()}) + "\n")
    m = res.metrics
    out = {
        "matches_by_pattern": m["matches_by_pattern"],
        "matches": m["matches"],
        "events": m["events"],
        "throughput_eps": m["throughput_eps"],
        "elapsed_s": m["elapsed_s"],
        "decode_s": decode_s,
        "peak_partial_matches": m["peak_partial_matches"],
        "planner": name,
        "evaluator": res.evaluator,
        "plan_cost": r.cost,
        "trivial_cost": r.trivial_cost,
        "plan_time_s": r.plan_time_s,
        "nodes": m["nodes"],
        "data": str(path),
    }
    if args.json:
        print(json.dumps(out))
        return 0
    _print_plan(r, pats)
    print(f"evaluator: {res.evaluator}   events: {m['events']:,}   matches: {m['matches']:,} "
          f"(by pattern: {', '.join(map(str, m['matches_by_pattern']))})")
    print(f"throughput: {m['throughput_eps']:,.0f} events/s   detection: {m['elapsed_s']:.3f} s   decoding: {decode_s:.3f} s")
    print(f"peak partial matches: {m['peak_partial_matches']:,}")
    return 0
