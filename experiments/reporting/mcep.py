"""The report sections of MCEP Figures 10, 11, 13 and 14 (Kolchinsky & Schuster, SIGMOD'19, Section 6
and Appendix D).

A gain is paired: an algorithm's throughput over TRIVIAL's (written orders, nothing shared) on the
same workload, stream and seed (for the reshuffling sweep, adaptive over static); per swept value
the geometric mean over seeds with its 95% interval.  The *cost gain* is the trivial global plan's
cost over the plan's (same plan kind).  A claim counts only where the interval excludes 1
(otherwise "not measurable"); every verdict's rule is stated beside it.  Beside every claim on
throughput stands a sibling row on the deterministic ``work`` (join candidates examined; the
baseline's work over the method's), with the same rule and size and the same pairing
(:func:`~experiments.reporting.mcep_paired.paired`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import pandas as pd

import experiments.reporting.panels as panels
from experiments.reporting.core import (
    HOLDS,
    REVERSED,
    ON_METRIC,
    UNCHECKED,
    Claim,
    Section,
    SectionInput,
    log_ci,
)
from experiments.reporting.mcep_paired import (
    LOCAL,
    WORKLOAD,
    capped_points,
    cell_table,
    counts,
    interval,
    paired,
    slope,
    values,
    within_slope,
    worst,
)
from experiments.reporting.plotstyle import finish_axes, pyplot, save_figure, style
from experiments.reporting.rules import (
    BEATS,
    GREATLY,
    TREND,
    all_of,
    at_least,
    comparable,
    invert,
)

WORK = "work"
ON_WORK = ON_METRIC[WORK]

X_LABELS = {
    "workload_size": "patterns in the workload",
    "pattern_size": "average pattern size (events)",
    "search_time": "search time (s)",
    "window": "time window (s)",
    "count_window": "count window (events)",
    "density": "MPG density (target)",
    "rate_diff": "normalized arrival-rate difference",
    "reshuffle_every": "events between reshuffles",
}
#: sweeps over orders of magnitude (MCEP Fig. 11b's search times, Fig. 13's 10-1,000 events between reshuffles)
LOG_X = ("search_time", "reshuffle_every")
ORDER = ["SA-EDGE", "TS-EDGE", "SA-VERTEX4", "TS-VERTEX4", "SA-VERTEX8", "TS-VERTEX8", "SA-EDGE-PREFIX",
         "TS-EDGE-PREFIX", "adaptive"]


def _wide(df: pd.DataFrame) -> pd.DataFrame:
    d = df[df["status"] == "ok"]
    return d.pivot_table(index=["x_name", "x_value", "seed", "algorithm"], columns="metric", values="value",
                         aggfunc="first").reset_index()


def gains(df: pd.DataFrame, sweep: str, metric: str = "throughput_eps", base: str = "TRIVIAL", *, invert: bool = False) -> dict:
    """{algorithm: {x: [per-seed ratio]}} of ``metric`` over ``base`` (throughput; ``base`` over the
    algorithm with ``invert``, as for work), or trivial_cost / plan_cost with ``metric="cost"``."""
    w = _wide(df)
    w = w[w["x_name"] == sweep]
    out: dict = {}
    if metric == "cost":
        for _, r in w.iterrows():
            if r["algorithm"] == base or pd.isna(r.get("plan_cost")) or not r.get("plan_cost"):
                continue
            out.setdefault(r["algorithm"], {}).setdefault(r["x_value"], []).append(r["trivial_cost"] / r["plan_cost"])
        return out
    if metric not in w:
        return out
    b = w[w["algorithm"] == base].set_index(["x_value", "seed"])[metric]
    for _, r in w[w["algorithm"] != base].iterrows():
        key = (r["x_value"], r["seed"])
        if key in b.index and b[key] and not pd.isna(r[metric]):
            ratio = b[key] / r[metric] if invert else r[metric] / b[key]
            out.setdefault(r["algorithm"], {}).setdefault(r["x_value"], []).append(ratio)
    return out


def _plot(g: dict, sweep: str, title: str, out_dir, name: str, ylabel: str, capped: dict | None = None) -> list:
    """One gain plot; ``capped`` ({algorithm: {x}}) marks with an open marker the points where a seed
    hit a cap and is left out."""
    if not g:
        return []
    capped = capped or {}
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.2, 3.2))
    for alg in [a for a in ORDER if a in g] + sorted(a for a in g if a not in ORDER):
        xs, means, lows, highs = panels.geo_points(g[alg])
        panels.ci_line(ax, alg, xs, means, lows, highs)
        st = style(alg)
        open_pts = [(x, m) for x, m in zip(xs, means) if x in capped.get(alg, ())]
        if open_pts:
            ax.plot(*zip(*open_pts), linestyle="none", marker=st.marker, markerfacecolor="white", markeredgecolor=st.color,
                    markersize=7, markeredgewidth=1.4, zorder=4)  # above every method's filled markers
    if any(capped.get(a) for a in g):
        ax.plot([], [], linestyle="none", marker="o", markerfacecolor="white", markeredgecolor="#333333", markersize=7,
                label="open: a seed hit the cap (left out)")
    ax.axhline(1.0, color="#7F7F7F", linewidth=0.8, linestyle=":")
    ax.set_ylim(*_gain_limits(g))
    if sweep in LOG_X:
        ticks = sorted({x for a in g for x in g[a]})
        ax.set_xscale("log")
        ax.set_xticks(ticks, [f"{x:g}" for x in ticks])
        ax.minorticks_off()
    ax.set_title(title, fontsize=8)
    finish_axes(ax, xlabel=X_LABELS.get(sweep, sweep), ylabel=ylabel, log_y=True,
                integer_x=sweep in ("workload_size", "pattern_size", "count_window"))
    return save_figure(fig, out_dir, name)


def _gain_limits(g: dict) -> tuple[float, float]:
    """The y range: the means and 1x, a factor CLIP_MARGIN either side; an interval reaching further
    (a few seeds give wide intervals) runs off the axis rather than flattening every line."""
    means = [log_ci(v)[0] for xs in g.values() for v in xs.values()]
    means = [m for m in means if math.isfinite(m) and m > 0] + [1.0]
    return min(means) / CLIP_MARGIN, max(means) * CLIP_MARGIN


CLIP_MARGIN = 4.0
CLIPPED = f"error bars reaching beyond {CLIP_MARGIN:g}x of the means are cut at the axis"


def _fmt(g: dict, alg: str) -> str:
    if alg not in g:
        return "n/a"
    parts = []
    for x in sorted(g[alg]):
        gm, lo, hi, n = log_ci(g[alg][x])
        parts.append(f"{x:g}: {gm:.2f}x" + (f" [{lo:.2f}, {hi:.2f}]" if n > 1 else ""))
    return "; ".join(parts)


def _counts_claim(df: pd.DataFrame) -> Claim:
    w = _wide(df)
    if "matches" not in w:
        return Claim("every global plan detects the same matches", "Section 3 (a global plan detects each pattern)", "n/a", UNCHECKED)
    grp = w.dropna(subset=["matches"]).groupby(["x_name", "x_value", "seed"])["matches"].nunique()  # capped cells have none
    same = int((grp == 1).sum())
    return Claim("every global plan of a workload detects the same matches",
                 "each pattern is detected exactly (Sections 3, 5)",
                 f"equal match counts across algorithms in {same} of {len(grp)} workload/stream cells",
                 HOLDS if same == len(grp) and len(grp) else REVERSED if len(grp) else UNCHECKED,
                 "holds: identical counts in every cell group (tests compare the matches themselves per pattern)")


def _datasets(df: pd.DataFrame) -> list[str]:
    """The datasets of the rows, NASDAQ (stock) first as the papers' panels are."""
    names = sorted(set(df["dataset"].dropna()))
    return sorted(names, key=lambda d: (d != "nasdaq", d))


