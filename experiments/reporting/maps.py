"""Regime maps drawn from a map's results folder (``<results>/maps/<name>/``, :mod:`experiments.exps.maps`):
the paired effect of the map's two sides at every point, one heatmap per pair of axes, and a generated
text under each that says where each side wins, by how much, and where they tie.

A point's effect on a metric is the ratio of side A's value over side B's on each workload (side A's
methods pooled by their geometric mean; for a metric where lower is better -- work, plan cost, latency --
B's over A's, so that above 1 always favours A), judged by :mod:`experiments.reporting.map_verdicts`.  A
capped run's throughput is an upper bound (:mod:`experiments.reporting.bounds`); a workload where both
sides were capped bounds nothing and is left out.

Each figure is one pair of axes (the other axes at their base values): a row per comparison (A against
each method of B), a column per metric; the colour is the effect on a diverging log scale centred on 1,
a box marks a point whose interval decides the winner (none for ties and open points), hatching a point
with no effect (planned only, or both sides capped), and a star the paper's own regime (a dashed box
for a range; an arrow at the edge when it lies beyond the mapped values).  ``MAP.md`` puts each figure
above its text; ``effects.csv`` holds every point's effect.  Everything is read from the results table
and the run's ``metadata.json`` (its ``map`` facts).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from cep.io_utils import write_if_changed
from experiments.reporting.bounds import BOUND_COLUMN, UPPER, with_bounds
from experiments.reporting.map_verdicts import A_WINS, B_WINS, NO_DATA, OPEN, TIE, PointVerdict, judge, rule_text
from experiments.reporting.plotstyle import pyplot, save_figure
from experiments.running.metadata import load_meta
from experiments.running.store import ResultStore

#: the axes in figures (with units) and in text
AXIS_LABELS = {
    "events_per_window": ("events per type per window (median type)", "events/window"),
    "rate_ratio": ("rate ratio, fastest over slowest type", "rate ratio"),
    "selectivity_spread": ("selectivity spread (highest over lowest)", "selectivity spread"),
    "size": ("pattern length (events)", "size"),
    "pattern_size": ("average pattern length (events)", "pattern size"),
    "workload_size": ("patterns in the workload", "patterns"),
    "density": ("overlap (MPG density)", "overlap"),
    "events_per_minute": ("events per minute", "events/minute"),
    "burst_mean": ("mean burst of the shared type (events)", "mean burst"),
    "queries": ("queries in the workload", "queries"),
}
#: metrics where a higher value is better (every other one a map draws: lower is better)
HIGHER_IS_BETTER = ("throughput_eps",)
METRIC_WORDS = {"throughput_eps": "throughput", "work": "work (join candidates examined)",
                "plan_cost_tree": "plan cost (Cost_tree: the model's prediction)", "plan_cost": "plan cost",
                "latency_ms": "latency"}
MEASURED, PLANNED_ONLY, CAPPED, MISSING = "measured", "planned only", "both capped", "missing"


@dataclass
class MapData:
    """A map's results: its facts (``metadata.json``'s ``map``), its table, and one row per (workload, method)
    with every metric (capped throughputs as upper bounds) and the point it belongs to."""

    name: str
    folder: Path
    info: dict
    meta: dict
    rows: pd.DataFrame  # one row per (pattern_id, algorithm): metrics, BOUND_COLUMN, "point" (its key)
    points: dict[str, dict]  # point key -> axes

    @property
    def axes(self) -> list[str]:
        return list(self.info["axes"])

    @property
    def metrics(self) -> list[str]:
        return list(self.info.get("metrics") or ["throughput_eps"])

    @property
    def comparisons(self) -> list[tuple[list[str], str]]:
        return [(list(self.info["methods"]), b) for b in self.info["against"]]


def side(methods: Sequence[str]) -> str:
    return "/".join(methods)


def _point_key(point: Mapping, axes: Sequence[str]) -> str:
    return ",".join(f"{a}={float(point[a]):g}" for a in axes)


def load_map(folder: Path) -> MapData | None:
    """A map's results, or None when the folder holds no results of a map."""
    folder = Path(folder)
    meta = load_meta(folder)
    info = meta.get("map")
    store = ResultStore(folder)
    if not info or not store.table_path.exists():
        return None
    df = store.load()
    if df.empty:
        return None
    params = df.drop_duplicates("cell_id").set_index("cell_id")["params"]
    w = with_bounds(df)
    w = w[w["cell_id"].isin(params.index)].copy()
    pts = {}
    keys = []
    for cid in w["cell_id"]:
        point = json.loads(params[cid])
        key = _point_key(point, info["axes"])
        pts.setdefault(key, {a: float(point[a]) for a in info["axes"]})
        keys.append(key)
    w["point"] = keys
    return MapData(str(info["name"]), folder, info, meta, w, pts)


