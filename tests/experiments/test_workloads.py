"""Workload generation for the JQPG pattern sets (JQPG Section 6.2)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cep import Kleene, Not, Op, Window, parse_pattern, to_dnf
from cep.errors import ConfigError
from experiments.workloads.jqpg import PATTERN_SETS, make_pattern, make_workload

TYPES = [f"T{i}" for i in range(30)]
W = Window.seconds(1200)


@pytest.mark.parametrize("pset", PATTERN_SETS)
@pytest.mark.parametrize("size", [3, 4, 5, 6, 7])
def test_structure_of_each_set(pset, size):
    p = make_pattern(pset, size, 0, TYPES, W, seed=1)
    assert parse_pattern(str(p)) == replace(p, name=None)
    s = p.structure
    clauses = to_dnf(p)
    if pset == "disj":
        assert s.op is Op.OR and len(s.children) == 3 and len(clauses) == 3
        assert all(len(c.children) == size and c.op is Op.SEQ for c in s.children)
        assert len(p.conditions) == 3 * max(1, size // 2)
        return
    assert len(s.children) == size and len(clauses) == 1
    assert s.op is (Op.AND if pset == "conj" else Op.SEQ)
    assert len(set(p.event_types)) == size
    assert len(p.conditions) == max(1, size // 2)
    assert all(c.op in ("<", ">") and len(c.variables) == 2 for c in p.conditions)
    assert all(a.name == "diff" for c in p.conditions for a in c.attributes)
    negs = [c for c in s.children if isinstance(c, Not)]
    kls = [c for c in s.children if isinstance(c, Kleene)]
    assert len(negs) == (pset == "neg") and len(kls) == (pset == "kleene")
    if negs:
        assert s.children[0] is not negs[0] and s.children[-1] is not negs[0]
        assert all(negs[0].event.var not in c.variables for c in p.conditions)


def test_deterministic_and_independent_of_other_sets():
    a = make_workload(["seq", "conj"], [3, 5], 2, TYPES, W, seed=4)
    b = make_workload(["seq", "conj"], [3, 5], 2, TYPES, W, seed=4)
    c = make_workload(["conj"], [5], 2, TYPES, W, seed=4)
    assert [str(p) for p in a] == [str(p) for p in b]
    assert [str(p) for p in a if p.name.startswith("conj-5")] == [str(p) for p in c]
    assert [str(p) for p in make_workload(["seq"], [3], 2, TYPES, W, seed=5)] != [str(p) for p in a[:2]]


def test_pool_too_small_is_a_config_error():
    with pytest.raises(ConfigError, match="needs 7 distinct event types"):
        make_pattern("seq", 7, 0, TYPES[:5], W)
