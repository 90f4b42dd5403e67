"""Which planner for your own stream: the back end of ``python -m experiments advise``.

Given an events file and a pattern workload (the readers and the pattern language the project has), within a
time budget:

1. **Read and check** the input: a known events format with at least one event, patterns whose event types
   occur in the events and whose conditions name attributes those events carry (a one-line error, exit status 2,
   otherwise: :class:`cep.errors.StreamError` / :class:`cep.errors.PatternError`).
2. **Estimate the statistics** (arrival rates, the selectivity of every condition: :mod:`experiments.data.statistics`)
   and **locate the workload on the maps' axes** (:func:`location`): events per type per window, the rate ratio of
   its types, the spread of its selectivities, its pattern length; for several patterns their number and overlap
   (the MPG density).
3. **Plan** with every candidate of the workload's kind: one pattern, the single-pattern planners
   (:mod:`algorithms.registry`) and the installed planners of other packages; several patterns, the multi-pattern
   optimizers (:mod:`algorithms.multi.registry`) and the installed optimizers of other packages
   (:mod:`algorithms.plugins`).  A candidate that fails is listed with its error, not fatal.
4. **Run the plans on samples of the stream**: first a pilot round -- every distinct plan once on a slice of
   ``sample_windows`` windows -- that measures what a round costs (and the first runs' start-up, which it keeps out
   of the measurements); if the budget runs out before it ends, the budget is too short (one line, exit status 2).
   Then disjoint slices of the stream, each long enough (at least ``sample_windows`` windows) that ``max_samples``
   rounds fill what the budget leaves, taken in a seeded random order (at least :data:`MIN_SAMPLES` slices however
   short the stream), each run by every distinct plan once, the plans in turns (so that a slow moment of a shared
   machine hits every plan alike), until the budget or ``max_samples`` is reached -- but never fewer than
   ``min_samples`` (when the stream holds them): the budget is a target, and an interval needs samples, so a slow
   or busy machine runs past it rather than return a verdict no interval can give.  When every sample has run and
   budget is left (a short stream, or a small workload), the samples run again, up to :data:`MAX_PASSES` passes: a
   sample's throughput is its events over the median time of its passes.  Candidates whose plans are
   identical share one evaluation (their measurements are the same by definition).  A run that crosses a cap is a
   bound (its throughput at most ``events / time to the cap``).
5. **Rank** the candidates by the geometric mean of their throughput over the samples, and give each one's paired
   effect against the best with its 95% interval (:mod:`experiments.reporting.map_verdicts`, the report's rule
   set), and the same on ``work`` (the join candidates examined: deterministic, no noise).  The recommendation
   names the best, and says so when the evidence does not separate it from others.
6. **Place it on the maps**: for every map of the workload's family under the maps folders, the mapped point
   nearest the workload (:func:`experiments.reporting.maps.nearest`) and who wins there.

It writes ``advise.md`` and ``advise.png`` (and ``.pdf``) into the output folder.
"""

from __future__ import annotations

import math
import os
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from cep.columnar import EventColumns
from cep.dnf import to_dnf
from cep.errors import CEPError, ConfigError, EvaluationLimitError, PatternError, StreamError
from cep.pattern import Strategy, WindowKind
from experiments.reporting.map_verdicts import A_WINS, B_WINS, OPEN, TIE, PointVerdict, judge

DEFAULT_BUDGET_S = 180.0
#: the events formats advise reads (:func:`experiments.data.readers.read_events`), by file suffix
SUFFIXES = (".txt", ".csv", ".parquet")
#: samples a stream is cut into at least (each shorter than sample_windows windows if need be)
MIN_SAMPLES = 4
#: samples run at least, past the budget if need be (the fewest that give a rank-based interval of the median)
DEFAULT_MIN_SAMPLES = 6
#: passes over the samples at most when the stream is used up before the budget (each sample's time: the median)
MAX_PASSES = 25
#: the share of the budget the time-limited searches (multi-pattern local searches) may take together
SEARCH_SHARE = 0.2


