"""``python -m experiments bench motto``: how large a workload MOTTO's exact Steiner search handles
within its budget (MOTTO Section V-B, Figure 14a: "exact ... when optimization process takes less
than the configured time budget (e.g., 5 minutes) ... simulated-annealing-based approximate solution
for larger problem sizes").

Per seed and workload size (Table V workloads, :mod:`algorithms.motto.workloads`, seeded; rates
drawn per type, seeded, in ``[0.1, 1]`` events/s): the sharing graph (vertices, Steiner vertices,
interesting sub-queries, arcs) and the time to build it; our combinatorial branch and bound
(finished within the budget or not, seconds, nodes explored, cost), the MILP branch and bound
(HiGHS; finished or not, seconds, cost) and annealing (seconds, cost), each cost relative to the
trivial plan (every query from ``q_0``).

    python -m experiments bench motto [--sizes 5,10,20,40] [--budget 10] [--seeds 0] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import time

from cep.errors import ConfigError

# What the benchmark runs is imported inside its functions, not here: python -m experiments imports every
# benchmark module to build the parser of bench, and a benchmark pays only for the imports of its own work.

HELP = "MOTTO's Steiner searches: sharing-graph size, exact search within a budget, annealing (MOTTO Fig. 14a)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sizes", default="5,10,20,40", help="workload sizes, comma-separated (default 5,10,20,40)")
    p.add_argument("--budget", type=float, default=10.0, help="seconds for each branch and bound and for annealing (default 10)")
    p.add_argument("--seeds", default="0", help="comma-separated seeds (default 0)")
    p.add_argument("--r", type=float, default=1.0, help="basic workload ratio of Table V (default 1)")
    p.add_argument("--sa-neighbours", type=int, default=20000, help="the annealing's budget in evaluated neighbours (default 20000)")
    p.add_argument("--max-subqueries", type=int, default=2000, help="cap of the interesting sub-query search (default 2000)")
    p.add_argument("--no-combinatorial", action="store_true", help="skip our combinatorial branch and bound")
    p.add_argument("--json", action="store_true", help="print one JSON object per seed and size")


def measure(m: int, *, seed: int = 0, r: float = 1.0, budget_s: float = 10.0, sa_neighbours: int = 20000,
            max_subqueries: int = 2000, combinatorial: bool = True) -> dict:
    """One row: the sharing graph of a Table V workload of ``m`` queries and each search on it
    (the combinatorial branch and bound's entries are None when ``combinatorial`` is false)."""
    from algorithms.motto.graph import build_graph
    from algorithms.motto.steiner import branch_and_bound, milp_branch_and_bound, simulated_annealing
    from algorithms.motto.workloads import table_v_workload
    from cep.statistics import Statistics

    queries = table_v_workload(m, seed=seed, r=r)
    rng = random.Random(seed)
    stats = Statistics({f"E{i}": round(rng.uniform(0.1, 1.0), 3) for i in range(1, 14)})
    t0 = time.perf_counter()
    sg = build_graph(queries, stats, max_subqueries=max_subqueries)
    build_s = time.perf_counter() - t0
    g = sg.graph
    bb = branch_and_bound(g, time_budget_s=budget_s) if combinatorial else None
    mb = milp_branch_and_bound(g, time_budget_s=budget_s)
    sa = simulated_annealing(g, seed=seed, neighbours=sa_neighbours, time_budget_s=budget_s)
    trivial = g.trivial_cost()
    return {
        "seed": seed,
        "queries": m,
        "vertices": g.n,
        "steiner": len(g.steiner),
        "subqueries": sg.n_subqueries,
        "subq_capped": sg.subqueries_capped,
        "arcs": len(g.arcs),
        "build_s": build_s,
        "bb_exact": bb.exact if bb else None,
        "bb_s": bb.seconds if bb else None,
        "bb_nodes": bb.explored if bb else None,
        "bb_cost/trivial": bb.cost / trivial if bb else None,
        "milp_exact": mb.exact,
        "milp_s": mb.seconds,
        "milp_cost/trivial": mb.cost / trivial,
        "sa_s": sa.seconds,
        "sa_neighbours": sa.neighbours,
        "sa_cost/trivial": sa.cost / trivial,
    }


def _ints(text: str, option: str, lo: int) -> list[int]:
    try:
        values = [int(x) for x in text.split(",")]
    except ValueError:
        raise ConfigError(f"{option} takes comma-separated integers, got {text!r}") from None
    if min(values) < lo:
        raise ConfigError(f"{option} takes integers >= {lo}, got {text!r}")
    return values


def main(args: argparse.Namespace) -> int:
    import pandas as pd

    sizes, seeds = _ints(args.sizes, "--sizes", 1), _ints(args.seeds, "--seeds", 0)
    if not args.budget > 0:
        raise ConfigError(f"--budget must be a positive number of seconds, got {args.budget}")
    rows = []
    for seed in seeds:
        for m in sizes:
            row = measure(m, seed=seed, r=args.r, budget_s=args.budget, sa_neighbours=args.sa_neighbours,
                          max_subqueries=args.max_subqueries, combinatorial=not args.no_combinatorial)
            if args.json:
                print(json.dumps(row), flush=True)
            rows.append(row)
    if not args.json:
        print(f"budget {args.budget:g} s, r = {args.r:g}")
        table = pd.DataFrame(rows).dropna(axis=1, how="all")  # without the searches that were skipped
        print(table.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    return 0
