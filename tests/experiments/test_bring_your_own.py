"""A method from another package in the experiments (issue 21): +extra_planners adds it to every cell
without changing the configured cells' ids, a broken one's cells are stored as failed, figures give it
a style of its own, and compare prints paired effects with verdicts by the report's rules."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cep.errors import ConfigError
from experiments.cli import main as cli_main
from experiments.commands.run import compose_config
from experiments.exps import kind_module
from experiments.reporting import build_report, rules
from experiments.reporting.compare import verdict
from experiments.reporting.plotstyle import ALGORITHM_STYLE, foreign_style, style
from experiments.running.store import ResultStore, cell_id

REPO = Path(__file__).resolve().parents[2]
SMALL = ["runner=serial", "exp.datasets=[nasdaq]", "exp.pattern_sets=[seq,neg]", "exp.sizes=[3]",
         "exp.patterns_per_size=1", "exp.repeats=1", "progress=false"]


def _ids(overrides: list[str], kind: str) -> dict[str, str]:
    specs = kind_module(kind).specs(compose_config(overrides), REPO / "runs" / "unused")
    return {cell_id(s): str(s.get("algorithm") or s.get("algorithms")) for s in specs}


@pytest.mark.parametrize("exp, kind, extra", [
    ("jqpg_fig3", "jqpg", "plugin_cases:ReversePlanner"),
    ("mcep_fig10", "mcep", "plugin_cases:WrittenOrderOptimizer"),
    ("motto_fig13", "motto", "plugin_cases:WrittenOrderOptimizer"),
])
def test_extra_planners_add_cells_and_leave_the_configured_cells_ids_alone(exp, kind, extra):
    base = [f"+exp={exp}", *(SMALL if kind == "jqpg" else ["runner=serial"])]
    without = _ids(base, kind)
    with_extra = _ids(base + [f"+extra_planners=[{extra}]"], kind)
    assert set(without) <= set(with_extra)
    added = {with_extra[k] for k in set(with_extra) - set(without)}
    assert added == {extra if kind != "motto" else str([extra])}
    assert len(with_extra) > len(without)


def test_an_optimizer_in_a_single_pattern_experiment_is_a_one_line_error():
    with pytest.raises(ConfigError, match="is a multi-pattern optimizer; experiment jqpg_fig3 plans single patterns"):
        _ids(["+exp=jqpg_fig3", *SMALL, "+extra_planners=[plugin_cases:WrittenOrderOptimizer]"], "jqpg")


def test_a_run_stores_the_extra_planner_beside_the_configured_ones_and_a_broken_ones_cells_as_failed(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "tests" / "algorithms"), os.environ.get("PYTHONPATH", "")])}
    r = subprocess.run([sys.executable, "-m", "experiments", "run", "+exp=jqpg_fig3", *SMALL, "exp.planners=[EFREQ]",
                        "+extra_planners=[plugin_cases:ReversePlanner,plugin_cases:RaisingPlanner]", f"results_dir={tmp_path}"],
                       cwd=REPO, capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 1, r.stderr  # the broken planner's cells failed
    store = ResultStore(tmp_path / "jqpg_fig3")
    rows = store.load()
    assert set(rows["algorithm"]) == {"EFREQ", "plugin_cases:ReversePlanner"}
    assert rows[rows["algorithm"] == "plugin_cases:ReversePlanner"]["pattern_id"].nunique() == 2
    logs = store.failures()
    assert len(logs) == 2 and all("planner plugin_cases:RaisingPlanner failed on pattern" in p.read_text() for p in logs)


def test_a_method_from_another_package_gets_a_stable_style_no_registered_name_has():
    used = {(s.color, s.marker) for s in ALGORITHM_STYLE.values()}
    a, b = style("mypkg.planners:MyPlanner"), style("RARE-SEL")
    assert (a.color, a.marker) not in used and (b.color, b.marker) not in used
    assert a == foreign_style("mypkg.planners:MyPlanner") and a != b
    assert style("DP-B") == ALGORITHM_STYLE["DP-B"]


def test_verdicts_follow_the_rule_set():
    assert verdict(rules.ratio_interval([1.5, 1.6, 1.7, 1.55])) == "better"
    assert verdict(rules.ratio_interval([1 / 1.5, 1 / 1.6, 1 / 1.7, 1 / 1.55])) == "worse"
    undecided = verdict(rules.ratio_interval([0.9, 1.3, 1.0, 1.2, 0.8]))
    assert undecided.startswith("no detectable difference") and "n needed to decide: " in undecided
    assert verdict(rules.ratio_interval([1.2])).startswith("not checkable")


def test_compare_runs_the_methods_cells_and_prints_a_verdict_per_metric(tmp_path, capsys):
    code = cli_main(["compare", "plugin_cases:ReversePlanner", "--against", "EFREQ", "--exp", "jqpg_fig3", "--workloads", "1",
                     "exp.datasets=[nasdaq]", "exp.pattern_sets=[seq,conj]", "exp.sizes=[3,4]", "exp.repeats=1",
                     "progress=false", f"results_dir={tmp_path}"])
    assert code == 0
    out = capsys.readouterr().out
    lines = [ln for ln in out.splitlines() if "vs EFREQ" in ln]
    assert {ln.split()[5] for ln in lines} >= {"throughput", "plan"} and all("(n=" in ln for ln in lines)
    md = tmp_path / "compare" / "plugin_cases_ReversePlanner" / "compare.md"
    assert md.exists() and "| jqpg_fig3 | nasdaq | EFREQ |" in md.read_text()
    assert set(ResultStore(tmp_path / "jqpg_fig3").load()["algorithm"]) == {"EFREQ", "plugin_cases:ReversePlanner"}
    report = build_report(tmp_path)[0].read_text()  # the report pairs it with the built-in planners of its kind
    assert "**plugin_cases:ReversePlanner** (a method from another package)" in report and "| nasdaq | EFREQ | throughput |" in report


def test_the_readme_section_runs_exactly_what_ci_runs():
    readme = (REPO / "README.md").read_text()
    section = readme.split("## Benchmark your own planner", 1)[1]
    commands = section.split("```", 2)[1].strip().splitlines()
    ci = (REPO / ".ci" / "run").read_text().splitlines()
    assert len(commands) == 4 and all(c in ci for c in commands)
    assert ci.index(".venv/bin/python -m pytest -q -n 2") < ci.index(commands[0]) < ci.index(commands[-1]) < \
        ci.index(".venv/bin/python -m experiments verify")


def test_an_optimizer_from_another_package_gets_the_sweeps_search_time_in_mcep_cells():
    from experiments.exps.mcep import MCEP

    specs = kind_module("mcep").specs(compose_config(["+exp=mcep_fig10", "runner=serial",
                                                      "+extra_planners=[plugin_cases:BudgetEchoOptimizer]"]), REPO / "runs" / "unused")
    spec = next(s for s in specs if s["algorithm"] == "plugin_cases:BudgetEchoOptimizer")
    assert spec["params"]["search_neighbours"] and spec["params"]["search_time"] <= 60  # the built-ins' budget is steps here
    stream = MCEP.stream(spec)
    patterns = MCEP.workload(spec, stream)
    planned = MCEP.plan_one(spec, patterns, MCEP.statistics(spec, stream, patterns), spec["algorithm"])
    assert planned.metrics["plan_cost"] <= planned.metrics["trivial_cost"]


def test_a_planner_that_ends_the_process_fails_its_cells_and_the_run_does_not_pass_for_complete(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "tests" / "algorithms"), os.environ.get("PYTHONPATH", "")])}
    r = subprocess.run([sys.executable, "-m", "experiments", "run", "+exp=jqpg_fig3", *SMALL, "exp.planners=[EFREQ]",
                        "+extra_planners=[plugin_cases:ExitingPlanner,plugin_cases:HardExitingPlanner]", f"results_dir={tmp_path}"],
                       cwd=REPO, capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 1, (r.returncode, r.stderr)  # not 0: the exiting planners' cells failed
    store = ResultStore(tmp_path / "jqpg_fig3")
    assert set(store.load()["algorithm"]) == {"EFREQ"}
    logs = [p.read_text() for p in store.failures()]
    assert len(logs) == 4
    assert sum("sys.exit(0) called at" in t for t in logs) == 2 and sum("os._exit(0) called at" in t for t in logs) == 2
