"""The MCEP and Figure 12 claims (experiments/reporting/mcep.py, mcep_fig12.py) on results tables built by
hand: a tie with the runner-up is never support, identical plans count once, a capped baseline's work
gain is a lower bound, a trend inside one workload counts workloads, not points, every Figure 12 row is
an entry of the paper's sentences on Figure 12 with one value per seed, and a failing row's cause is
computed from the planned costs and the work."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from experiments.reporting import rules
from experiments.reporting.core import (
    FAILED,
    HOLDS,
    NOT_MEASURABLE,
    PARTLY,
    UNCHECKED,
    SectionInput,
)
from experiments.reporting.mcep_fig12 import _claims as fig12_claims
from experiments.reporting.mcep_fig12 import fig12
from experiments.reporting.mcep import _fig11_claims
from experiments.reporting.diagnosis import ENGINE, NOT_MODELLED, REGIME_OR_MODEL
from experiments.reporting.mcep_paired import (
    LOCAL,
    UNIT,
    cell_table,
    interval,
    paired,
    values,
    within_slope,
)
from experiments.running.store import COLUMNS

PARAMS = json.dumps({"max_work": 1000000})
SWEEPS = {"workload_size": [4, 8, 16], "pattern_size": [3, 4, 5], "window": [300, 600, 900], "count_window": [30, 60, 90]}


def rows(cells: list[dict], experiment: str = "fig12") -> pd.DataFrame:
    """Tidy rows from ``{dataset, x_name, x_value, seed, algorithm, plan, metrics, status}`` dicts."""
    out = []
    for c in cells:
        base = {k: None for k in COLUMNS}
        base.update(experiment=experiment, dataset=c.get("dataset", "nasdaq"), workload="mcep", size=4, seed=c["seed"],
                    algorithm=c["algorithm"], kind="multi", alpha=0.0, status=c.get("status", "ok"), plan=c["plan"],
                    params=PARAMS, x_name=c["x_name"], x_value=float(c["x_value"]),
                    cell_id=f"{c.get('dataset', 'nasdaq')}-{c['x_name']}-{c['x_value']}-{c['seed']}-{c['algorithm']}")
        for m, v in c["metrics"].items():
            out.append({**base, "metric": m, "value": v})
    return pd.DataFrame(out, columns=list(COLUMNS))


def fig12_table(factor: dict[str, float], *, seeds: int = 4, noise: float = 0.03, same_local_plan: bool = True,
                capped: tuple = (), capped_time: dict | None = None) -> pd.DataFrame:
    """Every method's throughput = the workload's TRIVIAL throughput x its factor x a small seeded
    jitter; work the inverse; SA-EDGE and TS-EDGE one plan (same digest, cost and work) unless told.
    ``capped``: (x_name, x_value, seed, algorithm) cells stopped at the work cap; ``capped_time`` gives
    such a cell the (events, seconds to the cap) it stored."""
    rng = np.random.default_rng(7)
    cells = []
    for ds in ("nasdaq", "traffic"):
        for sweep, xs in SWEEPS.items():
            for x in xs:
                for seed in range(seeds):
                    base = 1000.0 * (1 + seed) * (1 + x / 100)
                    for alg, f in factor.items():
                        if alg == "TS-EDGE" and same_local_plan:
                            src = next(c for c in cells[::-1] if c["algorithm"] == "SA-EDGE")
                            m = dict(src["metrics"])
                            m["throughput_eps"] *= float(np.exp(rng.normal(0, noise)))  # the same plan timed again
                            cells.append({**src, "algorithm": "TS-EDGE", "metrics": m})
                            continue
                        key = (sweep, x, seed, alg)
                        plan = f"{alg}-{sweep}-{x}-{seed}"
                        if key in capped:
                            cells.append({"dataset": ds, "x_name": sweep, "x_value": x, "seed": seed, "algorithm": alg, "plan": plan,
                                          "status": "capped: the joins examined more than 1,000,000 candidate combinations",
                                          "metrics": {"throughput_eps": None, **(
                                              {"events": capped_time[key][0], "capped_elapsed_s": capped_time[key][1]}
                                              if capped_time and key in capped_time else {})}})
                            continue
                        thr = base * f * float(np.exp(rng.normal(0, noise)))
                        cells.append({"dataset": ds, "x_name": sweep, "x_value": x, "seed": seed, "algorithm": alg, "plan": plan,
                                      "metrics": {"throughput_eps": thr, "work": 1e5 / f, "matches": 10.0,
                                                  "plan_cost": 100.0 / f, "trivial_cost": 100.0}})
    return rows(cells)


def by_claim(claims) -> dict:
    return {c.claim: c for c in claims}


def test_headline_holds_when_the_local_search_beats_every_baseline_by_a_margin():
    df = fig12_table({"TRIVIAL": 1.0, "SA-EDGE": 4.0, "TS-EDGE": 4.0, "SH-MDT": 2.5, "SH-RR": 2.0, "SH": 1.1, "RE": 2.0})
    c = by_claim(fig12_claims(df))["nasdaq: local search has the best overall speedup (up to 3x the runner-up)"]
    assert c.verdict == HOLDS
    assert "runner-up SH-MDT" in c.ours and "(n=4)" in c.ours  # one value per seed (its 4 sweeps x 3 values pooled)


def test_a_tie_with_the_runner_up_is_not_support():
    """TS-EDGE 3.61x against SH-MDT 3.42x was "holds" under the old rule: a local search only has to
    be on top.  Here the local search equals SH-MDT within 3% noise: the claimed 1.1x is excluded."""
    df = fig12_table({"TRIVIAL": 1.0, "SA-EDGE": 3.5, "TS-EDGE": 3.5, "SH-MDT": 3.5, "SH-RR": 1.7, "SH": 1.0, "RE": 2.2})
    c = by_claim(fig12_claims(df))["traffic: local search has the best overall speedup (up to 3x the runner-up)"]
    assert c.verdict in FAILED
    assert "over SH-RR" in c.ours and "holds" in c.ours  # the other baselines are beaten; the runner-up decides


def test_a_noisy_tie_is_not_measurable():
    df = fig12_table({"TRIVIAL": 1.0, "SA-EDGE": 3.5, "TS-EDGE": 3.5, "SH-MDT": 3.3, "SH-RR": 1.7, "SH": 1.0, "RE": 2.2},
                     noise=0.4, seeds=2)
    c = by_claim(fig12_claims(df))["nasdaq: local search has the best overall speedup (up to 3x the runner-up)"]
    assert c.verdict == NOT_MEASURABLE
    assert "units would decide it" in c.ours


def test_identical_plans_count_once():
    """SA-EDGE and TS-EDGE returned one plan on every workload: SA over TS is a tie of exactly 1 per
    workload (not a noisy ratio), and the pooled local search gives one observation per workload."""
    df = fig12_table({"TRIVIAL": 1.0, "SA-EDGE": 4.0, "TS-EDGE": 4.0, "SH-MDT": 2.0})
    t = cell_table(df[df["dataset"] == "nasdaq"])
    p = paired(t, "SA-EDGE", "TS-EDGE")
    assert (p["ratio"] == 1.0).all() and p["same_plan"].all()
    pooled = interval(paired(t, LOCAL, "TRIVIAL"))
    assert pooled.n == 4  # seeds: 4 sweeps x 3 values x 4 seeds are 48 workloads of 4 seeds, not 2 x 48 cells
    gain = by_claim(fig12_claims(df))["nasdaq: count-window panel follows Fig. 11(d): the local search's gain grows with the count window"]
    assert "12 of 12 workloads with identical plans counted once" in gain.ours  # the count-window sweep's 3 values x 4 seeds


def test_distinct_plans_of_one_digest_are_told_apart_by_their_work():
    """The stored digest covers the local plans only: two sharings of the same local plans differ in work."""
    df = fig12_table({"TRIVIAL": 1.0, "SA-EDGE": 4.0, "TS-EDGE": 4.0, "SH": 1.2})
    df.loc[df["algorithm"] == "SH", "plan"] = df.loc[df["algorithm"] == "SH", "cell_id"].str.replace("-SH", "-TRIVIAL")
    t = cell_table(df)
    t.loc[t["algorithm"] == "SH", "plan"] = t.loc[t["algorithm"] == "TRIVIAL", "plan"].to_numpy()
    p = paired(t, "SH", "TRIVIAL")
    assert not p["same_plan"].any() and p["ratio"].between(1.0, 1.5).all()


def test_a_capped_baseline_gives_a_work_lower_bound_and_no_throughput():
    capped = (("window", 900, 0, "TRIVIAL"),)
    df = fig12_table({"TRIVIAL": 1.0, "SA-EDGE": 4.0, "TS-EDGE": 4.0, "SH-MDT": 2.0}, capped=capped)
    t = cell_table(df[df["dataset"] == "nasdaq"])
    w = t[t["x_name"] == "window"]
    thr = paired(w, "SA-EDGE", "TRIVIAL")
    assert thr["ratio"].isna().sum() == 1
    work = paired(w, "SA-EDGE", "TRIVIAL", "work")
    bound = work[work["lower"]]
    assert len(bound) == 1 and bound["ratio"].iloc[0] == 1_000_000 / (1e5 / 4.0)  # cap / the plan's work
    assert interval(work).lower_bounds == 1


def test_a_capped_run_that_stored_its_time_is_a_throughput_bound():
    """A capped run that ran 2 s over a 1,000-event stream has a throughput of at most 500 events/s: a
    method's gain over that baseline is at least its throughput / 500 (a lower bound), and a capped
    method's gain over its baseline is at most 500 / the baseline's (an upper bound)."""
    base, meth = ("window", 900, 0, "TRIVIAL"), ("window", 600, 1, "SA-EDGE")
    df = fig12_table({"TRIVIAL": 1.0, "SA-EDGE": 4.0, "TS-EDGE": 4.0, "SH-MDT": 2.0}, capped=(base, meth),
                     capped_time={base: (1000, 2.0), meth: (1000, 2.0)}, same_local_plan=False)
    t = cell_table(df[df["dataset"] == "nasdaq"])
    w = t[t["x_name"] == "window"]
    thr = paired(w, "SA-EDGE", "TRIVIAL")
    assert thr["ratio"].notna().all()
    low = thr[thr["lower"]]
    sa = t[(t["x_name"] == "window") & (t["x_value"] == 900) & (t["seed"] == 0) & (t["algorithm"] == "SA-EDGE")]
    assert len(low) == 1 and low["ratio"].iloc[0] == pytest.approx(sa["throughput_eps"].iloc[0] / 500.0)
    up = thr[thr["upper"]]
    triv = t[(t["x_name"] == "window") & (t["x_value"] == 600) & (t["seed"] == 1) & (t["algorithm"] == "TRIVIAL")]
    assert len(up) == 1 and up["ratio"].iloc[0] == pytest.approx(500.0 / triv["throughput_eps"].iloc[0])
    e = interval(thr)
    assert e.lower_bounds == 1 and e.upper_bounds == 1


def test_the_figure_marks_capped_seeds_and_has_eight_panels(tmp_path):
    capped = (("window", 900, 0, "TRIVIAL"),)
    df = fig12_table({"TRIVIAL": 1.0, "SA-EDGE": 4.0, "TS-EDGE": 4.0, "SH-MDT": 2.0, "SH-RR": 1.5, "SH": 1.1, "RE": 2.0},
                     capped=capped)
    from experiments.reporting.mcep_fig12 import _points

    t = cell_table(df[df["dataset"] == "nasdaq"])
    pts = {p[0]: p[4] for p in _points(t, "SA-EDGE", "window")}
    assert pts == {300.0: False, 600.0: False, 900.0: True}
    section = fig12(SectionInput("fig12", df, {}, tmp_path))
    assert [p.name for p in section.figures] == ["fig12.png", "fig12.pdf"]
    assert any("open markers" in n for n in section.notes)


def test_a_trend_within_one_workload_counts_workloads_not_points():
    """Longer searches of the same workload: one slope per seed, n = seeds."""
    cells = []
    for seed in range(4):
        for x in (0.05, 0.2, 1.0, 4.0):
            for alg in ("TRIVIAL", "SA-EDGE", "TS-EDGE"):
                gain = 1.0 if alg == "TRIVIAL" else 2.0 * x ** (0.3 if alg == "TS-EDGE" else 0.0)
                cells.append({"x_name": "search_time", "x_value": x, "seed": seed, "algorithm": alg, "plan": f"{alg}{x}{seed}",
                              "metrics": {"throughput_eps": 100.0 * gain * (1 + 0.01 * seed), "work": 1e5 / gain, "matches": 1.0,
                                          "plan_cost": 100.0 / gain, "trivial_cost": 100.0}})
    df = rows(cells, "mcep_fig11")
    e = within_slope(values(cell_table(df), "TS-EDGE", "cost_gain"))
    assert e.n == 4 and abs(e.estimate - 0.3) < 1e-9
    c = by_claim(_fig11_claims(df))
    ts = c["SA converges while TS keeps improving (throughput gain between the two longest search times)"]
    assert ts.verdict == HOLDS and "(n=4)" in ts.ours  # TS's slope 0.3 >= TREND; SA's slope 0, inside the band


def test_traffic_count_windows_are_judged_against_the_time_windows():
    """Figure 11(d) on traffic: the count-window gains "extremely similar" to the time-window gains, per seed."""
    claim = "traffic: count-window panel follows Fig. 11(d): the count-window gains are similar to the time-window gains"
    df = fig12_table({"TRIVIAL": 1.0, "SA-EDGE": 4.0, "TS-EDGE": 4.0}, noise=0.01)
    c = by_claim(fig12_claims(df))[claim]
    assert c.verdict == HOLDS and c.key == "fig12_count_traffic" and "(n=4)" in c.ours
    boosted = (df["dataset"] == "traffic") & (df["x_name"] == "count_window") & df["algorithm"].isin(LOCAL) & (df["metric"] == "throughput_eps")
    df.loc[boosted, "value"] *= 2.0  # the local search twice as far ahead on count windows as on time windows
    assert by_claim(fig12_claims(df))[claim].verdict in FAILED


def test_every_fig12_row_quotes_its_figure_12_sentence_and_names_its_unit():
    """Each row is an entry of the sentences on Figure 12 (the quote and its seed line, line 364), one value per
    seed; 6.2.1's "SA better than TS" belongs to Figure 11(a) and is not judged here."""
    df = fig12_table({"TRIVIAL": 1.0, "SA-EDGE": 4.0, "TS-EDGE": 4.0, "SH-MDT": 2.5, "SH-RR": 2.0, "SH": 1.1, "RE": 2.0})
    claims = fig12_claims(df)
    keys = {c.key for c in claims}
    assert keys == {"fig12_best", "fig12_scale_workload", "fig12_scale_pattern", "fig12_beats_re", "fig12_time_windows",
                    "fig12_count_stock", "fig12_count_traffic"}
    for c in claims:
        assert c.source == "MCEP" and c.unit == UNIT and "Fig. 12; line 364" in c.paper and c.reading
    assert not any("TS-EDGE" in c.claim or "Tabu" in c.paper for c in claims)
    for ds in ("nasdaq", "traffic"):  # "both SH-RR and SH-MDT scale well with ... workload size ... and average pattern length"
        for alg in ("SH-RR", "SH-MDT"):
            for size in ("workload", "pattern"):
                assert f"{ds}: {alg}'s gain grows with the {size} size (slope of log gain on log size)" in by_claim(claims)