# ---- input ------------------------------------------------------------------------------------------------
def read_workload(data: str, patterns_path: str) -> tuple[EventColumns, list, Path]:
    """The events and the patterns, checked (see the module docstring, step 1)."""
    from cep.next_algebra import NextPattern
    from cep.parser import parse_pattern_file
    from cep.trends import TrendQuery
    from experiments.data.readers import read_events

    path = _events_path(data)
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise StreamError(f"{path}: unknown events file format {suffix or '(no suffix)'!r}; advise reads NASDAQ text (.txt), "
                          "CSV (.csv) and Parquet (.parquet) events files, or a dataset name")
    stream = read_events(path)
    if len(stream) == 0:
        raise StreamError(f"{path}: no events")
    if not Path(patterns_path).is_file():
        raise PatternError(f"{patterns_path}: no such patterns file")
    patterns = parse_pattern_file(patterns_path)
    if not patterns:
        raise PatternError(f"{patterns_path}: holds no pattern")
    for p in patterns:
        if isinstance(p, TrendQuery):
            raise PatternError(f"{patterns_path}: {p.name or 'a query'} is a trend aggregation query (RETURN ...); advise plans "
                               "SEQ/AND/OR patterns (trend queries run with python -m experiments aggregate)")
        if isinstance(p, NextPattern):
            raise PatternError(f"{patterns_path}: {p.name or 'a pattern'} is a NEXT pattern; advise plans SEQ/AND/OR patterns")
        check_pattern(p, stream, path)
    return stream, patterns, path


def _events_path(data: str) -> Path:
    """The events file of ``--data``: a dataset name (``traffic``) or a path."""
    from experiments.data.datasets import dataset_names, dataset_path

    if data in dataset_names():
        return dataset_path(data)
    p = Path(data)
    if not p.exists():
        raise StreamError(f"{p}: no such events file")
    return p


def check_pattern(p, stream: EventColumns, path: Path) -> None:
    """A one-line PatternError unless every positive event type of ``p`` occurs in ``stream`` and every attribute its
    conditions (and partition) name is carried by the events of the variable's type."""
    name = p.name or "the pattern"
    counts = stream.type_counts()
    vt = p.var_types()
    positive = {v for sp in to_dnf(p) for v in sp.positive}
    for v in sorted(positive):
        if counts.get(vt[v], 0) == 0:
            raise PatternError(f"{name}: event type {vt[v]!r} (variable {v}) does not occur in {path}")
    absent = stream.absent_masks()
    for c in p.conditions:
        for a in sorted(c.attributes, key=str):
            t = vt.get(a.var)
            if a.name not in stream.attributes:
                raise PatternError(f"{name}: condition {c} names attribute {a.name!r} that the events of {path} lack "
                                   f"(they have: {', '.join(stream.attributes)})")
            rows = stream.rows_of_types([t]) if t is not None else np.zeros(0, dtype=np.int64)
            if len(rows) and a.name in absent and bool(absent[a.name][rows].all()):
                raise PatternError(f"{name}: condition {c} names attribute {a.name!r} that the {t!r} events of {path} lack")
    if p.partition_attribute and p.partition_attribute not in stream.attributes:
        raise PatternError(f"{name}: partition attribute {p.partition_attribute!r} is not an attribute of the events of {path}")


# ---- where the workload sits --------------------------------------------------------------------------------
def _window_events(p, rates: dict[str, float], t: str) -> float:
    """Events of type ``t`` in one window of ``p``: rate x seconds, or a count window's share of its events."""
    if p.window.kind is WindowKind.TIME:
        return rates.get(t, 0.0) * float(p.window.size)
    total = sum(rates.get(x, 0.0) for x in p.event_types) or 1.0
    return float(p.window.size) * rates.get(t, 0.0) / total


def location(patterns: Sequence, stats: Sequence) -> dict[str, float]:
    """The workload on the maps' axes (:data:`experiments.exps.maps.AXES`): for one pattern ``events_per_window``
    (its median type's events per window), ``rate_ratio`` (its fastest type's rate over its slowest's),
    ``selectivity_spread`` (its highest estimated selectivity over its lowest; 1 with one) and ``size`` (its
    positive events); for several, the first two over all their types, ``pattern_size`` (the mean size),
    ``workload_size`` and ``density`` (the MPG density)."""
    epw, rates_seen, sizes = [], [], []
    sels = []
    for p, st in zip(patterns, stats):
        types = sorted({p.var_types()[v] for sp in to_dnf(p) for v in sp.positive})
        epw += [_window_events(p, st.rates, t) for t in types]
        rates_seen += [st.rates.get(t, 0.0) for t in types]
        sizes.append(max(len(sp.positive) for sp in to_dnf(p)))
        sels += [v for k, v in st.selectivities.items() if "," in k and 0 < v]
    positive = [r for r in rates_seen if r > 0]
    out = {"events_per_window": float(np.median(epw)) if epw else 0.0,
           "rate_ratio": max(positive) / min(positive) if positive else 1.0}
    spread = max(sels) / min(sels) if sels else 1.0
    if len(patterns) == 1:
        out.update(selectivity_spread=spread, size=float(sizes[0]))
    else:
        from experiments.workloads.mcep import measured_density

        out.update(pattern_size=float(np.mean(sizes)), workload_size=float(len(patterns)), density=measured_density(patterns))
    return out


