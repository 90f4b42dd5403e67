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

import numpy as np
import pandas as pd

import experiments.reporting.panels as panels
from experiments.reporting.core import (
    HOLDS,
    REVERSED,
    UNCHECKED,
    Claim,
    Section,
    SectionInput,
    judge,
    log_ci,
)
import experiments.reporting.model_paper as model_paper
from experiments.reporting.diagnosis import Facts, diagnosed, not_modelled
from experiments.reporting.mcep_paired import (
    COST_GAIN_PAPER,
    LOCAL,
    UNIT,
    WORKLOAD,
    capped_points,
    cell_table,
    counts,
    interval,
    paired,
    values,
    within_slope,
)
from experiments.reporting.plotstyle import finish_axes, pyplot, save_figure, style
from experiments.reporting.regime import NAMES
from experiments.reporting.rules import (
    GREATLY,
    TREND,
    Verdict,
    all_of,
    comparable,
    invert,
    ratio_interval,
)
from experiments.reporting.sentences.mcep import SENTENCES as S

WORK = "work"

#: the x axes of MCEP's figures (the swept config keys' names in the regime tables where they read the same)
X_LABELS = {
    **{key: NAMES[key] for key in ("search_time", "search_neighbours", "window", "count_window")},
    "workload_size": "patterns in the workload",
    "pattern_size": "average pattern size (events)",
    "density": "MPG density (target)",
    "rate_diff": "normalized arrival-rate difference",
    "reshuffle_every": "events between reshuffles",
}
#: sweeps over orders of magnitude (MCEP Fig. 11b's search times and efforts, Fig. 13's 10-1,000 events between reshuffles)
LOG_X = ("search_time", "search_neighbours", "reshuffle_every")
#: Figure 11(b)'s two sweeps: the search's budget in seconds and in evaluated neighbours (algorithms/effort.py),
#: each with its claims' key suffix and the unit of its x values
SEARCH_SWEEPS = {"search_time": ("", "s"), "search_neighbours": ("_effort", " neighbours")}
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
    bottom, top = _gain_limits(g)
    for alg in [a for a in ORDER if a in g] + sorted(a for a in g if a not in ORDER):
        xs, means, lows, highs = panels.geo_points(g[alg])
        st = style(alg)
        lows, highs = panels.clipped_bars(ax, xs, lows, highs, bottom, top, st.color)
        panels.ci_line(ax, alg, xs, means, lows, highs)
        open_pts = [(x, m) for x, m in zip(xs, means) if x in capped.get(alg, ())]
        if open_pts:
            ax.plot(*zip(*open_pts), linestyle="none", marker=st.marker, markerfacecolor="white", markeredgecolor=st.color,
                    markersize=7, markeredgewidth=1.4, zorder=4)  # above every method's filled markers
    if any(capped.get(a) for a in g):
        ax.plot([], [], linestyle="none", marker="o", markerfacecolor="white", markeredgecolor="#333333", markersize=7,
                label="open: a seed hit the cap (left out)")
    ax.axhline(1.0, color="#7F7F7F", linewidth=0.8, linestyle=":")
    ax.set_ylim(bottom, top)
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
    (a few seeds give wide intervals) is cut at the axis, an arrowhead at the cut, rather than flattening every line."""
    means = [log_ci(v)[0] for xs in g.values() for v in xs.values()]
    means = [m for m in means if math.isfinite(m) and m > 0] + [1.0]
    return min(means) / CLIP_MARGIN, max(means) * CLIP_MARGIN


CLIP_MARGIN = 4.0
CLIPPED = f"error bars reaching beyond {CLIP_MARGIN:g}x of the means are cut at the axis, an arrowhead at the cut"


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
    what = "every global plan of a workload detects the same matches"
    if "matches" not in w:
        return Claim.checked(what, "n/a", UNCHECKED, "not checkable: no cell stored its matches", unit="workload")
    grp = w.dropna(subset=["matches"]).groupby(["x_name", "x_value", "seed"])["matches"].nunique()  # capped cells have none
    same = int((grp == 1).sum())
    return Claim.checked(what, f"equal match counts across algorithms in {same} of {len(grp)} workload/stream cells",
                         HOLDS if same == len(grp) and len(grp) else REVERSED if len(grp) else UNCHECKED,
                         "holds: identical counts in every cell group (tests compare the matches themselves per pattern)",
                         unit="workload")


def _datasets(df: pd.DataFrame) -> list[str]:
    """The datasets of the rows, NASDAQ (stock) first as the papers' panels are."""
    names = sorted(set(df["dataset"].dropna()))
    return sorted(names, key=lambda d: (d != "nasdaq", d))


