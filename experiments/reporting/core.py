"""What every report section shares: claims and their rows, the wide view of a results table, and the
facts of a run.  Verdicts come from one rule set, :mod:`experiments.reporting.rules` (its docstring
states the rules): a claim quotes the paper's sentence (:mod:`experiments.reporting.sentences`) and takes
its direction and size from it, our data give a paired effect over independent units with its 95% CI,
and where the interval lies decides -- ``holds``, ``partly``, ``no effect``, ``reversed``, ``not
measurable`` (with the number of units that would decide it), or ``not checkable`` (the results needed
are missing).  A claim that does not hold carries a computed cause (:mod:`experiments.reporting.diagnosis`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

import pandas as pd

from experiments.reporting.plotstyle import mean_ci
from experiments.reporting.rules import (  # noqa: F401 (the verdicts' one vocabulary)
    FAILED,
    HOLDS,
    NO_EFFECT,
    NOT_MEASURABLE,
    PARTLY,
    REVERSED,
    UNCHECKED,
    Interval,
    Verdict,
    at_least,
    comparable,
    invert,
    not_worse,
)
from experiments.reporting.sentences import Sentence

CAPPED_PREFIX = "capped"
#: the label of a claim's sibling row judged on a deterministic count instead of the timed throughput (or
#: metered memory, or wall-clock latency): the join candidates the evaluator examined, the peak live partial
#: matches, the peak state (partial matches and buffered events), the latency work -- no run-to-run noise,
#: so fewer units separate the methods.  A sibling is shown under its claim and not counted as a claim.
ON_METRIC = {"work": "(work: join candidates examined)", "peak_partial_matches": "(memory: peak live partial matches)",
             "peak_state": "(memory: peak partial matches and buffered events)", "latency_work_mean": "(latency work)",
             "latency_work_and_work": "(latency work and work)",
             "planned_gain": "(planned gain: the optimizer's own objective)", "plan_cost": "(planned cost)"}


def judge(s: Sentence, effect: Interval, size: float | None = None) -> Verdict:
    """``effect`` judged by the direction and size of sentence ``s`` (``size`` where the code computes it,
    e.g. a drop over the lengths measured): ``higher`` and ``every``, at least the size; ``grows`` and
    ``falls``, a slope of at least the size either way; ``comparable``, ``flat``, ``linear`` and ``level``, within a
    band; ``not worse``, at least 1/size; ``between``, above the size (an ordering)."""
    c = s.size if size is None else size
    d = s.direction
    if d in ("higher", "every", "grows", "between"):
        return at_least(effect, c)
    if d == "falls":
        return at_least(invert(effect), c)
    if d == "comparable":
        return comparable(effect, c)
    if d == "flat":
        return comparable(effect, c, target=0.0)
    if d == "linear":
        return comparable(effect, c, target=1.0)
    if d == "level":
        return comparable(effect, s.band, target=c)
    if d == "not worse":
        return not_worse(effect, c)
    raise ValueError(f"{s.paper} {s.key}: no rule for direction {d!r}")


@dataclass
class Claim:
    """One row of a section's claims table: the claim, the paper's sentence (quoted, with where it stands
    and its seed line), the direction and size read from it, the unit one observation is, what we measured
    (the effect with its CI and n), the verdict and the rule that decided it, and -- for a claim that does
    not hold or cannot be measured -- its computed cause.

    ``sibling`` names the deterministic metric of a sibling row (shown under its claim, not counted);
    ``check`` marks a check of this implementation that is no claim of the paper (not counted either);
    ``diagnose`` computes the cause when the report asks for it (:meth:`finish`)."""

    claim: str
    paper: str
    ours: str
    verdict: str  # one of rules.VERDICTS, decided by the rule
    rule: str = ""
    n: int = 0  # the independent units the verdict rests on
    needed: int | None = None  # about how many would decide a not-measurable claim (rules.Verdict.needed)
    held_by_bounds: bool = False  # rules.Verdict.held_by_bounds
    reading: str = ""  # the direction and size, and the words they come from
    unit: str = ""  # what one observation is
    key: str = ""  # the sentence entry's key
    source: str = ""  # the paper's short name
    sibling: str = ""  # the deterministic metric of a sibling row
    check: bool = False
    cause: str = ""
    diagnosis: str = ""
    verdict_detail: Verdict | None = field(default=None, repr=False)
    diagnose: Callable[["Claim"], tuple[str, str]] | None = field(default=None, repr=False)

    @classmethod
    def judged(cls, claim: str, paper: str, verdict: Verdict, *, detail: str = "", unit: str = "", diagnose=None) -> "Claim":
        """The row of a claim judged by the rule set whose sentence is not (yet) an entry of
        :mod:`experiments.reporting.sentences`: ``paper`` is what the paper reports, in the section's words."""
        ours = verdict.ours + (f"; {detail}" if detail else "")
        return cls(claim, paper, ours, verdict.verdict, verdict.rule, verdict.effect.n, verdict.needed, verdict.held_by_bounds,
                   unit=unit, verdict_detail=verdict, diagnose=diagnose)

    @classmethod
    def of(cls, s: Sentence, verdict: Verdict, *, unit: str, detail: str = "", label: str | None = None,
           sibling: str = "", prefix: str = "", diagnose=None) -> "Claim":
        """The row of a claim of sentence ``s`` judged by the rule set: ``ours`` is the effect with its CI
        and n (and, when the data cannot decide, about how many units would), then ``detail``.  ``label``
        replaces the entry's claim name (``{...}`` fields filled by the caller), ``prefix`` names the
        dataset, ``sibling`` the deterministic metric of a sibling row."""
        name = label if label is not None else s.claim
        if sibling:
            name = f"{name} {ON_METRIC[sibling]}"
        if prefix:
            name = f"{prefix}: {name}"
        ours = verdict.ours + (f"; {detail}" if detail else "")
        return cls(name, s.cited, ours, verdict.verdict, verdict.rule, verdict.effect.n, verdict.needed, verdict.held_by_bounds,
                   s.reading, unit, s.key, s.paper, sibling, False, verdict_detail=verdict, diagnose=diagnose)

    @classmethod
    def unjudged(cls, s: Sentence, ours: str, verdict: str, rule: str, *, unit: str = "", label: str | None = None,
                 prefix: str = "", sibling: str = "") -> "Claim":
        """A row of sentence ``s`` without an interval (not checkable, or a deterministic count)."""
        name = label if label is not None else s.claim
        if sibling:
            name = f"{name} {ON_METRIC[sibling]}"
        if prefix:
            name = f"{prefix}: {name}"
        return cls(name, s.cited, ours, verdict, rule, reading=s.reading, unit=unit, key=s.key, source=s.paper, sibling=sibling)

    @classmethod
    def checked(cls, what: str, ours: str, verdict: Verdict | str, rule: str = "", *, unit: str = "") -> "Claim":
        """A check of this implementation (no claim of the paper): shown, not counted."""
        if isinstance(verdict, Verdict):
            return cls(what, "(a check of this implementation, not a claim of the paper)", verdict.ours + (f"; {ours}" if ours else ""),
                       verdict.verdict, verdict.rule, verdict.effect.n, unit=unit, check=True)
        return cls(what, "(a check of this implementation, not a claim of the paper)", ours, verdict, rule, unit=unit, check=True)

    @property
    def counted(self) -> bool:
        """Whether the claim counts in the report's totals: a claim of a paper, not a sibling or a check."""
        return not (self.sibling or self.check)

    def finish(self) -> None:
        """Compute the cause of a claim that does not fully hold or cannot be measured."""
        if self.verdict in (HOLDS, UNCHECKED) or self.check or self.cause:
            return
        if self.diagnose is None:
            self.cause, self.diagnosis = "not modelled", "no cost model of this claim's metric"
            return
        self.cause, self.diagnosis = self.diagnose(self)


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


def run_to_run_noise(table: pd.DataFrame) -> float:
    """The median over cells of the throughput spread between their repeated runs (1.0 when the
    cells ran once)."""
    s = table[(table["metric"] == "throughput_spread") & (table["status"] == "ok")]["value"].dropna()
    return float(s.median()) if len(s) else 1.0
