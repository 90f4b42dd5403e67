"""Random workloads with sharing opportunities, for the multi-pattern differential tests.

A workload starts from random patterns of :mod:`evaluator_cases` (every operator, NOT, KL, both
window kinds, every strategy) and adds look-alikes of them: the same pattern with another window,
an exact duplicate, the pattern with its top operator's last operand dropped (a shared prefix), and
the operands of a SEQ reversed -- the cases a multi-pattern plan must never confuse.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

from evaluator_cases import random_pattern, random_plan
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from cep.global_plans import build_global_plan, workload_clauses
from cep.pattern import Operator, Pattern, Window, WindowKind, iter_events
from evaluators.brute_force import brute_force_matches
from evaluators.multi import MULTI_EVALUATORS
from evaluators.multi.runtime import MultiRuntime

SLOW_OK = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
SEEDS = st.integers(0, 2**32 - 1).map(random.Random)


def check_against_brute_force(patterns, gplan, stream, **runtime_options):
    """Run ``gplan`` (options of :class:`MultiRuntime`, e.g. ``anchor_kleene``) and assert that each
    pattern gets exactly the brute force's matches, that every event was read, and that the counting
    path counts the same; returns the runtime and its result."""
    name = next(n for n, cls in MULTI_EVALUATORS.items() if isinstance(gplan, cls))
    rt = MultiRuntime(patterns, gplan, name=name, **runtime_options)
    res = rt.run(stream)
    for i, p in enumerate(patterns):
        want = brute_force_matches(p, stream.events)
        assert Counter(res.matches_by_pattern[i]) == Counter(want), f"pattern {i}: {p}\nplan {gplan.describe()}"
        assert res.counts[i] == len(want)
    assert res.metrics["events"] == len(stream)
    counted = MultiRuntime(patterns, gplan, name=name, **runtime_options).run(stream, collect_matches=False)
    assert counted.counts == res.counts
    return rt, res


def variant(rng: random.Random, p: Pattern) -> Pattern:
    r = rng.random()
    s = p.structure
    if r < 0.25:
        size = p.window.size
        w = Window(p.window.kind, max(1, int(size) + rng.choice((-2, -1, 1, 2)))) if p.window.kind is WindowKind.COUNT \
            else Window.seconds(max(0.5, size + rng.choice((-2.0, -1.0, 1.0, 3.0))))
        return dataclasses.replace(p, window=w)
    if r < 0.45:
        return p
    if r < 0.75 and isinstance(s, Operator) and len(s.children) > 1:
        kids = s.children[:-1]
        new = Operator(s.op, kids)
        keep = {ref.var for ref, _ in iter_events(new)}
        if all(k == "not" for _, k in iter_events(new)):
            return p
        conds = tuple(c for c in p.conditions if c.variables <= keep)
        try:
            return dataclasses.replace(p, structure=new, conditions=conds)
        except Exception:
            return p
    if isinstance(s, Operator):
        try:
            return dataclasses.replace(p, structure=Operator(s.op, tuple(reversed(s.children))))
        except Exception:
            return p
    return p


def random_workload(rng: random.Random, *, n_base: int = 2, n_variants: int = 3, max_vars: int = 4) -> list[Pattern]:
    base = [random_pattern(rng, min_vars=2, max_vars=max_vars) for _ in range(n_base)]
    out = list(base)
    for _ in range(n_variants):
        out.append(variant(rng, rng.choice(base)))
    rng.shuffle(out)
    return out


def random_global_plan(rng: random.Random, patterns, kind: str, share: bool = True):
    clauses = workload_clauses(patterns)
    local = {i: random_plan(rng, p, kind) for i, p in enumerate(patterns)}
    plans = {o: local[o[0]].plans[o[1]] for o in clauses}
    return build_global_plan(kind, clauses, plans, share=share)
