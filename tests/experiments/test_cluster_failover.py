"""A real standalone cluster loses a worker mid-run: the run finishes on the other worker with no cell lost
or duplicated, and its deterministic metrics equal the serial runner's (the cluster computes the same
statistics as a Spark job, and the same cells).  "Mid-run" is a condition, not a time: a cell of
plugin_cases.BlockingPlanner holds the run until the worker is dead."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from experiments.running.store import ResultStore

REPO = Path(__file__).resolve().parents[2]
# exact statistics (no sampling), so that the serial runner's pandas statistics equal the Spark job's
CELLS = ["+exp=jqpg_fig3", "exp.datasets=[nasdaq]", "exp.pattern_sets=[seq,conj]", "exp.sizes=[3]",
         "exp.planners=[EFREQ,DP-LD,DP-B]", "exp.patterns_per_size=2", "exp.repeats=1", "progress=false",
         "+exp.stats_max_pairs=100000000"]
DETERMINISTIC = ["plan_cost", "events", "matches", "work", "peak_partial_matches"]


def _run(*overrides, block_dir: Path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "tests" / "algorithms"), os.environ.get("PYTHONPATH", "")]),
           "CEP_TEST_BLOCK_DIR": str(block_dir)}
    return subprocess.run([sys.executable, "-m", "experiments", "run", *CELLS, "+extra_planners=[plugin_cases:BlockingPlanner]",
                           *overrides], cwd=REPO, capture_output=True, text=True, timeout=1500, env=env)


def _deterministic(df: pd.DataFrame) -> pd.DataFrame:
    d = df[df["metric"].isin(DETERMINISTIC)][["cell_id", "algorithm", "metric", "value", "plan", "status"]]
    return d.sort_values(["cell_id", "metric"]).reset_index(drop=True)


@pytest.mark.cluster
@pytest.mark.slow
def test_a_run_survives_a_killed_worker(tmp_path):
    from experiments.tools.cluster import LocalCluster

    released = tmp_path / "released"
    released.mkdir()
    (released / "release").touch()
    serial = _run("runner=serial", f"results_dir={tmp_path / 'serial'}", block_dir=released)
    assert serial.returncode == 0, serial.stderr
    out, block = tmp_path / "cluster", tmp_path / "block"
    block.mkdir()
    cluster = LocalCluster.start(cores=1, memory="1g", workers=2)
    killed = threading.Event()

    def kill_while_a_cell_is_held():
        # a BLOCKING cell is running and waits for "release": the run cannot have ended
        while not killed.is_set():
            if (block / "started").exists():
                cluster.kill_worker(0)
                killed.set()
                (block / "release").touch()
                return
            time.sleep(0.2)

    watcher = threading.Thread(target=kill_while_a_cell_is_held, daemon=True)
    watcher.start()
    try:
        r = _run("runner=spark", f"runner.master={cluster.master_url}", "+runner.conf.spark.cores.max=2",
                 "+runner.conf.spark.executor.memory=1g", f"+runner.conf.spark.executorEnv.CEP_TEST_BLOCK_DIR={block}",
                 f"results_dir={out}", block_dir=block)
        assert killed.is_set() and r.returncode == 0, r.stderr
        import json

        assert json.loads((out / "jqpg_fig3" / "metadata.json").read_text())["spark_master"] == cluster.master_url
        assert cluster.worker_pids[0] not in cluster.alive() and cluster.worker_pids[1] in cluster.alive()
    finally:
        killed.set()
        (block / "release").touch()
        cluster.stop()
    got, want = ResultStore(out / "jqpg_fig3"), ResultStore(tmp_path / "serial" / "jqpg_fig3")
    df = got.load()
    assert not got.failures() and df["cell_id"].nunique() == want.load()["cell_id"].nunique() == 16
    assert not df.duplicated(["cell_id", "algorithm", "metric"]).any()
    pd.testing.assert_frame_equal(_deterministic(df), _deterministic(want.load()))
