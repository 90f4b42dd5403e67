"""``python -m experiments bench multi``: multi-pattern detection throughput and search speed (MCEP).

Three parts (``--part detect|dense|search|all``):

* **detect** -- three workloads of 4, 6 and 8 SEQ/AND patterns of 2 to 5 events over the four
  tickers of OpenCEP's ``NASDAQ_MEDIUM.txt``, sharing prefixes and sub-conjunctions, with 1 to 10
  minute windows and look-alikes (``a.high`` vs ``a.low``, SEQ vs AND), on that file repeated 10
  times, copy ``k`` shifted ``k`` days (16,520 events; the issue's reference stream).  Each workload
  runs on the multi-pattern evaluators under TRIVIAL (written orders, nothing shared), DP-B (best
  local trees, nothing shared), SA-EDGE (MPM) and TS-EDGE-PREFIX (MPT), plans from statistics
  estimated on the stream, the stream's columns prepared beforehand.  Per-pattern counts are
  checked against the single-pattern compiled engine (each pattern alone, DP-B, planned and evaluated
  by the JQPG cells' steps); a row that differs is flagged ``MISMATCH``.  Throughput is printed per wall-clock second and per CPU second of the
  process (``time.process_time``; on a shared machine the wall clock of a run of a few
  milliseconds is mostly other processes' time).  Printed beside: OpenCEP's multi-pattern range on
  such workloads as the issue states it (2,300 to 12,000 events/s; OpenCEP is not installed here,
  so no OpenCEP run is made; compared per CPU second), and the engine of an earlier commit
  (``--against``, default f697127, :mod:`experiments.bench.baseline`) run on the same columns and
  the same global plans in a subprocess of the same invocation: its events per CPU second and the
  speed-up over it (the ratio of the medians, CPU time; wall clock beside).
* **dense** -- an MCEP-like workload (:func:`experiments.workloads.mcep.experiment_workload`:
  ``--dense-patterns`` patterns of average size 5, 20% with NOT or KL, predicates calibrated to
  selectivities 0.002-0.88) over NASDAQ's 40-type pool replayed at ``--dense-epw`` events per type
  per 15-minute window (:mod:`experiments.data.replay`), under TRIVIAL and SA-EDGE, both engines
  on the same columns with the same partial-match cap: events/s until the end of the stream or the
  cap (the cap is on live partial matches, which both engines count alike, so a capped run stops at
  the same event in both), and the speed-up.
* **search** -- neighbours evaluated per second by every local search on a workload of ``--patterns`` patterns of
  average size 5 (:mod:`experiments.workloads.mcep`) over 40 types whose rates span 45x, with a
  ``--time-limit`` each.

    python -m experiments bench multi [--part all] [--repeats 3] [--time-limit 5] [--against REV] [--json]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics as pystats
import tempfile
import time
from pathlib import Path

from cep.errors import ConfigError
from experiments.tools.tables import fmt, print_rows, text_table

# What the benchmark runs is imported inside its functions, not here: python -m experiments imports every
# benchmark module to build the parser of bench, and a benchmark pays only for the imports of its own work.

HELP = "multi-pattern detection (events/s per global plan) and local-search neighbours evaluated per second"

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


def _same(same: bool | None) -> str:
    """A count comparison's cell: "-" where none was made (no baseline, or a capped run)."""
    return "-" if same is None else "yes" if same else "MISMATCH"


