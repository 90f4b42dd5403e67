"""JQPG's paired effects (JQPG Section 6.3): per workload -- one pattern on one stream, at one alpha and
selection strategy -- the ratio of two planners' measurements, with capped runs as bounds, and the claim
rows built on them (:mod:`experiments.reporting.jqpg` judges the claims of Figures 3-9 with them).

Two planners that chose the same plan ran the same computation, so their ratio is exactly 1; planners
pooled in one claim give one observation per pattern (:func:`experiments.reporting.rules.pooled`).  A cell
stopped at the work cap enters the work effect as a lower bound of its work; it stored no memory, and a
throughput only as an upper bound (the whole stream's events over its time to the cap,
:mod:`experiments.reporting.bounds`), so a throughput ratio with a capped side is a bound
(rules.ratio_interval), and one whose capped side stored no time is left out of the interval and counted
in the claim's row.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.reporting.core import CAPPED_PREFIX, ON_METRIC, Claim, paired_ratios, wide
from experiments.reporting.rules import Interval, pooled, ratio_interval

SET_ORDER = ["seq", "neg", "conj", "kleene", "disj"]
SET_LABEL = {"seq": "sequence", "neg": "negation", "conj": "conjunction", "kleene": "Kleene", "disj": "disjunction"}


BY = ("dataset", "pattern_id", "alpha", "strategy")  # a workload: one pattern on one stream, alpha, strategy
_WORK_CAP = r"examined (\d+) candidate"


def cells(table: pd.DataFrame) -> pd.DataFrame:
    """One row per cell of every status: its metrics, status and plan; a cell stopped at the work cap
    keeps its work as a lower bound (the count its status names, ``work_at_least``); a capped cell has no
    throughput or memory, but one that stored its time to the cap has an upper bound on its throughput
    over the whole stream, ``throughput_at_most`` = events / ``capped_elapsed_s``
    (:mod:`experiments.reporting.bounds`)."""
    w = wide(table, statuses=tuple(table["status"].dropna().unique()))
    # a capped cell's planning rows are "ok", its evaluation rows "capped: ...": the cell is capped
    status = table["status"].where(table["status"].str.startswith(CAPPED_PREFIX, na=False))
    meta = table.assign(cap_status=status).groupby(["cell_id", "algorithm"], sort=False).agg(
        status=("status", "first"), cap_status=("cap_status", "first"), plan=("plan", "first")).reset_index()
    meta["status"] = meta["cap_status"].fillna(meta["status"])
    meta = meta.drop(columns="cap_status")
    w = w.merge(meta, on=["cell_id", "algorithm"], how="left")
    w["capped"] = w["status"].str.startswith(CAPPED_PREFIX, na=False)
    bound = w["status"].str.extract(_WORK_CAP)[0].astype(float)
    w["work_at_least"] = w["capped"] & bound.notna()
    if "work" not in w:
        w["work"] = np.nan
    w["work"] = np.where(w["work_at_least"], bound, np.where(w["capped"], np.nan, w["work"]))
    if "peak_partial_matches" not in w:
        w["peak_partial_matches"] = np.nan
    # a capped run stored the peak it had reached when the cap stopped it: the real peak is at least that
    w["pm_at_least"] = w["capped"] & w["peak_partial_matches"].notna()
    timed = w["capped"] & (w["capped_elapsed_s"] > 0) if {"capped_elapsed_s", "events"} <= set(w.columns) else pd.Series(False, index=w.index)
    w["throughput_at_most"] = np.where(timed, w["events"] / w["capped_elapsed_s"].where(timed), np.nan) if timed.any() else np.nan
    return w


#: the deterministic metrics a capped run leaves as a lower bound, and the column of :func:`cells` that flags it
WORK, PEAK = "work", "peak_partial_matches"
_AT_LEAST = {WORK: "work_at_least", PEAK: "pm_at_least"}
#: the measured metric a capped run that stored its time bounds from above, and the column holding the bound
_AT_MOST = {"throughput_eps": "throughput_at_most"}


def _sides(c: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Per cell: ``value`` of ``metric`` (a capped run's bound where it has one), ``least``/``most`` when
    that value is a lower/upper bound."""
    least, most = _AT_LEAST.get(metric), _AT_MOST.get(metric)
    value = c[metric]
    at_most = pd.Series(False, index=c.index)
    if most and most in c:
        at_most = c[metric].isna() & c[most].notna()
        value = value.where(~at_most, c[most])
    at_least = c[least].astype(bool) if least else pd.Series(False, index=c.index)
    return c.assign(value=value, least=at_least, most=at_most)