def _section(inp: SectionInput, title: str, sweeps: list[str], claims_fn) -> Section:
    """One section of an MCEP figure: per dataset (the paper's stock and traffic panels) a plot per
    sweep and the figure's claims, prefixed with the dataset when there are several."""
    df, notes = model_paper.with_model_paper(inp)
    datasets = _datasets(df)
    figs, claims = [], []
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
                if sweep in SEARCH_SWEEPS:  # Figure 11's claims are about plan quality over time: the planned cost too
                    figs += _plot(cg, sweep, f"{inp.experiment}{where}: planned cost gain over TRIVIAL", inp.figure_dir,
                                  f"{stem}_{sweep}_cost", "cost gain, trivial / plan (x)")
                for alg in [a for a in ORDER if a in cg]:
                    notes.append(f"{ds}, {sweep}, {alg} (cost gain, trivial/plan): {_fmt(cg, alg)}")
            if sweep == "search_time":
                notes += _effort_notes(d, ds)
        notes += model_paper_notes(cells, ds)
        for c in claims_fn(d) + [_counts_claim(d)]:
            claims.append(dataclasses.replace(c, claim=f"{ds}: {c.claim}") if len(datasets) > 1 else c)
    if "traffic" not in datasets and claims_fn in _TRAFFIC_PANELS:
        claims.append(_not_run(*_TRAFFIC_PANELS[claims_fn]))
    w = _wide(df)
    if "mpg_density" in w:
        d = w.groupby("x_name")["mpg_density"].mean()
        notes.append("measured MPG density (mean over cells) by sweep: " + ", ".join(f"{k} {v:.2f}" for k, v in d.items()))
    if "neighbours_per_s" in w:
        s = w.dropna(subset=["neighbours_per_s"])
        if len(s):
            notes.append(f"neighbours evaluated per second: median {s['neighbours_per_s'].median():,.0f} "
                         f"(min {s['neighbours_per_s'].min():,.0f})")
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


def model_paper_notes(cells: pd.DataFrame, ds: str) -> list[str]:
    """Where the folder's plans were re-made at the paper's density: the other methods' planned cost gain
    over the trivial plan there and at ours (medians over the time-window cells; count windows are not
    re-planned), and, where it is lower there, why: every plan's cost counts the complete matches of each
    pattern, the same under every plan, and at the paper's rates that term outgrows what a plan can save."""
    c = cells[~cells["algorithm"].isin(["TRIVIAL", "static", "adaptive"])].dropna(subset=[COST_GAIN_PAPER])
    if c.empty:
        return []
    there, ours = c[COST_GAIN_PAPER].median(), c["cost_gain"].median()
    why = (": every plan's cost counts each pattern's complete matches, the same under every plan, and at the paper's rates "
           "with these selectivities that term outgrows the partial matches a plan can save (docs/dense.md)") if there < ours else ""
    return [f"{ds}, the paper's density (model_paper.parquet): planned cost gain over the trivial plan of the other methods' "
            f"plans on time windows, median {there:.3f}x there (max {c[COST_GAIN_PAPER].max():.3g}x) against "
            f"{ours:.2f}x at ours (max {c['cost_gain'].max():.3g}x) over {len(c)} cells{why}"]


