"""The report sections of JQPG Figures 3-9 (JQPG Section 6.3): figures and every claim of the section.

Aggregation.  A plotted point is the geometric mean over the patterns of its group, with the 95%
confidence interval of that mean (Student t over the logarithms; :mod:`experiments.reporting.panels`);
throughput varies over orders of magnitude between patterns, where an arithmetic mean would follow the
few fastest.  The order-based and the tree-based planners are the registry's
(:func:`algorithms.registry.planner_kind`), in its order; a method from another package is drawn beside
the planners of its kind.

Every claim quotes its sentence (:mod:`experiments.reporting.sentences.jqpg`: the direction and size come
from it) and is judged by the one rule set, :mod:`experiments.reporting.rules`, on paired effects over
patterns (:mod:`experiments.reporting.jqpg_pairs`: per pattern the ratio of two plans' measurements,
capped runs as bounds decided by the censored rule; planners pooled in one claim count a pattern once).
A trend across lengths is a slope over patterns (each pattern has one length); Figure 6's trend over plan
costs is one slope per pattern over its distinct plans, the interval over patterns.

Beside every claim judged on throughput stands a sibling row judged on the deterministic ``work`` (join
candidates examined), beside every claim on memory one on the peak live partial matches (on II-GREEDY's,
the peak state: partial matches and buffered events), beside every latency claim one on the latency work
(:data:`core.ON_METRIC` labels them): the same rule and size, oriented so that > 1 favours the method
the paper says wins.  A sibling is shown under its claim and not counted.  Every claim that does not
hold carries a cause computed from the cost model on the stored patterns, at our density and the paper's
(:mod:`experiments.reporting.jqpg_model`, :mod:`experiments.reporting.diagnosis`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

import experiments.reporting.panels as panels
from algorithms.registry import is_builtin, planner_kind, planner_names
from cep.metrics import drawn
from experiments.reporting.core import (
    HOLDS,
    UNCHECKED,
    Claim,
    Section,
    SectionInput,
    judge,
    log_ci,
    order_names,
    paired_ratios,
    run_to_run_noise,
    wide,
)
from experiments.reporting.diagnosis import Facts, diagnosed, not_modelled
from experiments.reporting.jqpg_model import JqpgModel
from experiments.reporting.jqpg_pairs import (
    HIGHER_BETTER,
    PEAK,
    SET_LABEL,
    SET_ORDER,
    UNIT,
    WORK,
    Rows,
    Source,
    by_pattern_ratio,
    capped_note,
    cells,
    claim_rows,
    detail,
    effect,
    exact,
    pair,
    pair_detail,
    pooled_units,
)
from experiments.reporting.plotstyle import finish_axes, log_axis, pyplot, save_figure, style
from experiments.reporting.rules import (
    BEATS,
    COMPARABLE,
    DIRECTION,
    GREATLY,
    Interval,
    Observation,
    Verdict,
    all_of,
    at_least,
    invert,
    not_worse,
    paired_slope_interval,
    per_unit,
    ratio_interval,
    slope_interval,
)
from experiments.reporting.sentences.jqpg import SENTENCES as JQPG

#: the registry's planners by the kind of plan they return, in its order
ALL_PLANNERS = planner_names()
KIND_PLANNERS = {kind: [p for p in ALL_PLANNERS if planner_kind(p) == kind] for kind in ("order", "tree")}
JQPG_ORDER = ["GREEDY", "II-RANDOM", "II-GREEDY", "DP-LD"]  # the paper's own order-based planners (JQPG 6.1)
STRATEGIES = ["skip-till-any-match", "skip-till-next-match", "strict-contiguity"]
#: each kind's native planner, the baseline of its relative panels (JQPG 6.3)
NATIVE = {"order": "EFREQ", "tree": "ZSTREAM"}


# ---- aggregation and drawing ----------------------------------------------------------------------
def _shown(w: pd.DataFrame, planners: list[str]) -> list[str]:
    """The planners of ``planners`` present in ``w``, then every method from another package present
    (``+extra_planners``: a name the registry does not hold), in name order."""
    have = set(w["algorithm"].unique())
    return [p for p in planners if p in have] + sorted(a for a in have if not is_builtin(a))


def _groups(w: pd.DataFrame, metric: str, by: str, keys: list | None = None) -> dict:
    """The positive values of ``metric`` (in its drawn unit) per value of ``by`` (per index of ``keys``)."""
    scale = drawn(metric).scale
    if keys is None:
        return {x: panels.positive(w.loc[w[by] == x, metric].tolist(), scale) for x in w[by].dropna().unique()}
    return {i: panels.positive(w.loc[w[by] == k, metric].tolist(), scale) for i, k in enumerate(keys)}


def _dot_panel(ax, w: pd.DataFrame, metric: str, x: str, x_order: list, planners: list[str], labels: dict | None = None) -> None:
    """Per x category and planner: the geometric mean and its 95% CI, side by side (log axis)."""
    methods = {p: _groups(w[w["algorithm"] == p], metric, x, x_order) for p in _shown(w, planners)}
    panels.categories(ax, methods, x_order, labels)


def _line_panel(ax, w: pd.DataFrame, metric: str, x: str, planners: list[str]) -> None:
    """Per planner: the geometric mean over patterns at each x, with its 95% CI (log axis)."""
    panels.lines(ax, {p: _groups(w[w["algorithm"] == p], metric, x) for p in _shown(w, planners)})


def _ratio_panel(ax, w: pd.DataFrame, metric: str, baseline: str, x_order: list, planners: list[str], labels: dict) -> None:
    """Per pattern set and planner: the per-pattern ratio of the planner's metric to the baseline
    planner's on the same pattern, geometric mean and 95% CI (log axis; 1 = the baseline)."""
    methods = {p: {i: paired_ratios(w[w["workload"] == cat], metric, p, baseline).tolist() for i, cat in enumerate(x_order)}
               for p in _shown(w, planners) if p != baseline}
    panels.categories(ax, methods, x_order, labels, baseline=baseline)


