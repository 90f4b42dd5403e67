"""The one plot style of every figure: a fixed colour and marker per algorithm, axis labels in words
with units (each metric's label and unit are its registry entry's, :mod:`cep.metrics`), legends outside the
data, reproducible files.  The panels themselves are :mod:`experiments.reporting.panels`.

Every algorithm name that any figure shows is registered in :data:`ALGORITHM_STYLE` -- JQPG's
planners, the multi-pattern optimizers and baselines, MOTTO's baselines and searches, HAMLET's
engines and NEXT's placement strategies -- with a (colour, marker) pair that no other name has, so
that a method looks the same in every panel of every figure and no two methods look alike anywhere.
:func:`style` gives a name that is not registered -- a method from another package, added with
``+extra_planners`` (:mod:`algorithms.plugins`) -- a (colour, marker) pair that no registered name uses,
the same in every run (:func:`foreign_style`).
"""

from __future__ import annotations

import hashlib
import io
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
from scipy import stats

from cep.io_utils import write_if_changed

# matplotlib and seaborn are imported inside the drawing functions, not here: pyplot() must choose the Agg
# backend before pyplot is imported, and what only reads the report's tables (mean_ci, style) does not load them.

# colour-blind-safe base colours (Okabe-Ito, then tab10 extras)
_C = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky": "#56B4E9",
    "green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "purple": "#CC79A7",
    "grey": "#7F7F7F",
    "brown": "#8C564B",
    "olive": "#BCBD22",
    "navy": "#1F3A93",
    "teal": "#17BECF",
    "red": "#B2182B",
}


@dataclass(frozen=True)
class Style:
    color: str
    marker: str


ALGORITHM_STYLE: dict[str, Style] = {
    # JQPG planners (order-based, then tree-based)
    "TRIVIAL": Style(_C["grey"], "x"),
    "EFREQ": Style(_C["black"], "s"),
    "GREEDY": Style(_C["orange"], "^"),
    "II-RANDOM": Style(_C["sky"], "v"),
    "II-GREEDY": Style(_C["green"], "<"),
    "DP-LD": Style(_C["blue"], "o"),
    "ZSTREAM": Style(_C["purple"], "D"),
    "ZSTREAM-ORD": Style(_C["brown"], "P"),
    "DP-B": Style(_C["vermillion"], "*"),
    # multi-pattern (MCEP): local searches and baselines; SH-MDT is MOTTO's method wherever it is drawn
    "SA-EDGE": Style(_C["vermillion"], "p"),
    "TS-EDGE": Style(_C["blue"], "p"),
    "SA-VERTEX4": Style(_C["orange"], "h"),
    "TS-VERTEX4": Style(_C["sky"], "h"),
    "SA-VERTEX8": Style(_C["green"], "H"),
    "TS-VERTEX8": Style(_C["teal"], "H"),
    "SA-EDGE-PREFIX": Style(_C["purple"], "8"),
    "TS-EDGE-PREFIX": Style(_C["brown"], "8"),
    "SH": Style(_C["olive"], "d"),
    "RE": Style(_C["navy"], "X"),
    "SH-RR": Style(_C["red"], "d"),
    "SH-MDT": Style(_C["black"], "*"),
    # MCEP 6.2.3: one SA-EDGE plan for the whole stream vs re-planned when the rates drift
    "static": Style(_C["grey"], "+"),
    "adaptive": Style(_C["yellow"], "*"),
    # MOTTO's baselines (VII-A) and its Steiner searches (Figure 14a; "serial": one plan in one thread)
    "NA": Style(_C["black"], "x"),
    "MST": Style(_C["olive"], "^"),
    "LCSE": Style(_C["purple"], "v"),
    "exact": Style(_C["navy"], "o"),
    "annealing": Style(_C["olive"], "s"),
    "serial": Style(_C["grey"], "s"),
    # HAMLET's engines
    "hamlet": Style(_C["red"], "o"),
    "hamlet-static": Style(_C["orange"], "s"),
    "greta": Style(_C["teal"], "^"),
    "two-step": Style(_C["brown"], "x"),
    "sharon": Style(_C["green"], "D"),
    # NEXT's placement strategies, and its queries without and with rewriting
    "round-robin": Style(_C["navy"], "+"),
    "greedy": Style(_C["teal"], "v"),
    "reuse": Style(_C["navy"], "s"),
    "rewrite+greedy": Style(_C["teal"], "D"),
    "rewrite+reuse": Style(_C["red"], "*"),
    "original": Style(_C["black"], "o"),
    "rewritten": Style(_C["red"], "s"),
}


