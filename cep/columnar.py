"""Events as columns: the input format of the evaluators' hot loop, and a fast NASDAQ text decoder.

An :class:`EventColumns` holds a stream as arrays -- an event-type code and a timestamp per event,
plus attribute columns -- instead of one :class:`cep.events.Event` object per event.  Positions are
the row numbers ``0..n-1``, exactly as in :class:`cep.events.EventStream`.  Every experiment stream is
built as columns (read, replayed, generated, reshuffled: :mod:`experiments.data`); a column may be a
:class:`Gather` of another stream's column (a replayed event carries its real event's values), read
only when a consumer asks for it, so a stream holds codes, timestamps and the attributes its
patterns read.  :meth:`EventColumns.to_events` is the one conversion to event objects, for the
consumers that still take them.

:func:`read_nasdaq_text_columns` decodes the eoddata minute format (``TICKER,YYYYMMDDhhmm,open,high,
low,close,volume``) with pyarrow's CSV reader and numpy, about ten times faster than a row-by-row
reader, and gives exactly the events of ``experiments.data.readers.read_nasdaq_text`` (same types,
timestamps as UTC epoch seconds, attributes ``open high low close volume diff`` with ``diff`` the
change of ``close`` since the same ticker's previous record).  When the fast path meets anything it
does not accept, the file is re-read row by row so that the error names the file, the row and the
field, in the same words as the row-by-row reader.
"""

from __future__ import annotations

import json
import math
from calendar import timegm
from pathlib import Path
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Mapping, Sequence

import numpy as np

from cep.errors import StreamError
from cep.events import Event, EventStream

NASDAQ_COLUMNS = ("ticker", "timestamp", "open", "high", "low", "close", "volume")
STOCK_ATTRIBUTES = ("open", "high", "low", "close", "volume", "diff")


@dataclass(frozen=True)
class Gather:
    """An attribute column that is ``values[index]``: the rows of another stream's column (a replay's
    events carry their real events' values, a subset its stream's), gathered only when read."""

    values: np.ndarray
    index: np.ndarray

    def __len__(self) -> int:
        return len(self.index)

    def take(self, rows) -> "Gather":
        return Gather(self.values, self.index[rows])

    def read(self, rows=None) -> np.ndarray:
        return self.values[self.index if rows is None else self.index[rows]]


