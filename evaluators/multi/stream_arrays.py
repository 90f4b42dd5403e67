"""A stream as the arrays the compiled multi-pattern kernel reads (:mod:`evaluators.multi.kernel`).

:func:`prepare_stream` takes an :class:`~cep.columnar.EventColumns`, an :class:`~cep.events.EventStream`
or a list of events and keeps, for one workload (:class:`Vocabulary`: its event types, the attributes
its conditions read, its partition attributes), the timestamps, a type code per event (-1 for a type
no pattern uses), one float64 column per attribute (NaN where an event's type has no condition on
it), and per partition attribute a code of each event's value and its position among the events
with that value (:func:`cep.semantics.partition_positions`).  Positions are the stream's.  Text
values become order-preserving codes (:mod:`evaluators.multi.programs`).  An event of a type that
some condition reads an attribute of, but that lacks it, is a :class:`~cep.errors.StreamError`
naming the event.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Real
import numpy as np

from cep.columnar import EventColumns
from cep.errors import StreamError
from cep.events import Event, EventStream
from cep.pattern import Strategy


@dataclass(frozen=True)
class Vocabulary:
    """What a workload reads of a stream: its event types (code = position), the attributes its
    conditions read (column = position) and from which types, its partition attributes."""

    types: tuple[str, ...]
    columns: tuple[str, ...]
    needs: tuple[tuple[str, tuple[str, ...]], ...]  # (attribute, the types whose events it is read from)
    partitions: tuple[str, ...]

    @classmethod
    def of(cls, clauses) -> "Vocabulary":
        types, needs, parts = set(), {}, set()
        for sp in clauses.values():
            types.update(v.type for v in sp.variables)
            for c in sp.conditions:
                for a in c.attributes:
                    needs.setdefault(a.name, set()).add(sp.type_of(a.var))
            if sp.strategy is Strategy.PARTITION:
                parts.add(sp.partition_attribute)
        return cls(tuple(sorted(types)), tuple(sorted(needs)),
                   tuple((a, tuple(sorted(needs[a]))) for a in sorted(needs)), tuple(sorted(parts)))


@dataclass
class StreamArrays:
    """The arrays of one stream for one workload (module docstring)."""

    ts: np.ndarray
    codes: np.ndarray
    attrs: np.ndarray  # (columns, n)
    part_code: np.ndarray  # (partition attributes, n)
    part_pos: np.ndarray
    text_codes: dict[str, float]
    text_columns: frozenset[str]
    source: str = "<memory>"

    def __len__(self) -> int:
        return len(self.ts)

    def slice(self, lo: int, hi: int) -> "StreamArrays":
        """Events ``[lo, hi)`` as a stream of their own (positions from 0)."""
        return StreamArrays(self.ts[lo:hi], self.codes[lo:hi], np.ascontiguousarray(self.attrs[:, lo:hi]),
                            np.ascontiguousarray(self.part_code[:, lo:hi]), np.ascontiguousarray(self.part_pos[:, lo:hi]),
                            self.text_codes, self.text_columns, self.source)

    def kernel_tuple(self, n_types: int, consts: np.ndarray) -> tuple:
        """``(TS, TC, AT, PCODE, PPOS, TPR, TPOS, TPTS, CONSTS)``: with, per type code, the positions of
        its events (``TPOS[TPR[t, 0]:TPR[t, 1]]``) and their timestamps."""
        order = np.argsort(self.codes, kind="stable")
        sorted_codes = self.codes[order]
        tpr = np.zeros((max(1, n_types), 2), np.int64)
        tpr[:n_types, 0] = np.searchsorted(sorted_codes, np.arange(n_types), side="left")
        tpr[:n_types, 1] = np.searchsorted(sorted_codes, np.arange(n_types), side="right")
        tpos = order.astype(np.int64)
        return (self.ts, self.codes, self.attrs, self.part_code, self.part_pos, tpr, tpos,
                self.ts[tpos] if len(tpos) else np.zeros(0), consts)


def _events_of(stream) -> tuple[list[Event] | None, EventColumns | None, str]:
    if callable(stream):
        stream = stream()
    if isinstance(stream, EventColumns):
        return None, stream, stream.source
    if isinstance(stream, EventStream):
        return stream.events, None, stream.source
    return list(stream), None, "<memory>"


def prepare_stream(stream, vocab: Vocabulary) -> StreamArrays:
    """The arrays of ``stream`` for a workload of vocabulary ``vocab`` (module docstring)."""
    events, cols, source = _events_of(stream)
    code_of = {t: i for i, t in enumerate(vocab.types)}
    if cols is not None:
        n = len(cols)
        ts = np.asarray(cols.ts, np.float64)
        lut = np.asarray([code_of.get(t, -1) for t in cols.type_names] or [-1], np.int64)
        codes = lut[cols.codes] if n else np.zeros(0, np.int64)
        type_names = np.asarray(cols.type_names, dtype=object)
        codes_all = cols.codes
    else:
        n = len(events)
        ts = np.fromiter((e.ts for e in events), np.float64, count=n)
        names: dict[str, int] = {}
        codes_all = np.fromiter((names.setdefault(e.type, len(names)) for e in events), np.int64, count=n)
        type_names = np.asarray(list(names), dtype=object)
        lut = np.asarray([code_of.get(t, -1) for t in names] or [-1], np.int64)
        codes = lut[codes_all] if n else np.zeros(0, np.int64)
    raw: dict[str, tuple[np.ndarray, list]] = {}
    for name, users in vocab.needs:
        want = np.flatnonzero(np.isin(type_names, list(users))) if len(type_names) else np.zeros(0, np.int64)
        rows = np.flatnonzero(np.isin(codes_all, want)) if n else np.zeros(0, np.int64)
        if cols is not None:
            vals = cols.column(name, rows)
        else:
            vals = []
            for i in rows.tolist():
                try:
                    vals.append(events[i].attrs[name])
                except KeyError:
                    e = events[i]
                    raise StreamError(f"{source}: event {i} (type {e.type!r}) has no attribute {name!r}; "
                                      f"it has {', '.join(e.attrs) or 'none'}") from None
        raw[name] = (rows, vals)
    text_columns = set()
    texts: set[str] = set()
    for name, (rows, vals) in raw.items():
        kinds = {isinstance(v, str) for v in vals}
        if kinds == {True}:
            text_columns.add(name)
            texts.update(vals)
        elif len(kinds) > 1:
            i = next(int(r) for r, v in zip(rows, vals) if isinstance(v, str))
            raise StreamError(f"{source}: attribute {name!r} holds both text and numbers (event {i})")
    return _finish(ts, codes, raw, vocab, texts, frozenset(text_columns), events, cols, source)


def _finish(ts, codes, raw, vocab: Vocabulary, texts: set[str], text_columns: frozenset[str], events, cols, source) -> StreamArrays:
    n = len(ts)
    attrs = np.full((max(1, len(vocab.columns)), n), np.nan)
    text_codes = {t: float(i) for i, t in enumerate(sorted(texts))}
    for c, name in enumerate(vocab.columns):
        rows, vals = raw[name]
        if name in text_columns:
            attrs[c, rows] = [text_codes[v] for v in vals]
        elif len(rows):
            try:
                attrs[c, rows] = np.asarray(vals, dtype=np.float64)
            except (TypeError, ValueError):
                bad = next(int(r) for r, v in zip(rows, vals) if not isinstance(v, Real))
                raise StreamError(f"{source}: event {bad} has a non-numeric {name!r}") from None
    part_code = np.zeros((max(1, len(vocab.partitions)), n), np.int64)
    part_pos = np.zeros((max(1, len(vocab.partitions)), n), np.int64)
    for k, attr in enumerate(vocab.partitions):
        vals = cols.column_or_none(attr) if cols is not None else [e.attrs.get(attr) for e in events]
        ids: dict = {}
        code = np.fromiter((ids.setdefault(v, len(ids)) for v in vals), np.int64, count=n)
        order = np.argsort(code, kind="stable")
        first = np.searchsorted(code[order], code[order], side="left")
        pos = np.empty(n, np.int64)
        pos[order] = np.arange(n) - first
        part_code[k] = code
        part_pos[k] = pos
    return StreamArrays(ts, codes.astype(np.int64), attrs, part_code, part_pos, text_codes, text_columns, source)