def _effort_notes(df: pd.DataFrame, ds: str) -> list[str]:
    """Per local search of the search-time sweep: the neighbours its searches evaluated (median over
    seeds) at each time limit -- where the time panel sits on the effort panel's axis."""
    w = _wide(df)
    if "neighbours_evaluated" not in w:
        return []
    w = w[(w["x_name"] == "search_time")].dropna(subset=["neighbours_evaluated"])
    out = []
    for alg in [a for a in ORDER if a in set(w["algorithm"])]:
        m = w[w["algorithm"] == alg].groupby("x_value")["neighbours_evaluated"].median()
        out.append(f"{ds}, search_time, {alg} (neighbours evaluated, median): "
                   + "; ".join(f"{x:g} s: {v:,.0f}" for x, v in m.items()))
    return out


# ---- claims: the rule set on paired effects per seed (experiments.reporting.mcep_paired) --------------
THR, COST = "throughput_eps", "cost_gain"


def model_facts(verdict_of, work: Verdict | None) -> Facts:
    """A diagnosis's facts: ``verdict_of`` (the claim's structure) on the planned cost gain at our density
    and, where the folder has its plans re-made there, at the paper's (:mod:`experiments.reporting.model_paper`)."""
    paper = verdict_of(COST_GAIN_PAPER)
    if paper.effect.n == 0:
        return Facts(verdict_of(COST), None, work, paper_note=model_paper.NOT_COMPUTED)
    return Facts(verdict_of(COST), paper, work, paper_note=model_paper.NOTE)


def _rows(key: str, verdict_of, *, label: str | None = None, extra_of=None, work: bool = True, model: bool = True) -> list[Claim]:
    """The row of sentence ``key`` on throughput and, with ``work``, its sibling on work: ``verdict_of``
    is the claim's structure, a function of the metric (the same rule and size on each), so the
    diagnosis applies it to the planned cost gain too (``model``: the prediction of MCEP's cost function,
    Section 4, at our density) beside the work."""
    s = S[key]
    thr = verdict_of(THR)
    wk = verdict_of(WORK) if work else None
    diag = (diagnosed(lambda: model_facts(verdict_of, wk)) if model
            else not_modelled("no cost model of this effect (the static plan's throughput against how often the stream changes)"))
    out = [Claim.of(s, thr, unit=UNIT, label=label, detail=extra_of(THR) if extra_of else "", diagnose=diag)]
    if work:
        out.append(Claim.of(s, wk, unit=UNIT, label=label, sibling=WORK, detail=extra_of(WORK) if extra_of else "", diagnose=diag))
    return out


def _effect(key: str, p_of, *, trend: bool = False, falls: bool = False, size: float | None = None):
    """A verdict function: ``p_of(metric)`` (paired rows) judged by sentence ``key`` as an effect per seed
    or, with ``trend``, a slope per seed (``falls``: the slope's negative)."""
    def f(metric: str) -> Verdict:
        p = p_of(metric)
        e = within_slope(p) if trend else interval(p)
        return judge(S[key], invert(e) if falls else e, size)
    return f


def _counted(p_of):
    return lambda metric: counts(p_of(metric))


def _not_run(what: str, paper: str) -> Claim:
    return Claim(what, paper, "n/a", UNCHECKED, "not checkable: these cells were not run (the stored rows are nasdaq only)")


def _sweep(t: pd.DataFrame, sweep: str) -> pd.DataFrame:
    return t[t["x_name"] == sweep]


def _largest(t: pd.DataFrame) -> pd.DataFrame:
    return t[t["x_value"] == t["x_value"].max()] if len(t) else t


def _dataset(df: pd.DataFrame) -> str:
    return str(df["dataset"].iloc[0]) if "dataset" in df and len(df) else ""


