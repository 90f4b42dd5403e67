"""The trend aggregation engines by the names the command line and the experiments use.

``hamlet`` is the HAMLET executor under the dynamic optimizer (:class:`algorithms.trends.DynamicSharing`);
``hamlet-static`` shares every shareable Kleene sub-pattern always; ``greta``, ``two-step`` and
``sharon`` are the baselines of HAMLET Section 5.1 (:mod:`evaluators.trends`).  This module is the one
place that joins the optimizer (algorithms) to the executor (evaluators).
"""

from __future__ import annotations

import statistics
import time
import tracemalloc

from algorithms.trends import DEFAULT_BENEFIT_MODEL, DynamicSharing
from cep.errors import ConfigError
from evaluators.trends import ENGINES, run_hamlet

ENGINE_NAMES = ("hamlet", "hamlet-static", "greta", "two-step", "sharon")


def engine(name: str, *, benefit_model: str | None = None):
    """``run(queries, stream) -> TrendResult`` of the named engine; ``benefit_model``: the dynamic
    optimizer's (``hamlet`` only; :data:`algorithms.trends.BENEFIT_MODELS`, Equation 7 by default)."""
    if name == "hamlet":
        policy = DynamicSharing(benefit_model=benefit_model or DEFAULT_BENEFIT_MODEL)
        return lambda queries, stream, **kw: run_hamlet(queries, stream, policy=policy, name="hamlet", **kw)
    if name in ENGINES and name != "reference":
        return ENGINES[name]
    raise ConfigError(f"unknown trend engine {name!r}; expected one of {', '.join(ENGINE_NAMES)}")


#: the engines whose state the deterministic meter counts (the HAMLET executor, :mod:`evaluators.trends.hamlet`)
METERED = ("hamlet", "hamlet-static")


def measure(name: str, queries, stream, *, memory: bool = True, state_memory: bool = False,
            benefit_model: str | None = None, **options) -> tuple[object, dict]:
    """Run an engine, then (untimed) again under tracemalloc for its peak memory (``memory``); result and
    metrics.  ``state_memory``: the HAMLET executor counts its peak state in the timed run
    (``peak_memory_bytes``, deterministic); other engines have no such meter (a ConfigError).
    ``benefit_model``: :func:`engine`'s."""
    run = engine(name, benefit_model=benefit_model)
    if state_memory:
        if name not in METERED:
            raise ConfigError(f"engine {name!r} has no state meter (state memory is measured for {', '.join(METERED)})")
        options = {**options, "meter": True}
    res = run(queries, stream, **options)
    peak = None
    if memory:
        tracemalloc.start()
        try:
            run(queries, stream, **options)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    lat = sorted(res.latencies_ms)
    metrics = {
        "engine": name,
        "events": res.events,
        "elapsed_s": res.seconds,
        "throughput_eps": res.events / res.seconds if res.seconds > 0 else None,
        "latency_ms_mean": statistics.fmean(lat) if lat else None,
        "latency_ms_p95": lat[min(len(lat) - 1, int(0.95 * len(lat)))] if lat else None,
        "peak_traced_memory_bytes": peak,
        "snapshots": res.snapshots,
        **{k: v for k, v in res.extra.items() if isinstance(v, (int, float))},
    }
    if res.peak_memory_bytes is not None:
        metrics["peak_memory_bytes"] = res.peak_memory_bytes
    return res, metrics


def timed(fn, *args, **kw):
    t0 = time.perf_counter()
    out = fn(*args, **kw)
    return out, time.perf_counter() - t0
