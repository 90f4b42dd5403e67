"""What every report section shares: claims and their rows, the wide view of a results table, and the
facts of a run.  Verdicts come from one rule set, :mod:`experiments.reporting.rules` (its docstring
states the rules): a claim has a direction and a size, our data a paired effect with its 95% CI, and
where the interval lies decides -- ``holds``, ``partly``, ``does not hold``, ``not measurable`` (with
the number of workloads that would decide it), or ``not checkable`` (the results needed are missing).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import pandas as pd

from experiments.reporting.plotstyle import mean_ci

from experiments.reporting.rules import FAILS, HOLDS, NOT_MEASURABLE, PARTLY, UNCHECKED, Verdict  # noqa: F401 (the verdicts' one vocabulary)
CAPPED_PREFIX = "capped"
#: the label of a claim's sibling row judged on a deterministic count instead of the timed throughput (or
#: metered memory): the join candidates the evaluator examined, or for a claim on memory the peak live
#: partial matches (cep/metrics.py) -- no run-to-run noise, so fewer workloads separate the methods
ON_METRIC = {"work": "(work: join candidates examined)", "peak_partial_matches": "(memory: peak live partial matches)"}


@dataclass
class Claim:
    """One row of a section's claims table: the claim, what the paper reports, what we measured (the
    effect with its CI and n), the verdict and the rule that decided it."""

    claim: str
    paper: str
    ours: str
    verdict: str  # one of HOLDS, PARTLY, FAILS, NOT_MEASURABLE, UNCHECKED, decided by the rule
    rule: str = ""
    n: int = 0  # the independent workloads the verdict rests on
    needed: int | None = None  # about how many would decide a not-measurable claim (rules.Verdict.needed)
    held_by_bounds: bool = False  # rules.Verdict.held_by_bounds

    @classmethod
    def judged(cls, claim: str, paper: str, verdict: Verdict, *, detail: str = "") -> "Claim":
        """The row of a claim judged by the rule set: ``ours`` is the effect with its CI and n (and, when
        the data cannot decide, about how many workloads would), then ``detail``."""
        ours = verdict.ours + (f"; {detail}" if detail else "")
        return cls(claim, paper, ours, verdict.verdict, verdict.rule, verdict.effect.n, verdict.needed, verdict.held_by_bounds)


@dataclass
class Section:
    """One experiment's part of the report."""

    experiment: str
    title: str
    figures: list[Path] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    caption: str = ""
    # dataset name -> markdown of its regime beside the paper's (printed once, at the top)
    regimes: dict[str, str] = field(default_factory=dict)
    # markdown lines printed right under the section's heading (e.g. its regime table, paper / ours)
    preface: list[str] = field(default_factory=list)
    # the run's metadata.json and its settings record (experiments.running.settings.recorded), set by
    # experiments.reporting.build_section; the sizing table reads them
    meta: dict = field(default_factory=dict)
    settings: dict | None = None


@dataclass
class SectionInput:
    """What a section function gets: the experiment's rows, its run metadata, its folder, and the settings
    the run resolved at its scale (``scale`` of its settings record, :mod:`experiments.running.settings`)."""

    experiment: str
    table: pd.DataFrame
    meta: dict
    exp_dir: Path
    settings: dict = field(default_factory=dict)

    @property
    def figure_dir(self) -> Path:
        return self.exp_dir / "figures"


def flag(ok: bool | None) -> str:
    return UNCHECKED if ok is None else (HOLDS if ok else FAILS)


def fmt(x, unit: str = "") -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "n/a"
    if abs(x) >= 1e5 or (abs(x) < 1e-2 and x != 0):
        return f"{x:.3g}{unit}"
    return f"{x:.2f}{unit}"


KEYS = ["dataset", "workload", "size", "pattern_id", "algorithm", "kind", "evaluator", "alpha", "strategy", "x_name", "x_value", "cell_id"]


def wide(df: pd.DataFrame, statuses: tuple[str, ...] = ("ok",)) -> pd.DataFrame:
    """One row per cell with a column per metric (rows of the given statuses only)."""
    ok = df[df["status"].isin(statuses)]
    keys = [k for k in KEYS if k in ok.columns]
    w = ok.groupby(keys + ["metric"], dropna=False, sort=False)["value"].first().unstack("metric").reset_index()
    w.columns.name = None
    return w


def capped(df: pd.DataFrame) -> pd.DataFrame:
    """One row per cell stopped by the partial-match cap."""
    c = df[df["status"].str.startswith(CAPPED_PREFIX, na=False)]
    return c.drop_duplicates("cell_id")


def order_names(names: Iterable[str], preferred: Sequence[str]) -> list[str]:
    names = set(names)
    return [n for n in preferred if n in names] + sorted(names - set(preferred))


def run_notes(meta: dict, df: pd.DataFrame) -> list[str]:
    """How the results were produced, and the cells stopped by the cap."""
    notes = []
    if meta:
        notes.append(
            f"run: {meta.get('runner', '?')} runner, {meta.get('concurrency', '?')} cells timed at a time, "
            f"commit {meta.get('git_commit')}, {meta.get('start_time')} to {meta.get('end_time')}"
        )
    cap = capped(df)
    if not cap.empty:
        by = cap.groupby(["dataset", "algorithm"]).size()
        notes.append(
            "cells stopped at the partial-match cap (a result: the plan kept too many partial matches; no throughput, "
            "left out of means): " + ", ".join(f"{d}/{a}: {n}" for (d, a), n in by.items())
        )
    return notes


# ---- ratios of paired measurements ---------------------------------------------------------------
def log_ci(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float, float, int]:
    """``(geometric mean, low, high, n)`` of the positive finite values: the Student-t interval of
    the mean of their logarithms, exponentiated."""
    logs = [math.log(v) for v in values if v is not None and isinstance(v, (int, float)) and math.isfinite(v) and v > 0]
    m, lo, hi, n = mean_ci(logs, confidence)
    if n == 0:
        return math.nan, math.nan, math.nan, 0
    return math.exp(m), math.exp(lo), math.exp(hi), n


def paired_ratios(w: pd.DataFrame, metric: str, num: str, den: str, by: Sequence[str] = ("dataset", "pattern_id", "alpha", "strategy")) -> pd.Series:
    """Per pattern (and alpha and strategy), ``metric`` of algorithm ``num`` over that of ``den``:
    the two plans of one pattern compared on the same stream (cells lacking either are left out)."""
    if metric not in w:
        return pd.Series(dtype=float)
    keys = [k for k in by if k in w.columns]
    a = w[w["algorithm"] == num].groupby(keys, dropna=False)[metric].first()
    b = w[w["algorithm"] == den].groupby(keys, dropna=False)[metric].first()
    r = (a / b).dropna()
    return r[(r > 0) & r.map(math.isfinite)]


def fmt_ratio(values: Sequence[float]) -> str:
    gm, lo, hi, n = log_ci(values)
    if n == 0:
        return "n/a"
    if n == 1:
        return f"{gm:.2f}x (1 pattern)"
    return f"{gm:.2f}x [{lo:.2f}, {hi:.2f}] ({n} patterns)"


def run_to_run_noise(table: pd.DataFrame) -> float:
    """The median over cells of the throughput spread between their repeated runs (1.0 when the
    cells ran once)."""
    s = table[(table["metric"] == "throughput_spread") & (table["status"] == "ok")]["value"].dropna()
    return float(s.median()) if len(s) else 1.0