# ---- candidates -------------------------------------------------------------------------------------------
@dataclass
class Candidate:
    name: str
    kind: str = ""  # "order", "tree" (one pattern) or "multi"
    plan: object = None
    plan_text: str = ""
    plan_time_s: float = math.nan
    digest: str = ""  # what identifies the plan (identical plans share one evaluation)
    error: str | None = None
    same_as: str | None = None  # the first candidate with the identical plan (one evaluation serves both)


def candidate_names(multi: bool) -> list[str]:
    """The built-in methods of the workload's kind, then the installed ones of other packages."""
    from algorithms.plugins import MULTI_GROUP, PLANNER_GROUP, registered

    if multi:
        from algorithms.multi.registry import multi_planner_names

        built = multi_planner_names()
        group = MULTI_GROUP
    else:
        from algorithms.registry import planner_names

        built = planner_names()
        group = PLANNER_GROUP
    return built + [n for n in sorted(registered(group)) if n not in built]


def plan_candidates(names: Sequence[str], patterns: Sequence, stats, *, multi: bool, search_s: float, seed: int) -> list[Candidate]:
    """Every candidate's plan (a failing one keeps its error)."""
    out = []
    for name in names:
        c = Candidate(name)
        try:
            if multi:
                from algorithms.multi import plan_workload
                from experiments.exps.kit import plan_digest

                r = plan_workload(patterns, name, stats, time_limit=search_s, seed=seed)
                c.kind, c.plan, c.plan_time_s = "multi", r.plan, r.plan_time_s
                c.plan_text = _global_plan_text(r.plan)
                c.digest = plan_digest(r.plan, shared_nodes=True)
            else:
                from algorithms import plan_pattern

                r = plan_pattern(patterns[0], name, stats[0], seed=seed)
                c.kind, c.plan, c.plan_time_s, c.plan_text = r.kind, r.plan, r.plan_time_s, str(r.plan)
                c.digest = f"{r.kind}:{r.plan}"
        except CEPError as e:
            c.error = str(e)
        out.append(c)
    first: dict[str, str] = {}
    for c in out:
        if c.error is None:
            c.same_as = first.setdefault(c.digest, c.name)
            if c.same_as == c.name:
                c.same_as = None
    return out


def _global_plan_text(gplan) -> str:
    d = gplan.describe()
    shared = [s for s in d.get("shared_nodes", []) if s.get("size", 0) > 1]
    plans = "; ".join(str(p) for p in d["plans"]) if isinstance(d["plans"], list) else str(d["plans"])
    return (f"{len(shared)} shared node(s); " if shared else "nothing shared; ") + plans


# ---- samples ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Sample:
    rows: np.ndarray  # positions in the stream

    def __len__(self) -> int:
        return len(self.rows)


def _kept(stream: EventColumns, patterns: Sequence) -> np.ndarray | None:
    """The rows a run needs: the workload's types when every pattern has a time window and skip-till-any-match (no other
    event can change a match then), else None (every event)."""
    if all(p.window.kind is WindowKind.TIME and p.strategy is Strategy.ANY for p in patterns):
        return stream.rows_of_types(sorted({t for p in patterns for t in p.event_types}))
    return None


def window_of(patterns: Sequence) -> tuple[bool, float]:
    """Whether the workload's windows are time windows, and the widest (seconds or events)."""
    timed = all(p.window.kind is WindowKind.TIME for p in patterns)
    return timed, max(float(p.window.size) for p in patterns if (p.window.kind is WindowKind.TIME) == timed)


