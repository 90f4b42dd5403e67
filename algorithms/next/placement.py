"""Operator placement (NEXT Section 4.4): greedy bottom-up deployment with operator reuse, and the
round-robin baseline.

Strategies (configs and the ``place`` command name them so):

* ``round-robin``: every operator of every query goes to the next node in turn, no reuse;
* ``greedy``: bottom-up, each operator to the node of lowest deployment cost, no reuse;
* ``reuse``: greedy, but first the query is searched top-down for the largest operator already
  deployed (abstract operator trees hashed, :func:`cep.next_algebra.aot`), which then serves this query
  too; operators deployed while placing a query are reusable within it;
* ``rewrite+greedy`` / ``rewrite+reuse``: the same after NEXT's rewriting (:mod:`algorithms.next.rewrite`),
  done by the caller (the rewritten queries are what gets placed).

Deployment cost of operator ``o`` on node ``n`` (Section 4.2, the summand of ``cost(Q, P)``):

    sum_{o2 in sub(o)} [n != P(o2)] mu_s(o2) + has(o, n) CPU(o) + sum_{o2 on n} CPU(o2)

-- events received over the network, o's own CPU unless n already runs it, and the CPU already on n
(which spreads load: the paper's secondary goal of low CPU variance).  The paper defines
``delta(n1, n2)`` as 1 "iff n1 = n2", which would charge co-location; we read it as the network term
it is described as ("expensive if its suboperators are placed on another node") and charge ``n1 !=
n2``.  Sources are outside the operator nodes (source proxies), so their events always cross the
network.  :meth:`Placer.paper_cost` is this formula with Table 1 estimates (events per second).

What the greedy minimizes is the same formula in one of two currencies (``decide``):

* ``"measured"`` (default): CPU seconds per second -- each operator's measured CPU, and the measured
  cost of receiving (and, from another node, sending) an event times the stream's measured rate,
  charged only for a stream the node does not receive yet (nodes subscribe to a stream once, see
  :mod:`algorithms.next.capacity`); the load already on a node is its measured load.  This is a
  system that knows what its operators cost (NEXT's Engine "keeps track of running queries and
  statistics").
* ``"model"``: Table 1 estimates, as the paper's formula has it.

Either way the node loads that decide overload are the measured ones (:class:`Account`).
Time: ``O(Q N)`` per query (Q operators, N nodes).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import cep.next_algebra as algebra
from cep.errors import ConfigError
from cep.statistics import Statistics

from algorithms.next.costs import estimate
from algorithms.plan_ranking import cheaper

STRATEGIES = ("round-robin", "greedy", "reuse", "rewrite+greedy", "rewrite+reuse")
DECIDE = ("measured", "model")


@dataclass(frozen=True)
class Measured:
    """Measured facts of one operator (by AOT digest) or source (``source:<type>``): CPU seconds per
    second of stream, and output events per second."""

    cpu: float
    rate: float


@dataclass(eq=False)
class Deployed:
    """One deployed operator: where it runs and which queries it serves."""

    id: int
    key: tuple
    digest: str
    kind: str
    node: int
    model_cpu: float  # Table 1 estimate, events/s
    model_rate: float  # mu_s estimate, events/s
    cpu: float  # measured CPU s/s
    rate: float  # measured events/s
    inputs: list  # per input edge: a Deployed or a Stream of a source
    queries: set[int] = field(default_factory=set)


@dataclass(frozen=True)
class SourceInput:
    type: str
    model_rate: float
    rate: float


@dataclass
class QueryPlacement:
    query: int
    root: Deployed | SourceInput
    new: list[Deployed]
    reused: list[Deployed]
    paper_cost: float  # cost(Q, P) with Table 1 estimates when it was placed
    log: list = field(default_factory=list)  # (account, node, load delta, new subscription) for undo


class Account:
    """Load per node and the streams each node receives, in one currency (see the module doc)."""

    def __init__(self, nodes: int, send: float, recv: float, measured: bool) -> None:
        self.load = [0.0] * nodes
        self.subs: list[set] = [set() for _ in range(nodes)]
        self.send, self.recv, self.measured = send, recv, measured

    def cpu(self, d: Deployed) -> float:
        return d.cpu if self.measured else d.model_cpu

    def rate(self, x) -> float:
        return x.rate if self.measured else x.model_rate

    def input_cost(self, i, n: int) -> float:
        """What node ``n`` would spend to get input ``i`` (0 if it runs it or receives it already)."""
        if isinstance(i, Deployed):
            if i.node == n:
                return 0.0
            sid = i.id
        else:
            sid = ("source", i.type)
        if self.measured and sid in self.subs[n]:
            return 0.0
        return self.rate(i) * (self.recv + (self.send if isinstance(i, Deployed) else 0.0))

    def deploy(self, d: Deployed, log: list) -> None:
        n = d.node
        self._add(n, self.cpu(d), None, log)
        for i in d.inputs:
            if isinstance(i, Deployed):
                if i.node == n:
                    continue
                sid = i.id
            else:
                sid = ("source", i.type)
            if self.measured and sid in self.subs[n]:
                continue
            self._add(n, self.rate(i) * self.recv, sid, log)
            if isinstance(i, Deployed):
                self._add(i.node, self.rate(i) * self.send, None, log)

    def deliver(self, root, log: list) -> None:
        """A query's results leave its root's node for a sink."""
        if isinstance(root, Deployed):
            self._add(root.node, self.rate(root) * self.send, None, log)

    def _add(self, n: int, x: float, sid, log: list) -> None:
        self.load[n] += x
        new = sid is not None and sid not in self.subs[n]
        if new:
            self.subs[n].add(sid)
        log.append((self, n, x, sid if new else None))


class Placer:
    """Places queries one after the other on ``nodes`` nodes (see the module doc)."""

    def __init__(self, nodes: int, strategy: str, stats: Statistics, *, measured: Mapping[str, Measured],
                 send_s: float, recv_s: float, decide: str = "measured") -> None:
        if nodes < 1:
            raise ConfigError(f"placement needs at least one node, got {nodes}")
        if strategy not in STRATEGIES:
            raise ConfigError(f"unknown placement strategy {strategy!r}; known: {', '.join(STRATEGIES)}")
        if decide not in DECIDE:
            raise ConfigError(f"placement decides by {' or '.join(DECIDE)}, not {decide!r}")
        self.nodes = nodes
        self.strategy = strategy
        self.reuse = strategy.endswith("reuse")
        self.round_robin = strategy == "round-robin"
        self.stats = stats
        self.measured = measured
        self.truth = Account(nodes, send_s, recv_s, measured=True)
        self.belief = self.truth if decide == "measured" else Account(nodes, 0.0, 1.0, measured=False)
        self.model_cpu = [0.0] * nodes  # Table 1 CPU per node, for cost(Q, P)
        self.deployed: list[Deployed] = []
        self.by_key: dict[tuple, Deployed] = {}
        self.placements: list[QueryPlacement] = []
        self._rr = 0

    # ---- placing ---------------------------------------------------------------------------------------
    def place(self, pattern: algebra.NextPattern) -> QueryPlacement:
        """Deploy one query; returns where its operators went."""
        qi = len(self.placements)
        est = {id(c.node): c for c in estimate(pattern.operators, self.stats)}
        qp = QueryPlacement(qi, None, [], [], 0.0)  # type: ignore[arg-type]
        qp.root = self._place(pattern.operators, est, qp)
        for acc in {id(a): a for a in (self.truth, self.belief)}.values():
            acc.deliver(qp.root, qp.log)
        self.placements.append(qp)
        return qp

    def _place(self, node: algebra.OpNode, est, qp: QueryPlacement):
        e = est[id(node)]
        if node.kind == algebra.SOURCE:
            return self._source(node.expr.type, e.chars.rate)
        key, _ = algebra.aot(node)
        if self.reuse and key in self.by_key:  # the largest deployed equivalent operator
            d = self.by_key[key]
            self._serve(d, qp)
            return d
        if node.kind == algebra.FILTER:
            inputs = [self._source(node.expr.type, e.chars.rate)]
        else:
            inputs = [self._place(c, est, qp) for c in node.children]
        digest = algebra.aot_digest(key)
        m = self._measure(digest, node.kind)
        d = Deployed(len(self.deployed), key, digest, node.kind, -1, e.cpu, e.chars.rate, m.cpu, m.rate, inputs, {qp.query})
        d.node = self._choose(d)
        qp.paper_cost += self._paper_term(d)
        for acc in {id(a): a for a in (self.truth, self.belief)}.values():
            acc.deploy(d, qp.log)
        self.model_cpu[d.node] += d.model_cpu
        self.deployed.append(d)
        if self.reuse:
            self.by_key[key] = d
        qp.new.append(d)
        return d

    def _source(self, typ: str, model_rate: float) -> SourceInput:
        m = self.measured.get(f"source:{typ}")
        return SourceInput(typ, model_rate, m.rate if m is not None else model_rate)

    def _measure(self, digest: str, kind: str) -> Measured:
        try:
            return self.measured[digest]
        except KeyError:
            raise ConfigError(f"no measurement for {kind} operator {digest}: measure every query's operators first") from None

    def _serve(self, d: Deployed, qp: QueryPlacement) -> None:
        if qp.query not in d.queries:
            d.queries.add(qp.query)
            qp.reused.append(d)
            for i in d.inputs:
                if isinstance(i, Deployed):
                    self._serve(i, qp)

    def _choose(self, d: Deployed) -> int:
        if self.round_robin:
            n = self._rr % self.nodes
            self._rr += 1
            return n
        acc = self.belief
        best, best_cost = 0, None
        cpu = acc.cpu(d)
        for n in range(self.nodes):
            c = sum(acc.input_cost(i, n) for i in d.inputs) + cpu + acc.load[n]
            if best_cost is None or cheaper(c, best_cost):  # a tie: the lower node
                best, best_cost = n, c
        return best

    def _paper_term(self, d: Deployed) -> float:
        """The summand of cost(Q, P) for a new operator, Table 1 units (network: events/s)."""
        net = sum(i.model_rate for i in d.inputs if not (isinstance(i, Deployed) and i.node == d.node))
        return net + d.model_cpu + self.model_cpu[d.node]

    def undo_last(self) -> None:
        """Take the last placed query back out (a rejected query): its operators, their loads and
        subscriptions go, the operators it reused stop serving it, round-robin's turn is restored."""
        qp = self.placements.pop()
        for acc, n, x, sid in reversed(qp.log):
            acc.load[n] -= x
            if sid is not None:
                acc.subs[n].discard(sid)
        for d in reversed(qp.new):
            assert self.deployed[-1] is d
            self.deployed.pop()
            self.model_cpu[d.node] -= d.model_cpu
            if self.by_key.get(d.key) is d:
                del self.by_key[d.key]
        for d in qp.reused:
            d.queries.discard(qp.query)
        if self.round_robin:
            self._rr -= len(qp.new)

    # ---- reading ---------------------------------------------------------------------------------------
    @property
    def node_load(self) -> list[float]:
        """Measured CPU s/s per node."""
        return self.truth.load

    def node_ops(self) -> list[int]:
        out = [0] * self.nodes
        for d in self.deployed:
            out[d.node] += 1
        return out