def _grid_figure(w: pd.DataFrame, metric: str, title: str, out: Path, name: str) -> list[Path]:
    """Figures 3 and 4: per dataset, order-based and tree-based planners per pattern set -- the
    measurement itself, and per pattern relative to the native planner (EFREQ, ZSTREAM)."""
    plt = pyplot()
    datasets = sorted(w["dataset"].unique())
    fig, axes = plt.subplots(2 * len(datasets), 2, figsize=(13, 3.3 * 2 * len(datasets)), squeeze=False)
    label = drawn(metric)
    for i, ds in enumerate(datasets):
        d = w[w["dataset"] == ds]
        sets = order_names(d["workload"].unique(), SET_ORDER)
        for j, kind in enumerate(("order", "tree")):
            planners, baseline = KIND_PLANNERS[kind], NATIVE[kind]
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


def _caption(w: pd.DataFrame, per: str, settings: dict, noise: float) -> str:
    n = w.groupby(["dataset", "algorithm"] + ([per] if per else []))["pattern_id"].nunique()
    repeats = settings.get("repeats")
    noise_txt = f"; run-to-run variation: median spread {noise:.2f}x between a cell's runs" if noise > 1 else ""
    lo, hi = int(n.min()), int(n.max())
    return (
        f"Points: geometric means over {lo if lo == hi else f'{lo}-{hi}'} patterns per point (fewer where cells were capped), "
        "error bars: 95% confidence intervals; "
        f"{repeats or 1} timed run(s) per cell, median taken{noise_txt}."
    )


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
    caption = _caption(w, per, inp.settings, noise) if len(w) else ""
    return Section(inp.experiment, title, figures, claims, [], caption, _regime_tables(inp.meta))


# ---- the claims' parts ------------------------------------------------------------------------------
def _model(inp: SectionInput) -> JqpgModel:
    return JqpgModel(inp.exp_dir, inp.meta, inp.table)


def _rows(c: pd.DataFrame, model: JqpgModel, *, dataset: str | None = None, strategy: str | None = None) -> Rows:
    """The cells of a claim (all, or one dataset / strategy) and the matching mask of the model's cells."""
    where = pd.Series(True, index=model.specs.index)
    if dataset is not None:
        c, where = c[c["dataset"] == dataset], where & (model.specs["dataset"] == dataset)
    if strategy is not None:
        c, where = c[c["strategy"] == strategy], where & (model.specs["strategy"] == strategy)
    return Rows(c, model, where, tuple(sorted(c["dataset"].dropna().unique())))


def _all(parts: dict[str, Callable[[Source], Verdict]]) -> Callable[[Source], Verdict]:
    """A claim needing every part (all_of): the weakest decides."""
    return lambda src: all_of([f(src) for f in parts.values()])


def _parts_detail(parts: dict[str, Callable[[Source], Verdict]]) -> Callable[[Source], str]:
    def text(src: Source) -> str:
        return ", ".join(f"{k}: {v.effect.text()} ({v.verdict})" for k, v in ((k, f(src)) for k, f in parts.items()))
    return text


def _pooled(s, pairs_: list[tuple[str, str]], size: float | None = None) -> Callable[[Source], Verdict]:
    """Pairs pooled per pattern, judged by ``s``."""
    return lambda src: judge(s, pooled_units(src, pairs_)[0], size)


def _pooled_detail(pairs_: list[tuple[str, str]], what: str) -> Callable[[Source], str]:
    def text(src: Source) -> str:
        e, left = pooled_units(src, pairs_)
        each = ", ".join(f"{a}/{b} {effect(src(a, b)).estimate:.2f}x" for a, b in pairs_)
        return detail(f"{what}, pooled per pattern (identical plans count once): {each}", f"{left} units left out (a capped side)" if left else "")
    return text


def _at_largest_set(s, a: str, b: str) -> Callable[[Source], Verdict]:
    """"Up to": ``a`` over ``b`` on the pattern set where the effect is largest (the paper names its largest)."""
    def f(src: Source) -> Verdict:
        p = src(a, b)
        by = {w: effect(g) for w, g in p.dropna(subset=["ratio"]).groupby("workload")}
        by = {w: e for w, e in by.items() if e.n}
        if not by:
            return judge(s, effect(p))
        top = max(by, key=lambda w: by[w].estimate)
        return judge(s, by[top])
    return f


# ---- Figure 3: throughput per pattern set ---------------------------------------------------------
def fig3(inp: SectionInput) -> Section:
    w = wide(inp.table)
    figs = _grid_figure(w, "throughput_eps", "JQPG Figure 3: throughput per pattern set (higher is better)", inp.figure_dir, "fig3_throughput")
    rows = _rows(cells(inp.table), _model(inp))
    S = JQPG
    claims = []
    # each claim on throughput, then its sibling on work (the same rule on the baseline's work over the method's)
    native = [(p, "EFREQ") for p in JQPG_ORDER] + [(p, "ZSTREAM") for p in ("ZSTREAM-ORD", "DP-B")]
    claims += claim_rows(S["jqpg_over_native"], _pooled(S["jqpg_over_native"], native), rows,
                         detail_of=_pooled_detail(native, "the JQPG planners over the native planner of their kind"))
    for a, b, key in (("DP-LD", "EFREQ", "dp_ld_over_efreq"), ("DP-B", "ZSTREAM", "dp_b_over_zstream")):
        claims += claim_rows(S[key], pair(a, b, S[key]), rows, detail_of=pair_detail(a, b), single=(a, b))
    heur = {f"DP-LD/{h}": pair("DP-LD", h, S["order_heuristics_comparable"]) for h in ("GREEDY", "II-RANDOM", "II-GREEDY")}
    claims += claim_rows(S["order_heuristics_comparable"], _all(heur), rows, detail_of=_parts_detail(heur))
    both = {f"DP-B/{o}": pair("DP-B", o, S["dp_b_convincing"]) for o in ("ZSTREAM", "ZSTREAM-ORD")}
    claims += claim_rows(S["dp_b_convincing"], _all(both), rows, detail_of=_parts_detail(both))
    claims += claim_rows(S["tree_over_order"], pair("DP-B", "DP-LD", S["tree_over_order"]), rows,
                         detail_of=pair_detail("DP-B", "DP-LD"), single=("DP-B", "DP-LD"))
    claims += claim_rows(S["dp_ld_vs_zstream"], pair("DP-LD", "ZSTREAM", S["dp_ld_vs_zstream"]), rows,
                         detail_of=pair_detail("DP-LD", "ZSTREAM"), single=("DP-LD", "ZSTREAM"))
    best = {f"{dp}/{o}": pair(dp, o, S["dp_best"]) for dp, kind in (("DP-LD", "order"), ("DP-B", "tree"))
            for o in KIND_PLANNERS[kind] if o != dp}
    claims += claim_rows(S["dp_best"], _all(best), rows, detail_of=_parts_detail(best))
    return _section(inp, "JQPG Figure 3: throughput per pattern set", figs, claims)


