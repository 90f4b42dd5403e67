"""The report section of MCEP Figure 12 (Section 6.2.2): SH, RE, SH-RR, SH-MDT, SA-EDGE and TS-EDGE,
throughput gain over the trivial global plan, per dataset and sweep.

The claims are the entries ``fig12_*`` of :mod:`experiments.reporting.sentences.mcep` (the paper's
sentences on Figure 12, quoted with their seed line, direction and size), judged as those of Figures 10,
11, 13 and 14 are (:func:`experiments.reporting.mcep._rows`): one value per seed
(:data:`~experiments.reporting.mcep_paired.UNIT`; :mod:`experiments.reporting.mcep_paired` says how
identical plans count once and how capped runs enter), a sibling row on the deterministic ``work``
under each (shown, not counted), and for a row that does not hold a cause computed from the planned
cost gain (the model at our density) and the work (:mod:`experiments.reporting.diagnosis`):

* "our optimizer achieves the best overall speedup": the local search that is best over the dataset
  against *each* baseline, the weakest decides; the "up to three times" is the largest per-point ratio,
  reported (a maximum over points has no interval);
* "both SH-RR and SH-MDT scale well with growing workload size ... and average pattern length": one
  slope per seed of each one's gain over TRIVIAL, for each sweep;
* "outperform the pure reordering algorithm (RE) for large pattern sizes": at the largest size;
* "SA-EDGE still achieving an advantage of at least 25% over the second-best method" on time windows;
* "the results for count-based windows ... strictly follow the trends described for Figure 11":
  Figure 11(d)'s trend on stock, its similarity to the time windows on traffic.

Section 6.2.1's "in most cases the simulated annealing meta-heuristic achieved better performance than
Tabu search" is Figure 11(a)'s sentence (judged there, :mod:`experiments.reporting.mcep`), not Figure 12's.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd

import experiments.reporting.model_paper as model_paper
import experiments.reporting.panels as panels
from experiments.reporting.core import UNCHECKED, Claim, Section, SectionInput, judge
from experiments.reporting.mcep import (
    CLIP_MARGIN,
    CLIPPED,
    THR,
    WORK,
    X_LABELS,
    _count_vs_time,
    _counted,
    _counts_claim,
    _effect,
    _largest,
    _rows,
    _sweep,
    model_paper_notes,
)
from experiments.reporting.mcep_paired import LOCAL, UNIT, cell_table, counts, interval, paired
from experiments.reporting.plotstyle import (
    finish_axes,
    log_axis,
    pyplot,
    save_figure,
    style,
)
from experiments.reporting.rules import Verdict, all_of
from experiments.reporting.sentences.mcep import SENTENCES as S

ALGS = ["SA-EDGE", "TS-EDGE", "SH-MDT", "SH-RR", "SH", "RE"]
BASELINES = ("SH-MDT", "SH-RR", "SH", "RE")
SWEEPS = ["workload_size", "pattern_size", "window", "count_window"]
DATASETS = ["nasdaq", "traffic"]  # the paper's rows: stock (a)-(d), traffic (e)-(h)
DODGE = 0.11  # horizontal offset between methods at one x (in x positions)


def _best_local(t: pd.DataFrame) -> str:
    """The local search with the highest gain over TRIVIAL over all of the dataset's workloads."""
    gains = {a: interval(paired(t, a, "TRIVIAL")).estimate for a in LOCAL if a in set(t["algorithm"])}
    gains = {a: g for a, g in gains.items() if math.isfinite(g)}
    return max(gains, key=gains.get) if gains else LOCAL[0]


def _largest_point(t: pd.DataFrame, num: str, den: str) -> float:
    p = paired(t, num, den).dropna(subset=["ratio"])
    if p.empty:
        return math.nan
    return float(np.exp(np.log(p["ratio"]).groupby([p["x_name"], p["x_value"]]).mean()).max())