def test_a_failing_fig12_row_gets_its_cause_from_the_planned_cost_and_the_work():
    """Planned costs are stored for every method: a tie the planned costs predict too is "regime or model";
    a gain they predict that the work does not show is "engine"; never the default "not modelled"."""
    factor = {"TRIVIAL": 1.0, "SA-EDGE": 3.5, "TS-EDGE": 3.5, "SH-MDT": 3.5, "SH-RR": 1.7, "SH": 1.0, "RE": 2.2}
    name = "nasdaq: local search has the best overall speedup (up to 3x the runner-up)"
    tie = by_claim(fig12_claims(fig12_table(factor)))[name]
    tie.finish()
    assert tie.verdict != HOLDS and tie.cause == REGIME_OR_MODEL and "model at our density" in tie.diagnosis
    df = fig12_table(factor)
    df.loc[(df["algorithm"] == "SH-MDT") & (df["metric"] == "plan_cost"), "value"] = 100.0  # planned as costly as TRIVIAL
    engine = by_claim(fig12_claims(df))[name]
    engine.finish()
    assert engine.verdict != HOLDS and engine.cause == ENGINE  # the model predicts 3.5x; the work shows a tie
    claims = fig12_claims(df)
    for c in claims:
        c.finish()
    assert any(c.cause for c in claims) and not any(c.cause == NOT_MODELLED for c in claims)