# ---- Figure 4: memory per pattern set -------------------------------------------------------------
def fig4(inp: SectionInput) -> Section:
    w = wide(inp.table)
    if "peak_memory_bytes" not in w:
        return Section(inp.experiment, "JQPG Figure 4: memory per pattern set", [], [
            Claim.unjudged(JQPG["order_memory_vs_efreq"], "no peak_memory_bytes rows", UNCHECKED, "not checkable: the cells stored no memory")])
    figs = _grid_figure(w, "peak_memory_bytes", "JQPG Figure 4: peak memory of the evaluator state per pattern set (lower is better)",
                        inp.figure_dir, "fig4_memory")
    rows = _rows(cells(inp.table), _model(inp))
    S, mem = JQPG, "peak_memory_bytes"
    claims = []
    # each claim on metered memory, then its sibling on the peak live partial matches (the model's count)
    native = [(p, "EFREQ") for p in JQPG_ORDER] + [(p, "ZSTREAM") for p in ("ZSTREAM-ORD", "DP-B")]
    claims += claim_rows(S["jqpg_memory_over_native"], _pooled(S["jqpg_memory_over_native"], native), rows, metric=mem, sibling=PEAK,
                         detail_of=_pooled_detail(native, "the native planner's memory over the JQPG planners' of its kind"))
    order = [(p, "EFREQ") for p in JQPG_ORDER]
    claims += claim_rows(S["order_memory_vs_efreq"], _pooled(S["order_memory_vs_efreq"], order), rows, metric=mem, sibling=PEAK,
                         detail_of=_pooled_detail(order, "EFREQ's memory over the JQPG order planners'"))
    claims += claim_rows(S["dp_b_memory_vs_zstream"], _at_largest_set(S["dp_b_memory_vs_zstream"], "DP-B", "ZSTREAM"), rows, metric=mem,
                         sibling=PEAK, detail_of=pair_detail("DP-B", "ZSTREAM"), single=("DP-B", "ZSTREAM"))
    # the paper attributes II-GREEDY's edge to the buffered events its model does not count: judged on bytes
    # and on the peak state (partial matches and buffered events), not on the partial matches DP-LD minimises
    claims += claim_rows(S["ii_greedy_memory"], pair("II-GREEDY", "DP-LD", S["ii_greedy_memory"]), rows, metric=mem, sibling="peak_state",
                         detail_of=pair_detail("II-GREEDY", "DP-LD"), single=("II-GREEDY", "DP-LD"))
    claims += claim_rows(S["tree_over_order_memory"], pair("DP-B", "DP-LD", S["tree_over_order_memory"]), rows, metric=mem, sibling=PEAK,
                         detail_of=pair_detail("DP-B", "DP-LD"), single=("DP-B", "DP-LD"))
    return _section(inp, "JQPG Figure 4: memory per pattern set", figs, claims)


# ---- Figure 5: throughput vs sequence length ------------------------------------------------------
def fig5(inp: SectionInput) -> Section:
    plt = pyplot()
    w = wide(inp.table)
    datasets = sorted(w["dataset"].unique())
    fig, axes = plt.subplots(len(datasets), 2, figsize=(13, 3.4 * len(datasets)), squeeze=False)
    for i, ds in enumerate(datasets):
        for j, (kind, planners) in enumerate(KIND_PLANNERS.items()):
            ax = axes[i][j]
            _line_panel(ax, w[(w["dataset"] == ds) & (w["kind"] == kind)], "throughput_eps", "size", planners)
            ax.set_title(f"{ds}: ({'a' if kind == 'order' else 'b'}) {kind}-based plans")
            finish_axes(ax, xlabel="sequence length (events)", ylabel=drawn("throughput_eps").axis(), integer_x=True)
    fig.suptitle("JQPG Figure 5: throughput vs sequence length (higher is better)")
    fig.tight_layout()
    figs = save_figure(fig, inp.figure_dir, "fig5_throughput_vs_length")
    claims = []
    c, model = cells(inp.table), _model(inp)
    sizes = sorted(w["size"].dropna().unique())
    if len(sizes) >= 2:
        lo_n, hi_n = sizes[0], sizes[-1]
        drastic = math.log(GREATLY) / math.log(hi_n / lo_n)  # a drop of GREATLY or more over the lengths measured
        for ds in datasets:
            rows = _rows(c, model, dataset=ds)
            claims += _degrades(rows, ds, drastic, (lo_n, hi_n))
            for a, b, key in (("DP-LD", "EFREQ", "gain_grows_dp_ld"), ("DP-B", "ZSTREAM", "gain_grows_dp_b")):
                claims += claim_rows(JQPG[key], _gain_slope(a, b, JQPG[key]), rows, prefix=ds, detail_of=_gain_slope_detail(a, b))
    return _section(inp, "JQPG Figure 5: throughput vs sequence length", figs, claims, per="size")


def _exact_pairs(p: pd.DataFrame) -> pd.DataFrame:
    """The ratios of a source that are values (a slope has no one-sided reading: bounds are left out)."""
    return p.dropna(subset=["ratio"])[lambda x: ~(x["lower"].astype(bool) | x["upper"].astype(bool))]


def _gain_slope(a: str, b: str, s) -> Callable[[Source], Verdict]:
    """The gain of ``a`` over ``b`` grows with the length: the slope of its log on log length, over patterns
    (each pattern one length: one point per unit)."""
    def f(src: Source) -> Verdict:
        p = _exact_pairs(src(a, b))
        return judge(s, slope_interval(p["size"], p["ratio"]))
    return f


