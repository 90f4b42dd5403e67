"""Regime maps (issue 38): a map on a tiny grid end to end through the command line (cells stored, resumable,
figures, MAP.md, effects.csv, the guard on results/), the grid and its checks, the verdict of a point by the
rule set, the report's section with and without maps, and --estimate."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from cep.errors import ConfigError
from experiments.cli import main as cli_main
from experiments.exps import maps
from experiments.reporting import build_report
from experiments.reporting.map_verdicts import A_WINS, B_WINS, NO_DATA, OPEN, TIE, judge
from experiments.reporting.maps import load_map, map_effects
from experiments.reporting.maps_section import maps_section, placement
from experiments.running.compose import compose_config
from experiments.running.store import ResultStore

REPO = Path(__file__).resolve().parents[2]
MAP_NAMES = sorted(p.stem for p in (REPO / "configs" / "map").glob("*.yaml"))
TINY = ["runner=serial", "progress=false", "exp.workloads=2", "exp.scales.quick.repeats=1",
        "exp.scales.quick.values={events_per_window:[10,20],size:[3,4]}", "exp.scales.quick.pairs=[[events_per_window,size]]",
        "exp.scales.quick.min_stream_events=400"]


def _cfg(name: str, *overrides: str):
    return compose_config([f"+map={name}", "runner=serial", "progress=false", *overrides], select="map")


def test_a_map_on_a_tiny_grid_end_to_end(tmp_path, capsys):
    args = ["map", "+map=dpld_vs_efreq", *TINY, f"results_dir={tmp_path}"]
    assert cli_main(args) == 0
    folder = tmp_path / "maps" / "dpld_vs_efreq"
    rows = ResultStore(folder).load()
    assert rows["cell_id"].nunique() == 8  # 4 points x 2 workloads, both planners in every cell
    assert set(rows["algorithm"]) == {"DP-LD", "EFREQ"}
    assert set(rows.groupby("cell_id")["algorithm"].nunique()) == {2}
    effects = pd.read_csv(folder / "effects.csv")
    assert len(effects) == 4 * 3  # every point on throughput, work and plan cost
    assert set(effects["status"]) == {"measured"}
    # DP-LD's order is the cheapest under Cost_ord, and an order's Cost_tree is its Cost_ord plus the same leaves:
    # EFREQ's plan can never cost less, so DP-LD's cost effect over it is at least 1 at every point
    cost = effects[effects["metric"] == "plan_cost_tree"]
    assert (cost["effect"] >= 1 - 1e-9).all() and (cost["n"] == 2).all()
    page = (folder / "MAP.md").read_text()
    png = folder / "figures" / "dpld_vs_efreq_events_per_window_x_size.png"
    assert png.stat().st_size > 10_000 and f"({png.relative_to(folder).as_posix()})" in page
    assert "DP-LD over EFREQ" in page and "The paper's regime" in page
    # resumable: a rerun runs no cell
    capsys.readouterr()
    assert cli_main(args) == 0
    assert "(8 already done" in capsys.readouterr().err


def test_points_past_evaluate_up_to_are_planned_only(tmp_path):
    assert cli_main(["map", "+map=dpld_vs_dpb", *TINY, "+exp.scales.quick.evaluate_up_to=10", f"results_dir={tmp_path}"]) == 0
    data = load_map(tmp_path / "maps" / "dpld_vs_dpb")
    by = {(data.points[e.point]["events_per_window"], e.metric): e.status for e in map_effects(data)}
    assert by[(10.0, "throughput_eps")] == "measured" and by[(20.0, "throughput_eps")] == "planned only"
    assert by[(20.0, "work")] == "planned only" and by[(20.0, "plan_cost_tree")] == "measured"


def test_a_map_writes_to_results_only_with_reference(capsys):
    assert cli_main(["map", "+map=dpld_vs_dpb", *TINY, "results_dir=results"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "committed reference" in err[0]


@pytest.mark.parametrize("argv, message", [
    (["map"], "choose a map with +map=<name>"),
    (["map", "+exp=jqpg_fig3"], "+exp=jqpg_fig3: choose a map with +map=<name>"),
    (["map", "+map=nonesuch"], "unknown map 'nonesuch'"),
    (["map", "+map=dpld_vs_dpb", "exp.scales.quick.pairs=[[size,size]]"], "must name two distinct axes"),
    (["map", "+map=dpld_vs_dpb", "exp.scales.quick.values.size=[5,6]"], "must hold the base value 4"),
    (["map", "+map=dpld_vs_dpb", "exp.against=[SA-EDGE]"], "SA-EDGE"),
    (["run", "+map=dpld_vs_dpb"], "+map=dpld_vs_dpb: choose an experiment with +exp=<name>"),
])
def test_map_mistakes_are_one_line(argv, message, capsys):
    assert cli_main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err


@pytest.mark.parametrize("name", MAP_NAMES)
@pytest.mark.parametrize("scale", ["quick", "standard", "paper"])
def test_every_map_builds_its_cells_at_every_scale(name, scale):
    cfg = _cfg(name, f"scale={scale}")
    specs = maps.build_specs(cfg)
    sc = maps.settings(cfg)
    points = maps.grid_points(maps.family(cfg), sc)
    assert len(specs) == maps.count_cells(cfg) == len(points) * int(sc["workloads"])
    assert len({s["pattern_id"] for s in specs}) == len(specs)
    base = {a: float(v) for a, v in sc["base"].items()}
    assert any({a: float(v) for a, v in p.items()} == base for p in points)  # the slices meet at the base point
    for x, y in sc["pairs"]:  # every slice is complete
        on = [p for p in points if all(math.isclose(float(p[a]), base[a]) for a in base if a not in (x, y))]
        assert len({(p[x], p[y]) for p in on}) >= len(sc["values"][x]) * len(sc["values"][y])


def test_a_workloads_random_choices_do_not_depend_on_the_point():
    specs = maps.build_specs(_cfg("dpld_vs_dpb"))
    pools = {}
    for s in specs:
        pools.setdefault((s["point"]["size"], s["seed"]), set()).add(tuple(s["stream"]["pool"]))
    assert all(len(v) == 1 for v in pools.values())  # common random numbers across the points of one size
    assert len({v.pop() for (size, _), v in pools.items() if size == 4}) == 3  # and three different workloads


@pytest.mark.parametrize("ratios, lower, upper, outcome", [
    ([2.0, 2.0, 2.0], None, None, A_WINS),
    ([0.5, 0.52, 0.48], None, None, B_WINS),
    ([1.0, 1.0, 1.0], None, None, TIE),
    ([1.02, 0.99, 1.01, 0.98], None, None, TIE),
    ([1.010, 1.012, 1.011, 1.013, 1.009], None, None, TIE),  # excludes 1, yet bounded below 1.25x: not a win
    ([0.5, 2.0, 0.7, 1.6], None, None, OPEN),
    ([], None, None, NO_DATA),
    ([3.0, 3.2, 2.9, 3.1, 2.8, 3.3], [True] * 6, [False] * 6, A_WINS),  # lower bounds above 1: the win stands
    ([3.0, 3.2, 2.9, 3.1, 2.8, 3.3], [False] * 6, [True] * 6, OPEN),  # upper bounds above 1: nothing stands
    ([3.0, 3.2, 2.9], [True] * 3, [False] * 3, OPEN),  # censored, but fewer units than a sign-test interval needs
])
def test_the_verdict_of_a_point(ratios, lower, upper, outcome):
    v = judge(ratios, lower=lower, upper=upper)
    assert v.outcome == outcome
    assert v.decided == (outcome in (A_WINS, B_WINS))
    if outcome == OPEN and upper is None:
        assert v.needed and v.needed > len(ratios)


def test_placement_of_a_claim():
    assert placement("DP-B", ["DP-LD"], "DP-B", B_WINS) == "sits where its method wins"
    assert placement("DP-B", ["DP-LD"], "DP-B", A_WINS).startswith("sits where its method loses")
    assert placement("SA-EDGE", ["SA-EDGE", "TS-EDGE"], "RE", A_WINS) == "sits where its method wins"
    assert placement("tie", ["DP-LD"], "GREEDY", TIE) == "sits where they tie, as claimed"
    assert placement("DP-LD", ["DP-LD"], "EFREQ", OPEN).startswith("cannot be placed")


def test_the_report_section_without_maps_and_with_one(tmp_path):
    assert maps_section(tmp_path)[2].startswith("No regime maps in `maps/` here")
    out, _ = build_report(tmp_path)
    assert "## Regime maps: which method wins where" in out.read_text()
    assert cli_main(["map", "+map=hamlet_vs_greta", "runner=serial", "progress=false", "exp.workloads=2",
                     "exp.scales.quick.values={events_per_minute:[1000,2000],burst_mean:[10,120]}",
                     "exp.scales.quick.pairs=[[events_per_minute,burst_mean]]", "exp.scales.quick.minutes=1",
                     f"results_dir={tmp_path}"]) == 0
    text = build_report(tmp_path)[0].read_text()
    row = next(line for line in text.splitlines() if line.startswith("| [hamlet_vs_greta](maps/hamlet_vs_greta/MAP.md)"))
    assert "HAMLET 5.2" in row and "events/minute 10,000-20,000" in row and "grid steps away" in row
    assert "maps/hamlet_vs_greta/figures/hamlet_vs_greta_events_per_minute_x_burst_mean.png" in text


def test_a_map_runs_on_spark(tmp_path, spark):
    assert cli_main(["map", "+map=hamlet_vs_greta", "runner=spark", "runner.master='local[2]'", "progress=false", "exp.workloads=2",
                     "exp.scales.quick.values={events_per_minute:[1000],burst_mean:[10,120]}",
                     "exp.scales.quick.base.events_per_minute=1000", "exp.scales.quick.pairs=[[events_per_minute,burst_mean]]",
                     "exp.scales.quick.minutes=1", f"results_dir={tmp_path}"]) == 0
    rows = ResultStore(tmp_path / "maps" / "hamlet_vs_greta").load()
    assert rows["cell_id"].nunique() == 4 and set(rows["algorithm"]) == {"hamlet", "greta"}


def test_estimate_of_a_map(tmp_path, capsys):
    assert cli_main(["map", "+map=dpld_vs_dpb", *TINY, "--estimate", "--estimate-sample", "2", "--estimate-budget", "30",
                     "--json", f"results_dir={tmp_path}"]) == 0
    import json

    est = json.loads(capsys.readouterr().out)
    assert est["cells"] == 8 and est["sampled"] == 2 and est["cpu_s"] > 0
    assert not (tmp_path / "maps").exists()  # nothing stored


def test_a_config_without_a_family_is_one_line():
    with pytest.raises(ConfigError, match="names the map's family"):
        maps.family(_cfg("dpld_vs_dpb", "exp.figure=fig3"))
