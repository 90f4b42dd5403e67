"""motto_fig13 and motto_fig14 (MOTTO Section VII): the baselines MST and LCSE, the MPM realization of
sharing decisions, the cells of both experiments (each method's global plan detects, per pattern,
exactly what the pattern detects alone), the report sections, and the config wiring."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from algorithms.motto import conj, seq
from algorithms.motto.baselines import MST_TECHNIQUES, common_subexpression, lcse_sharing, mst_plan
from algorithms.multi import plan_workload
from cep.errors import ConfigError
from cep.parser import parse_patterns
from cep.pattern import Window
from cep.statistics import Statistics

ROOT = Path(__file__).resolve().parents[2]
W = Window.seconds(10)


def _cfg(exp: str, *overrides: str):
    from hydra import compose, initialize_config_dir

    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base="1.3"):
        return compose("config", overrides=[f"+exp={exp}", "runner=serial", *overrides])


# ---- the baselines -----------------------------------------------------------------------------
def test_lcse_takes_contiguous_runs_for_seq_and_common_operands_for_conj():
    # SEQ: a substring is a sub-expression, a subsequence is not
    assert common_subexpression(seq("A", "B", "C", window=W), seq("A", "B", "C", "D", window=W)).types == ("A", "B", "C")
    assert common_subexpression(seq("A", "C", window=W), seq("A", "B", "C", window=W)) is None
    assert common_subexpression(seq("X", "A", "B", "Y", window=W), seq("Z", "A", "B", "V", window=W)).types == ("A", "B")
    # CONJ is commutative: the common operands, whatever their written order
    assert set(common_subexpression(conj("B", "A", window=W), conj("X", "A", "B", window=W)).types) == {"A", "B"}
    # different operators or windows: nothing in common
    assert common_subexpression(seq("A", "B", window=W), conj("A", "B", window=W)) is None
    assert common_subexpression(seq("A", "B", window=W), seq("A", "B", "C", window=Window.seconds(5))) is None
    qs = [seq("A", "B", "C", window=W, name="q1"), seq("A", "B", "C", "D", window=W, name="q2"),
          seq("X", "B", "C", window=W, name="q3")]
    chosen = lcse_sharing(qs)
    assert chosen["q1"].types == ("A", "B", "C") and chosen["q2"].types == ("A", "B", "C") and chosen["q3"].types == ("B", "C")


def test_mst_shares_whole_queries_only_by_merge_techniques():
    qs = [seq("A", "B", window=W, name="q1"), seq("A", "B", "C", window=W, name="q2"),
          conj("A", "B", window=W, name="q3"), seq("A", "B", "C", window=Window.seconds(5), name="q4")]
    mp = mst_plan(qs, Statistics({t: 1.0 for t in "ABC"}))
    assert mp.graph_size["steiner"] == 0  # no interesting sub-queries, no extended windows
    for s in mp.shared():
        assert set(s.derivation.techniques) <= MST_TECHNIQUES
        assert s.source in {"q1", "q2", "q3", "q4"}
    # q2 is computed from q1 (substring); OTT (q1 from q3) and the window filter (q4 from q2) are not MST
    assert mp.step(mp.answer["q2"]).source == "q1"
    assert mp.step(mp.answer["q4"]).source == "q0"


def test_a_whole_query_source_is_one_shared_subtree_of_the_mpm():
    """MST's whole-query sharing: SEQ(A, B, C) is the source of SEQ(A, B, C, D); the source's own tree
    is the shared subtree (before, the source kept its own DP-B tree and the sharing was lost)."""
    pats = parse_patterns("""
        PATTERN SEQ(A a, B b, C c) WITHIN 5 seconds
        PATTERN SEQ(A a, B b, C c, D d) WITHIN 5 seconds""")
    stats = Statistics({"A": 3.0, "B": 0.5, "C": 2.0, "D": 1.0}, {})
    for name in ("MST", "LCSE", "SH-MDT"):
        r = plan_workload(pats, name, stats)
        top = [n for n in r.plan.shared_nodes() if n.size == 3]
        assert top and {o for n in top for o in n.users} == {(0, 0), (1, 0)}, name
    na = plan_workload(pats, "NA", stats)
    assert not [n for n in na.plan.shared_nodes() if n.size > 1]


# ---- the cells -----------------------------------------------------------------------------------
@pytest.mark.parametrize("exp, sweep, value", [("motto_fig13", "r", 1.0), ("motto_fig13", "r", 0.0),
                                               ("motto_fig14", "window_ratio", 0.25), ("motto_fig14", "nesting", 4)])
def test_each_method_detects_per_pattern_what_the_pattern_detects_alone(exp, sweep, value):
    from evaluators.brute_force import brute_force_matches
    from evaluators.multi import evaluate_workload
    from experiments.data.streams import experiment_stream
    from experiments.exps.motto import METHODS, MOTTO, build_specs
    from experiments.data.statistics import estimate_workload_statistics

    cfg = _cfg(exp, "exp.scales.quick.seeds=[0]", "exp.scales.quick.windows=12", "exp.scales.quick.base.queries=8")
    specs = [s for s in build_specs(cfg) if s["x_name"] == sweep and s["x_value"] == value]
    assert len(specs) == 1 and specs[0]["algorithms"] == list(METHODS)
    stream = experiment_stream(specs[0]["stream"])
    events = stream.slice(0, 120).to_events()
    pats = MOTTO.workload(specs[0], stream)
    assert len(pats) == 8
    stats = estimate_workload_statistics(stream, pats, seed=0)
    alone = [Counter(brute_force_matches(p, events)) for p in pats]
    assert sum(map(len, alone)) > 0
    for alg in specs[0]["algorithms"]:
        r = plan_workload(pats, alg, stats, time_limit=2.0)
        res = evaluate_workload(pats, r.plan, events)
        for i in range(len(pats)):
            assert Counter(res.matches_by_pattern[i]) == alone[i], (alg, i)


@pytest.fixture(scope="module")
def tiny_rows():
    from experiments.exps.motto import build_specs, run_cell

    rows = []
    for exp, extra in (("motto_fig13", ["exp.scales.quick.values.r=[0.0,1.0]"]),
                       ("motto_fig14", ["exp.scales.quick.values.queries=[5,10]", "exp.scales.quick.values.window_ratio=[4,1,0.25]",
                                        "exp.scales.quick.values.nesting=[2,3]",
                                        # the core study starts its own Spark sessions: tests/experiments/test_motto_parallel.py
                                        ("exp.sweeps=[{x: queries, algorithms: [NA, exact, annealing]}, "
                                         "{x: window_ratio, algorithms: [NA, MST, LCSE, SH-MDT]}, "
                                         "{x: nesting, algorithms: [NA, MST, LCSE, SH-MDT], base: {r: 0.0}}]")])):
        cfg = _cfg(exp, "exp.scales.quick.seeds=[0,1]", "exp.scales.quick.windows=20", "exp.scales.quick.repeats=1",
                   "exp.scales.quick.base.queries=6", "exp.scales.quick.base.budget_s=1", *extra)
        rows += [r for s in build_specs(cfg) for r in run_cell(s)]
    return rows


def test_cells_agree_and_the_sections_have_the_papers_claims(tiny_rows, tmp_path):
    from experiments.reporting.core import SectionInput
    from experiments.reporting.motto import fig13, fig14
    from cep.metrics import METRICS
    from experiments.running.store import ResultStore

    assert {r["metric"] for r in tiny_rows} <= set(METRICS)
    store = ResultStore(tmp_path / "store")  # a cell of several methods keeps every method's rows
    by_cell: dict = {}
    for r in tiny_rows:
        by_cell.setdefault(r["cell_id"], []).append(r)
    for cid, rows in by_cell.items():
        store.append(cid, {"cell_id": cid}, rows)
    df = store.consolidate()
    assert len(df) == len(tiny_rows)
    m = df[(df["metric"] == "matches") & (df["status"] == "ok")]
    for (_, x_name, _, _), g in m.groupby(["experiment", "x_name", "x_value", "seed"]):
        assert g["value"].nunique() == 1 and len(g) == (3 if x_name == "queries" else 4)
    s13 = fig13(SectionInput("motto_fig13", df[df["experiment"] == "motto_fig13"], {}, tmp_path / "a"))
    s14 = fig14(SectionInput("motto_fig14", df[df["experiment"] == "motto_fig14"], {}, tmp_path / "b"))
    assert s13.figures and s14.figures
    t13 = " ".join(c.claim for c in s13.claims)
    assert "MOTTO beats MST and LCSE" in t13 and "MST's throughput falls as r decreases" in t13
    t14 = " ".join(c.claim for c in s14.claims)
    for part in ("exact optimizer gives a better improvement", "plans give more throughput than annealing's", "from 1 to 2 cores",
                 "every window ratio", "nesting level"):
        assert part in t14
    cores = next(c for c in s14.claims if c.key == "cores_scale")
    assert cores.verdict == "not checkable"  # no core cells here


# ---- wiring --------------------------------------------------------------------------------------
def test_registry_and_kind():
    from algorithms.multi import multi_planner_names
    from experiments.exps import EXPERIMENT_KINDS
    from experiments.reporting import SECTIONS

    assert {"NA", "MST", "LCSE", "SH-MDT"} <= set(multi_planner_names())
    assert EXPERIMENT_KINDS["motto"] == "experiments.exps.motto"
    assert {"motto_fig13", "motto_fig14"} <= set(SECTIONS)
    for exp in ("motto_fig13", "motto_fig14"):
        assert _cfg(exp).exp.kind == "motto"


@pytest.mark.parametrize("override, fragment", [
    ("+exp.scales.quick.base.colour=1", "unknown parameter 'colour'"),
    ("exp.sweeps=[{x: size, algorithms: [NA]}]", "unknown sweep 'size'"),
    ("exp.sweeps=[{x: r, algorithms: [NA, SPASS]}]", "unknown method 'SPASS'"),
])
def test_bad_config_is_a_config_error_and_a_one_line_exit_2(override, fragment, tmp_path):
    from experiments.exps.motto import build_specs

    with pytest.raises(ConfigError, match=fragment):
        build_specs(_cfg("motto_fig13", override))
    r = subprocess.run([sys.executable, "-m", "experiments", "run", "+exp=motto_fig13", override, f"results_dir={tmp_path}"],
                       capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 2
    lines = [x for x in r.stderr.splitlines() if x.strip() and "incubator" not in x]
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0]


def test_verify_compares_each_algorithm_of_a_cell_of_several():
    """A motto cell holds every method of a workload: verify keys its values and plans by algorithm."""
    import pandas as pd

    from experiments.tools.verify import _by_metric, _plans

    rows = pd.DataFrame({"algorithm": ["NA", "NA", "MST", "MST"], "metric": ["plan_cost", "matches"] * 2,
                         "x_value": [1.0] * 4, "value": [3.0, 7.0, 2.0, 7.0], "plan": ["a", "a", "b", "b"]})
    assert _by_metric(rows) == {"NA:plan_cost@1": 3.0, "NA:matches@1": 7.0, "MST:plan_cost@1": 2.0, "MST:matches@1": 7.0}
    assert _plans(rows) == "MST=b;NA=a"
    one = rows[rows["algorithm"] == "NA"]
    assert _by_metric(one) == {"plan_cost@1": 3.0, "matches@1": 7.0} and _plans(one) == "a"


def test_motto_prices_plans_for_an_engine_that_shares_event_buffers():
    """Without charge_leaves a query's cost leaves out its primitive leaves (W r_i each), which an
    MPM pays once whatever the plan; the nodes above them cost the same."""
    from algorithms.motto.cost import MottoCosts

    stats = Statistics({"A": 1.0, "B": 2.0, "C": 0.5})
    q = seq("A", "B", "C", window=W)
    full, shared = MottoCosts(stats).tree_cost(q), MottoCosts(stats, charge_leaves=False).tree_cost(q)
    assert full - shared == pytest.approx(10 * (1.0 + 2.0 + 0.5))


def test_motto_cells_record_the_annealing_neighbours(tiny_rows):
    """MST and SH-MDT rows (and Figure 14a's exact and annealing rows) store the neighbours MOTTO's
    annealing evaluated: all of its budget for the annealing alone, 0 where the exact search finished
    and no annealing ran, never more than the budget (algorithms/effort.py)."""
    got = {}
    for r in tiny_rows:
        if r["metric"] == "neighbours_evaluated":
            got.setdefault(r["algorithm"], []).append(r["value"])
    assert {"MST", "SH-MDT", "exact", "annealing"} <= set(got)
    assert set(got["annealing"]) == {20000}  # quick's search_neighbours, spent exactly (the graphs have Steiner vertices)
    assert set(got["exact"]) == {0}  # the exact search alone never anneals
    assert all(0 <= v <= 20000 for alg in ("MST", "SH-MDT") for v in got[alg])
    assert not any(r["metric"] == "neighbours_evaluated" for r in tiny_rows if r["algorithm"] in ("NA", "LCSE"))
