"""The report sections of JQPG Figures 3-9 (JQPG Section 6.3): figures and every claim of the section.

Aggregation.  A plotted point is the geometric mean over the patterns of its group, with the 95%
confidence interval of that mean (Student t over the logarithms); throughput varies over orders of
magnitude between patterns, where an arithmetic mean would follow the few fastest.  A comparison of
two planners is paired: per pattern, the ratio of their two plans' measurements on the same stream,
summarised the same way (:func:`experiments.reporting.core.paired_ratios`).  Cells stopped by the
partial-match cap have no throughput and are left out (the run notes count them per planner).

Verdicts follow :mod:`experiments.reporting.core`: a ratio claim holds when its CI lies above 1 and
its geometric mean reaches the stated threshold; it is not measurable when the CI contains 1 or the
mean lies within the run-to-run variation of the experiment's throughput (the median spread between
a cell's repeated runs).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.reporting.plotstyle import finish_axes, log_axis, metric_style, pyplot, save_figure, style
from experiments.reporting.core import (
    FAILS,
    HOLDS,
    NOT_MEASURABLE,
    PARTLY,
    UNCHECKED,
    Claim,
    Section,
    SectionInput,
    equivalence_verdict,
    flag,
    fmt_ratio,
    log_ci,
    order_names,
    paired_ratios,
    ratio_verdict,
    run_to_run_noise,
    wide,
)

ORDER_PLANNERS = ["TRIVIAL", "EFREQ", "GREEDY", "II-RANDOM", "II-GREEDY", "DP-LD"]
TREE_PLANNERS = ["ZSTREAM", "ZSTREAM-ORD", "DP-B"]
ALL_PLANNERS = ORDER_PLANNERS + TREE_PLANNERS
JQPG_ORDER = ["GREEDY", "II-RANDOM", "II-GREEDY", "DP-LD"]
SET_ORDER = ["seq", "neg", "conj", "kleene", "disj"]
SET_LABEL = {"seq": "sequence", "neg": "negation", "conj": "conjunction", "kleene": "Kleene", "disj": "disjunction"}
STRATEGIES = ["skip-till-any-match", "skip-till-next-match", "strict-contiguity"]


# ---- aggregation and drawing ----------------------------------------------------------------------
def _shown(w: pd.DataFrame, planners: list[str]) -> list[str]:
    """The planners of ``planners`` present in ``w``, then every method from another package present
    (``+extra_planners``: a name that is not one of the nine), in name order."""
    have = set(w["algorithm"].unique())
    return [p for p in planners if p in have] + sorted(a for a in have if a not in ALL_PLANNERS)


def _values(w: pd.DataFrame, metric: str, scale: float = 1.0) -> list[float]:
    return [v * scale for v in w[metric].dropna().tolist() if v > 0]


def _dot_panel(ax, w: pd.DataFrame, metric: str, x: str, x_order: list, planners: list[str], labels: dict | None = None) -> None:
    """Per x category and planner: the geometric mean and its 95% CI, side by side (log axis)."""
    ms = metric_style(metric)
    present = _shown(w, planners)
    width = 0.8 / max(1, len(present))
    for k, planner in enumerate(present):
        xs, means, lows, highs = [], [], [], []
        for i, cat in enumerate(x_order):
            gm, lo, hi, n = log_ci(_values(w[(w[x] == cat) & (w["algorithm"] == planner)], metric, ms.scale))
            if n:
                xs.append(i - 0.4 + width * (k + 0.5))
                means.append(gm)
                lows.append(gm - lo)
                highs.append(hi - gm)
        if xs:
            st = style(planner)
            ax.errorbar(xs, means, yerr=[lows, highs], fmt=st.marker, color=st.color, label=planner, capsize=2, markersize=5, linewidth=1)
    ax.set_xticks(range(len(x_order)))
    ax.set_xticklabels([(labels or {}).get(c, str(c)) for c in x_order])
    log_axis(ax)


def _line_panel(ax, w: pd.DataFrame, metric: str, x: str, planners: list[str]) -> None:
    """Per planner: the geometric mean over patterns at each x, with its 95% CI (log axis)."""
    ms = metric_style(metric)
    for planner in _shown(w, planners):
        d = w[w["algorithm"] == planner]
        xs, means, lows, highs = [], [], [], []
        for xv in sorted(d[x].dropna().unique()):
            gm, lo, hi, n = log_ci(_values(d[d[x] == xv], metric, ms.scale))
            if n:
                xs.append(xv)
                means.append(gm)
                lows.append(gm - lo)
                highs.append(hi - gm)
        if xs:
            st = style(planner)
            ax.errorbar(xs, means, yerr=[lows, highs], marker=st.marker, color=st.color, label=planner, capsize=2, markersize=5, linewidth=1.2)
    log_axis(ax)


def _ratio_panel(ax, w: pd.DataFrame, metric: str, baseline: str, x_order: list, planners: list[str], labels: dict) -> None:
    """Per pattern set and planner: the per-pattern ratio of the planner's metric to the baseline
    planner's on the same pattern, geometric mean and 95% CI (log axis; 1 = the baseline)."""
    present = [p for p in _shown(w, planners) if p != baseline]
    width = 0.8 / max(1, len(present))
    for k, planner in enumerate(present):
        xs, means, lows, highs = [], [], [], []
        for i, cat in enumerate(x_order):
            gm, lo, hi, n = log_ci(paired_ratios(w[w["workload"] == cat], metric, planner, baseline).tolist())
            if n:
                xs.append(i - 0.4 + width * (k + 0.5))
                means.append(gm)
                lows.append(gm - lo)
                highs.append(hi - gm)
        if xs:
            st = style(planner)
            ax.errorbar(xs, means, yerr=[lows, highs], fmt=st.marker, color=st.color, label=planner, capsize=2, markersize=5, linewidth=1)
    ax.axhline(1.0, color=style(baseline).color, linewidth=1, linestyle="--", label=f"{baseline} (= 1)")
    ax.set_xticks(range(len(x_order)))
    ax.set_xticklabels([labels.get(c, str(c)) for c in x_order])
    log_axis(ax)


