"""``python -m experiments bench multi``: multi-pattern detection throughput and search speed (MCEP).

Two parts (``--part detect|search|all``):

* **detect** -- three workloads of 4, 6 and 8 SEQ/AND patterns of 2 to 5 events over the four
  tickers of OpenCEP's ``NASDAQ_MEDIUM.txt``, sharing prefixes and sub-conjunctions, with 1 to 10
  minute windows and look-alikes (``a.high`` vs ``a.low``, SEQ vs AND), on that file repeated 10
  times, copy ``k`` shifted ``k`` days (16,520 events; the issue's reference stream).  Each workload
  runs on the multi-pattern evaluators under TRIVIAL (written orders, nothing shared), DP-B (best
  local trees, nothing shared), SA-EDGE (MPM) and TS-EDGE-PREFIX (MPT), plans from statistics
  estimated on the stream, events decoded beforehand, the runs timed as a cell times them
  (:func:`experiments.running.cells.timed_runs`).  Per-pattern counts are checked against the
  single-pattern compiled engine (each pattern alone, DP-B, planned and evaluated by the JQPG cells'
  steps); a row that differs is flagged ``MISMATCH``.  Printed beside: the summed time of running each
  pattern alone on the single-pattern engine, and OpenCEP's multi-pattern range on such workloads as the issue states it (2,300 to
  12,000 events/s; OpenCEP is not installed here, so no OpenCEP run is made).
* **search** -- steps per second of every local search on a workload of ``--patterns`` patterns of
  average size 5 (:mod:`experiments.workloads.mcep`) over 40 types whose rates span 45x, with a
  ``--time-limit`` each.

    python -m experiments bench multi [--part all] [--repeats 3] [--time-limit 5] [--json]
"""

from __future__ import annotations

import argparse
import statistics as pystats
import time

from cep.errors import ConfigError
from experiments.tools.tables import fmt, print_rows, text_table

# What the benchmark runs is imported inside its functions, not here: python -m experiments imports every
# benchmark module to build the parser of bench, and a benchmark pays only for the imports of its own work.

HELP = "multi-pattern detection (events/s per global plan) and local-search steps per second"

OPENCEP_MULTI_RANGE = (2_300.0, 12_000.0)  # issue [3 of 6]: OpenCEP's best multi-pattern mode on such workloads

