"""The start-anchored Kleene node of the multi-pattern runtime (``anchor_kleene=True``,
evaluators/multi/runtime.py): per pattern exactly the matches of the brute force, on the random
workloads of the other multi-pattern tests and on SEQ patterns where it applies, and no Kleene subset
stored that no start event precedes."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

from evaluator_cases import random_stream
from hypothesis import given, settings
from hypothesis import strategies as st
from multi_cases import (
    SEEDS,
    SLOW_OK,
    check_against_brute_force,
    random_global_plan,
    random_workload,
)

from cep.conditions import Attr, Comparison, Const
from cep.events import Event, EventStream
from cep.global_plans import build_global_plan, workload_clauses
from cep.parser import parse_patterns
from cep.pattern import EventRef, Kleene, Not, Op, Operator, Pattern, SeqOrder, Window
from cep.plans import OrderPlan, TreePlan, left_deep_tree
from evaluators.multi.runtime import MultiRuntime


def _run(patterns, gplan, stream, anchor=True, **kw):
    rt = MultiRuntime(patterns, gplan, name="multi-tree" if gplan.kind == "tree" else "multi-nfa", anchor_kleene=anchor)
    return rt, rt.run(stream, **kw)


@settings(SLOW_OK, max_examples=60)
@given(SEEDS, st.sampled_from(["order", "tree"]), st.booleans())
def test_anchored_runtime_matches_brute_force_on_random_workloads(rng, kind, share):
    """Every operator, NOT, bounded KL, both window kinds, every strategy and SEQ order, random plans."""
    patterns = random_workload(rng)
    stream = random_stream(rng, min_events=5, max_events=12)
    check_against_brute_force(patterns, random_global_plan(rng, patterns, kind, share=share), stream, anchor_kleene=True)


def _seq_pattern(rng: random.Random) -> Pattern:
    """A strict SEQ with a Kleene element after one or more others (bounded or not), a NOT maybe,
    conditions between the Kleene variable and the others, a window of either kind."""
    n = rng.randint(2, 4)
    kl = rng.randint(1, n - 1)
    types = rng.sample(["A", "B", "C", "D"], n)
    kids, names = [], []
    for i, t in enumerate(types):
        v = f"v{i}"
        names.append(v)
        if i == kl:
            lo = rng.choice((1, 1, 2))
            kids.append(Kleene(EventRef(t, v), lo, rng.choice((None, None, lo + 1))))
        else:
            kids.append(EventRef(t, v))
    if rng.random() < 0.3:
        kids.insert(rng.randint(1, len(kids) - 1), Not(EventRef(rng.choice(["A", "B", "C", "D"]), "n")))
    conds = []
    for _ in range(rng.randint(0, 2)):
        other = rng.choice([v for v in names if v != f"v{kl}"])
        conds.append(Comparison(rng.choice(("<", ">=", "!=")), Attr(f"v{kl}", "x"), Attr(other, "x")))
    if rng.random() < 0.5:
        conds.append(Comparison(rng.choice(("<", ">")), Attr(f"v{kl}", "x"), Const(float(rng.randint(0, 3)))))
    window = Window.seconds(rng.choice((2.0, 4.0, 8.0))) if rng.random() < 0.8 else Window.events(rng.randint(3, 8))
    return Pattern(Operator(Op.SEQ, tuple(kids)), tuple(conds), window, seq_order=SeqOrder.STRICT)


@settings(SLOW_OK, max_examples=80)
@given(SEEDS, st.sampled_from(["order", "tree"]))
def test_anchored_nodes_are_used_and_exact_on_strict_seq_workloads(rng, kind):
    """SEQ patterns in their written order (Kleene joined after its predecessors: anchored), some
    duplicated with another window; the anchored path runs and reports exactly the brute force."""
    base = [_seq_pattern(rng) for _ in range(rng.randint(1, 3))]
    patterns = base + [dataclasses.replace(p, window=Window.seconds(3.0)) for p in base if rng.random() < 0.4]
    clauses = workload_clauses(patterns)
    plans = {o: OrderPlan(sp.positive) if kind == "order" else TreePlan(left_deep_tree(sp.positive))
             for o, sp in clauses.items()}
    gplan = build_global_plan(kind, clauses, plans)
    stream = random_stream(rng, min_events=6, max_events=14, types=("A", "B", "C", "D", "B"))
    rt, _ = check_against_brute_force(patterns, gplan, stream, anchor_kleene=True)
    assert rt.anchored


def test_kleene_events_before_any_start_event_are_not_stored():
    """Twelve B events before the only A: the plain Kleene leaf stores their 4,095 subsets (and more),
    the anchored node none of them; both report the same matches."""
    patterns = [dataclasses.replace(p, seq_order=SeqOrder.STRICT) for p in parse_patterns(
        "PATTERN SEQ(A a, KL(B b), C c) WITHIN 100 seconds\nPATTERN SEQ(A a, KL(B b)) WITHIN 100 seconds")]
    events = [Event("B", float(i), {}) for i in range(12)] + [Event("A", 12.0, {})]
    events += [Event("B", 13.0 + i, {}) for i in range(3)] + [Event("C", 20.0, {})]
    stream = EventStream(events)
    clauses = workload_clauses(patterns)
    gplan = build_global_plan("order", clauses, {o: OrderPlan(sp.positive) for o, sp in clauses.items()})
    _, plain = _run(patterns, gplan, stream, anchor=False)
    rt, anchored = _run(patterns, gplan, stream)
    assert anchored.counts == plain.counts == [7, 7]
    assert Counter(anchored.matches_by_pattern[0]) == Counter(plain.matches_by_pattern[0])
    assert plain.metrics["peak_partial_matches"] > 4095
    # the shared (A, B+) node holds A with each of the 7 non-empty subsets of the three later B
    assert anchored.metrics["peak_partial_matches"] == 7
    assert not rt.plan.enum[gplan.roots[(1, 0)].right.id]  # the B+ leaf builds no subsets at all
