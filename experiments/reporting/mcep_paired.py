"""Paired effects of the MCEP experiments (Figures 10-14, SIGMOD'19 Section 6 and App. D) for the rule set
of :mod:`experiments.reporting.rules`.

A *workload* is one (dataset, swept parameter, value, seed): a seeded pattern workload over its stream.
Every method ran on it, so an effect is the ratio of two methods on the same workload (paired).  The
independent unit is a *seed* (:data:`UNIT_KEYS`): its workloads at the swept values share its stream, so
they are one observation (their geometric mean, :func:`interval`) and a trend over the sweep is one slope
per seed (:func:`within_slope`); ``n`` counts seeds.  Two more rules make ``n`` honest:

* methods pooled in one claim (SA-EDGE and TS-EDGE as "the local search") give one observation per
  workload: the geometric mean over their *distinct* plans, so two searches that returned the same
  plan are one plan measured twice, not two observations.  Two plans are the same when their rows
  agree on the ``plan`` digest, the planned cost and the work: the stored digest covers the local
  plans only (:func:`experiments.exps.mcep.plan_digest`), not the nodes a plan shares, and
  the deterministic work tells two sharings of the same local plans apart;
* a method whose plan is the baseline's own plan has a ratio of exactly 1 on that workload: the same
  plan does the same work, and the throughput difference between its two timings is run-to-run noise.

Throughput is the papers' metric; ``work`` (candidate combinations the joins examined,
:mod:`evaluators.multi.runtime`) is deterministic and judged beside it.  A run stopped at a cap is a
bound (:mod:`experiments.reporting.bounds`): where it stored the time it ran until the cap
(``capped_elapsed_s``), its throughput over the whole stream is at most ``events / capped_elapsed_s``,
so a throughput gain over a capped baseline enters as a *lower bound* and one of a capped method as an
*upper bound*, as :func:`experiments.reporting.rules.ratio_interval` takes them; a capped run stored
without its time (results older than that field) leaves its workload out (counted).  Its work is known
to exceed the cap when the work cap stopped it (``max_work`` of the cell's parameters), so work gains
take bounds the same way (cap / work, work / cap).  Two capped sides bound nothing (left out).  In a
pool a capped plan is left out of the pool's throughput when another plan of the pool has a value.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from experiments.reporting.model_paper import PLAN as PAPER_PLAN
from experiments.reporting.model_paper import PLAN_COST as PAPER_PLAN_COST
from experiments.reporting.model_paper import TRIVIAL_COST as PAPER_TRIVIAL_COST
from experiments.reporting.rules import Interval, Observation, Verdict, paired_slope_interval, per_unit
from experiments.reporting.rules import worst as rules_worst

WORKLOAD = ["dataset", "x_name", "x_value", "seed"]
#: the planned cost gain over the trivial plan at the paper's density (:mod:`experiments.reporting.model_paper`)
COST_GAIN_PAPER = "cost_gain_paper"
#: the columns an evaluation measures, which a run stopped at a cap leaves unknown or bounded; every other
#: column (a planned cost or its gain) is the planner's, exact whether or not the evaluation was capped
MEASURED_ON_THE_RUN = ("throughput_eps", "work")
LOCAL = ("SA-EDGE", "TS-EDGE")
WORK_CAP = "candidate combinations"  # the status text of a run stopped by the work cap


def cell_table(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (workload, algorithm): its metrics (ok rows), ``plan`` digest, ``capped`` and
    ``work_cap`` (the work bound a work-capped run exceeded, else NaN)."""
    d = df.copy()
    if "dataset" not in d:
        d["dataset"] = ""
    d["capped"] = d["status"].astype(str).str.startswith("capped")
    keys = WORKLOAD + ["algorithm"]
    metrics = d[~d["capped"]].pivot_table(index=keys, columns="metric", values="value", aggfunc="first")
    agg = dict(plan=("plan", "first"), capped=("capped", "any"), status=("status", "first"), params=("params", "first"))
    if PAPER_PLAN in d:
        agg[PAPER_PLAN] = (PAPER_PLAN, "first")
    meta = d.groupby(keys).agg(**agg)
    t = meta.join(metrics, how="left").reset_index()
    c = d[d["capped"] & d["metric"].isin(["events", "capped_elapsed_s"])]
    bound = c.pivot_table(index=keys, columns="metric", values="value", aggfunc="first") if len(c) else pd.DataFrame()
    t["throughput_bound"] = math.nan  # a capped run's upper bound on its throughput (events / time to the cap)
    if {"events", "capped_elapsed_s"} <= set(bound.columns):
        b = (bound["events"] / bound["capped_elapsed_s"]).where(bound["capped_elapsed_s"] > 0)
        t["throughput_bound"] = t.set_index(keys).index.map(b.to_dict()).astype(float)

    def cap(r) -> float:
        if not r["capped"] or WORK_CAP not in str(r["status"]):
            return math.nan
        return float(json.loads(r["params"]).get("max_work") or math.nan)

    t["work_cap"] = t.apply(cap, axis=1) if len(t) else []
    for m in ("throughput_eps", "work", "plan_cost", "trivial_cost", PAPER_PLAN_COST, PAPER_TRIVIAL_COST):
        if m not in t:
            t[m] = math.nan
    if PAPER_PLAN not in t:
        t[PAPER_PLAN] = None
    t["cost_gain"] = t["trivial_cost"] / t["plan_cost"]  # the planned cost gain over the trivial plan
    t[COST_GAIN_PAPER] = t[PAPER_TRIVIAL_COST] / t[PAPER_PLAN_COST]  # the same at the paper's density (model_paper)
    return t