def _section(inp: SectionInput, title: str, sweeps: list[str], claims_fn) -> Section:
    """One section of an MCEP figure: per dataset (the paper's stock and traffic panels) a plot per
    sweep and the figure's claims, prefixed with the dataset when there are several."""
    df = inp.table
    datasets = _datasets(df)
    figs, notes, claims = [], [], []
    for ds in datasets:
        d = df[df["dataset"] == ds]
        cells = cell_table(d)
        # the first dataset keeps the figure names of a one-dataset run; the others are named by dataset
        stem = inp.experiment if ds == datasets[0] else f"{inp.experiment}_{ds}"
        where = f" ({ds})" if len(datasets) > 1 else ""
        for sweep in sweeps:
            base = "static" if sweep == "reshuffle_every" else "TRIVIAL"
            g = gains(d, sweep, base=base)
            label = "throughput, adaptive / static" if base == "static" else "throughput gain over TRIVIAL"
            figs += _plot(g, sweep, f"{inp.experiment}{where}: {label}", inp.figure_dir, f"{stem}_{sweep}", label + " (x)",
                          capped=capped_points(_sweep(cells, sweep), base))
            for alg in [a for a in ORDER if a in g]:
                notes.append(f"{ds}, {sweep}, {alg} ({label}): {_fmt(g, alg)}")
            if base == "static":  # the deterministic sibling: work, static / adaptive
                wg = gains(d, sweep, metric=WORK, base=base, invert=True)
                wl = "work, static / adaptive"
                figs += _plot(wg, sweep, f"{inp.experiment}{where}: {wl}", inp.figure_dir, f"{stem}_{sweep}_work", wl + " (x)",
                              capped=capped_points(_sweep(cells, sweep), base))
                for alg in [a for a in ORDER if a in wg]:
                    notes.append(f"{ds}, {sweep}, {alg} ({wl}): {_fmt(wg, alg)}")
            if base == "TRIVIAL":
                cg = gains(d, sweep, metric="cost")
                if sweep == "search_time":  # Figure 11's claims are about plan quality over time: the planned cost too
                    figs += _plot(cg, sweep, f"{inp.experiment}{where}: planned cost gain over TRIVIAL", inp.figure_dir,
                                  f"{stem}_{sweep}_cost", "cost gain, trivial / plan (x)")
                for alg in [a for a in ORDER if a in cg]:
                    notes.append(f"{ds}, {sweep}, {alg} (cost gain, trivial/plan): {_fmt(cg, alg)}")
        for c in claims_fn(d) + [_counts_claim(d)]:
            claims.append(dataclasses.replace(c, claim=f"{ds}: {c.claim}") if len(datasets) > 1 else c)
    if "traffic" not in datasets and claims_fn in _TRAFFIC_PANELS:
        claims.append(_not_run(*_TRAFFIC_PANELS[claims_fn]))
    w = _wide(df)
    if "mpg_density" in w:
        d = w.groupby("x_name")["mpg_density"].mean()
        notes.append("measured MPG density (mean over cells) by sweep: " + ", ".join(f"{k} {v:.2f}" for k, v in d.items()))
    if "steps_per_s" in w:
        s = w.dropna(subset=["steps_per_s"])
        if len(s):
            notes.append(f"search steps per second: median {s['steps_per_s'].median():,.0f} (min {s['steps_per_s'].min():,.0f})")
    capped = df[df["status"].astype(str).str.startswith("capped")]
    if len(capped):
        timed = capped.loc[capped["metric"] == "capped_elapsed_s", "cell_id"].nunique()
        notes.append(f"{capped['cell_id'].nunique()} cells stopped at a cap (left out of the plotted means); {timed} of them stored "
                     "the time to the cap, so in the claims a ratio over them is a bound (experiments/reporting/mcep_paired.py)")
    if "reshuffle_every" in sweeps:
        notes.append("reshuffling plots: an adaptive run that switched no plan ran the static plan, so its throughput ratio "
                     "is run-to-run noise; the claims count such a workload as a tie (ratio 1), the work plot shows it exactly")
    n_seeds = df["seed"].nunique()
    return Section(inp.experiment, title, figs, claims, notes,
                   caption=f"Geometric mean over {n_seeds} seeds per point (a seed = workload + stream), 95% CI ({CLIPPED}); dotted line: no gain.")