class EventColumns:
    """A finite stream as columns.

    ``type_names[codes[i]]`` is the type of event ``i``, ``ts[i]`` its timestamp in seconds; attribute
    ``name`` of the events is ``values(name)`` (numpy) or ``column(name)`` (Python values, as the
    events held them).  A column is an array with one value per event, or a :class:`Gather` of another
    stream's column, read on demand.  ``absent`` marks, per attribute, the events that lack it (a
    stream whose types carry different attributes); an attribute no event lacks has no mask.

    The arrays are shared, not copied, between a stream and the streams made from it (:meth:`take`,
    :meth:`slice`, :meth:`recoded`): treat them as read-only.
    """

    def __init__(
        self,
        type_names: Sequence[str],
        codes,
        ts,
        *,
        columns: Mapping[str, "np.ndarray | Gather"] | None = None,
        absent: Mapping[str, np.ndarray] | None = None,
        source: str = "<memory>",
    ) -> None:
        self.type_names = list(type_names)
        self.codes = np.asarray(codes, dtype=np.int64)
        self.ts = np.asarray(ts, dtype=np.float64)
        self.source = source
        n = len(self.ts)
        if len(self.codes) != n:
            raise ValueError(f"{source}: {len(self.codes)} type codes for {n} timestamps")
        self._columns: dict[str, np.ndarray | Gather] = {}
        for name, c in (columns or {}).items():
            c = c if isinstance(c, Gather) else np.asarray(c)
            if len(c) != n:
                raise ValueError(f"{source}: column {name!r} has {len(c)} values for {n} events")
            self._columns[name] = c
        self._absent = {k: np.asarray(m, dtype=bool) for k, m in (absent or {}).items() if k in self._columns and np.any(m)}
        self._first: np.ndarray | None = None
        self._order: tuple[np.ndarray, np.ndarray] | None = None

    def __len__(self) -> int:
        return len(self.ts)

    def __repr__(self) -> str:
        return f"EventColumns({self.source!r}, {len(self)} events, {len(self.type_names)} types, attributes {list(self._columns)})"

    @property
    def attributes(self) -> tuple[str, ...]:
        return tuple(self._columns)

    @property
    def nbytes(self) -> int:
        """Bytes of the arrays the stream holds: codes, timestamps, attribute columns, the values and
        indexes of gathered columns (each array counted once, however many columns share it)."""
        return self.nbytes_excluding(())

    def nbytes_excluding(self, shared: Iterable[np.ndarray]) -> int:
        """:attr:`nbytes` without the arrays ``shared`` (e.g. the real columns a replay gathers from)."""
        arrays = [self.codes, self.ts, *self._absent.values()]
        for c in self._columns.values():
            arrays += [c.values, c.index] if isinstance(c, Gather) else [c]
        skip = {id(a) for a in shared}
        return sum({id(a): a.nbytes for a in arrays if id(a) not in skip}.values())

    # ---- construction ----------------------------------------------------------------------
    @classmethod
    def from_events(cls, events: Iterable[Event], source: str | None = None) -> "EventColumns":
        """Columns of a sequence of events (positions are the order of iteration); each attribute
        column keeps the events' values exactly (float, int or bool arrays when every event's value
        has that type, an object array otherwise).

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
        names = list(getattr(events, "attributes", ()) or ())
        for e in evs:
            names += [a for a in e.attrs if a not in names]
        columns, absent = {}, {}
        for name in dict.fromkeys(names):
            vals = [e.attrs.get(name, _ABSENT) for e in evs]
            missing = np.fromiter((v is _ABSENT for v in vals), dtype=bool, count=len(vals))
            columns[name] = exact_array([None if v is _ABSENT else v for v in vals] if missing.any() else vals, missing)
            absent[name] = missing
        return cls(list(codes_of), codes, ts, columns=columns, absent=absent, source=src)

    def take(self, rows, *, ts=None, source: str | None = None) -> "EventColumns":
        """The events at ``rows`` (an index array, in stream order, or a slice) as a stream of their own,
        positions from 0; ``ts`` gives them new timestamps.  Columns are shared: a gathered column
        gathers through, an array column becomes a :class:`Gather` of it (a slice: a view)."""
        rows = rows if isinstance(rows, slice) else np.asarray(rows, dtype=np.int64)
        columns = {k: (c.take(rows) if isinstance(c, Gather) else c[rows] if isinstance(rows, slice) else Gather(c, rows))
                   for k, c in self._columns.items()}
        return EventColumns(self.type_names, self.codes[rows], self.ts[rows] if ts is None else ts, columns=columns,
                            absent={k: m[rows] for k, m in self._absent.items()}, source=source or self.source)

    def materialized(self, names: Iterable[str]) -> "EventColumns":
        """The same events with the gathered columns ``names`` read into arrays of their own (what a
        consumer reading them whole holds)."""
        columns = {k: (c.read() if isinstance(c, Gather) and k in set(names) else c) for k, c in self._columns.items()}
        return EventColumns(self.type_names, self.codes, self.ts, columns=columns, absent=self._absent, source=self.source)

    def slice(self, a: int, b: int, source: str | None = None) -> "EventColumns":
        """The events ``[a, b)`` (views of this stream's arrays)."""
        return self.take(slice(a, b), source=source)

    def select_types(self, types: Iterable[str], source: str | None = None) -> "EventColumns":
        """The events of ``types``, in stream order."""
        return self.take(self.rows_of_types(types), source=source)

    def recoded(self, codes, type_names: Sequence[str] | None = None, source: str | None = None) -> "EventColumns":
        """The same events with other type codes (of ``type_names``, default this stream's), every
        column shared."""
        return EventColumns(self.type_names if type_names is None else type_names, codes, self.ts, columns=self._columns,
                            absent=self._absent, source=source or self.source)

    # ---- types -------------------------------------------------------------------------------
    def code_of(self, types: Iterable[str]) -> np.ndarray:
        """The codes of ``types`` (types the stream does not know are left out)."""
        index = {t: i for i, t in enumerate(self.type_names)}
        return np.asarray([index[t] for t in types if t in index], dtype=np.int64)

    def rows_of_types(self, types: Iterable[str]) -> np.ndarray:
        """The positions of the events of ``types``, in stream order."""
        wanted = np.zeros(max(len(self.type_names), 1), dtype=bool)
        wanted[self.code_of(types)] = True
        return np.flatnonzero(wanted[self.codes]) if len(self) else np.zeros(0, np.int64)

    def type_per_event(self) -> np.ndarray:
        """The type name of every event (object array)."""
        return np.asarray(self.type_names, dtype=object)[self.codes] if len(self.type_names) else np.empty(0, object)

    def _first_positions(self) -> np.ndarray:
        """Per code, the position of its first event (``len(self)`` for a code with none), scanning
        the stream in blocks until every code present has been met."""
        if self._first is None:
            n, k = len(self), len(self.type_names)
            first = np.full(k, n, dtype=np.int64)
            todo = int((np.bincount(self.codes, minlength=k) > 0).sum()) if n else 0
            a, block = 0, 1 << 14
            while todo and a < n:
                u, i = np.unique(self.codes[a:a + block], return_index=True)
                new = first[u] == n
                first[u[new]] = a + i[new]
                todo -= int(new.sum())
                a += block
                block = min(block * 4, 1 << 22)
            self._first = first
        return self._first

    @property
    def types(self) -> list[str]:
        """The event types in order of first appearance (as :attr:`EventStream.types`)."""
        first = self._first_positions()
        present = np.flatnonzero(first < len(self))
        return [self.type_names[c] for c in present[np.argsort(first[present], kind="stable")]]

    def type_counts(self) -> Counter:
        """Events per type, types in order of first appearance (as :meth:`EventStream.type_counts`)."""
        counts = np.bincount(self.codes, minlength=len(self.type_names)) if len(self) else np.zeros(len(self.type_names), np.int64)
        index = {t: i for i, t in enumerate(self.type_names)}
        return Counter({t: int(counts[index[t]]) for t in self.types})

    def positions_by_type(self) -> dict[str, np.ndarray]:
        """Every type's positions, in stream order (one stable sort of the codes, kept)."""
        if self._order is None:
            k = len(self.type_names)
            small = self.codes.astype(np.int16) if k <= np.iinfo(np.int16).max else self.codes
            order = np.argsort(small, kind="stable")
            bounds = np.concatenate(([0], np.cumsum(np.bincount(self.codes, minlength=k))))
            self._order = (order, bounds)
        order, bounds = self._order
        return {t: order[bounds[c]:bounds[c + 1]] for c, t in enumerate(self.type_names) if bounds[c + 1] > bounds[c]}

    @property
    def span_seconds(self) -> float:
        """Time between the first and the last event (0 for fewer than two events)."""
        return float(self.ts[-1] - self.ts[0]) if len(self) > 1 else 0.0

    # ---- attributes --------------------------------------------------------------------------
    def has(self, name: str) -> bool:
        return name in self._columns

    def values(self, name: str, rows=None) -> np.ndarray:
        """Attribute ``name`` of the events at ``rows`` (all events by default) as a numpy array.

        Raises :class:`StreamError` naming the first such event that lacks the attribute."""
        if name not in self._columns:
            raise StreamError(
                f"{self.source}: no attribute {name!r}; the events have {', '.join(self._columns) or 'none'}"
            )
        idx = None if rows is None else (rows if isinstance(rows, slice) else np.asarray(rows, dtype=np.int64))
        absent = self._absent.get(name)
        if absent is not None:
            miss = np.flatnonzero(absent if idx is None else absent[idx])
            if len(miss):
                i = int(miss[0]) if idx is None else int(np.arange(len(self))[idx][miss[0]])
                has = [a for a, c in self._columns.items() if not (a in self._absent and self._absent[a][i])]
                raise StreamError(
                    f"{self.source}: event {i} (type {self.type_names[self.codes[i]]!r}) has no attribute {name!r}; "
                    f"it has {', '.join(has) or 'none'}"
                )
        c = self._columns[name]
        if isinstance(c, Gather):
            return c.read(idx)
        return c if idx is None else c[idx]

    def array(self, name: str) -> np.ndarray:
        """Attribute ``name`` of every event as one array, events that lack it included (they hold 0,
        or None in an object array: see :meth:`absent_masks`)."""
        c = self._columns[name]
        return c.read() if isinstance(c, Gather) else c

    def absent_masks(self) -> dict[str, np.ndarray]:
        """Per attribute some events lack: which ones."""
        return dict(self._absent)

    def column(self, name: str, rows=None) -> list:
        """Attribute ``name`` of the events at ``rows`` (all events by default), as a Python list of
        the values the events hold (see :meth:`values` for the errors)."""
        return self.values(name, rows).tolist()

    def column_or_none(self, name: str) -> list:
        """Attribute ``name`` of every event, ``None`` where an event lacks it (``attrs.get``)."""
        if name not in self._columns:
            return [None] * len(self)
        vals = self.array(name).tolist()
        absent = self._absent.get(name)
        if absent is not None:
            for i in np.flatnonzero(absent).tolist():
                vals[i] = None
        return vals

    # ---- objects -----------------------------------------------------------------------------
    def to_events(self) -> list[Event]:
        """One :class:`Event` per row, positions set: the conversion for consumers that still take
        event objects (the brute-force matcher, the multi-pattern, trend and NEXT engines, tests)."""
        names = list(self._columns)
        cols = [self.column_or_none(c) for c in names]
        absent = [self._absent.get(c) for c in names]
        types = self.type_per_event().tolist()
        out = []
        for i, t in enumerate(self.ts.tolist()):
            attrs = {c: col[i] for c, col, miss in zip(names, cols, absent) if miss is None or not miss[i]}
            out.append(Event(types[i], t, attrs, i))
        return out

    def to_stream(self) -> EventStream:
        return EventStream(self.to_events(), self.source, self.attributes)


_ABSENT = object()


def save_columns(cols: EventColumns, folder: str | Path) -> Path:
    """Write ``cols`` to ``folder`` as one ``.npy`` file per array (an array shared by several columns,
    as a replay's real columns, once) and ``columns.json``; :func:`load_columns` maps them back."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[int, str] = {}

    def put(a: np.ndarray) -> str:
        if id(a) not in files:
            files[id(a)] = f"a{len(files)}.npy"
            np.save(folder / files[id(a)], a, allow_pickle=a.dtype == object)
        return files[id(a)]

    meta = {
        "type_names": cols.type_names, "source": cols.source, "codes": put(cols.codes), "ts": put(cols.ts),
        "columns": {k: ({"values": put(c.values), "index": put(c.index)} if isinstance(c, Gather) else {"values": put(c)})
                    for k, c in cols._columns.items()},
        "absent": {k: put(m) for k, m in cols._absent.items()},
    }
    (folder / "columns.json").write_text(json.dumps(meta))
    return folder


def load_columns(folder: str | Path) -> EventColumns:
    """The stream :func:`save_columns` wrote, its numeric arrays memory-mapped (read-only, shared with
    every process that maps them).  A folder that is not such a stream, or whose files were damaged, is a
    one-line :class:`StreamError` naming the file."""
    folder = Path(folder)
    index = folder / "columns.json"
    try:
        meta = json.loads(index.read_text())
        arrays = {"codes": meta["codes"], "ts": meta["ts"], "type_names": meta["type_names"], "source": meta["source"],
                  "columns": dict(meta["columns"]), "absent": dict(meta["absent"])}
        if not all(isinstance(c, dict) and "values" in c for c in arrays["columns"].values()):
            raise ValueError("a column without its values")
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as e:
        raise StreamError(f"{index}: not the index of saved columns ({_reason(e)})") from None
    loaded: dict[str, np.ndarray] = {}

    def get(name: str) -> np.ndarray:
        if name not in loaded:
            loaded[name] = _load_array(folder, name)
        return loaded[name]

    columns = {k: (Gather(get(c["values"]), get(c["index"])) if "index" in c else get(c["values"])) for k, c in arrays["columns"].items()}
    try:
        cols = EventColumns(arrays["type_names"], get(arrays["codes"]), get(arrays["ts"]), columns=columns,
                            absent={k: get(v) for k, v in arrays["absent"].items()}, source=str(arrays["source"]))
    except (ValueError, TypeError) as e:
        raise StreamError(f"{index}: the saved columns do not fit together ({_reason(e)})") from None
    if len(cols) and not (0 <= int(cols.codes.min()) and int(cols.codes.max()) < len(cols.type_names)):
        raise StreamError(f"{index}: type codes outside the {len(cols.type_names)} type names")
    return cols


def _load_array(folder: Path, name) -> np.ndarray:
    """One saved array: memory-mapped, or read whole when its header says it holds Python objects (as
    :func:`save_columns` writes the columns of strings); a damaged file is a one-line StreamError."""
    path = folder / str(name)
    if not isinstance(name, str) or Path(name).name != name:
        raise StreamError(f"{folder / 'columns.json'}: {name!r} is not the name of a saved array")
    try:
        with path.open("rb") as f:
            version = np.lib.format.read_magic(f)
            header = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}.get(version)
            dtype = header(f)[2] if header else None
        if dtype is not None and dtype.hasobject:
            return np.load(path, allow_pickle=True)
        return np.load(path, mmap_mode="r")
    except Exception as e:  # noqa: BLE001 - whatever a damaged file raises (numpy, pickle, the OS) is one line
        raise StreamError(f"{path}: not a saved array ({_reason(e)})") from None


def _reason(e: BaseException) -> str:
    return " ".join(f"{type(e).__name__}: {e}".split())[:200]


def exact_array(values: list, absent: np.ndarray | None = None) -> np.ndarray:
    """A numpy array whose ``tolist()`` gives back exactly ``values``: float64 when every value is a
    Python float, int64 when every one is a Python int in range, bool when every one is a bool, an
    object array otherwise (strings, mixed types).  Positions marked ``absent`` are ignored (and
    hold 0, or None in an object array)."""
    present = values if absent is None or not absent.any() else [v for v, m in zip(values, absent.tolist()) if not m]
    kinds = {type(v) for v in present}
    fill = {float: 0.0, int: 0, bool: False}
    if len(kinds) == 1 and (kind := next(iter(kinds))) in fill:
        vals = values if absent is None or not absent.any() else [fill[kind] if m else v for v, m in zip(values, absent.tolist())]
        if kind is not int or all(-(2**63) <= v < 2**63 for v in present):
            return np.asarray(vals, dtype={float: np.float64, int: np.int64, bool: bool}[kind])
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


# ---------------------------------------------------------------------------------------------
# NASDAQ minute text
# ---------------------------------------------------------------------------------------------
def read_nasdaq_text_columns(path: str | Path) -> EventColumns:
    """Decode a NASDAQ minute text file into columns (see the module docstring)."""
    p = events_file(path)
    try:
        cols = _fast_nasdaq(p)
    except _FastPathRefused:
        cols = None
    if cols is None:
        cols = _slow_nasdaq(p)  # raises the precise error, or decodes what the fast path refused
    return cols


def events_file(path: str | Path) -> Path:
    """``path`` as an events file to read: a one-line StreamError if there is none or it is a folder."""
    p = Path(path)
    if not p.exists():
        raise StreamError(f"{p}: no such events file")
    if p.is_dir():
        raise StreamError(f"{p}: a folder, not an events file")
    return p


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
    columns["diff"] = diff_by_type(columns["close"], codes)
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


def diff_by_type(close: np.ndarray, codes: np.ndarray) -> np.ndarray:
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
    return nasdaq_columns(nasdaq_rows(p), str(p))


def nasdaq_columns(rows: Iterable[tuple[str, float, Sequence[float]]], source: str) -> EventColumns:
    """The columns of decoded NASDAQ rows ``(ticker, timestamp, values)`` (:func:`nasdaq_rows`), with
    ``diff`` the change of ``close`` since the ticker's previous row among them."""
    names: dict[str, int] = {}
    codes: list[int] = []
    tss: list[float] = []
    vals: list[list[float]] = [[] for _ in NASDAQ_COLUMNS[2:]]
    for ticker, ts, values in rows:
        for k, v in enumerate(values):
            vals[k].append(v)
        codes.append(names.setdefault(ticker, len(names)))
        tss.append(ts)
    code_arr = np.asarray(codes, dtype=np.int64)
    columns = {c: np.asarray(v, dtype=np.float64) for c, v in zip(NASDAQ_COLUMNS[2:], vals)}
    columns["diff"] = diff_by_type(columns["close"], code_arr)
    return EventColumns(list(names), code_arr, np.asarray(tss, dtype=np.float64), columns=columns, source=source)
