"""Paired comparison of one method against others on the same cells (``python -m experiments compare``).

Every workload an experiment runs -- a pattern of a JQPG figure, a (sweep value, seed) workload of an
MCEP or MOTTO figure -- gives one ratio per metric of the method's value over the other's on the same
workload and stream, oriented so that a ratio above 1 is in the method's favour:

* ``throughput_eps`` (measured): the method's throughput over the other's;
* the plan cost the rows hold (deterministic): the other's cost over the method's -- JQPG's
  ``plan_cost_tree`` (Cost_tree, on which order and tree plans compare, JQPG 3.2), else ``plan_cost``;
* ``work`` (deterministic: candidate combinations the evaluator's joins examined), the other's over
  the method's.

The ratios of a dataset give a paired effect with its 95% CI (:func:`experiments.reporting.rules.ratio_interval`),
judged by the report's rule set with the smallest meaningful effect ``BEATS`` (1.1x):
"better" when the method's advantage is real (:func:`~experiments.reporting.rules.at_least` holds or
partly), "worse" when the other's is, else "no detectable difference" with about how many workloads
would decide it at the observed spread (and "comparable" when the CI lies inside the band of
:func:`~experiments.reporting.rules.comparable`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

import experiments.reporting.rules as rules
from algorithms.multi.registry import multi_planner_names
from algorithms.registry import is_builtin
from experiments.reporting.plotstyle import ALGORITHM_STYLE, finish_axes, log_axis, pyplot, save_figure, style

#: (metric, label, True when higher is better)
METRICS = (("throughput_eps", "throughput", True), ("plan_cost_tree", "plan cost", False), ("plan_cost", "plan cost", False),
           ("work", "work", False))
KEY = ["dataset", "pattern_id", "alpha", "strategy", "x_name", "x_value"]


@dataclass(frozen=True)
class Effect:
    experiment: str
    dataset: str
    against: str
    metric: str
    effect: rules.Interval
    verdict: str

    def line(self, name: str) -> str:
        return f"{self.experiment:<12} {self.dataset:<8} {name} vs {self.against:<10} {self.metric:<10} {self.effect.text():<34} {self.verdict}"


def verdict(e: rules.Interval) -> str:
    """"better", "worse" or "no detectable difference, n needed to decide: ..." (see the module docstring)."""
    if e.n < 2 or not math.isfinite(e.lo):
        return "not checkable (fewer than 2 workloads)"
    if rules.at_least(e, rules.BEATS).verdict in (rules.HOLDS, rules.PARTLY):
        return "better"
    if rules.at_least(rules.invert(e), rules.BEATS).verdict in (rules.HOLDS, rules.PARTLY):
        return "worse"
    if e.lo == e.hi:
        return "no detectable difference (the same on every workload)"
    toward = e if e.estimate >= 1 else rules.invert(e)
    m = math.log(toward.estimate)  # the gap to close: to 1 when the mean is above it, else to BEATS
    needed = rules._needed(toward, m if m > 0 else math.log(rules.BEATS) - m)
    same = " (comparable within 1.25x)" if rules.comparable(e).verdict == rules.HOLDS else ""
    return f"no detectable difference{same}, n needed to decide: {needed if needed else 'more than the data suggest'}"


def paired_effects(rows: pd.DataFrame, name: str, against: list[str]) -> list[Effect]:
    """The effects of ``name`` against each of ``against``, per experiment, dataset and metric, over the
    rows of status ``ok`` (capped cells have no throughput and are left out)."""
    ok = rows[rows["status"] == "ok"].copy()
    for k in KEY:
        ok[k] = ok[k].fillna("-") if ok[k].dtype == object else ok[k].fillna(-1.0)
    out = []
    for (exp, ds), d in ok.groupby(["experiment", "dataset"], sort=True):
        wide = d.pivot_table(index=KEY, columns=["algorithm", "metric"], values="value", aggfunc="first")
        metrics = [(m, label, hi) for m, label, hi in METRICS if (name, m) in wide.columns]
        if any(m == "plan_cost_tree" for m, _, _ in metrics):
            metrics = [t for t in metrics if t[0] != "plan_cost"]
        for other in against:
            for m, label, higher in metrics:
                if (other, m) not in wide.columns:
                    continue
                a, b = wide[(name, m)], wide[(other, m)]
                ratio = (a / b) if higher else (b / a)
                e = rules.ratio_interval(ratio.dropna().tolist())
                out.append(Effect(str(exp), str(ds), other, label, e, verdict(e)))
    return out


def write_section(effects: list[Effect], name: str, out_dir: Path, notes: list[str]) -> tuple[Path, Path]:
    """The comparison's report section (``compare.md``) and its figure (``compare.png``/``.pdf``): every
    effect as a point with its 95% CI on a log axis, 1 = no difference, in the method's plot style."""
    out_dir.mkdir(parents=True, exist_ok=True)
    plt = pyplot()
    shown = [e for e in effects if e.effect.n]
    fig, ax = plt.subplots(figsize=(8, 0.35 * max(4, len(shown)) + 1))
    st = style(name)
    for i, e in enumerate(shown):
        lo = e.effect.lo if math.isfinite(e.effect.lo) else e.effect.estimate
        hi = e.effect.hi if math.isfinite(e.effect.hi) else e.effect.estimate
        ax.errorbar([e.effect.estimate], [i], xerr=[[e.effect.estimate - lo], [hi - e.effect.estimate]], fmt=st.marker,
                    color=st.color, capsize=2, markersize=5, linewidth=1.2, label=name if i == 0 else None)
    ax.axvline(1.0, color="#7F7F7F", linestyle="--", linewidth=1)
    ax.set_yticks(range(len(shown)))
    ax.set_yticklabels([f"{e.experiment} {e.dataset}: {e.metric} vs {e.against}" for e in shown], fontsize=7)
    ax.invert_yaxis()
    if shown:
        log_axis(ax, "x")
    finish_axes(ax, xlabel=f"{name}'s advantage (x; > 1: {name} better), geometric mean and 95% CI", ylabel="")
    ax.set_title(f"{name} against {', '.join(sorted({e.against for e in effects}))}, paired per workload")
    stem = "compare"
    paths = save_figure(fig, out_dir, stem)
    lines = [f"## {name}: paired comparison", "",
             f"![{name} against the other methods]({stem}.png)", "",
             "Ratios per workload, oriented so that > 1 favours " + name + " (throughput: its own over the other's; "
             "plan cost and work: the other's over its own); geometric mean and 95% CI; verdicts by the report's rules "
             f"(a real effect of at least {rules.BEATS}x either way).", "",
             "| experiment | dataset | against | metric | effect [95% CI] (n) | verdict |", "| --- | --- | --- | --- | --- | --- |"]
    lines += [f"| {e.experiment} | {e.dataset} | {e.against} | {e.metric} | {e.effect.text()} | {e.verdict} |" for e in effects]
    lines += [""] + [f"* {n}" for n in notes]
    md = out_dir / "compare.md"
    md.write_text("\n".join(lines).rstrip() + "\n")
    return md, paths[0]


