"""scale=paper is the papers' parameters, scale=standard composes, and quick is not inherited.

Every experiment is composed at scale=paper and its per-scale settings are resolved as the run resolves
them (:func:`experiments.exps.resolved_settings`: ``exp.scales.paper`` with a key set on ``exp`` winning),
then compared with :data:`PAPER`: one row per stated value, citing the paper and section.
Arrival rates are checked on the rates the replay gives the pool's types
(:meth:`experiments.data.replay.ReplaySpec.rates`).  HAMLET's per-scale values are kept in its own
experiment configs and are not in the table.  Only configs are read: nothing is built or run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from experiments.commands.run import compose_config
from experiments.data.replay import ReplaySpec
from experiments.exps import resolved_settings
from experiments.exps.jqpg import planner_list

REPO = Path(__file__).resolve().parents[2]
EXPERIMENTS = sorted(p.stem for p in (REPO / "configs" / "exp").glob("*.yaml"))
GRID = [e for e in EXPERIMENTS if e.startswith("jqpg_")]
MCEP = ["mcep_fig10", "mcep_fig11", "mcep_fig13", "mcep_fig14", "fig12"]
MOTTO = ["motto_fig13", "motto_fig14"]
NEXT = ["next_fig9", "next_fig10", "next_fig11"]
#: experiments whose paper values are another change's (HAMLET: configs/exp/hamlet_*.yaml), or that have none
NOT_IN_TABLE = {e for e in EXPERIMENTS if e.startswith("hamlet_")} | {"stats"}

_CFG: dict[tuple[str, str], object] = {}


def cfg_of(exp: str, scale: str = "paper"):
    if (exp, scale) not in _CFG:
        _CFG[exp, scale] = compose_config([f"+exp={exp}", f"scale={scale}", "runner=serial", "progress=false"])
    return _CFG[exp, scale]


def S(cfg) -> dict:
    """The experiment's resolved per-scale settings."""
    return resolved_settings(cfg)


def rates_eps(cfg, family: str) -> tuple[float, float]:
    """The slowest and fastest replayed rate (events/s) of a JQPG dataset family at this scale."""
    d = S(cfg)["families"][family]
    spec = ReplaySpec(float(d["window_seconds"]), float(d["replay"]["events_per_window"]), float(d["replay"]["rate_ratio"]))
    r = spec.rates(int(d["type_pool"]))
    return float(r.min()), float(r.max())


def pool_rates_eps(cfg) -> tuple[float, float]:
    """The slowest and fastest replayed rate (events/s) of an MCEP or MOTTO experiment's type pool."""
    sc = S(cfg)
    spec = ReplaySpec(float(sc["base"]["window"]), float(sc["events_per_window"]), float(sc.get("rate_ratio", ReplaySpec.rate_ratio)))
    r = spec.rates(int(sc["type_pool"]))
    return float(r.min()), float(r.max())


def total_events(cfg) -> float:
    """The expected events of an MCEP or MOTTO experiment's whole replayed stream."""
    sc = S(cfg)
    spec = ReplaySpec(float(sc["base"]["window"]), float(sc["events_per_window"]), float(sc.get("rate_ratio", ReplaySpec.rate_ratio)),
                      float(sc["windows"]))
    return float(spec.rates(int(sc["type_pool"])).sum() * spec.duration)


def plans_of_kind(cfg, kind: str) -> int:
    """How many plans of a kind (order/tree) a grid experiment makes: patterns x planners of that kind."""
    from algorithms import planner_kind

    sets = len(cfg.exp.pattern_sets)
    patterns = sets * len(S(cfg)["sizes"]) * int(S(cfg)["patterns_per_size"])
    return patterns * sum(planner_kind(p) == kind for p in planner_list(cfg.exp))


def near(a: float, b: float, rel: float = 0.02) -> bool:
    return abs(a - b) <= rel * abs(b)