def pairs(c: pd.DataFrame, metric: str, num: str, den: str, by=BY) -> pd.DataFrame:
    """Per workload, ``metric`` of ``num`` over ``den`` (JQPG 6.3's paired comparison): ``ratio``, with
    ``lower``/``upper`` when the ratio is a bound: a side's work or peak partial matches of a capped run
    is a lower bound, its throughput (events / time to the cap) an upper bound; a pair bounded both ways
    says nothing and is left out.  Two identical plans are one plan, their ratio exactly 1 (a measured
    difference between them is noise).  ``capped`` marks a pair with a capped side whose metric was not
    stored (left out of the ratio, counted)."""
    keys = [k for k in by if k in c.columns]
    cols = ["value", "least", "most", "plan", "capped", "workload", "size"]
    if metric not in c or not ((c["algorithm"] == num).any() and (c["algorithm"] == den).any()):
        return pd.DataFrame(columns=["ratio", "lower", "upper", "capped", "workload", "size"])
    s = _sides(c, metric)
    a = s[s["algorithm"] == num].groupby(keys, dropna=False)[cols].first()
    b = s[s["algorithm"] == den].groupby(keys, dropna=False)[cols].first()
    j = a.join(b, lsuffix="_n", rsuffix="_d", how="inner")
    lower = j["least_n"].astype(bool) | j["most_d"].astype(bool)
    upper = j["most_n"].astype(bool) | j["least_d"].astype(bool)
    ratio = (j["value_n"] / j["value_d"]).where(lambda r: (r > 0) & np.isfinite(r))
    same = (j["plan_n"] == j["plan_d"]) & j["plan_n"].notna()
    ratio = ratio.where(~(same & ratio.notna()), 1.0)
    both = lower & upper
    out = pd.DataFrame({"ratio": ratio.where(~both), "lower": lower & ~both, "upper": upper & ~both,
                        "capped": (j["capped_n"] | j["capped_d"]) & ratio.isna(), "workload": j["workload_n"], "size": j["size_n"]})
    return out


def exact(p: pd.DataFrame) -> pd.Series:
    """The ratios of :func:`pairs` that are values, not bounds."""
    return p.loc[~(p["lower"].astype(bool) | p["upper"].astype(bool)), "ratio"].dropna()


def effect(p: pd.DataFrame) -> Interval:
    ok = p["ratio"].notna()
    return ratio_interval(p["ratio"][ok].tolist(), lower=p["lower"][ok].tolist(), upper=p["upper"][ok].tolist())


def capped_note(p: pd.DataFrame, metric: str = "throughput_eps") -> str:
    k = int(p["capped"].sum())
    what = (f"a run capped at the partial-match cap stored no {metric}" if metric in _AT_LEAST
            else "a capped run stored no time to its cap" if metric in _AT_MOST else f"no {metric} stored for a capped run")
    return f"{k} workloads with a capped side left out ({what})" if k else ""


def work_note(c: pd.DataFrame, num: str, den: str) -> str:
    """The deterministic work behind a throughput ratio num/den: den's work over num's, capped runs as bounds."""
    p = pairs(c, "work", den, num)
    return f"work {den}/{num} {effect(p).text()}" if p["ratio"].notna().sum() else ""


def per_set(p: pd.DataFrame) -> str:
    parts = []
    for s, g in p.dropna(subset=["ratio"]).groupby("workload"):
        parts.append(f"{SET_LABEL.get(s, s)} {ratio_interval(g['ratio'].tolist()).estimate:.2f}x")
    return "per set: " + ", ".join(parts) if parts else ""


def detail(*parts: str) -> str:
    return "; ".join(x for x in parts if x)


def pair_claim(c: pd.DataFrame, metric: str, num: str, den: str, claim: str, paper: str, judge, *, extra: str = "") -> Claim:
    """A claim on the paired ratio num/den of ``metric`` judged by ``judge`` (a rule of rules.py applied
    to the interval), with the per-set estimates, the work behind it and the capped pairs shown."""
    p = pairs(c, metric, num, den)
    work = work_note(c, num, den) if metric == "throughput_eps" else ""
    return Claim.judged(claim, paper, judge(effect(p)), detail=detail(f"{num}/{den}", per_set(p), work, extra, capped_note(p, metric)))