def _headline(t: pd.DataFrame) -> list[Claim]:
    """"Our optimizer achieves the best overall speedup": the best local search over each baseline per
    seed, the weakest decides; the runner-up is the baseline it beats least (on throughput)."""
    best = _best_local(t)
    bases = [b for b in BASELINES if b in set(t["algorithm"])]
    if not bases:
        return [Claim.unjudged(S["fig12_best"], "n/a", UNCHECKED, "not checkable: no baseline was run in these cells", unit=UNIT)]
    over = {b: interval(paired(t, best, b)) for b in bases}
    runner = min(over, key=lambda b: over[b].estimate if math.isfinite(over[b].estimate) else math.inf)

    def each(metric: str) -> list[Verdict]:
        return [judge(S["fig12_best"], interval(paired(t, best, b, metric))) for b in bases]

    def detail(metric: str) -> str:
        parts = [f"over {b}: {v.effect.text()} {v.verdict}" for b, v in zip(bases, each(metric))]
        text = f"{best} over the runner-up {runner}" + (" (work: the baseline's over its)" if metric == WORK else "")
        if metric == THR:
            parts.append(f"largest per-point ratio over {runner} {_largest_point(t, best, runner):.2f}x (the 3x is reported, not judged)")
        return "; ".join([text] + parts)
    return _rows("fig12_best", lambda m: all_of(each(m)), extra_of=detail)


def _claims(df: pd.DataFrame) -> list[Claim]:
    """The claims of the paper's sentences on Figure 12 per dataset, each with its work sibling."""
    t_all = cell_table(df)
    out = []
    for ds in sorted(t_all["dataset"].unique()):
        t = t_all[t_all["dataset"] == ds]
        rows = _headline(t)
        ws, ps, w, cw = (_sweep(t, x) for x in SWEEPS)
        for key, sweep in (("fig12_scale_workload", ws), ("fig12_scale_pattern", ps)):
            for alg in ("SH-RR", "SH-MDT"):
                if alg in set(sweep["algorithm"]):
                    gain = (lambda d, a: (lambda m: paired(d, a, "TRIVIAL", m)))(sweep, alg)
                    rows += _rows(key, _effect(key, gain, trend=True), label=S[key].claim.format(alg=alg), extra_of=_counted(gain))
        if len(ps) and "RE" in set(ps["algorithm"]):
            best, top = _best_local(t), _largest(ps)
            over_re = lambda m: paired(top, best, "RE", m)  # noqa: E731
            rows += _rows("fig12_beats_re", _effect("fig12_beats_re", over_re),
                          extra_of=lambda m: "; ".join(x for x in (f"{best} over RE at {ps['x_value'].max():g} events per pattern"
                                                                    + ("; RE's work over its" if m == WORK else ""), counts(over_re(m))) if x))
        base = {b: interval(paired(w, b, "TRIVIAL")).estimate for b in BASELINES if b in set(w["algorithm"])}
        base = {b: g for b, g in base.items() if math.isfinite(g)}
        if base and "SA-EDGE" in set(w["algorithm"]):
            second = max(base, key=base.get)
            over_second = lambda m: paired(w, "SA-EDGE", second, m)  # noqa: E731
            rows += _rows("fig12_time_windows", _effect("fig12_time_windows", over_second),
                          extra_of=lambda m: "; ".join(x for x in (f"SA-EDGE over {second}, the baseline with the highest throughput gain "
                                                                    "on the time-window workloads" + ("; its work over SA-EDGE's" if m == WORK else ""),
                                                                    counts(over_second(m))) if x))
        if ds == "nasdaq" and len(cw):
            gain = lambda m: paired(cw, LOCAL, "TRIVIAL", m)  # noqa: E731
            rows += _rows("fig12_count_stock", _effect("fig12_count_stock", gain, trend=True), extra_of=_counted(gain))
        elif ds == "traffic" and len(cw) and len(w):
            rows += _rows("fig12_count_traffic", _count_vs_time(t, "fig12_count_traffic"),
                          extra_of=lambda m: "per seed, the gain over the count windows over the gain over the time windows")
        out += [dataclasses.replace(c, claim=f"{ds}: {c.claim}") for c in rows]
    return out