def test_grows_is_a_rise_of_beats_per_doubling():
    x = np.array([1, 2, 4, 8, 16], dtype=float)
    y = rules.BEATS ** np.log2(x) * np.array([1.0, 1.01, 0.99, 1.0, 1.01])
    e = rules.slope_interval(x, y)
    assert abs(e.estimate - rules.TREND) < 0.01
    assert rules.at_least(rules.slope_interval(x, y * x ** 0.5), rules.TREND).verdict == HOLDS


def test_an_mcep_figure_has_its_traffic_panels_when_traffic_cells_are_stored(tmp_path):
    """Figures 10, 13 and 14 have stock and traffic panels in the paper: every claim per dataset, a plot
    per dataset and sweep; with NASDAQ rows only, the traffic panels are a not-checkable row."""
    from experiments.reporting.mcep import fig10

    df = fig12_table({"TRIVIAL": 1.0, "SA-EDGE": 4.0, "TS-EDGE": 4.0})
    both = fig10(SectionInput("mcep_fig10", df, {}, tmp_path / "both"))
    names = [c.claim for c in both.claims]
    assert any(n.startswith("nasdaq: ") for n in names) and any(n.startswith("traffic: ") for n in names)
    assert len([n for n in names if n.startswith("nasdaq: ")]) == len([n for n in names if n.startswith("traffic: ")])
    assert not any("traffic panels" in n for n in names)
    assert {p.name for p in both.figures} >= {"mcep_fig10_workload_size.png", "mcep_fig10_traffic_workload_size.png"}
    one = fig10(SectionInput("mcep_fig10", df[df["dataset"] == "nasdaq"], {}, tmp_path / "one"))
    panel = by_claim(one.claims)["traffic panels (Fig. 10c, d)"]
    assert panel.verdict == UNCHECKED and not any(c.claim.startswith("nasdaq: ") for c in one.claims)


