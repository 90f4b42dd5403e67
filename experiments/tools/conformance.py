"""The conformance suite of a planner or multi-pattern optimizer (``python -m experiments check-planner NAME``).

Any registered method -- built-in, an entry point, or ``module:Class`` (:mod:`algorithms.plugins`) --
runs through the same checks on small seeded cases (every operator the evaluators run: SEQ, AND,
OR, NOT, KL, a count window, skip-till-next-match), each on several random streams whose type mix
differs, so that the statistics (estimated on the stream, :mod:`experiments.data.statistics`) and
so the plans differ:

single-pattern planner (JQPG Sections 3-4)
    * **valid**: one plan per DNF clause, of the planner's declared kind (an order for an order
      planner, a tree for a tree planner), covering every positive event of the clause exactly once
      (:func:`algorithms.plugins.check_clause_plan`);
    * **deterministic**: the same plan again under the same seed;
    * **correct**: the evaluator of its kind (the lazy NFA for orders, the tree evaluator for trees)
      detects exactly the brute-force matcher's matches under the plan
      (:func:`evaluators.brute_force.brute_force_matches`).

multi-pattern optimizer (MCEP Sections 3-5)
    * **valid**: a global plan of the optimizer's declared kind with one local plan per clause of the
      workload, each covering the clause (:func:`algorithms.multi.base.check_global_plan`);
    * **correct**: the multi-pattern evaluator reports, for each pattern, exactly the brute force's
      matches under the global plan (:func:`evaluators.multi.evaluate_workload`).

A failed check names the case, the pattern and what differed; ``check-planner`` exits 1 on any.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from algorithms import plan_pattern
from algorithms.multi import plan_workload
from algorithms.multi.registry import method_kind
from algorithms.registry import planner_kind
from cep.errors import CEPError
from cep.events import Event, EventStream
from cep.parser import parse_pattern
from evaluators import evaluate
from evaluators.brute_force import brute_force_matches
from evaluators.multi import evaluate_workload
from experiments.data.statistics import estimate_workload_statistics

TYPES = ("A", "B", "C", "D", "E")

#: every operator mix the evaluators run, small enough for the brute-force matcher
PATTERNS = (
    "PATTERN SEQ(A a, B b, C c) WHERE a.x < c.x WITHIN 6 seconds",
    "PATTERN SEQ(A a, B b, C c, D d) WHERE a.x <= b.x AND b.y <= d.y WITHIN 10 seconds",
    "PATTERN AND(A a, B b, C c, D d) WHERE a.x = b.x WITHIN 4 seconds",
    "PATTERN SEQ(A a, NOT(B n), C c, D d) WHERE n.x = a.x WITHIN 10 seconds",
    "PATTERN SEQ(A a, KL(B b), C c) WITHIN 5 seconds",
    "PATTERN OR(SEQ(A a, B b, C c), AND(D d, E e, A f)) WITHIN 5 seconds",
    "PATTERN AND(A a, B b, E e) WHERE a.x >= e.x WITHIN 8 events",
    "PATTERN SEQ(A a, B b, C c, D d) WITHIN 10 seconds STRATEGY skip-till-next-match",
    "PATTERN AND(SEQ(A a, B b), C c, D d, E e) WHERE c.y = e.y WITHIN 5 seconds",
)

#: workloads of the multi-pattern checks: patterns that share types, prefixes and sub-patterns
WORKLOADS = (
    ("PATTERN SEQ(A a, B b, C c) WITHIN 5 seconds",
     "PATTERN SEQ(A a, B b, D d) WHERE a.x < d.x WITHIN 5 seconds",
     "PATTERN AND(A a, B b, C c) WHERE a.x = b.x WITHIN 4 seconds"),
    ("PATTERN SEQ(A a, NOT(E n), C c, D d) WITHIN 5 seconds",
     "PATTERN SEQ(A a, C c, D d) WITHIN 5 seconds",
     "PATTERN SEQ(A a, KL(B b), C c) WITHIN 4 seconds",
     "PATTERN OR(SEQ(B b, C c), SEQ(D d, E e)) WITHIN 3 seconds"),
    ("PATTERN AND(A a, B b, E e) WITHIN 6 events",
     "PATTERN AND(A a, B b, D d) WHERE a.y = d.y WITHIN 6 events",
     "PATTERN SEQ(C c, D d, E e) WITHIN 4 seconds"),
)


@dataclass
class Report:
    """The outcome of the suite: how many checks ran and, per failed check, one line saying why."""

    name: str
    kind: str
    checks: int = 0
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def text(self) -> str:
        head = (f"{self.name} ({self.kind}): {self.checks} checks, "
                f"{'all passed' if self.ok else f'{len(self.failures)} failed'}")
        return "\n".join([head] + [f"  FAIL {f}" for f in self.failures])


def random_stream(rng: random.Random, n: int) -> EventStream:
    """``n`` events of the five types, drawn with weights of their own (so the rates, and the plans
    on them, differ between streams), timestamps advancing by 0-1 second, small integer attributes."""
    weights = [rng.uniform(0.5, 2.0) for _ in TYPES]
    ts, events = 0.0, []
    for _ in range(n):
        ts += rng.choice((0.0, 0.0, 0.5, 1.0))
        events.append(Event(rng.choices(TYPES, weights)[0], ts, {"x": float(rng.randint(0, 2)), "y": float(rng.randint(0, 1))}))
    return EventStream(events, "<conformance>")


def check_planner(name: str, *, streams: int = 4, events: int = 24, seed: int = 0, time_limit: float = 2.0) -> Report:
    """Run the suite on ``name`` (see the module docstring): ``streams`` random streams of ``events``
    events per case."""
    kind = method_kind(name)
    report = Report(name, "single-pattern planner" if kind == "single" else "multi-pattern optimizer")
    rng = random.Random(seed)
    check = _check_single if kind == "single" else _check_multi
    cases = PATTERNS if kind == "single" else WORKLOADS
    for i, case in enumerate(cases):
        for s in range(streams):
            stream = random_stream(rng, events)
            report.checks += 1
            try:
                check(name, case, stream, seed=seed, time_limit=time_limit)
            except (CEPError, AssertionError) as e:
                report.failures.append(f"case {i + 1} stream {s + 1}: {str(e).splitlines()[0] if str(e) else type(e).__name__}")
    return report


def _check_single(name: str, text: str, stream: EventStream, *, seed: int, time_limit: float) -> None:
    pattern = parse_pattern(text)
    (stats,) = estimate_workload_statistics(stream, [pattern], seed=seed)
    r = plan_pattern(pattern, name, stats, seed=seed)  # validity: a one-line PlanError when not
    kind = planner_kind(name)
    assert r.kind == kind, f"{text}: the planner declares kind {kind!r} but planned as {r.kind!r}"
    again = plan_pattern(pattern, name, stats, seed=seed)
    assert str(again.plan) == str(r.plan), f"{text}: not deterministic under seed {seed}: {r.plan} then {again.plan}"
    got = evaluate(pattern, r.plan, stream, evaluator="nfa" if kind == "order" else "tree", measure_memory=False).matches
    want = brute_force_matches(pattern, stream)
    assert got == want, (f"{text}: under plan {r.plan} the {kind} evaluator found {len(got)} matches, "
                         f"the brute force {len(want)}")


def _check_multi(name: str, texts: tuple[str, ...], stream: EventStream, *, seed: int, time_limit: float) -> None:
    patterns = [parse_pattern(t) for t in texts]
    stats = estimate_workload_statistics(stream, patterns, seed=seed)
    r = plan_workload(patterns, name, stats, seed=seed, time_limit=time_limit)  # validity: a PlanError when not
    res = evaluate_workload(patterns, r.plan, stream, collect_matches=True, max_partial_matches=None)
    for i, p in enumerate(patterns):
        want = brute_force_matches(p, stream.events)
        got = res.matches_by_pattern[i]
        assert Counter(got) == Counter(want), (f"pattern {i + 1} ({texts[i]}): under the {r.plan.kind} global plan the "
                                               f"multi-pattern evaluator found {len(got)} matches, the brute force {len(want)}")