def _gain_slope_detail(a: str, b: str) -> Callable[[Source], str]:
    def text(src: Source) -> str:
        p = src(a, b)
        bounded = int((p["lower"].astype(bool) | p["upper"].astype(bool)).sum())
        by_n = ", ".join(f"n={n:g}: {ratio_interval(g['ratio'].tolist()).estimate:.2f}x" for n, g in _exact_pairs(p).groupby("size"))
        return detail(f"slope of log({a} over {b}) on log length over patterns", by_n,
                      f"{bounded} pairs with a capped side (a bound) left out" if bounded else "", capped_note(p))
    return text


def _degrades(rows: Rows, ds: str, drastic: float, lengths: tuple) -> list[Claim]:
    """"The performance of all methods degrades drastically": per planner, minus the slope of log throughput on
    log length over patterns at least ``drastic`` (a GREATLY drop over the lengths measured), every planner;
    its sibling the growth of the work; the model's, the growth of the plans' cost (throughput ~ 1/cost)."""
    s, c = JQPG["degrades"], rows.c
    planners = order_names(c["algorithm"].unique(), ALL_PLANNERS)

    def thr(p):
        g = c[(c["algorithm"] == p) & c["throughput_eps"].notna()]
        return judge(s, slope_interval(g["size"], g["throughput_eps"]), drastic)

    def work(p):
        g = c[(c["algorithm"] == p) & c[WORK].notna() & ~c["work_at_least"]]
        return at_least(slope_interval(g["size"], g[WORK]), drastic)

    main = {p: thr(p) for p in planners}
    sib = {p: work(p) for p in planners}
    names = lambda parts: ", ".join(f"{p} {v.effect.text()} ({v.verdict})" for p, v in parts.items())  # noqa: E731
    k = int(c["capped"].sum())
    what = (f"c = {drastic:.2f}: a {GREATLY:g}x drop from n={lengths[0]:g} to n={lengths[1]:g}")

    def model_verdict(paper: bool) -> Verdict:
        f = rows.model.facts(planners, paper=paper, where=rows.where)
        return all_of([at_least(slope_interval(g["size"], np.exp(g["log_trpt"].clip(-700, 700))), drastic) for _, g in f.groupby("algorithm")])

    def facts() -> Facts:
        paper = model_verdict(True) if rows.model.paper_available(rows.datasets) else None
        return Facts(model_verdict(False), paper, all_of(list(sib.values())), rows.model.note(True, rows.datasets) if paper else "")

    diagnose = diagnosed(facts) if rows.model.available else not_modelled("no stored patterns to re-plan")
    return [
        Claim.of(s, all_of(list(main.values())), unit=UNIT, prefix=ds, diagnose=diagnose, detail=detail(
            f"minus the slope of log throughput on log length over patterns, per planner ({what})", names(main),
            f"{k} capped cells (the slowest; no throughput) left out, so the drops are lower bounds" if k else "")),
        Claim.of(s, all_of(list(sib.values())), unit=UNIT, prefix=ds, sibling=WORK, diagnose=diagnose, detail=detail(
            f"the slope of log work on log length over patterns, per planner ({what})", names(sib),
            f"{k} capped cells (the costliest; their work a lower bound or not stored) left out" if k else "")),
    ]


# ---- Figure 6: performance vs plan cost -----------------------------------------------------------
def fig6(inp: SectionInput) -> Section:
    plt = pyplot()
    w = wide(inp.table)
    w = w[w["plan_cost"].notna() & (w["plan_cost"] > 0)]
    measures = [("throughput_eps", "(a) throughput vs plan cost")]
    if "peak_memory_bytes" in w:
        measures.append(("peak_memory_bytes", "(b) peak memory vs plan cost"))
    kinds = [k for k in ("order", "tree") if (w["kind"] == k).any()]
    fig, axes = plt.subplots(len(kinds), len(measures), figsize=(6.5 * len(measures), 3.6 * len(kinds)), squeeze=False)
    for i, kind in enumerate(kinds):
        d = w[w["kind"] == kind]
        for j, (metric, title) in enumerate(measures):
            ax = axes[i][j]
            ms = drawn(metric)
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
    c = cells(inp.table)
    c = c[c["plan_cost"].notna() & (c["plan_cost"] > 0)]
    for (ds, kind), d in c.groupby(["dataset", "kind"]):
        # planners that chose the same plan for a pattern ran the same computation: one point; a pattern's
        # distinct plans give one slope (one unit), the interval is over patterns
        u = d.groupby(["pattern_id", "plan"]).first().reset_index()
        note = (f"{len(u)} distinct plans of {u['pattern_id'].nunique()} patterns; one slope per pattern over its distinct plans "
                "(a pattern with one plan has none)")
        prefix = f"{ds}/{kind}"
        thr = _cost_slope(u, "throughput_eps", bound_col="throughput_at_most", bound="upper")
        work = _cost_slope(u, WORK, bound_col="work_at_least", bound="lower", flag=True)
        claims += _by_definition(JQPG["throughput_vs_cost"], thr, work, prefix, note, WORK)
        if "peak_memory_bytes" in u and u["peak_memory_bytes"].notna().sum() >= 3:
            mem = _cost_slope(u, "peak_memory_bytes")
            peak = _cost_slope(u, PEAK, bound_col="pm_at_least", bound="lower", flag=True)
            claims += _by_definition(JQPG["memory_vs_cost"], mem, peak, prefix, note, PEAK)
    return _section(inp, "JQPG Figure 6: throughput and memory vs plan cost", figs, claims, per="")


def _cost_slope(u: pd.DataFrame, metric: str, *, bound_col: str = "", bound: str = "", flag: bool = False) -> Interval:
    """Per pattern, the slope of log ``metric`` on log plan cost over its distinct plans
    (:func:`rules.paired_slope_interval`): a capped plan enters as a bound (its throughput at most
    ``throughput_at_most``, its work or peak at least the stored value, ``flag``: ``bound_col`` flags it)."""
    series = []
    for _, g in u.groupby("pattern_id"):
        y = g[metric] if metric in g else pd.Series(np.nan, index=g.index)
        marks = pd.Series([None] * len(g), index=g.index, dtype=object)
        if bound_col and bound_col in g:
            if flag:
                marks = marks.where(~g[bound_col].astype(bool), bound)
            else:
                fill = y.isna() & g[bound_col].notna()
                y = y.where(~fill, g[bound_col])
                marks = marks.where(~fill, bound)
        series.append((g["plan_cost"].tolist(), y.tolist(), marks.tolist()))
    return paired_slope_interval(series)