def style(name: str) -> Style:
    """The registered style of ``name``, or :func:`foreign_style` for a method from another package."""
    return ALGORITHM_STYLE.get(name) or foreign_style(name)


def foreign_style(name: str) -> Style:
    """A (colour, marker) pair that no registered name has, chosen by a hash of ``name`` (stable across
    processes and runs); distinct foreign names get distinct pairs unless their hashes collide."""
    used = {(s.color, s.marker) for s in ALGORITHM_STYLE.values()}
    free = [(c, m) for m in _FOREIGN_MARKERS for c in _C.values() if (c, m) not in used]
    c, m = free[int(hashlib.sha1(name.encode()).hexdigest(), 16) % len(free)]
    return Style(c, m)


_FOREIGN_MARKERS = (">", "<", "^", "v", "D", "s", "o", "P", "X", "h")  # filled: a foreign line reads as data, not as a baseline


def mean_ci(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float, float, int]:
    """``(mean, low, high, n)``: the mean of the finite values and its Student-t confidence interval
    (``low == high == mean`` for one value; NaNs for none)."""
    v = np.asarray([x for x in values if x is not None and math.isfinite(x)], dtype=np.float64)
    n = len(v)
    if n == 0:
        return math.nan, math.nan, math.nan, 0
    m = float(v.mean())
    if n == 1:
        return m, m, m, 1
    half = float(stats.t.ppf(0.5 + confidence / 2, n - 1) * v.std(ddof=1) / math.sqrt(n))
    return m, m - half, m + half, n


def pyplot():
    """matplotlib's pyplot with the Agg backend and the house theme."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import seaborn as sns

    sns.set_theme(style="whitegrid", context="paper")
    return plt


def log_axis(ax, which: str = "y") -> None:
    """A log axis whose tick labels are plain numbers (0.5, 2, 300, 1e+06), also when it spans less
    than a decade and matplotlib would label minor ticks as 6x10^0."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    axis = ax.yaxis if which == "y" else ax.xaxis
    (ax.set_yscale if which == "y" else ax.set_xscale)("log")
    lo, hi = (ax.get_ylim() if which == "y" else ax.get_xlim())
    plain = FuncFormatter(lambda v, _: f"{v:g}")
    axis.set_major_formatter(plain)
    if hi / lo < 30:
        axis.set_minor_locator(LogLocator(subs=(2.0, 5.0)))
        axis.set_minor_formatter(plain)
    else:
        axis.set_minor_formatter(NullFormatter())


def finish_axes(ax, *, xlabel: str, ylabel: str, integer_x: bool = False, log_y: bool = False, legend: bool = True) -> None:
    """Labels, integer ticks for sizes, a log axis when asked, and the legend outside the data."""
    from matplotlib.ticker import MaxNLocator

    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if integer_x:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if log_y:
        log_axis(ax)
    handles, labels = ax.get_legend_handles_labels()
    if ax.get_legend() is not None:
        ax.get_legend().remove()
    if legend and handles:
        ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, fontsize=7, frameon=False)


def save_figure(fig, out_dir: Path, name: str) -> list[Path]:
    """Save PNG and PDF; the PDF carries no creation date, and a file whose bytes would not change
    is left alone (rerunning the report leaves ``git status`` clean)."""
    import matplotlib.pyplot as plt

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for ext, meta in (("png", {"Software": None}), ("pdf", {"CreationDate": None, "Creator": None, "Producer": None})):
        buf = io.BytesIO()
        fig.savefig(buf, format=ext, dpi=130, bbox_inches="tight", metadata=meta)
        p = out_dir / f"{name}.{ext}"
        write_if_changed(p, buf.getvalue())
        paths.append(p)
    plt.close(fig)
    return paths