# ---- effects ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PointEffect:
    point: str
    comparison: int  # index into MapData.comparisons
    metric: str
    verdict: PointVerdict
    status: str  # MEASURED, PLANNED_ONLY, CAPPED, MISSING


def _ratios(g: pd.DataFrame, a: Sequence[str], b: str, metric: str) -> tuple[list[float], list[bool], list[bool]]:
    """Per workload (``pattern_id``) of one point: A's value (geometric mean of A's methods) over B's, oriented
    so that above 1 favours A, with the flags of the ratios that are lower / upper bounds."""
    higher = metric in HIGHER_IS_BETTER
    ratios, lower, upper = [], [], []
    for _, wl in g.groupby("pattern_id", sort=True):
        by = {r["algorithm"]: r for _, r in wl.iterrows()}
        if b not in by or any(m not in by for m in a) or metric not in wl:
            continue
        vals = [by[m][metric] for m in a]
        if not all(v is not None and math.isfinite(v) and v > 0 for v in vals + [by[b][metric]]):
            continue
        va = float(np.exp(np.mean(np.log(vals))))
        vb = float(by[b][metric])
        a_bound = any(by[m][BOUND_COLUMN] == UPPER for m in a)  # an upper bound on A's throughput
        b_bound = by[b][BOUND_COLUMN] == UPPER
        if a_bound and b_bound:
            continue
        ratios.append(va / vb if higher else vb / va)
        lower.append(bool(b_bound) if higher else bool(a_bound))
        upper.append(bool(a_bound) if higher else bool(b_bound))
    return ratios, lower, upper


def _status(g: pd.DataFrame, metric: str, n: int) -> str:
    if n:
        return MEASURED
    if g.empty:
        return MISSING
    if metric not in g or g[metric].isna().all():
        evaluated = "throughput_eps" in g and g["throughput_eps"].notna().any()
        return CAPPED if evaluated or (g[BOUND_COLUMN] == UPPER).any() else PLANNED_ONLY
    return CAPPED


def map_effects(data: MapData) -> list[PointEffect]:
    """The effect of every comparison on every metric at every point of the map."""
    out = []
    for key, g in data.rows.groupby("point", sort=False):
        for i, (a, b) in enumerate(data.comparisons):
            for metric in data.metrics:
                ratios, lower, upper = _ratios(g, a, b, metric)
                out.append(PointEffect(key, i, metric, judge(ratios, lower=lower, upper=upper), _status(g, metric, len(ratios))))
    return out


def effects_frame(data: MapData, effects: Sequence[PointEffect]) -> pd.DataFrame:
    """The effects as a table (``effects.csv``): the point's axes, the comparison, the metric, the effect
    with its interval, n, bounds, the outcome (with A and B named) and the workloads that would decide it."""
    rows = []
    for e in effects:
        a, b = data.comparisons[e.comparison]
        v = e.verdict
        rows.append({**data.points[e.point], "a": side(a), "b": b, "metric": e.metric, "effect": v.effect.estimate,
                     "lo": v.effect.lo, "hi": v.effect.hi, "n": v.effect.n, "lower_bounds": v.effect.lower_bounds,
                     "upper_bounds": v.effect.upper_bounds, "outcome": outcome_words(v.outcome, a, b), "needed": v.needed,
                     "status": e.status})
    return pd.DataFrame(rows)


def outcome_words(outcome: str, a: Sequence[str], b: str) -> str:
    return {A_WINS: f"{side(a)} wins", B_WINS: f"{b} wins"}.get(outcome, outcome)


