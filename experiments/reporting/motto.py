"""The report sections of MOTTO's evaluation (Zhang et al., ICDE'17, Section VII): Figure 13 (normalized
throughput against the basic-workload ratio r) and Figure 14 (sensitivity: number of queries -- the
exact and the annealing Steiner search, their time, planned gain and throughput over NA --, CPU cores
1 to 6 as Spark tasks on a 2-core machine, window ratio, nesting level).

A normalized throughput is paired: a method's throughput over NA's (no sharing) on the same
workload, stream and seed; a plotted point is the geometric mean over seeds with its 95% interval
(:func:`experiments.reporting.mcep.gains` with base NA).  Verdicts follow the one rule set,
:mod:`experiments.reporting.rules` (:func:`_by_seed`): an effect is a ratio per workload (x, seed);
two methods that built the same global plan give a ratio of exactly 1; "at every x" is every x's
per-seed effect, the weakest deciding; a trend is the slope of log(effect) on log(x) (on x for r,
which can be 0) fitted per seed over its swept values, the interval over seeds.  The unit is a *seed*
(its workloads and stream): a claim over a sweep has one value per seed (its workloads' geometric mean).  The paper prints its figures without numbers in the
text, so its claims are the sentences of VII-B and VII-C, quoted, judged with the stated sizes of
the rule set (GREATLY for "much", "significantly"; BEATS for a bare "improves"; TREND for a trend).
Beside every Figure 13 claim on throughput stands a sibling row on the deterministic ``work`` (join
candidates examined; the other method's work over MOTTO's or NA's over the method's), same rule and
pairing (:func:`_by_seed`).
"""

from __future__ import annotations

import math

import pandas as pd

import experiments.reporting.panels as panels
from experiments.reporting.core import (
    UNCHECKED,
    Claim,
    Section,
    SectionInput,
    judge,
    log_ci,
)
import experiments.reporting.model_paper as model_paper
from experiments.reporting.diagnosis import Facts, diagnosed, not_modelled
from experiments.reporting.mcep import _fmt, gains
from experiments.reporting.plotstyle import finish_axes, pyplot, save_figure, style
from experiments.reporting.rules import (
    GREATLY,
    LINEAR,
    TREND,
    Verdict,
    all_of,
    at_least,
    comparable,
    invert,
    none_differ,
    paired_slope_interval,
    pooled,
    ratio_interval,
)
from experiments.reporting.sentences.motto import SENTENCES as S

#: what one observation of a MOTTO row is
UNIT = "seed (its workloads and stream; the swept values pooled)"
OBJECTIVE = ("not modelled: the claim is on MOTTO's own objective (its planned gain or optimizer time), which is the model, "
             "not a measurement it predicts")
NO_MODEL = "not modelled: no cost model of this measurement (Spark tasks on cores)"


def _row(key: str, verdict: Verdict, *, detail: str = "", label: str | None = None, sibling: str = "", diagnose=None) -> Claim:
    """The row of sentence ``key`` (:mod:`experiments.reporting.sentences.motto`)."""
    return Claim.of(S[key], verdict, unit=UNIT, detail=detail, label=label, sibling=sibling,
                    diagnose=diagnose or not_modelled(OBJECTIVE))


def _model_diagnosis(model, work: Verdict | None):
    """A throughput row's diagnosis from the planned cost and the work: ``model(metric)`` is the claim's
    structure on NA's cost over the method's, judged on ``plan_cost`` (MOTTO's Cost_tree^multi prediction
    at our density) and on the plans re-made at the paper's density where the folder has them
    (:mod:`experiments.reporting.model_paper`)."""
    def facts() -> Facts:
        paper = model(model_paper.PLAN_COST)
        if paper.effect.n == 0:
            return Facts(model("plan_cost"), None, work, paper_note=model_paper.NOT_COMPUTED)
        return Facts(model("plan_cost"), paper, work, paper_note=model_paper.NOTE)
    return diagnosed(facts)

METHODS = ["SH-MDT", "LCSE", "MST"]
X_LABELS = {"r": "basic workload ratio r", "queries": "number of queries", "cores": "cores (Spark tasks)",
            "window_ratio": "source window : beneficiary window", "nesting": "nesting level"}


