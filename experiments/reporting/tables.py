"""Fixed-width text tables of rows (dicts), through pandas, for the commands that print them; the same
rows are what their ``--json`` prints, one object per line."""

from __future__ import annotations

import json
from typing import Callable, Iterable, Mapping

import pandas as pd

Column = tuple[str, Callable[[object], str]]


def fmt(spec: str) -> Callable[[object], str]:
    """A formatter of ``format(value, spec)`` that prints a missing value as ``-``."""
    def f(v) -> str:
        if v is None or (isinstance(v, float) and v != v):
            return "-"
        return format(v, spec)

    return f


def text_table(rows: Iterable[Mapping], columns: Mapping[str, Column]) -> str:
    """``rows`` as a fixed-width table: ``columns`` maps a row key to (header, formatter)."""
    rows = list(rows)
    frame = pd.DataFrame({header: [f(r.get(key)) for r in rows] for key, (header, f) in columns.items()})
    return frame.to_string(index=False)


def print_rows(rows: Iterable[Mapping], columns: Mapping[str, Column], *, as_json: bool) -> None:
    """Print ``rows`` as JSON lines (``as_json``) or as a table of ``columns``."""
    rows = list(rows)
    if as_json:
        for r in rows:
            print(json.dumps(r, default=str), flush=True)
    elif rows:
        print(text_table(rows, columns), flush=True)


def format_statistics(stats, meta: dict, top: int = 20) -> str:
    """Arrival rates (the ``top`` fastest types) and selectivities as text, under a line about the data."""
    import numpy as np

    rates = sorted(stats.rates.items(), key=lambda kv: (-kv[1], kv[0]))
    vals = np.array([r for _, r in rates]) if rates else np.zeros(1)
    lines = [
        f"dataset {meta['dataset']}: {meta['events']:,} events, {meta['event_types']} event types, "
        f"span {meta['span_seconds'] / 3600:.2f} h ({meta['engine']})",
        f"arrival rates (events/s): min {vals.min():.3g}, median {np.median(vals):.3g}, max {vals.max():.3g}",
    ]
    shown = rates if not top else rates[:top]
    width = max((len(t) for t, _ in shown), default=4)
    for t, r in shown:
        lines.append(f"  {t:<{width}}  {r:.6g}/s  ({r * 60:.4g}/min)")
    if top and len(rates) > top:
        lines.append(f"  ... {len(rates) - top} more (use --top 0 or --json for all)")
    if stats.selectivities:
        lines.append("selectivities:")
        for k, s in sorted(stats.selectivities.items()):
            lines.append(f"  {k:<12} {s:.6g}")
    return "\n".join(lines)
