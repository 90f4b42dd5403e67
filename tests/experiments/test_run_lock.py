"""One run at a time in a results folder (issue 36, item 3): a second run into a folder a run is using is
one line naming the first (pid, host, start time, command) and exit status 2; the lock goes with the
process that held it, however it ends (SIGKILL included); a run removes the temporary files that a killed
run left in the folder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from experiments.cli import main as cli_main
from experiments.running.store import ResultStore

REPO = Path(__file__).resolve().parents[2]
SMALL = ["+exp=jqpg_fig3", "runner=serial", "exp.datasets=[nasdaq]", "exp.pattern_sets=[seq]", "exp.sizes=[3]",
         "exp.patterns_per_size=1", "exp.repeats=1", "progress=false", "exp.planners=[EFREQ]"]


def _blocked_run(results: Path, block: Path) -> subprocess.Popen:
    """A run into ``results`` that stops at its blocking planner's first pattern until ``block/release`` exists;
    returns once the planner has started (so the run holds its folder)."""
    env = {**os.environ, "CEP_TEST_BLOCK_DIR": str(block),
           "PYTHONPATH": os.pathsep.join([str(REPO / "tests" / "algorithms"), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-m", "experiments", "run", *SMALL, "+extra_planners=[plugin_cases:BlockingPlanner]",
                             f"results_dir={results}"], cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while not (block / "started").exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the blocked run never reached its planner"
        time.sleep(0.05)
    return proc


def test_a_second_run_into_a_folder_in_use_is_one_line_naming_the_first_and_the_first_ends_whole(tmp_path, capsys):
    (tmp_path / "block").mkdir()
    first = _blocked_run(tmp_path / "results", tmp_path / "block")
    try:
        assert cli_main(["run", *SMALL, f"results_dir={tmp_path / 'results'}"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("error: results folder ") and "is in use by another run" in err
        assert f"pid {first.pid} on " in err and "started " in err and "command: " in err and "BlockingPlanner" in err
    finally:
        (tmp_path / "block" / "release").write_text("")
        out, stderr = first.communicate(timeout=600)
    assert first.returncode == 0, stderr
    store = ResultStore(tmp_path / "results" / "jqpg_fig3")
    assert set(store.load()["algorithm"]) == {"EFREQ", "plugin_cases:BlockingPlanner"}
    assert not store.parts.exists() and not (store.dir / ".run.lock").exists()


def test_a_killed_runs_lock_goes_with_it_and_the_next_run_removes_its_temporary_files(tmp_path):
    (tmp_path / "block").mkdir()
    folder = tmp_path / "results" / "jqpg_fig3"
    first = _blocked_run(tmp_path / "results", tmp_path / "block")
    # what a run killed while writing a part leaves (cep.io_utils.atomic_open's temporary file)
    (folder / "parts").mkdir(parents=True, exist_ok=True)
    stale = folder / "parts" / ".0123456789abcdef.json.k3x9q2.tmp"
    stale.write_text("{\"cell_id\": ")
    first.send_signal(signal.SIGKILL)
    first.communicate(timeout=60)
    (tmp_path / "block" / "release").write_text("")  # the next run's blocking planner goes straight on
    env = {**os.environ, "CEP_TEST_BLOCK_DIR": str(tmp_path / "block"),
           "PYTHONPATH": os.pathsep.join([str(REPO / "tests" / "algorithms"), os.environ.get("PYTHONPATH", "")])}
    r = subprocess.run([sys.executable, "-m", "experiments", "run", *SMALL, "+extra_planners=[plugin_cases:BlockingPlanner]",
                        f"results_dir={tmp_path / 'results'}"], cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert not stale.exists() and not list(folder.rglob("*.tmp"))
    assert set(ResultStore(folder).load()["algorithm"]) == {"EFREQ", "plugin_cases:BlockingPlanner"}