def _plot(g: dict, sweep: str, title: str, out_dir, name: str, ylabel: str, *, log_x: bool = False,
          ref_line: bool = True) -> list:
    if not g:
        return []
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.2, 3.2))
    for alg in [a for a in METHODS + ["exact", "annealing"] if a in g] + sorted(a for a in g if a not in METHODS + ["exact", "annealing"]):
        panels.ci_line(ax, alg, *panels.geo_points(g[alg]))
    if ref_line:
        ax.axhline(1.0, color="#7F7F7F", linewidth=0.8, linestyle=":")
    ax.set_title(title, fontsize=8)
    if log_x:
        ax.set_xscale("log", base=2)
        xs = sorted({x for a in g for x in g[a]})
        ax.set_xticks(xs)
        ax.set_xticklabels([f"{x:g}:1" if x >= 1 else f"1:{1 / x:g}" for x in xs])
    finish_axes(ax, xlabel=X_LABELS.get(sweep, sweep), ylabel=ylabel, log_y=True,
                integer_x=sweep in ("queries", "nesting"))
    return save_figure(fig, out_dir, name)


def _by_seed(df: pd.DataFrame, sweep: str, num: str, den: str | None = None, metric: str = "throughput_eps") -> dict:
    """{x: {seed: num's ``metric`` over den's}} on the same workload and stream (x, seed), or num's
    ``metric`` itself without ``den``.  Two methods that built the same global plan (equal digests) ran
    one computation: their ratio is exactly 1.  Capped cells stored no throughput: they are absent."""
    d = df[(df["x_name"] == sweep) & (df["metric"] == metric) & (df["status"] == "ok")]
    v = d.pivot_table(index=["x_value", "seed"], columns="algorithm", values="value", aggfunc="first")
    if num not in v or (den is not None and den not in v):
        return {}
    r = v[num] if den is None else v[num] / v[den]
    if den is not None and metric != model_paper.PLAN_COST:  # re-made plans at the paper's density: their own costs decide
        pl = df[df["x_name"] == sweep].dropna(subset=["plan"]).pivot_table(index=["x_value", "seed"], columns="algorithm", values="plan", aggfunc="first")
        if num in pl and den in pl:
            same = (pl[num] == pl[den]).reindex(r.index, fill_value=False)
            r = r.where(~(same & r.notna()), 1.0)
    out: dict = {}
    for (x, seed), val in r.dropna().items():
        if val > 0 and math.isfinite(val):
            out.setdefault(x, {})[seed] = float(val)
    return dict(sorted(out.items()))


def _per_seed(by_x: dict) -> list[float]:
    """One value per seed: the geometric mean of its values over the swept x (its workloads share its
    stream and queries' draws)."""
    seeds: dict = {}
    for r in by_x.values():
        for k, v in r.items():
            seeds.setdefault(k, []).append(math.log(v))
    return [math.exp(sum(v) / len(v)) for _, v in sorted(seeds.items(), key=lambda kv: str(kv[0]))]


def _series(by_x: dict) -> list[tuple[list, list]]:
    """One (x, value) series per seed, for a slope per seed."""
    seeds = sorted({k for r in by_x.values() for k in r}, key=str)
    return [([x for x in by_x if k in by_x[x]], [by_x[x][k] for x in by_x if k in by_x[x]]) for k in seeds]


def _capped_cells(df: pd.DataFrame, sweep: str | None = None) -> int:
    d = df if sweep is None else df[df["x_name"] == sweep]
    return int(d[d["status"].astype(str).str.startswith("capped")]["cell_id"].nunique())


def _every(by_x: dict, key: str) -> tuple[Verdict, str]:
    """"At every x": each x's per-seed effect judged by sentence ``key``; the weakest decides."""
    parts = {x: judge(S[key], ratio_interval(list(r.values()))) for x, r in by_x.items()}
    return all_of(list(parts.values())), "; ".join(f"{x:g}: {v.effect.text()} ({v.verdict})" for x, v in parts.items())


def _slope(by_x: dict, *, semilog: bool = False):
    """The slope of log(effect) on log(x) (on x itself for ``semilog``, a parameter that can be 0), one per
    seed over its swept values, the interval over seeds."""
    return paired_slope_interval(_series(by_x), semilog=semilog)


