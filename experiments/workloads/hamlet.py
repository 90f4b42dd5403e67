"""The queries of the HAMLET experiments (HAMLET Section 5.1), as text of the trend aggregation language.

* The first workload (Figures 8-10): ``k`` COUNT(*) queries ``SEQ(S_i s, T t+, E_i e)`` sharing the Kleene
  sub-pattern ``T+`` (:func:`sharing_workload` on ridesharing; on stock and traffic the pool's types,
  with thresholds on the Kleene type past the first ``STARTS * ENDS`` queries).
* The second workload (Figures 11-12, :func:`mixed_workload`): mixed aggregates, windows, pattern lengths
  and predicates.
"""

from __future__ import annotations

from typing import Mapping

from experiments.data.ridesharing import OTHER
from experiments.data.trend_pools import ENDS, STARTS


def sharing_workload(k: int, *, window_seconds: int, kleene: str = "Travel", extra: str = "", returns: str = "COUNT(*)") -> str:
    """``k`` queries ``RETURN <returns>`` (default COUNT(*)) sharing ``Travel+``: SEQ(S_i s, Travel t+, E_i e)
    with distinct start / end types."""
    starts = ("Request", "Accept", "Pickup", "Surge", "Login", "Wait", "Promo", "Idle", "Refuel")
    ends = ("Dropoff", "Cancel", "Pay", "Arrive", "Rate", "Tip", "Logout", "Reroute", "Complain", "Refund")
    out = []
    for i in range(k):
        s, e = starts[i % len(starts)], ends[(i // len(starts)) % len(ends)]
        out.append(f"RETURN {returns} PATTERN SEQ({s} s, {kleene} t+, {e} e){extra} WITHIN {window_seconds} seconds")
    return "\n".join(out)


def experiment_workload(spec: Mapping, pool, stream) -> str:
    """The cell's queries as text: Figures 8-10 the first workload of HAMLET Section 5.1, Figures 11-12
    the second (:func:`mixed_workload`)."""
    p = spec["params"]
    k, w = int(p["queries"]), int(p["window_s"])
    if spec["dataset"] == "ridesharing" and spec["figure"] not in MIXED_FIGURES:
        return sharing_workload(k, window_seconds=w, extra=" WHERE [driver]")
    if spec["dataset"] == "ridesharing":  # dynamic vs static: one partition, thresholds on Travel's speed

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
MIXED_WINDOWS = (5, 10, 15, 20)  # the paper's minutes, as fractions of the largest (the settings' window_s)
MIXED_SHAPES = ("s,t,e", "s,t", "t,e", "t")  # pattern lengths 3, 2, 2, 1 around the shared t+
_FILTER_ATTR = {"ridesharing": "speed", "traffic": "avg_speed", "nasdaq": "close"}
_AGG_ATTR = {"ridesharing": "duration", "nasdaq": "volume"}  # integral values: exact sums stay ints


def _cuts(stream, etype: str, attr: str) -> list:
    """No threshold, then the 25/50/75% quantiles of ``attr`` over the events of ``etype`` (of the
    stream's columns, :class:`cep.columnar.EventColumns`)."""
    vals = sorted(stream.column(attr, stream.rows_of_types([etype]))) or [0.0]
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