def test_the_work_sibling_decides_a_noisy_tie_under_the_same_rule():
    """The noisy near-tie above (SA-EDGE 3.5x, SH-MDT 3.3x, timings off by 40%) is not measurable on
    throughput; the deterministic work (SH-MDT's over SA-EDGE's, 3.5/3.3 on every workload) decides it
    under the same rule and size: a real 6% effect, smaller than BEATS -- partly."""
    df = fig12_table({"TRIVIAL": 1.0, "SA-EDGE": 3.5, "TS-EDGE": 3.5, "SH-MDT": 3.3, "SH-RR": 1.7, "SH": 1.0, "RE": 2.2},
                     noise=0.4, seeds=2)
    c = by_claim(fig12_claims(df))
    thr = c["nasdaq: local search has the best overall speedup (up to 3x the runner-up)"]
    work = c["nasdaq: local search has the best overall speedup (up to 3x the runner-up) (work: join candidates examined)"]
    assert thr.verdict == NOT_MEASURABLE and work.verdict == PARTLY
    assert work.ours.startswith("1.06x [1.06, 1.06]") and "runner-up SH-MDT" in work.ours
    assert thr.rule.split("; ")[1] == work.rule.split("; ")[1]  # the same rule and stated size


def test_app_d_judges_the_local_search_against_the_better_of_sh_and_re_per_workload():
    """Appendix D: per workload the baseline is whichever of SH and RE did better there; the claim needs
    every configuration (the weakest decides)."""
    from experiments.reporting.mcep import _fig14_claims, _over_better

    df = fig12_table({"TRIVIAL": 1.0, "SA-EDGE": 4.0, "TS-EDGE": 4.0, "SH": 1.2, "RE": 2.0}, noise=0.01)
    df = df[(df["dataset"] == "nasdaq") & df["x_name"].isin(["workload_size", "pattern_size"])].copy()
    df["x_name"] = df["x_name"].map({"workload_size": "density", "pattern_size": "rate_diff"})
    t = cell_table(df)
    p = _over_better(t, "throughput_eps")
    assert p["ratio"].between(1.9, 2.1).all()  # over RE (2.0x TRIVIAL), not SH (1.2x)
    claim = by_claim(_fig14_claims(df))["the local search beats the better of SH and RE in every configuration"]
    assert claim.verdict == HOLDS
    weak = fig12_table({"TRIVIAL": 1.0, "SA-EDGE": 4.0, "TS-EDGE": 4.0, "SH": 1.2, "RE": 4.0}, noise=0.01)
    weak = weak[(weak["dataset"] == "nasdaq") & weak["x_name"].isin(["workload_size", "pattern_size"])].copy()
    weak["x_name"] = weak["x_name"].map({"workload_size": "density", "pattern_size": "rate_diff"})
    assert by_claim(_fig14_claims(weak))["the local search beats the better of SH and RE in every configuration"].verdict in FAILED