def _by_definition(s, measured_slope: Interval, count_slope: Interval, prefix: str, note: str, sibling: str) -> list[Claim]:
    """Figure 6's claims: the model's prediction is the claim itself (throughput ~ 1/cost, memory ~ cost),
    at any density; the cause is then the engine (the deterministic count does not follow the cost) or
    genuine (it does, the measurement does not)."""
    count = judge(s, count_slope if s.direction == "linear" else invert(count_slope))
    what = "memory ~ cost" if s.direction == "linear" else "throughput ~ 1/cost"
    definition = Verdict(HOLDS, Interval(1.0, 1.0, 1.0, measured_slope.n, "slope"), f"by definition: {what}")
    diagnose = diagnosed(lambda: Facts(definition, definition, count, "the same at any density"))
    label = "minus the slope of log throughput" if s.direction == "falls" else "the slope of log memory"
    return [Claim.of(s, judge(s, measured_slope), unit=UNIT, prefix=prefix, diagnose=diagnose, detail=detail(f"{label} on log plan cost", note)),
            Claim.of(s, count, unit=UNIT, prefix=prefix, sibling=sibling, diagnose=diagnose,
                     detail=detail(f"the slope of log {sibling.replace('_', ' ')} on log plan cost", note))]


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
        finish_axes(axes[i][0], xlabel="pattern size (events)", ylabel=drawn("normalized_cost").axis(), integer_x=True)
        _line_panel(axes[i][1], d, "plan_time_s", "size", ALL_PLANNERS)
        axes[i][1].set_title(f"{ds}: (b) plan generation time (lower is better)")
        finish_axes(axes[i][1], xlabel="pattern size (events)", ylabel=drawn("plan_time_s").axis(), integer_x=True)
    fig.suptitle("JQPG Figure 7: generation of large plans")
    fig.tight_layout()
    figs = save_figure(fig, inp.figure_dir, "fig7_large_plans")
    claims = []
    model = _model(inp)
    w = w.assign(one_s_over_time=1.0 / w["plan_time_s"])
    S = JQPG
    for ds in datasets:
        d = w[w["dataset"] == ds]
        where = model.specs["dataset"] == ds
        dp_sizes = sorted(d[d["algorithm"] == "DP-B"]["size"].dropna().unique())
        if dp_sizes:
            big = dp_sizes[-1]
            heuristics = set(d["algorithm"]) - {"TRIVIAL", "DP-LD"}  # DP-B, EFREQ and the heuristics
            for key, f, uses in (("dp_cheaper_57", _dp_over_efreq(big), {"DP-B", "EFREQ"}),
                                 ("dp_cheaper_heuristics", _dp_over_heuristics(big), heuristics)):
                claims.append(_cost_claim(S[key], f, d, model, where & (model.specs["size"] == big), ds,
                                          f"at DP-B's largest size n={big:g} (the paper's is n=22)", uses))
        heur = [a for a in order_names(d["algorithm"].unique(), ALL_PLANNERS) if a not in ("DP-B", "DP-LD")]
        big_all = d["size"].max()
        parts = [at_least(ratio_interval(d[(d["algorithm"] == a) & (d["size"] == big_all)]["one_s_over_time"].tolist()), 1.0) for a in heur]
        claims.append(Claim.of(S["non_dp_under_a_second"], all_of(parts), unit=UNIT, prefix=ds, diagnose=not_modelled(PLAN_TIME),
                               detail=f"1 s over the plan time at n={big_all:g}: " + ", ".join(f"{a} {v.effect.text()} ({v.verdict})" for a, v in zip(heur, parts))))
        parts, names = [], []
        for a in ("DP-LD", "DP-B"):
            g = d[d["algorithm"] == a]
            if len(g):
                parts.append(judge(S["dp_time_grows"], slope_interval(g["size"], g["plan_time_s"])))
                names.append(f"{a} {parts[-1].effect.text()} ({parts[-1].verdict})")
        claims.append(Claim.of(S["dp_time_grows"], all_of(parts), unit=UNIT, prefix=ds, diagnose=not_modelled(PLAN_TIME),
                               detail="slope of log plan time on log size over patterns (c = 3: faster than cubic): " + ", ".join(names)))
        claims.append(_cost_claim(S["greedy_vs_zstream"], _greedy_vs_zstream, d, model, where, ds, "", {"GREEDY", "ZSTREAM", "EFREQ"}))
        claims.append(_greedy_tradeoff(d, ds))
    return _section(inp, "JQPG Figure 7: large plans: normalized cost and plan time", figs, claims, per="size")


PLAN_TIME = "plan time is measured CPU of the planner; no cost model predicts it"


def _normalized(f: pd.DataFrame) -> pd.DataFrame:
    """Re-planned facts (:meth:`JqpgModel.facts`) as Figure 7's normalized cost: EFREQ's cost over the plan's,
    an order plan in Cost_ord, a tree plan in Cost_tree (EFREQ's order as a left-deep tree)."""
    ef = f[f["algorithm"] == "EFREQ"].set_index(["dataset", "pattern_id"])[["log_trpt", "log_tree"]]
    j = f.join(ef, on=["dataset", "pattern_id"], rsuffix="_efreq")
    base = np.where(j["kind"] == "tree", j["log_tree_efreq"], j["log_trpt_efreq"])
    return j.assign(normalized_cost=np.exp(np.clip(base - j["log_trpt"], -700, 700)))


def _dp_over_efreq(big: float) -> Callable[[pd.DataFrame], Verdict]:
    """"Up to a factor of 57": DP-B's normalized cost at the largest size it planned."""
    def f(d: pd.DataFrame) -> Verdict:
        x = d[(d["size"] == big) & (d["algorithm"] == "DP-B")]
        return judge(JQPG["dp_cheaper_57"], ratio_interval(x["normalized_cost"].tolist()))
    return f


