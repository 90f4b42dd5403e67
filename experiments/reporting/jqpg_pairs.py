"""JQPG's paired effects (JQPG Section 6.3): per unit -- one pattern on one stream, at one alpha and
selection strategy -- the ratio of two planners' measurements, with capped runs as bounds, and the claim
rows built on them (:mod:`experiments.reporting.jqpg` judges the claims of Figures 3-9 with them).

Two planners that chose the same plan ran the same computation, so their ratio is exactly 1; planners
pooled in one claim give one observation per pattern (:func:`experiments.reporting.rules.per_unit`).  A
cell stopped at the work cap enters the work effect as a lower bound of its work; it stored no memory, and
a throughput only as an upper bound (the whole stream's events over its time to the cap,
:mod:`experiments.reporting.bounds`), so a throughput ratio with a capped side is a bound (decided by the
censored rule of :mod:`experiments.reporting.rules`), and one whose capped side stored no time is left out
of the interval and counted in the claim's row.

**Sources.**  A claim's structure (one pair, pairs pooled per pattern, every pair of a list) is a function of
a *source*: ``src(a, b)`` gives per unit the effect in favour of ``a`` over ``b`` -- measured on a metric
(:func:`measured`: throughput ``a / b``; work, memory, partial matches, latency ``b / a``), or predicted by the
cost model (:func:`modelled`: ``b``'s plan cost over ``a``'s, :mod:`experiments.reporting.jqpg_model`).  The
same function judges the claim's row on throughput, its sibling row on a deterministic count, and the
model's prediction at our density and at the paper's for its diagnosis (:func:`claim_rows`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from experiments.reporting.core import CAPPED_PREFIX, Claim, judge, wide
from experiments.reporting.diagnosis import Facts, diagnosed, not_modelled, rank_agreement
from experiments.reporting.jqpg_model import JqpgModel
from experiments.reporting.rules import Interval, Observation, Verdict, per_unit, ratio_interval
from experiments.reporting.sentences import Sentence

SET_ORDER = ["seq", "neg", "conj", "kleene", "disj"]
SET_LABEL = {"seq": "sequence", "neg": "negation", "conj": "conjunction", "kleene": "Kleene", "disj": "disjunction"}


BY = ("dataset", "pattern_id", "alpha", "strategy")  # a unit: one pattern on one stream, at one alpha and strategy
UNIT = "pattern (one pattern on its stream)"
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
    w["ps_at_least"] = w["capped"] & w["peak_state"].notna() if "peak_state" in w else False
    timed = w["capped"] & (w["capped_elapsed_s"] > 0) if {"capped_elapsed_s", "events"} <= set(w.columns) else pd.Series(False, index=w.index)
    w["throughput_at_most"] = np.where(timed, w["events"] / w["capped_elapsed_s"].where(timed), np.nan) if timed.any() else np.nan
    return w


#: the deterministic metrics a capped run leaves as a lower bound, and the column of :func:`cells` that flags it
WORK, PEAK, STATE = "work", "peak_partial_matches", "peak_state"
_AT_LEAST = {WORK: "work_at_least", PEAK: "pm_at_least", STATE: "ps_at_least"}
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
    k = int(p["capped"].sum()) if "capped" in p else 0
    what = (f"a run capped at the partial-match cap stored no {metric}" if metric in _AT_LEAST
            else "a capped run stored no time to its cap" if metric in _AT_MOST else f"no {metric} stored for a capped run")
    return f"{k} units with a capped side left out ({what})" if k else ""


def per_set(p: pd.DataFrame) -> str:
    parts = []
    for s, g in p.dropna(subset=["ratio"]).groupby("workload"):
        parts.append(f"{SET_LABEL.get(s, s)} {ratio_interval(g['ratio'].tolist()).estimate:.2f}x")
    return "per set: " + ", ".join(parts) if parts else ""


def detail(*parts: str) -> str:
    return "; ".join(x for x in parts if x)


# ---- sources: per unit, the effect in favour of a over b ---------------------------------------------------
Source = Callable[[str, str], pd.DataFrame]
#: the metrics where more is better (every other one -- work, memory, partial matches, latency -- is a cost)
HIGHER_BETTER = ("throughput_eps",)


def measured(c: pd.DataFrame, metric: str, by=BY) -> Source:
    """Per unit, the measured effect of ``a`` over ``b`` on ``metric``: ``a / b`` where more is better, ``b / a``
    for a cost (bounds flagged as :func:`pairs` flags them)."""
    return lambda a, b: pairs(c, metric, a, b, by) if metric in HIGHER_BETTER else pairs(c, metric, b, a, by)


def modelled(model: JqpgModel, *, paper: bool, measure: str = "throughput", where: pd.Series | None = None) -> Source:
    """Per unit, the cost model's predicted effect of ``a`` over ``b``: ``b``'s plan cost over ``a``'s
    (:meth:`~experiments.reporting.jqpg_model.JqpgModel.ratios`), no bounds."""
    def src(a: str, b: str) -> pd.DataFrame:
        return model.ratios(a, b, paper=paper, measure=measure, where=where).assign(lower=False, upper=False, capped=False)
    return src


def pooled_units(src: Source, pairs_: Sequence[tuple[str, str]]) -> tuple[Interval, int]:
    """Several planner pairs pooled in one claim: one observation per unit (their geometric mean,
    :func:`rules.per_unit`), and the units left out (a capped side without a value, or bounds of both
    directions)."""
    obs, capped = [], 0
    for a, b in pairs_:
        p = src(a, b)
        capped += int(p["capped"].sum()) if "capped" in p else 0
        for unit, r in p.dropna(subset=["ratio"]).iterrows():
            obs.append(Observation(unit, r["ratio"], bool(r["lower"]), bool(r["upper"])))
    u = per_unit(obs)
    return u.interval, capped + u.left_out


# ---- the rows of one claim: measured, its deterministic sibling, and the model's diagnosis -------------------
@dataclass
class Rows:
    """The inputs every JQPG claim row needs: the section's cells, its cost model and the unit mask of the
    claim's cells (a dataset, a strategy)."""

    c: pd.DataFrame
    model: JqpgModel | None
    where: pd.Series | None = None
    datasets: tuple = ()