def _grid_figure(w: pd.DataFrame, metric: str, title: str, out: Path, name: str) -> list[Path]:
    """Figures 3 and 4: per dataset, order-based and tree-based planners per pattern set -- the
    measurement itself, and per pattern relative to the native planner (EFREQ, ZSTREAM)."""
    plt = pyplot()
    datasets = sorted(w["dataset"].unique())
    fig, axes = plt.subplots(2 * len(datasets), 2, figsize=(13, 3.3 * 2 * len(datasets)), squeeze=False)
    label = metric_style(metric)
    for i, ds in enumerate(datasets):
        d = w[w["dataset"] == ds]
        sets = order_names(d["workload"].unique(), SET_ORDER)
        for j, (kind, planners, baseline) in enumerate((("order", ORDER_PLANNERS, "EFREQ"), ("tree", TREE_PLANNERS, "ZSTREAM"))):
            ax = axes[2 * i][j]
            _dot_panel(ax, d[d["kind"] == kind], metric, "workload", sets, planners, SET_LABEL)
            ax.set_title(f"{ds}: ({'a' if kind == 'order' else 'b'}) {kind}-based plans")
            finish_axes(ax, xlabel="pattern set", ylabel=label.axis())
            ax = axes[2 * i + 1][j]
            _ratio_panel(ax, d[d["kind"] == kind], metric, baseline, sets, planners, SET_LABEL)
            ax.set_title(f"{ds}: {kind}-based plans relative to {baseline}, per pattern")
            finish_axes(ax, xlabel="pattern set", ylabel=f"{label.label} / {baseline}'s (x)")
    fig.suptitle(title)
    fig.tight_layout()
    return save_figure(fig, out, name)


def _caption(w: pd.DataFrame, per: str, meta: dict, noise: float) -> str:
    n = w.groupby(["dataset", "algorithm"] + ([per] if per else []))["pattern_id"].nunique()
    repeats = ((meta.get("config") or {}).get("exp") or {}).get("repeats") or ((meta.get("config") or {}).get("scale") or {}).get("repeats")
    noise_txt = f"; run-to-run variation: median spread {noise:.2f}x between a cell's runs" if noise > 1 else ""
    lo, hi = int(n.min()), int(n.max())
    return (
        f"Points: geometric means over {lo if lo == hi else f'{lo}-{hi}'} patterns per point (fewer where cells were capped), "
        "error bars: 95% confidence intervals; "
        f"{repeats or 1} timed run(s) per cell, median taken{noise_txt}."
    )


def _tree_vs_order_cost(w: pd.DataFrame) -> str:
    """How much cheaper DP-B's tree is planned than DP-LD's order, both in the tree cost model
    (Cost_tree of the order taken as a left-deep tree, ``plan_cost_tree``): Cost_ord and Cost_tree
    count different things and are not compared."""
    if "plan_cost_tree" not in w or "plan_cost" not in w:
        return ""
    tree = w[w["algorithm"] == "DP-B"].set_index(["dataset", "pattern_id"])["plan_cost"]
    order = w[w["algorithm"] == "DP-LD"].set_index(["dataset", "pattern_id"])["plan_cost_tree"]
    r = (order / tree).replace([np.inf, -np.inf], np.nan).dropna()
    return f"Cost_tree of DP-LD's order over DP-B's tree {fmt_ratio(r.tolist())}" if len(r) else ""


def _with_cost(w: pd.DataFrame, num: str, den: str) -> str:
    """The planned cost ratio den/num (how much cheaper the cost model expects ``num``'s plans)."""
    r = paired_ratios(w, "plan_cost", den, num)
    return f"planned cost {fmt_ratio(r.tolist())}" if len(r) else ""


