"""A damaged results folder (issue 36, item 4): report and verify on a truncated or empty results.parquet,
a truncated metadata.json, a truncated cells.jsonl.gz or a cell line without its cell_id say so in one line
naming the file, exit status 2 -- never a traceback; so does verify on a folder without its metadata.json."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from experiments.cli import main as cli_main

SMALL = ["+exp=jqpg_fig3", "runner=serial", "exp.datasets=[nasdaq]", "exp.pattern_sets=[seq]", "exp.sizes=[3]",
         "exp.patterns_per_size=1", "exp.repeats=1", "progress=false", "exp.planners=[EFREQ,DP-LD]"]


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("stored")
    assert cli_main(["run", *SMALL, f"results_dir={root}"]) == 0
    return root


def _truncate(path: Path, keep: int) -> None:
    path.write_bytes(path.read_bytes()[:keep])


def _drop_cell_id(path: Path) -> None:
    lines = gzip.decompress(path.read_bytes()).decode().splitlines()
    lines[0] = lines[0].replace(f'"cell_id": "{lines[0].split(chr(34) + "cell_id" + chr(34) + ": " + chr(34))[1][:16]}", ', "")
    assert "cell_id" not in lines[0]
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))


DAMAGE = {
    "truncated results.parquet": ("results.parquet", lambda p: _truncate(p, 3000), "not a readable Parquet table"),
    "empty results.parquet": ("results.parquet", lambda p: _truncate(p, 0), "Parquet file size is 0 bytes"),
    "truncated metadata.json": ("metadata.json", lambda p: _truncate(p, 500), "not a readable metadata file"),
    "truncated cells.jsonl.gz": ("cells.jsonl.gz", lambda p: _truncate(p, 300), "not readable cell specifications"),
    "a cell line without cell_id": ("cells.jsonl.gz", _drop_cell_id, "line 1: a cell specification without its cell_id"),
}


#: report reads no cell specifications (cells.jsonl.gz): verify alone is asked about their damage
CASES = [(command, damage) for command in ("report", "verify") for damage in DAMAGE
         if not (command == "report" and DAMAGE[damage][0] == "cells.jsonl.gz")]


@pytest.mark.parametrize("command, damage", CASES)
def test_a_damaged_store_is_one_line_naming_the_file_and_exit_2(stored, tmp_path, capsys, damage, command):
    name, damage_fn, words = DAMAGE[damage]
    root = tmp_path / "copy"
    shutil.copytree(stored, root)
    damage_fn(root / "jqpg_fig3" / name)
    capsys.readouterr()
    args = ["report", "--results-dir", str(root)] if command == "report" else ["verify", "--results-dir", str(root), "--sample", "1"]
    assert cli_main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: {root / 'jqpg_fig3' / name}") and words in err, err


def test_verify_of_a_folder_without_metadata_is_one_line_naming_it_and_report_still_reads_it(stored, tmp_path, capsys):
    """verify re-runs cells with the experiment kind metadata.json names: without the file it cannot (before, it
    took every such folder for a JQPG one, and an MCEP folder's cells failed with a KeyError); report needs only
    the table."""
    root = tmp_path / "copy"
    shutil.copytree(stored, root)
    (root / "jqpg_fig3" / "metadata.json").unlink()
    capsys.readouterr()
    assert cli_main(["verify", "--results-dir", str(root), "--sample", "1"]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {root / 'jqpg_fig3' / 'metadata.json'}: is missing, so verify cannot tell how to re-run the cells; " \
                  "restore it (git checkout -- <file>, in results/) or remove the folder and run again\n", err
    assert cli_main(["report", "--results-dir", str(root)]) == 0
