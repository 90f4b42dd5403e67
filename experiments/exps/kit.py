"""What several experiment kinds build their cells with: the methods a run adds (``+extra_planners``),
the sweeps of a config, the replayed stream of a type pool, the global plans' digests, and the
evaluation of global plans in turns under the caps of a cell."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping

from omegaconf import DictConfig

from algorithms.effort import check_budget
from algorithms.multi.registry import method_kind
from cep.errors import ConfigError
from evaluators.multi import evaluate_workload
from experiments.data.datasets import dataset_config
from experiments.data.replay import ReplaySpec
from experiments.data.streams import raw_stream
from experiments.running import cells
from experiments.running.metadata import git_commit

#: what a multi-pattern evaluation stores: the median throughput over the runs, the first run's counts
MULTI_METRICS = ("throughput_eps", "matches", "events", "peak_partial_matches", "work")


def extra_planners(cfg: DictConfig, *, multi: bool) -> list[str]:
    """The methods of the override ``+extra_planners=[NAME, ...]``, added to every cell of the experiment
    beside the configured ones (README, "Benchmark your own planner"): single-pattern planners in the
    JQPG figures, multi-pattern optimizers or single-pattern planners in the MCEP and MOTTO figures.
    Each is a built-in name, an entry point or ``module:Class`` (:mod:`algorithms.plugins`); one that
    resolves to nothing or to a method of the wrong kind is a one-line PlanError before any work."""
    names = cfg.get("extra_planners") or []
    names = [names] if isinstance(names, str) else [str(n) for n in names]
    for name in names:
        if method_kind(name) == "multi" and not multi:
            raise ConfigError(f"extra_planners: {name!r} is a multi-pattern optimizer; experiment {cfg.exp.name} "
                              "plans single patterns (use it in the MCEP or MOTTO figures)")
    return list(dict.fromkeys(names))


def checked_sweeps(exp: DictConfig, known: Iterable[str]) -> list[tuple[str, DictConfig]]:
    """``exp.sweeps`` as (swept parameter, sweep) pairs; a sweep of a parameter outside ``known`` is a
    one-line ConfigError."""
    known = tuple(known)
    out = []
    for sweep in exp.sweeps:
        name = sweep["x"]
        if name not in known:
            raise ConfigError(f"unknown sweep {name!r} in {exp.name}; known: {', '.join(known)}")
        out.append((name, sweep))
    return out


def common_fields(cfg: DictConfig, **fields) -> dict:
    """The fields every cell of a run carries: the experiment, its figure, ``fields``, and the code
    version (metadata: not part of the cell's id)."""
    return {"experiment": cfg.exp.name, "figure": cfg.exp.get("figure"), **fields, "_code_version": git_commit()}


def dataset_ref(dcfg: Mapping) -> dict:
    """A dataset config as a stream specification names it (:mod:`experiments.data.streams`)."""
    return {"name": dcfg["name"], "path": str(dcfg["path"]), "format": dcfg.get("format", "auto")}


def type_pool(stream, size: int, min_events: int) -> list[str]:
    """``size`` event types with at least ``min_events`` events, spread evenly over the range of
    event counts (sorted by count, every k-th), so the pool mixes frequent and rare types."""
    counts = sorted((c, t) for t, c in stream.type_counts().items() if c >= min_events)
    if len(counts) < size:
        return [t for _, t in counts]
    step = len(counts) / size
    return sorted(counts[int(i * step)][1] for i in range(size))


def replayed_pool_stream(cfg: DictConfig, sc: Mapping, window_s: float, default_pool: int) -> tuple[str, dict]:
    """The dataset name and the stream spec of a multi-query experiment: the ``type_pool`` types of
    ``exp.dataset`` (default NASDAQ) spread over its event counts, replayed at the scale's events per
    window and rate ratio, its values in their real order or, where the scale sets ``value_order: random``,
    drawn at random (``sc``: the resolved settings)."""
    dname = cfg.exp.get("dataset", "nasdaq")
    probe = {"dataset": dataset_ref(dataset_config(dname)), "start": None, "end": None}
    pool = type_pool(raw_stream(probe), int(sc.get("type_pool", default_pool)), int(sc.get("min_events", 20)))
    return dname, {**probe, "pool": pool, "seed": int(cfg.seed),
                   "replay": {"window_seconds": float(window_s), "events_per_window": float(sc["events_per_window"]),
                              "rate_ratio": float(sc.get("rate_ratio", ReplaySpec.rate_ratio)), "windows": float(sc["windows"]),
                              **({"value_order": str(sc["value_order"])} if sc.get("value_order") else {})}}


def evaluation_caps(settings: Mapping) -> dict:
    """The caps of a cell's evaluation, from its scale's resolved settings or its stored ``params``:
    ``max_partial_matches`` and ``max_work`` as integers, or None where the scale sets no cap (``null``,
    as scale=paper does for the join candidates)."""
    def cap(key: str) -> int | None:
        v = settings.get(key)
        return None if v is None else int(v)

    return {"max_partial_matches": cap("max_partial_matches"), "max_work": cap("max_work")}


def neighbours_param(params: Mapping, what: str) -> int | None:
    """A cell's search budget in evaluated neighbours (``search_neighbours``; None: none).  A cell stored
    before the budget was renamed (``search_steps``) cannot be re-run as it ran: a one-line ConfigError."""
    if "search_steps" in params and "search_neighbours" not in params:
        raise ConfigError(f"{what}: the cell was stored with search_steps, the budget's name before it became "
                          "search_neighbours (evaluated neighbours); re-run the experiment to re-run its cells")
    return check_budget(params.get("search_neighbours"), what)


def plan_digest(gplan, *, shared_nodes: bool = False) -> str:
    """A digest of a global plan: its local plans (and the nodes it shares, with ``shared_nodes``)."""
    d = gplan.describe()
    content = [d["plans"], d["shared_nodes"]] if shared_nodes else d["plans"]
    return hashlib.sha1(json.dumps(content, sort_keys=True).encode()).hexdigest()[:16]


def evaluate_in_turns(patterns, planned: Mapping[str, cells.Planned], stream, params: Mapping) -> dict[str, cells.Evaluated]:
    """Each global plan of ``planned`` over ``stream`` on the multi-pattern evaluator, ``params["repeats"]``
    times in turns (:func:`experiments.running.cells.timed_runs`) under the cell's caps; a plan that crosses
    a cap is a capped evaluation."""
    events = stream.to_stream()  # the multi-pattern runtime takes event objects (until it takes columns)

    def runner(p):
        return lambda i: evaluate_workload(patterns, p.plan, events, collect_matches=False, **evaluation_caps(params)).metrics

    runs = cells.timed_runs({alg: runner(p) for alg, p in planned.items()}, int(params["repeats"]), len(stream))
    return {alg: r if isinstance(r, cells.Evaluated) else cells.Evaluated(cells.summarize(r, MULTI_METRICS))
            for alg, r in runs.items()}