def _trend_verdict(key: str, by_x: dict, *, semilog: bool = False, up: bool = True) -> Verdict:
    """Sentence ``key``'s trend over the swept x; ``up``: the effect grows with x (a claim that it "falls as
    x decreases", or "grows with x"), else it falls with x."""
    e = _slope(by_x, semilog=semilog)
    return at_least(e if up else invert(e), S[key].size)


def _trend_detail(by_x: dict, what: str, semilog: bool = False) -> str:
    return (f"one slope of log {what} on {'' if semilog else 'log '}x per seed; by x "
            + ", ".join(f"{x:g}: {ratio_interval(list(r.values())).estimate:.2f}x" for x, r in by_x.items()))


def _cost_gains(df: pd.DataFrame, sweep: str, metric: str = "plan_cost") -> dict:
    """{method: {x: [NA's ``metric`` over the method's]}}: the planned cost (our Cost_tree^multi of
    each MPM; ``plan_cost_paper``: of the plan re-made at the paper's density) or the evaluator's
    deterministic ``work`` (join combinations examined)."""
    d = df[(df["x_name"] == sweep) & (df["metric"] == metric) & (df["status"] == "ok")]
    t = d.pivot_table(index=["x_value", "seed"], columns="algorithm", values="value", aggfunc="first")
    out: dict = {}
    for a in [c for c in t.columns if c != "NA"]:
        for (x, _), r in t.iterrows():
            if "NA" in t and pd.notna(r[a]) and r[a] > 0:
                out.setdefault(a, {}).setdefault(x, []).append(r["NA"] / r[a])
    return out


def _sweep_notes(df: pd.DataFrame, g: dict, sweep: str, label: str) -> list[str]:
    """Per method: throughput, planned cost and work gains over NA along ``sweep``, what was shared,
    and MOTTO's own objective."""
    notes = [f"{label}, throughput over NA, {a}: {_fmt(g, a)}" for a in METHODS if a in g]
    for what, m in (("planned cost gain", "plan_cost"), ("work gain", "work")):
        cg = _cost_gains(df, sweep, m)
        notes += [f"{label}, {what} over NA, {a}: {_fmt(cg, a)}" for a in METHODS if a in cg]
    return notes + _shared_notes(df, sweep) + _motto_objective_notes(df, sweep)


def _shared_notes(df: pd.DataFrame, sweep: str) -> list[str]:
    d = df[(df["x_name"] == sweep) & (df["metric"] == "shared_nodes")]
    if not len(d):
        return []
    t = d.groupby(["algorithm", "x_value"])["value"].mean()
    return [f"{sweep}, shared internal MPM nodes (mean over seeds), {a}: "
            + ", ".join(f"{x:g}: {v:.1f}" for x, v in t[a].items()) for a in METHODS if a in t.index.get_level_values(0)]


def _motto_objective_notes(df: pd.DataFrame, sweep: str) -> list[str]:
    """MOTTO's own planned gain (its trivial plan's cost over its Steiner tree's) beside the realized one."""
    d = df[(df["x_name"] == sweep) & (df["metric"] == "planned_gain") & (df["status"] == "ok")]
    out = []
    for a in ("SH-MDT", "MST"):
        x = d[d["algorithm"] == a]
        if len(x):
            g = {a: {k: list(v) for k, v in x.groupby("x_value")["value"]}}
            out.append(f"{sweep}, MOTTO's own objective for {a} (its planned gain, before the MPM realizes it): {_fmt(g, a)}")
    return out


def _matches_claim(df: pd.DataFrame) -> Claim:
    """Every method's global plan of one workload (x, seed) detects the same number of matches."""
    d = df[(df["x_name"] != "queries") & (df["metric"] == "matches") & (df["status"] == "ok")]
    grp = d.groupby(["x_name", "x_value", "seed"])["value"].nunique()
    return Claim.checked("every method's global plan detects the same matches",
                         "match counts across the methods of each workload (the tests compare the matches per pattern)",
                         none_differ(int((grp > 1).sum()), len(grp), "workloads"), unit="workload")