def _pooled_ratio(t: pd.DataFrame, num: Sequence[str], den: Sequence[str], metric: str = THR) -> pd.DataFrame:
    """Per workload, pooled ``num`` over pooled ``den`` (each the geometric mean over its distinct plans);
    on work, ``den``'s over ``num``'s."""
    a, b = values(t, num, metric), values(t, den, metric)
    m = a.merge(b[WORKLOAD + ["ratio", "same_plan"]], on=WORKLOAD, suffixes=("", "_den"))
    m["ratio"] = m["ratio"] / m["ratio_den"] if metric != WORK else m["ratio_den"] / m["ratio"]
    m["same_plan"] = m["same_plan"] | m["same_plan_den"]
    return m[WORKLOAD + ["ratio", "lower", "upper", "same_plan"]]


# ---- Figure 10 (and Figure 11(a), run in the same experiment) -----------------------------------------
HOODS = {"EDGE": ("SA-EDGE", "TS-EDGE"), "VERTEX4": ("SA-VERTEX4", "TS-VERTEX4"), "VERTEX8": ("SA-VERTEX8", "TS-VERTEX8"),
         "EDGE-PREFIX": ("SA-EDGE-PREFIX", "TS-EDGE-PREFIX")}
#: the combinations of Figure 10's "all combinations": meta-heuristic x neighbourhood (prefix-only sharing is
#: the sentence after's restriction, judged on its own)
COMBINATIONS = ("SA-EDGE", "TS-EDGE", "SA-VERTEX4", "TS-VERTEX4", "SA-VERTEX8", "TS-VERTEX8")


def _every(key: str, t: pd.DataFrame, algs: Sequence[str]):
    """Sentence ``key`` at every one of ``algs``' gains over TRIVIAL: the weakest decides."""
    def f(metric: str) -> Verdict:
        return all_of([judge(S[key], interval(paired(t, a, "TRIVIAL", metric))) for a in algs])
    return f


def _hoods_over(key: str, t: pd.DataFrame, best: str, others: Sequence[str]):
    """``best`` neighbourhood (SA and TS pooled) over each of ``others``: the weakest decides."""
    def f(metric: str) -> Verdict:
        return all_of([judge(S[key], interval(_pooled_ratio(t, HOODS[best], HOODS[h], metric))) for h in others])
    return f


def _fig10_claims(df: pd.DataFrame) -> list[Claim]:
    t = cell_table(df)
    ds = _dataset(df)
    ws, ps = _sweep(t, "workload_size"), _sweep(t, "pattern_size")
    algs = [a for a in COMBINATIONS if a in set(ws["algorithm"])]
    hoods = [h for h in ("VERTEX4", "VERTEX8") if set(HOODS[h]) & set(t["algorithm"])]
    local = lambda d: (lambda m: paired(d, LOCAL, "TRIVIAL", m))  # noqa: E731
    out = _rows("fig10_at_least_21", _every("fig10_at_least_21", ws, algs),
                extra_of=lambda m: f"{', '.join(algs)} over TRIVIAL, each one value per seed over the workload sizes")
    out += _rows("fig10_grows", _effect("fig10_grows", local(ws), trend=True), extra_of=_counted(local(ws)))
    if hoods:
        out += _rows("fig10_edge_best", _hoods_over("fig10_edge_best", ws, "EDGE", hoods),
                     extra_of=lambda m: f"EDGE over {', '.join(hoods)} (the neighbourhoods run here), SA and TS pooled")
    edge_top = lambda m: values_over(_largest(ws), HOODS["EDGE"], m)  # noqa: E731
    key = "fig10_edge_72" if ds == "nasdaq" else "fig10_edge_50" if ds == "traffic" else ""
    if key:
        out += _rows(key, _effect(key, edge_top), extra_of=lambda m: f"at {ws['x_value'].max():g} patterns")
    out += _rows("fig10_sa_ts_comparable", _effect("fig10_sa_ts_comparable", lambda m: paired(t, "SA-EDGE", "TS-EDGE", m)),
                 extra_of=lambda m: "SA-EDGE over TS-EDGE; a workload where both returned one plan is a tie (ratio 1)")
    if ds == "nasdaq":
        out += _rows("fig10_sa_over_ts_stock", _effect("fig10_sa_over_ts_stock", lambda m: paired(t, "SA-EDGE", "TS-EDGE", m)))
    if ds == "traffic":
        out += _rows("fig10_ts_over_sa_traffic", _effect("fig10_ts_over_sa_traffic", lambda m: paired(t, "TS-EDGE", "SA-EDGE", m)))
    if set(HOODS["EDGE-PREFIX"]) & set(t["algorithm"]):
        prefix = lambda d: (lambda m: _pooled_ratio(d, HOODS["EDGE"], HOODS["EDGE-PREFIX"], m))  # noqa: E731
        out += _rows("fig10_prefix_major", _effect("fig10_prefix_major", prefix(ws)), extra_of=lambda m: "EDGE over EDGE-PREFIX")
        out += _rows("fig10_prefix_5x", _effect("fig10_prefix_5x", prefix(_largest(ws))),
                     extra_of=lambda m: f"EDGE over EDGE-PREFIX at {ws['x_value'].max():g} patterns")
    if len(ps):
        out += _rows("fig11a_grows", _effect("fig11a_grows", local(ps), trend=True), extra_of=_counted(local(ps)))
        out += _rows("fig11a_100x", _effect("fig11a_100x", local(_largest(ps))),
                     extra_of=lambda m: f"at {ps['x_value'].max():g} events per pattern (the paper's longest are longer)")
        out += _rows("fig11a_sa_over_ts", _effect("fig11a_sa_over_ts", lambda m: paired(ps, "SA-EDGE", "TS-EDGE", m)))
    return out