# ---- the slices of a pair of axes ----------------------------------------------------------------------
def slice_points(data: MapData, x: str, y: str) -> dict[tuple[float, float], str]:
    """The points of the slice of axes ``x`` and ``y`` (their mapped values, every other axis at its base value):
    (x, y) -> key."""
    base = data.info["base"]
    xs, ys = [float(v) for v in data.info["values"][x]], [float(v) for v in data.info["values"][y]]
    out = {}
    for key, p in data.points.items():
        on_grid = any(math.isclose(p[x], v) for v in xs) and any(math.isclose(p[y], v) for v in ys)
        if on_grid and all(math.isclose(p[a], float(base[a])) for a in data.axes if a not in (x, y)):
            out[(p[x], p[y])] = key
    return out


def _position(values: Sequence[float], v: float) -> float:
    """Where ``v`` sits on an axis whose ticks are ``values`` (index units; log-interpolated between
    neighbours when every value is positive), extrapolated beyond the ends."""
    vals = [float(x) for x in values]
    f = np.log if min(vals + [v]) > 0 else (lambda z: z)
    fv, t = f(np.asarray(vals)), float(f(v))
    if len(vals) == 1:
        return 0.0
    i = int(np.clip(np.searchsorted(fv, t) - 1, 0, len(vals) - 2))
    return i + (t - fv[i]) / (fv[i + 1] - fv[i])


def fmt_value(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:g}"


def _ratio_label(r: float) -> str:
    if not math.isfinite(r):
        return "n/a"
    return f"{r:.3g}x" if r >= 100 or r < 0.01 else f"{r:.2f}x"


def _paper_span(regime: Mapping, axis: str) -> tuple[float, float] | None:
    v = regime.get(axis)
    if v is None:
        return None
    if isinstance(v, (list, tuple)):
        return float(min(v)), float(max(v))
    return float(v), float(v)


def _mark_paper(ax, regime: Mapping, x: str, y: str, xs: Sequence[float], ys: Sequence[float]) -> None:
    """The paper's regime on a panel: a star at its point (the centre of a range, in log space), a dashed box
    over a range, clamped to the panel with an arrow pointing out where it lies beyond the mapped values."""
    from matplotlib.patches import Rectangle

    placed = _paper_place(regime, x, y, xs, ys)
    if placed is None:
        return
    px, py, (cx, cy) = placed
    lim_x, lim_y = (-0.5, len(xs) - 0.5), (-0.5, len(ys) - 0.5)
    clamp = lambda v, lim: min(max(v, lim[0] + 0.06), lim[1] - 0.06)  # noqa: E731
    if px[0] != px[1] or py[0] != py[1]:
        x0, x1 = (clamp(v, lim_x) for v in px)
        y0, y1 = (clamp(v, lim_y) for v in py)
        ax.add_patch(Rectangle((x0, y0), max(x1 - x0, 0.05), max(y1 - y0, 0.05), fill=False, ls="--", lw=1.3, ec="black", zorder=4))
    ax.plot([cx], [cy], marker="*", ms=15, mfc="gold", mec="black", zorder=5, ls="none")
    for pos, lim, horizontal in ((px, lim_x, True), (py, lim_y, False)):  # arrows end inside the panel
        if max(pos) > lim[1]:
            d = (lim[1] - 0.03 - cx, 0) if horizontal else (0, lim[1] - 0.03 - cy)
        elif min(pos) < lim[0]:
            d = (lim[0] + 0.03 - cx, 0) if horizontal else (0, lim[0] + 0.03 - cy)
        else:
            continue
        ax.annotate("", xy=(cx + d[0], cy + d[1]), xytext=(cx, cy), zorder=6,
                    arrowprops={"arrowstyle": "-|>", "lw": 1.6, "color": "black", "shrinkA": 6, "shrinkB": 0})


