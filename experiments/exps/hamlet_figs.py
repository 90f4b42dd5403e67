"""The ``hamlet`` experiment kind: HAMLET Figures 8-12 (Section 5.2) at our scales.

* ``fig8`` / ``fig9`` -- HAMLET (dynamic), two-step, SHARON-style and GRETA on the ridesharing
  stream (``experiments/data/ridesharing.py``): latency and throughput (fig8), peak memory (fig9) against
  events per minute and against the number of queries.  Queries: ``k`` COUNT(*) queries
  ``SEQ(S_i s, Travel t+, E_i e) WHERE [driver]`` sharing ``Travel+``, tumbling windows.
* ``fig10`` -- HAMLET against GRETA on the stock (NASDAQ) and traffic (Aarhus) data, standing in for
  the paper's NYC taxi and smart-home streams (not bundled); same sweeps.
* ``fig11`` / ``fig12`` -- dynamic against static sharing on the stock data (as the paper) and on
  the ridesharing stream (bursty, one partition): latency and throughput (fig11), memory (fig12);
  the queries are the paper's second workload (:func:`mixed_workload`: mixed aggregates, windows,
  pattern lengths and predicates); thresholds at quantiles of the shared Kleene type's ``close`` /
  ``speed`` make sharing cost event-level snapshots, so the dynamic optimizer may split.

Streams: ridesharing is generated (seeded); stock and traffic are the bundled data restricted to a
pool of event types (the shared Kleene type -- the pool's first type -- plus start and end types),
in the data's order, with timestamps re-spaced to the cell's events per minute (the paper's
speed-up factor).  A cell is (figure, dataset, swept x, engine, seed); two-step and SHARON run under
caps (``scale.hamlet``) and a capped cell is a result (status ``capped: ...``), not a failure.

Rows: ``algorithm`` is the engine; ``x_name``/``x_value`` the swept parameter (``events_per_minute``
or ``queries``); ``plan`` a digest of the cell's exact results, so ``verify`` sees any change in
what was computed; metrics ``throughput_eps``, ``latency_ms`` (mean per timestamp), ``latency_p95_ms``,
``peak_traced_memory_bytes`` (fig9, fig12: tracemalloc's peak over a second run; it varies a
little from run to run, so it is not the evaluators' deterministic ``peak_memory_bytes``), ``snapshots``, ``shared_graphlets``,
``graphlets``, ``events``, ``burst_mean``.
"""

from __future__ import annotations

import hashlib
import json
import statistics
from functools import lru_cache
from pathlib import Path
from typing import Mapping

from omegaconf import DictConfig

from cep.errors import ConfigError, EvaluationLimitError

FIGURES = ("fig8", "fig9", "fig10", "fig11", "fig12")


def build_specs(cfg: DictConfig) -> list[dict]:
    from experiments.running.metadata import git_commit

    exp, sc = cfg.exp, cfg.scale.hamlet
    if exp.figure not in FIGURES:
        raise ConfigError(f"exp.figure of a hamlet experiment must be one of {', '.join(FIGURES)}, got {exp.figure!r}")
    base = {"experiment": exp.name, "figure": exp.figure, "_code_version": git_commit()}
    params = {"minutes": float(sc.minutes), "window_s": int(sc.window_s), "drivers": int(sc.drivers),
              "max_trends": int(sc.max_trends), "sharon_max_work": int(sc.sharon_max_work), "repeats": int(sc.repeats),
              "memory": bool(exp.get("memory", False))}
    specs = []
    for ds in exp.datasets:
        for x_name, xs, fixed in (("events_per_minute", exp.events_per_minute, {"queries": int(exp.default_queries)}),
                                  ("queries", exp.queries, {"events_per_minute": int(exp.default_events_per_minute)})):
            for x in xs:
                for eng in exp.engines:
                    for seed in sc.seeds:
                        p = {**params, **fixed, x_name: int(x)}
                        specs.append({**base, "dataset": ds, "algorithm": eng, "seed": int(seed), "x_name": x_name,
                                      "x_value": int(x), "pattern_id": f"{ds}-{x_name}-{x}-s{seed}", "params": p})
    return specs


def run(cfg: DictConfig, out_dir: Path) -> int:
    from experiments.running.execution import run_all_cells

    return run_all_cells(cfg, out_dir, build_specs(cfg), run_cell)


# ---- streams and workloads --------------------------------------------------------------------------
STARTS, ENDS = 4, 4


@lru_cache(maxsize=4)
def _dataset(name: str):
    from experiments.data.datasets import load_dataset

    return load_dataset(name)


