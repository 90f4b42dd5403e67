"""``python -m experiments bench planners``: plan time and plan quality of every planner (JQPG Figure 7).

For each pattern size, ``--patterns`` random sequence patterns are planned by every planner on
seeded random statistics: each event type's expected events per window drawn log-uniformly from
``--per-window`` (default 3-135: a 45x spread, as the papers' 1-45 events/s, at the density of the
quick-scale replay), each condition's selectivity log-uniformly from ``--selectivities`` (default
JQPG 6.2's 0.002-0.88), about ``n/2`` conditions between random pairs of events, a 20-minute window.  Printed per planner and
size: the median plan generation time and the average normalized cost, "the cost of a plan
generated for P by the empirically worst algorithm (the CEP-native EFREQ), divided by the cost of
Pl" (higher is better).  Tree plans are normalized by EFREQ's order taken as a left-deep tree, so
each plan is compared with EFREQ in its own cost model.

    python -m experiments bench planners --sizes 3-22 [--planners DP-B,GREEDY] [--patterns 5] [--json]

The exact planners fall back to a heuristic above their ``max_variables`` budget (``--dp-ld-max``,
``--dp-b-max``); the ``fallbacks`` column counts the patterns where that happened.

The output starts with a line stating these parameters.  At the papers' own density
(``--per-window 1200-54000``) the partial matches of the full pattern, the same for every plan,
dominate every plan's cost and all normalized costs come out within a few per mille of 1.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics as pystats

import numpy as np

from algorithms.costs import plan_log_cost
from algorithms.planning import plan_pattern
from algorithms.registry import get_planner, planner_kind, planner_names
from cep.dnf import to_dnf
from cep.errors import ConfigError
from cep.parser import parse_pattern
from cep.plans import TreePlan, left_deep_tree
from cep.statistics import Statistics

HELP = "plan generation: median plan time and EFREQ-normalized cost per planner and size (JQPG Fig. 7)"

PER_WINDOW_RANGE = (3.0, 135.0)
SELECTIVITY_RANGE = (0.002, 0.88)
WINDOW_SECONDS = 1200.0  # JQPG 6.2: "The pattern time window was set to 20 minutes"
CONDITIONS_PER_EVENT = 0.5  # JQPG 6.2: "a number of predicates, roughly equal to half the size of a pattern"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sizes", default="3-22", help="pattern sizes: a range '3-22' or a list '4,8,16' (default 3-22)")
    p.add_argument("--planners", default="all", help="comma-separated planner names, or 'all' (default)")
    p.add_argument("--patterns", type=int, default=5, help="random patterns per size (default 5)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random patterns and statistics, and of the planners")
    p.add_argument("--alpha", type=float, default=0.0, help="latency weight of the cost (JQPG 5.1)")
    p.add_argument("--shape", choices=("SEQ", "AND"), default="SEQ", help="pattern operator (default SEQ)")
    p.add_argument("--window", type=float, default=WINDOW_SECONDS, help="window in seconds (default 1200, JQPG 6.2)")
    p.add_argument("--conditions", type=float, default=CONDITIONS_PER_EVENT,
                   help="conditions per event of the pattern (default 0.5, JQPG 6.2)")
    p.add_argument("--per-window", default="3-135", help="events of a type per window, drawn log-uniformly from LO-HI (default 3-135)")
    p.add_argument("--selectivities", default="0.002-0.88", help="condition selectivities, drawn log-uniformly from LO-HI (default 0.002-0.88)")
    p.add_argument("--dp-ld-max", type=int, default=None, help="DP-LD max_variables budget (default: the planner's)")
    p.add_argument("--dp-b-max", type=int, default=None, help="DP-B max_variables budget (default: the planner's)")
    p.add_argument("--json", action="store_true", help="print one JSON object per planner and size")


def parse_sizes(text: str) -> list[int]:
    try:
        if "-" in text:
            lo, hi = (int(x) for x in text.split("-", 1))
            sizes = list(range(lo, hi + 1))
        else:
            sizes = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ConfigError(f"--sizes expects 'LO-HI' or a comma-separated list of integers, got {text!r}") from None
    if not sizes or min(sizes) < 1:
        raise ConfigError(f"--sizes must name pattern sizes >= 1, got {text!r}")
    return sizes


def random_pattern_text(
    n: int,
    rng: np.random.Generator,
    shape: str = "SEQ",
    *,
    window_seconds: float = WINDOW_SECONDS,
    conditions_per_event: float = CONDITIONS_PER_EVENT,
) -> str:
    """A pattern over ``n`` distinct event types with about ``conditions_per_event * n`` conditions
    between distinct random pairs of events."""
    events = ", ".join(f"T{i} e{i}" for i in range(n))
    pool = [(i, j) for i in range(n) for j in range(i + 1, n)]
    k = min(len(pool), max(1, round(conditions_per_event * n))) if pool else 0
    pairs = sorted(pool[x] for x in rng.choice(len(pool), k, replace=False)) if k else []
    conds = [f"e{i}.diff < e{j}.diff" for i, j in pairs]
    where = f" WHERE {' AND '.join(conds)}" if conds else ""
    return f"PATTERN {shape}({events}){where} WITHIN {window_seconds!r} seconds"


def parse_range(text: str, name: str) -> tuple[float, float]:
    try:
        lo, hi = (float(x) for x in text.split("-", 1))
    except ValueError:
        raise ConfigError(f"{name} expects LO-HI, got {text!r}") from None
    if not 0 < lo <= hi:
        raise ConfigError(f"{name} expects 0 < LO <= HI, got {text!r}")
    return lo, hi


def _log_uniform(rng: np.random.Generator, lo: float, hi: float) -> float:
    return float(np.exp(rng.uniform(np.log(lo), np.log(hi))))


def random_statistics(pattern, rng: np.random.Generator, window_seconds: float = WINDOW_SECONDS,
                      per_window: tuple[float, float] = PER_WINDOW_RANGE, selectivities: tuple[float, float] = SELECTIVITY_RANGE):
    """Rates (events per window / window) and selectivities, each drawn log-uniformly from its range."""
    rates = {t: _log_uniform(rng, *per_window) / window_seconds for t in pattern.event_types}
    sels = {c.key: min(1.0, _log_uniform(rng, *selectivities)) for c in pattern.conditions}
    return Statistics(rates, sels, source="bench planners (random)")


def main(args: argparse.Namespace) -> int:
    sizes = parse_sizes(args.sizes)
    names = planner_names() if args.planners == "all" else [n.strip() for n in args.planners.split(",") if n.strip()]
    for n in names:
        get_planner(n)
    if args.patterns < 1:
        raise ConfigError(f"--patterns must be >= 1, got {args.patterns}")
    budgets = {"DP-LD": args.dp_ld_max, "DP-B": args.dp_b_max}
    per_window = parse_range(args.per_window, "--per-window")
    selectivities = parse_range(args.selectivities, "--selectivities")
    print(
        f"# bench planners: {args.shape} patterns of sizes {sizes[0]}-{sizes[-1]}, {args.patterns} per size, seed {args.seed}; "
        f"window {args.window:g} s; events of a type per window log-uniform in {per_window[0]:g}-{per_window[1]:g}; "
        f"selectivities log-uniform in {selectivities[0]:g}-{selectivities[1]:g}; {args.conditions:g} conditions per event; "
        f"alpha {args.alpha:g}; normalized cost = EFREQ's cost / the plan's (higher is better)",
        file=None if not args.json else __import__("sys").stderr,
    )
    if not args.json:
        print(f"{'size':>4}  {'planner':<11}  {'kind':<5}  {'median time':>12}  {'norm. cost':>10}  fallbacks")
    for n in sizes:
        rows: dict[str, dict] = {name: {"times": [], "norm": [], "fallbacks": 0} for name in names}
        for k in range(args.patterns):
            rng = np.random.default_rng([args.seed, n, k])
            pattern = parse_pattern(
                random_pattern_text(n, rng, args.shape, window_seconds=args.window, conditions_per_event=args.conditions)
            )
            stats = random_statistics(pattern, rng, args.window, per_window, selectivities)
            sp = to_dnf(pattern)[0]
            ref = plan_pattern(pattern, "EFREQ", stats, alpha=args.alpha, seed=args.seed)
            ref_order = ref.plan.plans[0].order
            ref_log = {
                "order": ref.log_cost,
                "tree": plan_log_cost(sp, TreePlan(left_deep_tree(ref_order)), stats, alpha=args.alpha),
            }
            for name in names:
                params = {"max_variables": budgets[name]} if budgets.get(name) is not None else {}
                r = plan_pattern(pattern, name, stats, alpha=args.alpha, seed=args.seed, **params)
                row = rows[name]
                row["times"].append(r.plan_time_s)
                row["norm"].append(math.exp(min(700.0, ref_log[r.kind] - r.log_cost)))
                row["fallbacks"] += any(r.fallbacks)
        for name in names:
            row = rows[name]
            out = {
                "size": n,
                "planner": name,
                "kind": planner_kind(name),
                "patterns": args.patterns,
                "median_plan_time_s": pystats.median(row["times"]),
                "mean_normalized_cost": pystats.fmean(row["norm"]),
                "geomean_normalized_cost": pystats.geometric_mean(row["norm"]),
                "fallbacks": row["fallbacks"],
                "seed": args.seed,
                "alpha": args.alpha,
                "shape": args.shape,
            }
            if args.json:
                print(json.dumps(out), flush=True)
            else:
                print(
                    f"{n:>4}  {name:<11}  {out['kind']:<5}  {_time(out['median_plan_time_s']):>12}  "
                    f"{out['mean_normalized_cost']:>10.3g}  {row['fallbacks'] or ''}",
                    flush=True,
                )
    return 0


def _time(s: float) -> str:
    if s < 1e-3:
        return f"{s * 1e6:.0f} us"
    if s < 1:
        return f"{s * 1e3:.1f} ms"
    return f"{s:.2f} s"
