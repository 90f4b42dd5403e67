"""Fuzzing the inputs a user hands the harness: random bytes and random pattern-like text to the pattern
parser (cep/parser.py), random bytes and random CSV-, NASDAQ- and Parquet-like files to the event readers
(experiments/data/readers.py) and the column decoders (cep/columnar.py).  Whatever comes in, what comes
out is a parse or one error of cep.errors whose message is one line: never another exception, never a
traceback."""

from __future__ import annotations

import io
import json
import string
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cep.columnar import EventColumns, load_columns, nasdaq_rows, read_nasdaq_text_columns, save_columns
from cep.errors import CEPError
from cep.parser import parse_patterns
from experiments.data.readers import read_events, read_generic, read_nasdaq_text, sniff_format

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=False)


def one_line_error_or(fn, *args, **kwargs):
    """``fn(*args)``'s result, or None when it raised a CEPError of one line; any other exception fails."""
    try:
        return fn(*args, **kwargs)
    except CEPError as e:
        assert "\n" not in str(e) and str(e).strip(), repr(str(e))
        return None


# ---- the pattern parser --------------------------------------------------------------------------------------------
WORDS = ["PATTERN", "SEQ", "AND", "OR", "NOT", "KL", "WHERE", "WITHIN", "STRATEGY", "BY", "FILTER", "RETURN", "GROUP-BY",
         "SLIDE", "SEQ_ORDER", "strict", "skip-till-next-match", "partition-contiguity", "COUNT", "SUM", "AVG", "MIN", "MAX",
         "events", "event", "seconds", "minutes", "hours", "days", "milliseconds", "weeks", "A", "B", "C", "MSFT", "a", "b",
         "c", "x", "close", "a.x", "b.close", '"BRK.B"', "'Pool'", "(", ")", ",", ".", ";", "{", "}", "[", "]", "|", "\\",
         "+", "-", "*", "/", "@", "<", "<=", ">", ">=", "=", "!=", "==", "<>", "#", "\n"]
NUMBERS = st.one_of(st.integers(-10**30, 10**30).map(str), st.floats(allow_nan=True, allow_infinity=True).map(repr),
                    st.sampled_from(["0", "1", "1e308", "1e-400", "99999999999999999999999", "9007199254740993", "1e3", ".5"]))
TOKENS = st.one_of(st.sampled_from(WORDS), NUMBERS, st.text(string.ascii_letters + "_", min_size=1, max_size=4))
VALID = [
    "PATTERN SEQ(MSFT m, KL(GOOG g){1,5}, NOT(INTC i), AAPL a) WHERE m.diff < a.diff AND g.close > 10 WITHIN 20 minutes",
    "PATTERN AND(A a, OR(B b, C c)) WITHIN 10 events STRATEGY skip-till-next-match",
    "RETURN g, COUNT(*), SUM(b.x) PATTERN SEQ(A a, B b+) WHERE [g] GROUP-BY g WITHIN 1 minutes SLIDE 30 seconds",
    "PATTERN S1 a ; (S2 b | S4 c) \\ S8 d WHERE FILTER(a.x = b.x) AND c.y > 1 WITHIN 1 minutes",
]


@st.composite
def pattern_like(draw) -> str:
    """Random token sequences, or a valid pattern with tokens spliced in, cut out or repeated."""
    if draw(st.booleans()):
        return " ".join(draw(st.lists(TOKENS, max_size=40)))
    words = draw(st.sampled_from(VALID)).split(" ")
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(words)))
        op = draw(st.sampled_from(["insert", "delete", "repeat"]))
        if op == "insert":
            words.insert(i, draw(TOKENS))
        elif op == "delete" and i < len(words):
            del words[i]
        elif i < len(words):
            words[i:i] = [words[i]] * draw(st.integers(1, 300))
    return " ".join(words)


@FUZZ
@given(st.binary(max_size=400))
def test_the_parser_takes_random_bytes(data):
    one_line_error_or(parse_patterns, data.decode("utf-8", errors="replace"))
    one_line_error_or(parse_patterns, data.decode("latin-1"))


@FUZZ
@given(pattern_like())
def test_the_parser_takes_random_pattern_like_text(text):
    patterns = one_line_error_or(parse_patterns, text)
    for p in patterns or ():
        printed = str(p)  # what parses prints, and what prints parses back
        assert parse_patterns(printed)


@FUZZ
@given(st.integers(1, 400), st.sampled_from(["SEQ(", "AND(", "OR(", "KL(", "NOT("]))
def test_the_parser_takes_deep_nesting(depth, op):
    one_line_error_or(parse_patterns, "PATTERN " + op * depth + "A a, B b" + ")" * depth + " WITHIN 1 minutes")


# ---- the event readers and the column decoders ---------------------------------------------------------------------
def _file(folder: Path, name: str, data: bytes) -> Path:
    p = folder / name
    p.write_bytes(data)
    return p


NASDAQ_LINE = "AAPL,201301020930,100.5,101.0,99.5,100.75,1200\n"
FIELDS = st.one_of(st.sampled_from(["", " ", "AAPL", "201301020930", "201313020930", "20130102093", "nan", "inf", "-1", "1e400",
                                    "x", '"', "\t", "1,2"]), NUMBERS, st.text(max_size=6))