def make_stream(dataset: str, rate: int, minutes: float, seed: int, drivers: int):
    """The cell's stream and its pool (shared Kleene type first); see the module docstring."""
    from cep.events import Event, EventStream
    from experiments.data.ridesharing import generate_ridesharing

    n = int(rate * minutes)
    if dataset == "ridesharing":
        return generate_ridesharing(n, seed=seed, events_per_minute=rate, drivers=drivers), None
    data = _dataset(dataset)
    counts: dict[str, int] = {}
    for e in data:
        counts[e.type] = counts.get(e.type, 0) + 1
    ranked = sorted(counts, key=lambda t: (-counts[t], t))
    # a seed picks which of the frequent types form the pool
    off = (seed * (1 + STARTS + ENDS)) % max(1, len(ranked) - (1 + STARTS + ENDS))
    pool = ranked[off: off + 1 + STARTS + ENDS]
    keep = set(pool)
    chosen = [e for e in data if e.type in keep][:n]
    step = 60.0 / rate
    return EventStream([Event(e.type, round(i * step, 6), dict(e.attrs)) for i, e in enumerate(chosen)], source=f"{dataset}-pool"), pool


def workload(spec: Mapping, pool, stream) -> str:
    """The cell's queries as text: Figures 8-10 the first workload of HAMLET Section 5.1, Figures 11-12
    the second (:func:`mixed_workload`)."""
    from experiments.data.ridesharing import sharing_workload

    p = spec["params"]
    k, w = int(p["queries"]), int(p["window_s"])
    if spec["dataset"] == "ridesharing" and spec["figure"] not in MIXED_FIGURES:
        return sharing_workload(k, window_seconds=w, extra=" WHERE [driver]")
    if spec["dataset"] == "ridesharing":  # dynamic vs static: one partition, thresholds on Travel's speed
        from experiments.data.ridesharing import OTHER

        pool = ["Travel"] + [t for t in OTHER][: STARTS + ENDS]
    if spec["figure"] in MIXED_FIGURES:
        return mixed_workload(k, w, pool, stream, spec["dataset"])
    t, starts, ends = pool[0], pool[1:1 + STARTS], pool[1 + STARTS:]
    attr = _FILTER_ATTR.get(spec["dataset"], "close")
    cuts = _cuts(stream, t, attr)
    out = []
    for i in range(k):
        s, e = starts[i % STARTS], ends[(i // STARTS) % ENDS]
        where = f" WHERE t.{attr} >= {cuts[1 + i % 3]!r}" if i >= STARTS * ENDS else ""
        out.append(f'RETURN COUNT(*) PATTERN SEQ("{s}" s, "{t}" t+, "{e}" e){where} WITHIN {w} seconds')
    return "\n".join(out)


# The second workload of HAMLET Section 5.1 (Figures 11-12): "sharable Kleene patterns of length ranging
# from 1 to 3, windows sizes ranging from 5 to 20 minutes, different aggregates (e.g., COUNT, AVG, MAX,
# etc.), as well as groupbys and predicates on a variety of event types".
MIXED_FIGURES = ("fig11", "fig12")
MIXED_AGGREGATES = ("COUNT(*)", "COUNT(t)", "SUM(t.{a})", "AVG(t.{a})", "MIN(t.{a})", "MAX(t.{a})")
MIXED_WINDOWS = (5, 10, 15, 20)  # the paper's minutes, as fractions of the largest (scale.hamlet.window_s)
MIXED_SHAPES = ("s,t,e", "s,t", "t,e", "t")  # pattern lengths 3, 2, 2, 1 around the shared t+
_FILTER_ATTR = {"ridesharing": "speed", "traffic": "avg_speed", "nasdaq": "close"}
_AGG_ATTR = {"ridesharing": "duration", "nasdaq": "volume"}  # integral values: exact sums stay ints


def _cuts(stream, etype: str, attr: str) -> list:
    """No threshold, then the 25/50/75% quantiles of ``attr`` over the events of ``etype``."""
    vals = sorted(e.attrs[attr] for e in stream if e.type == etype) or [0.0]
    return [None] + [vals[int(len(vals) * f)] for f in (0.25, 0.5, 0.75)]


def mixed_workload(k: int, window_s: int, pool, stream, dataset: str) -> str:
    """``k`` queries sharing ``t+`` (the pool's first type) that mix the second workload's dimensions.

    Query ``i`` takes aggregate ``MIXED_AGGREGATES[i % 6]`` (COUNT(*), COUNT, SUM, AVG, MIN, MAX of the
    Kleene events' volume / duration), pattern shape ``MIXED_SHAPES[(i // 3) % 4]`` (``SEQ(s, t+, e)``,
    ``SEQ(s, t+)``, ``SEQ(t+, e)``, ``SEQ(t+)``), a tumbling window of ``MIXED_WINDOWS[(i // 2) % 4] / 20``
    of ``window_s`` (the paper's 5-20 minutes scaled to our largest window; the executor shares across
    them through panes, Section 3.1), a threshold on ``t``'s close price / speed at no / the 25 / 50 / 75%
    quantile (``(i + i // 4) % 4``; thresholds that differ are what makes event-level snapshots), and
    every fifth query (``i % 5 == 4``) whose pattern has a start type also a threshold on that type's
    attribute (its median), so predicates fall on more than the shared type.  GROUP-BY is not varied: the stock
    events carry no grouping attribute but their type (the company), and queries with other grouping
    attributes are not sharable with these (Definition 3.2), so they would only add non-shared queries.
    Kleene sub-patterns longer than one event type (``SEQ(A, B)+``) are outside the trend language
    (Kleene over one type, Section 3 assumption 3), so "length 1 to 3" is read as the pattern's length.
    """
    t, starts, ends = pool[0], pool[1:1 + STARTS], pool[1 + STARTS:]
    attr, agg_attr = _FILTER_ATTR.get(dataset, "close"), _AGG_ATTR.get(dataset, "volume")
    cuts = _cuts(stream, t, attr)
    out = []
    for i in range(k):
        s, e = starts[i % STARTS], ends[(i // STARTS) % ENDS]
        shape = MIXED_SHAPES[(i // 3) % len(MIXED_SHAPES)]
        elems = {"s": f'"{s}" s', "t": f'"{t}" t+', "e": f'"{e}" e'}
        conds = []
        c = cuts[(i + i // 4) % len(cuts)]
        if c is not None:
            conds.append(f"t.{attr} >= {c!r}")
        if "s" in shape and i % 5 == 4:
            conds.append(f"s.{attr} >= {_cuts(stream, s, attr)[2]!r}")
        where = f" WHERE {' AND '.join(conds)}" if conds else ""
        agg = MIXED_AGGREGATES[i % len(MIXED_AGGREGATES)].format(a=agg_attr)
        win = window_s * MIXED_WINDOWS[(i // 2) % len(MIXED_WINDOWS)] // MIXED_WINDOWS[-1]
        pattern = ", ".join(elems[x] for x in shape.split(","))
        out.append(f"RETURN {agg} PATTERN SEQ({pattern}){where} WITHIN {win} seconds")
    return "\n".join(out)


def burst_mean(stream, pool) -> float:
    kleene = "Travel" if pool is None else pool[0]
    runs, total, last = 0, 0, None
    for e in stream:
        if e.type == kleene:
            total += 1
            runs += last != kleene
        last = e.type
    return total / runs if runs else 0.0


# ---- one cell ---------------------------------------------------------------------------------------
def run_cell(spec: Mapping) -> list[dict]:
    from cep.parser import parse_patterns
    from experiments.running.trend_engines import measure

    p = spec["params"]
    stream, pool = make_stream(spec["dataset"], int(p["events_per_minute"]), float(p["minutes"]), int(spec["seed"]), int(p["drivers"]))
    queries = parse_patterns(workload(spec, pool, stream))
    eng = spec["algorithm"]
    options = {"max_trends": int(p["max_trends"])} if eng == "two-step" else ({"max_work": int(p["sharon_max_work"])} if eng == "sharon" else {})
    base = {"events": len(stream), "burst_mean": burst_mean(stream, pool)}
    try:
        runs = [measure(eng, queries, stream, memory=bool(p["memory"]) and r == 0, **options) for r in range(int(p["repeats"]))]
    except EvaluationLimitError as e:
        status = f"capped: {e}"
        return [_row(spec, m, v, plan="", status=status) for m, v in (("throughput_eps", None), *base.items())]
    res = runs[0][0]
    digest = hashlib.sha1(json.dumps(res.rows(), default=str).encode()).hexdigest()[:16]
    ms = [m for _, m in runs]
    tp = [m["throughput_eps"] for m in ms if m["throughput_eps"]]
    values = {
        "throughput_eps": statistics.median(tp) if tp else None,
        "throughput_spread": (max(tp) / min(tp)) if len(tp) > 1 else 1.0,
        "latency_ms": statistics.median(m["latency_ms_mean"] for m in ms if m["latency_ms_mean"] is not None),
        "latency_p95_ms": statistics.median(m["latency_ms_p95"] for m in ms if m["latency_ms_p95"] is not None),
        "snapshots": ms[0]["snapshots"],
        "shared_graphlets": ms[0].get("shared_graphlets", 0),
        "graphlets": ms[0].get("graphlets", 0),
        **base,
    }
    if ms[0]["peak_memory_bytes"] is not None:
        values["peak_traced_memory_bytes"] = ms[0]["peak_memory_bytes"]
    return [_row(spec, m, v, plan=digest) for m, v in values.items()]


def _row(spec: Mapping, metric: str, value, *, plan: str, status: str = "ok") -> dict:
    from experiments.running.store import cell_id

    return {
        "experiment": spec["experiment"],
        "dataset": spec["dataset"],
        "workload": spec["figure"],
        "size": int(spec["params"]["queries"]),
        "pattern_id": spec["pattern_id"],
        "seed": int(spec["seed"]),
        "algorithm": spec["algorithm"],
        "kind": "trends",
        "evaluator": spec["algorithm"],
        "alpha": None,
        "strategy": None,
        "metric": metric,
        "value": None if value is None else float(value),
        "status": status,
        "plan": plan,
        "params": json.dumps(spec.get("params") or {}, sort_keys=True),
        "cell_id": cell_id(spec),
        "code_version": spec.get("_code_version"),
        "x_name": spec["x_name"],
        "x_value": float(spec["x_value"]),
    }
