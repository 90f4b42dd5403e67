"""The columnar NASDAQ decoder gives exactly the row reader's events, and its errors; columns keep
the events' values exactly."""

from __future__ import annotations

import numpy as np
import pytest

from cep import Event, EventStream, StreamError
from cep.columnar import EventColumns, nasdaq_columns, nasdaq_rows, read_nasdaq_text_columns
from experiments.data.readers import read_events


def row_by_row(path):
    """The row reader: every row decoded by :func:`cep.columnar.decode_nasdaq_row` in Python."""
    return nasdaq_columns(nasdaq_rows(path), str(path)).to_events()

SAMPLES = ["NASDAQ_MEDIUM.txt", "NASDAQ_AAPL_AMZN_GOOG.txt", "NASDAQ_KC.txt", "NASDAQ_TINY.txt", "NASDAQ_SHORT.txt",
           "NASDAQ_HALF_SHORT.txt", "NASDAQ_FREQUENCY_TAILORED.txt"]


@pytest.mark.parametrize("name", SAMPLES)
def test_columnar_decoding_gives_the_row_readers_events(data_dir, name):
    path = data_dir / "nasdaq" / name
    assert read_nasdaq_text_columns(path).to_events() == row_by_row(path)
    assert read_events(path).to_events() == row_by_row(path)


def test_decoded_values_are_the_files_values(data_dir):
    """Rows 2 and 4 of NASDAQ_MEDIUM (MSFT at 09:00 and 09:01), read by hand: timestamps are UTC
    epoch seconds, ``diff`` the change of ``close`` since the same ticker's previous row."""
    from calendar import timegm

    cols = read_nasdaq_text_columns(data_dir / "nasdaq" / "NASDAQ_MEDIUM.txt")
    e1, e3 = cols.to_events()[1], cols.to_events()[3]
    assert (e1.type, e1.ts) == ("MSFT", float(timegm((2008, 2, 1, 9, 0, 0))))
    assert e1.attrs == {"open": 31.32, "high": 31.32, "low": 31.25, "close": 31.25, "volume": 199424.0, "diff": 0.0}
    assert (e3.type, e3.ts - e1.ts) == ("MSFT", 60.0)
    assert e3.attrs["close"] == 31.27 and e3.attrs["diff"] == pytest.approx(31.27 - 31.25)


def _both_errors(path):
    with pytest.raises(StreamError) as rows:
        row_by_row(path)
    with pytest.raises(StreamError) as columns:
        read_nasdaq_text_columns(path)
    return str(rows.value), str(columns.value)


@pytest.mark.parametrize(
    "rows, where",
    [
        (["AAPL,200802010900,1,2,3,4,5", "AAPL,200802010901,1,x,3,4,5"], "row 2: field high: 'x' is not a number"),
        (["AAPL,200802010900,1,2,3,4,5", "", "AAPL,200802010861,1,2,3,4,5"], "row 3: field timestamp"),
        (["AAPL,200802010900,1,2,3,4,5", "AAPL,200802010901,1,2,3,4"], "row 2: expected 7 fields"),
        (["AAPL,200802010900,1,2,3,4,5", "AAPL,200802010859,1,2,3,4,5"], "row 2: field timestamp: 200802010859 is earlier"),
        (["AAPL,200802010900,1,2,3,inf,5"], "row 1: field close: 'inf' is not a finite number"),
    ],
)
def test_bad_rows_are_named_by_file_row_and_field_by_both_readers(tmp_path, rows, where):
    path = tmp_path / "bad.txt"
    path.write_text("\n".join(rows) + "\n")
    for message in _both_errors(path):
        assert message.startswith(f"{path}: {where}") and "\n" not in message


def test_blank_lines_and_a_missing_final_newline_are_accepted(tmp_path):
    path = tmp_path / "ok.txt"
    path.write_text("AAPL,200802010900,1,2,3,4,5\n\n  \nGOOG,200802010900,1,2,3,4.5,5")
    assert read_nasdaq_text_columns(path).to_events() == row_by_row(path)


def test_columns_of_events_roundtrip_and_name_missing_attributes():
    evs = [Event("A", 0.0, {"x": 1.0}), Event("B", 1.0, {"y": 2.0})]
    cols = EventColumns.from_events(EventStream(evs))
    assert [(e.type, e.ts, e.attrs, e.pos) for e in cols.to_events()] == [("A", 0.0, {"x": 1.0}, 0), ("B", 1.0, {"y": 2.0}, 1)]
    assert cols.column("x", np.array([0])) == [1.0] and cols.column_or_none("x") == [1.0, None]
    with pytest.raises(StreamError, match="event 1 \\(type 'B'\\) has no attribute 'x'"):
        cols.column("x")


def test_columns_of_events_keep_every_value_and_its_type():
    """Floats, ints, bools and strings come back as the events held them (1 stays an int, 1.0 a
    float), mixed types in an object column; a take or slice shares the columns and renumbers."""
    evs = [Event("A", 0.0, {"f": 1.5, "i": 1, "b": True, "s": "Pool", "m": 1}),
           Event("B", 1.0, {"f": -0.0, "i": 2**40, "b": False, "s": "Solo", "m": 2.5}),
           Event("A", 1.0, {"f": 3.0, "i": -7, "b": True, "s": "Pool", "m": "x"})]
    cols = EventColumns.from_events(evs)
    back = cols.to_events()
    assert [(e.type, e.ts, e.attrs) for e in back] == [(e.type, e.ts, e.attrs) for e in evs]
    assert [[type(v) for v in e.attrs.values()] for e in back] == [[type(v) for v in e.attrs.values()] for e in evs]
    assert cols.values("f").dtype == np.float64 and cols.values("i").dtype == np.int64 and cols.values("m").dtype == object
    sub = cols.take(np.array([0, 2]))
    assert [(e.type, e.pos, e.attrs["m"]) for e in sub.to_events()] == [("A", 0, 1), ("A", 1, "x")]
    assert cols.slice(1, 3).column("i") == [2**40, -7] and sub.type_counts() == {"A": 2}
    assert cols.types == ["A", "B"] and cols.type_counts() == {"A": 2, "B": 1}
    assert {t: p.tolist() for t, p in cols.positions_by_type().items()} == {"A": [0, 2], "B": [1]}


def test_saved_columns_map_back_to_the_same_events(tmp_path):
    """A replay's gathered columns, a type-wise absent attribute and a string column survive
    save_columns / load_columns (numeric arrays memory-mapped)."""
    from cep.columnar import Gather, load_columns, save_columns

    real = np.array([1.5, -2.0, 7.25])
    cols = EventColumns(["A", "B"], np.array([0, 1, 0, 1]), np.array([0.0, 1.0, 1.0, 2.5]),
                        columns={"x": Gather(real, np.array([2, 0, 1, 2], dtype=np.int32)), "y": Gather(real, np.array([0, 0, 0, 1])),
                                 "s": np.array(["u", "v", "u", "w"], dtype=object), "z": np.array([3, 0, 4, 0])},
                        absent={"z": np.array([False, True, False, True])}, source="demo")
    back = load_columns(save_columns(cols, tmp_path / "s"))
    assert [(e.type, e.ts, e.attrs) for e in back.to_events()] == [(e.type, e.ts, e.attrs) for e in cols.to_events()]
    assert back.source == "demo" and back.nbytes == cols.nbytes
    assert isinstance(np.load(tmp_path / "s" / "a0.npy", mmap_mode="r"), np.memmap)