def _gm(values: Sequence[float]) -> float:
    return float(np.exp(np.mean(np.log(values))))


def _plan_key(r: pd.Series, alg: str, metric: str = "") -> tuple:
    """What identifies a cell's global plan: digest, planned cost and work (else the method alone); for
    the cost gain at the paper's density, the plan re-made there (digest and cost)."""
    if metric == COST_GAIN_PAPER:
        paper = r.get(PAPER_PLAN)
        return (paper, float(r[PAPER_PLAN_COST])) if isinstance(paper, str) and paper and math.isfinite(r[PAPER_PLAN_COST]) else (alg,)
    cost = r.get("plan_cost", math.nan)
    if isinstance(r["plan"], str) and r["plan"] and not r["capped"] and r["work"] >= 0 and math.isfinite(cost):
        return (r["plan"], float(cost), float(r["work"]))
    return (alg,)


def paired(t: pd.DataFrame, num: str | Sequence[str], den: str, metric: str = "throughput_eps") -> pd.DataFrame:
    """Per workload, the effect of ``num`` (one method or several pooled) over ``den``: throughput
    num/den, or with ``metric="work"`` the work gain den/num.  Columns: the workload keys, ``ratio``,
    ``lower`` / ``upper`` (a bound from a capped run), ``same_plan`` (a pooled method returned the
    baseline's plan or the pooled methods one plan); ``ratio`` is NaN where a capped side leaves no
    value (left out)."""
    nums = [num] if isinstance(num, str) else list(num)
    rows = []
    for key, g in t[t["algorithm"].isin(nums + [den])].groupby(WORKLOAD, sort=True):
        g = g.set_index("algorithm")
        have = [a for a in nums if a in g.index]
        if den not in g.index or not have:
            continue
        b = g.loc[den]
        groups: dict = {}
        for a in have:  # methods with one plan are one observation
            groups.setdefault(_plan_key(g.loc[a], a, metric), []).append(g.loc[a])
        shared = len(groups) < len(have)
        ratios, lower, upper = [], False, False
        for plan, rs in groups.items():
            same = plan == _plan_key(b, den, metric)
            shared = shared or same
            if same:
                ratios.append(1.0)
                continue
            if metric == "work":
                a_cap, b_cap = rs[0]["work_cap"], b["work_cap"]
                a_w = rs[0]["work"] if not rs[0]["capped"] else a_cap
                b_w = b["work"] if not b["capped"] else b_cap
                if not (a_w > 0 and b_w > 0) or (rs[0]["capped"] and b["capped"]):
                    continue
                lower |= bool(b["capped"])
                upper |= bool(rs[0]["capped"])
                ratios.append(b_w / a_w)
            elif metric not in MEASURED_ON_THE_RUN:  # a planned cost: exact whether or not the evaluation was capped
                vals = [r[metric] for r in rs if r[metric] > 0]
                if not vals or not b[metric] > 0:
                    continue
                ratios.append(_gm(vals) / b[metric])
            else:
                vals = [r[metric] for r in rs if not r["capped"] and r[metric] > 0]
                a_bound = not vals and metric == "throughput_eps"
                if a_bound:  # every plan of the group capped: its upper bound
                    vals = [r["throughput_bound"] for r in rs if r["throughput_bound"] > 0]
                b_val = b["throughput_bound"] if b["capped"] and metric == "throughput_eps" else b[metric]
                if not vals or not b_val > 0 or (a_bound and b["capped"]):
                    continue
                lower |= bool(b["capped"])
                upper |= a_bound
                ratios.append(_gm(vals) / b_val)
        rows.append({**dict(zip(WORKLOAD, key)), "ratio": _gm(ratios) if ratios else math.nan,
                     "lower": lower and not upper, "upper": upper and not lower, "same_plan": shared})
    return pd.DataFrame(rows, columns=WORKLOAD + ["ratio", "lower", "upper", "same_plan"])