def fig13(inp: SectionInput) -> Section:
    df, paper_notes = model_paper.with_model_paper(inp)
    g = gains(df, "r", base="NA")
    cg = _cost_gains(df, "r")
    figs = _plot(g, "r", "MOTTO Fig. 13a (stock): throughput over NA", inp.figure_dir, "motto_fig13_throughput",
                 "normalized throughput (x NA)")
    figs += _plot(cg, "r", "MOTTO Fig. 13a (stock): planned cost of NA over the method's", inp.figure_dir, "motto_fig13_cost",
                  "NA cost / plan cost (x)")
    wg = _cost_gains(df, "r", "work")
    figs += _plot(wg, "r", "MOTTO Fig. 13a (stock): evaluator work of NA over the method's", inp.figure_dir, "motto_fig13_work",
                  "NA work / work (x)")
    notes = paper_notes + [f"r, throughput over NA, {a}: {_fmt(g, a)}" for a in METHODS if a in g]
    notes += [f"r, planned cost gain over NA, {a}: {_fmt(cg, a)}" for a in METHODS if a in cg]
    cp = _cost_gains(df, "r", model_paper.PLAN_COST)
    notes += [f"r, planned cost gain over NA at the paper's density (model_paper.parquet), {a}: {_fmt(cp, a)}" for a in METHODS if a in cp]
    notes += [f"r, work gain over NA (join combinations the evaluator examined; deterministic), {a}: {_fmt(wg, a)}"
              for a in METHODS if a in wg]
    notes += _shared_notes(df, "r")
    notes += _motto_objective_notes(df, "r")
    t = df[(df["metric"] == "plan_time_s") & (df["x_name"] == "r")].groupby(["algorithm"])["value"].median()
    notes.append("optimizer time (median s per workload): " + ", ".join(f"{a} {v:.3g}" for a, v in t.items()))
    claims = []
    per_unit = f"c = TREND = {TREND:g} per unit r (a {math.exp(TREND):.2f}x change from r = 0 to 1)"
    for a, key in (("MST", "mst_falls"), ("LCSE", "lcse_falls"), ("SH-MDT", "motto_falls")):
        # "falls as r decreases": the throughput over NA grows with r; its siblings on work and on the planned cost
        thr, wk, cost = _by_seed(df, "r", a, "NA"), _by_seed(df, "r", "NA", a, "work"), _by_seed(df, "r", "NA", a, "plan_cost")
        vw = _trend_verdict(key, wk, semilog=True)
        diag = _model_diagnosis(lambda m, a=a, key=key: _trend_verdict(key, _by_seed(df, "r", "NA", a, m), semilog=True), vw)
        claims.append(_row(key, _trend_verdict(key, thr, semilog=True), diagnose=diag,
                           detail=_trend_detail(thr, f"{a}/NA throughput ({per_unit})", True)))
        claims.append(_row(key, vw, sibling="work", diagnose=diag, detail=_trend_detail(wk, f"NA work / {a} work", True)))
        claims.append(_row(key, _trend_verdict(key, cost, semilog=True), sibling="plan_cost", diagnose=diag,
                           detail=_trend_detail(cost, f"NA cost / {a} cost (our Cost_tree^multi)", True)))

    def beats(metric: str) -> tuple[Verdict, str]:
        parts = {o: judge(S["motto_beats_mst_lcse"], ratio_interval(_per_seed(
            _by_seed(df, "r", "SH-MDT", o) if metric == "throughput_eps" else _by_seed(df, "r", o, "SH-MDT", metric))))
            for o in ("MST", "LCSE")}
        return all_of(list(parts.values())), ", ".join(f"over {o} {v.effect.text()} ({v.verdict})" for o, v in parts.items())
    (vt, dt), (vw, dw) = beats("throughput_eps"), beats("work")
    diag = _model_diagnosis(lambda m: beats(m)[0], vw)
    claims.append(_row("motto_beats_mst_lcse", vt, diagnose=diag, detail="per seed over the r values, identical plans: ratio 1: " + dt))
    claims.append(_row("motto_beats_mst_lcse", vw, sibling="work", diagnose=diag, detail="their work over MOTTO's, per seed: " + dw))
    (vt, dt), (vw, dw) = (_every(_by_seed(df, "r", "SH-MDT", "NA"), "motto_over_na"),
                          _every(_by_seed(df, "r", "NA", "SH-MDT", "work"), "motto_over_na"))
    diag = _model_diagnosis(lambda m: _every(_by_seed(df, "r", "NA", "SH-MDT", m), "motto_over_na")[0], vw)
    claims.append(_row("motto_over_na", vt, diagnose=diag, detail="SH-MDT/NA per seed, by r: " + dt))
    claims.append(_row("motto_over_na", vw, sibling="work", diagnose=diag, detail="NA/SH-MDT work per seed, by r: " + dw))
    claims.append(Claim.unjudged(S["stock_over_datacenter"], "not run: no data-center data is bundled (Fig. 13b)", UNCHECKED,
                                 "not checkable: needs Fig. 13b's data-center stream", unit=UNIT))
    claims.append(_matches_claim(df))
    capped = df[df["status"].astype(str).str.startswith("capped")]
    if len(capped):
        notes.append(f"{capped['cell_id'].nunique()} cells stopped at the work cap (no throughput; left out of the ratios)")
    return Section(inp.experiment, "MOTTO Figure 13: sharing techniques against the basic-workload ratio", figs, claims, notes,
                   caption=f"Geometric mean over {df['seed'].nunique()} seeds per point, 95% CI; dotted line: NA.")


