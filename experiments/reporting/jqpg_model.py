"""JQPG's cost model on the stored cells: the plans of every cell re-planned from the pattern and statistics
its specification stores (``cells.jsonl.gz``), at our density and at the paper's, for the diagnosis of a
claim that does not hold (:mod:`experiments.reporting.diagnosis`).

A cell's specification holds its pattern (text, selection strategy), its statistics (arrival rates and
selectivities), its planner, alpha, seed and the planner's parameters: :func:`plan_facts` plans it again
with :func:`algorithms.planning.plan_pattern` and keeps the costs a diagnosis needs -- the throughput cost
of the plan's kind under the pattern's selection strategy (Cost_ord, Cost_tree, or JQPG 5.2's next-match
and contiguity models), the latency cost (JQPG 5.1) and Cost_tree (an order taken as its left-deep tree,
the scale on which order and tree plans compare; JQPG 3.2).  At the paper's density every arrival rate is
multiplied by one factor per dataset, the paper's events of the median type per window (its rates of 1-45
events/s over its window, from the run's ``metadata.json``) over ours: the selectivities stay.  Nothing
else is read: no config, no data file.  Only the cells a claim asks about are re-planned (its algorithms and
rows, :meth:`JqpgModel.facts`); re-plans are memoized for the process by cell specification and density
(Figures 3 and 4 plan the same patterns), and a batch of :data:`PARALLEL_MIN` or more new ones is spread over
the cores this process may use, largest patterns first (DP-B over 20 events takes seconds a plan).  A
re-plan at our density that differs from the stored plan is counted and shown (the planners changed since
the run).
"""

from __future__ import annotations

import gzip
import json
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

from algorithms.cost_model import ClauseCostModel
from algorithms.costs import clause_cost, plan_log_cost
from algorithms.planning import answer_clause
from algorithms.registry import get_planner
from cep.dnf import to_dnf
from cep.parser import parse_pattern
from cep.pattern import Strategy
from cep.plans import OrderPlan, PatternPlan, TreePlan, left_deep_tree
from cep.statistics import Statistics

#: a unit of JQPG's paired comparisons: one pattern on one stream, at one alpha and strategy
UNIT = ["dataset", "pattern_id", "alpha", "strategy"]
#: the fewest new re-plans worth spreading over worker processes (each worker imports the planners first)
PARALLEL_MIN = 32


@dataclass(frozen=True)
class PlanFacts:
    """The re-planned plan of one cell and its costs (natural logs, summed over DNF clauses; the latency
    the largest clause's)."""

    plan: str
    kind: str
    log_trpt: float
    log_lat: float
    log_tree: float


def _logsum(xs) -> float:
    xs = [x for x in xs if x > -math.inf]
    if not xs:
        return -math.inf
    top = max(xs)
    return top + math.log(sum(math.exp(x - top) for x in xs))


@lru_cache(maxsize=None)
def _pattern(text: str, strategy: str | None, partition: str | None):
    """A stored cell's pattern under its selection strategy (parsed once per process)."""
    p = parse_pattern(text)
    return replace(p, strategy=Strategy(strategy), partition_attribute=partition) if strategy else p


def plan_facts(pattern: str, strategy: str | None, partition: str | None, algorithm: str, alpha: float, seed: int,
               params: str, stats: str, factor: float) -> PlanFacts:
    """One cell re-planned on its statistics with every rate times ``factor`` (its arguments are the cell's
    specification, JSON where structured, the key :func:`replan` memoizes it by): each DNF clause planned as
    :func:`algorithms.planning.plan_clauses` plans it, with a fresh planner under the cell's seed."""
    p = _pattern(pattern, strategy, partition)
    d = json.loads(stats)
    st = Statistics({t: r * factor for t, r in d["rates"].items()}, d.get("selectivities") or {}, source="stored cell")
    planner = get_planner(algorithm, seed=seed, **json.loads(params))
    plans, trpt, lat, tree = [], [], [], []
    for sp in to_dnf(p):
        model = ClauseCostModel(sp, st, alpha=alpha)
        plan = answer_clause(algorithm, planner, model).plan
        cost = clause_cost(model, plan)
        plans.append(plan)
        trpt.append(cost.log_throughput)
        lat.append(cost.log_latency)
        t = TreePlan(left_deep_tree(plan.order)) if isinstance(plan, OrderPlan) else plan
        tree.append(plan_log_cost(sp, t, st))
    return PlanFacts(str(PatternPlan(tuple(plans))), planner.kind, _logsum(trpt), max(lat), _logsum(tree))