def _ratio_claim(w: pd.DataFrame, metric: str, num: str, den: str, claim: str, paper: str, strong: float, noise: float,
                 by_set: bool = True, cost: bool = True) -> Claim:
    """A paired ratio claim over all patterns, with the per-set ratios shown."""
    r = paired_ratios(w, metric, num, den)
    parts = [f"all: {fmt_ratio(r.tolist())}"]
    if cost:
        c = _with_cost(w, num, den)
        if c:
            parts.append(c)
    if by_set and len(r):
        sets = r.rename("ratio").reset_index().merge(w[["dataset", "pattern_id", "workload"]].drop_duplicates(), on=["dataset", "pattern_id"])
        for (ds, s), g in sets.groupby(["dataset", "workload"]):
            parts.append(f"{ds}/{SET_LABEL.get(s, s)}: {fmt_ratio(g['ratio'].tolist())}")
    rule = f"holds: the 95% CI of the per-pattern ratio lies above 1 and its geometric mean is >= {strong:g}x; not measurable: the CI contains 1 or the mean is within the run-to-run variation"
    return Claim(claim, paper, "; ".join(parts), ratio_verdict(r.tolist(), strong, noise), rule)


def _regime_tables(meta: dict) -> dict[str, str]:
    notes = {}
    for ds, f in (meta.get("datasets") or {}).items():
        epw = f.get("events_per_type_per_window") or {}
        paper = f.get("paper_regime") or {}
        sels = f.get("selectivities") or [math.nan, math.nan]
        pe = paper.get("events_per_type_per_window") or [math.nan, math.nan]
        ps = paper.get("selectivities") or [math.nan, math.nan]
        source = "replay of the real data (experiments/data/replay.py)" if f.get("replay") else "the data at its own cadence"
        notes[ds] = (
            f"**{ds}** ({source}; {f.get('events', 0):,} events of {f.get('types', 0)} types, "
            f"window {f.get('window_seconds', 0) / 60:g} min):\n\n"
            "| | events per type per window (min / median / max) | fastest / slowest type's rate | selectivities |\n"
            "| --- | --- | --- | --- |\n"
            f"| here | {epw.get('min', math.nan):.1f} / {epw.get('median', math.nan):.1f} / {epw.get('max', math.nan):.1f} | "
            f"{f.get('rate_ratio', math.nan):.1f}x | {sels[0]:.2g} - {sels[1]:.2g} |\n"
            f"| JQPG 6.2 | {pe[0]:,.0f} - {pe[1]:,.0f} | {paper.get('rate_ratio', math.nan):g}x | {ps[0]:g} - {ps[1]:g} |\n"
        )
    return notes


def _section(inp: SectionInput, title: str, figures, claims, per: str = "workload") -> Section:
    w = wide(inp.table)
    noise = run_to_run_noise(inp.table)
    caption = _caption(w, per, inp.meta, noise) if len(w) else ""
    return Section(inp.experiment, title, figures, claims, [], caption, _regime_tables(inp.meta))


# ---- Figure 3: throughput per pattern set ---------------------------------------------------------
def fig3(inp: SectionInput) -> Section:
    w = wide(inp.table)
    noise = run_to_run_noise(inp.table)
    figs = _grid_figure(w, "throughput_eps", "JQPG Figure 3: throughput per pattern set (higher is better)", inp.figure_dir, "fig3_throughput")
    claims = [
        _ratio_claim(w, "throughput_eps", "DP-LD", "EFREQ", "JQPG over native order-based plans: DP-LD over EFREQ throughput",
                     "1.7x (Kleene) to 2.7x (conjunctions)", 1.5, noise),
        _ratio_claim(w, "throughput_eps", "DP-B", "ZSTREAM", "JQPG over native tree-based plans: DP-B over ZSTREAM throughput",
                     "similar to DP-LD over EFREQ", 1.5, noise),
    ]
    parts, verdicts = [], []
    for h in ("GREEDY", "II-RANDOM", "II-GREEDY"):
        r = paired_ratios(w, "throughput_eps", "DP-LD", h)
        verdicts.append(equivalence_verdict(r.tolist()))
        parts.append(f"DP-LD/{h}: {fmt_ratio(r.tolist())}")
    claims.append(Claim("order-based: DP-LD and the JQPG heuristics comparable, no significant advantage of DP-LD",
                        "comparable", "; ".join(parts), _weakest(verdicts),
                        "holds: for each heuristic, the 95% CI of the per-pattern ratio DP-LD/heuristic lies within 0.8-1.25x; partly: some CI reaches outside; does not hold: one lies wholly outside"))
    parts, verdicts = [], []
    for other in ("ZSTREAM", "ZSTREAM-ORD"):
        r = paired_ratios(w, "throughput_eps", "DP-B", other)
        parts.append(f"DP-B/{other}: {fmt_ratio(r.tolist())}")
        verdicts.append(ratio_verdict(r.tolist(), 1.5, noise))
    claims.append(Claim("tree-based: DP-B clearly beats ZSTREAM and ZSTREAM-ORD", "a convincing advantage over both",
                        "; ".join(parts), _weakest(verdicts), "holds: both ratios hold as ratio claims (>= 1.5x, CI above 1)"))
    r = paired_ratios(w, "throughput_eps", "DP-B", "DP-LD")
    claims.append(Claim("tree-based planners greatly outperform order-based ones (throughput; DP-B over DP-LD)",
                        "greatly outperform", f"DP-B/DP-LD: {fmt_ratio(r.tolist())}; {_tree_vs_order_cost(w)}",
                        ratio_verdict(r.tolist(), 2.0, noise), "holds: the per-pattern ratio's CI lies above 1 and its mean is >= 2x"))
    r = paired_ratios(w, "throughput_eps", "DP-LD", "ZSTREAM")
    gm, lo, hi, n = log_ci(r.tolist())
    verdict = UNCHECKED if n < 2 else (HOLDS if lo >= 0.8 else (FAILS if hi < 0.8 else PARTLY))
    claims.append(Claim("the best order-based JQPG planner (DP-LD) is comparable or superior to ZSTREAM", "comparable or superior in most settings",
                        f"DP-LD/ZSTREAM: {fmt_ratio(r.tolist())}", verdict, "holds: the 95% CI of the per-pattern ratio lies above 0.8x"))
    return _section(inp, "JQPG Figure 3: throughput per pattern set", figs, claims)