def _paper_place(regime: Mapping, x: str, y: str, xs: Sequence[float], ys: Sequence[float]):
    """Where the paper's regime sits on a panel, in index units: its span on x and on y, and the star (the
    centre of the span in log space, held 0.35 inside the panel where the span lies beyond it, leaving room
    for the arrow that points out); None when the regime does not name both axes."""
    sx, sy = _paper_span(regime, x), _paper_span(regime, y)
    if sx is None or sy is None:
        return None
    px = [_position(xs, v) for v in sx]
    py = [_position(ys, v) for v in sy]
    hold = lambda v, n: min(max(v, -0.5 + 0.35), n - 0.5 - 0.35)  # noqa: E731
    return px, py, (hold(sum(px) / 2, len(xs)), hold(sum(py) / 2, len(ys)))


def draw_pair(data: MapData, effects: Sequence[PointEffect], x: str, y: str, out_dir: Path) -> list[Path]:
    """The figure of one pair of axes (see the module docstring)."""
    plt = pyplot()
    from matplotlib.patches import Rectangle
    xs, ys = [float(v) for v in data.info["values"][x]], [float(v) for v in data.info["values"][y]]
    pts = slice_points(data, x, y)
    by = {(e.point, e.comparison, e.metric): e for e in effects}
    comps, metrics = data.comparisons, data.metrics
    logs = [abs(math.log10(e.verdict.effect.estimate)) for e in effects
            if e.point in pts.values() and e.status == MEASURED and math.isfinite(e.verdict.effect.estimate) and e.verdict.effect.estimate > 0]
    span = min(3.0, max([math.log10(2.0)] + logs))
    fig, axes = plt.subplots(len(comps), len(metrics), figsize=(1.2 + 3.6 * len(metrics), 1.0 + 3.0 * len(comps)), squeeze=False,
                             layout="constrained")
    cmap = plt.get_cmap("RdBu")
    im = None
    for i, (a, b) in enumerate(comps):
        for j, metric in enumerate(metrics):
            ax = axes[i][j]
            grid = np.full((len(ys), len(xs)), np.nan)
            placed = _paper_place(data.info.get("paper_regime") or {}, x, y, xs, ys)
            star = placed[2] if placed else None
            im = ax.imshow(grid, cmap=cmap, vmin=-span, vmax=span, origin="lower", aspect="auto")
            for iy, vy in enumerate(ys):
                for ix, vx in enumerate(xs):
                    key = next((k for (px, py), k in pts.items() if math.isclose(px, vx) and math.isclose(py, vy)), None)
                    e = by.get((key, i, metric)) if key else None
                    if e is None or e.status != MEASURED:
                        ax.add_patch(Rectangle((ix - 0.5, iy - 0.5), 1, 1, fc="0.92", ec="0.75", hatch="///", lw=0.3, zorder=1))
                        word = {PLANNED_ONLY: "planned\nonly", CAPPED: "both\ncapped"}.get(e.status if e else None, "")
                        ax.text(ix, iy, word, ha="center", va="center", fontsize=6, color="0.35", zorder=2)
                        continue
                    est = e.verdict.effect.estimate
                    lv = float(np.clip(math.log10(est), -span, span))
                    ax.add_patch(Rectangle((ix - 0.5, iy - 0.5), 1, 1, fc=cmap((lv + span) / (2 * span)), ec="white", lw=0.5, zorder=1))
                    dark = abs(lv) > 0.6 * span
                    # away from the paper's star when it sits in this cell, on a patch of the cell's own colour
                    shift = 0.0
                    if star is not None and abs(star[0] - ix) < 0.45 and abs(star[1] - iy) < 0.45:
                        shift = -0.3 if star[1] >= iy else 0.3
                    ax.text(ix, iy + shift, _ratio_label(est), ha="center", va="center", fontsize=7, zorder=7,
                            color="white" if dark else "black", fontweight="bold" if e.verdict.decided else "normal",
                            bbox={"boxstyle": "round,pad=0.15", "fc": cmap((lv + span) / (2 * span)), "ec": "none", "alpha": 0.85})
                    if e.verdict.decided:
                        ax.add_patch(Rectangle((ix - 0.44, iy - 0.44), 0.88, 0.88, fill=False, ec="black", lw=1.8, zorder=3))
            _mark_paper(ax, data.info.get("paper_regime") or {}, x, y, xs, ys)
            ax.set_xlim(-0.5, len(xs) - 0.5)
            ax.set_ylim(-0.5, len(ys) - 0.5)
            ax.set_xticks(range(len(xs)), [fmt_value(v) for v in xs], fontsize=7)
            ax.set_yticks(range(len(ys)), [fmt_value(v) for v in ys], fontsize=7)
            ax.set_xlabel(AXIS_LABELS[x][0], fontsize=8)
            ax.set_ylabel(AXIS_LABELS[y][0], fontsize=8)
            ax.grid(False)
            word = METRIC_WORDS.get(metric, metric).split(" (")[0]
            ax.set_title(f"{word}: {side(a)} over {b}", fontsize=8)
    others = [f"{AXIS_LABELS[k][1]} {fmt_value(float(v))}" for k, v in data.info["base"].items() if k not in (x, y)]
    fig.suptitle(f"{data.info.get('title', data.name)}\n{AXIS_LABELS[x][1]} x {AXIS_LABELS[y][1]}"
                 + (f" (at {', '.join(others)})" if others else ""), fontsize=9)
    cbar = fig.colorbar(im, ax=axes.ravel().tolist(), shrink=0.85)
    near = (0.8, 1.25) if span <= 0.7 else ()  # the tie band's ends crowd 1x on a long scale
    ticks = [t for t in (0.01, 0.1, 0.25, 0.5, *near, 1, 2, 4, 10, 100) if abs(math.log10(t)) <= span + 1e-9]
    cbar.set_ticks([math.log10(t) for t in ticks], labels=[f"{t:g}x" for t in ticks])
    cbar.set_label("effect (> 1: the left side better; < 1: the right side)", fontsize=7)
    cbar.ax.tick_params(labelsize=7)
    return save_figure(fig, out_dir, f"{data.name}_{x}_x_{y}")