SETS = ["seq", "neg", "conj", "kleene", "disj"]
JQPG_SETUP = "JQPG 6.2 (Experimental Setup)"
MCEP_SETUP = "MCEP 6.1 (Experimental Setup)"
MOTTO_SETUP = "MOTTO VII-A (Experimental Setup)"

#: (experiments, what, check(cfg) -> bool, source): the papers' stated values at scale=paper
PAPER: list[tuple[list[str], str, object, str]] = [
    # JQPG (VLDB'18)
    (GRID, "20-minute windows on both datasets",
     lambda c: all(float(S(c)["families"][f]["window_seconds"]) == 1200 for f in ("nasdaq", "traffic")), JQPG_SETUP),
    (GRID, "arrival rates of 1 to 45 events/s per type",
     lambda c: all(near(rates_eps(c, f)[0], 1.0) and near(rates_eps(c, f)[1], 45.0) for f in ("nasdaq", "traffic")),
     JQPG_SETUP),
    (GRID, "predicate selectivities 0.002 to 0.88",
     lambda c: list(c.exp.get("selectivity_range", [0.002, 0.88])) == [0.002, 0.88], JQPG_SETUP),
    (GRID, "no cap on a Kleene closure's subsets",
     lambda c: all(S(c)["families"][f]["kleene_max"] is None for f in ("nasdaq", "traffic")), JQPG_SETUP),
    (["jqpg_fig3", "jqpg_fig4"], "five pattern sets of 100 patterns per size 3..7 (500 per set)",
     lambda c: list(c.exp.pattern_sets) == SETS and list(S(c)["sizes"]) == [3, 4, 5, 6, 7]
     and int(S(c)["patterns_per_size"]) == 100, JQPG_SETUP),
    (["jqpg_fig3", "jqpg_fig4"], "every planner of JQPG 6.1",
     lambda c: set(planner_list(c.exp)) >= {"TRIVIAL", "EFREQ", "GREEDY", "II-RANDOM", "II-GREEDY", "DP-LD", "ZSTREAM",
                                            "ZSTREAM-ORD", "DP-B"}, "JQPG 6.1"),
    (["jqpg_fig5", "jqpg_fig8", "jqpg_fig9"], "the sequence set: 100 patterns per size 3..7",
     lambda c: list(c.exp.pattern_sets) == ["seq"] and list(S(c)["sizes"]) == [3, 4, 5, 6, 7]
     and int(S(c)["patterns_per_size"]) == 100, "JQPG 6.3 (Figures 5, 8, 9)"),
    (["jqpg_fig6"], "at least 60 order-based and 60 tree-based plans, patterns of every type",
     lambda c: plans_of_kind(c, "order") >= 60 and plans_of_kind(c, "tree") >= 60 and list(c.exp.pattern_sets) == SETS,
     "JQPG 6.3 (Figure 6)"),
    (["jqpg_fig7"], "200 patterns of sizes 3..22 (10 per size)",
     lambda c: list(S(c)["sizes"]) == list(range(3, 23)) and int(S(c)["patterns_per_size"]) == 10,
     "JQPG 6.3 (Figure 7)"),
    (["jqpg_fig7"], "DP-B and DP-LD plan every size up to 22",
     lambda c: all(int((S(c).get("planner_max_size") or {}).get(p, 22)) >= 22 for p in ("DP-B", "DP-LD")),
     "JQPG 6.3 (Figure 7: 'for a pattern of length 22 ... DP-B')"),
    (["jqpg_fig8"], "alpha in {0, 0.5, 1} for the six JQPG methods",
     lambda c: [float(a) for a in c.exp.alphas] == [0.0, 0.5, 1.0] and len(c.exp.planners) == 6, "JQPG 6.3 (Figure 8)"),
    (["jqpg_fig9"], "skip-till-any-match, skip-till-next-match and contiguity",
     lambda c: list(c.exp.strategies) == ["skip-till-any-match", "skip-till-next-match", "strict-contiguity"],
     "JQPG 6.3 (Figure 9)"),
    # MCEP (SIGMOD'19) and its Figure 12
    (MCEP, "10 independently generated workloads per point",
     lambda c: len(S(c)["seeds"]) == 10, MCEP_SETUP),
    (MCEP, "100 patterns of average size 5 per workload, a 15-minute window",
     lambda c: {k: S(c)["base"][k] for k in ("workload_size", "pattern_size", "window")}
     == {"workload_size": 100, "pattern_size": 5, "window": 900},
     MCEP_SETUP),
    (MCEP, "180 s of local search, given as its effort: 900,000 evaluated neighbours, 180 s at the 5,000/s assumed "
           "of the paper's Java (docs/mcep.md, Search effort)",
     lambda c: S(c)["base"]["search_time"] == 180 and S(c)["base"]["search_neighbours"] == 180 * 5000,
     MCEP_SETUP),
    (MCEP, "arrival rates of 2 to 47 events/s per type",
     lambda c: near(pool_rates_eps(c)[0], 2.0) and near(pool_rates_eps(c)[1], 47.0), MCEP_SETUP),
    (MCEP, "predicate selectivities within 0.002-0.88 (the paper measured 0.003-0.92)",
     lambda c: S(c)["base"]["selectivity_range"] == [0.002, 0.88], MCEP_SETUP),
    (["mcep_fig11"], "the search-time sweep includes the default 180 s",
     lambda c: 180 in S(c)["values"]["search_time"], "MCEP 6.2.1 (Figure 11b)"),
    (["mcep_fig11"], "the effort sweep is the search-time sweep at the 5,000 neighbours/s assumed (docs/mcep.md)",
     lambda c: S(c)["values"]["search_neighbours"] == [5000 * t for t in S(c)["values"]["search_time"]],
     "MCEP 6.2.1 (Figure 11b)"),
    (["mcep_fig13", "fig12"], "count windows of 1,000 to 10,000 events",
     lambda c: min(S(c)["values"]["count_window"]) == 1000
     and max(S(c)["values"]["count_window"]) == 10000, "MCEP 6.2.1 (Figures 11d, 12d)"),
    (["mcep_fig13"], "y = 5 types permuted every x = 10 to 1,000 events",
     lambda c: S(c)["adaptive"]["reshuffle_types"] == 5
     and min(S(c)["values"]["reshuffle_every"]) == 10
     and max(S(c)["values"]["reshuffle_every"]) == 1000, "MCEP 6.2.3 (Figure 13)"),
    (["fig12"], "both datasets", lambda c: list(c.exp.datasets) == ["nasdaq", "traffic"], "MCEP 6.2.2 (Figure 12)"),
    # MOTTO (ICDE'17)
    (MOTTO, "100 queries per workload", lambda c: S(c)["base"]["queries"] == 100, MOTTO_SETUP),
    (MOTTO, "2 million trade events of 13 stock symbols",
     lambda c: S(c)["type_pool"] == 13 and near(total_events(c), 2e6), MOTTO_SETUP),
    (MOTTO, "10-second windows, nesting level 2 by default",
     lambda c: S(c)["base"]["window"] == 10 and S(c)["base"]["level"] == 2,
     "MOTTO VII-A (Table V)"),
    (MOTTO, "an exact search of up to 5 minutes",
     lambda c: S(c)["base"]["budget_s"] == 300, "MOTTO VII-C (varying the number of queries)"),
    (MOTTO, "then annealing that converges in 20 s: 100,000 evaluated neighbours at the 5,000/s assumed (docs/motto.md)",
     lambda c: S(c)["base"]["search_neighbours"] == 20 * 5000, "MOTTO VII-C (varying the number of queries)"),
    (["motto_fig13"], "basic-workload ratio r from 0% to 100%",
     lambda c: S(c)["values"]["r"][0] == 0.0 and S(c)["values"]["r"][-1] == 1.0,
     MOTTO_SETUP),
    (["motto_fig14"], "1 to 6 CPU cores, at the default 100 queries",
     lambda c: S(c)["values"]["cores"] == [1, 2, 3, 4, 5, 6]
     and (S(c).get("sweep_base") or {}).get("cores", {}).get("queries", 100) == 100,
     "MOTTO VII-C (Figure 14b)"),
    (["motto_fig14"], "window ratio 4:1 to 1:4, nesting 2 to 8 (at r = 0)",
     lambda c: S(c)["values"]["window_ratio"] == [4, 2, 1, 0.5, 0.25]
     and S(c)["values"]["nesting"] == [2, 4, 6, 8]
     and next(s for s in c.exp.sweeps if s.x == "nesting").base.r == 0.0, "MOTTO VII-C (Figures 14c, 14d)"),
    # NEXT (DEBS'09)
    (NEXT, "5-run averages", lambda c: len(S(c)["seeds"]) == 5, "NEXT 6 (single node case)"),
    (["next_fig10", "next_fig11"], "5-operator queries", lambda c: int(c.exp.query_size) == 5, "NEXT 6"),
    (["next_fig11"], "up to 40 operator nodes", lambda c: max(c.exp.nodes) == 40, "NEXT 6 (Methodology)"),
    (["next_fig9", "next_fig10"], "the next, union and mix workloads",
     lambda c: list(c.exp.workloads) == ["next", "union", "mix"], "NEXT 6"),
]