# ---- claims: the rule set on paired effects per workload (experiments.reporting.mcep_paired) ----------
def _judge(claim: str, paper: str, p: pd.DataFrame, c: float, *, trend: str = "", falls: bool = False, extra: str = "") -> Claim:
    """A claim of an effect (or, with ``trend="across"`` / ``"within"``, a slope) of at least ``c``
    (with ``falls``, a slope of at most ``-c``)."""
    e = interval(p) if not trend else slope(p) if trend == "across" else within_slope(p)
    return Claim.judged(claim, paper, at_least(invert(e) if falls else e, c), detail="; ".join(x for x in (counts(p), extra) if x))


def _on_work(claim: str, paper: str, t: pd.DataFrame, judged) -> Claim:
    """The sibling row of a throughput claim on work: ``judged(claim, paper)`` builds it, unless the
    cells of ``t`` stored no work (not checkable)."""
    if t["work"].notna().any():
        return judged(claim, paper)
    return Claim(claim, paper, "n/a", UNCHECKED, "not checkable: these cells stored no work")


def _not_run(what: str, paper: str) -> Claim:
    return Claim(what, paper, "n/a", UNCHECKED, "not checkable: these cells were not run (the stored rows are nasdaq only)")


def _sweep(t: pd.DataFrame, sweep: str) -> pd.DataFrame:
    return t[t["x_name"] == sweep]


