"""Events as columns: the input format of the evaluators' hot loop, and a fast NASDAQ text decoder.

An :class:`EventColumns` holds a stream as arrays -- an event-type code and a timestamp per event,
plus attribute columns -- instead of one :class:`cep.events.Event` object per event.  Positions are
the row numbers ``0..n-1``, exactly as in :class:`cep.events.EventStream`.  Attribute columns are
built on demand (``column``), so a stream of ``Event`` objects converts in one pass over types and
timestamps and only the attributes a pattern mentions are ever extracted.

:func:`read_nasdaq_text_columns` decodes the eoddata minute format (``TICKER,YYYYMMDDhhmm,open,high,
low,close,volume``) with pyarrow's CSV reader and numpy, about ten times faster than a row-by-row
reader, and gives exactly the events of ``experiments.data.readers.read_nasdaq_text`` (same types,
timestamps as UTC epoch seconds, attributes ``open high low close volume diff`` with ``diff`` the
change of ``close`` since the same ticker's previous record).  When the fast path meets anything it
does not accept, the file is re-read row by row so that the error names the file, the row and the
field, in the same words as the row-by-row reader.
"""

from __future__ import annotations

import math
from calendar import timegm
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

import numpy as np

from cep.errors import StreamError
from cep.events import Event, EventStream

NASDAQ_COLUMNS = ("ticker", "timestamp", "open", "high", "low", "close", "volume")
STOCK_ATTRIBUTES = ("open", "high", "low", "close", "volume", "diff")


class EventColumns:
    """A finite stream as columns.

    ``type_names[codes[i]]`` is the type of event ``i``, ``ts[i]`` its timestamp in seconds; attribute
    columns come from ``column(name)``.  Either ``columns`` (numpy arrays, one value per event) or
    ``events`` (the :class:`Event` objects, from which columns are extracted on demand) backs them.
    """

    def __init__(
        self,
        type_names: Sequence[str],
        codes: np.ndarray,
        ts: np.ndarray,
        *,
        columns: dict[str, np.ndarray] | None = None,
        events: Sequence[Event] | None = None,
        source: str = "<memory>",
    ) -> None:
        self.type_names = list(type_names)
        self.codes = np.asarray(codes, dtype=np.int64)
        self.ts = np.asarray(ts, dtype=np.float64)
        self._columns = dict(columns or {})
        self._events = events
        self.source = source

    def __len__(self) -> int:
        return len(self.ts)

    @property
    def attributes(self) -> tuple[str, ...]:
        if self._events is not None:
            return tuple(self._events[0].attrs) if len(self._events) else ()
        return tuple(self._columns)

    # ---- construction ----------------------------------------------------------------------
    @classmethod
    def from_events(cls, events: Iterable[Event], source: str | None = None) -> "EventColumns":
        """Columns of a sequence of events (positions are the order of iteration).

        Raises :class:`StreamError` naming the event if a timestamp goes backwards."""
        evs = events.events if isinstance(events, EventStream) else list(events)
        src = source or getattr(events, "source", "<memory>")
        codes_of: dict[str, int] = {}
        codes = np.fromiter((codes_of.setdefault(e.type, len(codes_of)) for e in evs), dtype=np.int64, count=len(evs))
        ts = np.fromiter((e.ts for e in evs), dtype=np.float64, count=len(evs))
        back = np.flatnonzero(np.diff(ts) < 0)
        if len(back):
            i = int(back[0]) + 1
            raise StreamError(
                f"{src}: event {i} (type {evs[i].type!r}) has timestamp {evs[i].ts} earlier than the previous "
                f"event's {evs[i - 1].ts}: timestamps must not go backwards"
            )
        return cls(list(codes_of), codes, ts, events=evs, source=src)

    # ---- access ----------------------------------------------------------------------------
    def types(self) -> np.ndarray:
        """The type name of every event (object array)."""
        return np.asarray(self.type_names, dtype=object)[self.codes] if len(self.type_names) else np.empty(0, object)

    def column(self, name: str, rows: np.ndarray | None = None) -> list:
        """Attribute ``name`` of the events at ``rows`` (all events by default), as a Python list.

        Raises :class:`StreamError` naming the first event that lacks the attribute."""
        idx = np.arange(len(self)) if rows is None else rows
        if self._events is not None:
            evs = self._events
            try:
                return [evs[i].attrs[name] for i in idx.tolist()]
            except KeyError:
                for i in idx.tolist():
                    if name not in evs[i].attrs:
                        raise StreamError(
                            f"{self.source}: event {i} (type {evs[i].type!r}) has no attribute {name!r}; "
                            f"it has {', '.join(evs[i].attrs) or 'none'}"
                        ) from None
                raise
        if name not in self._columns:
            raise StreamError(
                f"{self.source}: no attribute {name!r}; the events have {', '.join(self._columns) or 'none'}"
            )
        return self._columns[name][idx].tolist()

    def array(self, name: str, rows: np.ndarray | None = None) -> np.ndarray:
        """Attribute ``name`` of the events at ``rows`` as a numpy array (the evaluators read their
        columns this way, without a Python object per value); errors as :meth:`column`."""
        if self._events is not None:
            return np.asarray(self.column(name, rows), dtype=object)
        if name not in self._columns:
            self.column(name, rows)  # raises the StreamError naming the attribute
        col = self._columns[name]
        return col if rows is None else col[rows]

    def column_or_none(self, name: str) -> list:
        """Attribute ``name`` of every event, ``None`` where an event lacks it (``attrs.get``)."""
        if self._events is not None:
            return [e.attrs.get(name) for e in self._events]
        if name not in self._columns:
            return [None] * len(self)
        return self._columns[name].tolist()

    def to_events(self) -> list[Event]:
        """One :class:`Event` per row, positions set (for the brute-force matcher and tests)."""
        if self._events is not None:
            return [Event(e.type, e.ts, e.attrs, i) for i, e in enumerate(self._events)]
        names = list(self._columns)
        cols = [self._columns[c].tolist() for c in names]
        types = self.types().tolist()
        return [
            Event(types[i], t, {c: col[i] for c, col in zip(names, cols)}, i) for i, t in enumerate(self.ts.tolist())
        ]

    def to_stream(self) -> EventStream:
        return EventStream(self.to_events(), self.source, self.attributes)