def values_over(t: pd.DataFrame, num: Sequence[str], metric: str) -> pd.DataFrame:
    """``num`` (pooled) over TRIVIAL per workload."""
    return paired(t, num, "TRIVIAL", metric)


def fig10(inp: SectionInput) -> Section:
    return _section(inp, "MCEP Figure 10: gain over the trivial global plan against workload and pattern size",
                    ["workload_size", "pattern_size"], _fig10_claims)


# ---- Figure 11 --------------------------------------------------------------------------------------
def _fig11_claims(df: pd.DataFrame) -> list[Claim]:
    cells = cell_table(df)
    t = _sweep(cells, "search_time")
    out: list[Claim] = []
    if not t.empty:
        xmax = t["x_value"].max()
        last = t[t["x_value"] == xmax]
        hoods = [h for h in ("VERTEX4", "VERTEX8") if set(HOODS[h]) & set(t["algorithm"])]
        out += _rows("fig11_edge_best", _hoods_over("fig11_edge_best", last, "EDGE", hoods),
                     extra_of=lambda m: f"at {xmax:g} s, EDGE over {', '.join(hoods)}, SA and TS pooled")
        out += _rows("fig11_prefix", _effect("fig11_prefix", lambda m: _pooled_ratio(last, HOODS["EDGE"], HOODS["EDGE-PREFIX"], m)),
                     extra_of=lambda m: f"EDGE over EDGE-PREFIX at {xmax:g} s")
    for sweep in SEARCH_SWEEPS:
        out += _fig11b_claims(_sweep(cells, sweep), sweep)
    return out


def _fig11b_claims(t: pd.DataFrame, sweep: str) -> list[Claim]:
    """Figure 11(b)'s two claims on one of its sweeps (:data:`SEARCH_SWEEPS`): against the search time or
    its effort in evaluated neighbours."""
    if t.empty:
        return []
    gain = lambda d, algs: (lambda m: paired(d, algs, "TRIVIAL", m))  # noqa: E731
    suffix, unit = SEARCH_SWEEPS[sweep]
    quality, converges_key = f"fig11b_quality{suffix}", f"fig11b_sa_converges{suffix}"
    axis = X_LABELS[sweep].split(" (")[0]
    out = _rows(quality, _effect(quality, gain(t, LOCAL), trend=True),
                extra_of=lambda m: f"one slope of log gain on log {axis} per seed")
    xs = sorted(t["x_value"].unique())
    late = t[t["x_value"].isin(xs[-2:])]

    def converges(metric: str) -> Verdict:
        ts = judge(S[converges_key], within_slope(gain(late, "TS-EDGE")(metric)))
        sa = comparable(within_slope(gain(late, "SA-EDGE")(metric)), TREND, target=0.0)
        return all_of([ts, sa])
    out += _rows(converges_key, converges,
                 extra_of=lambda m: f"TS-EDGE's slope at least TREND and SA-EDGE's within +-TREND between {xs[-2]:g} and {xs[-1]:g}{unit}"
                 if len(xs) > 1 else "")
    return out