def sibling(c: pd.DataFrame, metric: str, num: str, den: str, claim: str, paper: str, judge) -> Claim:
    """The sibling row of a claim on throughput (memory): the same rule on deterministic ``metric``
    (work, or peak live partial matches), paired per workload by :func:`pairs`, ``num`` over ``den``
    oriented so that > 1 favours the method the paper says wins (the baseline's work over the method's)."""
    return pair_claim(c, metric, num, den, f"{claim} {ON_METRIC[metric]}", paper, judge)


def pooled_effect(c: pd.DataFrame, metric: str, ratios: list[tuple[str, str]], by=BY) -> tuple[Interval, int]:
    """Several planner pairs pooled in one claim: one observation per workload (rules.pooled), and the
    number of workloads left out for a capped side.  A workload whose pooled ratios hold a lower bound
    (a capped run's work or peak) is a lower bound, one holding an upper bound an upper bound; one
    holding both says nothing and is left out (counted)."""
    per, capped, lower, upper = {}, 0, set(), set()
    for num, den in ratios:
        p = pairs(c, metric, num, den, by)
        ok = p.dropna(subset=["ratio"])
        per[f"{num}/{den}"] = ok["ratio"].to_dict()
        lower |= set(ok.index[ok["lower"].astype(bool)])
        upper |= set(ok.index[ok["upper"].astype(bool)])
        capped += int(p["capped"].sum())
    obs = {k: v for k, v in pooled(per).items() if not (k in lower and k in upper)}
    capped += len(lower & upper)
    return ratio_interval(list(obs.values()), lower=[k in lower for k in obs], upper=[k in upper for k in obs]), capped


def tree_vs_order_cost(w: pd.DataFrame) -> str:
    """How much cheaper DP-B's tree is planned than DP-LD's order, both in the tree cost model
    (Cost_tree of the order taken as a left-deep tree, ``plan_cost_tree``): Cost_ord and Cost_tree
    count different things and are not compared."""
    if "plan_cost_tree" not in w or "plan_cost" not in w:
        return ""
    tree = w[w["algorithm"] == "DP-B"].set_index(["dataset", "pattern_id"])["plan_cost"]
    order = w[w["algorithm"] == "DP-LD"].set_index(["dataset", "pattern_id"])["plan_cost_tree"]
    r = (order / tree).replace([np.inf, -np.inf], np.nan).dropna()
    return f"Cost_tree of DP-LD's order over DP-B's tree {ratio_interval(r.tolist()).text()}" if len(r) else ""


def with_cost(w: pd.DataFrame, num: str, den: str) -> str:
    """The planned cost ratio den/num (how much cheaper the cost model expects ``num``'s plans)."""
    r = paired_ratios(w, "plan_cost", den, num)
    return f"planned cost {ratio_interval(r.tolist()).text()}" if len(r) else ""


def by_pattern_ratio(d: pd.DataFrame, metric: str, num: str, den: str) -> pd.DataFrame:
    """Per pattern (with its size), ``metric`` of ``num`` over ``den``."""
    a = d[d["algorithm"] == num].groupby("pattern_id")[[metric, "size"]].first()
    b = d[d["algorithm"] == den].groupby("pattern_id")[metric].first()
    r = (a[metric] / b).rename("ratio")
    out = pd.concat([r, a["size"]], axis=1).dropna()
    return out[(out["ratio"] > 0) & np.isfinite(out["ratio"])]


def alpha_effect(d: pd.DataFrame, metric: str, a_num: float, a_den: float) -> tuple[Interval, int]:
    """Per pattern, ``metric`` at alpha ``a_num`` over alpha ``a_den`` (the same planner, pattern and
    stream; 1 where alpha did not change the plan), pooled over the planners (one observation per
    pattern); and the capped cells left out."""
    per = {}
    for alg, g in d.groupby("algorithm"):
        x = g[g["alpha"] == a_num].set_index("pattern_id")
        y = g[g["alpha"] == a_den].set_index("pattern_id")
        r = (x[metric] / y[metric]).replace([np.inf, -np.inf], np.nan)
        same = (x["plan"] == y["plan"]).reindex(r.index, fill_value=False)
        per[alg] = r.where(~(same & r.notna()), 1.0).dropna().to_dict()  # alpha left the plan alone: no effect
    return ratio_interval(list(pooled(per).values())), int(d["capped"].sum())
