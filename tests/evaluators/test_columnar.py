"""The columnar NASDAQ decoder gives exactly the row reader's events, and its errors."""

from __future__ import annotations

import numpy as np
import pytest

from cep import Event, EventStream, StreamError
from cep.columnar import EventColumns, read_nasdaq_text_columns
from experiments.readers import read_events

SAMPLES = ["NASDAQ_MEDIUM.txt", "NASDAQ_AAPL_AMZN_GOOG.txt", "NASDAQ_KC.txt", "NASDAQ_TINY.txt", "NASDAQ_SHORT.txt",
           "NASDAQ_HALF_SHORT.txt", "NASDAQ_FREQUENCY_TAILORED.txt"]


@pytest.mark.parametrize("name", SAMPLES)
def test_columnar_decoding_gives_the_row_readers_events(data_dir, name):
    path = data_dir / "nasdaq" / name
    assert read_nasdaq_text_columns(path).to_events() == read_events(path).events


def _both_errors(path):
    with pytest.raises(StreamError) as slow:
        read_events(path)
    with pytest.raises(StreamError) as fast:
        read_nasdaq_text_columns(path)
    return str(slow.value), str(fast.value)


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
def test_bad_rows_are_named_by_file_row_and_field_as_the_row_reader_does(tmp_path, rows, where):
    path = tmp_path / "bad.txt"
    path.write_text("\n".join(rows) + "\n")
    slow, fast = _both_errors(path)
    assert fast == slow
    assert fast.startswith(f"{path}: {where}")


def test_blank_lines_and_a_missing_final_newline_are_accepted(tmp_path):
    path = tmp_path / "ok.txt"
    path.write_text("AAPL,200802010900,1,2,3,4,5\n\n  \nGOOG,200802010900,1,2,3,4.5,5")
    assert read_nasdaq_text_columns(path).to_events() == read_events(path).events


def test_columns_of_events_roundtrip_and_name_missing_attributes():
    evs = [Event("A", 0.0, {"x": 1.0}), Event("B", 1.0, {"y": 2.0})]
    cols = EventColumns.from_events(EventStream(evs))
    assert [(e.type, e.ts, e.attrs, e.pos) for e in cols.to_events()] == [("A", 0.0, {"x": 1.0}, 0), ("B", 1.0, {"y": 2.0}, 1)]
    assert cols.column("x", np.array([0])) == [1.0] and cols.column_or_none("x") == [1.0, None]
    with pytest.raises(StreamError, match="event 1 \\(type 'B'\\) has no attribute 'x'"):
        cols.column("x")
