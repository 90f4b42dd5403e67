"""The calibrated bursty stock stream (experiments/data/bursty_stock.py) and the per-scale HAMLET
parameters (experiments/exps/hamlet.py::resolve)."""

from __future__ import annotations

import pytest

from cep.errors import ConfigError

from experiments.data.bursty_stock import PAPER, burst_statistics, bursty_stock_stream
from experiments.data.trend_streams import burst_mean, trend_stream


def test_bursts_match_the_paper_and_values_are_real():
    stream, pool = bursty_stock_stream(4500, 8, seed=0)
    stats = burst_statistics(stream, pool)
    assert stats["events"] == 36000 and stats["companies"] == 200
    assert stats["events_per_minute"] == pytest.approx(PAPER["events_per_minute"], rel=1e-6)
    # the mean burst of the shared type is the paper's 120 within sampling error (~90 bursts)
    assert 90 <= stats["burst_mean"] <= 150 and stats["bursts"] > 50
    assert burst_mean(stream, pool) == stats["burst_mean"]  # the cells' metric is Definition 4.1's too
    # every event's values are a bar of its ticker in the bundled sample
    from experiments.data.bursty_stock import _bars

    _, bars, rows = _bars()
    e = stream.to_events()[100]
    assert dict(e.attrs) in [bar.attrs for bar in bars.take(rows[e.type]).to_events()]


def test_quick_scale_keeps_the_burst_structure_and_is_seeded():
    a, pa = trend_stream("nasdaq-bursty", 2000, 2, 1, 0)
    b, pb = trend_stream("nasdaq-bursty", 2000, 2, 1, 0)
    assert pa == pb and [(e.type, e.ts) for e in a.to_events()] == [(e.type, e.ts) for e in b.to_events()]
    assert burst_mean(a, pa) > 30  # bursts of the shared type, not single events as in the 5-minute bars
    nasdaq, pool = trend_stream("nasdaq", 2000, 2, 1, 0)
    assert burst_mean(nasdaq, pool) < 2


@pytest.mark.parametrize("fig", ["fig8", "fig9", "fig10", "fig11", "fig12"])
def test_scale_paper_resolves_the_papers_rates_and_workloads(fig):
    from experiments.commands.run import compose_config
    from experiments.exps.hamlet import SETTINGS, build_specs
    from experiments.running.settings import resolve

    r = resolve(compose_config([f"+exp=hamlet_{fig}", "scale=paper"]), SETTINGS)
    if fig in ("fig8", "fig9"):  # Figures 8-9: 10K to 20K events per minute, 5 to 25 queries
        assert (min(r["events_per_minute"]), max(r["events_per_minute"])) == (10000, 20000)
        assert (min(r["queries"]), max(r["queries"])) == (5, 25)
    elif fig == "fig10":  # up to 40K events per minute, the default workload of 50 queries
        assert max(r["events_per_minute"]) == 40000 and r["default_queries"] == 50
    else:  # Figures 11-12: 2K-4K events per minute, 20-100 queries, windows of 5 to 20 minutes
        assert (min(r["events_per_minute"]), max(r["events_per_minute"])) == (2000, 4000)
        assert (min(r["queries"]), max(r["queries"])) == (20, 100) and r["default_queries"] == 50
        assert r["window_s"] == 20 * 60
    specs = build_specs(compose_config([f"+exp=hamlet_{fig}", "scale=paper"]))
    assert {s["params"]["events_per_minute"] for s in specs if s["x_name"] == "events_per_minute"} == set(r["events_per_minute"])
    quick = resolve(compose_config([f"+exp=hamlet_{fig}"]), SETTINGS)
    # quick stays smaller: fewer events (Figures 8-10) or shorter windows and fewer queries (11-12)
    assert (max(quick["events_per_minute"]) < max(r["events_per_minute"]) or
            (quick["window_s"] < r["window_s"] and max(quick["queries"]) < max(r["queries"])))


def test_an_override_wins_and_a_missing_block_is_one_line():
    from cep.errors import ConfigError
    from experiments.commands.run import compose_config
    from experiments.exps.hamlet import SETTINGS
    from experiments.running.settings import resolve

    assert resolve(compose_config(["+exp=hamlet_fig8", "+exp.queries=[3]"]), SETTINGS)["queries"] == [3]
    cfg = compose_config(["+exp=hamlet_fig8", "scale.name=huge"])
    with pytest.raises(ConfigError, match=r"configs/exp/hamlet_fig8.yaml: exp.scales has no block for scale 'huge'"):
        resolve(cfg, SETTINGS)


def test_greta_is_capped_only_where_a_scale_block_says_so():
    """Figure 10 at scale=standard caps GRETA (its params carry ``greta_max_work``, every engine's cell
    alike); elsewhere no cell's params name the cap, so their cell ids are those of the uncapped runs."""
    from experiments.commands.run import compose_config
    from experiments.exps.hamlet import build_specs

    capped = build_specs(compose_config(["+exp=hamlet_fig10", "scale=standard"]))
    assert {s["params"].get("greta_max_work") for s in capped} == {500_000_000}
    for fig, scale in (("fig10", "quick"), ("fig10", "paper"), ("fig8", "standard"), ("fig9", "standard")):
        specs = build_specs(compose_config([f"+exp=hamlet_{fig}", f"scale={scale}"]))
        assert all("greta_max_work" not in s["params"] for s in specs)
    override = build_specs(compose_config(["+exp=hamlet_fig10", "+exp.greta_max_work=7"]))
    assert {s["params"]["greta_max_work"] for s in override} == {7}


def test_bursts_too_short_for_the_kleene_share_are_one_line():
    """Runs of at least one event alternate, so bursts of mean 1 cannot hold 60% of the pool's events (the map's
    grid once asked for that, and 48 cells failed deep inside numpy)."""
    with pytest.raises(ConfigError, match="need burst_mean >= 1.5"):
        bursty_stock_stream(1000, 1.0, 0, burst_mean=1.0, kleene_share=0.6)
    stream, pool = bursty_stock_stream(1000, 1.0, 0, burst_mean=1.5, kleene_share=0.6)
    assert len(stream) == 1000