# ---------------------------------------------------------------------------------------------
# NASDAQ minute text
# ---------------------------------------------------------------------------------------------
def read_nasdaq_text_columns(path: str | Path) -> EventColumns:
    """Decode a NASDAQ minute text file into columns (see the module docstring)."""
    p = Path(path)
    if not p.exists():
        raise StreamError(f"{p}: no such events file")
    try:
        cols = _fast_nasdaq(p)
    except _FastPathRefused:
        cols = None
    if cols is None:
        cols = _slow_nasdaq(p)  # raises the precise error, or decodes what the fast path refused
    return cols


class _FastPathRefused(Exception):
    pass


def _fast_nasdaq(p: Path) -> EventColumns:
    import pyarrow as pa
    import pyarrow.csv as pcsv

    types = {
        "ticker": pa.dictionary(pa.int32(), pa.string()),
        "timestamp": pa.int64(),
        **{c: pa.float64() for c in NASDAQ_COLUMNS[2:]},
    }
    try:
        table = pcsv.read_csv(
            p,
            read_options=pcsv.ReadOptions(column_names=list(NASDAQ_COLUMNS), use_threads=False),
            parse_options=pcsv.ParseOptions(newlines_in_values=False),
            convert_options=pcsv.ConvertOptions(column_types=types, strings_can_be_null=False, quoted_strings_can_be_null=False),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, UnicodeDecodeError):
        raise _FastPathRefused from None
    n = table.num_rows
    if n == 0:
        return EventColumns([], np.zeros(0, np.int64), np.zeros(0), columns={c: np.zeros(0) for c in STOCK_ATTRIBUTES}, source=str(p))
    if any(table.column(c).null_count for c in table.column_names):
        raise _FastPathRefused
    ticker = table.column("ticker").combine_chunks()
    names = ticker.dictionary.to_pylist()
    if any((not t) or t != t.strip() for t in names):
        raise _FastPathRefused
    codes = ticker.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    stamp = table.column("timestamp").to_numpy()
    ts = _minute_stamps_to_epoch(stamp)
    if ts is None or (n > 1 and bool((np.diff(ts) < 0).any())):
        raise _FastPathRefused
    columns = {c: table.column(c).to_numpy() for c in NASDAQ_COLUMNS[2:]}
    if not all(np.isfinite(v).all() for v in columns.values()):
        raise _FastPathRefused
    columns["diff"] = _diff_by_type(columns["close"], codes)
    return EventColumns(names, codes, ts, columns=columns, source=str(p))


