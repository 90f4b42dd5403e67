"""MOTTO's sharing graph: the DSMT instance of a workload (MOTTO Section V-B).

"Queries in the submitted workload are treated as Terminal nodes ... Interesting sub-queries
identified by application of sharing techniques are treated as Steiner nodes ... We add one special
query q_0 with no execution cost as root ... For every query (including sub-query) we insert an
edge from q_0 representing computing from scratch.  If a query can be computed based on results
of another ... add an edge from the source query to the beneficiary query.  The weight on edge
represents the cost of executing the query based on the source."

* vertex 0 is ``q_0``; then the workload's queries (terminals; queries of equal meaning share one
  vertex); then the interesting sub-queries (:func:`algorithms.motto.rewrites.search_interesting`);
  then, for each source whose window is too small for a beneficiary, its extended copy (Section
  IV-D case 2), also a Steiner vertex;
* an arc ``x -> i`` for every :func:`algorithms.motto.rewrites.derive` that succeeds, weighted
  ``Cost(q_i | q_x)`` (:mod:`algorithms.motto.cost`), and ``q_0 -> i`` for every vertex.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from cep.statistics import Statistics

from algorithms.motto.cost import MottoCosts
from algorithms.motto.query import Query
from algorithms.motto.rewrites import Derivation, derive, extend_window, from_scratch, search_interesting
from algorithms.motto.steiner import SteinerGraph


@dataclass(frozen=True)
class SharingGraph:
    """The DSMT instance with what each vertex and arc means."""

    vertices: tuple[Query | None, ...]  # None is q_0
    names: tuple[str, ...]
    terminal_of: dict  # query name -> vertex
    derivations: dict  # (u, v) -> Derivation
    graph: SteinerGraph
    n_subqueries: int = 0
    subqueries_capped: bool = False  # the search for interesting sub-queries reached max_subqueries


def build_graph(
    queries: Sequence[Query],
    stats: Statistics,
    *,
    max_subqueries: int = 2000,
    extend_windows: bool = True,
    costs: MottoCosts | None = None,
    selectivities=None,
    techniques: frozenset[str] | None = None,
) -> SharingGraph:
    """The sharing graph of a workload (module docstring); ``max_subqueries`` caps the recursive
    search for interesting sub-queries; ``selectivities`` are keyed by event types
    (:class:`algorithms.motto.cost.MottoCosts`); ``max_subqueries=0`` searches none (terminals
    only); ``techniques``, if given, keeps only the arcs between queries whose techniques all belong
    to it (the arcs from ``q_0`` stay) -- MOTTO's MST baseline is ``{"MST-substring", "MST-merge"}``
    without sub-queries or extended windows."""
    costs = costs or MottoCosts(stats, selectivities)
    vertices: list[Query | None] = [None]
    names = ["q0"]
    index: dict[str, int] = {}
    terminal_of: dict[str, int] = {}
    for i, q in enumerate(queries):
        name = q.name or f"q{i + 1}"
        if q.key not in index:
            index[q.key] = len(vertices)
            vertices.append(q)
            names.append(name)
        terminal_of[name] = index[q.key]
    terminals = frozenset(terminal_of.values())
    k = 0
    found = search_interesting(queries, max_subqueries=max_subqueries) if max_subqueries > 0 else []
    for s in found:
        if s.key not in index:
            k += 1
            index[s.key] = len(vertices)
            vertices.append(s)
            names.append(f"s{k}")
    derivations: dict[tuple[int, int], Derivation] = {}
    base = len(vertices)
    for v in range(1, base):
        derivations[(0, v)] = from_scratch(vertices[v])
        for u in range(1, base):
            if u != v and vertices[u].type_set <= vertices[v].type_set:
                d = derive(vertices[v], vertices[u])
                if d is not None:
                    derivations[(u, v)] = d
    if extend_windows:  # Section IV-D case 2: extend a source whose window is too small
        for v in range(1, base):
            for u in range(1, base):
                tv, su = vertices[v], vertices[u]
                if u == v or (u, v) in derivations or su.window.kind is not tv.window.kind or su.window.size >= tv.window.size:
                    continue
                if not su.type_set <= tv.type_set:
                    continue
                ext = extend_window(su, tv.window)
                if derive(tv, ext) is None:
                    continue
                if ext.key not in index:
                    index[ext.key] = len(vertices)
                    vertices.append(ext)
                    names.append(f"{names[u]}'{tv.window}")
                    w = index[ext.key]
                    derivations[(0, w)] = from_scratch(ext)
                    back = derive(su, ext)
                    assert back is not None
                    derivations[(w, u)] = back
                w = index[ext.key]
                derivations[(w, v)] = derive(tv, ext)
    if techniques is not None:
        derivations = {uv: d for uv, d in derivations.items() if uv[0] == 0 or set(d.techniques) <= techniques}
    arcs = {uv: costs.edge_cost(d) for uv, d in derivations.items()}
    g = SteinerGraph(len(vertices), 0, terminals, arcs)
    return SharingGraph(tuple(vertices), tuple(names), terminal_of, derivations, g, k, max_subqueries > 0 and len(found) >= max_subqueries)
