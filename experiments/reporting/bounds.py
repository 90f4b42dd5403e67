"""Capped runs as bounds (the rule of :mod:`experiments.reporting.rules`: "a capped run ... is a bound").

A run stopped at a cap (status ``capped: ...``) processed part of the stream (``processed_events``) in a
known time (``capped_elapsed_s``) before it stopped.  Had it run to the end it would have taken at least
that time, so its throughput over the whole stream is at most ``events / capped_elapsed_s``: an
**upper bound** on its throughput.  (The rate on the processed part, ``processed_events /
capped_elapsed_s``, is no bound: the rest of the stream might go faster.)  A ratio of another engine's
throughput over a capped one is then a **lower bound**, one of a capped engine over another an upper
bound, and a ratio of two capped runs bounds nothing (left out).

Every experiment whose capped rows carry ``events`` and ``capped_elapsed_s`` gets its bounds here; the
tables mark a bound with ``<=`` / ``>=`` and the plots with :data:`MARKER`.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import pandas as pd

from experiments.reporting.core import CAPPED_PREFIX, wide

#: the marker of an upper bound on a plot (a downward triangle: the real value lies below)
MARKER = "v"
BOUND_COLUMN = "bound"  # "upper" on a capped cell's row of :func:`with_bounds`, else None
UPPER, LOWER = "upper", "lower"


def throughput_bounds(df: pd.DataFrame) -> pd.DataFrame:
    """One row per capped cell that recorded its time: the wide columns of the cell, ``throughput_eps``
    its upper bound (``events / capped_elapsed_s``) and :data:`BOUND_COLUMN` = ``"upper"``."""
    statuses = tuple(s for s in df["status"].dropna().unique() if str(s).startswith(CAPPED_PREFIX))
    if not statuses:
        return pd.DataFrame()
    c = wide(df, statuses)
    if "capped_elapsed_s" not in c or "events" not in c:
        return pd.DataFrame()
    c = c[(c["capped_elapsed_s"] > 0) & c["events"].notna()].copy()
    c["throughput_eps"] = c["events"] / c["capped_elapsed_s"]
    c[BOUND_COLUMN] = UPPER
    return c


def with_bounds(df: pd.DataFrame) -> pd.DataFrame:
    """The wide table of the finished cells (:data:`BOUND_COLUMN` None) and the capped cells' throughput
    upper bounds (:func:`throughput_bounds`)."""
    w = wide(df)
    w[BOUND_COLUMN] = None
    b = throughput_bounds(df)
    return pd.concat([w, b], ignore_index=True) if not b.empty else w


def bounded_pairs(w: pd.DataFrame, num: str, den: str, by: Sequence[str], metric: str = "throughput_eps") -> pd.DataFrame:
    """Per cell (keys ``by``), ``metric`` of ``num`` over ``den`` on a :func:`with_bounds` table: the keys,
    ``ratio``, and flags ``lower`` (``den`` capped: a lower bound) and ``upper`` (``num`` capped); pairs with
    both capped, or without two positive finite values, are left out."""
    keys = [k for k in by if k in w.columns]
    if metric not in w:
        return pd.DataFrame(columns=[*keys, "ratio", "lower", "upper"])
    cols = keys + [metric, BOUND_COLUMN]
    a = w[w["algorithm"] == num][cols].groupby(keys, dropna=False).first()
    b = w[w["algorithm"] == den][cols].groupby(keys, dropna=False).first()
    j = a.join(b, lsuffix="_n", rsuffix="_d", how="inner")
    bn, bd = j[f"{BOUND_COLUMN}_n"] == UPPER, j[f"{BOUND_COLUMN}_d"] == UPPER
    n, d = j[f"{metric}_n"].astype(float), j[f"{metric}_d"].astype(float)
    keep = ~(bn & bd) & np.isfinite(n) & np.isfinite(d) & (n > 0) & (d > 0)
    out = pd.DataFrame({"ratio": (n / d)[keep], "lower": bd[keep].astype(bool), "upper": bn[keep].astype(bool)})
    return out.reset_index()


def bounded_ratios(w: pd.DataFrame, num: str, den: str, by: Sequence[str], metric: str = "throughput_eps") -> tuple[list[float], list[bool], list[bool]]:
    """:func:`bounded_pairs` as lists for :func:`experiments.reporting.rules.ratio_interval`."""
    p = bounded_pairs(w, num, den, by, metric)
    return [float(x) for x in p["ratio"]], [bool(x) for x in p["lower"]], [bool(x) for x in p["upper"]]


def bound_notes(df: pd.DataFrame) -> list[str]:
    """One line per capped engine: its throughput upper bounds per dataset and swept value (``<= x
    events/s``, the range over seeds), and how much of the stream it had processed in what time."""
    b = throughput_bounds(df)
    if b.empty:
        return []
    keys = [k for k in ("dataset", "x_name", "x_value") if k in b]
    out = []
    for alg, g in b.groupby("algorithm"):
        parts = []
        for key, c in g.groupby(keys, dropna=False):
            key = key if isinstance(key, tuple) else (key,)
            where = " ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in key)
            lo, hi = c["throughput_eps"].min(), c["throughput_eps"].max()
            rng = f"{hi:,.0f}" if math.isclose(lo, hi) else f"{lo:,.0f}-{hi:,.0f}"
            done = c["processed_events"].sum() if "processed_events" in c else math.nan
            share = f", {done / c['events'].sum():.0%} of the events processed" if math.isfinite(done) else ""
            parts.append(f"{where}: <= {rng} events/s ({len(c)} cells, {c['capped_elapsed_s'].median():.2f} s to the cap{share})")
        out.append(f"{alg} capped in {len(g)} cells; throughput upper bounds (all events / time until the cap): " + "; ".join(parts))
    return out