@st.composite
def csv_like(draw) -> bytes:
    """A header (with the type and ts columns, or not, or twice) and rows of random fields."""
    header = draw(st.lists(st.sampled_from(["type", "ts", "x", "y", "x", "", "close"]), min_size=1, max_size=5))
    rows = draw(st.lists(st.lists(FIELDS, min_size=0, max_size=len(header) + 1), max_size=6))
    return ("\n".join(",".join(r) for r in [header, *rows]) + "\n").encode()


@st.composite
def nasdaq_like(draw) -> bytes:
    """NASDAQ minute lines with random fields swapped in."""
    lines = []
    for _ in range(draw(st.integers(0, 6))):
        fields = NASDAQ_LINE.strip().split(",")
        for _ in range(draw(st.integers(0, 2))):
            fields[draw(st.integers(0, 6))] = draw(FIELDS)
        lines.append(",".join(fields))
    return ("\n".join(lines) + "\n").encode()


@st.composite
def parquet_like(draw) -> bytes:
    """A Parquet file of random columns (NASDAQ's, traffic's, a generic one's) with random values."""
    names = draw(st.sampled_from([["ticker", "ts", "open", "high", "low", "close", "volume"], ["report_id", "ts", "avg_speed", "vehicle_count"],
                                  ["type", "ts", "x"], ["ts", "x"]]))
    n = draw(st.integers(0, 5))
    cols = {}
    for name in names:
        kind = draw(st.sampled_from(["float", "int", "str", "null"]))
        if kind == "float":
            cols[name] = pa.array(draw(st.lists(st.floats(allow_nan=True), min_size=n, max_size=n)), pa.float64())
        elif kind == "int":
            cols[name] = pa.array(draw(st.lists(st.integers(-2**63, 2**63 - 1), min_size=n, max_size=n)), pa.int64())
        elif kind == "str":
            cols[name] = pa.array(draw(st.lists(FIELDS, min_size=n, max_size=n)), pa.string())
        else:
            cols[name] = pa.nulls(n, pa.float64())
    buf = io.BytesIO()
    pq.write_table(pa.table(cols), buf)
    data = buf.getvalue()
    if draw(st.booleans()):  # truncated, or a byte flipped
        cut = draw(st.integers(0, len(data)))
        data = data[:cut] if draw(st.booleans()) else data[:cut] + bytes([(data[cut] + 1) % 256]) + data[cut + 1:] if cut < len(data) else data
    return data


def _read_every_way(path: Path) -> None:
    cols = one_line_error_or(read_events, path)
    assert cols is None or isinstance(cols, EventColumns)
    for fmt in ("nasdaq-text", "csv"):
        one_line_error_or(read_events, path, format=fmt)
    one_line_error_or(read_events, path, skip_bad_rows=True)
    one_line_error_or(read_generic, path)
    one_line_error_or(read_nasdaq_text, path, skip_bad_rows=True)
    one_line_error_or(sniff_format, path)
    one_line_error_or(read_nasdaq_text_columns, path)
    one_line_error_or(lambda: list(nasdaq_rows(path)))


@FUZZ
@given(st.one_of(st.binary(max_size=600), csv_like(), nasdaq_like()), st.sampled_from(["e.csv", "e.txt", "e", "e.parquet"]))
def test_the_readers_take_random_files(data, name):
    with tempfile.TemporaryDirectory() as d:
        _read_every_way(_file(Path(d), name, data))


@FUZZ
@given(parquet_like())
def test_the_readers_take_random_parquet(data):
    with tempfile.TemporaryDirectory() as d:
        path = _file(Path(d), "e.parquet", data)
        _read_every_way(path)
        for fmt in ("nasdaq-parquet", "traffic-parquet", "parquet"):
            one_line_error_or(read_events, path, format=fmt)


@FUZZ
@given(st.sampled_from(["columns.json", "a0.npy", "a1.npy", "a2.npy"]), st.binary(max_size=200), st.booleans())
def test_saved_columns_that_were_damaged_load_or_are_one_line(victim, data, truncate):
    with tempfile.TemporaryDirectory() as d:
        cols = EventColumns(["A", "B"], np.array([0, 1, 0]), np.array([0.0, 1.0, 2.0]), columns={"x": np.array([1.0, 2.0, 3.0])})
        folder = save_columns(cols, Path(d) / "cols")
        target = folder / victim
        if target.exists():
            target.write_bytes(target.read_bytes()[: len(data)] if truncate else data)
        loaded = one_line_error_or(load_columns, folder)
        if loaded is not None:
            assert len(loaded.ts) == len(loaded.codes)


def test_a_directory_or_a_missing_file_is_one_line(tmp_path):
    for path in (tmp_path, tmp_path / "nope.csv"):
        for fn in (read_events, read_generic, read_nasdaq_text_columns, sniff_format):
            assert one_line_error_or(fn, path) is None
    assert one_line_error_or(load_columns, tmp_path) is None
    (tmp_path / "columns.json").write_text(json.dumps({"type_names": ["A"]}))
    assert one_line_error_or(load_columns, tmp_path) is None
