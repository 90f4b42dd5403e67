"""Adaptive planning for MCEP 6.2.3: drift detection on a sliding window, a cost-based switching
decision, and the plan segments that :func:`evaluators.multi.evaluate_segments` migrates between.

MCEP Section 3 "employs standard adaptivity mechanisms [39, 42, 49], continuously estimating the
up-to-date statistics and relaunching the optimizer when a significant change is detected"; 6.2.3
runs "the adaptive approach introduced in [49] [ZStream], restarting the plan calculation process
when a drastic change in the statistics is detected".  The readings chosen here:

* **Statistics** are those of a sliding window of the last ``drift_window`` events
  (:func:`window_statistics`: arrival rates and selectivities, the cost model's inputs).
* **Drift** (:func:`drifted`), tested every ``check_every`` events: a chi-square test of homogeneity
  of the per-type event counts of the sliding window against those of the window the last decision
  was made on (the workload's types, every other type pooled), rejecting at level ``drift_alpha``.
  Reshuffling permutes types, so it moves the type proportions, which is what the test looks at;
  the total rate does not move.
* **Decision** (:func:`worth_switching`): on a drift the optimizer runs (SA-EDGE) on the window's
  statistics; the new plan is adopted only when its estimated gain over the expected remaining
  horizon exceeds the cost of switching.  Costs are Cost_ord^multi (MCEP 3.3: expected partial
  matches per window) under the window's statistics: the gain is ``(C_cur - C_new) * H / N_W``, with
  ``H`` the events the statistics stayed put before this drift (the last stretch between two drifts,
  or from the start) taken as the horizon and ``N_W`` the events of one time window; switching costs
  the old plan's instances over the one window it keeps running beside the new one
  (:func:`evaluators.multi.engine.migration_bounds`), ``C_cur``.  Either way the window's statistics
  become the reference of the next test (the current plan was costed under them).
* **Switch** at the check point, moved off a tie of timestamps
  (:func:`evaluators.multi.engine.switch_point`): no lag of a chunk and no replay.

``static`` plans once on the first ``drift_window`` events and never tests.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.stats import chi2_contingency

from algorithms.multi import plan_workload
from algorithms.multi.costs import cost_multi, workload_models
from cep.columnar import EventColumns
from cep.global_plans import GlobalPlan
from evaluators.multi.engine import switch_point
from experiments.data.statistics import estimate_workload_statistics


@dataclass
class AdaptivePlan:
    """The plan segments ``[(first event, plan), ...]``, the first plan's cost (on the first window's
    statistics), the optimizer's total time, the drifts
    detected, the switches made (re-plans), and per switch ``(position, C_cur, C_new, horizon)``."""

    segments: list = field(default_factory=list)
    initial_cost: float = 0.0
    plan_time_s: float = 0.0
    detections: int = 0
    replans: int = 0
    decisions: list = field(default_factory=list)


def window_events(stream: EventColumns, a: int, b: int) -> EventColumns:
    """The events ``[a, b)`` of ``stream`` as a stream of their own (positions from 0)."""
    return stream.slice(a, b, source="<window>")


def window_statistics(stream: EventColumns, patterns, a: int, b: int, *, seed: int):
    """The workload statistics (one per pattern) estimated on the events ``[a, b)``."""
    return estimate_workload_statistics(window_events(stream, a, b), patterns, seed=seed)


def type_counts(stream: EventColumns, a: int, b: int, types: Sequence[str]) -> list[int]:
    """The counts of ``types`` among the events ``[a, b)``, and of every other type pooled last."""
    c = np.bincount(stream.codes[a:b], minlength=len(stream.type_names))
    index = {t: i for i, t in enumerate(stream.type_names)}
    own = [int(c[index[t]]) if t in index else 0 for t in types]
    return [*own, (b - a) - sum(own)]


def drifted(reference: Sequence[int], current: Sequence[int], alpha: float) -> bool:
    """Whether the per-type counts ``current`` of the sliding window differ from ``reference`` (those
    the last decision was made on): a chi-square test of homogeneity of the two rows
    (:func:`scipy.stats.chi2_contingency`, categories empty in both left out) rejects at level
    ``alpha``."""
    cols = [(r, c) for r, c in zip(reference, current) if r + c > 0]
    if len(cols) < 2:
        return False
    p = chi2_contingency([[r for r, _ in cols], [c for _, c in cols]], correction=False).pvalue
    return bool(p < alpha)


def worth_switching(c_cur: float, c_new: float, horizon_events: float, window_events_: float) -> bool:
    """Whether the gain ``(c_cur - c_new) * horizon / N_W`` over the horizon exceeds the switching cost
    ``c_cur`` (the old plan's expected instances over the one window it runs beside the new plan)."""
    if not c_new < c_cur or window_events_ <= 0:
        return False
    return (c_cur - c_new) * horizon_events / window_events_ > c_cur


def plan_cost(g: GlobalPlan, stats) -> float:
    """Cost_ord^multi (or Cost_tree^multi) of ``g`` under ``stats`` (MCEP 3.3)."""
    return cost_multi(g, workload_models(g, stats))


def adaptive_plan(stream: EventColumns, patterns, *, drift_window: int, check_every: int, drift_alpha: float,
                  window_s: float, seed: int, budget: Mapping, adaptive: bool, planner: str = "SA-EDGE") -> AdaptivePlan:
    """The plan segments of the static or adaptive method (see the module docstring)."""
    n = len(stream)
    ts = stream.ts.tolist()
    types = sorted({t for p in patterns for t in p.event_types})

    def plan(a, b):
        stats = window_statistics(stream, patterns, a, b, seed=seed)
        t0 = time.perf_counter()
        r = plan_workload(patterns, planner, stats, seed=seed, **budget)
        return r, stats, time.perf_counter() - t0

    first = min(drift_window, n)
    r, _, dt = plan(0, first)
    out = AdaptivePlan([(0, r.plan)], r.cost, dt)
    if not adaptive:
        return out
    current = r.plan
    reference = type_counts(stream, 0, first, types)
    last_drift = 0
    for c in range(first + check_every, n, check_every):
        a = c - drift_window
        counts = type_counts(stream, a, c, types)
        if not drifted(reference, counts, drift_alpha):
            continue
        out.detections += 1
        r, stats, dt = plan(a, c)
        out.plan_time_s += dt
        c_cur = plan_cost(current, stats)
        span = ts[c - 1] - ts[a]
        n_w = drift_window * window_s / span if span > 0 else float(drift_window)
        horizon = c - last_drift
        last_drift = c
        reference = counts
        t = switch_point(ts, c)
        if out.segments[-1][0] < t < n and worth_switching(c_cur, r.cost, horizon, n_w):
            out.segments.append((t, r.plan))
            out.replans += 1
            out.decisions.append((t, c_cur, r.cost, horizon))
            current = r.plan
    return out
