"""How large a workload MOTTO's exact Steiner search handles within its budget (MOTTO Section V-B,
Figure 14a: "exact ... when optimization process takes less than the configured time budget (e.g.,
5 minutes) ... simulated-annealing-based approximate solution for larger problem sizes").

``python -m algorithms.motto.measure --sizes 5,10,20,40 --budget 10`` prints, per workload size
(Table V workloads, :mod:`algorithms.motto.workloads`, seeded): the sharing graph (vertices,
Steiner vertices, arcs), the time to build it, our combinatorial branch and bound (finished
within the budget or not, time, nodes explored, cost), the MILP branch and bound (HiGHS; finished
or not, time, cost), annealing (time, cost), and both costs relative to the trivial
plan (every query from ``q_0``).  Rates are drawn per type, seeded, in ``[0.1, 1]`` events/s.
"""

from __future__ import annotations

import argparse
import random
import time

from cep.statistics import Statistics

from algorithms.motto.graph import build_graph
from algorithms.motto.steiner import branch_and_bound, milp_branch_and_bound, simulated_annealing
from algorithms.motto.workloads import table_v_workload


def measure(
    m: int,
    *,
    seed: int = 0,
    r: float = 1.0,
    budget_s: float = 10.0,
    sa_iterations: int = 20000,
    max_subqueries: int = 2000,
    combinatorial: bool = True,
) -> dict:
    queries = table_v_workload(m, seed=seed, r=r)
    rng = random.Random(seed)
    stats = Statistics({f"E{i}": round(rng.uniform(0.1, 1.0), 3) for i in range(1, 14)})
    t0 = time.perf_counter()
    sg = build_graph(queries, stats, max_subqueries=max_subqueries)
    build_s = time.perf_counter() - t0
    g = sg.graph
    bb = branch_and_bound(g, time_budget_s=budget_s) if combinatorial else None
    mb = milp_branch_and_bound(g, time_budget_s=budget_s)
    sa = simulated_annealing(g, seed=seed, iterations=sa_iterations, time_budget_s=budget_s)
    trivial = g.trivial_cost()
    return {
        "queries": m,
        "vertices": g.n,
        "steiner": len(g.steiner),
        "subqueries": sg.n_subqueries,
        "subq_capped": sg.subqueries_capped,
        "arcs": len(g.arcs),
        "build_s": build_s,
        "bb_exact": bb.exact if bb else "-",
        "bb_s": bb.seconds if bb else "-",
        "bb_nodes": bb.explored if bb else "-",
        "bb_cost/trivial": bb.cost / trivial if bb else "-",
        "milp_exact": mb.exact,
        "milp_s": mb.seconds,
        "milp_cost/trivial": mb.cost / trivial,
        "sa_s": sa.seconds,
        "sa_cost/trivial": sa.cost / trivial,
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m algorithms.motto.measure", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="5,10,20,40", help="workload sizes, comma-separated")
    ap.add_argument("--budget", type=float, default=10.0, help="seconds for branch and bound (and for annealing)")
    ap.add_argument("--seeds", default="0", help="comma-separated seeds")
    ap.add_argument("--r", type=float, default=1.0, help="basic workload ratio")
    ap.add_argument("--sa-iterations", type=int, default=20000)
    ap.add_argument("--max-subqueries", type=int, default=2000, help="cap of the interesting sub-query search")
    ap.add_argument("--no-combinatorial", action="store_true", help="skip our combinatorial branch and bound")
    a = ap.parse_args(argv)
    cols = ["queries", "vertices", "steiner", "subqueries", "subq_capped", "arcs", "build_s", "bb_exact", "bb_s", "bb_nodes", "bb_cost/trivial", "milp_exact", "milp_s", "milp_cost/trivial", "sa_s", "sa_cost/trivial"]
    print(f"budget {a.budget} s, r = {a.r}")
    print("seed " + " ".join(f"{c:>15}" for c in cols))
    for seed in (int(s) for s in a.seeds.split(",")):
        for m in (int(x) for x in a.sizes.split(",")):
            row = measure(m, seed=seed, r=a.r, budget_s=a.budget, sa_iterations=a.sa_iterations, max_subqueries=a.max_subqueries, combinatorial=not a.no_combinatorial)
            cells = [f"{row[c]:>15.3f}" if isinstance(row[c], float) else f"{str(row[c]):>15}" for c in cols]
            print(f"{seed:>4} " + " ".join(cells), flush=True)


if __name__ == "__main__":
    main()
