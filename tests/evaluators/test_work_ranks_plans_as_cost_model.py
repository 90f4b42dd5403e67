"""Does deterministic work rank plans as the cost model does?  Over many distinct plans of one pattern
(one workload, for the multi-pattern evaluator), the Spearman rank correlation between the plan's cost
(the project's cost model, statistics measured on the same stream) and what the evaluator counts: its
``work`` (join candidates examined, :mod:`cep.metrics`), its peak live partial matches and (single-pattern
evaluators) the partial matches it created (``partial_matches_created``, :mod:`evaluators.kernel`).

The report judges plan-quality claims on ``work`` beside throughput (experiments/reporting: the rows
"(work: join candidates examined)"), so how far work follows the planned cost matters.  Measured on the
stream below (seed 3, rates 0.5-8 events/s, 40 random plans per single-pattern evaluator, 16 per
multi-pattern kind):

* lazy NFA, random orders, Cost_ord against work: rho = 0.90 (peak partial matches: 0.94, partial
  matches created: 0.85);
* tree evaluator, random trees, Cost_tree against work: rho = 0.87 (peak partial matches: 0.93, partial
  matches created: 0.87) -- it was 0.33 while a join counted every entry of the sibling list it scanned
  (expired entries, and those the SEQ order rules out, included); the engine now examines only the
  candidates the window and the SEQ order allow (:mod:`evaluators.kernel`, "Candidates"), the pairs
  the cost model counts before the conditions' selectivities;
* multi-pattern evaluator, random shared plans, Cost^multi against work: rho = 0.13 for MPTs of orders
  and -0.71 for MPMs of trees (peak partial matches: 0.91 and 0.92; partial matches created: 0.89 and
  0.96), with the join of evaluators/multi examining only the candidates its window and SEQ order allow
  and answering an equality or one order comparison between the two sides from an index (0.17 and
  -0.54 when every join read the whole sibling list).

In the multi-pattern runtime a join reads only the candidates within its window and SEQ bounds, or an
index hit, yet Cost^multi (MCEP 3.3: #inst; Appendix C: sum of C(N) = C(L) C(R) sel) counts a node's
outputs, and a join's candidates are its outputs over the selectivity of what no search or index
decides (the conditions beyond the indexed one, SEQ pairs between slots that are not a sibling's
latest, the window on a sibling's oldest event): 1 to 5 times the outputs per node here (the bushy root
((d, b), (e, c)) of SEQ(b, c, d, e) reads 5 candidates per match), while the 16 plans' costs differ by
25%, mostly through nodes below the roots.  MCEP's per-event cost CP(T) (Section 3.3) counts the
instances traversed as well; the paper takes #inst as its proxy.  The multi-pattern case is kept as a
strict expected failure: it documents the measured gap and fails as soon as work starts ranking those
plans as the cost model does.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from scipy.stats import spearmanr

from algorithms import plan_log_cost
from algorithms.multi.costs import cost_multi, workload_models
from cep.columnar import EventColumns
from cep.dnf import to_dnf
from cep.global_plans import build_global_plan, workload_clauses
from cep.parser import parse_pattern
from cep.plans import OrderPlan, PatternPlan, TreePlan
from evaluators import compile_evaluator
from evaluators.multi import evaluate_workload
from evaluators import runtime
from experiments.data.statistics import (
    estimate_statistics,
    estimate_workload_statistics,
)
from experiments.data.synthetic import Distribution, TypeSpec, generate_stream

RATES = {"A": 0.5, "B": 1.0, "C": 2.0, "D": 4.0, "E": 8.0}
PATTERN = "PATTERN SEQ(A a, B b, C c, D d, E e) WHERE a.x < b.x AND c.x < d.x AND d.x < e.x WITHIN 4 seconds"
WORKLOAD = (
    "PATTERN SEQ(A a, B b, C c, D d) WHERE a.x < b.x AND c.x < d.x WITHIN 4 seconds",
    "PATTERN SEQ(A a, B b, C c, E e) WHERE a.x < b.x AND c.x < e.x WITHIN 4 seconds",
    "PATTERN SEQ(B b, C c, D d, E e) WHERE d.x < e.x WITHIN 4 seconds",
)
#: the floor of a rank correlation called high: under the measured 0.86-0.94 above, over the largest of
#: 200 shuffles of each cost list (0.57 with 40 plans, 0.78 with 16)
HIGH = 0.8


@pytest.fixture(scope="module")
def stream():
    spec = {t: TypeSpec(r, {"x": Distribution("normal", 0, 1)}, None) for t, r in RATES.items()}
    return generate_stream(spec, duration=150.0, seed=3).to_stream()  # event objects, as the checks below read them


def random_tree(rng: random.Random, leaves: list[str]):
    if len(leaves) == 1:
        return leaves[0]
    k = rng.randrange(1, len(leaves))
    return (random_tree(rng, leaves[:k]), random_tree(rng, leaves[k:]))


def random_plan(rng: random.Random, variables, kind: str):
    v = list(variables)
    rng.shuffle(v)
    return OrderPlan(tuple(v)) if kind == "order" else TreePlan(random_tree(rng, v))


def distinct_plans(kind: str, variables, n: int, seed: int = 7) -> list:
    rng, plans = random.Random(seed), set()
    while len(plans) < n:
        plans.add(random_plan(rng, variables, kind))
    return sorted(plans, key=str)


def rank_agreement(costs: list[float], counts: list[float]) -> float:
    rho = spearmanr(costs, counts).correlation
    shuffled = random.Random(0).sample(costs, len(costs))
    assert spearmanr(shuffled, counts).correlation < HIGH, "a shuffled cost list must not pass"
    return rho


class Counts:
    """The counts of one run: ``work``, ``peak`` (live partial matches) and ``partial_matches_created()``."""

    def __init__(self, out: runtime.Outcome) -> None:
        self.work = out["C_WORK"]
        self.peak = out["C_PEAK"]
        self._created = out["C_CREATED"]

    def partial_matches_created(self) -> int:
        return self._created


def run(pattern, plan, evaluator: str, stream) -> Counts:
    """One untimed run of the compiled evaluator."""
    program = compile_evaluator(pattern, PatternPlan((plan,)), evaluator)
    data = runtime.prepare(program, EventColumns.from_events(stream))
    return Counts(runtime.run(program, data, cap=float("inf"), work_cap=float("inf"), collect=False))


def single_pattern(stream, evaluator: str, kind: str) -> tuple[list[float], list[float], list[float], list[float]]:
    """(planned cost, work, peak partial matches, partial matches created) of 40 distinct random plans of PATTERN."""
    p = parse_pattern(PATTERN)
    stats = estimate_statistics(stream, [p])
    sp = to_dnf(p)[0]
    costs, work, peak, created = [], [], [], []
    for plan in distinct_plans(kind, sp.positive, 40):
        costs.append(plan_log_cost(sp, plan, stats))
        rt = run(p, plan, evaluator, stream)
        work.append(rt.work)
        peak.append(rt.peak)
        created.append(rt.partial_matches_created())
    assert max(work) > 2 * min(work), "the plans must differ in work"
    return costs, work, peak, created


def multi_pattern(stream, kind: str) -> tuple[list[float], list[float], list[float], list[float]]:
    """(Cost^multi, work, peak partial matches, partial matches created) of 16 distinct global plans of
    WORKLOAD: a random local plan per pattern, common sub-plans shared."""
    patterns = [parse_pattern(t) for t in WORKLOAD]
    clauses = workload_clauses(patterns)
    models = workload_models(clauses, estimate_workload_statistics(stream, patterns, seed=0))
    rng, seen = random.Random(7), set()
    costs, work, peak, created = [], [], [], []
    while len(costs) < 16:
        plans = {o: random_plan(rng, sp.positive, kind) for o, sp in clauses.items()}
        key = tuple(sorted((str(o), str(p)) for o, p in plans.items()))
        if key in seen:
            continue
        seen.add(key)
        g = build_global_plan(kind, clauses, plans, share=True)
        m = evaluate_workload(patterns, g, stream, collect_matches=False).metrics
        costs.append(cost_multi(g, models))
        work.append(m["work"])
        peak.append(m["peak_partial_matches"])
        created.append(m["partial_matches_created"])
    return costs, work, peak, created


@pytest.fixture(scope="module")
def nfa_runs(stream):
    return single_pattern(stream, "nfa", "order")


def test_lazy_nfa_work_ranks_orders_as_cost_ord(nfa_runs):
    costs, work, _, _ = nfa_runs
    assert rank_agreement(costs, work) >= HIGH


def test_lazy_nfa_partial_matches_created_rank_orders_as_cost_ord(nfa_runs):
    costs, _, _, created = nfa_runs
    assert rank_agreement(costs, created) >= HIGH


@pytest.fixture(scope="module")
def tree_runs(stream):
    return single_pattern(stream, "tree", "tree")


def test_tree_partial_matches_rank_trees_as_cost_tree(tree_runs):
    costs, _, peak, created = tree_runs
    assert rank_agreement(costs, peak) >= HIGH
    assert rank_agreement(costs, created) >= HIGH


def test_tree_work_ranks_trees_as_cost_tree(tree_runs):
    costs, work, _, _ = tree_runs
    assert rank_agreement(costs, work) >= HIGH


@pytest.fixture(scope="module", params=["order", "tree"])
def multi_runs(request, stream):
    return request.param, multi_pattern(stream, request.param)


def test_multi_pattern_partial_matches_rank_global_plans_as_cost_multi(multi_runs):
    _, (costs, _, peak, created) = multi_runs
    assert rank_agreement(costs, peak) >= HIGH
    assert rank_agreement(costs, created) >= HIGH


@pytest.mark.xfail(strict=True, reason="measured rho = 0.13 (MPT) and -0.71 (MPM): a join's candidates are its "
                   "outputs over the selectivity of the checks no search or index decides (module doc)")
def test_multi_pattern_work_ranks_global_plans_as_cost_multi(multi_runs):
    _, (costs, work, _, _) = multi_runs
    assert spearmanr(costs, work).correlation >= HIGH


def test_partial_matches_created_counts_every_stored_instance(stream):
    """The count of the runtime against a brute-force count: under the order (a, b, c) of SEQ(A, B, C)
    the only stored partial matches are the (a, b) pairs in order within the window, under (c, b, a)
    the (b, c) pairs (expired ones included: the count is of instances created, not live)."""
    p = parse_pattern("PATTERN SEQ(A a, B b, C c) WITHIN 4 seconds")
    ts = {t: np.array([e.ts for e in stream if e.type == t]) for t in "ABC"}

    def pairs(first: str, second: str) -> int:
        d = ts[second][None, :] - ts[first][:, None]
        return int(((d > 0) & (d <= 4)).sum())

    assert run(p, OrderPlan(("a", "b", "c")), "nfa", stream).partial_matches_created() == pairs("A", "B")
    assert run(p, OrderPlan(("c", "b", "a")), "nfa", stream).partial_matches_created() == pairs("B", "C")
    assert pairs("A", "B") != pairs("B", "C")