def samples(stream: EventColumns, patterns: Sequence, *, windows: float, seed: int) -> list[Sample]:
    """Disjoint slices of the stream, ``windows`` windows long each (fewer, but at least one window, when the stream
    holds fewer than :data:`MIN_SAMPLES` such slices), in a seeded random order, holding the rows a run needs
    (:func:`_kept`); empty slices left out."""
    timed, w = window_of(patterns)
    keep = _kept(stream, patterns)
    if timed:
        span = stream.span_seconds
        length = max(w, min(windows * w, span / MIN_SAMPLES)) if span > 0 else w
        edges = stream.ts[0] + length * np.arange(int(span // length) + 2)
        cut = np.searchsorted(stream.ts, edges, side="left")
    else:
        length = max(w, min(windows * w, len(stream) / MIN_SAMPLES))
        cut = np.arange(0, len(stream) + int(length), max(1, int(length)))
    out = []
    for a, b in zip(cut[:-1], cut[1:]):
        rows = np.arange(a, min(b, len(stream)), dtype=np.int64)
        if keep is not None:
            rows = rows[np.isin(rows, keep)]
        if len(rows):
            out.append(Sample(rows))
    random.Random(seed).shuffle(out)
    return out


def sample_windows_for(stream: EventColumns, patterns: Sequence, *, seconds_per_event: float, seconds: float, rounds: int,
                       least: float) -> float:
    """The sample length, in windows, at which ``rounds`` rounds take about ``seconds`` when a round costs
    ``seconds_per_event`` per event of a sample -- at least ``least`` windows, and at most what lets the stream hold
    ``rounds`` samples (more samples, not longer ones, narrow the intervals)."""
    timed, w = window_of(patterns)
    keep = _kept(stream, patterns)
    needed = len(stream) if keep is None else len(keep)
    per_window = needed * w / stream.span_seconds if timed and stream.span_seconds > 0 else (needed / len(stream)) * w
    if per_window <= 0 or seconds_per_event <= 0:
        return least
    whole = (stream.span_seconds if timed else len(stream)) / w  # the stream's length in windows
    return max(least, min(seconds / max(1, rounds) / seconds_per_event / per_window, whole / max(1, rounds)))


# ---- running ----------------------------------------------------------------------------------------------
@dataclass
class Runs:
    """One distinct plan's measurements, one per sample round."""

    throughput: list[float] = field(default_factory=list)
    upper: list[bool] = field(default_factory=list)  # the throughput is an upper bound (capped)
    work: list[float] = field(default_factory=list)
    passes: int = 1  # the passes over every sample (each sample's throughput: over the median time of its passes)


def _runner(c: Candidate, patterns, caps: dict):
    """A function of a sample's columns (and its event objects, for the multi-pattern evaluator) that runs ``c``'s
    plan over it and returns (events/s, whether that is an upper bound, work)."""
    if c.kind == "multi":
        from evaluators.multi import evaluate_workload

        def evaluate(cols, events):
            return evaluate_workload(patterns, c.plan, events, collect_matches=False, **caps).metrics
    else:
        from evaluators import compile_evaluator, run_program

        program = compile_evaluator(patterns[0], c.plan, "nfa" if c.kind == "order" else "tree")

        def evaluate(cols, events):
            return run_program(program, cols, collect_matches=False, **caps).metrics

    def run(cols: EventColumns, events):
        t0 = time.perf_counter()
        try:
            m = evaluate(cols, events)
        except EvaluationLimitError:  # a bound: the whole sample would have taken at least this long
            return len(cols) / max(time.perf_counter() - t0, 1e-9), True, math.nan
        return m["throughput_eps"], False, float(m.get("work", math.nan))
    return run


def _round(runners: dict, stream: EventColumns, s: Sample, multi: bool, deadline: float | None):
    """Every distinct plan once on sample ``s``, in turns; None when the deadline passes first (then with how many ran)."""
    cols = stream.take(s.rows)
    objs = cols.to_stream() if multi else None
    got = {}
    for name, run in runners.items():
        if deadline is not None and time.perf_counter() > deadline:
            return None, len(got)
        got[name] = run(cols, objs)
    return got, len(got)


def run_samples(cands: Sequence[Candidate], patterns, stream: EventColumns, *, budget_s: float, deadline: float, started: float,
                least_windows: float, max_samples: int, caps: dict, progress: bool, seed: int,
                min_samples: int = DEFAULT_MIN_SAMPLES) -> tuple[dict[str, Runs], int]:
    """A pilot round (every distinct plan once on a sample of ``least_windows`` windows: what a round costs, and the
    check that the budget allows one), then the samples, each long enough that ``max_samples`` rounds fill what the
    budget leaves, every distinct plan once per sample in turns, until the deadline (the first pass runs at least
    ``min_samples`` samples whatever the deadline); the measurements of each distinct
    plan (by its first candidate's name) over the complete rounds, and the events sampled."""
    from tqdm import tqdm

    distinct = [c for c in cands if c.error is None and c.same_as is None]
    runners = {c.name: _runner(c, patterns, caps) for c in distinct}
    multi = any(c.kind == "multi" for c in distinct)
    pilot = samples(stream, patterns, windows=least_windows, seed=seed)
    t0 = time.perf_counter()
    got, ran = _round(runners, stream, pilot[0], multi, deadline)
    if got is None:
        spent = time.perf_counter() - started
        need = (spent + (time.perf_counter() - t0) * len(runners) / max(ran, 1)) * 2
        raise ConfigError(f"--budget {budget_s:g} s is too short for one run: the first sample ({len(pilot[0]):,} events) had "
                          f"run {ran} of the {len(runners)} distinct plans when it ran out ({spent:.1f} s with reading and "
                          f"planning); give --budget {math.ceil(need)} or more, or a smaller --sample-windows")
    per_event = (time.perf_counter() - t0) / max(1, len(pilot[0]))
    left = deadline - time.perf_counter()
    length = sample_windows_for(stream, patterns, seconds_per_event=per_event, seconds=0.8 * left, rounds=max_samples,
                                least=least_windows)
    chosen = samples(stream, patterns, windows=length, seed=seed)[:max_samples]
    runs = {c.name: Runs() for c in distinct}
    # per sample and plan, the seconds of each pass: a stream used up before the budget is run again, sample by
    # sample, so that short samples are timed over several passes (work and caps are the same in every pass)
    seconds: list[dict[str, list[float]]] = []
    events, last = 0, 0.0
    bar = tqdm(total=len(chosen), desc="advise: samples", unit="sample", disable=not progress, file=sys.stderr, mininterval=1.0)
    try:
        for rep in range(MAX_PASSES):
            if rep:
                bar.reset(total=len(seconds))
                bar.set_description(f"advise: samples, pass {rep + 1}")
            for k, s in enumerate(chosen[:len(seconds)] if rep else chosen):
                t0 = time.perf_counter()
                owed = rep == 0 and k < min_samples
                if (k or rep) and not owed and t0 + last > deadline:
                    break
                got, _ = _round(runners, stream, s, multi, None if owed else deadline)
                if got is None:
                    break
                if rep == 0:
                    seconds.append({name: [] for name in got})
                    for name, (thr, upper, work) in got.items():
                        runs[name].upper.append(upper)
                        runs[name].work.append(work)
                    events += len(s)
                for name, (thr, _, _) in got.items():
                    seconds[k][name].append(len(s) / thr if thr > 0 else math.inf)
                last = time.perf_counter() - t0
                bar.update(1)
                bar.set_postfix_str(f"{len(s):,} events a sample, {max(0.0, deadline - time.perf_counter()):.0f} s left")
            else:
                continue
            break  # the budget ran out in this pass
    finally:
        bar.close()
    for k, per in enumerate(seconds):
        n = len(chosen[k])
        for name, secs in per.items():  # a sample's throughput: its events over the median time of its passes
            runs[name].throughput.append(n / float(np.median(secs)) if secs else math.nan)
    runs_passes = min((len(v) for per in seconds for v in per.values()), default=0)
    for r in runs.values():
        r.passes = runs_passes
    return runs, events


# ---- the verdicts ------------------------------------------------------------------------------------------
@dataclass
class Ranked:
    candidate: Candidate
    throughput: float  # geometric mean over the samples (events/s)
    versus_best: PointVerdict | None  # throughput, this candidate over the best
    work_versus_best: PointVerdict | None  # work, the best's over this candidate's (> 1: this one does less)
    capped: int = 0
    work: float = math.nan  # the mean work per sample (join candidates examined; deterministic)


def _gm(xs: Sequence[float]) -> float:
    v = [x for x in xs if x is not None and math.isfinite(x) and x > 0]
    return float(np.exp(np.mean(np.log(v)))) if v else math.nan


def rank(cands: Sequence[Candidate], runs: dict[str, Runs]) -> tuple[list[Ranked], str | None]:
    """The candidates ranked by the geometric mean throughput of their plan, each judged against the best."""
    own = {c.name: runs[c.same_as or c.name] for c in cands if c.error is None and (c.same_as or c.name) in runs}
    gm = {n: _gm(r.throughput) for n, r in own.items()}
    scored = [n for n in gm if math.isfinite(gm[n])]
    best = max(scored, key=lambda n: gm[n]) if scored else None
    out = []
    for c in cands:
        if c.name not in own:
            out.append(Ranked(c, math.nan, None, None))
            continue
        r = own[c.name]
        vs = work = None
        if best is not None:
            b = own[best]
            ratios = [x / y for x, y in zip(r.throughput, b.throughput)]
            vs = judge(ratios, lower=list(b.upper), upper=list(r.upper))
            wr = [y / x for x, y in zip(r.work, b.work) if math.isfinite(x) and math.isfinite(y) and x > 0 and y > 0]
            work = judge(wr) if wr else None
        works = [w for w in r.work if math.isfinite(w)]
        out.append(Ranked(c, gm[c.name], vs, work, sum(r.upper), float(np.mean(works)) if works else math.nan))
    out.sort(key=lambda x: (not math.isfinite(x.throughput), -x.throughput if math.isfinite(x.throughput) else 0, x.candidate.name))
    return out, best


def standing(r: Ranked, best: str | None) -> str:
    """The candidate against the best, in words."""
    if r.candidate.error:
        return "failed"
    if r.versus_best is None:
        return "not run"
    if r.candidate.name == best or r.candidate.same_as == best:
        return "best" if r.candidate.name == best else "best (same plan)"
    return {A_WINS: "ahead of the best", B_WINS: "behind the best", TIE: "tie with the best (within 1.25x)",
            OPEN: "not separated from the best"}.get(r.versus_best.outcome, r.versus_best.outcome)


def recommendation(ranked: Sequence[Ranked], best: str | None, samples_run: int) -> str:
    """One line: the best candidate, and whether the evidence separates it from the others."""
    if best is None:
        return "Recommendation: none -- no candidate produced a measured run"
    same = [r.candidate.name for r in ranked if r.candidate.same_as == best]
    label = best + (f" (and {', '.join(same)}: the same plan)" if same else "")
    close = [r.candidate.name for r in ranked if r.candidate.same_as is None and r.candidate.name != best and r.versus_best is not None
             and r.versus_best.outcome != B_WINS]
    if samples_run < 2:
        return f"Recommendation: {label} had the highest throughput, but on one sample only: no interval separates it; give a longer --budget"
    if not close:
        runner = next((r for r in ranked if r.candidate.same_as is None and r.candidate.name != best and r.versus_best is not None), None)
        behind = f"; the runner-up {runner.candidate.name} reaches {runner.versus_best.text()} of its throughput" if runner else ""
        return f"Recommendation: {label} -- its plan's throughput is ahead of every other plan's ({samples_run} samples){behind}"
    return (f"Recommendation: {label} had the highest throughput, but the evidence does not separate it from "
            f"{', '.join(close)} ({samples_run} samples): any of them, or a longer --budget to decide")


# ---- the maps -------------------------------------------------------------------------------------------
def map_lines(where: dict, multi: bool, roots: Sequence[Path]) -> list[str]:
    """For every map of the workload's family under ``roots``: the mapped point nearest the workload and who wins there."""
    from experiments.reporting.maps import METRIC_WORDS, find_maps, map_effects, load_map, nearest, outcome_words, point_words

    fam = "workloads" if multi else "patterns"
    out = []
    for root in roots:
        for folder in find_maps(root):
            data = load_map(folder)
            if data is None or data.info.get("family") != fam:
                continue
            effects = map_effects(data)
            for i, (a, b) in enumerate(data.comparisons):
                metric = data.metrics[0]
                near = nearest(data, effects, where, comparison=i, metric=metric)
                if near is None:
                    continue
                e, dist = near
                out.append(f"{data.name} ({folder}): nearest point {point_words(data, e.point)} ({dist:.1f} grid steps away): "
                           f"{METRIC_WORDS.get(metric, metric).split(' (')[0]} {'/'.join(a)} over {b} {e.verdict.text()}, "
                           f"{outcome_words(e.verdict.outcome, a, b)}")
    return out


# ---- the whole advice ---------------------------------------------------------------------------------------
@dataclass
class Advice:
    data: Path
    patterns_file: str
    events: int
    patterns: list
    location: dict
    candidates: list[Candidate]
    ranked: list[Ranked]
    best: str | None
    samples_run: int
    sampled_events: int
    budget_s: float
    elapsed_s: float
    maps: list[str]
    recommendation: str
    load: str = ""
    passes: int = 1  # passes over every sample
    files: list[Path] = field(default_factory=list)


def advise(data: str, patterns_file: str, *, budget_s: float = DEFAULT_BUDGET_S, sample_windows: float = 3.0,
           max_samples: int = 60, min_samples: int = DEFAULT_MIN_SAMPLES, seed: int = 0, maps_roots: Sequence[Path] = (), out_dir: Path | None = None,
           progress: bool = True, max_partial_matches: int = 1_000_000, max_work: int | None = 100_000_000) -> Advice:
    """The advice for ``data`` and ``patterns_file`` (see the module docstring)."""
    from experiments.data.statistics import estimate_workload_statistics

    if not budget_s > 0:
        raise ConfigError(f"--budget must be a positive number of seconds, got {budget_s:g}")
    if not sample_windows > 0 or max_samples < 1 or min_samples < 1:
        raise ConfigError("--sample-windows must be positive, and --max-samples and --min-samples at least 1")
    min_samples = min(min_samples, max_samples)
    started = time.perf_counter()
    deadline = started + budget_s
    stream, patterns, path = read_workload(data, patterns_file)
    multi = len(patterns) > 1
    say = (lambda m: print(m, file=sys.stderr)) if progress else (lambda m: None)
    say(f"advise: {len(stream):,} events of {len(stream.types)} types, {len(patterns)} pattern(s); estimating statistics")
    stats = estimate_workload_statistics(stream, patterns, seed=seed)
    where = location(patterns, stats)
    names = candidate_names(multi)
    searches = max(1, sum(1 for n in names if n.startswith(("SA-", "TS-"))))
    say(f"advise: planning with {len(names)} candidates")
    cands = plan_candidates(names, patterns, stats, multi=multi, search_s=max(0.05, SEARCH_SHARE * budget_s / searches), seed=seed)
    caps = {"max_partial_matches": max_partial_matches, "max_work": max_work}
    runs, sampled = run_samples(cands, patterns, stream, budget_s=budget_s, deadline=deadline, started=started,
                                least_windows=sample_windows, max_samples=max_samples, caps=caps, progress=progress, seed=seed,
                                min_samples=min_samples)
    ranked, best = rank(cands, runs)
    samples_run = len(next(iter(runs.values())).throughput) if runs else 0
    passes = next(iter(runs.values())).passes if runs else 0
    roots = [Path(r) for r in maps_roots]
    advice = Advice(path, patterns_file, len(stream), patterns, where, cands, ranked, best, samples_run, sampled, budget_s,
                    time.perf_counter() - started, map_lines(where, multi, roots), recommendation(ranked, best, samples_run),
                    load=_load(), passes=passes)
    if out_dir is not None:
        advice.files = write_advice(advice, Path(out_dir))
    return advice


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


# ---- output -----------------------------------------------------------------------------------------------
def table_rows(advice: Advice) -> list[dict]:
    rows = []
    for i, r in enumerate(advice.ranked, 1):
        c = r.candidate
        rows.append({"rank": i if not c.error else None, "method": c.name, "kind": c.kind or "-",
                     "throughput_eps": r.throughput, "vs_best": r.versus_best.text() if r.versus_best else "-",
                     "work": r.work,
                     "work_vs_best": r.work_versus_best.text() if r.work_versus_best else "-",
                     "standing": standing(r, advice.best), "capped": r.capped,
                     "plan": (f"= {c.same_as}" if c.same_as else c.plan_text) if not c.error else f"error: {c.error}"})
    return rows


AXIS_WORDS = {"events_per_window": "events per type per window (median type)", "rate_ratio": "rate ratio (fastest over slowest type)",
              "selectivity_spread": "selectivity spread (highest over lowest)", "size": "pattern length",
              "pattern_size": "mean pattern length", "workload_size": "patterns", "density": "overlap (MPG density)"}


def text(advice: Advice) -> str:
    from experiments.tools.tables import fmt, text_table

    cols = {"rank": ("#", fmt("d")), "method": ("method", str), "kind": ("kind", str), "throughput_eps": ("events/s", fmt(",.0f")),
            "vs_best": ("throughput vs best [95% CI]", str), "work": ("work a sample", fmt(",.0f")),
            "work_vs_best": ("work: best's over its", str),
            "standing": ("standing", str), "plan": ("plan", lambda p: p if len(p) <= 60 else p[:57] + "...")}
    lines = [f"{advice.data}: {advice.events:,} events; {len(advice.patterns)} pattern(s); budget {advice.budget_s:g} s, "
             f"{advice.samples_run} samples ({advice.sampled_events:,} events, {advice.passes} pass{'es' * (advice.passes != 1)}) in "
             f"{advice.elapsed_s:.0f} s, load {advice.load}",
             "where the workload sits on the maps' axes: " + ", ".join(f"{AXIS_WORDS[k]} {v:.3g}" for k, v in advice.location.items()),
             "", text_table(table_rows(advice), cols), ""]
    lines += [f"nearest map region: {m}" for m in advice.maps] or [
        "nearest map region: no regime maps of this kind found (python -m experiments map +map=<name>; --maps DIR)"]
    lines += ["", advice.recommendation]
    return "\n".join(lines)


def write_advice(advice: Advice, out_dir: Path) -> list[Path]:
    """``advise.md`` and the figure (``advise.png``, ``advise.pdf``) in ``out_dir``."""
    from cep.io_utils import write_if_changed
    from cep.pattern import format_pattern

    out_dir.mkdir(parents=True, exist_ok=True)
    figs = draw(advice, out_dir)
    md = ["# advise", "", f"Events: `{advice.data}` ({advice.events:,} events). Patterns: `{advice.patterns_file}`:", "", "```"]
    md += [format_pattern(p) for p in advice.patterns] + ["```", "",
           f"Budget {advice.budget_s:g} s; {advice.samples_run} samples of the stream ({advice.sampled_events:,} events), "
           f"every distinct plan once per sample in turns, {advice.passes} pass{'es' * (advice.passes != 1)} over the samples "
           f"(a sample's time: the median of its passes); {advice.elapsed_s:.0f} s; load average {advice.load}.", "",
           "Where the workload sits on the maps' axes: " + ", ".join(f"{AXIS_WORDS[k]} {v:.3g}" for k, v in advice.location.items()) + ".", "",
           "| # | method | kind | events/s | throughput vs best [95% CI] | work a sample | work: best's over its | standing | plan |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in table_rows(advice):
        thr = f"{r['throughput_eps']:,.0f}" if math.isfinite(r["throughput_eps"]) else "-"
        work = f"{r['work']:,.0f}" if math.isfinite(r["work"]) else "-"
        md.append(f"| {r['rank'] or '-'} | {r['method']} | {r['kind']} | {thr} | {r['vs_best']} | {work} | {r['work_vs_best']} | {r['standing']} | "
                  f"`{r['plan']}` |")
    md += ["", f"![advise]({figs[0].name})", ""]
    md += [f"- nearest map region: {m}" for m in advice.maps] or ["- no regime maps of this kind found"]
    md += ["", f"**{advice.recommendation}**", ""]
    page = out_dir / "advise.md"
    write_if_changed(page, "\n".join(md).encode())
    return [page, *figs]


def draw(advice: Advice, out_dir: Path) -> list[Path]:
    """Each distinct plan's throughput relative to the best's with its 95% interval (log scale), and its mean work
    a sample."""
    from experiments.reporting.plotstyle import log_axis, pyplot, save_figure, style

    plt = pyplot()
    shown = [r for r in advice.ranked if r.versus_best is not None and r.candidate.same_as is None]
    fig, axes = plt.subplots(1, 2, figsize=(9.0, 0.9 + 0.32 * max(3, len(shown))), sharey=True, layout="constrained")
    ax = axes[0]
    for y, r in enumerate(shown):
        e = r.versus_best.effect
        if e.n == 0:
            continue
        s = style(r.candidate.name)
        lo, hi = (e.lo, e.hi) if math.isfinite(e.lo) else (e.estimate, e.estimate)
        ax.plot([lo, hi], [y, y], color=s.color, lw=2)
        ax.plot([e.estimate], [y], marker=s.marker, color=s.color, ms=7, ls="none")
    ax.axvline(1.0, color="0.4", lw=1, ls="--")
    log_axis(ax, "x")
    ax.set_title("throughput, over the best's", fontsize=9)
    ax.set_xlabel("ratio (> 1: better than the best)", fontsize=8)
    # work is a count (deterministic, often 0 for the best plan): the mean per sample itself, not a ratio
    ax = axes[1]
    works = [r.work if math.isfinite(r.work) else 0.0 for r in shown]
    ax.barh(range(len(shown)), works, color=[style(r.candidate.name).color for r in shown], height=0.6)
    for y, w in enumerate(works):
        ax.text(w, y, f" {w:,.0f}", va="center", fontsize=7)
    ax.set_xlim(0, max([1.0, *works]) * 1.3)
    ax.set_title("work a sample (join candidates examined)", fontsize=9)
    ax.set_xlabel("mean over the samples (fewer: less work)", fontsize=8)
    same = {r.candidate.name: sum(1 for o in advice.ranked if o.candidate.same_as == r.candidate.name) for r in shown}
    labels = [r.candidate.name + (f" (+{same[r.candidate.name]} same plan)" if same[r.candidate.name] else "")
              + (" *" if r.candidate.name == advice.best else "") for r in shown]
    axes[0].set_yticks(range(len(shown)), labels, fontsize=8)
    axes[0].invert_yaxis()
    fig.suptitle(f"advise: {advice.data.name}, {advice.samples_run} samples (95% intervals; * the best)", fontsize=9)
    return [p for p in save_figure(fig, out_dir, "advise") if p.suffix == ".png"] + [out_dir / "advise.pdf"]