# ---- the generated text --------------------------------------------------------------------------------
def _runs(chosen: Sequence[float], values: Sequence[float]) -> str:
    """``chosen`` values of an axis as runs of consecutive values of ``values``: "10-40, 160"."""
    idx = sorted({min(range(len(values)), key=lambda i: abs(math.log(values[i] / v)) if v > 0 and values[i] > 0
                      else abs(values[i] - v)) for v in chosen})
    runs, start = [], None
    for k, i in enumerate(idx):
        if start is None:
            start = i
        if k + 1 == len(idx) or idx[k + 1] != i + 1:
            runs.append(fmt_value(values[start]) if start == i else f"{fmt_value(values[start])}-{fmt_value(values[i])}")
            start = None
    return ", ".join(runs)


def region_text(cells: Sequence[tuple[float, float]], x: str, y: str, xs: Sequence[float], ys: Sequence[float]) -> str:
    """Where ``cells`` ((x, y) values) lie: every x at each y, as runs ("size 3: events/window 10-40; size 4: 20")."""
    if len({c for c in cells}) == len(xs) * len(ys):
        return "everywhere on this slice"
    parts = []
    for vy in ys:
        row = [cx for cx, cy in cells if math.isclose(cy, vy)]
        if row:
            parts.append(f"{AXIS_LABELS[y][1]} {fmt_value(vy)}: {AXIS_LABELS[x][1]} {_runs(row, xs)}")
    return "; ".join(parts)


def _range_of(vs: Sequence[float]) -> str:
    lo, hi = min(vs), max(vs)
    return _ratio_label(lo) if math.isclose(lo, hi, rel_tol=0.005) else f"{_ratio_label(lo)} to {_ratio_label(hi)}"


def paper_line(data: MapData, x: str, y: str) -> str:
    """Where the paper's regime lies on a slice: inside the mapped values of both axes or beyond them."""
    regime = data.info.get("paper_regime") or {}
    spans = {a: _paper_span(regime, a) for a in (x, y)}
    if any(v is None for v in spans.values()):
        return ""
    words, beyond = [], []
    for a, (lo, hi) in spans.items():
        vals = [float(v) for v in data.info["values"][a]]
        words.append(f"{AXIS_LABELS[a][1]} {fmt_value(lo) if lo == hi else f'{fmt_value(lo)}-{fmt_value(hi)}'}")
        if lo > max(vals) or hi < min(vals):
            beyond.append(f"{AXIS_LABELS[a][1]} (mapped {fmt_value(min(vals))}-{fmt_value(max(vals))})")
    where = f"beyond this map on {' and '.join(beyond)}" if beyond else "inside this map"
    return f"- The paper's regime ({', '.join(words)}; the star) lies {where}."


