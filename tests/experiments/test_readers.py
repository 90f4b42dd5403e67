"""Readers on the real bundled samples, and their errors on bad input."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cep import StreamError
from experiments.data.datasets import load_dataset
from experiments.data.readers import ReadReport, read_events, sniff_format


@pytest.mark.parametrize(
    "name, events, types",
    [
        ("NASDAQ_MEDIUM.txt", 1652, {"CBRL", "DRIV", "MSFT", "ORLY"}),
        ("NASDAQ_AAPL_AMZN_GOOG.txt", 1365, {"AAPL", "AMZN", "GOOG"}),
        ("NASDAQ_KC.txt", 15, {"AAPL", "AMZN", "GOOG"}),
        ("NASDAQ_TINY.txt", 10, {"AAPL", "AMZN", "AVID"}),
        ("NASDAQ_SHORT.txt", 117, {"AAPL", "AMZN", "FB", "GOOG", "LI", "TYP1", "TYP2", "TYP3"}),
    ],
)
def test_nasdaq_text_samples(data_dir, name, events, types):
    s = read_events(data_dir / "nasdaq" / name)
    assert len(s) == events
    assert set(s.types) == types
    evs = s.to_events()
    assert all(a.ts <= b.ts for a, b in zip(evs, evs[1:]))
    assert [e.pos for e in evs] == list(range(len(s)))
    assert set(evs[0].attrs) == {"open", "high", "low", "close", "volume", "diff"}


def test_nasdaq_diff_is_change_of_close_per_ticker(data_dir):
    s = read_events(data_dir / "nasdaq" / "NASDAQ_MEDIUM.txt").to_events()
    last = {}
    for e in s:
        assert e.attrs["diff"] == (0.0 if e.type not in last else e.attrs["close"] - last[e.type])
        last[e.type] = e.attrs["close"]
    assert s[0].type == "DRIV" and s[0].ts == 1201856400.0  # 2008-02-01 09:00 read as UTC


def test_unsorted_sample_is_an_error_naming_file_row_and_field(data_dir):
    path = data_dir / "nasdaq" / "NASDAQ_EQUALS.txt"
    with pytest.raises(StreamError) as info:
        read_events(path)
    msg = str(info.value)
    assert str(path) in msg and "row " in msg and "field timestamp" in msg
    report = ReadReport(str(path))
    s = read_events(path, skip_bad_rows=True, report=report)
    # row 9 jumps to 09:08; the 20 rows stamped before it that follow are skipped, the other 97 kept
    assert report.skipped == 20 and len(s) == 97
    assert "skipped" in report.summary()


def test_malformed_rows(tmp_path):
    p = tmp_path / "bad.txt"
    p.write_text("AAPL,200802010900,1,2,3,4,5\nAAPL,200802010901,1,2,x,4,5\nAAPL,2008020109,1,2,3,4,5\nAAPL,200802010903,1,2,3\n")
    with pytest.raises(StreamError, match=r"bad.txt: row 2: field low: 'x' is not a number"):
        read_events(p, format="nasdaq-text")
    report = ReadReport(str(p))
    s = read_events(p, format="nasdaq-text", skip_bad_rows=True, report=report)
    assert len(s) == 1 and report.skipped == 3 and report.rows_read == 4


def test_bundled_parquet_datasets():
    nasdaq = load_dataset("nasdaq")
    assert len(nasdaq) == 164_005 and len(nasdaq.types) == 200
    assert set(nasdaq.attributes) == {"open", "high", "low", "close", "volume", "diff"}
    traffic = load_dataset("traffic", types=["158324", "158355"])
    assert set(traffic.types) == {"158324", "158355"}
    assert len(traffic) == traffic.type_counts()["158324"] + traffic.type_counts()["158355"]
    assert set(traffic.to_events()[0].attrs) == {"avg_speed", "vehicle_count", "avg_speed_diff", "vehicle_count_diff", "diff"}
    assert (traffic.ts[1:] >= traffic.ts[:-1]).all()


def test_time_range_filter_on_parquet():
    full = load_dataset("nasdaq", types=["DDOG"])
    half = load_dataset("nasdaq", types=["DDOG"], end=full.ts[len(full) // 2])
    assert 0 < len(half) < len(full)
    assert (half.ts < full.ts[len(full) // 2]).all()


def test_generic_csv_and_parquet(tmp_path):
    csv = tmp_path / "ev.csv"
    csv.write_text("kind,time,x,label\nA,2024-01-01T00:00:00,1.5,u\nB,2024-01-01T00:00:02,2,v\n")
    s = read_events(csv, type_column="kind", ts_column="time").to_events()
    assert [e.type for e in s] == ["A", "B"] and s[1].ts - s[0].ts == 2.0
    assert s[0].attrs == {"x": 1.5, "label": "u"}
    assert sniff_format(csv) == "csv"
    pq.write_table(pa.table({"type": ["A", "B", "A"], "ts": [1.0, 2.0, 2.0], "v": [1, 2, 3]}), tmp_path / "ev.parquet")
    s2 = read_events(tmp_path / "ev.parquet").to_events()
    assert len(s2) == 3 and s2[2].attrs["v"] == 3.0


def test_generic_errors(tmp_path):
    p = tmp_path / "ev.csv"
    p.write_text("type,ts\nA,5\nB,3\n")
    with pytest.raises(StreamError, match=r"row 3: field ts: '3' is earlier"):
        read_events(p)
    p.write_text("type,ts\nA,yesterday\n")
    with pytest.raises(StreamError, match=r"row 2: field ts"):
        read_events(p)
    with pytest.raises(StreamError, match=r"no column 'when'"):
        read_events(p, ts_column="when")
    with pytest.raises(StreamError, match="no such events file"):
        read_events(tmp_path / "missing.csv")


def test_a_column_named_twice_is_an_error_not_a_silent_rename(tmp_path):
    csv_file = tmp_path / "dup.csv"
    csv_file.write_text("type,ts,x,x\nA,0,1,2\nB,5,2,3\n")
    with pytest.raises(StreamError, match=r"dup.csv: column 'x' appears twice in the header"):
        read_events(csv_file)
    table = pa.Table.from_arrays([pa.array(["A"]), pa.array([0.0]), pa.array([1.0]), pa.array([2.0])], names=["type", "ts", "x", "x"])
    pq.write_table(table, tmp_path / "dup.parquet")
    with pytest.raises(StreamError, match=r"dup.parquet: cannot read Parquet \(Multiple matches for FieldRef.Name\(x\)"):
        read_events(tmp_path / "dup.parquet")


def test_a_folder_or_a_binary_file_given_as_events_is_one_line(tmp_path):
    with pytest.raises(StreamError, match="a folder, not an events file"):
        read_events(tmp_path)
    binary = tmp_path / "blob.bin"
    binary.write_bytes(bytes(range(128, 256)) * 20)
    with pytest.raises(StreamError, match="blob.bin: not a text events file"):
        read_events(binary)


def test_a_nasdaq_or_traffic_parquet_with_text_where_numbers_belong_is_one_line(tmp_path):
    cols = {"ticker": pa.array(["AAPL"]), "ts": pa.array([0.0]), "open": pa.array(["x"]), "high": pa.array([1.0]),
            "low": pa.array([1.0]), "close": pa.array([1.0]), "volume": pa.array([1.0])}
    pq.write_table(pa.table(cols), tmp_path / "n.parquet")
    with pytest.raises(StreamError, match="n.parquet: field open: type string is not a number"):
        read_events(tmp_path / "n.parquet")