def fig11(inp: SectionInput) -> Section:
    return _section(inp, "MCEP Figure 11: neighbourhoods and meta-heuristics against search time and search effort",
                    list(SEARCH_SWEEPS), _fig11_claims)


# ---- Figure 13 --------------------------------------------------------------------------------------
def _by_x(p: pd.DataFrame) -> str:
    """The paired effect per swept value, with its interval."""
    return "by events between reshuffles: " + "; ".join(f"{x:g}: {interval(g).text()}" for x, g in p.groupby("x_value"))


def _adaptive_activity(rs: pd.DataFrame) -> Claim:
    """How the adaptive method behaved (MCEP 6.2.3; experiments/exps/mcep_adaptive.py): per swept value the
    drifts detected and the plans switched per run, and whether it replayed any event (plan migration
    enters each event once per plan in force, the old plan running beside the new until its partial
    matches expire).  A check of this implementation, not a claim of the paper."""
    a = rs[(rs["algorithm"] == "adaptive") & ~rs["capped"]]
    claim = "the adaptive method re-plans on detected drift and switches plans without replaying events"
    cols = ("replayed_events", "drift_detections", "replans", "overlap_events")
    if a.empty or any(c not in a for c in cols) or a["replayed_events"].isna().all():
        return Claim.checked(claim, "n/a", UNCHECKED, "not checkable: no adaptive cell stored its replayed events", unit=UNIT)
    per = []
    for x, g in a.groupby("x_value"):
        per.append(f"{x:g}: drift detected {g['drift_detections'].mean():.1f} times per run (max {g['drift_detections'].max():g}), "
                   f"plans switched {g['replans'].mean():.1f} (max {g['replans'].max():g}, {int((g['replans'] > 0).sum())} of {len(g)} runs), "
                   f"events run by two plans {g['overlap_events'].mean():.0f}")
    replayed = int(a["replayed_events"].sum())
    return Claim.checked(claim, f"{len(a)} adaptive runs, {replayed} replayed events; by events between reshuffles: " + "; ".join(per),
                         HOLDS if replayed == 0 else REVERSED,
                         "holds if no run replayed an event (equal matches to static: the row 'every global plan ... the same matches')",
                         unit=UNIT)


def _per_seed_gain(t: pd.DataFrame, metric: str) -> pd.Series:
    """The local search's gain over TRIVIAL per seed (geometric mean over the seed's workloads)."""
    p = paired(t, LOCAL, "TRIVIAL", metric).dropna(subset=["ratio"])
    p = p[~(p["lower"] | p["upper"])]
    return p.groupby(["dataset", "seed"])["ratio"].apply(lambda r: float(np.exp(np.log(r).mean())))


def _count_vs_time(t: pd.DataFrame, key: str):
    """Per seed, the local search's gain over the count windows over its gain over the time windows,
    judged by sentence ``key`` (comparable)."""
    def f(metric: str) -> Verdict:
        c, w = _per_seed_gain(_sweep(t, "count_window"), metric), _per_seed_gain(_sweep(t, "window"), metric)
        j = pd.concat([c.rename("c"), w.rename("w")], axis=1).dropna()
        return judge(S[key], ratio_interval((j["c"] / j["w"]).tolist()))
    return f


