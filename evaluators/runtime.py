"""Around the compiled kernel: the stream prepared as the kernel's arrays, one run, and its outcome.

:func:`prepare` keeps the events of the pattern's types (a cell evaluates the whole stream; the other
types are discarded here, before the per-event loop) and turns the attributes the conditions read into
one float64 column each (text into ranks, :mod:`evaluators.program`).  Positions stay stream positions:
release points of parked matches are found in the full stream's timestamps and partition positions
are counted over the full stream, so that the canonical order (cep.semantics) is the same as on the
unfiltered stream.  :func:`run` calls the kernel (:mod:`evaluators.kernel`): the lazy path, or the
eager path when the program takes it.
"""

from __future__ import annotations

import numbers
import platform
from dataclasses import dataclass

import numpy as np

from cep.columnar import EventColumns
from cep.errors import PartialMatchLimitError, StreamError, WorkLimitError
from cep.matches import Match
from cep.pattern import Strategy, WindowKind

import evaluators.kernel as kernel
from evaluators.program import Program, flatten, tables_for_text


@dataclass
class Prepared:
    """The pattern's events as the kernel's arrays (``pos``: their stream positions)."""

    codes: np.ndarray
    ts: np.ndarray
    key: np.ndarray
    pos: np.ndarray
    attrs: np.ndarray  # (attributes, events) float64
    pa: np.ndarray  # partition codes (partition contiguity)
    pp: np.ndarray  # position within the partition
    full_ts: np.ndarray
    n_total: int
    blob: tuple[np.ndarray, np.ndarray]  # the plan (evaluators.program.flatten)


def prepare(program: Program, cols: EventColumns) -> Prepared:
    """Keep the events of the pattern's types; the attributes its conditions read as float64 columns."""
    code_of = {t: i for i, t in enumerate(program.type_names)}
    lut = np.asarray([code_of.get(t, -1) for t in cols.type_names] or [-1], dtype=np.int64)
    pcode = lut[cols.codes] if len(cols) else np.zeros(0, np.int64)
    idx = np.flatnonzero(pcode >= 0)
    codes = pcode[idx]
    ts = np.ascontiguousarray(cols.ts[idx], dtype=np.float64)
    pos = idx.astype(np.int64)
    key = ts if program.window_kind is WindowKind.TIME else pos.astype(np.float64)
    attrs = np.full((len(program.attributes), len(idx)), np.nan)
    text: dict[int, tuple[np.ndarray, list]] = {}  # attribute column -> (rows, text values)
    for a_i, name in enumerate(program.attributes):
        needed = [code_of[t] for t in program.attribute_types.get(name, ())]
        rows = np.flatnonzero(np.isin(codes, needed))
        values = _values(cols, name, idx[rows])
        if values.dtype == object:
            text[a_i] = (rows, _text_values(name, values, cols.source))
        else:
            attrs[a_i, rows] = values
    blob = program.blob
    constants = {c.value for c in _constants(program) if isinstance(c.value, str)}
    if text or constants:
        strings = set(constants)
        for _, vals in text.values():
            strings.update(vals)
        rank = {s: i for i, s in enumerate(sorted(strings))}
        for a_i, (rows, vals) in text.items():
            attrs[a_i, rows] = [rank[v] for v in vals]
        blob = flatten(tables_for_text(program, {program.attributes[a_i]: True for a_i in text}, rank))
    pa = pp = np.zeros(0, np.int64)
    if program.strategy is Strategy.PARTITION:
        full = _partition_codes(cols, program.partition_attribute)
        ppos = _positions_in_partition(full)
        pa, pp = full[idx], ppos[idx]
    return Prepared(codes, ts, np.ascontiguousarray(key), pos, attrs, pa, pp, np.ascontiguousarray(cols.ts, dtype=np.float64), len(cols), blob)


def _values(cols: EventColumns, name: str, rows: np.ndarray) -> np.ndarray:
    """Attribute ``name`` at ``rows``: float64 when every value is a number, object (text) otherwise."""
    values = cols.values(name, rows)
    if values.dtype != object:
        return values.astype(np.float64, copy=False)
    items = values.tolist()
    if all(isinstance(v, numbers.Real) for v in items):
        return np.asarray(items, dtype=np.float64)
    return values


def _text_values(name: str, values: np.ndarray, source: str) -> list[str]:
    items = values.tolist()
    for v in items:
        if not isinstance(v, str):
            raise StreamError(f"{source}: attribute {name!r} mixes text and numbers ({v!r}); a condition compares one kind")
    return items


def _constants(program: Program):
    from cep.conditions import Const

    out = []

    def walk(e):
        if isinstance(e, Const):
            out.append(e)
        for part in ("left", "right", "operand"):
            if hasattr(e, part):
                walk(getattr(e, part))

    for c in program.conditions:
        walk(c.left)
        walk(c.right)
    return out


def _partition_codes(cols: EventColumns, attribute: str) -> np.ndarray:
    """A code per event for its value of the partition attribute (events lacking it share one)."""
    import pandas as pd

    values = cols.column_or_none(attribute)
    codes, _ = pd.factorize(pd.Series(values, dtype=object), use_na_sentinel=False)
    return np.asarray(codes, dtype=np.int64)