def _optimizer(df: pd.DataFrame, metric: str) -> dict:
    d = df[(df["x_name"] == "queries") & (df["metric"] == metric) & (df["status"] == "ok")]
    out: dict = {}
    for _, r in d.iterrows():
        out.setdefault(r["algorithm"], {}).setdefault(r["x_value"], []).append(r["value"])
    return out


def fig14(inp: SectionInput) -> Section:
    df, notes = model_paper.with_model_paper(inp)
    figs, claims = [], []
    # (a) number of queries, optimizer side
    gain = _optimizer(df, "planned_gain")
    secs = _optimizer(df, "optimizer_s")
    if gain:
        figs += _plot(gain, "queries", "MOTTO Fig. 14a: planned gain (trivial cost / plan cost)", inp.figure_dir,
                      "motto_fig14a_gain", "planned gain (x)")
        figs += _plot(secs, "queries", "MOTTO Fig. 14a: optimizer time (geometric mean over seeds)", inp.figure_dir,
                      "motto_fig14a_time", "optimizer time (s)", ref_line=False)
        for a in ("exact", "annealing"):
            if a in gain:
                notes.append(f"queries, planned gain, {a}: {_fmt(gain, a)}")
                notes.append(f"queries, optimizer time (s), {a}: " + ", ".join(
                    f"{x:g}: {sum(v) / len(v):.3g}" for x, v in sorted(secs.get(a, {}).items())))
        fin = _optimizer(df, "finished").get("exact", {})
        notes.append("queries, exact search finished within its budget: " + ", ".join(
            f"{x:g}: {int(sum(v))} of {len(v)}" for x, v in sorted(fin.items())))
        parts = [judge(S["improvement_scales"], _slope(_by_seed(df, "queries", a, metric="planned_gain"))) for a in ("exact", "annealing")]
        claims.append(_row("improvement_scales", all_of(parts), label="exact and annealing: the planned improvement grows with the number of queries",
                           sibling="planned_gain",
                           detail="optimizer side (planned gain, not throughput): one slope of log planned gain on log queries per seed: "
                                  + ", ".join(f"{a} {v.effect.text()} ({v.verdict})" for a, v in zip(("exact", "annealing"), parts))))
        r = _by_seed(df, "queries", "exact", "annealing", "planned_gain")
        claims.append(_row("exact_better", judge(S["exact_better"], ratio_interval(_per_seed(r))), sibling="planned_gain",
                           label="the exact optimizer gives a better improvement than annealing",
                           detail="exact over annealing planned gain per seed (its query counts pooled); the same plan: ratio 1"))
        te = _slope(_by_seed(df, "queries", "exact", metric="optimizer_s"))
        ta = _slope(_by_seed(df, "queries", "annealing", metric="optimizer_s"))
        parts = [judge(S["optimizer_time"], te), comparable(ta, LINEAR)]
        claims.append(_row("optimizer_time", all_of(parts),
                           detail=f"slope of log optimizer time on log queries: exact {te.text()} (at least 1, {parts[0].verdict}); "
                                  f"annealing {ta.text()} (flat: 0 +- {LINEAR:g}, {parts[1].verdict}); one slope per seed"))
    a_figs, a_notes, a_claims = _fig14a_throughput(df, inp.figure_dir)
    b_figs, b_notes, b_claims = _fig14b(df, inp.figure_dir)
    figs += a_figs + b_figs
    notes += a_notes + b_notes
    # Figure 14(a): each claim on throughput, then its sibling on the optimizer's planned gain
    order = ("improvement_scales", "exact_better", "optimizer_time")
    claims = sorted(a_claims + claims, key=lambda c: (order.index(c.key) if c.key in order else len(order), bool(c.sibling))) + b_claims
    # (c) window ratio
    g = gains(df, "window_ratio", base="NA")
    if g:
        figs += _plot(g, "window_ratio", "MOTTO Fig. 14c: throughput over NA by window ratio", inp.figure_dir,
                      "motto_fig14c_window", "normalized throughput (x NA)", log_x=True)
        notes += _sweep_notes(df, g, "window_ratio", "window ratio")
        w = _by_seed(df, "window_ratio", "SH-MDT", "NA")
        v, detail = _every(w, "windows_all")
        claims.append(_row("windows_all", v, diagnose=not_modelled(NO_MODEL.replace("Spark tasks on cores", "window ratios")),
                           detail="SH-MDT/NA per seed, by window ratio: " + detail))
        if 1.0 in w:
            eq = w[1.0]
            parts = {x: judge(S["windows_equal_highest"], ratio_interval([eq[k] / r[k] for k in eq if k in r])) for x, r in w.items() if x != 1.0}
            claims.append(_row("windows_equal_highest", all_of(list(parts.values())), diagnose=not_modelled("not modelled: no cost model of the window ratios' gains"),
                               detail="SH-MDT/NA at 1:1 over that at each other ratio, per seed: "
                                       + ", ".join(f"{x:g}: {v.effect.text()} ({v.verdict})" for x, v in parts.items())))
            big = pooled({x: r for x, r in w.items() if x > 1})
            small = pooled({x: r for x, r in w.items() if x < 1})
            claims.append(_row("windows_smaller_lowest", judge(S["windows_smaller_lowest"], ratio_interval([big[k] / small[k] for k in big if k in small])),
                               diagnose=not_modelled("not modelled: no cost model of the window ratios' gains"),
                               detail="per seed, SH-MDT/NA over the ratios s_w > b_w over that over s_w < b_w (geometric means)"))
    # (d) nesting level
    g = gains(df, "nesting", base="NA")
    if g:
        figs += _plot(g, "nesting", "MOTTO Fig. 14d: throughput over NA by nesting level (r = 0)", inp.figure_dir,
                      "motto_fig14d_nesting", "normalized throughput (x NA)")
        notes += _sweep_notes(df, g, "nesting", "nesting")
        n = _by_seed(df, "nesting", "SH-MDT", "NA")
        v, detail = _every(n, "nesting_gains")
        nest = not_modelled("not modelled: no cost model of the nesting levels' gains")
        claims.append(_row("nesting_gains", v, diagnose=nest, detail="SH-MDT/NA per seed, by nesting level: " + detail))
        claims.append(_row("nesting_falls", judge(S["nesting_falls"], _slope(n)), diagnose=nest,
                           detail=_trend_detail(n, "SH-MDT/NA throughput")))
    claims.append(_matches_claim(df))
    capped = df[df["status"].astype(str).str.startswith("capped")]
    if len(capped):
        notes.append(f"{capped['cell_id'].nunique()} cells stopped at the work cap (no throughput; left out of the ratios)")
    return Section(inp.experiment, "MOTTO Figure 14: sensitivity studies", figs, claims, notes,
                   caption=f"Geometric mean over {df['seed'].nunique()} seeds per point, 95% CI; dotted line: NA (14a planned gain: "
                           "no gain; 14b speedup: one core). 14a's optimizer side is SH-MDT's sharing graph on the stream's "
                           "statistics (the plans that are run); 14b ran on a 2-core machine: past 2 cores the tasks share the "
                           "same 2 cores.")