def _weakest(verdicts: list[str]) -> str:
    rank = [UNCHECKED, FAILS, NOT_MEASURABLE, PARTLY, HOLDS]
    return min(verdicts, key=rank.index) if verdicts else UNCHECKED


# ---- Figure 4: memory per pattern set -------------------------------------------------------------
def fig4(inp: SectionInput) -> Section:
    w = wide(inp.table)
    if "peak_memory_bytes" not in w:
        return Section(inp.experiment, "JQPG Figure 4: memory per pattern set", [], [Claim("memory measured", "", "no peak_memory_bytes rows", UNCHECKED)])
    figs = _grid_figure(w, "peak_memory_bytes", "JQPG Figure 4: peak memory of the evaluator state per pattern set (lower is better)",
                        inp.figure_dir, "fig4_memory")
    claims = []
    parts, values = [], []
    for p in JQPG_ORDER:
        r = paired_ratios(w, "peak_memory_bytes", p, "EFREQ")
        values += r.tolist()
        parts.append(f"{p}/EFREQ: {fmt_ratio(r.tolist())}")
    gm, lo, hi, n = log_ci(values)
    verdict = UNCHECKED if n < 2 else (HOLDS if hi < 1.0 and 0.6 <= gm <= 0.9 else (PARTLY if hi < 1.0 else (NOT_MEASURABLE if lo <= 1.0 else FAILS)))
    claims.append(Claim("order-based JQPG plans' memory relative to EFREQ's", "65-85% of EFREQ's",
                        "; ".join(parts) + f"; all JQPG: {fmt_ratio(values)}", verdict,
                        "holds: the 95% CI of the per-pattern ratio lies below 1 and its mean is within 60-90%; partly: below 1 elsewhere; not measurable: the CI contains 1"))
    r = paired_ratios(w, "peak_memory_bytes", "ZSTREAM", "DP-B")
    top = float(r.max()) if len(r) else math.nan
    v = ratio_verdict(r.tolist(), 1.0)
    claims.append(Claim("DP-B uses up to ~4x less memory than ZSTREAM", "up to almost 4x",
                        f"ZSTREAM/DP-B: {fmt_ratio(r.tolist())}, largest {top:.2f}x", HOLDS if v in (HOLDS, PARTLY) and top >= 2.0 else v,
                        "holds: the per-pattern ratio's CI lies above 1 and the largest ratio is >= 2x"))
    r = paired_ratios(w, "peak_memory_bytes", "II-GREEDY", "DP-LD")
    gm, lo, hi, n = log_ci(r.tolist())
    verdict = UNCHECKED if n < 2 else (HOLDS if hi < 1.0 else (NOT_MEASURABLE if lo <= 1.0 else FAILS))
    claims.append(Claim("II-GREEDY is slightly more memory-efficient than DP-LD", "slightly more memory-efficient",
                        f"II-GREEDY/DP-LD: {fmt_ratio(r.tolist())}", verdict,
                        "holds: the 95% CI of the per-pattern ratio lies below 1; not measurable: it contains 1 (equal plans give a ratio of exactly 1)"))
    r = paired_ratios(w, "peak_memory_bytes", "DP-LD", "DP-B")
    claims.append(Claim("tree-based planners use less memory than order-based ones (DP-LD over DP-B)", "greatly outperform, in memory too",
                        f"DP-LD/DP-B: {fmt_ratio(r.tolist())}", ratio_verdict(r.tolist(), 2.0),
                        "holds: the per-pattern ratio's CI lies above 1 and its mean is >= 2x"))
    return _section(inp, "JQPG Figure 4: memory per pattern set", figs, claims)