def values(t: pd.DataFrame, num: str | Sequence[str], column: str) -> pd.DataFrame:
    """Per workload, a cell ``column`` of ``num`` (several methods pooled over their distinct plans), in
    the frame of :func:`paired` (``ratio`` is the value; capped cells have none)."""
    nums = [num] if isinstance(num, str) else list(num)
    rows = []
    for key, g in t[t["algorithm"].isin(nums)].groupby(WORKLOAD, sort=True):
        groups: dict = {}
        for _, r in g.iterrows():
            groups.setdefault(_plan_key(r, r["algorithm"], column), []).append(r)
        exact = column not in MEASURED_ON_THE_RUN
        vals = [_gm(v) for v in ([r[column] for r in rs if (exact or not r["capped"]) and r[column] > 0] for rs in groups.values()) if v]
        rows.append({**dict(zip(WORKLOAD, key)), "ratio": _gm(vals) if vals else math.nan, "lower": False, "upper": False,
                     "same_plan": len(groups) < len(g)})
    return pd.DataFrame(rows, columns=WORKLOAD + ["ratio", "lower", "upper", "same_plan"])


#: the independent unit of an MCEP effect: one seed (its workload and stream) of one dataset; its
#: workloads at the swept values are one observation (their geometric mean) and a trend over the sweep is
#: one slope per seed
UNIT_KEYS = ["dataset", "seed"]
UNIT = "seed (its workload and stream; the swept values pooled)"


def _marks(g: pd.DataFrame) -> list:
    return ["lower" if lo else "upper" if up else None for lo, up in zip(g["lower"], g["upper"])]


def within_slope(p: pd.DataFrame) -> Interval:
    """The trend of :func:`paired` / :func:`values` rows over a parameter swept on the same workload
    (same seed): one slope per seed, the interval over seeds (:func:`rules.paired_slope_interval`); a
    bounded point makes its seed's slope a bound where it pushes one way (:func:`rules.unit_slope`)."""
    p = p.dropna(subset=["ratio"])
    return paired_slope_interval([(g["x_value"].tolist(), g["ratio"].tolist(), _marks(g)) for _, g in p.groupby(UNIT_KEYS)])


def interval(p: pd.DataFrame) -> Interval:
    """The rule set's interval of the paired ratios, one value per seed (its sweep points pooled,
    :func:`rules.per_unit`; bounds flagged)."""
    p = p.dropna(subset=["ratio"])
    obs = [Observation((d, s), r, bool(lo), bool(up)) for d, s, r, lo, up in zip(p["dataset"], p["seed"], p["ratio"], p["lower"], p["upper"])]
    return per_unit(obs).interval


def slope(p: pd.DataFrame) -> Interval:
    """A trend over a swept value: one slope of log(ratio) on log(value) per seed, the interval over seeds
    (the same as :func:`within_slope`: a seed's workloads at every swept value share its stream)."""
    return within_slope(p)


def capped_points(t: pd.DataFrame, base: str) -> dict:
    """{algorithm: {swept value}} where a side of a seed's throughput ratio over ``base`` hit a cap (its
    ratio a bound, or missing), what a plot marks as open."""
    out: dict = {}
    for alg in sorted(set(t["algorithm"]) - {base}):
        p = paired(t, alg, base)
        out[alg] = set(p.loc[p["ratio"].isna() | p["lower"] | p["upper"], "x_value"])
    return out


def counts(p: pd.DataFrame) -> str:
    """What the report says beside an effect: left-out workloads and identical plans."""
    parts = []
    left = int(p["ratio"].isna().sum())
    if left:
        parts.append(f"{left} workload(s) left out (a side capped: no value)")
    same = int(p["same_plan"].sum())
    if same:
        parts.append(f"{same} of {len(p)} workloads with identical plans counted once")
    return "; ".join(parts)


def worst(verdicts: Sequence[Verdict]) -> str:
    """The verdict of a claim that needs every one of ``verdicts``: the worst of them."""
    return rules_worst([v.verdict for v in verdicts])
