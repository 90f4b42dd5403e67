"""Readers of real event data into :class:`cep.columnar.EventColumns` (columns, no event objects).

Formats
  * NASDAQ minute text (eoddata style, as in OpenCEP's test files): headerless CSV rows
    ``TICKER,YYYYMMDDhhmm,open,high,low,close,volume``.  One event type per ticker.
  * NASDAQ 5-minute Parquet (columns ``ticker, ts, open, high, low, close, volume``).
  * Aarhus traffic Parquet (columns ``report_id, ts, avg_speed, vehicle_count, ...``): one event type
    per observation point (the report id as a string).
  * Generic CSV or Parquet with a type column and a timestamp column (names configurable); every
    other column becomes an attribute.

Derived attributes, as the papers augment the stock stream (JQPG Section 6.2: "the precalculated
difference between the current and the previous price of each stock"):
  * stocks: ``diff`` = ``close`` minus the same ticker's previous ``close`` (0 for its first record);
  * traffic: ``avg_speed_diff`` and ``vehicle_count_diff`` = change from the same observation point's
    previous observation (0 for the first), and ``diff`` = ``avg_speed_diff`` so that workloads written
    for stocks run unchanged.
Timestamps become float seconds since the Unix epoch (naive times are read as UTC).

Streams come out in timestamp order.  A malformed row or a timestamp earlier than the previous one
raises :class:`cep.StreamError` naming the file, the row (1-based, as an editor shows it) and the
field.  With ``skip_bad_rows=True`` such rows are skipped and counted in :class:`ReadReport`, which
callers print; nothing is dropped silently.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from cep.columnar import EventColumns, diff_by_type, events_file, exact_array, nasdaq_columns, nasdaq_rows, read_nasdaq_text_columns
from cep.errors import StreamError

NASDAQ_FIELDS = ("ticker", "timestamp", "open", "high", "low", "close", "volume")
STOCK_ATTRIBUTES = ("open", "high", "low", "close", "volume", "diff")
TRAFFIC_ATTRIBUTES = ("avg_speed", "vehicle_count", "avg_speed_diff", "vehicle_count_diff", "diff")


@dataclass
class ReadReport:
    """What a reader skipped (only with ``skip_bad_rows=True``)."""

    source: str
    rows_read: int = 0
    skipped: int = 0
    examples: list[str] = field(default_factory=list)

    def skip(self, message: str) -> None:
        self.skipped += 1
        if len(self.examples) < 5:
            self.examples.append(message)

    def summary(self) -> str:
        if not self.skipped:
            return f"{self.source}: {self.rows_read} rows read, none skipped"
        return (
            f"{self.source}: skipped {self.skipped} bad row(s) of {self.rows_read}; first: "
            + "; ".join(self.examples)
        )


# ---------------------------------------------------------------------------------------------
# NASDAQ minute text
# ---------------------------------------------------------------------------------------------
def read_nasdaq_text(
    path: str | Path,
    *,
    skip_bad_rows: bool = False,
    types: Iterable[str] | None = None,
    report: ReadReport | None = None,
) -> EventColumns:
    """Read the eoddata-style minute format (``TICKER,YYYYMMDDhhmm,open,high,low,close,volume``)."""
    p = events_file(path)
    report = report if report is not None else ReadReport(str(p))
    if not skip_bad_rows and types is None:
        cols = read_nasdaq_text_columns(p)
        report.rows_read += len(cols)
        return cols
    keep = set(types) if types is not None else None

    def skip(message: str) -> None:
        report.rows_read += 1
        report.skip(message)

    def rows():
        for ticker, ts, values in nasdaq_rows(p, skip if skip_bad_rows else None):
            report.rows_read += 1
            if keep is None or ticker in keep:
                yield ticker, ts, values

    return nasdaq_columns(rows(), str(p))


# ---------------------------------------------------------------------------------------------
# Parquet helpers
# ---------------------------------------------------------------------------------------------
def _ts_seconds(col: pa.ChunkedArray | pa.Array, source: str, name: str) -> np.ndarray:
    t = col.type
    if pa.types.is_timestamp(t):
        unit = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}[t.unit]
        ints = pc.cast(col, pa.int64()).to_numpy(zero_copy_only=False)
        return ints.astype(np.float64) * unit
    if pa.types.is_integer(t) or pa.types.is_floating(t):
        return np.asarray(col.to_numpy(zero_copy_only=False), dtype=np.float64)
    if pa.types.is_string(t) or pa.types.is_large_string(t):

        s = pd.Series(col.to_pylist())
        parsed = pd.to_datetime(s, errors="coerce", utc=True)
        bad = parsed.isna() & s.notna()
        if bad.any():
            i = int(np.flatnonzero(bad.to_numpy())[0])
            raise StreamError(f"{source}: row {i + 1}: field {name}: {s.iloc[i]!r} is not a timestamp")
        return parsed.astype("int64").to_numpy().astype(np.float64) / 1e9
    raise StreamError(f"{source}: field {name}: type {t} is not a timestamp or a number")


def _check_order(ts: np.ndarray, source: str, name: str, skip_bad_rows: bool, report: ReadReport) -> np.ndarray:
    """Indices of rows to keep; raises on a timestamp that goes backwards (or skips it)."""
    if len(ts) == 0:
        return np.arange(0)
    if np.isnan(ts).any():
        i = int(np.flatnonzero(np.isnan(ts))[0])
        if not skip_bad_rows:
            raise StreamError(f"{source}: row {i + 1}: field {name}: missing timestamp")
    back = np.flatnonzero(np.diff(ts) < 0)
    if len(back) == 0 and not np.isnan(ts).any():
        return np.arange(len(ts))
    if not skip_bad_rows:
        i = int(back[0]) + 1
        raise StreamError(
            f"{source}: row {i + 1}: field {name}: timestamp {ts[i]} is earlier than the previous row's {ts[i - 1]}; "
            "timestamps must not go backwards"
        )
    keep = []
    last = -math.inf
    for i, t in enumerate(ts):
        if np.isnan(t) or t < last:
            report.skip(f"{source}: row {i + 1}: field {name}: missing or backwards timestamp")
            continue
        last = t
        keep.append(i)
    return np.asarray(keep, dtype=np.int64)


def _table_columns(types: np.ndarray, ts: np.ndarray, columns: dict[str, np.ndarray], diffs: dict[str, str], source: str,
                   aliases: dict[str, str] | None = None) -> EventColumns:
    """The events' columns, types coded in order of first appearance; ``diffs`` maps a derived
    attribute to the base attribute it differences per type (0 for a type's first event), ``aliases``
    an attribute to the one whose values it shares."""

    codes, names = pd.factorize(types, sort=False)
    cols = dict(columns)
    for d, base in diffs.items():
        cols[d] = diff_by_type(columns[base], codes)
    for a, same in (aliases or {}).items():
        cols[a] = cols[same]
    return EventColumns([str(t) for t in names], codes.astype(np.int64), ts, columns=cols, source=source)


def _read_filtered(path: Path, columns: list[str], filters) -> pa.Table:
    try:
        return pq.read_table(path, columns=columns, filters=filters)
    except FileNotFoundError:
        raise StreamError(f"{path}: no such events file") from None
    except (pa.ArrowInvalid, OSError) as e:
        raise StreamError(f"{path}: cannot read Parquet ({e})") from None


def _time_filters(ts_col: str, start: float | None, end: float | None, tz: str | None):

    f = []
    if start is not None:
        f.append((ts_col, ">=", pd.Timestamp(start, unit="s", tz=tz)))
    if end is not None:
        f.append((ts_col, "<", pd.Timestamp(end, unit="s", tz=tz)))
    return f


# ---------------------------------------------------------------------------------------------
# NASDAQ 5-minute Parquet
# ---------------------------------------------------------------------------------------------
def read_nasdaq_parquet(
    path: str | Path,
    *,
    types: Iterable[str] | None = None,
    start: float | None = None,
    end: float | None = None,
    skip_bad_rows: bool = False,
    report: ReadReport | None = None,
) -> EventColumns:
    """Read the NASDAQ 5-minute Parquet; ``types`` selects tickers, ``start``/``end`` a time range (s)."""
    p = events_file(path)
    report = report if report is not None else ReadReport(str(p))
    filters = _time_filters("ts", start, end, "UTC")
    if types is not None:
        filters.append(("ticker", "in", list(types)))
    table = _read_filtered(p, ["ticker", "ts", *STOCK_ATTRIBUTES[:-1]], filters or None)
    report.rows_read += table.num_rows
    ts = _ts_seconds(table.column("ts"), str(p), "ts")
    keep = _check_order(ts, str(p), "ts", skip_bad_rows, report)
    tickers = pc.cast(table.column("ticker"), pa.string()).to_numpy(zero_copy_only=False)[keep]
    cols = {c: _numbers(table, c, keep, str(p)) for c in STOCK_ATTRIBUTES[:-1]}
    _check_finite(cols, keep, str(p), skip_bad_rows, report)
    return _table_columns(tickers, ts[keep], cols, {"diff": "close"}, str(p))


def _numbers(table: pa.Table, name: str, keep: np.ndarray, source: str) -> np.ndarray:
    """Column ``name`` of the rows ``keep`` as float64; a column that does not hold numbers is a one-line StreamError."""
    col = table.column(name)
    if not (pa.types.is_integer(col.type) or pa.types.is_floating(col.type) or pa.types.is_null(col.type)):
        raise StreamError(f"{source}: field {name}: type {col.type} is not a number")
    return np.asarray(col.to_numpy(zero_copy_only=False), dtype=np.float64)[keep]


def _check_finite(cols: dict[str, np.ndarray], keep: np.ndarray, source: str, skip: bool, report: ReadReport) -> None:
    for name, c in cols.items():
        bad = ~np.isfinite(c)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            msg = f"{source}: row {int(keep[i]) + 1}: field {name}: missing or not a finite number"
            if not skip:
                raise StreamError(msg)
            raise StreamError(msg + " (skipping rows with missing values is not supported for Parquet)")


# ---------------------------------------------------------------------------------------------
# Aarhus traffic Parquet
# ---------------------------------------------------------------------------------------------
def read_traffic_parquet(
    path: str | Path,
    *,
    types: Iterable[str] | None = None,
    start: float | None = None,
    end: float | None = None,
    skip_bad_rows: bool = False,
    report: ReadReport | None = None,
) -> EventColumns:
    """Read the Aarhus traffic Parquet; ``types`` selects report ids (as strings)."""
    p = events_file(path)
    report = report if report is not None else ReadReport(str(p))
    filters = _time_filters("ts", start, end, None)
    if types is not None:
        try:
            ids = [int(t) for t in types]
        except ValueError as e:
            raise StreamError(f"{p}: traffic event types are report ids (integers): {e}") from None
        filters.append(("report_id", "in", ids))
    table = _read_filtered(p, ["report_id", "ts", "avg_speed", "vehicle_count"], filters or None)
    report.rows_read += table.num_rows
    ts = _ts_seconds(table.column("ts"), str(p), "ts")
    keep = _check_order(ts, str(p), "ts", skip_bad_rows, report)
    ids = table.column("report_id").to_numpy(zero_copy_only=False)[keep].astype(str)
    cols = {c: _numbers(table, c, keep, str(p)) for c in ("avg_speed", "vehicle_count")}
    _check_finite(cols, keep, str(p), skip_bad_rows, report)
    return _table_columns(ids, ts[keep], cols, {"avg_speed_diff": "avg_speed", "vehicle_count_diff": "vehicle_count"}, str(p),
                          aliases={"diff": "avg_speed_diff"})


# ---------------------------------------------------------------------------------------------
# Generic CSV / Parquet
# ---------------------------------------------------------------------------------------------
def read_generic(
    path: str | Path,
    *,
    type_column: str = "type",
    ts_column: str = "ts",
    types: Iterable[str] | None = None,
    skip_bad_rows: bool = False,
    report: ReadReport | None = None,
) -> EventColumns:
    """CSV (with a header row) or Parquet with a type column and a timestamp column (seconds or
    ISO-8601 text); every other column becomes an attribute (numbers where they parse)."""

    p = events_file(path)
    report = report if report is not None else ReadReport(str(p))
    if p.suffix.lower() == ".parquet":
        df = _read_filtered(p, None, None).to_pandas()  # pyarrow refuses a column named twice
        row_offset = 1
    else:
        try:
            df = pd.read_csv(p, dtype=str, keep_default_na=False)
        except FileNotFoundError:
            raise StreamError(f"{p}: no such events file") from None
        except (pd.errors.ParserError, UnicodeDecodeError) as e:
            raise StreamError(f"{p}: cannot parse CSV ({' '.join(str(e).split())})") from None
        except pd.errors.EmptyDataError:
            raise StreamError(f"{p}: empty CSV file (a header row with {type_column!r} and {ts_column!r} is required)") from None
        row_offset = 2  # header is row 1
        _check_unique(_csv_header(p), p)
    for col in (type_column, ts_column):
        if col not in df.columns:
            raise StreamError(f"{p}: no column {col!r}; columns are {', '.join(map(str, df.columns))}")
    report.rows_read += len(df)
    attr_cols = [c for c in df.columns if c not in (type_column, ts_column)]
    etypes: list[str] = []
    stamps: list[float] = []
    values: list[list] = [[] for _ in attr_cols]
    keep = set(types) if types is not None else None
    last = -math.inf
    for i, row in enumerate(df.itertuples(index=False, name=None)):
        rec = dict(zip(df.columns, row))
        rowno = i + row_offset
        try:
            etype = str(rec[type_column]).strip()
            if not etype:
                raise ValueError(f"field {type_column}: empty")
            ts = _generic_ts(rec[ts_column], ts_column)
            attrs = [_generic_value(rec[c], c) for c in attr_cols]
        except ValueError as e:
            msg = f"{p}: row {rowno}: {e}"
            if skip_bad_rows:
                report.skip(msg)
                continue
            raise StreamError(msg) from None
        if ts < last:
            msg = f"{p}: row {rowno}: field {ts_column}: {rec[ts_column]!r} is earlier than the previous row's; timestamps must not go backwards"
            if skip_bad_rows:
                report.skip(msg)
                continue
            raise StreamError(msg)
        last = ts
        if keep is None or etype in keep:
            etypes.append(etype)
            stamps.append(ts)
            for col, v in zip(values, attrs):
                col.append(v)

    codes, names = pd.factorize(np.asarray(etypes, dtype=object), sort=False)
    return EventColumns(list(names), codes, np.asarray(stamps, dtype=np.float64),
                        columns={c: exact_array(v) for c, v in zip(attr_cols, values)}, source=str(p))


def _csv_header(p: Path) -> list[str]:
    """The column names of a CSV file's header row as written (pandas renames a repeated one ``x.1``)."""
    import csv

    with p.open(newline="", encoding="utf-8") as f:
        return next(csv.reader(f), [])


def _check_unique(names: list[str], p: Path) -> None:
    """A one-line StreamError naming a column the header holds twice (which of them would an attribute be?)."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise StreamError(f"{p}: column {name!r} appears twice in the header; give each column its own name")
        seen.add(name)


def _generic_ts(v, name: str) -> float:

    if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
        if not math.isfinite(float(v)):
            raise ValueError(f"field {name}: not a finite timestamp")
        return float(v)
    if hasattr(v, "timestamp") and not isinstance(v, str):
        return float(pd.Timestamp(v).tz_localize("UTC").timestamp() if pd.Timestamp(v).tzinfo is None else pd.Timestamp(v).timestamp())
    s = str(v).strip()
    try:
        x = float(s)
        if math.isfinite(x):
            return x
    except ValueError:
        pass
    try:
        t = pd.Timestamp(s)
    except (ValueError, TypeError):
        raise ValueError(f"field {name}: {s!r} is not a timestamp (seconds or ISO-8601)") from None
    if t is pd.NaT:
        raise ValueError(f"field {name}: missing timestamp")
    if t.tzinfo is None:
        t = t.tz_localize("UTC")
    return float(t.timestamp())


def _generic_value(v, name: str):
    if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
        return float(v)
    s = str(v).strip()
    if s == "":
        raise ValueError(f"field {name}: empty value")
    try:
        return float(s)
    except ValueError:
        return s


# ---------------------------------------------------------------------------------------------
# Dispatch
# ---------------------------------------------------------------------------------------------
def sniff_format(path: str | Path) -> str:
    """'nasdaq-text', 'nasdaq-parquet', 'traffic-parquet', 'csv' or 'parquet'."""
    p = events_file(path)
    if p.suffix.lower() == ".parquet":
        try:
            names = set(pq.read_schema(p).names)
        except (pa.ArrowInvalid, OSError) as e:
            raise StreamError(f"{p}: not a readable Parquet file ({e})") from None
        if {"ticker", "ts", "close"} <= names:
            return "nasdaq-parquet"
        if {"report_id", "ts", "avg_speed"} <= names:
            return "traffic-parquet"
        return "parquet"
    with p.open("rb") as f:
        head = f.readline(1 << 16)
    try:
        first = head.decode("utf-8").strip()
    except UnicodeDecodeError as e:
        raise StreamError(f"{p}: not a text events file: its first line is not UTF-8 ({e.reason} at byte {e.start}); "
                          "events files are CSV, NASDAQ minute text or Parquet") from None
    parts = first.split(",")
    if len(parts) == 7 and len(parts[1].strip()) == 12 and parts[1].strip().isdigit():
        return "nasdaq-text"
    return "csv"


def read_events(
    path: str | Path,
    *,
    format: str = "auto",
    types: Iterable[str] | None = None,
    start: float | None = None,
    end: float | None = None,
    type_column: str = "type",
    ts_column: str = "ts",
    skip_bad_rows: bool = False,
    report: ReadReport | None = None,
) -> EventColumns:
    """Read any supported events file (format sniffed from extension and content by default)."""
    fmt = sniff_format(path) if format == "auto" else format
    if fmt == "nasdaq-text":
        s = read_nasdaq_text(path, skip_bad_rows=skip_bad_rows, types=types, report=report)
    elif fmt == "nasdaq-parquet":
        return read_nasdaq_parquet(path, types=types, start=start, end=end, skip_bad_rows=skip_bad_rows, report=report)
    elif fmt == "traffic-parquet":
        return read_traffic_parquet(path, types=types, start=start, end=end, skip_bad_rows=skip_bad_rows, report=report)
    elif fmt in ("csv", "parquet"):
        s = read_generic(path, type_column=type_column, ts_column=ts_column, types=types, skip_bad_rows=skip_bad_rows, report=report)
    else:
        raise StreamError(f"{path}: unknown events format {fmt!r}")
    if start is not None or end is not None:
        lo = -math.inf if start is None else start
        hi = math.inf if end is None else end
        s = s.take(np.flatnonzero((s.ts >= lo) & (s.ts < hi)))
    return s
