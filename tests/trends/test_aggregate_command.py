"""``python -m experiments aggregate``: rows per query, window and group; JSON metrics; one-line errors."""

from __future__ import annotations

import contextlib
import csv
import io
import json

import pytest

from experiments.cli import main

QUERIES = (
    "RETURN COUNT(*) PATTERN SEQ(A a, B b+) WITHIN 1 minutes\n"
    "RETURN g, COUNT(*), SUM(b.x), AVG(b.x), MIN(b.x), COUNT(B) PATTERN SEQ(C c, B b+) GROUP-BY g WITHIN 1 minutes SLIDE 30 seconds\n"
)


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(argv)
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture
def files(tmp_path):
    q = tmp_path / "q.txt"
    q.write_text(QUERIES)
    d = tmp_path / "e.csv"
    s = "a a c b b b b a a c c c b b".split()
    d.write_text("type,ts,x,g\n" + "".join(f"{t.upper()},{i * 5},{i % 3},{i % 2}\n" for i, t in enumerate(s)))
    return q, d, tmp_path


def test_every_engine_writes_the_same_rows(files):
    q, d, tmp = files
    outs = {}
    for name in ("hamlet", "hamlet-static", "greta", "two-step", "sharon"):
        rc, out, err = _run(["aggregate", str(q), "--data", str(d), "--engine", name])
        assert rc == 0, err
        outs[name] = out
    assert len(set(outs.values())) == 1
    rows = list(csv.reader(io.StringIO(outs["hamlet"])))
    assert rows[0] == ["query", "window_start", "window_end", "group", "COUNT(*)", "g", "SUM(b.x)", "AVG(b.x)", "MIN(b.x)", "COUNT(B)"]
    assert rows[1][:5] == ["0", "0", "60", "", "30"]


def test_json_metrics_and_out_file(files):
    q, d, tmp = files
    out_file = tmp / "rows.csv"
    rc, out, _ = _run(["aggregate", str(q), "--data", str(d), "--json", "--out", str(out_file)])
    assert rc == 0
    m = json.loads(out)
    for key in ("events", "throughput_eps", "latency_ms", "peak_traced_memory_bytes", "snapshots", "engine"):
        assert key in m
    assert m["engine"] == "hamlet" and m["events"] == 14 and set(m["latency_ms"]) == {"mean", "p95"}
    assert out_file.read_text().startswith("query,window_start")
    rc, out, _ = _run(["aggregate", str(q), "--data", str(d), "--json", "--no-memory", "--engine", "greta"])
    m = json.loads(out)
    assert m["peak_traced_memory_bytes"] is None and m["rows"][0][:5] == [0, 0, 60, "", 30]


@pytest.mark.parametrize("text, engine, message", [
    ("RETURN COUNT(*) PATTERN SEQ(A a, B b) WHERE a.x < b.x WITHIN 1 minutes", "hamlet", "mentions 2 variables"),
    ("RETURN COUNT(*) PATTERN SEQ(A a, B b WITHIN 1 minutes", "hamlet", "line 1, column"),
    ("PATTERN SEQ(A a, B b) WITHIN 1 minutes", "hamlet", "not a trend aggregation query"),
    ("RETURN COUNT(*) PATTERN SEQ(A a, B b) WITHIN 1 minutes", "nope", "unknown trend engine"),
])
def test_errors_are_one_line_with_status_2(files, text, engine, message):
    q, d, tmp = files
    q.write_text(text)
    rc, out, err = _run(["aggregate", str(q), "--data", str(d), "--engine", engine])
    assert rc == 2 and message in err and err.count("\n") == 1


def test_parse_prints_a_trend_query_and_other_commands_point_to_aggregate(files):
    q, d, tmp = files
    rc, out, _ = _run(["parse", "RETURN g, COUNT(*) PATTERN SEQ(A a, B b+) GROUP-BY g WITHIN 1 minutes SLIDE 10 seconds", "--json"])
    assert rc == 0 and json.loads(out)["elements"] == ["A", "B+"] and json.loads(out)["slide_s"] == 10
    rc, _, err = _run(["detect", "RETURN COUNT(*) PATTERN SEQ(A a, B b+) WITHIN 1 minutes", "--data", str(d)])
    assert rc == 2 and "aggregate" in err and err.count("\n") == 1