# ---- Figure 14a, throughput half; Figure 14b -----------------------------------------------------------
def _same_plans(df: pd.DataFrame, sweep: str, a: str, b: str) -> tuple[int, int]:
    """How many workloads ``a`` and ``b`` planned identically (equal plan digests), of how many."""
    d = df[(df["x_name"] == sweep) & (df["metric"] == "plan_cost")]
    t = d.pivot_table(index=["x_value", "seed"], columns="algorithm", values="plan", aggfunc="first")
    if a not in t or b not in t:
        return 0, 0
    return int((t[a] == t[b]).sum()), len(t)


def _fig14a_throughput(df: pd.DataFrame, figure_dir) -> tuple[list, list[str], list[Claim]]:
    g = {a: v for a, v in gains(df, "queries", base="NA").items() if a in ("exact", "annealing")}
    if not g:
        return [], [], [Claim.unjudged(S["improvement_scales"], "not run", UNCHECKED, "not checkable: no queries-sweep cells", unit=UNIT,
                                       label=S["improvement_scales"].claim.format(alg="exact and annealing"))]
    figs = _plot(g, "queries", "MOTTO Fig. 14a: throughput over NA, exact vs annealing Steiner search", figure_dir,
                 "motto_fig14a_throughput", "normalized throughput (x NA)")
    notes = [f"queries, throughput over NA, {a}: {_fmt(g, a)}" for a in ("exact", "annealing") if a in g]
    wg = {a: v for a, v in _cost_gains(df, "queries", "work").items() if a in g}
    notes += [f"queries, work gain over NA (join combinations examined; deterministic), {a}: {_fmt(wg, a)}" for a in g if a in wg]
    same, n = _same_plans(df, "queries", "exact", "annealing")
    notes.append(f"queries, workloads where exact and annealing chose the same global plan: {same} of {n}")
    claims = []
    for a in ("exact", "annealing"):
        if a in g:
            by = _by_seed(df, "queries", a, "NA")
            diag = _model_diagnosis(lambda m, a=a: _trend_verdict("improvement_scales", _by_seed(df, "queries", "NA", a, m)), None)
            claims.append(_row("improvement_scales", _trend_verdict("improvement_scales", by), diagnose=diag,
                               label=S["improvement_scales"].claim.format(alg=a), detail=_trend_detail(by, f"{a}/NA throughput")))
    diag = _model_diagnosis(lambda m: judge(S["exact_better"], ratio_interval(_per_seed(_by_seed(df, "queries", "annealing", "exact", m)))), None)
    claims.append(_row("exact_better", judge(S["exact_better"], ratio_interval(_per_seed(_by_seed(df, "queries", "exact", "annealing")))),
                       diagnose=diag,
                       detail=f"exact / annealing throughput per seed (its query counts pooled); the same plan (on {same} of {n} workloads): ratio 1"))
    return figs, notes, claims