DETECT_PLANNERS = ("TRIVIAL", "DP-B", "SA-EDGE", "TS-EDGE-PREFIX")
DETECT_COLUMNS = {
    "workload": ("workload", str), "planner": ("planner", str), "evaluator": ("eval", str), "matches": ("matches", fmt(",")),
    "throughput_eps": ("wall ev/s", fmt(",.0f")), "cpu_throughput_eps": ("cpu ev/s", fmt(",.0f")),
    "speedup_vs_opencep_range": ("x OpenCEP", lambda r: f"{r[0]:.1f}-{r[1]:.1f}"),
    "baseline_cpu_throughput_eps": ("base cpu ev/s", fmt(",.0f")), "speedup_vs_baseline": ("x base", fmt(".1f")),
    "wall_speedup_vs_baseline": ("x base wall", fmt(".1f")),
    "peak_partial_matches": ("peak PM", fmt(",")), "work": ("work", fmt(",")),
    "plan_cost": ("cost", fmt(".4g")), "trivial_cost": ("trivial", fmt(".4g")),
    "same_matches_as_alone": ("as alone", _same),
    "same_matches_as_baseline": ("as base", _same),
}
DENSE_COLUMNS = {
    "planner": ("planner", str), "patterns": ("patterns", fmt("d")), "events": ("events", fmt(",")),
    "processed_events": ("processed", fmt(",")), "status": ("status", str), "matches": ("matches", fmt(",")),
    "throughput_eps": ("wall ev/s", fmt(",.0f")), "cpu_throughput_eps": ("cpu ev/s", fmt(",.0f")),
    "baseline_cpu_throughput_eps": ("base cpu ev/s", fmt(",.0f")), "speedup_vs_baseline": ("x base", fmt(".1f")),
    "wall_speedup_vs_baseline": ("x base wall", fmt(".1f")), "peak_partial_matches": ("peak PM", fmt(",")),
    "same_matches_as_baseline": ("as base", _same),
}
SEARCH_COLUMNS = {
    "planner": ("planner", str), "neighbours": ("neighbours", fmt(",")), "neighbours_per_s": ("neighbours/s", fmt(",.0f")),
    "plan_cost": ("cost", fmt(".5g")), "gain_over_trivial": ("gain", fmt(".2f")),
    "start_gain_over_trivial": ("start gain", fmt(".2f")), "mpg_edges": ("edges", fmt("d")),
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--part", choices=("all", "detect", "dense", "search"), default="all", help="which part (default all)")
    p.add_argument("--repeats", type=int, default=3, help="detect: timed runs per case, the median is printed (default 3)")
    p.add_argument("--time-limit", type=float, default=5.0, help="search time per planner in seconds (default 5); "
                   "detect plans with 1 s")
    p.add_argument("--patterns", type=int, default=100, help="search: workload size (default 100, average size 5)")
    p.add_argument("--seed", type=int, default=0, help="seed of workloads, statistics sampling and searches")
    p.add_argument("--against", default=None, help="the earlier commit whose engine the speed-ups are measured "
                   "against (default f697127; 'none' skips it)")
    p.add_argument("--dense-patterns", type=int, default=30, help="dense: workload size (default 30)")
    p.add_argument("--dense-epw", type=float, default=300.0,
                   help="dense: events per type per 15-minute window of the median type (default 300)")
    p.add_argument("--dense-windows", type=float, default=0.3, help="dense: stream length in windows (default 0.3)")
    p.add_argument("--dense-cap", type=int, default=1_000_000, help="dense: live partial-match cap (default 1,000,000)")
    p.add_argument("--json", action="store_true", help="print one JSON object per row")


def main(args: argparse.Namespace) -> int:
    if args.repeats < 1:
        raise ConfigError(f"--repeats must be >= 1, got {args.repeats}")
    if args.part in ("all", "detect"):
        run_detect(args)
    if args.part in ("all", "dense"):
        run_dense(args)
    if args.part in ("all", "search"):
        run_search(args)
    return 0



#: the earlier commit's side of a comparison (run with that commit's code, experiments.bench.baseline):
#: each case's global plan rebuilt from its local plans, run ``repeats`` times on the saved columns
BASELINE_SCRIPT = """
import time
from cep.errors import EvaluationLimitError
from cep.global_plans import build_global_plan, workload_clauses
from cep.parser import parse_patterns
from cep.plans import OrderPlan, TreePlan
from evaluators.multi import compile_workload

payload = json.loads(sys.stdin.read())
stream = load_columns(payload["columns"]).to_stream()


def tree(x):
    return tuple(tree(y) for y in x) if isinstance(x, list) else x


out = []
for case in payload["cases"]:
    pats = parse_patterns(case["patterns"])
    clauses = workload_clauses(pats)
    plans = {tuple(o): OrderPlan(tuple(p)) if case["kind"] == "order" else TreePlan(tree(p)) for o, p in case["plans"]}
    g = build_global_plan(case["kind"], clauses, plans, share=case["share"])
    rt = compile_workload(pats, g)
    runs = []
    for _ in range(case["repeats"]):
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            m = rt.run(stream, collect_matches=False, max_partial_matches=case["cap"]).metrics
            runs.append({"elapsed_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0,
                         "counts": m["matches_by_pattern"], "status": "completed"})
        except EvaluationLimitError as e:
            runs.append({"elapsed_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0, "counts": None,
                         "status": type(e).__name__})
    out.append(runs)
print(json.dumps({"cases": out}))
"""


def _case(name: str, planner: str, patterns, gplan, repeats: int, cap: int | None) -> dict | None:
    """A global plan as the baseline script rebuilds it (None: a plan it cannot rebuild -- one that
    shares only some equal nodes or computes weakened sub-trees)."""
    from cep.pattern import format_pattern

    if gplan.shared_masks is not None or gplan.weak:
        return None
    return {"name": name, "planner": planner, "patterns": "\n".join(format_pattern(p) for p in patterns),
            "kind": gplan.kind, "share": gplan.share, "repeats": repeats, "cap": cap,
            "plans": [[list(o), pl.to_json()] for o, pl in sorted(gplan.plans.items())]}


def _baseline(cols, cases: list[dict | None], rev: str | None) -> list[list[dict] | None]:
    """The earlier engine's runs of every case (None where there is no baseline)."""
    if rev is None or all(c is None for c in cases):
        return [None] * len(cases)
    from experiments.bench.baseline import run_at_revision, save_columns

    with tempfile.TemporaryDirectory() as tmp:
        path = save_columns(cols, Path(tmp) / "stream.npz")
        todo = [c for c in cases if c is not None]
        got = iter(run_at_revision(BASELINE_SCRIPT, {"columns": str(path), "cases": todo}, rev)["cases"])
    return [next(got) if c is not None else None for c in cases]


def _revision(args) -> str | None:
    from experiments.bench.baseline import BASELINE_REVISION

    rev = args.against or BASELINE_REVISION
    return None if rev.lower() == "none" else rev


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def run_detect(args: argparse.Namespace) -> None:
    from algorithms.multi import plan_workload
    from cep.parser import parse_patterns
    from evaluators.multi import compile_workload
    from experiments.bench.opencep import reference_stream
    from experiments.data.statistics import estimate_statistics, estimate_workload_statistics
    from experiments.exps.jqpg import evaluate_step, plan_step

    cols = reference_stream()
    stream = cols.to_stream()
    lo, hi = OPENCEP_MULTI_RANGE
    rev = _revision(args)
    if not args.json:
        print(f"Multi-pattern detection: NASDAQ_MEDIUM x10 ({len(stream):,} events), the stream's columns prepared "
              f"beforehand, median of {args.repeats} runs; OpenCEP's multi-pattern mode: {lo:,.0f}-{hi:,.0f} events/s "
              f"(issue); baseline: {rev or 'none'}; load {_load()}")
    rows, cases = [], []
    for name, text in WORKLOADS.items():
        pats = parse_patterns(text)
        stats = estimate_workload_statistics(stream, pats, seed=args.seed)
        alone_counts = []
        for p in pats:  # each pattern alone, as a JQPG cell plans and evaluates it
            st = estimate_statistics(stream, [p], seed=args.seed)
            alone_counts.append(evaluate_step(p, plan_step(p, "DP-B", st, seed=args.seed).plan, cols, evaluator="tree").metrics["matches"])
        for planner in DETECT_PLANNERS:
            r = plan_workload(pats, planner, stats, time_limit=1.0, seed=args.seed)
            rt = compile_workload(pats, r.plan)
            arrays = rt.prepare(cols)
            runs, walls, cpus = [], [], []
            for _ in range(args.repeats):
                t0, c0 = time.perf_counter(), time.process_time()
                runs.append(rt.run(arrays, collect_matches=False, max_partial_matches=1_000_000))
                walls.append(time.perf_counter() - t0)
                cpus.append(time.process_time() - c0)
            eps = len(stream) / pystats.median(walls)
            cpu_eps = len(stream) / pystats.median(cpus)
            counts = runs[0].counts
            rows.append({
                "part": "detect", "workload": name, "patterns": len(pats), "planner": planner,
                "evaluator": runs[0].evaluator, "events": len(stream), "matches": sum(counts),
                "matches_by_pattern": counts, "alone_matches_by_pattern": alone_counts,
                "throughput_eps": eps, "cpu_throughput_eps": cpu_eps, "elapsed_s_runs": walls, "cpu_s_runs": cpus,
                "speedup_vs_opencep_range": [cpu_eps / hi, cpu_eps / lo],
                "speedup_vs_opencep_mid": cpu_eps / math.sqrt(lo * hi),
                "peak_partial_matches": runs[0].metrics["peak_partial_matches"], "work": runs[0].metrics["work"],
                "plan_cost": r.cost, "trivial_cost": r.trivial_cost, "same_matches_as_alone": counts == alone_counts,
            })
            cases.append(_case(name, planner, pats, r.plan, args.repeats, 1_000_000))
    for row, base in zip(rows, _baseline(cols, cases, rev)):
        _add_baseline(row, base, rev)
        if args.json:
            print_rows([row], DETECT_COLUMNS, as_json=True)
    if not args.json:
        print(text_table(rows, DETECT_COLUMNS))
        mids = [r["speedup_vs_opencep_mid"] for r in rows]
        ratios = [r["speedup_vs_baseline"] for r in rows if r.get("speedup_vs_baseline")]
        print(f"events/s per CPU second (process time: what a machine with a free core gives) against OpenCEP at the "
              f"range's geometric middle ({math.sqrt(lo * hi):,.0f} events/s): median {pystats.median(mids):.1f}x, best "
              f"{max(mids):.1f}x"
              + (f"; x {rev} (CPU time): median {pystats.median(ratios):.1f}, range {min(ratios):.1f}-{max(ratios):.1f}"
                 if ratios else "") + f"; load {_load()}\n")


def _add_baseline(row: dict, base: list[dict] | None, rev: str | None) -> None:
    """The earlier engine's events/s (median of its runs), the speed-up over it and whether it counted
    the same matches."""
    if not base:
        return
    row["baseline_revision"] = rev
    row["baseline_status"] = base[0]["status"]
    row["baseline_elapsed_s_runs"] = [b["elapsed_s"] for b in base]
    row["baseline_cpu_s_runs"] = [b["cpu_s"] for b in base]
    processed = row.get("processed_events", row["events"])
    el = pystats.median(b["elapsed_s"] for b in base)
    cpu = pystats.median(b["cpu_s"] for b in base)
    row["baseline_throughput_eps"] = processed / el if el > 0 else None
    row["baseline_cpu_throughput_eps"] = processed / cpu if cpu > 0 else None
    if row["baseline_throughput_eps"] and row.get("throughput_eps"):
        row["wall_speedup_vs_baseline"] = row["throughput_eps"] / row["baseline_throughput_eps"]
    if row["baseline_cpu_throughput_eps"] and row.get("cpu_throughput_eps"):
        row["speedup_vs_baseline"] = row["cpu_throughput_eps"] / row["baseline_cpu_throughput_eps"]
    if base[0]["counts"] is not None:
        row["same_matches_as_baseline"] = base[0]["counts"] == row["matches_by_pattern"]


def dense_workload(args: argparse.Namespace):
    """The dense part's stream (columns), type pool and workload (module docstring)."""
    from experiments.data.datasets import dataset_config
    from experiments.data.streams import experiment_stream, raw_stream
    from experiments.exps.kit import type_pool
    from experiments.workloads.mcep import experiment_workload

    dcfg = dataset_config("nasdaq")
    probe = {"dataset": {"name": "nasdaq", "path": str(dcfg["path"]), "format": dcfg.get("format", "auto")},
             "start": None, "end": None}
    pool = type_pool(raw_stream(probe), 40, 20)
    spec = {**probe, "pool": pool, "seed": args.seed,
            "replay": {"window_seconds": 900.0, "events_per_window": float(args.dense_epw), "rate_ratio": 45.0,
                       "windows": float(args.dense_windows)}}
    stream = experiment_stream(spec)
    params = {"workload_size": args.dense_patterns, "pattern_size": 5, "window": 900, "density": 0.3, "rate_diff": 1.0,
              "structure": "mixed", "special": 0.2, "kleene_max": 2, "selectivity_range": [0.002, 0.88]}
    patterns = experiment_workload(params, pool, stream, seed=args.seed)
    return stream, pool, patterns


def run_dense(args: argparse.Namespace) -> None:
    from algorithms.multi import plan_workload
    from cep.errors import EvaluationLimitError
    from evaluators.multi import compile_workload
    from experiments.data.replay import replay_regime
    from experiments.data.statistics import estimate_workload_statistics

    stream, pool, patterns = dense_workload(args)
    regime = replay_regime(stream, pool, 900.0)
    rev = _revision(args)
    if not args.json:
        epw = regime.get("events_per_type_per_window", {})
        print(f"Dense MCEP-like workload: {len(patterns)} patterns of average size 5 over NASDAQ's {len(pool)}-type pool "
              f"replayed at {args.dense_epw:,.0f} events per type per 15-minute window (measured: {epw}); "
              f"{len(stream):,} events; partial-match cap {args.dense_cap:,}; median of {args.repeats} runs; "
              f"baseline: {rev or 'none'}; load {_load()}")
    stats = estimate_workload_statistics(stream, patterns, seed=args.seed)
    rows, cases = [], []
    for planner in ("TRIVIAL", "SA-EDGE"):
        r = plan_workload(patterns, planner, stats, time_limit=2.0, seed=args.seed)
        rt = compile_workload(patterns, r.plan)
        arrays = rt.prepare(stream)
        runs, cpus, status, processed, res = [], [], "completed", len(stream), None
        for _ in range(args.repeats):
            t0, c0 = time.perf_counter(), time.process_time()
            try:
                res = rt.run(arrays, collect_matches=False, max_partial_matches=args.dense_cap)
            except EvaluationLimitError as e:
                status, processed = type(e).__name__, e.processed
            runs.append(time.perf_counter() - t0)
            cpus.append(time.process_time() - c0)
        el, cpu = pystats.median(runs), pystats.median(cpus)
        row = {"part": "dense", "planner": planner, "patterns": len(patterns), "events": len(stream),
               "processed_events": processed, "status": status, "throughput_eps": processed / el if el > 0 else None,
               "cpu_throughput_eps": processed / cpu if cpu > 0 else None, "elapsed_s_runs": runs, "cpu_s_runs": cpus,
               "plan_cost": r.cost,
               "matches": sum(res.counts) if res else None, "matches_by_pattern": res.counts if res else None,
               "peak_partial_matches": res.metrics["peak_partial_matches"] if res else None}
        rows.append(row)
        cases.append(_case("dense", planner, patterns, r.plan, args.repeats, args.dense_cap))
    for row, base in zip(rows, _baseline(stream, cases, rev)):
        _add_baseline(row, base, rev)
        if row.get("baseline_status") not in (None, row["status"]):
            row["status"] += f" (base: {row['baseline_status']})"
        if args.json:
            print_rows([row], DENSE_COLUMNS, as_json=True)
    if not args.json:
        print(text_table(rows, DENSE_COLUMNS) + f"\nload {_load()}\n")


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
        row = {"part": "search", "planner": name, "patterns": len(pats), "neighbours": r.search.neighbours,
               "neighbours_per_s": r.neighbours_per_s, "plan_cost": r.cost, "gain_over_trivial": r.trivial_cost / r.cost,
               "start_gain_over_trivial": r.trivial_cost / r.initial_cost, "mpg_edges": r.mpg_edges,
               "wall_s": time.perf_counter() - t}
        rows.append(row)
        if args.json:
            print_rows([row], SEARCH_COLUMNS, as_json=True)
    if not args.json:
        print(text_table(rows, SEARCH_COLUMNS))