def _minute_stamps_to_epoch(stamp: np.ndarray) -> np.ndarray | None:
    """YYYYMMDDhhmm integers to UTC epoch seconds (calendar.timegm's arithmetic, vectorized);
    None if any value is not a valid 12-digit stamp."""
    if len(stamp) and (stamp.min() < 100_000_000_000 or stamp.max() > 999_999_999_999):
        return None
    mi = stamp % 100
    h = (stamp // 100) % 100
    d = (stamp // 10_000) % 100
    mo = (stamp // 1_000_000) % 100
    y = stamp // 100_000_000
    if not ((1 <= mo) & (mo <= 12) & (1 <= d) & (d <= 31) & (h < 24) & (mi < 60)).all():
        return None
    # days since 1970-01-01 of (y, mo, d), day overflow carried linearly as timegm does
    y2 = y - (mo <= 2)
    era = y2 // 400
    yoe = y2 - era * 400
    doy = (153 * (mo + np.where(mo > 2, -3, 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    days = era * 146_097 + doe - 719_468
    return (days * 86_400 + h * 3_600 + mi * 60).astype(np.float64)


def _diff_by_type(close: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """``close`` minus the same type's previous ``close`` (0 for a type's first event)."""
    order = np.argsort(codes, kind="stable")
    c = close[order]
    k = codes[order]
    d = np.zeros_like(c)
    if len(c) > 1:
        d[1:] = c[1:] - c[:-1]
        d[1:][k[1:] != k[:-1]] = 0.0
    out = np.empty_like(d)
    out[order] = d
    return out


def decode_nasdaq_row(row: Sequence[str]) -> tuple[str, float, list[float]]:
    """One ``TICKER,YYYYMMDDhhmm,open,high,low,close,volume`` row -> (ticker, epoch seconds, the five
    numbers); a bad row raises ValueError naming the field (the message both NASDAQ readers use)."""
    if len(row) != 7:
        raise ValueError(f"expected 7 fields (ticker,YYYYMMDDhhmm,open,high,low,close,volume), found {len(row)}")
    ticker = row[0].strip()
    if not ticker:
        raise ValueError("field ticker: empty")
    s = row[1].strip()
    ok = len(s) == 12 and s.isdigit()
    if ok:
        y, mo, d, h, mi = int(s[:4]), int(s[4:6]), int(s[6:8]), int(s[8:10]), int(s[10:12])
        ok = 1 <= mo <= 12 and 1 <= d <= 31 and h < 24 and mi < 60
    if not ok:
        raise ValueError(f"field timestamp: {row[1]!r} is not YYYYMMDDhhmm")
    values = []
    for name, text in zip(NASDAQ_COLUMNS[2:], row[2:]):
        try:
            v = float(text)
        except ValueError:
            raise ValueError(f"field {name}: {text!r} is not a number") from None
        if not math.isfinite(v):
            raise ValueError(f"field {name}: {text!r} is not a finite number")
        values.append(v)
    return ticker, float(timegm((y, mo, d, h, mi, 0, 0, 0, 0))), values


def nasdaq_rows(path: Path, skip: Callable[[str], None] | None = None) -> Iterator[tuple[str, float, tuple]]:
    """The decoded rows of an eoddata minute file, in order: ``(ticker, timestamp, values)``.

    A row that does not decode, or whose timestamp goes backwards, raises a :class:`StreamError`
    naming the file, the row and the field -- or, with ``skip``, is handed to ``skip(message)`` and
    left out.  Blank lines are ignored.  The one row loop of both NASDAQ text readers."""
    import csv

    p = Path(path)
    last = -math.inf
    try:
        f = p.open(newline="")
    except OSError as e:
        raise StreamError(f"{p}: cannot read events file ({e.strerror})") from None
    with f:
        try:
            for rowno, row in enumerate(csv.reader(f), start=1):
                if not row or (len(row) == 1 and not row[0].strip()):
                    continue
                try:
                    ticker, ts, values = decode_nasdaq_row(row)
                    if ts < last:
                        raise ValueError(f"field timestamp: {row[1]} is earlier than the previous row's; timestamps must not go backwards")
                except ValueError as e:
                    msg = f"{p}: row {rowno}: {e}"
                    if skip is None:
                        raise StreamError(msg) from None
                    skip(msg)
                    continue
                last = ts
                yield ticker, ts, values
        except UnicodeDecodeError as e:
            raise StreamError(f"{p}: not a text file ({e.reason})") from None
        except csv.Error as e:
            raise StreamError(f"{p}: cannot parse CSV ({e})") from None


def _slow_nasdaq(p: Path) -> EventColumns:
    """Row-by-row decoding with the row-by-row reader's error messages (file, row, field)."""
    names: dict[str, int] = {}
    codes: list[int] = []
    tss: list[float] = []
    vals: list[list[float]] = [[] for _ in NASDAQ_COLUMNS[2:]]
    for ticker, ts, values in nasdaq_rows(p):
        for k, v in enumerate(values):
            vals[k].append(v)
        codes.append(names.setdefault(ticker, len(names)))
        tss.append(ts)
    code_arr = np.asarray(codes, dtype=np.int64)
    columns = {c: np.asarray(v, dtype=np.float64) for c, v in zip(NASDAQ_COLUMNS[2:], vals)}
    columns["diff"] = _diff_by_type(columns["close"], code_arr)
    return EventColumns(list(names), code_arr, np.asarray(tss, dtype=np.float64), columns=columns, source=str(p))