# ---- the figure ------------------------------------------------------------------------------------
def _points(t: pd.DataFrame, alg: str, sweep: str) -> list[tuple[float, float, float, float, bool]]:
    """(x, geometric-mean gain over TRIVIAL, lo, hi, capped) per swept value; ``capped``: a seed of it
    was left out because TRIVIAL or ``alg`` hit a cap (its gain there is a bound or unknown)."""
    p = paired(t[t["x_name"] == sweep], alg, "TRIVIAL")
    out = []
    for x, g in p.groupby("x_value"):
        i = interval(g)
        if i.n:
            lo, hi = (i.lo, i.hi) if i.n > 1 else (i.estimate, i.estimate)
            out.append((float(x), i.estimate, lo, hi, bool((g["ratio"].isna() | g["lower"] | g["upper"]).any())))
    return out


def _panel(ax, t: pd.DataFrame, sweep: str) -> None:
    xs = sorted(t.loc[t["x_name"] == sweep, "x_value"].unique())
    pos = {x: i for i, x in enumerate(xs)}
    algs = [a for a in ALGS if a in set(t["algorithm"])]
    points = {alg: _points(t, alg, sweep) for alg in algs}
    means = [p[1] for pts in points.values() for p in pts] + [1.0]
    bottom, top = min(means) / CLIP_MARGIN, max(means) * CLIP_MARGIN  # the axis shows every mean; an interval may run past it
    for k, alg in enumerate(algs):
        st = style(alg)
        off = (k - (len(algs) - 1) / 2) * DODGE
        pts = points[alg]
        if not pts:
            continue
        x = np.array([pos[p[0]] + off for p in pts])
        m = np.array([p[1] for p in pts])
        lo, hi = panels.clipped_bars(ax, x, [p[2] for p in pts], [p[3] for p in pts], bottom, top, st.color)
        ax.errorbar(x, m, yerr=np.vstack([m - np.array(lo), np.array(hi) - m]), color=st.color, marker=None, linewidth=1.0,
                    capsize=1.5, label=None)
        full = np.array([not p[4] for p in pts])
        ax.plot(x[full], m[full], linestyle="none", marker=st.marker, color=st.color, markersize=5, label=alg)
        if (~full).any():
            ax.plot(x[~full], m[~full], linestyle="none", marker=st.marker, markerfacecolor="white",
                    markeredgecolor=st.color, markersize=7, markeredgewidth=1.4, zorder=4)
    ax.axhline(1.0, color="#7F7F7F", linewidth=0.8, linestyle=":")
    ax.set_ylim(bottom, top)
    ax.set_xticks(range(len(xs)), [f"{x:g}" for x in xs])
    ax.set_xlim(-0.5, len(xs) - 0.5)


def figure(df: pd.DataFrame, out_dir, name: str = "fig12") -> list:
    """Figure 12 as the paper arranges it: stock (a)-(d) above traffic (e)-(h); workload size, pattern
    size, time window, count window; methods dodged at each x; open markers where a seed hit a cap."""
    t_all = cell_table(df)
    datasets = [d for d in DATASETS if d in set(t_all["dataset"])] + sorted(set(t_all["dataset"]) - set(DATASETS))
    if not datasets:
        return []
    plt = pyplot()
    fig, axes = plt.subplots(len(datasets), len(SWEEPS), figsize=(13, 3.0 * len(datasets)), squeeze=False)
    letters = iter("abcdefghijklmnop")
    for r, ds in enumerate(datasets):
        t = t_all[t_all["dataset"] == ds]
        for c, sweep in enumerate(SWEEPS):
            ax = axes[r][c]
            _panel(ax, t, sweep)
            ax.set_title(f"({next(letters)}) {ds}", fontsize=9)
            finish_axes(ax, xlabel=X_LABELS.get(sweep, sweep), ylabel="throughput gain over TRIVIAL (x)" if c == 0 else "",
                        legend=False)
            log_axis(ax)
    handles, labels = axes[0][0].get_legend_handles_labels()
    from matplotlib.lines import Line2D  # matplotlib only when drawing (plotstyle.pyplot)

    handles.append(Line2D([], [], linestyle="none", marker="o", markerfacecolor="white", markeredgecolor="#333333", markersize=7))
    labels.append("open marker: a seed hit the cap (a bound; left out if its time is not stored)")
    handles.append(Line2D([], [], linestyle="none", marker=6, color="#333333", markersize=5))
    labels.append("arrowhead: the interval runs past the axis")
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8, frameon=False, bbox_to_anchor=(0.5, -0.03))
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return save_figure(fig, out_dir, name)