def slice_text(data: MapData, effects: Sequence[PointEffect], x: str, y: str) -> list[str]:
    """The text under one figure: per comparison and metric, where each side wins and by how much, where they
    tie, what stays open (and how many workloads would decide it), and what was not measured."""
    xs, ys = [float(v) for v in data.info["values"][x]], [float(v) for v in data.info["values"][y]]
    pts = {k: xy for xy, k in slice_points(data, x, y).items()}
    lines = []
    for i, (a, b) in enumerate(data.comparisons):
        for metric in data.metrics:
            mine = [e for e in effects if e.comparison == i and e.metric == metric and e.point in pts]
            if not mine:
                continue
            ns = sorted({e.verdict.effect.n for e in mine if e.status == MEASURED})
            parts = []
            for outcome, who in ((A_WINS, side(a)), (B_WINS, b)):
                won = [e for e in mine if e.status == MEASURED and e.verdict.outcome == outcome]
                if won:
                    sizes = [e.verdict.effect.estimate if outcome == A_WINS else 1 / e.verdict.effect.estimate for e in won]
                    top = won[int(np.argmax(sizes))]
                    parts.append(f"**{who} wins** at {len(won)} point{'s' * (len(won) > 1)}, by {_range_of(sizes)} "
                                 f"(most at {AXIS_LABELS[x][1]} {fmt_value(pts[top.point][0])}, {AXIS_LABELS[y][1]} "
                                 f"{fmt_value(pts[top.point][1])}): {region_text([pts[e.point] for e in won], x, y, xs, ys)}")
            ties = [e for e in mine if e.status == MEASURED and e.verdict.outcome == TIE]
            if ties:
                parts.append(f"**tie** (within 1.25x) at {len(ties)}: {region_text([pts[e.point] for e in ties], x, y, xs, ys)}")
            open_ = [e for e in mine if e.status == MEASURED and e.verdict.outcome in (OPEN, NO_DATA)]
            if open_:
                needed = [e.verdict.needed for e in open_ if e.verdict.needed]
                span_ = f"{min(needed)}" if min(needed, default=0) == max(needed, default=0) else f"{min(needed)}-{max(needed)}"
                more = f"; about {span_} workloads per point would decide them" if needed else ""
                parts.append(f"open at {len(open_)} ({_range_of([e.verdict.effect.estimate for e in open_])}{more})")
            unmeasured = [e for e in mine if e.status != MEASURED]
            if unmeasured:
                kinds = sorted({e.status for e in unmeasured})
                parts.append(f"no effect at {len(unmeasured)} ({', '.join(kinds)})")
            n = f"n = {ns[0]}" if len(ns) == 1 else (f"n = {ns[0]}-{ns[-1]}" if ns else "no workloads")
            lines.append(f"- {METRIC_WORDS.get(metric, metric)}, {side(a)} over {b} ({n} workloads per point): " + "; ".join(parts) + ".")
    paper = paper_line(data, x, y)
    return lines + ([paper] if paper else [])


# ---- a map's page ----------------------------------------------------------------------------------------
@dataclass
class DrawnMap:
    data: MapData
    effects: list[PointEffect]
    figures: list[tuple[str, str, list[Path], list[str]]] = field(default_factory=list)  # (x, y, files, text)
    page: Path | None = None


def draw_map(folder: Path) -> DrawnMap | None:
    """Draw a map's figures, write its ``MAP.md`` and ``effects.csv``; None when the folder holds no map."""
    data = load_map(folder)
    if data is None:
        return None
    effects = map_effects(data)
    drawn = DrawnMap(data, effects)
    fig_dir = data.folder / "figures"
    for x, y in data.info["pairs"]:
        files = draw_pair(data, effects, x, y, fig_dir)
        drawn.figures.append((x, y, files, slice_text(data, effects, x, y)))
    csv = effects_frame(data, effects).to_csv(index=False, float_format="%.6g")
    write_if_changed(data.folder / "effects.csv", csv.encode())
    drawn.page = data.folder / "MAP.md"
    write_if_changed(drawn.page, render_page(drawn).encode())
    return drawn