def test_bench_hamlet_runs_small_and_checks_results():
    rc, out, err = _run(["bench", "hamlet", "--events", "300", "--queries", "2,3", "--repeats", "1", "--json"])
    assert rc == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    engines = ("hamlet", "hamlet-static", "hamlet-nonshared", "greta", "sharon", "two-step")
    assert {(r["queries"], r["engine"]) for r in rows} == {(k, e) for k in (2, 3) for e in engines}
    assert all(r["results_identical"] and r["events"] == 300 for r in rows)
    done = [r for r in rows if not r["capped"]]
    assert all(r["over_greta"] == r["throughput_eps"] / next(q["throughput_eps"] for q in rows if q["engine"] == "greta" and q["queries"] == r["queries"]) for r in done)
    # on 230 Travel events in one window both baselines stop at scale quick's caps: their rows are bounds
    capped = {r["engine"] for r in rows if r["capped"]}
    assert capped == {"sharon", "two-step"}, capped
    assert all(r["bound"] == "upper" and r["over_greta"] is None and r["snapshots"] is None for r in rows if r["capped"])
    assert all(r["hamlet_over"] == next(q["throughput_eps"] for q in rows if q["engine"] == "hamlet" and q["queries"] == r["queries"]) / r["throughput_eps"] for r in rows)


def test_bench_hamlet_times_a_fig8_cell_where_every_engine_finishes():
    rc, out, err = _run(["bench", "hamlet", "--cell", "250", "--seed", "0", "--queries", "5", "--repeats", "1", "--json",
                         "--engines", "hamlet,greta,sharon,two-step"])
    assert rc == 0, err
    rows = {r["engine"]: r for r in map(json.loads, out.splitlines())}
    # 250 events/min for 2 minutes: 500 events, every engine finishes and all results are equal
    assert all(r["events"] == 500 and not r["capped"] and r["results_identical"] for r in rows.values()), rows


def test_bench_hamlet_with_other_aggregates_shares_and_checks_results():
    rc, out, err = _run(["bench", "hamlet", "--events", "300", "--queries", "3", "--repeats", "1", "--json",
                         "--engines", "hamlet-static,hamlet-nonshared", "--returns", "COUNT(*), SUM(t.speed), MIN(s.price)"])
    assert rc == 0, err
    rows = {r["engine"]: r for r in map(json.loads, out.splitlines())}
    assert rows["hamlet-static"]["results_identical"]
    # snapshots: the SUM/MIN queries share Travel+ under the static plan (6 on this seeded stream), never alone
    assert rows["hamlet-static"]["snapshots"] == 6 and rows["hamlet-nonshared"]["snapshots"] == 0
    rc, _, err = _run(["bench", "hamlet", "--events", "300", "--returns", "SUM(x.speed)"])
    assert rc == 2 and err.count("\n") == 1


def test_counts_past_4300_digits_are_written_in_full(tmp_path):
    # COUNT(*) of SEQ(A, B+) over one A and n B's is 2**n - 1: past Python's 4,300-digit str() limit at n = 15,000
    n = 15_000
    q = tmp_path / "q.txt"
    q.write_text("RETURN COUNT(*) PATTERN SEQ(A a, B b+) WITHIN 1 hours\n")
    d = tmp_path / "e.csv"
    d.write_text("type,ts\nA,0\n" + "".join(f"B,{(i + 1) * 0.2:.1f}\n" for i in range(n)))
    rc, out, err = _run(["aggregate", str(q), "--data", str(d), "--engine", "hamlet", "--no-memory"])
    assert rc == 0, err
    count = list(csv.reader(io.StringIO(out)))[1][4]
    assert len(count) > 4300
    assert count == format_exact(2**n - 1)


def format_exact(value: int) -> str:
    """``value`` in decimal, whatever its length."""
    import sys

    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return str(value)
    finally:
        sys.set_int_max_str_digits(old)


@pytest.mark.parametrize("engine", ["hamlet", "greta"])
@pytest.mark.parametrize("text, where", [
    ("RETURN SUM(b.nope) PATTERN SEQ(A a, B b+) WITHIN 1 minutes", "RETURN SUM(b.nope)"),
    ("RETURN COUNT(*) PATTERN SEQ(A a, B b+) WHERE b.nope > 0 WITHIN 1 minutes", "WHERE b.nope > 0"),
    ("RETURN nope, COUNT(*) PATTERN SEQ(A a, B b+) GROUP-BY nope WITHIN 1 minutes", "RETURN nope"),
])
def test_an_attribute_the_events_lack_is_one_line_not_an_empty_table(files, engine, text, where):
    q, d, tmp = files
    q.write_text(text + "\n")
    rc, out, err = _run(["aggregate", str(q), "--data", str(d), "--engine", engine])
    assert rc == 2 and out == "" and err.count("\n") == 1
    assert f"query 1 reads attribute 'nope' ({where}), which no event of {d} carries; they have: x, g" in err