def _dp_over_heuristics(big: float) -> Callable[[pd.DataFrame], Verdict]:
    """"Significantly cheaper ... than the heuristic alternatives": per pattern at the largest size DP-B
    planned, its normalized cost over the best non-DP planner's."""
    def f(d: pd.DataFrame) -> Verdict:
        x = d[d["size"] == big]
        dp = x[x["algorithm"] == "DP-B"].groupby("pattern_id")["normalized_cost"].first()
        heur = x[~x["algorithm"].isin(["DP-B", "DP-LD", "EFREQ"])].groupby("pattern_id")["normalized_cost"].max()
        return judge(JQPG["dp_cheaper_heuristics"], ratio_interval((dp / heur).dropna().tolist()))
    return f


def _greedy_vs_zstream(d: pd.DataFrame) -> Verdict:
    """Similar quality over all sizes (COMPARABLE), GREEDY ahead at the largest size (a direction only)."""
    pr = by_pattern_ratio(d, "normalized_cost", "GREEDY", "ZSTREAM")
    if not len(pr):
        return all_of([])
    big = pr["size"].max()
    return all_of([judge(JQPG["greedy_vs_zstream"], ratio_interval(pr["ratio"].tolist())),
                   at_least(ratio_interval(pr[pr["size"] == big]["ratio"].tolist()), DIRECTION)])


def _cost_claim(s, f: Callable[[pd.DataFrame], Verdict], d: pd.DataFrame, model: JqpgModel, where: pd.Series, ds: str, note: str,
                uses: set[str]) -> Claim:
    """A claim on planned cost (Figure 7(a)): the measurement *is* the model at our density; its diagnosis
    re-plans the same patterns at the paper's density -- the planners ``f`` reads (``uses``, EFREQ, the
    normalizer, among them) on the rows of ``where``.  No evaluation ran: no work."""
    v = f(d)
    algorithms = sorted(uses & set(d["algorithm"]))

    def facts() -> Facts:
        paper = f(_normalized(model.facts(algorithms, paper=True, where=where))) if model.paper_available([ds]) else None
        return Facts(v, paper, None, model.note(True, [ds]) if paper else "", ours_note="the planned cost itself")
    return Claim.of(s, v, unit=UNIT, prefix=ds, detail=note, diagnose=diagnosed(facts) if model.available else not_modelled("no stored patterns"))


def _greedy_tradeoff(d: pd.DataFrame, ds: str) -> Claim:
    """JQPG 6.3: "GREEDY demonstrated the best overall trade-off between optimization time and quality",
    read as: no order planner both plans as well and as fast.  At the largest size DP-LD planned: the
    faster native EFREQ plans worse (its cost over GREEDY's >= 1.1x), GREEDY's plans are within the band
    of comparable of DP-LD's optimum, and DP-LD and the II heuristics take longer (>= 1.5x and 1.1x)."""
    sizes = sorted(d[d["algorithm"] == "DP-LD"]["size"].dropna().unique())
    s = JQPG["greedy_tradeoff"]
    if not sizes:
        return Claim.unjudged(s, "no DP-LD plans", UNCHECKED, "needs DP-LD's plans", prefix=ds)
    x = d[d["size"] == sizes[-1]]

    def r(metric, num, den):
        return ratio_interval(by_pattern_ratio(x, metric, num, den)["ratio"].tolist())

    ii = per_unit(Observation(p, v) for a in ("II-RANDOM", "II-GREEDY") for p, v in by_pattern_ratio(x, "plan_time_s", a, "GREEDY")["ratio"].items())
    parts = {"EFREQ cost / GREEDY's": at_least(r("plan_cost", "EFREQ", "GREEDY"), BEATS),
             "DP-LD cost / GREEDY's": not_worse(r("plan_cost", "DP-LD", "GREEDY"), COMPARABLE),
             "DP-LD time / GREEDY's": at_least(r("plan_time_s", "DP-LD", "GREEDY"), GREATLY),
             "II time / GREEDY's (pooled)": at_least(ii.interval, BEATS)}
    return Claim.of(s, all_of(list(parts.values())), unit=UNIT, prefix=ds, diagnose=not_modelled(PLAN_TIME + " (the claim weighs plan time)"),
                    detail=f"at n={sizes[-1]:g}: " + ", ".join(f"{k} {v.effect.text()} ({v.verdict})" for k, v in parts.items()))


# ---- Figure 8: throughput vs latency --------------------------------------------------------------
#: Figure 8's two latency measures (:mod:`evaluators.engine`) and how its rows name them
FIG8_LATENCY = {"latency_ms_mean": "wall-clock latency", "latency_work_mean": "latency work"}

FIG8_MEASURES = (
    "Latency is measured two ways, per match from the moment its last event is taken from the stream "
    "to its report (JQPG 5.1), averaged over the matches of a pattern: **wall-clock latency** "
    "(`latency_ms_mean`, milliseconds on this shared machine, with its run-to-run noise) and **latency "
    "work** (`latency_work_mean`, the join candidates the evaluator examined in that span: the measured "
    "counterpart of `Cost_lat`, deterministic, the same on every run). Each latency claim has a row "
    "for each; the rows on latency work carry \"(latency work)\" in their claim. Throughput is judged "
    "once, in events/s."
)