# ---- Figure 5: throughput vs sequence length ------------------------------------------------------
def fig5(inp: SectionInput) -> Section:
    plt = pyplot()
    w = wide(inp.table)
    noise = run_to_run_noise(inp.table)
    datasets = sorted(w["dataset"].unique())
    fig, axes = plt.subplots(len(datasets), 2, figsize=(13, 3.4 * len(datasets)), squeeze=False)
    for i, ds in enumerate(datasets):
        for j, (kind, planners) in enumerate((("order", ORDER_PLANNERS), ("tree", TREE_PLANNERS))):
            ax = axes[i][j]
            _line_panel(ax, w[(w["dataset"] == ds) & (w["kind"] == kind)], "throughput_eps", "size", planners)
            ax.set_title(f"{ds}: ({'a' if kind == 'order' else 'b'}) {kind}-based plans")
            finish_axes(ax, xlabel="sequence length (events)", ylabel=metric_style("throughput_eps").axis(), integer_x=True)
    fig.suptitle("JQPG Figure 5: throughput vs sequence length (higher is better)")
    fig.tight_layout()
    figs = save_figure(fig, inp.figure_dir, "fig5_throughput_vs_length")
    claims = []
    sizes = sorted(w["size"].dropna().unique())
    if sizes:
        lo_n, hi_n = sizes[0], sizes[-1]
        for ds in datasets:
            d = w[w["dataset"] == ds]
            drops = []
            for p in sorted(d["algorithm"].unique()):
                a, b = log_ci(_values(d[(d["algorithm"] == p) & (d["size"] == lo_n)], "throughput_eps"))[0], log_ci(_values(d[(d["algorithm"] == p) & (d["size"] == hi_n)], "throughput_eps"))[0]
                if a > 0 and b > 0:
                    drops.append((p, a / b))
            verdict = UNCHECKED if not drops else (HOLDS if all(x >= 2 for _, x in drops) else (PARTLY if all(x > noise for _, x in drops) else FAILS))
            claims.append(Claim(f"{ds}: every method degrades with the sequence length", "drastically",
                                ", ".join(f"{p} {x:.1f}x" for p, x in drops) + f" (throughput at n={lo_n:g} over n={hi_n:g})", verdict,
                                "holds: every planner's throughput drops >= 2x from the shortest to the longest length; partly: drops beyond the run-to-run variation"))
            for num, den, paper in (("DP-B", "ZSTREAM", "1.2x at n=3 rising to 7.6x at n=7"), ("DP-LD", "EFREQ", "consistently higher for longer sequences")):
                by_n = {n: paired_ratios(d[d["size"] == n], "throughput_eps", num, den).tolist() for n in sizes}
                first, last = log_ci(by_n[lo_n]), log_ci(by_n[hi_n])
                txt = ", ".join(f"n={n:g}: {fmt_ratio(v)}" for n, v in by_n.items())
                if first[3] < 2 or last[3] < 2:
                    verdict = UNCHECKED
                elif last[1] > first[2] and last[0] > 1:
                    verdict = HOLDS if num != "DP-B" or last[0] >= 2 else PARTLY
                elif last[0] > first[0]:
                    verdict = NOT_MEASURABLE
                else:
                    verdict = FAILS
                claims.append(Claim(f"{ds}: the gain of {num} over {den} grows with the sequence length", paper, txt, verdict,
                                    "holds: the CI at the longest length lies above the CI at the shortest (and, for DP-B, its mean is >= 2x); not measurable: larger but the CIs overlap"))
    return _section(inp, "JQPG Figure 5: throughput vs sequence length", figs, claims, per="size")


# ---- Figure 6: performance vs plan cost -----------------------------------------------------------
def fig6(inp: SectionInput) -> Section:
    plt = pyplot()
    w = wide(inp.table)
    w = w[w["plan_cost"].notna() & (w["plan_cost"] > 0)]
    panels = [("throughput_eps", "(a) throughput vs plan cost")]
    if "peak_memory_bytes" in w:
        panels.append(("peak_memory_bytes", "(b) peak memory vs plan cost"))
    kinds = [k for k in ("order", "tree") if (w["kind"] == k).any()]
    fig, axes = plt.subplots(len(kinds), len(panels), figsize=(6.5 * len(panels), 3.6 * len(kinds)), squeeze=False)
    for i, kind in enumerate(kinds):
        d = w[w["kind"] == kind]
        for j, (metric, title) in enumerate(panels):
            ax = axes[i][j]
            ms = metric_style(metric)
            for planner in order_names(d["algorithm"].unique(), ALL_PLANNERS):
                g = d[d["algorithm"] == planner]
                st = style(planner)
                ax.scatter(g["plan_cost"], g[metric] * ms.scale, s=12, color=st.color, marker=st.marker, label=planner, alpha=0.7)
            log_axis(ax, "x")
            log_axis(ax)
            ax.set_title(f"{title}: {kind}-based plans (Cost_{'ord' if kind == 'order' else 'tree'})")
            finish_axes(ax, xlabel="plan cost (expected partial matches)", ylabel=ms.axis())
    fig.suptitle("JQPG Figure 6: measured performance as a function of the plan cost")
    fig.tight_layout()
    figs = save_figure(fig, inp.figure_dir, "fig6_cost_quality")
    claims = []
    for (ds, kind), d in w.groupby(["dataset", "kind"]):
        if len(d) < 5:
            continue
        rho = d["plan_cost"].rank().corr(d["throughput_eps"].rank())
        claims.append(Claim(f"{ds}/{kind}: throughput falls as the plan cost grows", "inversely proportional (~1/x^c)",
                            f"Spearman(cost, throughput) = {rho:.2f} over {len(d)} plans", HOLDS if rho <= -0.5 else (PARTLY if rho < 0 else FAILS),
                            "holds: rank correlation <= -0.5; partly: negative"))
        if "peak_memory_bytes" in d and d["peak_memory_bytes"].notna().sum() >= 5:
            rho_m = d["plan_cost"].rank().corr(d["peak_memory_bytes"].rank())
            claims.append(Claim(f"{ds}/{kind}: memory grows with the plan cost", "approximately linear",
                                f"Spearman(cost, memory) = {rho_m:.2f}", HOLDS if rho_m >= 0.5 else (PARTLY if rho_m > 0 else FAILS),
                                "holds: rank correlation >= 0.5; partly: positive"))
    return _section(inp, "JQPG Figure 6: throughput and memory vs plan cost", figs, claims, per="")


