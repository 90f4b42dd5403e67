"""Every experiment family's stream, built as columns, holds exactly the events the object builders of
f697127 made -- types, order, timestamps, every attribute value and its Python type -- and what is
computed from it is unchanged: the JQPG cells (their ids carry the patterns calibrated on the stream
and the statistics estimated on it), the MCEP and MOTTO workloads and statistics, the reshuffled
stream of MCEP 6.2.3 and its sliding-window statistics, the HAMLET streams and queries, NEXT's
sources and the synthetic generator.

The same script runs twice on the quick-scale configurations: here, on this tree's code and configs, and
in a subprocess on f697127's code and configs (:mod:`experiments.bench.baseline`; the configs' layout
changed since, each tree composes its own), both on this checkout's data; each side digests what it
built, and the digests must be equal.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from experiments.bench.baseline import BASELINE_REVISION, REPO, run_at_revision

#: what both trees run: ``digests(payload)`` -> {what was built: its digest}
SCRIPT = r'''
import hashlib
from pathlib import Path


def _events(stream):
    """The events of a stream: objects (f697127's streams) or columns converted (this tree's)."""
    return stream.to_events() if hasattr(stream, "to_events") else list(stream)


def digest(stream) -> str:
    h = hashlib.sha256()
    n = 0
    for e in _events(stream):
        items = sorted(e.attrs.items())
        h.update(repr((e.pos, e.type, e.ts, items, [type(v).__name__ for _, v in items])).encode())
        n += 1
    return f"{n} events {h.hexdigest()[:20]}"


def text_digest(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:20]


def _budget_as_before(spec, kind: str):
    """The spec with its search budget as f697127 named it: the local searches' ``search_steps`` (renamed
    ``search_neighbours`` when budgets became evaluated neighbours, algorithms/effort.py; at quick scale
    the same values), and no budget for MOTTO's annealing (a parameter since then); a no-op on f697127's
    own specs.  The budget is not computed from the stream: this keeps the cell ids a check of what is."""
    params = dict(spec["params"])
    if "search_neighbours" in params:
        budget = params.pop("search_neighbours")
        if kind == "mcep":
            params["search_steps"] = budget
    return {**spec, "params": params}


def _kind(new: str, old: str):
    """An experiment kind's module by this tree's name for it (kinds were renamed by paper)."""
    import importlib

    try:
        return importlib.import_module(f"experiments.exps.{new}")
    except ImportError:
        return importlib.import_module(f"experiments.exps.{old}")


def digests(pl) -> dict:
    import experiments
    import experiments.data.datasets as ds

    own = Path(experiments.__file__).resolve().parents[1]
    # each tree composes its own configs (their layout changed), both read this checkout's data
    ds.REPO_ROOT, ds.CONFIG_DIR, ds.DATASET_DIR = Path(pl["repo"]), own / "configs", own / "configs" / "dataset"
    from experiments.data.statistics import estimate_workload_statistics
    from experiments.data.streams import experiment_stream
    from experiments.running.compose import compose_config
    from experiments.running.store import cell_id

    def cfg(exp):
        return compose_config([f"+exp={exp}", "scale=quick", "runner=serial"])

    out = {}
    # JQPG: the cells (patterns calibrated on the stream, statistics estimated on it) and the streams
    grid = _kind("jqpg", "grid")

    for name in pl["grid"]:
        specs = grid.specs(cfg(name), None)
        out[f"{name}: cell ids"] = text_digest([cell_id(s) for s in specs])
        for s in {json.dumps(s["stream"], sort_keys=True): s["stream"] for s in specs}.values():
            out[f"{name}: stream {s['dataset']['name']}"] = digest(experiment_stream(s))
    # MCEP: cells, streams, each sweep's first workload and its statistics; the reshuffled streams
    from experiments.exps import mcep_adaptive
    from experiments.workloads.mcep import experiment_workload

    mcep_figs = _kind("mcep", "mcep_figs")
    for name in pl["mcep"]:
        specs = mcep_figs.build_specs(cfg(name))
        out[f"{name}: cell ids"] = text_digest([cell_id(_budget_as_before(s, "mcep")) for s in specs])
        first = {(s["dataset"], s["x_name"]): s for s in reversed(specs)}
        for (dname, x), s in sorted(first.items()):
            stream = experiment_stream(s["stream"])
            out[f"{name}: stream {dname}"] = digest(stream)
            pats = experiment_workload(s["params"], s["stream"]["pool"], stream, seed=s["seed"], count_window=x == "count_window")
            out[f"{name} {dname} {x}: workload"] = text_digest([str(p) for p in pats])
            stats = estimate_workload_statistics(stream, pats, seed=s["seed"])
            out[f"{name} {dname} {x}: statistics"] = text_digest([st.to_dict() for st in stats])
        for s in specs:
            if s["x_name"] == "reshuffle_every" and s["algorithm"] == "static" and s["seed"] == 0:
                cell = mcep_figs.ADAPTIVE_CELL
                shuffled = cell.stream(s)
                key = f"{name} {s['dataset']} reshuffle_every={s['x_value']}"
                out[f"{key}: stream"] = digest(shuffled)
                pats = cell.workload(s, shuffled)
                n = len(shuffled)
                out[f"{key}: window statistics"] = text_digest([
                    [st.to_dict() for st in mcep_adaptive.window_statistics(shuffled, pats, a, b, seed=0)]
                    for a, b in ((0, n // 3), (n // 3, n))])
                types = sorted({t for p in pats for t in p.event_types})
                out[f"{key}: type counts"] = text_digest([mcep_adaptive.type_counts(shuffled, a, b, types)
                                                          for a, b in ((0, n // 2), (n // 4, n))])
    # MOTTO: the cells, the first workload of each sweep and its statistics
    from experiments.workloads.motto import table_v_patterns

    motto_figs = _kind("motto", "motto_figs")
    for name in pl["motto"]:
        specs = motto_figs.build_specs(cfg(name))
        out[f"{name}: cell ids"] = text_digest([cell_id(_budget_as_before(s, "motto")) for s in specs])
        for x, s in sorted({s["x_name"]: s for s in reversed(specs)}.items()):
            stream = experiment_stream(s["stream"])
            pats = table_v_patterns(s["params"], s["stream"]["pool"], stream.type_counts(), seed=s["seed"],
                                    window_ratio=x == "window_ratio")
            out[f"{name} {x}: workload and statistics"] = text_digest(
                [[str(p) for p in pats], [st.to_dict() for st in estimate_workload_statistics(stream, pats, seed=s["seed"])]])
    # HAMLET: every dataset's stream, its queries and its mean burst
    from experiments.data.trend_streams import burst_mean, trend_stream
    from experiments.workloads.hamlet import experiment_workload as hamlet_workload

    for fig, dataset, rate, minutes, seed in pl["hamlet"]:
        stream, pool = trend_stream(dataset, rate, minutes, seed, 50)
        spec = {"dataset": dataset, "figure": fig, "params": {"queries": 12, "window_s": 60}}
        out[f"hamlet {fig} {dataset} {rate}/min seed {seed}"] = [digest(stream), pool, burst_mean(stream, pool),
                                                                  text_digest(hamlet_workload(spec, pool, stream))]
    # NEXT's sources and the synthetic generator (attributes, bursts, a type without attributes)
    from experiments.data.synthetic import Burst, Distribution, TypeSpec, generate_stream
    from experiments.workloads.next import source_stream

    out["next sources"] = digest(source_stream(20.0, seed=3))
    out["synthetic"] = digest(generate_stream(
        {"A": 2.0, "B": TypeSpec(1.0, {"v": Distribution("poisson", 3.0)}, price_walk=None), "C": 0.5},
        300.0, seed=7, bursts=[Burst(100.0, 50.0, 4.0, ("A",))], start_time=1000.0))
    return out
'''

RUN_OLD = SCRIPT + '''
pl = json.load(sys.stdin)
print(json.dumps(digests(pl)))
'''


def _payload() -> dict:
    return {
        "repo": str(REPO),
        "grid": ["jqpg_fig3", "jqpg_fig9"],
        "mcep": ["mcep_fig10", "mcep_fig13", "fig12"],
        "motto": ["motto_fig13"],
        "hamlet": [["fig8", "ridesharing", 2000, 2.0, 0], ["fig11", "ridesharing", 400, 1.0, 1],
                   ["fig9", "nasdaq-bursty", 2000, 2.0, 1], ["fig11", "nasdaq", 400, 1.0, 0], ["fig12", "traffic", 400, 1.0, 2]],
    }


def test_every_family_builds_the_events_and_statistics_of_f697127():
    try:
        subprocess.run(["git", "-C", str(REPO), "rev-parse", BASELINE_REVISION], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip(f"not a git checkout holding {BASELINE_REVISION}")
    payload = _payload()
    scope: dict = {}
    exec(compile("import json, sys\n" + SCRIPT, "streams_as_before", "exec"), scope)
    new = json.loads(json.dumps(scope["digests"](payload)))
    old = run_at_revision(RUN_OLD, payload, rev=BASELINE_REVISION, timeout=1800)
    assert set(new) == set(old)
    differ = {k: (old[k], new[k]) for k in old if old[k] != new[k]}
    assert not differ, json.dumps(differ, indent=1)
    assert len(new) > 40  # every family above was built and compared
