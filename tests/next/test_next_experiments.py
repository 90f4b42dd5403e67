"""NEXT Figures 9-11 end to end at a tiny scale: Hydra, the cells, the results table, the report
section with its figures and claims, verify, and the benchmark command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from experiments.running.store import ResultStore

REPO = Path(__file__).resolve().parents[2]
TINY = ["runner=serial", "progress=false", "+exp.seeds=[0,1]", "+exp.duration_s=2", "+exp.pool_fig9=12",
        "+exp.pool_fig11=30", "+exp.throughput_repeats=1"]


def run(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "experiments", *args], cwd=REPO, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("next")
    for exp, extra in (
        ("next_fig9", ["exp.workloads=[next,union]", "exp.sizes=[2,4]"]),
        ("next_fig10", ["exp.workloads=[next]", "exp.queries=[4,8]"]),
        ("next_fig11", ["exp.workloads=[next,union]", "exp.nodes=[1,3]", "exp.strategies=[round-robin,reuse,rewrite+reuse]"]),
    ):
        r = run("run", f"+exp={exp}", *TINY, *extra, f"results_dir={out}")
        assert r.returncode == 0, r.stderr
        assert f"{exp}: report section" in r.stderr
    return out


def test_figures_9_to_11_produce_their_rows(results):
    f9 = ResultStore(results / "next_fig9").load()
    assert set(f9["algorithm"]) == {"original", "rewritten"} and set(f9["x_value"]) == {2.0, 4.0}
    assert (f9[f9["metric"] == "supported_operators"]["value"] > 0).all()
    f10 = ResultStore(results / "next_fig10").load()
    m = f10[f10["metric"] == "matches"].pivot_table(index=["x_value", "seed"], columns="algorithm", values="value")
    assert (m["original"] == m["rewritten"]).all() and (m["original"] > 0).all()
    f11 = ResultStore(results / "next_fig11").load()
    placed = f11[(f11["kind"] == "placement") & (f11["metric"] == "supported_queries")]
    assert set(placed["algorithm"]) == {"round-robin", "reuse", "rewrite+reuse"}
    assert set(placed["x_name"]) == {"nodes"} and set(placed["x_value"]) == {1.0, 3.0}
    assert len(list((results / "next_fig11" / "measurements").rglob("output.pkl"))) == 2 * 2 * 2  # workload x seed x variant
    # every strategy of one workload and seed placed the same measured pool
    one = f11[(f11["workload"] == "next") & (f11["seed"] == 0) & (f11["kind"] == "placement")]
    assert one.groupby(["algorithm"])["plan"].first().nunique() == 2  # original pool and rewritten pool


def test_report_sections_draw_figures_and_check_the_papers_claims(results):
    r = run("report", "--results-dir", str(results))
    assert r.returncode == 0, r.stderr
    report = (results / "REPORT.md").read_text()
    for title in ("NEXT Figure 9", "NEXT Figure 10", "NEXT Figure 11"):
        assert title in report
    assert "Measured:" in report and "Simulated:" in report
    assert "doubling it in many cases" in report and "Rewrite improves Reuse" in report
    for exp, name in (("next_fig9", "next_fig9_supported_operators"), ("next_fig10", "next_fig10_throughput"),
                      ("next_fig11", "next_fig11_supported_queries")):
        assert (results / exp / "figures" / f"{name}.png").stat().st_size > 10_000


def test_verify_reruns_next_cells(results):
    r = run("verify", "--results-dir", str(results), "--sample", "2")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "next_fig" in r.stdout


def test_bench_next_prints_its_figures():
    r = run("bench", "next", "--size", "6", "--repeats", "2", "--queries", "30", "--nodes", "4", "--measure-duration", "1")
    assert r.returncode == 0, r.stderr
    assert "exact DP (Pareto)" in r.stdout and "target: the DP at size 6 in under 1 s" in r.stdout
    assert "30 queries on 4 nodes in under 10 s" in r.stdout


def test_unknown_figure_is_a_config_error(tmp_path):
    r = run("run", "+exp=next_fig9", "exp.figure=fig12", *TINY, f"results_dir={tmp_path}")
    assert r.returncode == 2 and "exp.figure" in r.stderr