# ---- Figure 10 --------------------------------------------------------------------------------------
FIG10_LOW = 21.0  # "21x to 72x": the smallest gain the paper reports over its workload sizes


def _fig10_claims(df: pd.DataFrame) -> list[Claim]:
    t = cell_table(df)
    ws, ps = _sweep(t, "workload_size"), _sweep(t, "pattern_size")
    work = interval(paired(ws, LOCAL, "TRIVIAL", WORK))
    # each claim on throughput, then its sibling on work (TRIVIAL's work over the method's, same rule and c)
    return [
        _judge("throughput gain of the local search (SA/TS-EDGE) over the trivial global plan, at least 21x",
               "21x to 72x over the workload sizes (Fig. 10)", paired(ws, LOCAL, "TRIVIAL"), FIG10_LOW,
               extra=f"work gain {work.text()}"),
        _judge(f"gain of the local search (SA/TS-EDGE) over the trivial global plan, at least 21x {ON_WORK}",
               "21x to 72x over the workload sizes (Fig. 10)", paired(ws, LOCAL, "TRIVIAL", WORK), FIG10_LOW),
        _judge("the local search's gain grows with the workload size (slope of log gain on log patterns)",
               "growing with the number of patterns (Fig. 10)", paired(ws, LOCAL, "TRIVIAL"), TREND, trend="across"),
        _judge(f"the local search's gain grows with the workload size (slope of log gain on log patterns) {ON_WORK}",
               "growing with the number of patterns (Fig. 10)", paired(ws, LOCAL, "TRIVIAL", WORK), TREND, trend="across"),
        _judge("the local search's gain grows with the pattern size (slope of log gain on log size)",
               "improves even more for longer patterns, up to two orders of magnitude (Fig. 11a)",
               paired(ps, LOCAL, "TRIVIAL"), TREND, trend="across",
               extra="the 100x is at the paper's longest patterns; ours stop at 5 events"),
        _judge(f"the local search's gain grows with the pattern size (slope of log gain on log size) {ON_WORK}",
               "improves even more for longer patterns, up to two orders of magnitude (Fig. 11a)",
               paired(ps, LOCAL, "TRIVIAL", WORK), TREND, trend="across"),
        _judge("SA-EDGE beats TS-EDGE", "in most cases SA better than TS (6.2.1)", paired(t, "SA-EDGE", "TS-EDGE"), BEATS,
               extra="a workload where both returned one plan is a tie (ratio 1)"),
        _judge(f"SA-EDGE beats TS-EDGE {ON_WORK}", "in most cases SA better than TS (6.2.1)", paired(t, "SA-EDGE", "TS-EDGE", WORK), BEATS,
               extra="TS-EDGE's work over SA-EDGE's; a workload where both returned one plan is a tie (ratio 1)"),
    ]


def fig10(inp: SectionInput) -> Section:
    return _section(inp, "MCEP Figure 10: gain over the trivial global plan against workload and pattern size",
                    ["workload_size", "pattern_size"], _fig10_claims)


# ---- Figure 11 --------------------------------------------------------------------------------------
HOODS = {"EDGE": ("SA-EDGE", "TS-EDGE"), "VERTEX4": ("SA-VERTEX4", "TS-VERTEX4"), "VERTEX8": ("SA-VERTEX8", "TS-VERTEX8"),
         "EDGE-PREFIX": ("SA-EDGE-PREFIX", "TS-EDGE-PREFIX")}


def _pooled_ratio(t: pd.DataFrame, num: Sequence[str], den: Sequence[str], metric: str = "throughput_eps") -> pd.DataFrame:
    """Per workload, pooled ``num`` over pooled ``den`` (each the geometric mean over its distinct plans)."""
    a, b = values(t, num, metric), values(t, den, metric)
    m = a.merge(b[WORKLOAD + ["ratio", "same_plan"]], on=WORKLOAD, suffixes=("", "_den"))
    m["ratio"] = m["ratio"] / m["ratio_den"] if metric != "work" else m["ratio_den"] / m["ratio"]
    m["same_plan"] = m["same_plan"] | m["same_plan_den"]
    return m[WORKLOAD + ["ratio", "lower", "upper", "same_plan"]]