def render_page(drawn: DrawnMap) -> str:
    d = drawn.data
    info, meta = d.info, d.meta
    claim = info.get("claim") or {}
    lines = [f"# Regime map: {info.get('title', d.name)} (`{d.name}`)", "",
             f"Side A: {side(info['methods'])}; side B: {', '.join(info['against'])}. Family `{info['family']}`, "
             f"{info['points']} points, {info['workloads']} workloads per point; run at scale "
             f"{(meta.get('settings') or {}).get('scale', '?')}, commit {meta.get('git_commit', '?')}.", "",
             f"How to read it: colour is the paired effect, A over B, on a log scale centred on 1 (blue: A better, red: "
             f"B better); {rule_text()}. Hatched: no effect (planned only, or both sides capped). The star is the "
             f"paper's regime (a dashed box for a range, an arrow where it lies beyond the map).", ""]
    if claim:
        lines += [f"The paper's claim ({claim.get('source', '')}): {claim.get('text', '')}.", ""]
    for x, y, files, text in drawn.figures:
        png = next(p for p in files if p.suffix == ".png")
        lines += [f"## {AXIS_LABELS[x][1]} x {AXIS_LABELS[y][1]}", "", f"![{x} x {y}]({png.relative_to(d.folder).as_posix()})", "",
                  *text, ""]
    notes = d.folder / "NOTES.md"
    if notes.exists():
        lines += ["## Notes", "", notes.read_text().strip(), ""]
    return "\n".join(lines)


# ---- where a workload sits -------------------------------------------------------------------------------
def distance(point: Mapping, location: Mapping, axes: Sequence[str], values: Mapping) -> tuple[float, float]:
    """How far ``point`` lies from ``location`` (axis values, a value or a (low, high) range each), in steps of
    each axis's grid (log steps where the axis is positive), summed over the axes ``location`` names: to the
    nearest edge of a range (0 inside it), and then -- to choose among the points inside -- to its centre."""
    total = centre = 0.0
    for a in axes:
        if a not in location or location[a] is None:
            continue
        span = location[a] if isinstance(location[a], (list, tuple)) else (location[a], location[a])
        if a not in values or len(values[a]) < 2:
            total += 0.0 if math.isclose(point[a], float(span[0])) else 1.0
            continue
        pos = [_position(values[a], float(v)) for v in span]
        here = _position(values[a], float(point[a]))
        lo, hi = min(pos), max(pos)
        total += 0.0 if lo <= here <= hi else min(abs(here - lo), abs(here - hi))
        centre += abs(here - (lo + hi) / 2)
    return total, centre


def nearest(data: MapData, effects: Sequence[PointEffect], location: Mapping, *, comparison: int, metric: str,
            measured: bool = True) -> tuple[PointEffect, float] | None:
    """The effect at the mapped point nearest ``location`` (:func:`distance`), among the points with a measured
    effect (``measured``) or any, and its distance in grid steps."""
    cands = [e for e in effects if e.comparison == comparison and e.metric == metric and (e.status == MEASURED or not measured)]
    if not cands:
        return None
    vals = {a: [float(v) for v in vs] for a, vs in data.info["values"].items()}
    scored = [(distance(data.points[e.point], location, data.axes, vals), k, e) for k, e in enumerate(cands)]
    (dist, _), _, best = min(scored, key=lambda t: (t[0], t[1]))
    return best, dist


def point_words(data: MapData, key: str) -> str:
    p = data.points[key]
    return ", ".join(f"{AXIS_LABELS[a][1]} {fmt_value(p[a])}" for a in data.axes)


def find_maps(root: Path) -> list[Path]:
    """The map folders under ``root`` (``<results>/maps/``): those with a results table and map facts."""
    root = Path(root)
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if (p / "metadata.json").exists() and (load_meta(p).get("map")))
