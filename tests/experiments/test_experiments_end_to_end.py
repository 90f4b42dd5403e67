"""Experiments end to end: a tiny experiment through Hydra and Spark, resume, config errors, the data
an experiment runs on, failed cells, where results go, the report from the tables, verify (the run on a
standalone cluster is in test_cluster_failover.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from experiments.running.store import ResultStore

REPO = Path(__file__).resolve().parents[2]
TINY = [
    "+exp=jqpg_fig3",
    "exp.datasets=[nasdaq]",
    "exp.pattern_sets=[seq,neg]",
    "exp.sizes=[3]",
    "exp.planners=[EFREQ,DP-LD,DP-B]",
    "exp.patterns_per_size=1",
    "exp.repeats=1",
    "progress=false",
]
DETERMINISTIC = ["plan_cost", "plan_cost_tree", "events", "matches", "peak_partial_matches"]


def run_exp(*overrides, timeout=600):
    env = dict(os.environ)
    return subprocess.run(
        [sys.executable, "-m", "experiments", "run", *overrides], cwd=REPO, capture_output=True, text=True, timeout=timeout, env=env
    )


def deterministic(df: pd.DataFrame) -> pd.DataFrame:
    d = df[df["metric"].isin(DETERMINISTIC)][["dataset", "pattern_id", "algorithm", "evaluator", "metric", "value", "plan", "status", "cell_id"]]
    return d.sort_values(["cell_id", "metric"]).reset_index(drop=True)


@pytest.fixture(scope="module")
def serial_results(tmp_path_factory):
    out = tmp_path_factory.mktemp("serial")
    r = run_exp(*TINY, "runner=serial", f"results_dir={out}")
    assert r.returncode == 0, r.stderr
    return out


@pytest.mark.spark
@pytest.mark.slow
def test_tiny_experiment_through_hydra_and_spark_equals_serial(tmp_path, serial_results):
    r = run_exp(*TINY, "runner=spark", "runner.master='local[2]'", f"results_dir={tmp_path}")
    assert r.returncode == 0, r.stderr
    spark_df = ResultStore(tmp_path / "jqpg_fig3").load()
    serial_df = ResultStore(serial_results / "jqpg_fig3").load()
    assert len(spark_df["cell_id"].unique()) == 2 * 3  # two patterns x three planners
    assert {"throughput_eps", "peak_partial_matches", "plan_cost"} <= set(spark_df["metric"])
    pd.testing.assert_frame_equal(deterministic(spark_df), deterministic(serial_df))
    import json

    meta = json.loads((tmp_path / "jqpg_fig3" / "metadata.json").read_text())
    assert meta["runner"] == "spark" and meta["concurrency"] == 2 and meta["spark_master"] == "local[2]"
    assert meta["end_time"] and meta["packages"]["pyspark"] and "nasdaq" in meta["datasets"]


def test_a_run_warns_of_cells_stored_by_another_configuration(serial_results, tmp_path):
    import shutil

    out = tmp_path / "results"
    shutil.copytree(serial_results, out)
    narrower = [o for o in TINY if not o.startswith("exp.planners")] + ["exp.planners=[EFREQ]"]
    r = run_exp(*narrower, "runner=serial", f"results_dir={out}")
    assert r.returncode == 0, r.stderr
    assert "2 cells (2 already done in" in r.stderr and "running 0 " in r.stderr
    assert "warning: 4 cells stored in" in r.stderr and "not cells of this configuration" in r.stderr
    assert len(ResultStore(out / "jqpg_fig3").load()["cell_id"].unique()) == 6  # nothing dropped


def test_rerun_skips_done_cells_and_report_and_verify_work(serial_results):
    r = run_exp(*TINY, "runner=serial", f"results_dir={serial_results}")
    assert r.returncode == 0, r.stderr
    assert "6 cells (6 already done in" in r.stderr and "running 0 " in r.stderr
    assert "not cells of this configuration" not in r.stderr
    rep = subprocess.run([sys.executable, "-m", "experiments", "report", "--results-dir", str(serial_results)], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert rep.returncode == 0, rep.stderr
    assert f"reading results in {serial_results}" in rep.stdout
    text = (serial_results / "REPORT.md").read_text()
    assert "JQPG Figure 3" in text and "| claim | the paper's sentence | direction, size | unit | here | verdict | cause | rule |" in text
    figures = [serial_results / "jqpg_fig3" / "figures" / f"fig3_throughput.{ext}" for ext in ("png", "pdf")]
    assert all(p.exists() for p in figures)
    # a second report with no new results rewrites nothing
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in [*figures, serial_results / "REPORT.md"]}
    rep = subprocess.run([sys.executable, "-m", "experiments", "report", "--results-dir", str(serial_results)], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert rep.returncode == 0, rep.stderr
    assert {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in before} == before
    ver = subprocess.run(
        [sys.executable, "-m", "experiments", "verify", "--results-dir", str(serial_results), "--sample", "2"],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )
    assert ver.returncode == 0, ver.stdout + ver.stderr
    assert f"verifying results in {serial_results}" in ver.stdout
    assert "2 cells" in ver.stdout and "0 differ" in ver.stdout


def test_verify_catches_a_changed_deterministic_value(serial_results, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(serial_results, copy)
    st = ResultStore(copy / "jqpg_fig3")
    df = st.load()
    df.loc[df["metric"] == "plan_cost", "value"] *= 1.5
    import pyarrow as pa
    import pyarrow.parquet as pq

    from experiments.running.store import SCHEMA

    pq.write_table(pa.Table.from_pandas(df, schema=SCHEMA, preserve_index=False), st.table_path)
    ver = subprocess.run(
        [sys.executable, "-m", "experiments", "verify", "--results-dir", str(copy), "--sample", "1"],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )
    assert ver.returncode == 1 and "DIFFERS" in ver.stdout and "plan_cost" in ver.stdout


@pytest.mark.parametrize(
    "overrides, fragment",
    [
        (["+exp=nope"], "unknown exp 'nope'"),
        (["exp=jqpg_fig5"], "choose an experiment with a plus sign: +exp=jqpg_fig5"),
        (["+exp=jqpg_fig5", "foo=1"], "unknown config key 'foo'"),
        (["+exp=jqpg_fig3", "runner.master=local[2]"], "cannot parse override 'runner.master=local[2]'"),
        (["+exp=jqpg_fig3", "dataset=nope"], "unknown dataset 'nope'"),
        (["+exp=jqpg_fig3", "runner=serial", "exp.planners=[DP-X]", "exp.datasets=[nasdaq]"], "unknown planner 'DP-X'"),
        (["+exp=jqpg_fig7", "dataset.path=/tmp/nope.parquet"], "needs the dataset whose settings apply: dataset=<name> dataset.path=/tmp/nope.parquet"),
        (["+exp=jqpg_fig7", "dataset=nasdaq", "dataset.path=/tmp/nope.parquet"], "dataset 'nasdaq': no events file at /tmp/nope.parquet"),
        # the full staged data, configured by path, missing on this machine
        (["+exp=jqpg_fig7", "dataset=nasdaq_full"], "dataset 'nasdaq_full': no events file at"),
        (["+exp=stats", "runner=serial", "exp.datasets=[nasdaq_full]"], "set CEP_DATA"),
    ],
)
def test_config_errors_are_one_line(overrides, fragment, tmp_path, monkeypatch):
    monkeypatch.setenv("CEP_DATA", str(tmp_path / "nowhere"))
    r = run_exp(*overrides, f"results_dir={tmp_path}")
    assert r.returncode == 2
    lines = [x for x in r.stderr.splitlines() if x.strip() and "incubator" not in x]
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], r.stderr
    assert not (tmp_path / "jqpg_fig7" / "results.parquet").exists()


PLANNING_ONLY = ["+exp=jqpg_fig7", "runner=serial", "exp.sizes=[3]", "exp.planners=[EFREQ,DP-LD]", "exp.patterns_per_size=1", "progress=false"]


def test_report_false_stores_the_cells_without_drawing_the_report(tmp_path):
    r = run_exp(*PLANNING_ONLY, "report=false", f"results_dir={tmp_path}")
    assert r.returncode == 0, r.stderr
    assert len(ResultStore(tmp_path / "jqpg_fig7").load()) > 0
    assert not (tmp_path / "REPORT.md").exists() and "report section" not in r.stderr
    r = run_exp(*PLANNING_ONLY, f"results_dir={tmp_path}")  # the same configuration: nothing to run, the report drawn
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "REPORT.md").exists() and "report section" in r.stderr


def test_dataset_override_selects_the_data_and_metadata_records_it(tmp_path):
    r = run_exp(*PLANNING_ONLY, "dataset=traffic", f"results_dir={tmp_path}")
    assert r.returncode == 0, r.stderr
    df = ResultStore(tmp_path / "jqpg_fig7").load()
    assert set(df["dataset"]) == {"traffic"}
    import json

    meta = json.loads((tmp_path / "jqpg_fig7" / "metadata.json").read_text())
    assert list(meta["datasets"]) == ["traffic"]
    assert meta["datasets"]["traffic"]["path"] == str(REPO / "data/traffic/aarhus_traffic_week.parquet")
    assert len(meta["datasets"]["traffic"]["sha256"]) == 64
    import numpy as np  # the SIMD level numpy dispatched to, which decides how exact cost ties break (verify)

    assert meta["machine"]["numpy_simd"] and set(meta["machine"]["numpy_simd"]) <= set(np._core._multiarray_umath.__cpu_dispatch__)

    import shutil

    copy = tmp_path / "copy.parquet"
    shutil.copy(REPO / "data/nasdaq/nasdaq_5min_sample.parquet", copy)
    r = run_exp(*PLANNING_ONLY, "dataset=nasdaq", f"dataset.path={copy}", f"results_dir={tmp_path / 'other'}")
    assert r.returncode == 0, r.stderr
    meta = json.loads((tmp_path / "other" / "jqpg_fig7" / "metadata.json").read_text())
    assert meta["datasets"]["nasdaq"]["path"] == str(copy)
    assert set(ResultStore(tmp_path / "other" / "jqpg_fig7").load()["dataset"]) == {"nasdaq"}


def test_failed_cells_are_logged_counted_and_retried(tmp_path):
    bad = [*PLANNING_ONLY, "dataset=nasdaq", "exp.planners=[EFREQ,II-RANDOM]", "+exp.planner_params.II-RANDOM.restarts=-1", f"results_dir={tmp_path}"]
    r = run_exp(*bad)
    assert r.returncode == 1, r.stderr
    assert "1 of 2 cells failed" in r.stderr
    logs = sorted((tmp_path / "jqpg_fig7" / "failures").glob("*.log"))
    assert len(logs) == 1 and "Traceback" in logs[0].read_text() and "restarts" in logs[0].read_text()
    df = ResultStore(tmp_path / "jqpg_fig7").load()
    assert set(df["algorithm"]) == {"EFREQ"}
    r = run_exp(*bad)
    assert r.returncode == 1 and "(1 already done" in r.stderr and "running 1 " in r.stderr, r.stderr


def test_runs_go_where_git_ignores_them_and_never_into_the_reference(tmp_path, monkeypatch):
    from hydra import compose, initialize_config_dir

    from experiments.data.datasets import CONFIG_DIR
    from experiments.running import folders
    from experiments.running.folders import results_root

    monkeypatch.setattr(folders, "uncommitted_changes", lambda: [])  # whatever this checkout's state

    with initialize_config_dir(version_base="1.3", config_dir=str(CONFIG_DIR), job_name="t"):
        cfg = compose(config_name="config", overrides=["+exp=jqpg_fig3"])
        assert results_root(cfg) == REPO / "runs"
        assert results_root(compose(config_name="config", overrides=["+exp=jqpg_fig3", "reference=true"])) == REPO / "results"
    ignored = subprocess.run(["git", "check-ignore", "-q", "runs/jqpg_fig3/results.parquet"], cwd=REPO)
    assert ignored.returncode == 0
    r = run_exp("+exp=jqpg_fig3", "results_dir=results")
    assert r.returncode == 2 and "reference=true" in r.stderr


def test_help_texts_list_experiments_and_hide_internal_names():
    r = subprocess.run([sys.executable, "-m", "experiments", "run", "--help"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "jqpg_fig3" in r.stdout and "jqpg_fig9" in r.stdout and "reference=true" in r.stdout
    r = subprocess.run([sys.executable, "-m", "experiments", "report", "--help"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "--reference" in r.stdout and "_OPT" not in r.stdout


def test_every_command_prints_its_help():
    """argparse %-formats help strings: a command's HELP with a bare % (e.g. "95% CIs") broke --help."""
    from experiments.cli import build_parser
    from experiments.commands.bench import BENCHMARKS

    build_parser().format_help()
    r = subprocess.run([sys.executable, "-m", "experiments", "--help"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "95%" in r.stdout, r.stderr
    r = subprocess.run([sys.executable, "-m", "experiments", "bench", "--help"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and all(name in r.stdout for name in BENCHMARKS), r.stderr


def test_multirun_runs_every_combination_of_the_swept_values(tmp_path):
    r = run_exp(*PLANNING_ONLY, "dataset=nasdaq", "--multirun", "seed=0,1", "exp.planners=[EFREQ],[DP-LD]", f"results_dir={tmp_path}")
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("run ") >= 4 and "run 4 of 4" in r.stderr
    df = ResultStore(tmp_path / "jqpg_fig7").load()
    assert set(zip(df["seed"], df["algorithm"])) == {(0, "EFREQ"), (1, "EFREQ"), (0, "DP-LD"), (1, "DP-LD")}
    r = run_exp(*PLANNING_ONLY, "dataset=nasdaq", "seed=0,1", f"results_dir={tmp_path / 'no'}")
    assert r.returncode == 2 and "add --multirun" in r.stderr and not (tmp_path / "no").exists()


def test_report_and_verify_take_the_results_folder_as_run_does(serial_results):
    for command in (["report"], ["verify", "--sample", "1", "--json"]):
        r = subprocess.run([sys.executable, "-m", "experiments", *command, f"results_dir={serial_results}"],
                           cwd=REPO, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
    import json

    summary = json.loads(r.stdout.splitlines()[-1])
    assert summary["cells"] == 1 and summary["differ"] == 0 and summary["agree"] > 0
    r = subprocess.run([sys.executable, "-m", "experiments", "verify", "result_dir=x"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "expected results_dir=DIR" in r.stderr


def test_a_reference_run_needs_committed_code_and_results_do_not_count(tmp_path, monkeypatch):
    from cep.errors import ConfigError
    from experiments.running import folders, metadata

    repo = tmp_path / "repo"
    (repo / "results" / "x").mkdir(parents=True)
    (repo / "code.py").write_text("a = 1\n")
    (repo / "results" / "x" / "REPORT.md").write_text("old\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "-C", str(repo), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-qm", "c"], check=True)
    monkeypatch.setattr(metadata, "REPO_ROOT", repo)
    (repo / "results" / "x" / "REPORT.md").write_text("regenerated\n")  # results are not code
    folders.require_committed_code()
    assert not metadata.git_commit().endswith("-dirty")
    (repo / "code.py").write_text("a = 2\n")
    with pytest.raises(ConfigError, match="code.py"):
        folders.require_committed_code()
    assert metadata.git_commit().endswith("-dirty")


def test_estimate_times_a_sample_of_the_cells_and_runs_nothing(tmp_path):
    import json

    r = run_exp(*PLANNING_ONLY, "dataset=nasdaq", f"results_dir={tmp_path}", "--estimate", "--estimate-sample", "2", "--json")
    assert r.returncode == 0, r.stderr
    est = json.loads(r.stdout.strip().splitlines()[-1])
    assert est["cells"] == 2 and est["sampled"] == 2 and len(est["cell_cpu_s"]) == 2 and not est["lower_bound"]
    assert all(x > 0 for x in est["cell_cpu_s"]) and est["cpu_s"] >= 2 * min(est["cell_cpu_s"]) - 1e-9
    assert not est["built_every_cell"]  # JQPG builds only its sample: the run's statistics are not in the estimate
    assert est["fits_in_a_day"] and not (tmp_path / "jqpg_fig7").exists()  # nothing stored
    r = run_exp(*PLANNING_ONLY, "dataset=nasdaq", f"results_dir={tmp_path}", "--estimate", "--estimate-sample", "1",
                "--estimate-timeout", "0.000001", "--json")  # the clock starts once the stream is built
    est = json.loads(r.stdout.strip().splitlines()[-1])
    assert r.returncode == 0 and est["stopped_at_timeout"] == 1 and est["lower_bound"] and est["fits_in_a_day"] is None


def test_estimate_builds_no_stream_that_would_not_fit_in_memory(tmp_path):
    import json

    from experiments.data.replay import ReplaySpec

    huge = "exp.scales.quick.families.nasdaq.replay.events_per_window=1e13"  # some 10^15 events: no machine builds that
    r = run_exp(*PLANNING_ONLY, "dataset=nasdaq", huge, f"results_dir={tmp_path}", "--estimate", "--json", timeout=300)
    assert r.returncode == 0, r.stderr
    est = json.loads(r.stdout.strip().splitlines()[-1])
    expected = ReplaySpec(1200.0, 1e13, 45.0, 6.0).expected_events(40)
    assert est["not_sampled"] and est["sampled"] == 0 and est["fits_in_a_day"] is None
    assert est["cells"] == 2  # counted from the configuration: the two planners of the one pattern
    assert est["stream_events"] == round(expected) and est["stream_memory_needed_gib"] > est["memory_available_gib"]
    r = run_exp(*PLANNING_ONLY, "dataset=nasdaq", huge, f"results_dir={tmp_path}", "--estimate", timeout=300)
    assert r.returncode == 0 and "not sampled" in r.stdout and "not known" in r.stdout, r.stdout + r.stderr


def test_a_multi_query_estimate_sizes_the_streams_of_its_cells(tmp_path):
    import json

    args = ["+exp=mcep_fig10", "runner=serial", "progress=false", f"results_dir={tmp_path}", "--estimate", "--json"]
    small = json.loads(run_exp(*args, "--estimate-sample", "1", "--estimate-timeout", "0.000001").stdout.strip().splitlines()[-1])
    r = run_exp(*args, "exp.scales.quick.events_per_window=1e13", timeout=300)
    assert r.returncode == 0, r.stderr
    big = json.loads(r.stdout.strip().splitlines()[-1])
    assert not small["not_sampled"] and small["sampled"] == 1 and small["memory_available_gib"] > 0
    assert big["not_sampled"] and big["sampled"] == 0 and big["cells"] == small["cells"]
    assert big["stream_events"] > 1e6 * small["stream_events"]


def test_a_lower_bound_decides_only_that_a_run_does_not_fit():
    from experiments.tools.estimate import DAY_S, Estimate

    small = Estimate("x", "paper", cells=10, build_s=0.0, cpu_s=[1.0, 2.0], stopped=1, cores=2)
    huge = Estimate("x", "paper", cells=10, build_s=0.0, cpu_s=[DAY_S, DAY_S], stopped=1, cores=2)
    measured = Estimate("x", "paper", cells=10, build_s=0.0, cpu_s=[1.0, 2.0], stopped=0, cores=2)
    assert small.fits_in_a_day is None and huge.fits_in_a_day is False and measured.fits_in_a_day is True
    assert "not known" in small.text() and "does NOT fit" in huge.text() and "fits in a day" in measured.text()


def test_each_stored_cell_keeps_its_run_time_and_verify_can_sample_only_cheap_cells(serial_results):
    from experiments.tools.verify import verify_experiment

    cells = ResultStore(serial_results / "jqpg_fig3").load_cells()
    times = {cid: spec["_cell_s"] for cid, spec in cells.items()}
    assert len(times) == 6 and all(t > 0 for t in times.values())
    cheapest = min(times, key=times.get)
    # no cell that cheap: the cheapest one, so that every experiment is checked
    assert {d.cell_id for d in verify_experiment(serial_results / "jqpg_fig3", 6, 0, max_cell_s=-1.0)} == {cheapest}
    picked = {d.cell_id for d in verify_experiment(serial_results / "jqpg_fig3", 6, 0, max_cell_s=times[cheapest])}
    assert picked == {cid for cid, t in times.items() if t <= times[cheapest]}  # ties in stored time included
