"""Numbers and files the commands take that made tracebacks or silent nonsense (issue 36, item 7): a
negative --max-pairs, --top, --sample or --max-cell-s, a damaged cluster --state file, a Spark master that
does not answer -- each one line and exit status 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from experiments.cli import main as cli_main

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "data" / "nasdaq" / "nasdaq_5min_sample.parquet"


@pytest.mark.parametrize("argv, message", [
    (["stats", "-d", str(DATA), "--engine", "pandas", "--max-pairs", "-5"], "--max-pairs -5: the number of events or pairs sampled"),
    (["stats", "-d", str(DATA), "--engine", "pandas", "--max-pairs", "0"], "--max-pairs 0: "),
    (["stats", "-d", str(DATA), "--engine", "pandas", "--top", "-1"], "--top -1: "),
    (["verify", "--sample", "-1"], "--sample -1: the number of cells verified per experiment is at least 1"),
    (["verify", "--sample", "0"], "--sample 0: "),
    (["verify", "--max-cell-s", "-2"], "--max-cell-s -2.0: "),
])
def test_a_count_below_its_least_value_is_one_line(argv, message, capsys):
    assert cli_main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


@pytest.mark.parametrize("text, words", [
    (b'{"master_url": "spark://x:1", "master_pid": 12', "Expecting ',' delimiter"),
    (b'{"master_url": "spark://x:1"}', "lacks 'master_pid'"),
    (b'{"master_url": "spark://x:1", "master_pid": "twelve", "worker_pids": [], "ui_port": 1, "work_dir": "/tmp"}', "a field of the wrong kind"),
    (b"\x7fELF\x02\x01\x01\x00\xd0\xff", "can't decode byte"),
    (b"[1, 2]", "a field of the wrong kind"),
])
@pytest.mark.parametrize("command", ["status", "stop"])
def test_a_damaged_cluster_state_file_is_one_line_naming_it(tmp_path, capsys, text, words, command):
    state = tmp_path / "cluster.json"
    state.write_bytes(text)
    assert cli_main(["cluster", command, "--state", str(state)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: {state}: not a cluster state file (") and words in err, err
    assert state.exists()  # what may name running processes is not removed


def test_a_spark_master_that_does_not_answer_is_one_line_naming_it(tmp_path):
    r = subprocess.run([sys.executable, "-m", "experiments", "stats", "-d", str(DATA), "--master", "spark://127.0.0.1:1"],
                       cwd=REPO, capture_output=True, text=True, timeout=600)
    assert r.returncode == 2 and r.stdout == "", (r.returncode, r.stderr[-2000:])
    assert r.stderr == "error: Spark master spark://127.0.0.1:1 does not answer (127.0.0.1:1: Connection refused); start it " \
                       "(python -m experiments cluster start) or check the URL\n"
