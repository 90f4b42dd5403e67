"""Measuring what NEXT's capacity model consumes: every operator's CPU load and output rate, and the
CPU cost of moving one event between nodes, by running the operators on the NEXT operator engine.

The queries run in chunks of ``chunk`` queries -- about what one simulated node holds, since a run
of thousands of operators at once measured the same operators ~50% dearer (cache pressure from
operators that would live on other nodes) -- with equal operators (abstract operator trees) built
once per chunk, over ``duration`` seconds of the sources; an operator's load is its CPU seconds per second of stream -- the
CPU of its own steps, timed one by one, plus its share of the engine's dispatch (handing items from
operator to operator: the Input processes of NEXT's Fig. 8), apportioned per call -- and its rate the
items it emitted per second of stream.  The dispatch is the CPU of a second, untimed run of the same
stream minus the operators' timed steps, so the clock readings of the timed run are not counted.  With ``repeats > 1`` the stream is run again and the
median per operator is kept (the machine may be shared; an operator in several chunks also gets the
median).  Nothing here is simulated.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Sequence

from algorithms.next.capacity import Machine, Measured
from cep.next_algebra import NextPattern, aot, aot_digest
from evaluators.next.engine import network_cost, run_queries, sample_items
from experiments.workloads.next import source_stream


@dataclass(frozen=True)
class Measurement:
    """Per operator digest (and ``source:<type>``): measured CPU load and rate; the network costs;
    how long the measured stream was and how many operators ran."""

    operators: dict[str, Measured]
    send_s: float
    recv_s: float
    stream_seconds: float
    events: int
    distinct_operators: int
    measure_cpu_s: float

    def machine(self, capacity: float, sinks: int = 1) -> Machine:
        return Machine(capacity, self.send_s, self.recv_s, sinks)


def measure(queries: Sequence[NextPattern], *, duration: float, seed: int = 0, repeats: int = 1,
            chunk: int = 100, rates: dict[str, float] | None = None, progress=None) -> Measurement:
    """Measure every operator of ``queries`` (see the module docstring); ``progress(done, total)`` is
    called after each chunk."""
    stream = source_stream(duration, seed=seed, rates=rates).to_stream()  # NEXT's engine takes event objects
    span = max(stream.span_seconds, 1e-9)
    cpu: dict[str, list[float]] = {}
    rate: dict[str, float] = {}
    spent = 0.0
    distinct: set[str] = set()
    chunks = [list(queries[i : i + chunk]) for i in range(0, len(queries), chunk)]
    for ci, part in enumerate(chunks):
        for _ in range(repeats):
            res = run_queries(part, stream, share=True, collect=False, measure=True)
            plain = run_queries(part, stream, share=True, collect=False, measure=False)
            spent += res.total_cpu_s + plain.total_cpu_s
            dispatch = max(0.0, plain.total_cpu_s - res.operator_cpu_s)
            per_call = dispatch / max(1, sum(o.calls for o in res.operators))
            for o in res.operators:
                distinct.add(o.digest)
                cpu.setdefault(o.digest, []).append((o.cpu_s + per_call * o.calls) / span)
                rate[o.digest] = o.items_out / span
        if progress is not None:
            progress(ci + 1, len(chunks))
    ops = {d: Measured(statistics.median(v), rate[d]) for d, v in cpu.items()}
    for t, n in stream.type_counts().items():
        ops[f"source:{t}"] = Measured(0.0, n / span)
    send, recv = network_cost(sample_items(stream))
    return Measurement(ops, send, recv, span, len(stream), len(distinct), spent)


def query_load(m: Measurement, pattern: NextPattern) -> float:
    """The measured CPU load (CPU s/s) of one query's operators, each counted once."""
    return sum(m.operators[aot_digest(aot(o)[0])].cpu for o in pattern.operators.operators())
