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