def fig8(inp: SectionInput) -> Section:
    plt = pyplot()
    w = wide(inp.table)
    datasets = sorted(w["dataset"].unique())
    measures = [m for m in FIG8_LATENCY if m in w and w[m].notna().any()]
    fig, axes = plt.subplots(len(measures), len(datasets), figsize=(6.8 * len(datasets), 4.2 * len(measures)), squeeze=False)
    for r, lat_metric in enumerate(measures):
        for i, ds in enumerate(datasets):
            _fig8_panel(axes[r][i], w[w["dataset"] == ds], lat_metric)
            axes[r][i].set_title(f"{ds}: throughput vs {FIG8_LATENCY[lat_metric]}")
    fig.suptitle("JQPG Figure 8: throughput vs latency for alpha in {0, 0.5, 1}")
    fig.tight_layout()
    figs = save_figure(fig, inp.figure_dir, "fig8_throughput_latency")
    claims = []
    c, model = cells(inp.table), _model(inp)
    S = JQPG
    for ds in datasets:
        rows = _rows(c, model, dataset=ds)
        k = int(rows.c["capped"].sum())
        note = "per pattern, pooled over the planners" + (f"; {k} capped cells (no throughput or latency) left out" if k else "")
        claims += _alpha_rows(S["alpha_lowers_latency"], lambda lat, thr: judge(S["alpha_lowers_latency"], lat(1.0, 0.0)[0]), rows, ds,
                              lambda lat, thr: detail("latency at alpha=0 over alpha=1", note))
        claims += _alpha_rows(S["alpha_drops_throughput"], lambda lat, thr: judge(S["alpha_drops_throughput"], thr(0.0, 1.0)[0]), rows, ds,
                              lambda lat, thr: detail("throughput at alpha=0 over alpha=1", note), sibling=WORK)

        def tuning(lat, thr):
            return all_of([at_least(lat(1.0, 0.0)[0], BEATS), not_worse(thr(1.0, 0.0)[0], COMPARABLE)])

        claims += _alpha_rows(S["alpha_tuning"], tuning, rows, ds, lambda lat, thr: detail(
            f"latency alpha=0 over alpha=1 {lat(1.0, 0.0)[0].text()}; throughput alpha=1 over alpha=0 {thr(1.0, 0.0)[0].text()}", note),
            sibling="latency_work_and_work")
        claims += _tradeoff_rows(S["tradeoff_dp_b_zstream_ord"], rows, ds)
    sec = _section(inp, "JQPG Figure 8: throughput vs latency (alpha)", figs, claims, per="alpha")
    sec.preface.append(FIG8_MEASURES)
    return sec


def _fig8_panel(ax, d: pd.DataFrame, lat_metric: str) -> None:
    """Per planner, its (latency, throughput) point at each alpha: geometric means over the patterns
    with their 95% CIs, joined in alpha order."""
    for alg in order_names(d["algorithm"].unique(), ALL_PLANNERS):
        pts = []
        for alpha, g in d[d["algorithm"] == alg].groupby("alpha"):
            t = log_ci(panels.positive(g["throughput_eps"].tolist()))
            lat = log_ci(panels.positive(g[lat_metric].tolist()))
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
    finish_axes(ax, xlabel=drawn(lat_metric).axis(), ylabel=drawn("throughput_eps").axis())


AlphaSource = Callable[[float, float], tuple[Interval, int]]


def _alpha_measured(c: pd.DataFrame, metric: str) -> AlphaSource:
    """Per pattern, ``metric`` at alpha ``a`` in favour over alpha ``b`` (throughput ``a / b``; latency and work
    ``b / a``) for each planner, 1 where alpha left the plan alone (the same computation), pooled over the
    planners: one observation per pattern; and the capped cells left out (no throughput or latency)."""
    higher = metric in HIGHER_BETTER

    def src(a: float, b: float) -> tuple[Interval, int]:
        obs = []
        for alg, g in c[~c["capped"]].groupby("algorithm"):
            x = g[g["alpha"] == a].set_index("pattern_id")
            y = g[g["alpha"] == b].set_index("pattern_id")
            both = x.index.intersection(y.index)  # a pattern capped at one alpha has no ratio
            x, y = x.loc[both], y.loc[both]
            r = (x[metric] / y[metric]) if higher else (y[metric] / x[metric])
            same = x["plan"] == y["plan"]
            r = r.replace([np.inf, -np.inf], np.nan).where(~(same & r.notna()), 1.0).dropna()
            obs += [Observation(p, v) for p, v in r.items()]
        return per_unit(obs).interval, int(c["capped"].sum())
    return src


def _alpha_modelled(rows: Rows, *, paper: bool, measure: str) -> AlphaSource:
    """The same from the re-planned plans: the model's throughput (or latency) cost at alpha ``b`` over that at ``a``."""
    def src(a: float, b: float) -> tuple[Interval, int]:
        f = rows.model.facts(set(rows.c["algorithm"]), paper=paper, where=rows.where)
        col = "log_lat" if measure == "latency" else "log_trpt"
        obs = []
        for alg, g in f.groupby("algorithm"):
            x = g[g["alpha"] == a].set_index("pattern_id")[col]
            y = g[g["alpha"] == b].set_index("pattern_id")[col]
            r = np.exp((y - x).clip(-700, 700)).dropna()
            obs += [Observation(p, v) for p, v in r.items()]
        return per_unit(obs).interval, 0
    return src


def _alpha_rows(s, f, rows: Rows, ds: str, detail_of, sibling: str = "latency_work_mean") -> list[Claim]:
    """A Figure 8 claim ``f(latency source, throughput source)``: its row on wall-clock latency and throughput,
    its sibling on latency work and work, and the model's prediction (Cost_lat and Cost_trpt of the plans
    each alpha chose) for its diagnosis."""
    c = rows.c
    main = (_alpha_measured(c, "latency_ms_mean"), _alpha_measured(c, "throughput_eps"))
    sib = (_alpha_measured(c, "latency_work_mean"), _alpha_measured(c, WORK))
    work = f(*sib)

    def facts() -> Facts:
        ours = f(_alpha_modelled(rows, paper=False, measure="latency"), _alpha_modelled(rows, paper=False, measure="throughput"))
        paper = (f(_alpha_modelled(rows, paper=True, measure="latency"), _alpha_modelled(rows, paper=True, measure="throughput"))
                 if rows.model.paper_available(rows.datasets) else None)
        return Facts(ours, paper, work, rows.model.note(True, rows.datasets) if paper else "")
    diagnose = diagnosed(facts) if rows.model.available else not_modelled("no stored patterns")
    return [Claim.of(s, f(*main), unit=UNIT, prefix=ds, detail=detail_of(*main), diagnose=diagnose),
            Claim.of(s, work, unit=UNIT, prefix=ds, sibling=sibling, detail=detail_of(*sib), diagnose=diagnose)]


def _scores(c: pd.DataFrame, thr: str, lat: str) -> dict[str, pd.Series]:
    """Per planner and pattern, its throughput-latency trade-off: ``thr`` over ``lat`` (for costs, one over
    their product), the geometric mean over the alphas."""
    c = c[~c["capped"]]
    value = c[thr] / c[lat] if thr in HIGHER_BETTER else 1.0 / (c[thr] * c[lat])
    d = c.assign(score=value.replace([np.inf, -np.inf], np.nan)).dropna(subset=["score"])
    d = d[d["score"] > 0]
    return {a: g.groupby("pattern_id")["score"].apply(lambda v: float(np.exp(np.log(v).mean()))) for a, g in d.groupby("algorithm")}