#: every re-plan of this process, by :func:`plan_facts`'s arguments
_REPLANS: dict[tuple, PlanFacts] = {}


def replan(keys: Iterable[tuple], sizes: Iterable[float] = ()) -> list[PlanFacts]:
    """:func:`plan_facts` of every key (its arguments), memoized for the process; the new ones in worker
    processes when there are :data:`PARALLEL_MIN` or more and this process may use several cores, the largest
    (``sizes``, the patterns' event counts beside ``keys``) dispatched first so that no worker is left with a
    long plan at the end.  The results do not depend on where a plan ran: a planner is deterministic under
    its seed."""
    keys = list(keys)
    size_of = {k: float(n) for k, n in zip(keys, sizes) if n is not None and math.isfinite(float(n))}
    new = [k for k in dict.fromkeys(keys) if k not in _REPLANS]
    workers = min(len(os.sched_getaffinity(0)), len(new)) if hasattr(os, "sched_getaffinity") else 1
    if len(new) >= PARALLEL_MIN and workers > 1:
        new.sort(key=lambda k: -size_of.get(k, 0.0))
        done = Parallel(n_jobs=workers)(delayed(plan_facts)(*k) for k in new)
    else:
        done = [plan_facts(*k) for k in new]
    _REPLANS.update(zip(new, done))
    return [_REPLANS[k] for k in keys]


def replan_key(spec: dict, factor: float) -> tuple:
    """:func:`plan_facts`'s arguments for a cell specification at a density ``factor``."""
    return (spec["pattern"], spec.get("strategy"), spec.get("partition_attribute"), spec["algorithm"],
            float(spec.get("alpha", 0.0)), int(spec.get("seed", 0)), json.dumps(spec.get("params") or {}, sort_keys=True),
            json.dumps(spec["stats"], sort_keys=True), float(factor))


def read_cells(exp_dir: Path) -> list[dict]:
    """The cell specifications of a results folder (``cells.jsonl.gz``); empty when there is none."""
    path = Path(exp_dir) / "cells.jsonl.gz"
    if not path.exists():
        return []
    with gzip.open(path, "rt") as f:
        return [json.loads(line) for line in f if line.strip()]


def density_factor(dataset_facts: dict) -> float | None:
    """The paper's events of the median type per window over ours (``metadata.json``'s facts of a dataset:
    ``events_per_type_per_window`` and ``paper_regime``); None when either is missing."""
    ours = (dataset_facts.get("events_per_type_per_window") or {}).get("median")
    paper = dataset_facts.get("paper_regime") or {}
    rates, window = paper.get("rates_eps"), paper.get("window_seconds")
    if not ours or not rates or not window:
        return None
    return float(math.sqrt(rates[0] * rates[1]) * window / ours)