def _fig13_claims(df: pd.DataFrame) -> list[Claim]:
    t = cell_table(df)
    ds = _dataset(df)
    rs = _sweep(t, "reshuffle_every")
    adaptive = lambda m: paired(rs, "adaptive", "static", m)  # noqa: E731
    out = _rows("fig13_adaptive_10x", _effect("fig13_adaptive_10x", adaptive),
                extra_of=lambda m: _by_x(adaptive(m)) if len(adaptive(m)) else "", work=rs["work"].notna().any(), model=False)
    out.append(_adaptive_activity(rs))
    xs = sorted(rs["x_value"].unique())
    drop = math.log(GREATLY) / math.log(xs[-1] / xs[0]) if len(xs) > 1 else TREND
    static = lambda m: values(rs, "static", m)  # noqa: E731

    def degrades(metric: str) -> Verdict:
        e = within_slope(static(metric))
        return judge(S["fig13_frequent_degrades"], invert(e) if metric == WORK else e, drop)
    out += _rows("fig13_frequent_degrades", degrades, work=rs["work"].notna().any(), model=False,
                 extra_of=lambda m: f"a {GREATLY:g}x drop over {xs[0]:g}-{xs[-1]:g} events between reshuffles is a slope of "
                 f"{drop:.3f}; one slope per seed" + ("; on work, minus the slope of log work" if m == WORK else "") if len(xs) > 1 else "")
    gain = lambda d: (lambda m: paired(d, LOCAL, "TRIVIAL", m))  # noqa: E731
    out += _rows("fig11c_window", _effect("fig11c_window", gain(_sweep(t, "window")), trend=True))
    if ds == "nasdaq":
        out += _rows("fig11d_stock", _effect("fig11d_stock", gain(_sweep(t, "count_window")), trend=True))
    elif ds == "traffic":
        out += _rows("fig11d_traffic", _count_vs_time(t, "fig11d_traffic"),
                     extra_of=lambda m: "per seed, the gain over the count windows over the gain over the time windows")
    return out


def fig13(inp: SectionInput) -> Section:
    return _section(inp, "MCEP Figure 13: time window, count window and adaptivity under reshuffling",
                    ["window", "count_window", "reshuffle_every"], _fig13_claims)


# ---- Figure 14 --------------------------------------------------------------------------------------
def _fig14_claims(df: pd.DataFrame) -> list[Claim]:
    t = cell_table(df)
    out = []
    for sweep, what in (("density", "MPG density"), ("rate_diff", "arrival-rate difference")):
        gain = (lambda d: (lambda m: paired(d, LOCAL, "TRIVIAL", m)))(_sweep(t, sweep))
        out += _rows("fig14_high_gains", _effect("fig14_high_gains", gain), label=S["fig14_high_gains"].claim.format(what=what),
                     extra_of=lambda m, gain=gain: "by value: " + "; ".join(f"{x:g}: {interval(g).text()}" for x, g in gain(m).groupby("x_value")))
        out += _rows("fig14_no_dependency", _effect("fig14_no_dependency", gain, trend=True),
                     label=S["fig14_no_dependency"].claim.format(what=what))
    algs = set(t["algorithm"])
    if not {"SH", "RE"} <= algs:
        out.append(Claim.unjudged(S["fig14_beats_better"], "n/a", UNCHECKED,
                                  "not checkable: SH and RE were not run in these cells (only SA-EDGE, TS-EDGE and TRIVIAL)", unit=UNIT))
        return out
    both = t[t["x_name"].isin(["density", "rate_diff"])]

    def every(metric: str) -> Verdict:
        p = _over_better(both, metric)
        return all_of([judge(S["fig14_beats_better"], interval(g)) for _, g in p.groupby(["x_name", "x_value"])])

    def detail(metric: str) -> str:
        p = _over_better(both, metric)
        parts = [f"{n}={x:g}: {interval(g).text()}" for (n, x), g in p.groupby(["x_name", "x_value"])]
        return "; ".join(parts) + f"; over all configurations {interval(p).text()}"
    out += _rows("fig14_beats_better", every, extra_of=detail)
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