# ---- Figure 7: large plans ------------------------------------------------------------------------
def fig7(inp: SectionInput) -> Section:
    plt = pyplot()
    w = wide(inp.table)
    # the paper divides EFREQ's cost by the plan's; a tree plan's Cost_tree is set against EFREQ's
    # order taken as a left-deep tree (plan_cost_tree), an order plan's Cost_ord against EFREQ's Cost_ord
    ef = w[w["algorithm"] == "EFREQ"].set_index(["dataset", "pattern_id"])[["plan_cost", "plan_cost_tree"]]
    w = w.join(ef.rename(columns={"plan_cost": "efreq_cost", "plan_cost_tree": "efreq_tree_cost"}), on=["dataset", "pattern_id"])
    base = np.where(w["kind"] == "tree", w["efreq_tree_cost"], w["efreq_cost"])
    w = w.assign(normalized_cost=base / w["plan_cost"])
    datasets = sorted(w["dataset"].unique())
    fig, axes = plt.subplots(len(datasets), 2, figsize=(13, 3.4 * len(datasets)), squeeze=False)
    shown = [p for p in ALL_PLANNERS if p != "EFREQ"]
    for i, ds in enumerate(datasets):
        d = w[w["dataset"] == ds]
        _line_panel(axes[i][0], d[d["algorithm"] != "EFREQ"], "normalized_cost", "size", shown)
        axes[i][0].set_title(f"{ds}: (a) normalized plan cost (higher is better)")
        finish_axes(axes[i][0], xlabel="pattern size (events)", ylabel=metric_style("normalized_cost").axis(), integer_x=True)
        _line_panel(axes[i][1], d, "plan_time_s", "size", ALL_PLANNERS)
        axes[i][1].set_title(f"{ds}: (b) plan generation time (lower is better)")
        finish_axes(axes[i][1], xlabel="pattern size (events)", ylabel=metric_style("plan_time_s").axis(), integer_x=True)
    fig.suptitle("JQPG Figure 7: generation of large plans")
    fig.tight_layout()
    figs = save_figure(fig, inp.figure_dir, "fig7_large_plans")
    claims = []
    for ds in datasets:
        d = w[w["dataset"] == ds]
        best = {a: d[d["algorithm"] == a].groupby("size")["normalized_cost"].apply(lambda s: log_ci(s.tolist())[0]).max() for a in ("DP-B", "DP-LD")}
        top = max(v for v in best.values() if v == v) if any(v == v for v in best.values()) else math.nan
        claims.append(Claim(f"{ds}: the DP planners' plans are much cheaper than EFREQ's at large sizes", "up to 57x (normalized cost)",
                            ", ".join(f"{a}: largest mean {v:.3g}x" for a, v in best.items()),
                            UNCHECKED if top != top else (HOLDS if top >= 10 else (PARTLY if top > 1 else FAILS)),
                            "holds: the geometric mean normalized cost of a DP planner reaches >= 10x at some size; partly: > 1x"))
        t = d.groupby("algorithm")["plan_time_s"].max()
        heur = [a for a in t.index if a not in ("DP-B", "DP-LD")]
        if heur:
            slow = t[heur].max()
            claims.append(Claim(f"{ds}: the non-DP planners finish in under a second at every size", "all non-DP algorithms < 1 s at n=22",
                                f"slowest non-DP: {t[heur].idxmax()} {slow:.3g} s", flag(slow < 1.0), "holds: every non-DP plan time < 1 s"))
        dp = d[d["algorithm"].isin(["DP-B", "DP-LD"])].groupby(["algorithm", "size"])["plan_time_s"].median()
        if len(dp):
            growth = {a: dp[a].iloc[-1] / dp[a].iloc[0] for a in dp.index.get_level_values(0).unique() if dp[a].iloc[0] > 0}
            claims.append(Claim(f"{ds}: the DP planners' plan time grows rapidly with the size", "over 50 hours for DP-B at n=22",
                                ", ".join(f"{a}: {dp[a].iloc[0]:.2g} s at n={dp[a].index[0]} to {dp[a].iloc[-1]:.2g} s at n={dp[a].index[-1]} ({g:.0f}x)" for a, g in growth.items()),
                                HOLDS if growth and min(growth.values()) >= 100 else (PARTLY if growth and min(growth.values()) > 1 else UNCHECKED),
                                "holds: the median plan time grows >= 100x from the smallest to the largest size planned"))
        g = d[d["algorithm"] == "GREEDY"]
        z = d[d["algorithm"] == "ZSTREAM"]
        if len(g) and len(z):
            big = max(set(g["size"]) & set(z["size"]))
            r = (g[g["size"] == big].set_index("pattern_id")["normalized_cost"] / z[z["size"] == big].set_index("pattern_id")["normalized_cost"]).dropna().tolist()
            gm, lo, hi, n = log_ci(r)
            verdict = UNCHECKED if n < 2 else (HOLDS if gm >= 1.0 and lo >= 0.5 else (FAILS if hi < 1.0 else NOT_MEASURABLE))
            claims.append(Claim(f"{ds}: GREEDY and ZSTREAM give plans of similar quality, GREEDY ahead for large patterns", "similar; GREEDY slightly better at large n",
                                f"n={big:g}: GREEDY/ZSTREAM normalized cost {fmt_ratio(r)}", verdict,
                                "holds: at the largest size the geometric mean ratio is >= 1 with a CI above 0.5; does not hold: the CI lies below 1; else not measurable"))
    return _section(inp, "JQPG Figure 7: large plans: normalized cost and plan time", figs, claims, per="size")