def claim_rows(s: Sentence, f: Callable[[Source], Verdict], rows: Rows, *, metric: str = "throughput_eps", sibling: str = "work",
               label: str | None = None, prefix: str = "", detail_of: Callable[[Source], str] | None = None,
               single: tuple[str, str] | None = None, measure: str = "throughput") -> list[Claim]:
    """A claim's row judged by ``f`` on ``metric`` and its sibling row on the deterministic ``sibling`` (None:
    no sibling), each with its diagnosis (:mod:`experiments.reporting.diagnosis`): the model's prediction
    is ``f`` on :func:`modelled` sources at our density and at the paper's, the work the sibling's verdict
    (for a sibling, its own); ``single`` names the one pair whose per-unit ratios the rank correlation of
    work and model compares."""
    main_src = measured(rows.c, metric)
    main = f(main_src)
    work_src = measured(rows.c, sibling) if sibling else None
    work = f(work_src) if sibling else None
    out = [Claim.of(s, main, unit=UNIT, label=label, prefix=prefix, detail=detail_of(main_src) if detail_of else "",
                    diagnose=_diagnose(f, rows, work, work_src, single, measure))]
    if sibling:
        out.append(Claim.of(s, work, unit=UNIT, label=label, prefix=prefix, sibling=sibling,
                            detail=detail_of(work_src) if detail_of else "",
                            diagnose=_diagnose(f, rows, work, work_src, single, measure)))
    return out


def _diagnose(f, rows: Rows, work: Verdict | None, work_src: Source | None, single, measure: str):
    if rows.model is None or not rows.model.available:
        return not_modelled("the stored cells hold no patterns and statistics to re-plan")

    def facts() -> Facts:
        ours_src = modelled(rows.model, paper=False, measure=measure, where=rows.where)
        ours = f(ours_src)
        paper = f(modelled(rows.model, paper=True, measure=measure, where=rows.where)) if rows.model.paper_available(rows.datasets) else None
        agreement = ""
        if single and work_src is not None:
            agreement = rank_agreement(ours_src(*single)["ratio"], work_src(*single)["ratio"])
        return Facts(ours, paper, work, rows.model.note(True, rows.datasets) if paper else "the paper's density is not recorded",
                     agreement, rows.model.note(False, rows.datasets, set(single) if single else None))
    return diagnosed(facts)


def pair(a: str, b: str, s: Sentence, size: float | None = None) -> Callable[[Source], Verdict]:
    """The structure of a claim on one pair: ``a`` over ``b`` judged by ``s``'s direction and size."""
    return lambda src: judge(s, effect(src(a, b)), size)


def pair_detail(a: str, b: str) -> Callable[[Source], str]:
    """What a one-pair row says beside its effect: the pair, the effect per pattern set, capped units."""
    def text(src: Source) -> str:
        p = src(a, b)
        return detail(f"{a} over {b}", per_set(p), capped_note(p))
    return text


def by_pattern_ratio(d: pd.DataFrame, metric: str, num: str, den: str) -> pd.DataFrame:
    """Per pattern (with its size), ``metric`` of ``num`` over ``den``."""
    a = d[d["algorithm"] == num].groupby("pattern_id")[[metric, "size"]].first()
    b = d[d["algorithm"] == den].groupby("pattern_id")[metric].first()
    r = (a[metric] / b).rename("ratio")
    out = pd.concat([r, a["size"]], axis=1).dropna()
    return out[(out["ratio"] > 0) & np.isfinite(out["ratio"])]
