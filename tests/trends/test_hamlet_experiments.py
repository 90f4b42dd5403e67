"""HAMLET Figures 8-12 end to end at a tiny scale: Hydra, the cells, the results table (capped cells
as results), the report sections with their figures and claims."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from experiments.running.store import ResultStore

REPO = Path(__file__).resolve().parents[2]
TINY = ["runner=serial", "progress=false", "+exp.seeds=[0,1]", "+exp.minutes=0.5", "+exp.max_trends=2000",
        "+exp.sharon_max_work=20000"]


def run(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "experiments", *args], check=False, cwd=REPO, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("hamlet")
    for exp, extra in (
        ("hamlet_fig8", ["+exp.events_per_minute=[800]", "+exp.queries=[2]", "+exp.default_events_per_minute=200"]),
        ("hamlet_fig11", ["exp.datasets=[ridesharing]", "+exp.events_per_minute=[400]", "+exp.queries=[6]", "+exp.default_queries=4",
                          "+exp.default_events_per_minute=400"]),
    ):
        r = run("run", f"+exp={exp}", *TINY, *extra, f"results_dir={out}")
        assert r.returncode == 0, r.stderr
        assert f"{exp}: report section" in r.stderr
    return out


def test_cells_rows_and_report(results):
    f8 = ResultStore(results / "hamlet_fig8").load()
    assert set(f8["algorithm"]) == {"hamlet", "two-step", "sharon", "greta"}
    ok = f8[(f8["status"] == "ok") & (f8["metric"] == "throughput_eps")]
    assert (ok["value"] > 0).all() and set(ok["x_name"]) == {"events_per_minute", "queries"}
    # every engine that finished a cell computed the same results (the digest in `plan`)
    fin = f8[(f8["status"] == "ok") & (f8["metric"] == "throughput_eps")]
    assert (fin.groupby("pattern_id")["plan"].nunique() == 1).all()
    f11 = ResultStore(results / "hamlet_fig11").load()
    assert set(f11["algorithm"]) == {"hamlet", "hamlet-static"}
    d = f11[f11["metric"] == "throughput_eps"]
    assert (d.groupby("pattern_id")["plan"].nunique() == 1).all()
    # a capped cell is a bound: it records its time to the cap and how much of the stream it processed
    cap = f8[f8["status"].str.startswith("capped")]
    assert not cap.empty and {"capped_elapsed_s", "processed_events"} <= set(cap["metric"])
    assert (cap[cap["metric"] == "capped_elapsed_s"]["value"] > 0).all()
    report = (results / "REPORT.md").read_text()
    assert "resolves them; the results below ran at scale=quick;" in report and "**Streams (paper / ours).**" in report
    assert "throughput upper bounds" in report
    assert "HAMLET Figure 8" in report and "HAMLET Figure 11" in report and "27–52% throughput improvement" in report
    assert (results / "hamlet_fig8" / "figures" / "hamlet_fig8.png").exists()