# ---- Figure 8: throughput vs latency --------------------------------------------------------------
def fig8(inp: SectionInput) -> Section:
    plt = pyplot()
    w = wide(inp.table)
    noise = run_to_run_noise(inp.table)
    datasets = sorted(w["dataset"].unique())
    fig, axes = plt.subplots(1, len(datasets), figsize=(6.8 * len(datasets), 4.2), squeeze=False)
    for i, ds in enumerate(datasets):
        ax = axes[0][i]
        d = w[w["dataset"] == ds]
        for alg in order_names(d["algorithm"].unique(), ALL_PLANNERS):
            pts = []
            for alpha, g in d[d["algorithm"] == alg].groupby("alpha"):
                t = log_ci(_values(g, "throughput_eps"))
                lat = log_ci(_values(g, "latency_ms_mean"))
                if t[3] and lat[3]:
                    pts.append((alpha, lat, t))
            if not pts:
                continue
            st = style(alg)
            ax.errorbar([p[1][0] for p in pts], [p[2][0] for p in pts],
                        xerr=[[p[1][0] - p[1][1] for p in pts], [p[1][2] - p[1][0] for p in pts]],
                        yerr=[[p[2][0] - p[2][1] for p in pts], [p[2][2] - p[2][0] for p in pts]],
                        color=st.color, marker=st.marker, label=alg, capsize=2, linewidth=1)
            for alpha, lat, t in pts:
                ax.annotate(f"α={alpha:g}", (lat[0], t[0]), fontsize=6, xytext=(3, 3), textcoords="offset points")
        log_axis(ax, "x")
        log_axis(ax)
        ax.set_title(ds)
        finish_axes(ax, xlabel=metric_style("latency_ms_mean").axis(), ylabel=metric_style("throughput_eps").axis())
    fig.suptitle("JQPG Figure 8: throughput vs latency for alpha in {0, 0.5, 1}")
    fig.tight_layout()
    figs = save_figure(fig, inp.figure_dir, "fig8_throughput_latency")
    claims = []
    for ds in datasets:
        d = w[w["dataset"] == ds]
        lat, thr = [], []
        for alg in sorted(d["algorithm"].unique()):
            a1 = d[(d["algorithm"] == alg) & (d["alpha"] == 1.0)].set_index("pattern_id")
            a0 = d[(d["algorithm"] == alg) & (d["alpha"] == 0.0)].set_index("pattern_id")
            lat += (a1["latency_ms_mean"] / a0["latency_ms_mean"]).dropna().tolist()
            thr += (a1["throughput_eps"] / a0["throughput_eps"]).dropna().tolist()
        inv_lat = [1 / x for x in lat if x > 0]
        inv_thr = [1 / x for x in thr if x > 0]
        claims.append(Claim(f"{ds}: a higher alpha lowers the latency", "significantly lower latency",
                            f"latency at alpha=0 over alpha=1, per pattern and planner: {fmt_ratio(inv_lat)}", ratio_verdict(inv_lat, 1.25, noise),
                            "holds: the per-pattern ratio's CI lies above 1 and its mean is >= 1.25x"))
        claims.append(Claim(f"{ds}: a higher alpha lowers the throughput for most algorithms", "a considerable drop",
                            f"throughput at alpha=0 over alpha=1: {fmt_ratio(inv_thr)}", ratio_verdict(inv_thr, 1.25, noise),
                            "holds: the per-pattern ratio's CI lies above 1 and its mean is >= 1.25x"))
        # trade-off: the area dominated; here the mean of log throughput minus log latency over alphas
        score = {}
        for alg, g in d.groupby("algorithm"):
            v = (np.log(g["throughput_eps"]) - np.log(g["latency_ms_mean"])).replace([np.inf, -np.inf], np.nan).dropna()
            if len(v):
                score[alg] = float(v.mean())
        if score:
            top2 = sorted(score, key=score.get, reverse=True)[:2]
            claims.append(Claim(f"{ds}: DP-B and ZSTREAM-ORD give the best throughput-latency trade-off", "substantially better than the others",
                                "best two by mean log(throughput/latency): " + ", ".join(top2), flag(set(top2) == {"DP-B", "ZSTREAM-ORD"}),
                                "holds: DP-B and ZSTREAM-ORD have the two highest mean log(throughput / latency) over patterns and alphas"))
    return _section(inp, "JQPG Figure 8: throughput vs latency (alpha)", figs, claims, per="alpha")