def test_the_table_covers_every_experiment():
    covered = {e for exps, *_ in PAPER for e in exps}
    assert covered == set(EXPERIMENTS) - NOT_IN_TABLE


def test_the_sources_rates_are_next_s():
    from experiments.workloads.next import PAPER_RATES

    assert sorted(PAPER_RATES.values()) == [float(2**i) for i in range(8)]  # NEXT 6: 1 to 128 events/s


@pytest.mark.parametrize("exp,what,check,source", [(e, w, c, s) for exps, w, c, s in PAPER for e in exps],
                         ids=lambda v: v if isinstance(v, str) and len(v) < 40 else None)
def test_scale_paper_has_the_papers_value(exp, what, check, source):
    assert check(cfg_of(exp)), f"{exp} at scale=paper: not {what!r} ({source})"


@pytest.mark.parametrize("exp", GRID)
def test_no_jqpg_setting_holds_at_every_scale(exp):
    """The settings that differ by scale live in exp.scales.<scale>, never at exp's top level (where
    quick's values would hold at scale=paper)."""
    cfg = cfg_of(exp)
    assert [k for k in ("sizes", "patterns_per_size", "planner_max_size") if cfg.exp.get(k) is not None] == []


@pytest.mark.parametrize("scale", ["standard", "paper"])
@pytest.mark.parametrize("exp", MCEP + MOTTO)
def test_each_scale_states_every_setting_quick_states(exp, scale):
    """A scale's block names every setting (and base parameter) quick's names, so none falls back to a
    code default at one scale only."""
    quick, other = S(cfg_of(exp, "quick")), S(cfg_of(exp, scale))
    # sweep_base: a scale's exceptions to base in one sweep (absent: none)
    missing = (set(quick) - set(other) - {"sweep_base"}) | {f"base.{k}" for k in set(quick["base"]) - set(other["base"])}
    assert not missing


@pytest.mark.parametrize("exp", [e for e in EXPERIMENTS if e != "stats"])
def test_every_experiment_resolves_at_scale_standard(exp):
    cfg = cfg_of(exp, "standard")
    if cfg.exp.kind == "jqpg":
        assert int(S(cfg)["patterns_per_size"]) >= 1 and S(cfg)["sizes"]
        for f in ("nasdaq", "traffic"):
            assert S(cfg)["families"][f]["replay"]["events_per_window"] > 0
    elif cfg.exp.kind in ("mcep", "motto"):
        assert len(S(cfg)["seeds"]) >= 10  # the paper's 10, more where the sizing table asks
    elif cfg.exp.kind == "next":
        assert len(S(cfg)["seeds"]) == 5
    else:
        assert S(cfg)["seeds"]
