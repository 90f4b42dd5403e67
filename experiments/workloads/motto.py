"""MOTTO's workloads (Section VII, Table V) as patterns of our language over a pool of real event types.

The queries come from :func:`algorithms.motto.workloads.table_v_workload` (pairs of queries with one of
seven sharing types, a fraction ``r`` from the basic group 1-4, the rest from the complex group 5-7);
MOTTO's 13 event types ``E_1 .. E_13`` -- the paper's stock symbols -- become the pool's symbols,
``E_1`` the rarest in the stream and ``E_13`` the most frequent.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from algorithms.motto.query import Query
from algorithms.motto.workloads import table_v_workload
from cep.pattern import Pattern, Window


def table_v_patterns(params: Mapping, pool: Sequence[str], counts: Mapping[str, int], *, seed: int,
                     window_ratio: bool = False) -> list[Pattern]:
    """The Table V workload of ``params`` (queries, r, length, level, window, sharing_types) as patterns
    over ``pool``.  With ``window_ratio`` the pairs' windows differ: the source's over the beneficiary's
    is ``params["window_ratio"]``, the larger of the two equal to ``window`` (Figure 14c)."""
    w = float(params["window"])
    pair_windows = None
    if window_ratio:
        ratio = float(params["window_ratio"])
        pair_windows = (Window.seconds(w), Window.seconds(w / ratio)) if ratio >= 1 else (Window.seconds(w * ratio), Window.seconds(w))
    qs = table_v_workload(int(params["queries"]), seed=seed, r=float(params["r"]), n_types=len(pool),
                          length=int(params["length"]), window=Window.seconds(w), level=int(params["level"]),
                          pair_windows=pair_windows, types=tuple(int(t) for t in params.get("sharing_types") or range(1, 8)))
    by_rate = sorted(pool, key=lambda t: (counts.get(t, 0), t))
    tmap = {f"E{i + 1}": t for i, t in enumerate(by_rate)}

    def rename(q):
        if isinstance(q, str):
            return tmap[q]
        return Query(q.op, tuple(rename(o) for o in q.operands), q.window, q.seq_order, q.name)

    return [rename(q).to_pattern(q.name)[0] for q in qs]
