"""MCEP workloads (6.1 / App. D), the reshuffling transformer (6.2.3), the drift rule, and the
``mcep`` experiment kind end to end on a tiny grid (cells, rows, report section)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from cep.errors import ConfigError
from cep.columnar import EventColumns
from cep.events import Event
from cep.global_plans import workload_clauses
from cep.pattern import Not, Op, Window, iter_events
from experiments.exps.mcep_adaptive import drifted, worth_switching
from experiments.workloads.mcep import (
    WorkloadSpec,
    calibrate_workload,
    make_workload,
    measured_density,
    reshuffle_types,
)

TYPES = [f"T{i:02d}" for i in range(30)]


def test_workloads_follow_their_parameters():
    pats = make_workload(WorkloadSpec(n_patterns=200, avg_size=5, window=Window.seconds(60), density=0.3, seed=1), TYPES)
    assert pats == make_workload(WorkloadSpec(n_patterns=200, avg_size=5, window=Window.seconds(60), density=0.3, seed=1), TYPES)
    sizes = [len(p.variables) for p in pats]
    assert set(sizes) <= {4, 5, 6} and abs(sum(sizes) / len(sizes) - 5) < 0.3
    special = sum(any(k != "positive" for _, k in iter_events(p.structure)) for p in pats)
    assert 0.12 < special / len(pats) < 0.28
    preds = [len(p.conditions) / len(p.variables) for p in pats]
    assert 0.3 < sum(preds) / len(preds) < 0.6
    assert {p.structure.op for p in pats} == {Op.SEQ, Op.AND}
    for p in pats:
        assert p.window == Window.seconds(60)
        negs = [x for x in p.structure.children if isinstance(x, Not)]
        if negs and p.structure.op is Op.SEQ:
            assert not isinstance(p.structure.children[0], Not) and not isinstance(p.structure.children[-1], Not)
        workload_clauses([p])  # valid


def test_small_patterns_take_a_prefix_of_a_longer_fragment():
    """Density 0.9 is one shared fragment (2 or 3 events); a pattern of 2 events with a fragment of 3 embeds the
    fragment's first two, in order, and every longer pattern the whole fragment, in order.  The fragment is
    read off the workload: the types every pattern of 3 or more events has."""
    cut = 0
    for seed in range(20):
        patterns = make_workload(WorkloadSpec(n_patterns=30, avg_size=3, density=0.9, seed=seed), TYPES)
        types = [[e.type for e, _ in iter_events(p.structure)] for p in patterns]
        longer = [t for t in types if len(t) >= 3]
        fragment = [t for t in longer[0] if all(t in other for other in longer)]
        assert 2 <= len(fragment) <= 3, seed
        for t in longer:
            assert [x for x in t if x in fragment] == fragment, seed
        for p, t in zip(patterns, types):
            assert len(t) >= 2
            workload_clauses([p])
            if len(t) == 2:
                assert t == fragment[:2], seed
                cut += len(fragment) == 3
    assert cut  # some workloads cut a fragment of 3 to a pattern of 2


def test_density_controls_sharing_and_rate_difference_the_type_band():
    low = measured_density(make_workload(WorkloadSpec(n_patterns=40, avg_size=4, density=0.1, structure="seq", seed=2), TYPES))
    high = measured_density(make_workload(WorkloadSpec(n_patterns=40, avg_size=4, density=0.6, structure="seq", seed=2), TYPES))
    assert high > low
    narrow = make_workload(WorkloadSpec(n_patterns=40, avg_size=4, density=0.0, rate_diff=0.2, seed=3), TYPES)
    for p in narrow:
        idx = sorted(TYPES.index(t) for t in p.event_types)
        assert idx[-1] - idx[0] < 8


def test_calibration_keeps_a_shared_predicate_shared():
    import numpy as np

    pats = make_workload(WorkloadSpec(n_patterns=30, avg_size=4, density=0.5, structure="seq", seed=4), TYPES)
    rng = np.random.default_rng(0)
    vals = {t: rng.normal(size=200) for t in TYPES}
    cal = calibrate_workload(pats, lambda t, a: vals[t], (0.01, 0.5), seed=0)
    assert measured_density(cal) == pytest.approx(measured_density(pats))


def test_calibration_names_a_pool_type_without_events():
    import numpy as np

    pats = make_workload(WorkloadSpec(n_patterns=10, avg_size=4, density=0.5, structure="seq", seed=4), TYPES)
    rng = np.random.default_rng(0)
    vals = {t: rng.normal(size=50) for t in TYPES}
    silent = pats[0].var_types()[next(c.left.var for p in pats[:1] for c in p.conditions)]
    vals[silent] = np.array([])
    with pytest.raises(ConfigError, match=f"no {silent} event"):
        calibrate_workload(pats, lambda t, a: vals[t], (0.01, 0.5), seed=0)


def test_reshuffling_permutes_types_every_x_events():
    evs = [Event(TYPES[i % 10], float(i), {}) for i in range(100)]
    out = reshuffle_types(EventColumns.from_events(evs), 20, 4, TYPES[:10], seed=0).to_stream()
    assert [e.type for e in out.events[:20]] == [e.type for e in evs[:20]]
    assert [e.type for e in out.events] != [e.type for e in evs]
    for k in range(0, 100, 20):  # within a segment the mapping is one permutation: the counts stay a multiset
        assert sorted(Counter(e.type for e in out.events[k:k + 20]).values()) == sorted(Counter(e.type for e in evs[k:k + 20]).values())


def test_drift_rule_tests_the_type_proportions_of_the_sliding_window():
    assert not drifted([100, 200, 300], [100, 200, 300], 0.001)
    assert not drifted([100, 200, 300], [110, 190, 300], 0.001)  # sampling noise
    assert drifted([100, 200, 300], [300, 200, 100], 0.001)  # two types swapped (a reshuffle)
    assert drifted([100, 0, 300], [100, 50, 250], 0.001)  # a type appears
    assert not drifted([0, 0, 600], [0, 0, 600], 0.001)  # one category: nothing to test


def test_a_plan_switch_must_pay_for_the_window_the_old_plan_keeps_running():
    # gain (C_cur - C_new) * H / N_W against the switching cost C_cur
    assert worth_switching(100.0, 10.0, 3000, 1000)  # 90 * 3 > 100
    assert not worth_switching(100.0, 10.0, 1000, 1000)  # 90 * 1 < 100: the horizon is too short
    assert not worth_switching(100.0, 120.0, 10**6, 1000)  # no gain


@pytest.fixture(scope="module")
def tiny_rows():
    from hydra import compose, initialize_config_dir

    from experiments.exps.mcep import build_specs, run_cell

    root = Path(__file__).resolve().parents[2]
    with initialize_config_dir(config_dir=str(root / "configs"), version_base="1.3"):
        cfg = compose("config", overrides=[
            "+exp=mcep_fig13", "runner=serial", "exp.datasets=[nasdaq]",
            "exp.scales.quick.seeds=[0,1]", "exp.scales.quick.repeats=1", "exp.scales.quick.windows=3",
            "exp.scales.quick.events_per_window=5",
            "exp.scales.quick.values.window=[300]", "exp.scales.quick.values.count_window=[30]",
            "exp.scales.quick.values.reshuffle_every=[400]", "exp.scales.quick.base.search_time=0.1", "exp.scales.quick.base.search_neighbours=200",
            "exp.scales.quick.base.workload_size=5", "exp.scales.quick.adaptive.drift_window=300",
            "exp.scales.quick.adaptive.check_every=100",
        ])
    specs = build_specs(cfg)
    assert len(specs) == 2 * (3 + 3 + 2)
    rows = [r for s in specs for r in run_cell(s)]
    return rows


def test_the_reshuffling_cells_take_their_window_and_seeds_from_the_adaptive_settings():
    from experiments.exps.mcep import build_specs
    from experiments.running.compose import compose_config

    cfg = compose_config(["+exp=mcep_fig13", "runner=serial", "exp.datasets=[nasdaq]",
                          "+exp.scales.quick.adaptive.window=111", "+exp.scales.quick.adaptive.seeds=[7]"])
    specs = build_specs(cfg)
    reshuffled = [s for s in specs if s["x_name"] == "reshuffle_every"]
    others = [s for s in specs if s["x_name"] != "reshuffle_every"]
    assert {s["seed"] for s in reshuffled} == {7} and len(reshuffled) == 2 * 3  # static and adaptive at 3 values of x
    assert all(s["params"]["window"] == 111 and "seeds" not in s["params"] for s in reshuffled)
    assert {s["seed"] for s in others} == {0, 1, 2} and {s["params"]["window"] for s in others if s["x_name"] != "window"} == {600}


def test_cells_store_rows_and_the_report_section_has_claims(tiny_rows, tmp_path):
    from cep.metrics import METRICS
    from experiments.reporting.core import SectionInput
    from experiments.reporting.core import HOLDS
    from experiments.reporting.mcep import fig13
    from experiments.running.store import rows_table

    assert {r["metric"] for r in tiny_rows} <= set(METRICS)
    df = rows_table(tiny_rows).to_pandas()
    m = df[(df["metric"] == "matches") & (df["status"] == "ok")]
    for _, g in m.groupby(["x_name", "x_value", "seed"]):
        assert g["value"].nunique() == 1  # every plan (and static/adaptive) finds the same matches
    section = fig13(SectionInput("mcep_fig13", df, {}, tmp_path))
    assert section.claims and section.figures
    assert any("adaptive" in c.claim for c in section.claims)
    # the reshuffling cells replay nothing, every event entering once, and the report says so
    rs = df[(df["x_name"] == "reshuffle_every") & (df["status"] == "ok")]
    assert set(rs.loc[rs["metric"] == "replayed_events", "value"]) == {0.0}
    assert {"drift_detections", "replans", "overlap_events"} <= set(rs["metric"])
    (activity,) = [c for c in section.claims if "without replaying events" in c.claim]
    assert activity.verdict == HOLDS and "drift detected" in activity.ours


def test_verify_replays_a_time_limited_fig11_cell_exactly():
    """A search-time cell records the neighbours each component evaluated; verify's re-run replays them, and the
    plan, costs and counts come out identical."""
    import pandas as pd

    from experiments.exps.mcep import build_specs, run_cell
    from experiments.tools.verify import replay_spec

    cfg = _tiny_fig11("exp.scales.quick.values.search_time=[0.3]", "exp.scales.quick.values.search_neighbours=[]")
    spec = next(s for s in build_specs(cfg) if s["algorithm"] == "TS-EDGE")
    rows = pd.DataFrame(run_cell(spec))
    replayed = replay_spec(spec, rows)
    assert replayed["params"]["search_replay_neighbours"] and "search_replay_neighbours" not in spec["params"]
    again = pd.DataFrame(run_cell(replayed))
    assert set(again["plan"]) == set(rows["plan"])
    for metric in ("plan_cost", "trivial_cost", "matches", "events", "work", "peak_partial_matches", "neighbours_evaluated"):
        assert again.loc[again.metric == metric, "value"].tolist() == rows.loc[rows.metric == metric, "value"].tolist()


def test_an_effort_cell_records_the_neighbours_its_search_evaluated():
    """A cell of Figure 11's effort sweep runs its search on exactly the budget it names (no clock, no
    replay needed) and stores the neighbours evaluated, which equal that budget unless a component's
    neighbourhood ran out (``search_exhausted``); re-running it gives the same plan and count."""
    import pandas as pd

    from experiments.exps.mcep import build_specs, run_cell

    cfg = _tiny_fig11("exp.scales.quick.values.search_time=[]", "exp.scales.quick.values.search_neighbours=[321]")
    specs = [s for s in build_specs(cfg) if s["x_name"] == "search_neighbours" and s["algorithm"] in ("SA-EDGE", "TS-EDGE")]
    assert len(specs) == 2
    for spec in specs:
        rows = pd.DataFrame(run_cell(spec))
        got = dict(zip(rows["metric"], rows["value"]))
        assert got["neighbours_evaluated"] == 321 or (got["neighbours_evaluated"] < 321 and got["search_exhausted"] > 0)
        assert "search_replay_neighbours" not in rows["params"].iloc[0]
        again = pd.DataFrame(run_cell(spec))
        assert set(again["plan"]) == set(rows["plan"])
        assert dict(zip(again["metric"], again["value"]))["neighbours_evaluated"] == got["neighbours_evaluated"]


def _tiny_fig11(*overrides: str):
    """mcep_fig11 at quick scale on one seed, five patterns and a three-window stream."""
    from experiments.running.compose import compose_config

    return compose_config(["+exp=mcep_fig11", "runner=serial", "exp.scales.quick.seeds=[0]", "exp.scales.quick.repeats=1",
                           "exp.scales.quick.windows=3", "exp.scales.quick.events_per_window=5",
                           "exp.scales.quick.base.workload_size=5", *overrides])
