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
which can be 0) over the (x, seed) workloads.  The paper prints its figures without numbers in the
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
    ON_METRIC,
    UNCHECKED,
    Claim,
    Section,
    SectionInput,
    log_ci,
)
from experiments.reporting.mcep import _fmt, gains
from experiments.reporting.plotstyle import finish_axes, pyplot, save_figure, style
from experiments.reporting.rules import (
    BEATS,
    GREATLY,
    LINEAR,
    TREND,
    Verdict,
    all_of,
    at_least,
    comparable,
    invert,
    none_differ,
    pooled,
    ratio_interval,
    semilog_slope_interval,
    slope_interval,
)

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
    if den is not None:
        pl = df[df["x_name"] == sweep].dropna(subset=["plan"]).pivot_table(index=["x_value", "seed"], columns="algorithm", values="plan", aggfunc="first")
        if num in pl and den in pl:
            same = (pl[num] == pl[den]).reindex(r.index, fill_value=False)
            r = r.where(~(same & r.notna()), 1.0)
    out: dict = {}
    for (x, seed), val in r.dropna().items():
        if val > 0 and math.isfinite(val):
            out.setdefault(x, {})[seed] = float(val)
    return dict(sorted(out.items()))


def _flat(by_x: dict) -> list[float]:
    return [v for r in by_x.values() for v in r.values()]


def _xy(by_x: dict) -> tuple[list, list]:
    """(x, value) over every (x, seed) workload, for a slope."""
    return [x for x, r in by_x.items() for _ in r], _flat(by_x)


def _capped_cells(df: pd.DataFrame, sweep: str | None = None) -> int:
    d = df if sweep is None else df[df["x_name"] == sweep]
    return int(d[d["status"].astype(str).str.startswith("capped")]["cell_id"].nunique())


def _every(by_x: dict, c: float) -> tuple[Verdict, str]:
    """"At every x": each x's per-seed effect judged against ``c``; the weakest decides."""
    parts = {x: at_least(ratio_interval(list(r.values())), c) for x, r in by_x.items()}
    return all_of(list(parts.values())), "; ".join(f"{x:g}: {v.effect.text()} ({v.verdict})" for x, v in parts.items())


def _trend(by_x: dict, claim: str, paper: str, *, falls: bool = False, semilog: bool = False, what: str = "") -> Claim:
    """A trend over the swept x: the slope of log(effect) on log(x) (on x itself for ``semilog``, a
    parameter that can be 0) over the (x, seed) workloads, at least TREND in the paper's direction."""
    e = (semilog_slope_interval if semilog else slope_interval)(*_xy(by_x))
    return Claim.judged(claim, paper, at_least(invert(e) if falls else e, TREND),
                        detail=f"{'minus ' if falls else ''}the slope of log {what} on {'' if semilog else 'log '}x; by x "
                               + ", ".join(f"{x:g}: {ratio_interval(list(r.values())).estimate:.2f}x" for x, r in by_x.items()))


def _cost_gains(df: pd.DataFrame, sweep: str, metric: str = "plan_cost") -> dict:
    """{method: {x: [NA's ``metric`` over the method's]}}: the planned cost (our Cost_tree^multi of
    each MPM) or the evaluator's deterministic ``work`` (join combinations examined)."""
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
    return Claim.judged("every method's global plan detects the same matches", "each pattern is detected exactly (Sections 3, 5)",
                        none_differ(int((grp > 1).sum()), len(grp), "workloads"),
                        detail="match counts across the methods of each workload (the tests compare the matches per pattern)")