class JqpgModel:
    """The cost model of one JQPG experiment's stored cells (module docstring)."""

    def __init__(self, exp_dir: Path, meta: dict, table: pd.DataFrame):
        specs = [s for s in read_cells(exp_dir) if s.get("pattern") and s.get("stats")]
        self.specs = pd.DataFrame({
            "cell_id": [s["cell_id"] for s in specs],
            "dataset": [s["dataset"]["name"] for s in specs],
            "pattern_id": [s["pattern_id"] for s in specs],
            "size": [s.get("size") for s in specs],
            "workload": [s.get("workload") for s in specs],
            "algorithm": [s["algorithm"] for s in specs],
            "alpha": [float(s.get("alpha", 0.0)) for s in specs],
            "strategy": [s.get("strategy") or Strategy.ANY.value for s in specs],
            "spec": specs,
        })
        stored = table.dropna(subset=["plan"]).drop_duplicates("cell_id").set_index("cell_id")["plan"] if len(table) else pd.Series(dtype=str)
        self.specs["stored_plan"] = self.specs["cell_id"].map(stored)
        self.factors = {ds: density_factor(f) for ds, f in (meta.get("datasets") or {}).items()}
        self.paper_epw = {ds: math.sqrt(f["paper_regime"]["rates_eps"][0] * f["paper_regime"]["rates_eps"][1]) * f["paper_regime"]["window_seconds"]
                          for ds, f in (meta.get("datasets") or {}).items() if (f.get("paper_regime") or {}).get("rates_eps")}

    @property
    def available(self) -> bool:
        return not self.specs.empty

    def paper_available(self, datasets) -> bool:
        return all(self.factors.get(ds) for ds in datasets)

    def facts(self, algorithms, *, paper: bool, where: pd.Series | None = None) -> pd.DataFrame:
        """The cells of ``algorithms`` (rows of ``where`` only) re-planned at our density or the paper's: the
        cell's keys and :class:`PlanFacts` as columns, and ``same`` (the re-plan at our density equals the
        stored plan).  Only these cells are planned (:func:`replan` memoizes them)."""
        s = self.specs
        if where is not None:
            s = s[where.reindex(s.index, fill_value=False).to_numpy(dtype=bool)]
        s = pd.concat([s[s["algorithm"] == a] for a in sorted(set(algorithms))]) if len(set(algorithms)) else s.iloc[:0]
        factor = s["dataset"].map(lambda ds: self.factors.get(ds) or math.nan) if paper else pd.Series(1.0, index=s.index)
        s = s[np.isfinite(factor.to_numpy(dtype=float))]
        got = replan((replan_key(r.spec, f) for r, f in zip(s.itertuples(index=False), factor[s.index])), s["size"].tolist())
        rows = [(r.cell_id, r.dataset, r.pattern_id, r.alpha, r.strategy, r.size, r.workload, r.algorithm, f.plan, f.kind,
                 f.log_trpt, f.log_lat, f.log_tree, (not paper) and f.plan == r.stored_plan)
                for r, f in zip(s.itertuples(index=False), got)]
        return pd.DataFrame(rows, columns=["cell_id", *UNIT, "size", "workload", "algorithm", "plan", "kind", "log_trpt",
                                           "log_lat", "log_tree", "same"])

    def ratios(self, num: str, den: str, *, paper: bool, measure: str = "throughput", where: pd.Series | None = None) -> pd.DataFrame:
        """Per unit (index :data:`UNIT`), the model's predicted effect of ``num`` over ``den`` (``ratio``:
        ``den``'s cost over ``num``'s, a throughput or memory ratio in favour of ``num``) and the pattern's
        ``size``; the throughput cost of their kind when both are of one kind, else Cost_tree;
        ``measure="latency"`` compares the latency costs."""
        f = self.facts({num, den}, paper=paper, where=where)
        if f.empty:
            return pd.DataFrame(columns=["ratio", "size"])
        a = f[f["algorithm"] == num].set_index(UNIT)
        b = f[f["algorithm"] == den].set_index(UNIT)
        j = a.join(b, lsuffix="_n", rsuffix="_d", how="inner")
        if j.empty:
            return pd.DataFrame(columns=["ratio", "size"])
        if measure == "latency":
            col_n, col_d = j["log_lat_n"], j["log_lat_d"]
        else:
            same_kind = j["kind_n"] == j["kind_d"]
            col_n = j["log_trpt_n"].where(same_kind, j["log_tree_n"])
            col_d = j["log_trpt_d"].where(same_kind, j["log_tree_d"])
        r = np.exp((col_d - col_n).clip(-700, 700))
        return pd.DataFrame({"ratio": r.where(np.isfinite(r)), "size": j["size_n"], "workload": j["workload_n"]}, index=j.index)

    def note(self, paper: bool, datasets, algorithms=None) -> str:
        """What a model line says beside its effect: at our density, how many re-plans differ from the
        stored plans; at the paper's, the factor the rates were scaled by."""
        if paper:
            parts = [f"{ds}: rates x{self.factors[ds]:,.0f}, {self.paper_epw.get(ds, math.nan):,.0f} events of the median type per window"
                     for ds in sorted(datasets) if self.factors.get(ds)]
            return "; ".join(parts)
        f = self.facts(algorithms or set(self.specs["algorithm"]), paper=False,
                       where=self.specs["dataset"].isin(list(datasets)))
        differ = int((~f["same"].astype(bool)).sum())
        return f"{differ} of {len(f)} re-plans differ from the stored plans" if differ else ""
