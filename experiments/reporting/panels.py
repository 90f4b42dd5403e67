"""The panels of the report's figures, shared by every section: each method's means with their 95%
confidence intervals as error bars, along a swept x (a line) or side by side per category (points), in
the method's registered colour and marker (:mod:`experiments.reporting.plotstyle`); and the points and
intervals they are drawn from.

A point is the geometric mean of a group's positive values with the Student-t interval of the mean of
their logarithms (:func:`geo_points`: throughput, memory and ratios span orders of magnitude, where an
arithmetic mean would follow the few largest) or the arithmetic mean and its interval
(:func:`mean_points`).  An x whose group has no value to average is a gap in its line (``gaps``) or is
left out (the points of one category, side by side).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from experiments.reporting.core import log_ci
from experiments.reporting.plotstyle import log_axis, mean_ci, style

Points = tuple[list, list, list, list]  # xs, means, the intervals' lower ends, their upper ends


def positive(values: Sequence[float], scale: float = 1.0) -> list[float]:
    """The positive values (missing ones left out), each times ``scale`` (a metric's drawn unit)."""
    return [v * scale for v in values if v == v and v > 0]


def _points(groups: Mapping, interval, gaps: bool) -> Points:
    xs, means, lows, highs = [], [], [], []
    for x in sorted(groups):
        m, lo, hi, n = interval(groups[x])
        if n or gaps:
            xs.append(x)
            means.append(m)
            lows.append(lo)
            highs.append(hi)
    return xs, means, lows, highs


def geo_points(groups: Mapping, *, gaps: bool = True) -> Points:
    """Per x (ascending; ``groups`` maps x to values): the geometric mean of the positive values and its
    95% CI; an x without one is NaN (a gap), or left out without ``gaps``."""
    return _points(groups, log_ci, gaps)


def mean_points(groups: Mapping, *, gaps: bool = True) -> Points:
    """Per x (ascending): the mean of the values and its 95% CI; an x without one is NaN (a gap), or left
    out without ``gaps``."""
    return _points(groups, mean_ci, gaps)


def ci_line(ax, name: str, xs, means, lows, highs, *, points: bool = False, label: str | None = None,
            color: str | None = None, marker: str | None = None, linestyle: str | None = None) -> None:
    """One method's means with error bars from ``lows`` to ``highs``, in its registered colour and marker
    (or ``color`` and ``marker``), labelled by its name (or ``label``): joined by a line, or ``points``
    alone (categories side by side)."""
    st = style(name) if color is None or marker is None else None
    color = color if color is not None else st.color
    marker = marker if marker is not None else st.marker
    err = [[m - lo for m, lo in zip(means, lows)], [hi - m for m, hi in zip(means, highs)]]
    label = name if label is None else label
    if points:
        ax.errorbar(xs, means, yerr=err, fmt=marker, color=color, label=label, capsize=2, markersize=5, linewidth=1)
    elif linestyle is None:
        ax.errorbar(xs, means, yerr=err, color=color, marker=marker, label=label, capsize=2, linewidth=1.2, markersize=5)
    else:
        ax.errorbar(xs, means, yerr=err, color=color, marker=marker, linestyle=linestyle, label=label, capsize=2,
                    linewidth=1.2, markersize=5)


def clipped_bars(ax, xs, lows, highs, bottom: float, top: float, color: str) -> tuple[list[float], list[float]]:
    """Error bars on an axis shown from ``bottom`` to ``top``: the ``lows`` and ``highs`` cut at its edges (an
    unbounded or non-positive end drawn to the edge of a log axis), each cut end marked by an arrowhead at the
    edge it runs past; returns the cut lows and highs to draw."""
    lows_cut, highs_cut = [max(lo, bottom) for lo in lows], [min(hi, top) for hi in highs]
    for x, lo, hi in zip(xs, lows, highs):
        if hi > top:
            ax.plot([x], [top], marker=6, color=color, markersize=5, clip_on=False, zorder=5)
        if lo < bottom:
            ax.plot([x], [bottom], marker=7, color=color, markersize=5, clip_on=False, zorder=5)
    return lows_cut, highs_cut


def lines(ax, methods: Mapping[str, Mapping]) -> None:
    """Per method (in the given order; its groups map x to values): the geometric means and their CIs along
    x, an x without a value left out (log axis)."""
    for name, groups in methods.items():
        xs, means, lows, highs = geo_points(groups, gaps=False)
        if xs:
            ci_line(ax, name, xs, means, lows, highs)
    log_axis(ax)


def categories(ax, methods: Mapping[str, Mapping[int, Sequence[float]]], names: Sequence, labels: Mapping | None = None, *,
               baseline: str | None = None) -> None:
    """Per category (``names``; a method's groups map a category's index to its values) and method: the
    geometric mean and its CI, the methods side by side in the given order (log axis); with ``baseline``,
    the values are ratios to that method's, drawn as a dashed line at 1."""
    width = 0.8 / max(1, len(methods))
    for k, (name, groups) in enumerate(methods.items()):
        xs, means, lows, highs = geo_points(groups, gaps=False)
        if xs:
            ci_line(ax, name, [i - 0.4 + width * (k + 0.5) for i in xs], means, lows, highs, points=True)
    if baseline is not None:
        ax.axhline(1.0, color=style(baseline).color, linewidth=1, linestyle="--", label=f"{baseline} (= 1)")
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels([(labels or {}).get(c, str(c)) for c in names])
    log_axis(ax)
