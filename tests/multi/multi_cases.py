"""Random workloads with sharing opportunities, for the multi-pattern differential tests.

A workload starts from random patterns of :mod:`evaluator_cases` (every operator, NOT, KL, both
window kinds, every strategy) and adds look-alikes of them: the same pattern with another window,
an exact duplicate, the pattern with its top operator's last operand dropped (a shared prefix), and
the operands of a SEQ reversed -- the cases a multi-pattern plan must never confuse.
"""

from __future__ import annotations

import dataclasses
import random

from evaluator_cases import random_pattern, random_plan

from cep.global_plans import build_global_plan, workload_clauses
from cep.pattern import Operator, Pattern, Window, WindowKind, iter_events


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