# ---- Figure 9: selection strategies ---------------------------------------------------------------
def fig9(inp: SectionInput) -> Section:
    plt = pyplot()
    w = wide(inp.table)
    noise = run_to_run_noise(inp.table)
    datasets = sorted(w["dataset"].unique())
    fig, axes = plt.subplots(1, len(datasets), figsize=(7 * len(datasets), 4.2), squeeze=False)
    for i, ds in enumerate(datasets):
        d = w[w["dataset"] == ds]
        strategies = [s for s in STRATEGIES if (d["strategy"] == s).any()]
        _dot_panel(axes[0][i], d, "throughput_eps", "strategy", strategies, order_names(d["algorithm"].unique(), ALL_PLANNERS),
                   {s: s.replace("skip-till-", "").replace("-", " ") for s in strategies})
        axes[0][i].set_title(ds)
        finish_axes(axes[0][i], xlabel="selection strategy", ylabel=metric_style("throughput_eps").axis())
    fig.suptitle("JQPG Figure 9: throughput under different selection strategies")
    fig.tight_layout()
    figs = save_figure(fig, inp.figure_dir, "fig9_strategies")
    claims = []
    for ds in datasets:
        d = w[w["dataset"] == ds]
        gains = {}
        for st in ("skip-till-any-match", "skip-till-next-match"):
            ds_ = d[d["strategy"] == st]
            r = []
            for jq, nat in (("DP-LD", "EFREQ"), ("DP-B", "ZSTREAM")):
                r += paired_ratios(ds_, "throughput_eps", jq, nat).tolist()
            gains[st] = r
        nxt, anym = gains["skip-till-next-match"], gains["skip-till-any-match"]
        claims.append(Claim(f"{ds}: under skip-till-next-match the JQPG planners keep a clear advantage", "a clear advantage",
                            f"DP-LD/EFREQ and DP-B/ZSTREAM: {fmt_ratio(nxt)}", ratio_verdict(nxt, 1.5, noise),
                            "holds: the pooled per-pattern ratio's CI lies above 1 and its mean is >= 1.5x"))
        gn, ga = log_ci(nxt), log_ci(anym)
        verdict = UNCHECKED if gn[3] < 2 or ga[3] < 2 else (HOLDS if gn[2] < ga[1] else (FAILS if gn[1] > ga[2] else NOT_MEASURABLE))
        claims.append(Claim(f"{ds}: the JQPG lead is smaller under skip-till-next-match than under skip-till-any-match", "less significant than for any-match",
                            f"next-match {fmt_ratio(nxt)} vs any-match {fmt_ratio(anym)}", verdict,
                            "holds: the CI under next-match lies below the CI under any-match; does not hold: it lies above; not measurable: the CIs overlap"))
        c = d[d["strategy"] == "strict-contiguity"]
        if len(c):
            others = [a for a in c["algorithm"].unique() if a != "TRIVIAL"]
            parts, verdicts = [], []
            for a in others:
                r = paired_ratios(c, "throughput_eps", "TRIVIAL", a).tolist()
                parts.append(f"TRIVIAL/{a}: {fmt_ratio(r)}")
                verdicts.append(ratio_verdict(r, 1.0, noise))
            claims.append(Claim(f"{ds}: under contiguity TRIVIAL outperforms the other planners", "the trivial plan performs best",
                                "; ".join(parts), _weakest(verdicts), "holds: TRIVIAL's per-pattern ratio over every other planner has a CI above 1"))
    return _section(inp, "JQPG Figure 9: selection strategies", figs, claims, per="strategy")
