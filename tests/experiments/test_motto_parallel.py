"""MOTTO Figure 14a/14b (experiments/exps/motto_parallel.py, experiments/exps/motto.py): one global plan
partitioned into groups that keep shared sub-trees together and cover every pattern once; each
group's MPM detects what the whole plan detects; the parallel run on real Spark reports the serial
run's matches; the exact/annealing plans of Figure 14a are SH-MDT's; bad core counts and sweeps are
one-line config errors."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from algorithms.multi import plan_workload
from algorithms.multi.costs import workload_models
from cep.errors import ConfigError
from cep.parser import parse_patterns
from evaluators.multi import evaluate_workload
from experiments.exps.motto_parallel import (
    check_cores,
    cores_master,
    group_payloads,
    partition_plan,
    run_parallel,
    sharing_components,
    sub_plan,
)

ROOT = Path(__file__).resolve().parents[2]


def _cfg(*overrides: str):
    from hydra import compose, initialize_config_dir

    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base="1.3"):
        return compose("config", overrides=["+exp=motto_fig14", "runner=serial", *overrides])


@pytest.fixture(scope="module")
def workload():
    """A real Table V workload (16 queries) on the replayed NASDAQ stream, its statistics and SH-MDT plan."""
    from experiments.exps.motto import CORES, build_specs

    cfg = _cfg("exp.scales.quick.seeds=[0]", "exp.scales.quick.windows=60", "exp.scales.quick.cores_windows=60",
               "exp.scales.quick.base.queries=16")
    spec = next(s for s in build_specs(cfg) if s["x_name"] == "cores" and s["x_value"] == 1)
    stream = CORES.stream(spec)
    pats = CORES.workload(spec, stream)
    stats = CORES.statistics(spec, stream, pats)
    plan = plan_workload(pats, "SH-MDT", stats, max_nodes=10_000).plan  # MOTTO's exact plan on any machine
    return spec, stream, pats, stats, plan


def _internal_groups(g, part):
    where = {p: i for i, grp in enumerate(part.groups) for p in grp}
    return [{where[o[0]] for o in n.users} for n in g.nodes.values() if not n.is_leaf]


@pytest.mark.parametrize("k", [1, 2, 3, 4, 6])
def test_partition_covers_every_pattern_once_and_keeps_components_whole(workload, k):
    _, _, pats, stats, g = workload
    models = workload_models(g, stats)
    part = partition_plan(g, models, k)
    flat = [p for grp in part.groups for p in grp]
    assert sorted(flat) == list(range(len(pats)))  # every pattern once
    assert 1 <= len(part.groups) <= k and all(part.groups)
    comps = sharing_components(g)
    assert len(comps) >= 2 and any(len(c) > 1 for c in comps)  # the workload does share
    fair = part.total_cost / k
    from experiments.exps.motto_parallel import group_cost

    if len(comps) >= k and all(group_cost(g, models, c) <= fair for c in comps):
        # nothing forced a split: every component's patterns are in one group
        where = {p: i for i, grp in enumerate(part.groups) for p in grp}
        assert all(len({where[p] for p in c}) == 1 for c in comps)
        assert part.split_components == 0 and part.copied_nodes == 0
    assert part.copied_nodes == sum(len(x) > 1 for x in _internal_groups(g, part))
    if k == 1:
        assert part.groups == (tuple(range(len(pats))),) and part.speedup_bound == pytest.approx(1.0)


def test_a_component_split_gives_each_part_its_own_copy_of_the_shared_node():
    """Four patterns all sharing SEQ(A, B): one component; two groups must split it, and each part
    then holds its own copy of the shared node."""
    from cep.statistics import Statistics

    pats = parse_patterns("""
        PATTERN SEQ(A a, B b, C c) WITHIN 5 seconds
        PATTERN SEQ(A a, B b, D d) WITHIN 5 seconds
        PATTERN SEQ(A a, B b, E e) WITHIN 5 seconds
        PATTERN SEQ(A a, B b, F f) WITHIN 5 seconds""")
    stats = Statistics({"A": 0.5, "B": 0.5, "C": 2.0, "D": 2.0, "E": 2.0, "F": 2.0}, {})
    g = plan_workload(pats, "SH-MDT", stats, max_nodes=10_000).plan  # a budget in nodes: no clock
    assert [sorted(n.users) for n in g.shared_nodes() if not n.is_leaf] == [[(0, 0), (1, 0), (2, 0), (3, 0)]]
    assert len(sharing_components(g)) == 1
    part = partition_plan(g, workload_models(g, stats), 2)
    # two patterns a part; the one shared node, SEQ(A, B), is copied once
    assert part.groups == ((0, 1), (2, 3)) and part.split_components == 1 and part.copied_nodes == 1
    assert sorted(p for grp in part.groups for p in grp) == [0, 1, 2, 3]
    for grp in part.groups:
        sub = sub_plan(g, grp)
        if len(grp) > 1:  # the copy is still shared inside the part
            assert [n for n in sub.shared_nodes() if not n.is_leaf]


@pytest.mark.parametrize("k", [2, 3])
def test_each_group_detects_per_pattern_what_the_whole_plan_detects(workload, k):
    _, stream, pats, stats, g = workload
    events = stream.slice(0, 150).to_events()
    whole = evaluate_workload(pats, g, events)
    part = partition_plan(g, workload_models(g, stats), k)
    for grp in part.groups:
        res = evaluate_workload([pats[p] for p in grp], sub_plan(g, grp), events)
        for j, p in enumerate(grp):
            assert Counter(res.matches_by_pattern[j]) == Counter(whole.matches_by_pattern[p])
    assert sum(whole.counts) > 0


@pytest.mark.spark
@pytest.mark.parametrize("k", [2, 3])
def test_parallel_run_on_spark_reports_the_serial_runs_matches(spark, workload, k):
    """k Spark tasks (more tasks than the session's 2 cores for k = 3), the matches themselves compared."""
    spec, stream, pats, stats, g = workload
    serial = evaluate_workload(pats, g, stream)
    part = partition_plan(g, workload_models(g, stats), k)
    run = run_parallel(spark, group_payloads(pats, g, part, spec["stream"], collect_matches=True), repeats=1)
    assert run.tasks == len(part.groups) and run.events == len(stream)
    assert run.counts == list(serial.counts) and sum(run.counts) > 0
    for p in range(len(pats)):
        assert Counter(run.matches[p]) == Counter(tuple(m.bindings) for m in serial.matches_by_pattern[p])


def test_exact_and_annealing_plans_are_sh_mdts(workload):
    """solver_plans maps MOTTO's trees exactly as SH-MDT does: its exact plan (the MILP finishes
    here) is the registry's SH-MDT plan."""
    from experiments.exps.kit import plan_digest
    from experiments.exps.motto import solver_plans

    _, _, pats, stats, g = workload
    sp = solver_plans(pats, stats, budget_s=5.0, seed=0)
    assert sp["exact"]["finished"]
    assert plan_digest(sp["exact"]["plan"]) == plan_digest(g)
    assert sp["annealing"]["motto"].cost >= sp["exact"]["motto"].cost - 1e-9 * sp["exact"]["motto"].cost


# ---- configuration ---------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [0, -1, 2.5, "two", True, 10**6])
def test_a_bad_core_count_is_a_config_error(bad):
    with pytest.raises(ConfigError, match="core count"):
        check_cores(bad)
    assert check_cores(3) == 3 and check_cores(4.0) == 4


def test_masters_of_the_core_study():
    assert cores_master(3, None) == ("local[3]", {})
    url, props = cores_master(2, "spark://127.0.0.1:7077")
    assert url == "spark://127.0.0.1:7077" and props["spark.cores.max"] == 2 and props["spark.executor.cores"] == 1
    with pytest.raises(ConfigError, match="standalone master"):
        cores_master(2, "yarn")


@pytest.mark.parametrize("override, fragment", [
    ("exp.scales.quick.values.cores=[1,0]", "core count"),
    ("exp.scales.quick.values.cores=[1,x]", "core count"),
    ("exp.sweeps=[{x: cores, algorithms: [NA, SH-MDT]}]", "runs one method"),
    ("exp.sweeps=[{x: queries, algorithms: [exact, annealing]}]", "needs NA"),
])
def test_bad_sweeps_are_config_errors(override, fragment):
    from experiments.exps.motto import build_specs

    with pytest.raises(ConfigError, match=fragment):
        build_specs(_cfg(override))


def test_a_bad_core_count_exits_2_with_one_line(tmp_path):
    r = subprocess.run([sys.executable, "-m", "experiments", "run", "+exp=motto_fig14", "exp.scales.quick.values.cores=[0]",
                        f"results_dir={tmp_path}"], capture_output=True, text=True, timeout=300, cwd=ROOT, check=False)
    assert r.returncode == 2
    lines = [x for x in r.stderr.splitlines() if x.strip() and "incubator" not in x]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "core count" in lines[0]


@pytest.mark.spark
@pytest.mark.slow
def test_the_core_study_runs_in_the_driver_after_the_runners_cells(tmp_path):
    """The whole path through Hydra and the Spark runner: the queries cells as Spark tasks, then the
    core cells in the driver on local[1] and local[2] sessions; their counts equal the serial run's."""
    from experiments.running.store import ResultStore

    r = subprocess.run([sys.executable, "-m", "experiments", "run", "+exp=motto_fig14", "runner.master='local[2]'",
                        "exp.sweeps=[{x: queries, algorithms: [NA, exact, annealing]}, {x: cores, algorithms: [SH-MDT]}]",
                        "exp.scales.quick.values.queries=[6]", "exp.scales.quick.values.cores=[1,2]", "exp.scales.quick.seeds=[0]",
                        "exp.scales.quick.windows=40", "exp.scales.quick.repeats=1", "exp.scales.quick.cores_repeats=1",
                        "exp.scales.quick.base.queries=8", "exp.scales.quick.sweep_base.cores.queries=8", "progress=false",
                        f"results_dir={tmp_path}"],
                       capture_output=True, text=True, timeout=600, cwd=ROOT, check=False)
    assert r.returncode == 0, r.stderr
    assert "running 1 on spark" in r.stderr and "running 2 on serial" in r.stderr
    df = ResultStore(tmp_path / "motto_fig14").load()
    cores = df[df["x_name"] == "cores"]
    assert sorted(cores["x_value"].unique()) == [1.0, 2.0]
    m = cores[cores["metric"] == "matches"].groupby("x_value")["value"].nunique()
    assert (m == 1).all()  # the k-task run and the one-thread run agree in each cell
    mm = cores[cores["metric"] == "parallel_mismatches"]
    assert len(mm) == 2 and (mm["value"] == 0).all()  # recorded per cell (a mismatch is stored, not raised)
    assert set(cores[cores["metric"] == "throughput_eps"]["algorithm"]) == {"SH-MDT", "serial"}
    q = df[(df["x_name"] == "queries") & (df["metric"] == "throughput_eps")]
    assert set(q["algorithm"]) == {"NA", "exact", "annealing"}