def built_in(name: str) -> bool:
    """Whether an algorithm of the rows is this repository's: a registered planner or optimizer, or one of
    the names the experiments give their own runs (an engine, a strategy, static and adaptive, ...: every
    name :data:`~experiments.reporting.plotstyle.ALGORITHM_STYLE` draws)."""
    return is_builtin(name) or name in multi_planner_names() or name in ALGORITHM_STYLE


def foreign_method_notes(df: pd.DataFrame) -> list[str]:
    """The report's paired comparison of every method from another package in an experiment's rows (not
    :func:`built_in`) against every built-in method of its kind there (JQPG: the order or tree planners;
    MCEP, MOTTO: the optimizers)."""
    names = set(df["algorithm"].dropna().unique())
    kinds = {a: set(df.loc[df["algorithm"] == a, "kind"].dropna()) for a in names}
    notes = []
    for name in sorted(a for a in names if not built_in(a)):
        against = sorted(a for a in names if built_in(a) and kinds[a] & kinds[name])
        effects = [e for e in paired_effects(df, name, against) if e.effect.n]
        if not effects:
            continue
        rows = [f"| {e.dataset} | {e.against} | {e.metric} | {e.effect.text()} | {e.verdict} |" for e in effects]
        notes.append("\n".join([f"**{name}** (a method from another package) against the built-in methods of its kind, "
                                f"paired per workload (> 1 favours {name}; rules as in `python -m experiments compare`):", "",
                                "| dataset | against | metric | effect [95% CI] (n) | verdict |", "| --- | --- | --- | --- | --- |",
                                *rows]))
    return notes