def _fig11_claims(df: pd.DataFrame) -> list[Claim]:
    t = _sweep(cell_table(df), "search_time")
    if t.empty:
        return []
    xmax = t["x_value"].max()
    last = t[t["x_value"] == xmax]
    per = {h: at_least(interval(_pooled_ratio(last, HOODS["EDGE"], HOODS[h])), BEATS) for h in ("VERTEX4", "VERTEX8")}
    work = {h: interval(_pooled_ratio(last, HOODS["EDGE"], HOODS[h], "work")).text() for h in per}
    v = per["VERTEX4"]
    claims = [Claim.judged(
        "EDGE is the best neighbourhood (pooled SA/TS per neighbourhood, at the longest search time)",
        "N_edge outperforms N_vertex^k (Fig. 10, 11)",
        dataclasses.replace(v, verdict=worst(list(per.values())), rule=v.rule + "; against VERTEX4 and VERTEX8, the worse verdict"),
        detail=f"at {xmax:g} s; " + "; ".join(f"over {h}: {per[h].effect.text()} {per[h].verdict} (work {work[h]})" for h in per))]
    per_w = {h: at_least(interval(_pooled_ratio(last, HOODS["EDGE"], HOODS[h], WORK)), BEATS) for h in per}
    v = per_w["VERTEX4"]
    claims.append(Claim.judged(
        f"EDGE is the best neighbourhood (pooled SA/TS per neighbourhood, at the longest search time) {ON_WORK}",
        "N_edge outperforms N_vertex^k (Fig. 10, 11)",
        dataclasses.replace(v, verdict=worst(list(per_w.values())), rule=v.rule + "; against VERTEX4 and VERTEX8, the worse verdict"),
        detail=f"at {xmax:g} s, the neighbourhood's work over EDGE's; " + "; ".join(f"over {h}: {per_w[h].effect.text()} {per_w[h].verdict}" for h in per_w)))
    claims.append(_judge("EDGE-PREFIX (prefix sharing only) below EDGE, at the longest search time",
                         "up to 5x below EDGE (Fig. 10, 11)", _pooled_ratio(last, HOODS["EDGE"], HOODS["EDGE-PREFIX"]), BEATS,
                         extra=f"EDGE over EDGE-PREFIX at {xmax:g} s; the 5x is the paper's largest gap, not judged"))
    claims.append(_judge(f"EDGE-PREFIX (prefix sharing only) below EDGE, at the longest search time {ON_WORK}",
                         "up to 5x below EDGE (Fig. 10, 11)", _pooled_ratio(last, HOODS["EDGE"], HOODS["EDGE-PREFIX"], WORK), BEATS,
                         extra=f"EDGE-PREFIX's work over EDGE's at {xmax:g} s"))
    claims.append(_judge("plan quality rises with search time: planned cost gain of SA/TS-EDGE (slope per workload)",
                         "the output plan quality improves with the time limit (Fig. 11b)", values(t, LOCAL, "cost_gain"), TREND,
                         trend="within", extra="throughput gain slope " + within_slope(paired(t, LOCAL, "TRIVIAL")).text()))
    xs = sorted(t["x_value"].unique())
    late = t[t["x_value"].isin(xs[-2:])]
    ts = at_least(within_slope(values(late, "TS-EDGE", "cost_gain")), TREND)
    sa = comparable(within_slope(values(late, "SA-EDGE", "cost_gain")), TREND)
    claims.append(Claim.judged(
        "SA converges while TS keeps improving (planned cost gain between the two longest search times)",
        "SA converges to a constant, TS keeps improving for longer limits (Fig. 11b)",
        dataclasses.replace(ts, verdict=worst([ts, sa]), rule=f"TS: {ts.rule}; SA: {sa.rule}; the worse verdict"),
        detail=f"TS-EDGE slope {ts.effect.text()} {ts.verdict}; SA-EDGE slope {sa.effect.text()} {sa.verdict} (comparable to 0)"))
    return claims


def fig11(inp: SectionInput) -> Section:
    return _section(inp, "MCEP Figure 11: neighbourhoods and meta-heuristics against search time", ["search_time"], _fig11_claims)