def fig13(inp: SectionInput) -> Section:
    df = inp.table
    g = gains(df, "r", base="NA")
    cg = _cost_gains(df, "r")
    figs = _plot(g, "r", "MOTTO Fig. 13a (stock): throughput over NA", inp.figure_dir, "motto_fig13_throughput",
                 "normalized throughput (x NA)")
    figs += _plot(cg, "r", "MOTTO Fig. 13a (stock): planned cost of NA over the method's", inp.figure_dir, "motto_fig13_cost",
                  "NA cost / plan cost (x)")
    wg = _cost_gains(df, "r", "work")
    figs += _plot(wg, "r", "MOTTO Fig. 13a (stock): evaluator work of NA over the method's", inp.figure_dir, "motto_fig13_work",
                  "NA work / work (x)")
    notes = [f"r, throughput over NA, {a}: {_fmt(g, a)}" for a in METHODS if a in g]
    notes += [f"r, planned cost gain over NA, {a}: {_fmt(cg, a)}" for a in METHODS if a in cg]
    notes += [f"r, work gain over NA (join combinations the evaluator examined; deterministic), {a}: {_fmt(wg, a)}"
              for a in METHODS if a in wg]
    notes += _shared_notes(df, "r")
    notes += _motto_objective_notes(df, "r")
    t = df[(df["metric"] == "plan_time_s") & (df["x_name"] == "r")].groupby(["algorithm"])["value"].median()
    notes.append("optimizer time (median s per workload): " + ", ".join(f"{a} {v:.3g}" for a, v in t.items()))
    claims = []
    per_unit = f"c = TREND = {TREND:g} per unit r (a {math.exp(TREND):.2f}x change from r = 0 to 1)"
    work = ON_METRIC["work"]  # each claim on throughput, then its sibling on work (NA's work over the method's, same rule)
    for a, who in (("MST", "MST's"), ("LCSE", "LCSE's"), ("SH-MDT", "MOTTO's")):
        paper = ("\"as the basic workload ratio (r) decreases ... the throughput of MST and LCSE decreases\"" if a != "SH-MDT"
                 else "\"as r decreases, the throughput of MOTTO decreases\"")
        claims.append(_trend(_by_seed(df, "r", a, "NA"), f"{who} throughput falls as r decreases", paper, semilog=True,
                             what=f"{a}/NA throughput ({per_unit})"))
        claims.append(_trend(_by_seed(df, "r", "NA", a, "work"), f"{who} gain over NA falls as r decreases {work}", paper, semilog=True,
                             what=f"NA work / {a} work ({per_unit})"))
    for a in ("MST", "LCSE", "SH-MDT"):  # the same trends on the deterministic planned cost
        claims.append(_trend(_by_seed(df, "r", "NA", a, "plan_cost"), f"{a}'s planned gain falls as r decreases",
                             "the trends above, on the plan's cost (our Cost_tree^multi) instead of the measured throughput",
                             semilog=True, what=f"NA cost / {a} cost ({per_unit})"))
    parts = {o: at_least(ratio_interval(_flat(_by_seed(df, "r", "SH-MDT", o))), GREATLY) for o in ("MST", "LCSE")}
    claims.append(Claim.judged("MOTTO beats MST and LCSE", "\"MOTTO gives much more efficient execution solution\" (than MST and LCSE)",
                               all_of(list(parts.values())),
                               detail="throughput per workload (r, seed), identical plans: ratio 1: " + ", ".join(
                                   f"SH-MDT/{o} {v.effect.text()} ({v.verdict})" for o, v in parts.items())))
    parts = {o: at_least(ratio_interval(_flat(_by_seed(df, "r", o, "SH-MDT", "work"))), GREATLY) for o in ("MST", "LCSE")}
    claims.append(Claim.judged(f"MOTTO beats MST and LCSE {work}", "\"MOTTO gives much more efficient execution solution\" (than MST and LCSE)",
                               all_of(list(parts.values())),
                               detail="work per workload (r, seed), identical plans: ratio 1: " + ", ".join(
                                   f"{o}/SH-MDT {v.effect.text()} ({v.verdict})" for o, v in parts.items())))
    v, detail = _every(_by_seed(df, "r", "SH-MDT", "NA"), BEATS)
    claims.append(Claim.judged("MOTTO improves over NA at every r", "Fig. 13a: MOTTO above NA at every r", v,
                               detail="SH-MDT/NA per seed, by r: " + detail))
    v, detail = _every(_by_seed(df, "r", "NA", "SH-MDT", "work"), BEATS)
    claims.append(Claim.judged(f"MOTTO improves over NA at every r {work}", "Fig. 13a: MOTTO above NA at every r", v,
                               detail="NA/SH-MDT work per seed, by r: " + detail))
    claims.append(Claim("the stock workload gains more than data-center monitoring",
                        "\"the improvement is more significant in the stock market monitoring than in data center monitoring\"",
                        "not run: no data-center data is bundled (Fig. 13b)", UNCHECKED, "not checkable: needs Fig. 13b's data-center stream"))
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
    df = inp.table
    figs, notes, claims = [], [], []
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
        grows = [slope_interval(*_xy(_by_seed(df, "queries", a, metric="planned_gain"))) for a in ("exact", "annealing")]
        parts = [at_least(e, TREND) for e in grows]
        claims.append(Claim.judged("the planned improvement grows with the number of queries",
                                   "\"the improvement with both approaches scales with an increasing number of queries\"", all_of(parts),
                                   detail="optimizer side (planned gain, not throughput): slope of log planned gain on log queries over "
                                          "(queries, seed) workloads: " + ", ".join(f"{a} {v.effect.text()} ({v.verdict})" for a, v in zip(("exact", "annealing"), parts))))
        r = _by_seed(df, "queries", "exact", "annealing", "planned_gain")
        claims.append(Claim.judged("the exact optimizer gives a better improvement than annealing",
                                   "\"as expected, the exact algorithm gives a better performance improvement\"",
                                   at_least(ratio_interval(_flat(r)), BEATS),
                                   detail="exact over annealing planned gain per workload (queries, seed); the same plan: ratio 1"))
        te = slope_interval(*_xy(_by_seed(df, "queries", "exact", metric="optimizer_s")))
        ta = slope_interval(*_xy(_by_seed(df, "queries", "annealing", metric="optimizer_s")))
        parts = [at_least(te, 1.0), comparable(ta, LINEAR)]
        claims.append(Claim.judged("the exact search's time grows fast; annealing's stays near constant",
                                   "\"the approximate solution converges in a constant running time of 20 seconds ... the overhead "
                                   "of exact solution increases fast with increasing number of queries\"", all_of(parts),
                                   detail=f"slope of log optimizer time on log queries: exact {te.text()} (at least 1, {parts[0].verdict}); "
                                          f"annealing {ta.text()} (flat: 0 +- {LINEAR:g}, {parts[1].verdict})"))
    a_figs, a_notes, a_claims = _fig14a_throughput(df, inp.figure_dir)
    b_figs, b_notes, b_claims = _fig14b(df, inp.figure_dir)
    figs += a_figs + b_figs
    notes += a_notes + b_notes
    claims += a_claims + b_claims
    # (c) window ratio
    g = gains(df, "window_ratio", base="NA")
    if g:
        figs += _plot(g, "window_ratio", "MOTTO Fig. 14c: throughput over NA by window ratio", inp.figure_dir,
                      "motto_fig14c_window", "normalized throughput (x NA)", log_x=True)
        notes += _sweep_notes(df, g, "window_ratio", "window ratio")
        w = _by_seed(df, "window_ratio", "SH-MDT", "NA")
        v, detail = _every(w, BEATS)
        claims.append(Claim.judged("MOTTO improves throughput at every window ratio", "\"MOTTO improves the throughput on all settings\" (Fig. 14c)",
                                   v, detail="SH-MDT/NA per seed, by window ratio: " + detail))
        if 1.0 in w:
            eq = w[1.0]
            parts = {x: at_least(ratio_interval([eq[k] / r[k] for k in eq if k in r]), BEATS) for x, r in w.items() if x != 1.0}
            claims.append(Claim.judged("the gain is highest when the windows are equal", "\"the performance gain for the case where s_w = b_w is the highest\"",
                                       all_of(list(parts.values())), detail="SH-MDT/NA at 1:1 over that at each other ratio, per seed: "
                                       + ", ".join(f"{x:g}: {v.effect.text()} ({v.verdict})" for x, v in parts.items())))
            big = pooled({x: r for x, r in w.items() if x > 1})
            small = pooled({x: r for x, r in w.items() if x < 1})
            claims.append(Claim.judged("a smaller source window gains least",
                                       "\"the performance gain for the case where s_w < b_w is the lowest\" (s_w > b_w decreases slightly)",
                                       at_least(ratio_interval([big[k] / small[k] for k in big if k in small]), BEATS),
                                       detail="per seed, SH-MDT/NA over the ratios s_w > b_w over that over s_w < b_w (geometric means)"))
    # (d) nesting level
    g = gains(df, "nesting", base="NA")
    if g:
        figs += _plot(g, "nesting", "MOTTO Fig. 14d: throughput over NA by nesting level (r = 0)", inp.figure_dir,
                      "motto_fig14d_nesting", "normalized throughput (x NA)")
        notes += _sweep_notes(df, g, "nesting", "nesting")
        n = _by_seed(df, "nesting", "SH-MDT", "NA")
        v, detail = _every(n, GREATLY)
        claims.append(Claim.judged("MOTTO still gains over NA at every nesting level",
                                   "\"MOTTO is still able to significantly reduce the execution cost of multiple nested pattern queries\"",
                                   v, detail="SH-MDT/NA per seed, by nesting level: " + detail))
        claims.append(_trend(n, "deeper nesting lowers MOTTO's gain", "\"the deeper nested level decreases the sharing opportunities\"",
                             falls=True, what="SH-MDT/NA throughput"))
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
        return [], [], [Claim("the throughput improvement grows with the number of queries",
                              "Fig. 14a (throughput)", "not run", UNCHECKED, "not checkable: no queries-sweep cells")]
    figs = _plot(g, "queries", "MOTTO Fig. 14a: throughput over NA, exact vs annealing Steiner search", figure_dir,
                 "motto_fig14a_throughput", "normalized throughput (x NA)")
    notes = [f"queries, throughput over NA, {a}: {_fmt(g, a)}" for a in ("exact", "annealing") if a in g]
    wg = {a: v for a, v in _cost_gains(df, "queries", "work").items() if a in g}
    notes += [f"queries, work gain over NA (join combinations examined; deterministic), {a}: {_fmt(wg, a)}" for a in g if a in wg]
    same, n = _same_plans(df, "queries", "exact", "annealing")
    notes.append(f"queries, workloads where exact and annealing chose the same global plan: {same} of {n}")
    claims = [_trend(_by_seed(df, "queries", a, "NA"), f"{a}: the throughput improvement grows with the number of queries",
                     "\"the improvement with both approaches scales with an increasing number of queries\"", what=f"{a}/NA throughput")
              for a in ("exact", "annealing") if a in g]
    claims.append(Claim.judged("the exact search's plans give more throughput than annealing's",
                               "\"as expected, the exact algorithm gives a better performance improvement\" (Fig. 14a, throughput)",
                               at_least(ratio_interval(_flat(_by_seed(df, "queries", "exact", "annealing"))), BEATS),
                               detail=f"exact / annealing throughput per workload (queries, seed); the same plan (on {same} of {n} workloads): ratio 1"))
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
    not_run = [Claim("throughput scales with CPU cores", "Fig. 14b: 1 to 6 cores, \"excellent scalability\"", "not run", UNCHECKED,
                     "not checkable: no core cells")]
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
        claims.append(Claim.judged("throughput grows from 1 to 2 cores", "Fig. 14b: \"MOTTO demonstrates excellent scalability\"",
                                   at_least(ratio_interval(two), GREATLY),
                                   detail=f"{alg}, 2 tasks on 2 cores over 1, paired per workload (c = {GREATLY:g}: linear would be 2x)"))
    more = {x: v for x, v in sp.items() if x > 2}
    claims.append(Claim("throughput keeps growing up to 6 cores", "Fig. 14b: throughput of 1 to 6 cores",
                        (f"measured on a 2-core machine: {_fmt({'s': more}, 's')} over 1 core; past 2, the tasks share the "
                         "same 2 cores" if more else "not run"), UNCHECKED,
                        "not checkable here: the machine has 2 cores, so the curve can only flatten past 2"))
    claims.append(_parallel_claim(d, alg))
    return figs, notes, claims


def _parallel_claim(d: pd.DataFrame, alg: str) -> Claim:
    """The k-task run detects per pattern what the one-thread run detects: the cells' deterministic
    ``parallel_mismatches`` (patterns whose counts differ), or -- for cells stored before it was
    recorded, which asserted equality when they ran -- the two runs' total match counts."""
    claim, paper = "the parallel run detects what the single-thread run detects", "\"the parallelism does not decrease\" (sharing composes queries into one plan)"
    mm = d[(d["metric"] == "parallel_mismatches") & (d["status"] == "ok")]
    if len(mm):
        return Claim.judged(claim, paper, none_differ(int((mm["value"] > 0).sum()), int(mm["cell_id"].nunique()), "cells"),
                            detail=f"patterns whose {alg} k-task counts differ from the one-thread run's, per cell: {int(mm['value'].sum())} in all")
    m = d[(d["metric"] == "matches") & (d["status"] == "ok")].groupby(["x_value", "seed"])["value"].nunique()
    return Claim.judged(claim, paper, none_differ(int((m > 1).sum()), len(m), "cells"),
                        detail="the cells lack parallel_mismatches (stored before it was recorded): total match counts of the k-task "
                               "and one-thread runs compared instead")