def _positions_in_partition(codes: np.ndarray) -> np.ndarray:
    """For each event, how many events of its partition came before it."""
    if not len(codes):
        return np.zeros(0, np.int64)
    order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_codes)) + 1]
    run_start = np.repeat(starts, np.diff(np.r_[starts, len(codes)]))
    out = np.empty(len(codes), np.int64)
    out[order] = np.arange(len(codes)) - run_start
    return out


@dataclass
class Outcome:
    """What one run of the kernel gives: its counters, the matches as rows, and latencies."""

    counters: np.ndarray
    rows: np.ndarray  # [clause, position or Kleene offset per slot]
    elements: np.ndarray  # Kleene slots: [length, positions...] at their offset
    latencies: np.ndarray  # (nanoseconds, matches) per report
    pattern_events: int  # events of the pattern's types

    def __getitem__(self, name: str) -> int:
        return int(self.counters[getattr(kernel, name)])

    @property
    def stopped(self) -> bool:
        """Whether a cap stopped the run."""
        return bool(self.counters[kernel.C_STATUS] != kernel.STATUS_OK)


_warm = False
#: latencies are read from the processor's cycle counter on x86-64 (a few nanoseconds a read) and
#: converted by the run's own calibration against the monotonic clock; elsewhere from clock_gettime
TSC = platform.machine().lower() in ("x86_64", "amd64")


def warm_up(program: Program) -> None:
    """Load the kernel once per process (from numba's disk cache, or compile it on a machine's first
    run) by running it on an empty stream: the first call of a numba function pays that, and the
    timed span must not (JQPG's throughput measures detection).  Costs are in ``docs/engine.md``."""
    global _warm
    if _warm:
        return
    empty = EventColumns([], np.zeros(0, np.int64), np.zeros(0), columns={a: np.zeros(0) for a in program.attributes})
    data = prepare(program, empty)
    for eager in (False, True):
        for collect in (False, True):
            if eager:
                kernel.run_eager(*data.blob, data.codes, data.ts, data.key, data.pos, data.attrs, 1.0, 1.0, collect, True, TSC)
            else:
                kernel.run_lazy(*data.blob, data.codes, data.ts, data.key, data.pos, data.attrs, data.pa, data.pp,
                                data.full_ts, 0, 1.0, 1.0, collect, True, TSC)
    _warm = True


def run(program: Program, data: Prepared, *, cap: float, work_cap: float, collect: bool, record: bool = True) -> Outcome:
    """One run of the kernel.  A run stopped at a cap returns too: ``outcome.stopped`` says so, and
    :func:`raise_if_capped` turns it into the error (benchmarks read the counts of a capped run)."""
    if len(data.codes) >= 2**31 - 1:
        raise StreamError(f"{len(data.codes)} events of the pattern's types: the evaluators index at most 2**31 - 2")
    if program.eager:
        c, rows, elems, lat = kernel.run_eager(*data.blob, data.codes, data.ts, data.key, data.pos, data.attrs,
                                               float(cap), float(work_cap), collect, record, TSC)
    else:
        c, rows, elems, lat = kernel.run_lazy(*data.blob, data.codes, data.ts, data.key, data.pos, data.attrs, data.pa, data.pp,
                                              data.full_ts, data.n_total, float(cap), float(work_cap), collect, record, TSC)
    lat = lat[: c[kernel.C_NLAT]].astype(np.float64)
    lat[:, 0] *= c[kernel.C_CLOCK_NS] / c[kernel.C_CLOCK_TICKS]  # clock units -> ns
    return Outcome(c, rows[: c[kernel.C_NOUT]], elems[: c[kernel.C_NOUTE]], lat, len(data.codes))


def raise_if_capped(program: Program, out: Outcome, cap: float, work_cap: float) -> None:
    """The cap errors of a run a cap stopped, with the stream events processed before the event that
    crossed it (``processed``)."""
    c = out.counters
    status = c[kernel.C_STATUS]
    if status == kernel.STATUS_PARTIAL_MATCHES:
        raise PartialMatchLimitError(
            f"{program.kind} evaluator: {int(c[kernel.C_STATUS_VALUE])} live partial matches crossed the cap of {cap:.0f}; "
            "raise it with max_partial_matches= (command line: --max-partial-matches) or shrink the window",
            processed=int(c[kernel.C_PROCESSED]),
        )
    if status == kernel.STATUS_WORK:
        raise WorkLimitError(
            f"{program.kind} evaluator: its joins examined {int(c[kernel.C_STATUS_VALUE])} candidate combinations, past the cap of "
            f"{work_cap:.0f}; raise it with max_work= (command line: --max-work) or shrink the window",
            processed=int(c[kernel.C_PROCESSED]),
        )


def matches_of(program: Program, out: Outcome) -> list[Match]:
    """The reported matches as :class:`cep.Match` values, in the order of the run (canonical)."""
    rows = out.rows.tolist()
    elems = out.elements.tolist()
    layouts = []
    for info in program.clauses:
        order = sorted(range(len(info.positive)), key=lambda i: info.positive[i])
        layouts.append([(info.positive[i], i + 1, info.kleene[i]) for i in order])
    new = tuple.__new__
    result = []
    for row in rows:
        result.append(new(Match, ((tuple(
            (name, tuple(elems[row[c] + 1 : row[c] + 1 + elems[row[c]]]) if kl else (row[c],))
            for name, c, kl in layouts[row[0]]
        )),)))
    return result