# ---- Figure 13 --------------------------------------------------------------------------------------
ADAPTIVE_GAIN = 10.0  # "at least 10 times higher throughput"


def _by_x(p: pd.DataFrame) -> str:
    """The paired effect per swept value, with its interval."""
    return "by events between reshuffles: " + "; ".join(f"{x:g}: {interval(g).text()}" for x, g in p.groupby("x_value"))


def _adaptive_activity(rs: pd.DataFrame) -> Claim:
    """How the adaptive method behaved (MCEP 6.2.3; experiments/exps/mcep_adaptive.py): per swept value the
    drifts detected and the plans switched per run, and whether it replayed any event (plan migration
    enters each event once per plan in force, the old plan running beside the new until its partial
    matches expire)."""
    a = rs[(rs["algorithm"] == "adaptive") & ~rs["capped"]]
    claim = "the adaptive method re-plans on detected drift and switches plans without replaying events"
    paper = "relaunching the optimizer when a significant change is detected (Sections 3, 6.2.3)"
    cols = ("replayed_events", "drift_detections", "replans", "overlap_events")
    if a.empty or any(c not in a for c in cols) or a["replayed_events"].isna().all():
        return Claim(claim, paper, "n/a", UNCHECKED, "not checkable: no adaptive cell stored its replayed events")
    per = []
    for x, g in a.groupby("x_value"):
        per.append(f"{x:g}: drift detected {g['drift_detections'].mean():.1f} times per run (max {g['drift_detections'].max():g}), "
                   f"plans switched {g['replans'].mean():.1f} (max {g['replans'].max():g}, {int((g['replans'] > 0).sum())} of {len(g)} runs), "
                   f"events run by two plans {g['overlap_events'].mean():.0f}")
    replayed = int(a["replayed_events"].sum())
    return Claim(claim, paper, f"{len(a)} adaptive runs, {replayed} replayed events; by events between reshuffles: " + "; ".join(per),
                 HOLDS if replayed == 0 else REVERSED,
                 "holds if no run replayed an event (equal matches to static: the row 'every global plan ... the same matches')")


def _fig13_claims(df: pd.DataFrame) -> list[Claim]:
    t = cell_table(df)
    rs = _sweep(t, "reshuffle_every")
    stock = set(df["dataset"]) == {"nasdaq"}  # the count-window claim is the paper's for stock
    thr, work = paired(rs, "adaptive", "static"), paired(rs, "adaptive", "static", WORK)
    # each claim on throughput, then its sibling on work (the baseline's work over the method's)
    return [
        _judge("adaptive planning over static under reshuffled types, at least 10x",
               "at least 10x (Fig. 13)", thr, ADAPTIVE_GAIN, extra=_by_x(thr) if len(thr) else ""),
        _on_work(f"adaptive planning over static under reshuffled types, at least 10x {ON_WORK}", "at least 10x (Fig. 13)", rs,
                 lambda claim, paper: _judge(claim, paper, work, ADAPTIVE_GAIN, extra=_by_x(work) if len(work) else "")),
        _adaptive_activity(rs),
        _judge("frequent reshuffles degrade the static plan: its throughput grows with the events between reshuffles",
               "extremely frequent input changes clearly reduce system performance (Fig. 13)",
               values(rs, "static", "throughput_eps"), TREND, trend="within",
               extra="one slope per seed (the same workload and stream, reshuffled more or less often)"),
        _on_work(f"frequent reshuffles degrade the static plan: its work falls with the events between reshuffles {ON_WORK}",
                 "extremely frequent input changes clearly reduce system performance (Fig. 13)", rs,
                 lambda claim, paper: _judge(claim, paper, values(rs, "static", WORK), TREND, trend="within", falls=True,
                                             extra="minus the slope of log work on log events between reshuffles, one slope per seed")),
        *_gain_grows("larger time windows give larger gaps: the local search's gain grows with the window",
                     "increasing the window leads to bigger differences in plan quality (Fig. 11c)", _sweep(t, "window")),
    ] + (_gain_grows("on stock, the local search's gain grows with the count window",
                     "even bigger boost for larger count windows on stock (Fig. 11d)", _sweep(t, "count_window")) if stock else [])


def _gain_grows(claim: str, paper: str, t: pd.DataFrame) -> list[Claim]:
    """The local search's gain over TRIVIAL grows across the swept value: on throughput, then on work."""
    return [_judge(claim, paper, paired(t, LOCAL, "TRIVIAL"), TREND, trend="across"),
            _judge(f"{claim} {ON_WORK}", paper, paired(t, LOCAL, "TRIVIAL", WORK), TREND, trend="across")]


