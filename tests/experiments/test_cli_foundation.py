"""The command line of issue [1 of 4]: parse and stats, exit statuses, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from experiments.cli import main


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "experiments", *args], capture_output=True, text=True, timeout=300)


def test_parse_prints_normalized_pattern_and_dnf(capsys):
    assert main(["parse", "pattern or(seq(A a, B b), and(C c, D d)) where a.x<b.x within 2 minutes"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "PATTERN OR(SEQ(A a, B b), AND(C c, D d)) WHERE a.x < b.x WITHIN 2 minutes"
    assert out[1] == "DNF: 2 clauses"
    assert out[2].strip() == "PATTERN SEQ(A a, B b) WHERE a.x < b.x WITHIN 2 minutes"
    assert out[3].strip() == "PATTERN AND(C c, D d) WITHIN 2 minutes"


def test_parse_file_and_json(tmp_path, capsys):
    f = tmp_path / "p.cep"
    f.write_text("PATTERN SEQ(A a, B b) WITHIN 1 s\n\nPATTERN AND(C c, KL(D d)) WITHIN 10 events\n")
    assert main(["parse", "--file", str(f), "--json"]) == 0
    docs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [d["name"] for d in docs] == ["P1", "P2"]
    assert docs[1]["dnf"] == ["PATTERN AND(C c, KL(D d)) WITHIN 10 events"]


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["parse", "PATTERN SEQ(A a, B b"], "line 1, column 21"),
        (["parse", "PATTERN SEQ(A a) WHERE z.x > 1 WITHIN 1 s"], "undeclared variable 'z'"),
        (["parse", "--file", "/nonexistent/p.cep"], "cannot read pattern file"),
        (["stats", "--dataset", "no-such-dataset"], "unknown dataset"),
        (["stats", "--dataset", "data/nasdaq/NASDAQ_EQUALS.txt", "--engine", "pandas"], "timestamps must not go backwards"),
    ],
)
def test_bad_input_is_one_line_and_exit_status_2(args, fragment):
    r = run_cli(*args)
    assert r.returncode == 2
    assert r.stdout == ""
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0]


def test_stats_command_pandas_json(capsys):
    pat = "PATTERN SEQ(MSFT a, DRIV b) WHERE a.diff < b.diff WITHIN 5 minutes"
    assert main(["stats", "--dataset", "nasdaq_minute", "--engine", "pandas", "--pattern", pat, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc["rates"]) == {"CBRL", "DRIV", "MSFT", "ORLY"}
    assert 0 < doc["selectivities"]["a,b"] < 1
    assert doc["meta"]["events"] == 1652


def test_stats_skip_bad_rows_reports_them(capsys):
    assert main(["stats", "--dataset", "data/nasdaq/NASDAQ_EQUALS.txt", "--engine", "pandas", "--skip-bad-rows"]) == 0
    captured = capsys.readouterr()
    assert "warning:" in captured.err and "skipped" in captured.err
    assert "dataset data/nasdaq/NASDAQ_EQUALS.txt" in captured.out
