"""Random trend streams and workloads for the differential tests (hypothesis strategies)."""

from __future__ import annotations

from hypothesis import strategies as st

from cep.events import Event, EventStream
from cep.parser import parse_patterns

TYPES = ["A", "B", "C", "D"]


@st.composite
def streams(draw, max_events: int = 12, types=TYPES):
    n = draw(st.integers(0, max_events))
    gaps = draw(st.lists(st.sampled_from([0, 0, 1, 1, 2]), min_size=n, max_size=n))
    ts, out = draw(st.integers(0, 3)), []
    for g in gaps:
        ts += g
        out.append(Event(draw(st.sampled_from(types)), float(ts), {"x": draw(st.integers(0, 3)), "g": draw(st.integers(0, 1)), "h": draw(st.integers(0, 1))}))
    return EventStream(out)


@st.composite
def query_texts(draw, shared: str = "B", count_only: bool | None = None, aggregate_shared: bool = False):
    """One trend query over TYPES; the Kleene type ``shared`` appears in most queries.  With
    ``aggregate_shared`` a non-COUNT(*) aggregate takes the ``shared`` variable when the query has it."""
    others = [t for t in TYPES if t != shared]
    n_el = draw(st.integers(1, 3))
    kinds = []
    pool = list(others)
    kleene_pos = draw(st.integers(0, n_el - 1)) if draw(st.booleans()) or n_el == 1 else None
    for i in range(n_el):
        if i == kleene_pos:
            kinds.append((shared, True))
        else:
            t = draw(st.sampled_from(pool))
            pool.remove(t)
            kinds.append((t, draw(st.booleans()) and draw(st.booleans())))
    elems = []
    conds = []
    for i, (t, kl) in enumerate(kinds):
        v = f"v{i}"
        elems.append(f"KL({t} {v})" if kl and draw(st.booleans()) else (f"{t} {v}+" if kl else f"{t} {v}"))
        if draw(st.integers(0, 3)) == 0:
            conds.append(f"{v}.x {draw(st.sampled_from(['<', '>=', '!=', '=']))} {draw(st.integers(0, 3))}")
    if n_el >= 2 and pool and draw(st.booleans()):
        at = draw(st.integers(1, n_el - 1))
        nt = draw(st.sampled_from(pool))
        elems.insert(at, f"NOT({nt} n)")
        if draw(st.booleans()):
            conds.append(f"n.x > {draw(st.integers(0, 3))}")
    if count_only is None:
        count_only = draw(st.booleans())
    items = ["COUNT(*)"]
    if not count_only:
        v = f"v{kleene_pos}" if aggregate_shared and kleene_pos is not None else draw(st.sampled_from([f"v{i}" for i in range(n_el)]))
        items.append(draw(st.sampled_from([f"COUNT({v})", f"SUM({v}.x)", f"AVG({v}.x)", f"MIN({v}.x)", f"MAX({v}.x)"])))
    where = []
    if draw(st.booleans()):
        where.append("[h]")
    where += conds
    group = draw(st.sampled_from(["", "GROUP-BY g"]))
    if group:
        items.insert(0, "g")
    w = draw(st.sampled_from([2, 3, 4, 6, 100]))
    s = draw(st.sampled_from([w, 1, 2])) if w != 100 else 100
    text = f"RETURN {', '.join(items)} PATTERN SEQ({', '.join(elems)})"
    if where:
        text += " WHERE " + " AND ".join(where)
    text += f" {group} WITHIN {w} seconds SLIDE {s} seconds"
    return text


@st.composite
def workloads(draw, max_queries: int = 4, count_only: bool | None = None, same_partition: bool = False,
              aggregate_shared: bool = False):
    k = draw(st.integers(1, max_queries))
    texts = [draw(query_texts(count_only=count_only, aggregate_shared=aggregate_shared)) for _ in range(k)]
    if same_partition:
        texts = [t.replace(" WHERE [h] AND", " WHERE").replace(" WHERE [h]", "").replace("GROUP-BY g", "").replace("RETURN g, ", "RETURN ") for t in texts]
    return parse_patterns("\n".join(texts))