WORKLOADS = {
    "prefixes-4": """
PATTERN SEQ(MSFT a, DRIV b, ORLY c) WHERE a.high < b.high AND b.high < c.high WITHIN 3 minutes
PATTERN SEQ(MSFT a, DRIV b, CBRL c) WHERE a.high < b.high AND b.high < c.high WITHIN 3 minutes
PATTERN SEQ(MSFT a, DRIV b, ORLY c, CBRL d) WHERE a.high < b.high AND b.high < c.high AND c.high < d.high WITHIN 3 minutes
PATTERN SEQ(MSFT a, DRIV b) WHERE a.high < b.high WITHIN 1 minutes
""",
    "conjunctions-6": """
PATTERN AND(MSFT a, DRIV b, ORLY c) WHERE a.high < b.high AND b.high < c.high WITHIN 2 minutes
PATTERN AND(MSFT a, DRIV b, CBRL c) WHERE a.high < b.high AND b.high < c.high WITHIN 2 minutes
PATTERN AND(MSFT a, DRIV b, ORLY c, CBRL d) WHERE a.high < b.high AND b.high < c.high AND c.high < d.high WITHIN 3 minutes
PATTERN AND(DRIV b, ORLY c) WHERE b.high < c.high WITHIN 5 minutes
PATTERN SEQ(MSFT a, DRIV b, ORLY c) WHERE a.high < b.high AND b.high < c.high WITHIN 3 minutes
PATTERN AND(MSFT a, DRIV b) WHERE a.low < b.low WITHIN 2 minutes
""",
    "mixed-8": """
PATTERN SEQ(MSFT a, DRIV b, MSFT c, DRIV d, MSFT e) WHERE a.high < b.high AND b.high < c.high AND c.high < d.high AND d.high < e.high WITHIN 10 minutes
PATTERN SEQ(MSFT a, DRIV b, MSFT c, DRIV d) WHERE a.high < b.high AND b.high < c.high AND c.high < d.high WITHIN 10 minutes
PATTERN SEQ(MSFT a, DRIV b, MSFT c) WHERE a.high < b.high AND b.high < c.high WITHIN 5 minutes
PATTERN SEQ(DRIV b, MSFT c, DRIV d) WHERE b.high < c.high AND c.high < d.high WITHIN 5 minutes
PATTERN SEQ(MSFT a, DRIV b, ORLY c, CBRL d) WHERE a.high < b.high AND b.high < c.high AND c.high < d.high WITHIN 3 minutes
PATTERN AND(MSFT a, DRIV b, ORLY c, CBRL d) WHERE a.high < b.high AND b.high < c.high AND c.high < d.high WITHIN 3 minutes
PATTERN SEQ(ORLY c, CBRL d) WHERE c.high < d.high WITHIN 1 minutes
PATTERN SEQ(MSFT a, DRIV b) WHERE a.low < b.low WITHIN 2 minutes
""",
}
DETECT_PLANNERS = ("TRIVIAL", "DP-B", "SA-EDGE", "TS-EDGE-PREFIX")
DETECT_COLUMNS = {
    "workload": ("workload", str), "planner": ("planner", str), "evaluator": ("eval", str), "matches": ("matches", fmt(",")),
    "throughput_eps": ("events/s", fmt(",.0f")),
    "speedup_vs_opencep_range": ("x OpenCEP", lambda r: f"{r[0]:.1f}-{r[1]:.1f}"),
    "alone_throughput_eps": ("alone ev/s", fmt(",.0f")), "peak_partial_matches": ("peak PM", fmt(",")),
    "plan_cost": ("cost", fmt(".4g")), "trivial_cost": ("trivial", fmt(".4g")),
    "same_matches_as_alone": ("as alone", lambda same: "yes" if same else "MISMATCH"),
}
SEARCH_COLUMNS = {
    "planner": ("planner", str), "steps": ("steps", fmt(",")), "steps_per_s": ("steps/s", fmt(",.0f")),
    "plan_cost": ("cost", fmt(".5g")), "gain_over_trivial": ("gain", fmt(".2f")),
    "start_gain_over_trivial": ("start gain", fmt(".2f")), "mpg_edges": ("edges", fmt("d")),
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--part", choices=("all", "detect", "search"), default="all", help="which part (default all)")
    p.add_argument("--repeats", type=int, default=3, help="detect: timed runs per case, the median is printed (default 3)")
    p.add_argument("--time-limit", type=float, default=5.0, help="search time per planner in seconds (default 5); "
                   "detect plans with 1 s")
    p.add_argument("--patterns", type=int, default=100, help="search: workload size (default 100, average size 5)")
    p.add_argument("--seed", type=int, default=0, help="seed of workloads, statistics sampling and searches")
    p.add_argument("--json", action="store_true", help="print one JSON object per row")


def main(args: argparse.Namespace) -> int:
    if args.repeats < 1:
        raise ConfigError(f"--repeats must be >= 1, got {args.repeats}")
    if args.part in ("all", "detect"):
        run_detect(args)
    if args.part in ("all", "search"):
        run_search(args)
    return 0



def run_detect(args: argparse.Namespace) -> None:
    from algorithms.multi import plan_workload
    from cep.parser import parse_patterns
    from evaluators.multi import evaluate_workload
    from experiments.bench.opencep import reference_stream
    from experiments.data.statistics import estimate_statistics, estimate_workload_statistics
    from experiments.exps.jqpg import evaluate_step, plan_step
    from experiments.running.cells import timed_runs

    cols = reference_stream()
    stream = cols.to_stream()
    lo, hi = OPENCEP_MULTI_RANGE
    if not args.json:
        print(f"Multi-pattern detection: NASDAQ_MEDIUM x10 ({len(stream):,} events), events decoded beforehand, "
              f"median of {args.repeats} runs; OpenCEP's multi-pattern mode: {lo:,.0f}-{hi:,.0f} events/s (issue)")
    rows = []
    for name, text in WORKLOADS.items():
        pats = parse_patterns(text)
        stats = estimate_workload_statistics(stream, pats, seed=args.seed)
        alone_counts, alone_time = [], 0.0
        for p in pats:  # each pattern alone, as a JQPG cell plans and evaluates it
            st = estimate_statistics(stream, [p], seed=args.seed)
            alone = evaluate_step(p, plan_step(p, "DP-B", st, seed=args.seed).plan, cols, evaluator="tree").metrics
            alone_counts.append(alone["matches"])
            alone_time += alone["elapsed_s"]
        for planner in DETECT_PLANNERS:
            r = plan_workload(pats, planner, stats, time_limit=1.0, seed=args.seed)
            runs = timed_runs({planner: lambda i: evaluate_workload(pats, r.plan, stream, collect_matches=False)}, args.repeats,
                              len(stream))[planner]
            eps = pystats.median(x.metrics["throughput_eps"] for x in runs)
            counts = runs[0].counts
            row = {
                "part": "detect", "workload": name, "patterns": len(pats), "planner": planner,
                "evaluator": runs[0].evaluator, "events": len(stream), "matches": sum(counts),
                "matches_by_pattern": counts, "alone_matches_by_pattern": alone_counts,
                "throughput_eps": eps, "throughput_eps_runs": [x.metrics["throughput_eps"] for x in runs],
                "alone_throughput_eps": len(stream) / alone_time if alone_time > 0 else None,
                "speedup_vs_opencep_range": [eps / hi, eps / lo],
                "peak_partial_matches": runs[0].metrics["peak_partial_matches"],
                "plan_cost": r.cost, "trivial_cost": r.trivial_cost,
            }
            row["same_matches_as_alone"] = counts == alone_counts
            rows.append(row)
            if args.json:
                print_rows([row], DETECT_COLUMNS, as_json=True)
    if not args.json:
        print(text_table(rows, DETECT_COLUMNS) + "\n")


def search_workload(n: int, seed: int):
    """``n`` patterns of average size 5 over 40 types whose rates span 45x, 15-minute windows,
    MPG density 0.3, no NOT or KL, with selectivities 0.002-0.2 for their predicates (drawn per predicate)."""
    import random

    from cep.pattern import Window
    from cep.statistics import Statistics
    from experiments.workloads.mcep import WorkloadSpec, make_workload

    types = [f"T{i:02d}" for i in range(40)]
    rates = {t: 45 ** (i / 39) for i, t in enumerate(types)}
    # no NOT/KL here: a Kleene variable's power-set count in a 15-minute window dwarfs every other term
    # of the global cost, so the cost (and the gain column) would only show the Kleene patterns
    pats = make_workload(WorkloadSpec(n_patterns=n, avg_size=5, window=Window.seconds(900), density=0.3, special=0.0,
                                      seed=seed), types)
    rng = random.Random(seed)
    stats = []
    for p in pats:
        stats.append(Statistics(rates, {c.key: rng.choice([0.002, 0.01, 0.05, 0.2]) for c in p.conditions}))
    return pats, stats


def run_search(args: argparse.Namespace) -> None:
    from algorithms.multi import plan_workload
    from algorithms.multi.registry import MULTI_PLANNERS
    from experiments.workloads.mcep import measured_density

    pats, stats = search_workload(args.patterns, args.seed)
    rows = []
    if not args.json:
        print(f"Local search: {len(pats)} patterns, average size {sum(len(p.variables) for p in pats) / len(pats):.1f}, "
              f"MPG density {measured_density(pats):.2f}, {args.time_limit:g} s each")
    for name, spec in MULTI_PLANNERS.items():
        if spec is None:
            continue
        t = time.perf_counter()
        r = plan_workload(pats, name, stats, time_limit=args.time_limit, seed=args.seed)
        row = {"part": "search", "planner": name, "patterns": len(pats), "steps": r.search.steps,
               "steps_per_s": r.steps_per_s, "plan_cost": r.cost, "gain_over_trivial": r.trivial_cost / r.cost,
               "start_gain_over_trivial": r.trivial_cost / r.initial_cost, "mpg_edges": r.mpg_edges,
               "wall_s": time.perf_counter() - t}
        rows.append(row)
        if args.json:
            print_rows([row], SEARCH_COLUMNS, as_json=True)
    if not args.json:
        print(text_table(rows, SEARCH_COLUMNS))