def _cores(df: pd.DataFrame, alg: str, metric: str = "throughput_eps") -> dict:
    d = df[(df["x_name"] == "cores") & (df["metric"] == metric) & (df["status"] == "ok") & (df["algorithm"] == alg)]
    return {x: list(v) for x, v in d.groupby("x_value")["value"]}


def _speedups(df: pd.DataFrame, alg: str) -> dict:
    """{k: [per-seed throughput at k cores over the same workload's at 1 core]}."""
    d = df[(df["x_name"] == "cores") & (df["metric"] == "throughput_eps") & (df["status"] == "ok") & (df["algorithm"] == alg)]
    t = d.pivot_table(index="seed", columns="x_value", values="value", aggfunc="first")
    if 1.0 not in t:
        return {}
    return {x: [v for v in (t[x] / t[1.0]).dropna()] for x in t.columns}


def _fig14b(df: pd.DataFrame, figure_dir) -> tuple[list, list[str], list[Claim]]:
    d = df[df["x_name"] == "cores"]
    algs = sorted(a for a in d["algorithm"].unique() if a != "serial")
    not_run = [Claim.unjudged(S["cores_scale"], "not run", UNCHECKED, "not checkable: no core cells", unit=UNIT)]
    if not len(d) or not algs:
        return [], [], not_run
    alg = algs[0]
    thr, ser, sp = _cores(df, alg), _cores(df, "serial"), _speedups(df, alg)
    bound = _cores(df, alg, "speedup_bound")
    figs = []
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.2, 3.2))
    for name, g, color, marker, ls in ((f"{alg}, k Spark tasks", thr, style(alg).color, style(alg).marker, "-"),
                                       ("same plan, one thread (no Spark)", ser, "#7F7F7F", "x", ":")):
        panels.ci_line(ax, name, *panels.geo_points(g), color=color, marker=marker, linestyle=ls)
    ax.axvline(2, color="#BBBBBB", linewidth=0.8, linestyle="--")
    ax.set_title("MOTTO Fig. 14b: throughput vs cores (machine: 2 cores, dashed)", fontsize=8)
    finish_axes(ax, xlabel=X_LABELS["cores"], ylabel="throughput (events/s)", integer_x=True, log_y=True)
    figs += save_figure(fig, figure_dir, "motto_fig14b_throughput")
    if sp:
        fig, ax = plt.subplots(figsize=(5.2, 3.2))
        xs = sorted(sp)
        panels.ci_line(ax, alg, *panels.geo_points(sp), label=f"{alg}: measured")
        bx = sorted(bound)
        ax.plot(bx, [log_ci(bound[x])[0] for x in bx], color=style(alg).color, linestyle="--", linewidth=0.9,
                label="partition's bound (planned cost)")
        ax.plot(xs, xs, color="#BBBBBB", linestyle=":", linewidth=0.8, label="linear")
        ax.axhline(1.0, color="#7F7F7F", linewidth=0.8, linestyle=":")
        ax.axvline(2, color="#BBBBBB", linewidth=0.8, linestyle="--")
        ax.set_title("MOTTO Fig. 14b: speedup over 1 core (machine: 2 cores, dashed)", fontsize=8)
        finish_axes(ax, xlabel=X_LABELS["cores"], ylabel="speedup (x 1 core)", integer_x=True)
        figs += save_figure(fig, figure_dir, "motto_fig14b_speedup")
    fmt = lambda g: "; ".join(f"{x:g}: {log_ci(v)[0]:,.0f}" for x, v in sorted(g.items()))
    notes = [f"cores, {alg} throughput (events/s, geometric mean over seeds) with k Spark tasks: {fmt(thr)}",
             f"cores, the same plan in one thread of the driver (no Spark), measured in the same cells: {fmt(ser)}",
             f"cores, speedup over 1 core (paired by workload): {_fmt({'s': sp}, 's')}",
             f"cores, the partition's bound (whole plan's planned cost / largest group's): {_fmt({'b': bound}, 'b')}"]
    for m, label in (("parallel_groups", "groups"), ("copied_nodes", "shared nodes copied into two or more groups"),
                     ("slowest_task_s", "slowest task's own detection time (s, median over runs)"),
                     ("elapsed_s", "wall time of the parallel run at the driver (s, median over runs)")):
        g = _cores(df, alg, m)
        if g:
            notes.append(f"cores, {label} (mean over seeds): " + ", ".join(f"{x:g}: {sum(v) / len(v):.3g}" for x, v in sorted(g.items())))
    claims = []
    two = sp.get(2.0)
    if two:
        claims.append(_row("cores_scale", judge(S["cores_scale"], ratio_interval(two)), diagnose=not_modelled(NO_MODEL),
                           detail=f"{alg}, 2 tasks on 2 cores over 1, paired per workload (c = {GREATLY:g}: linear would be 2x)"))
    more = {x: v for x, v in sp.items() if x > 2}
    claims.append(Claim.unjudged(S["cores_six"], (f"measured on a 2-core machine: {_fmt({'s': more}, 's')} over 1 core; past 2, the tasks "
                                                  "share the same 2 cores" if more else "not run"), UNCHECKED,
                                 "not checkable here: the machine has 2 cores, so the curve can only flatten past 2", unit=UNIT))
    claims.append(_parallel_claim(d, alg))
    return figs, notes, claims


def _parallel_claim(d: pd.DataFrame, alg: str) -> Claim:
    """The k-task run detects per pattern what the one-thread run detects: the cells' deterministic
    ``parallel_mismatches`` (patterns whose counts differ), or -- for cells stored before it was
    recorded, which asserted equality when they ran -- the two runs' total match counts."""
    claim = "the parallel run detects what the single-thread run detects"
    mm = d[(d["metric"] == "parallel_mismatches") & (d["status"] == "ok")]
    if len(mm):
        return Claim.checked(claim, f"patterns whose {alg} k-task counts differ from the one-thread run's, per cell: {int(mm['value'].sum())} in all",
                             none_differ(int((mm["value"] > 0).sum()), int(mm["cell_id"].nunique()), "cells"), unit="cell")
    m = d[(d["metric"] == "matches") & (d["status"] == "ok")].groupby(["x_value", "seed"])["value"].nunique()
    return Claim.checked(claim, "the cells lack parallel_mismatches (stored before it was recorded): total match counts of the k-task "
                                "and one-thread runs compared instead", none_differ(int((m > 1).sum()), len(m), "cells"), unit="cell")
