"""The CPU capacity model of NEXT's evaluation (Section 6): how many queries nodes support before
they are overloaded.

The nodes are simulated; what they spend is measured.  Each operator's CPU load (CPU seconds per
second of stream) and output rate come from running it on the NEXT operator engine
(:mod:`evaluators.next.engine`) over the Poisson sources, and so does the CPU cost of sending and of
receiving one event (:func:`evaluators.next.engine.network_cost`).  Streams move between machines by
subscription: a node receives a stream (a source, or another node's operator output) once, however
many of its operators read it, and the node that runs an operator sends its output once to every
other node that subscribes.  A node's load (:class:`algorithms.next.placement.Account`) is

    measured CPU of its operators + receive cost x rate of every stream it subscribes to
                                  + send cost x rate x subscribers, for each operator it runs
                                  + send cost x rate of each query result it delivers.

Sources live on source proxies outside the operator nodes (as in the paper's testbed).  Sink proxies
(``sinks``; 0: not simulated) receive every query's results and are overloaded like nodes; queries go
to the sinks in turn.  A node or sink is overloaded when its load exceeds ``capacity`` CPU seconds
per second.  Queries are offered in order; one that would overload something is rejected (taken
back out) and the next is tried, until ``patience`` queries in a row were rejected or none are left.
The number admitted is the number of queries supported (the paper: "the maximum number of
non-overloaded operators" -- filling the machines, so that one heavy query early on does not end the
count).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import cep.next_algebra as algebra
from cep.errors import ConfigError
from cep.statistics import Statistics

from algorithms.next.placement import Measured, Placer

__all__ = ["Machine", "Measured", "CapacityResult", "simulate", "supported_series"]


@dataclass(frozen=True)
class Machine:
    """The simulated machines: ``capacity`` CPU s/s per node and per sink, the measured CPU seconds
    of sending and of receiving one event, and the number of sink proxies (0: not simulated)."""

    capacity: float
    send_s: float
    recv_s: float
    sinks: int = 0

    def __post_init__(self) -> None:
        if not self.capacity > 0:
            raise ConfigError(f"node capacity must be positive, got {self.capacity}")
        if self.sinks < 0:
            raise ConfigError(f"the number of sink proxies must be >= 0, got {self.sinks}")


@dataclass
class CapacityResult:
    strategy: str
    nodes: int
    supported: int  # queries admitted
    operators: int  # operators those queries consist of (shared ones counted per query)
    deployed: int  # operators deployed (shared ones once)
    node_load: list[float]  # measured CPU s/s per node
    sink_load: list[float]
    node_ops: list[int]
    placements: list[list[tuple[str, str, int, bool]]]  # per admitted query: (digest, kind, node, reused)
    paper_cost: float  # sum of cost(Q, P) (Table 1 units) over the admitted queries
    load_variance: float  # variance of the measured node loads
    overloaded: str  # what the last rejected query would have overloaded ("" if none was rejected)
    queries_offered: int
    rejected: int
    admitted: list[int]  # indices of the admitted queries in the order offered

    def to_json(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def simulate(
    queries: Sequence[algebra.NextPattern],
    *,
    nodes: int,
    strategy: str,
    stats: Statistics,
    measured: Mapping[str, Measured],
    machine: Machine,
    patience: int = 20,
    decide: str = "measured",
) -> CapacityResult:
    """Offer ``queries`` in order to ``nodes`` nodes; admit each that overloads nothing (module doc)."""
    placer = Placer(nodes, strategy, stats, measured=measured, send_s=machine.send_s, recv_s=machine.recv_s, decide=decide)
    sink = [0.0] * machine.sinks
    admitted = n_ops = rejected = in_a_row = 0
    overloaded = ""
    paper_cost = 0.0
    taken: list[int] = []
    for index, q in enumerate(queries):
        qp = placer.place(q)
        k = admitted % machine.sinks if machine.sinks else None
        sink_add = machine.recv_s * _rate(qp.root) if k is not None else 0.0
        over = [(x, f"node {n}") for n, x in enumerate(placer.node_load) if x > machine.capacity]
        if k is not None and sink[k] + sink_add > machine.capacity:
            over.append((sink[k] + sink_add, f"sink {k}"))
        if over:
            load, what = max(over)
            overloaded = f"{what} ({load:.3g} CPU s/s)"
            placer.undo_last()
            rejected += 1
            in_a_row += 1
            if in_a_row >= patience:
                break
            continue
        in_a_row = 0
        if k is not None:
            sink[k] += sink_add
        admitted += 1
        taken.append(index)
        n_ops += algebra.operator_count(q.expr)
        paper_cost += qp.paper_cost
    loads = list(placer.node_load)
    mean = sum(loads) / nodes
    return CapacityResult(
        strategy=strategy,
        nodes=nodes,
        supported=admitted,
        operators=n_ops,
        deployed=len(placer.deployed),
        node_load=loads,
        sink_load=sink,
        node_ops=placer.node_ops(),
        placements=[[(d.digest, d.kind, d.node, any(d is r for r in qp.reused)) for d in qp.new + qp.reused]
                    for qp in placer.placements],
        paper_cost=paper_cost,
        load_variance=sum((x - mean) ** 2 for x in loads) / nodes,
        overloaded=overloaded,
        queries_offered=admitted + rejected,
        rejected=rejected,
        admitted=taken,
    )


def _rate(root) -> float:
    return root.rate


def supported_series(
    queries: Sequence[algebra.NextPattern],
    node_counts: Iterable[int],
    *,
    strategy: str,
    stats: Statistics,
    measured: Mapping[str, Measured],
    machine: Machine,
    patience: int = 20,
    decide: str = "measured",
) -> list[CapacityResult]:
    """:func:`simulate` for each node count (Figure 11's x axis)."""
    return [simulate(queries, nodes=n, strategy=strategy, stats=stats, measured=measured, machine=machine,
                     patience=patience, decide=decide) for n in node_counts]