def fig13(inp: SectionInput) -> Section:
    return _section(inp, "MCEP Figure 13: time window, count window and adaptivity under reshuffling",
                    ["window", "count_window", "reshuffle_every"], _fig13_claims)


# ---- Figure 14 --------------------------------------------------------------------------------------
def _fig14_claims(df: pd.DataFrame) -> list[Claim]:
    t = cell_table(df)
    out = []
    for sweep, what in (("density", "MPG density"), ("rate_diff", "arrival-rate difference")):
        for metric in ("throughput_eps", WORK):  # each claim on throughput, then its sibling on work
            label = "" if metric != WORK else f" {ON_WORK}"
            p = paired(_sweep(t, sweep), LOCAL, "TRIVIAL", metric)
            by_x = "; ".join(f"{x:g}: {interval(g).text()}" for x, g in p.groupby("x_value"))
            out.append(_judge(f"high gains of the local search over the trivial plan across the {what} values{label}",
                              "high gains with no dominant dependency on either parameter (App. D)", p, GREATLY,
                              extra=f"by value: {by_x}"))
        for metric in ("throughput_eps", WORK):
            label = "" if metric != WORK else f" {ON_WORK}"
            p = paired(_sweep(t, sweep), LOCAL, "TRIVIAL", metric)
            out.append(Claim.judged(f"no dominant dependency of the gain on the {what} (slope of log gain on log value near 0){label}",
                                    "no dominant dependency on either parameter (App. D)", comparable(slope(p), TREND)))
    algs = set(t["algorithm"])
    if not {"SH", "RE"} <= algs:
        out.append(Claim("the local search beats the better of SH and RE in every configuration",
                         "consistently outperforms the better of SH and RE (App. D, Fig. 14)", "n/a", UNCHECKED,
                         "not checkable: SH and RE were not run in these cells (only SA-EDGE, TS-EDGE and TRIVIAL)"))
        return out
    for metric in ("throughput_eps", WORK):
        label = "" if metric != WORK else f" {ON_WORK}"
        p = _over_better(t[t["x_name"].isin(["density", "rate_diff"])], metric)
        parts = {(n, x): at_least(interval(g), BEATS) for (n, x), g in p.groupby(["x_name", "x_value"])}
        v = all_of(list(parts.values()))
        out.append(Claim.judged(f"the local search beats the better of SH and RE in every configuration{label}",
                                "consistently outperforms the better of SH and RE (App. D, Fig. 14)", v,
                                detail="; ".join(f"{n}={x:g}: {e.effect.text()} ({e.verdict})" for (n, x), e in parts.items())
                                + f"; over all configurations {interval(p).text()}"))
    return out


def _over_better(t: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Per workload, the local search's effect over the better of SH and RE there: the smaller of its
    effects over each (on throughput, the one with the higher throughput; on work, the lower work)."""
    a, b = paired(t, LOCAL, "SH", metric), paired(t, LOCAL, "RE", metric)
    m = a.merge(b, on=WORKLOAD, suffixes=("_sh", "_re"))
    pick_re = (m["ratio_re"] < m["ratio_sh"]) | m["ratio_sh"].isna()
    out = m[WORKLOAD].copy()
    for col in ("ratio", "lower", "upper", "same_plan"):
        out[col] = m[f"{col}_re"].where(pick_re, m[f"{col}_sh"])
    out.loc[m["ratio_sh"].isna() | m["ratio_re"].isna(), "ratio"] = float("nan")  # the better one is not known
    return out


#: the paper's traffic panels of each figure: a not-checkable claim when the stored rows have no traffic cells
_TRAFFIC_PANELS = {
    _fig10_claims: ("traffic panels (Fig. 10c, d)", "Fig. 10c, d: traffic dataset"),
    _fig13_claims: ("traffic panels (Fig. 13b; Fig. 11c, d on traffic)", "Fig. 13b: traffic dataset"),
    _fig14_claims: ("traffic panels (Fig. 14b, d)", "Fig. 14b, d: traffic dataset"),
}


def fig14(inp: SectionInput) -> Section:
    return _section(inp, "MCEP Figure 14 (App. D): sharing and reordering sensitivity", ["density", "rate_diff"], _fig14_claims)
