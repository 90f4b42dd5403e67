"""The report's section on the regime maps (``<results>/maps/<name>/``, drawn by :mod:`experiments.reporting.maps`):
a link to every map, and for each paper's headline claim whether the paper's own regime sits in the region of
the map where its method wins.

The paper's regime (the map config's ``paper_regime``) is placed at the mapped point nearest to it
(:func:`experiments.reporting.maps.nearest`: grid steps, in log space, summed over the axes; a range counts
as inside wherever it covers) among the points with a measured effect on the map's first metric; the
section says how far that point lies (0: the paper's regime is on the map), and what the verdict there is
(:mod:`experiments.reporting.map_verdicts`).  Where the map has a model metric (the plan cost), the
verdict of the point nearest the paper's regime among every point -- planned-only ones included -- is given
too: what the cost model predicts where the evaluators do not reach.  Without maps the section says how to
make them.
"""

from __future__ import annotations

from pathlib import Path

from experiments.reporting.map_verdicts import A_WINS, B_WINS, NO_DATA, OPEN, TIE
from experiments.reporting.maps import (
    AXIS_LABELS,
    METRIC_WORDS,
    DrawnMap,
    fmt_value,
    draw_map,
    find_maps,
    nearest,
    outcome_words,
    point_words,
    side,
)

MAPS = "maps"
#: a map metric that is the cost model's prediction, not a measurement
MODEL_METRICS = ("plan_cost_tree",)


def placement(favours: str, methods: list[str], b: str, outcome: str) -> str:
    """Whether the paper's regime sits where the method its claim favours wins, given the verdict ``outcome``
    of the comparison (``methods`` against ``b``) there."""
    if outcome in (OPEN, NO_DATA):
        return "cannot be placed: the map does not separate the two there"
    if favours == "tie":
        return {TIE: "sits where they tie, as claimed"}.get(outcome, f"sits where {side(methods) if outcome == A_WINS else b} wins, not in a tie")
    ours = favours in methods
    if favours != b and not ours:
        return "the claim is not about this comparison"
    wins = (outcome == A_WINS) == ours if outcome in (A_WINS, B_WINS) else None
    if wins is None:
        return "sits where they tie: its method does not win there"
    return "sits where its method wins" if wins else f"sits where its method loses ({side(methods) if outcome == A_WINS else b} wins)"


def _regime(info: dict) -> str:
    parts = []
    for a, v in (info.get("paper_regime") or {}).items():
        text = "-".join(fmt_value(float(x)) for x in v) if isinstance(v, (list, tuple)) else fmt_value(float(v))
        parts.append(f"{AXIS_LABELS[a][1]} {text}")
    return ", ".join(parts) or "not stated"


def _rows(drawn: DrawnMap, link: str) -> list[str]:
    d = drawn.data
    info = d.info
    claim = info.get("claim") or {}
    regime = info.get("paper_regime") or {}
    out = []
    for i, (a, b) in enumerate(d.comparisons):
        metric = d.metrics[0]
        near = nearest(d, drawn.effects, regime, comparison=i, metric=metric)
        if near is None:
            where, there, placed = "no measured point", "n/a", "cannot be placed: nothing measured"
        else:
            e, dist = near
            where = f"{point_words(d, e.point)} ({'on the map' if dist == 0 else f'{dist:.1f} grid steps away'})"
            there = f"{METRIC_WORDS.get(metric, metric).split(' (')[0]} {side(a)} over {b}: {e.verdict.text()}, {outcome_words(e.verdict.outcome, a, b)}"
            placed = placement(str(claim.get("favours", "")), a, b, e.verdict.outcome)
        for m in (m for m in d.metrics if m in MODEL_METRICS):
            model = nearest(d, drawn.effects, regime, comparison=i, metric=m, measured=False)
            if model is not None and model[0].verdict.effect.n:
                e, dist = model
                there += (f"; the model at {point_words(d, e.point)} ({'on the paper regime' if dist == 0 else f'{dist:.1f} steps away'}): "
                          f"{e.verdict.text()}, {outcome_words(e.verdict.outcome, a, b)} ({placement(str(claim.get('favours', '')), a, b, e.verdict.outcome)})")
        out.append(f"| [{d.name}]({link}) | {claim.get('text', '')} ({claim.get('source', '')}) | {_regime(info)} | {where} | {there} | {placed} |")
    return out


def maps_section(results_dir: Path) -> list[str]:
    """The section's markdown lines (drawing every map under ``<results_dir>/maps/``)."""
    results_dir = Path(results_dir)
    lines = ["## Regime maps: which method wins where", ""]
    folders = find_maps(results_dir / MAPS)
    if not folders:
        return lines + ["No regime maps in `maps/` here: `python -m experiments map +map=<name>` draws one (configs/map/: "
                        "dpld_vs_dpb, dpld_vs_greedy, dpb_vs_zstream, dpld_vs_efreq, local_vs_baselines, hamlet_vs_greta).", ""]
    lines += ["Each map runs two methods over a grid of the axes that decide plan quality and judges every point by the "
              "rule set (the paired effect's 95% interval: a tie where it lies inside [0.8, 1.25], a winner where it does not and excludes 1). Below, "
              "each paper's headline claim is placed on its map: at the mapped point nearest the paper's own regime "
              "(in grid steps, 0 when the regime is on the map), is its method the one that wins?", "",
              "| map | the paper's claim | the paper's regime | nearest measured point | the verdict there | placement |",
              "| --- | --- | --- | --- | --- | --- |"]
    figures = []
    for folder in folders:
        drawn = draw_map(folder)
        if drawn is None:
            continue
        link = drawn.page.relative_to(results_dir).as_posix()
        lines += _rows(drawn, link)
        for x, y, files, _ in drawn.figures:
            png = next(p for p in files if p.suffix == ".png")
            figures.append(f"[{drawn.data.name}: {AXIS_LABELS[x][1]} x {AXIS_LABELS[y][1]}]({png.relative_to(results_dir).as_posix()})")
    lines += ["", "Figures: " + "; ".join(figures) + ".", ""]
    return lines