def fig12(inp: SectionInput) -> Section:
    df, notes = model_paper.with_model_paper(inp)
    figs = figure(df, inp.figure_dir)
    t_all = cell_table(df)
    for ds in sorted(t_all["dataset"].unique()):
        t = t_all[t_all["dataset"] == ds]
        for sweep in SWEEPS:
            for alg in [a for a in ALGS if a in set(t["algorithm"])]:
                pts = _points(t, alg, sweep)
                notes.append(f"{ds}, {sweep}, {alg}: " + "; ".join(
                    f"{x:g}: {m:.2f}x{f' [{lo:.2f}, {hi:.2f}]' if hi > lo else ''}{' (a capped seed: bound)' if cap else ''}" for x, m, lo, hi, cap in pts))
        notes += model_paper_notes(t, ds)
        w = df[(df["dataset"] == ds) & (df["metric"] == "plan_time_s") & (df["x_name"] == "workload_size")]
        if len(w):
            pt = w.groupby(["algorithm", "x_value"])["value"].median()
            for alg in [a for a in ALGS if a in pt.index.get_level_values(0)]:
                notes.append(f"{ds}, optimizer time (median s) by workload size, {alg}: "
                             + ", ".join(f"{x:g}: {v:.3g}" for x, v in pt[alg].items()))
    cap = t_all[t_all["capped"]]
    if len(cap):
        timed = int(cap["throughput_bound"].notna().sum())
        notes.append(f"{len(cap)} cells stopped at a cap: "
                     + ", ".join(f"{a} {n}" for a, n in cap.groupby("algorithm").size().items())
                     + f"; {timed} stored the time to the cap, so their throughput over the stream is at most events / that time "
                       "and a gain over them enters the intervals as a lower bound (a capped method's as an upper bound); "
                       f"{len(cap) - timed} without it are left out; their points are drawn as open markers; a work gain over a "
                       "work-capped baseline enters the work intervals as a lower bound")
    claims = _claims(df)
    for ds in sorted(df["dataset"].unique()):
        d = df[df["dataset"] == ds]
        keys = ["x_name", "x_value", "seed"]
        ok = d[(d["metric"] == "matches") & (d["status"] == "ok")].set_index(keys).index.unique()
        allcap = d.set_index(keys).index.unique().difference(ok)
        if len(allcap):
            notes.append(f"{ds}: {len(allcap)} workload/stream cell group(s) where every plan hit the cap have no counts "
                         f"to compare and are left out of the match-count claim: "
                         + ", ".join(f"{a}={b:g} seed {c}" for a, b, c in allcap))
        d = d[d.set_index(keys).index.isin(ok)]
        claims.append(dataclasses.replace(_counts_claim(d), claim=f"{ds}: every global plan of a workload detects the same matches"))
    return Section(inp.experiment, "MCEP Figure 12: multi-pattern baselines against local search", figs, claims, notes,
                   caption=f"Throughput gain over TRIVIAL, geometric mean over {df['seed'].nunique()} seeds per point with its 95% CI ({CLIPPED}); "
                           "methods dodged at each x; open markers: a seed hit the cap (its ratio a bound); dotted line: no gain.")