def _tradeoff(s, score: dict[str, pd.Series]) -> tuple[Verdict, str]:
    """DP-B and ZSTREAM-ORD, pooled per pattern, over each other planner's trade-off, every one at least the size."""
    top = {a: score[a] for a in ("DP-B", "ZSTREAM-ORD") if a in score}
    others = sorted(a for a in score if a not in top)
    if not top or not others:
        return all_of([]), "needs DP-B or ZSTREAM-ORD and another planner"
    two = per_unit(Observation(p, v) for sc in top.values() for p, v in sc.items()).values
    two = pd.Series({p: v for p, (v, _, _) in two.items()})
    parts = {o: judge(s, ratio_interval((two / score[o]).dropna().tolist())) for o in others}
    return all_of(list(parts.values())), ", ".join(f"{o} {v.effect.text()} ({v.verdict})" for o, v in parts.items())


def _tradeoff_rows(s, rows: Rows, ds: str) -> list[Claim]:
    c = rows.c
    main, main_text = _tradeoff(s, _scores(c, "throughput_eps", "latency_ms_mean"))
    work, work_text = _tradeoff(s, _scores(c, WORK, "latency_work_mean"))

    def model_scores(paper: bool) -> dict[str, pd.Series]:
        f = rows.model.facts(set(c["algorithm"]), paper=paper, where=rows.where)
        f = f.assign(score=np.exp((-(f["log_trpt"] + f["log_lat"])).clip(-700, 700)))
        return {a: g.groupby("pattern_id")["score"].apply(lambda v: float(np.exp(np.log(v).mean()))) for a, g in f.groupby("algorithm")}

    def facts() -> Facts:
        paper = _tradeoff(s, model_scores(True))[0] if rows.model.paper_available(rows.datasets) else None
        return Facts(_tradeoff(s, model_scores(False))[0], paper, work, rows.model.note(True, rows.datasets) if paper else "")
    diagnose = diagnosed(facts) if rows.model.available else not_modelled("no stored patterns")
    head = "the trade-off (geometric mean over the alphas), DP-B and ZSTREAM-ORD pooled per pattern, over each other planner's: "
    return [Claim.of(s, main, unit=UNIT, prefix=ds, diagnose=diagnose, detail=head.replace("the trade-off", "throughput over latency") + main_text),
            Claim.of(s, work, unit=UNIT, prefix=ds, sibling="latency_work_mean", diagnose=diagnose,
                     detail=head.replace("the trade-off", "one over work times latency work") + work_text)]


# ---- Figure 9: selection strategies ---------------------------------------------------------------
def fig9(inp: SectionInput) -> Section:
    plt = pyplot()
    w = wide(inp.table)
    datasets = sorted(w["dataset"].unique())
    fig, axes = plt.subplots(1, len(datasets), figsize=(7 * len(datasets), 4.2), squeeze=False)
    for i, ds in enumerate(datasets):
        d = w[w["dataset"] == ds]
        strategies = [s for s in STRATEGIES if (d["strategy"] == s).any()]
        _dot_panel(axes[0][i], d, "throughput_eps", "strategy", strategies, order_names(d["algorithm"].unique(), ALL_PLANNERS),
                   {s: s.replace("skip-till-", "").replace("-", " ") for s in strategies})
        axes[0][i].set_title(ds)
        finish_axes(axes[0][i], xlabel="selection strategy", ylabel=drawn("throughput_eps").axis())
    fig.suptitle("JQPG Figure 9: throughput under different selection strategies")
    fig.tight_layout()
    figs = save_figure(fig, inp.figure_dir, "fig9_strategies")
    claims = []
    c, model = cells(inp.table), _model(inp)
    S = JQPG
    native = [("DP-LD", "EFREQ"), ("DP-B", "ZSTREAM")]
    for ds in datasets:
        nxt = _rows(c, model, dataset=ds, strategy=NEXT_MATCH)
        claims += claim_rows(S["next_match_advantage"], _pooled(S["next_match_advantage"], native), nxt, prefix=ds,
                             detail_of=_pooled_detail(native, "DP-LD over EFREQ and DP-B over ZSTREAM"))
        claims += claim_rows(S["next_match_less"], _less_under_next(native), _rows(c, model, dataset=ds), prefix=ds,
                             detail_of=lambda src: "per pattern, the pooled JQPG gain under any-match over that under next-match")
        cont = _rows(c, model, dataset=ds, strategy="strict-contiguity")
        if len(cont.c):
            others = [("TRIVIAL", a) for a in order_names(cont.c["algorithm"].unique(), ALL_PLANNERS) if a != "TRIVIAL"]
            claims += claim_rows(S["contiguity_trivial"], _pooled(S["contiguity_trivial"], others), cont, prefix=ds,
                                 detail_of=_pooled_detail(others, "TRIVIAL over the other planners (identical plans: ratio 1)"))
    return _section(inp, "JQPG Figure 9: selection strategies", figs, claims, per="strategy")


NEXT_MATCH, ANY_MATCH = "skip-till-next-match", "skip-till-any-match"


def _less_under_next(native: list[tuple[str, str]]) -> Callable[[Source], Verdict]:
    """Per pattern, the JQPG gain (the native pairs pooled) under skip-till-any-match over that under
    skip-till-next-match: the same pattern and stream under each strategy, one value per pattern."""
    def f(src: Source) -> Verdict:
        gains = {}
        for strategy in (ANY_MATCH, NEXT_MATCH):
            obs = []
            for a, b in native:
                p = src(a, b)
                p = p[p.index.get_level_values("strategy") == strategy]
                obs += [Observation(k[:2], v) for k, v in exact(p).items()]
            gains[strategy] = {u: v for u, (v, _, _) in per_unit(obs).values.items()}
        ratios = [gains[ANY_MATCH][u] / gains[NEXT_MATCH][u] for u in gains[ANY_MATCH] if u in gains[NEXT_MATCH]]
        return judge(JQPG["next_match_less"], ratio_interval(ratios))
    return f
