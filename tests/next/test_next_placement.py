"""NEXT placement (Section 4.4) and the CPU capacity model: reuse through hashed abstract operator
trees, round-robin, the greedy's cost, admission until overload, and loads measured on the engine."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from algorithms.next.capacity import Machine, simulate
from algorithms.next.costs import estimate
from algorithms.next.placement import Measured, Placer
from cep import parse_pattern
from cep.errors import ConfigError
from cep.next_algebra import aot, aot_digest
from experiments.exps.next_measure import measure, query_load
from experiments.workloads.next import PAPER_RATES, make_queries, paper_statistics

STATS = paper_statistics()


def q(text: str):
    return parse_pattern(f"PATTERN {text} WITHIN 1 minutes")


def flat_costs(queries, cpu: float = 0.1, rate: float = 1.0) -> dict:
    """Given (not measured) costs for every operator of ``queries``: the simulator's arithmetic."""
    out = {f"source:{t}": Measured(0.0, r) for t, r in PAPER_RATES.items()}
    for p in queries:
        for o in p.operators.operators():
            out[aot_digest(aot(o)[0])] = Measured(cpu, rate)
    return out


# ---- abstract operator trees ------------------------------------------------------------------------------
def test_equivalent_operators_have_one_abstract_operator_tree():
    key = lambda text: aot(q(text).operators)[0]  # noqa: E731
    assert key("S1 a ; (S2 b | S4 c)") == key("S1 x ; (S4 z | S2 y)")  # names and union order do not matter
    assert key("S1 a ; S2 b") != key("S2 a ; S1 b")  # next is not commutative
    assert key("S1 a ; S2 b") != key("(S1 a ; S2 b) \\ S4 c")
    assert aot(q("S1 a ; S2 b").operators)[0] != aot(parse_pattern("PATTERN S1 a ; S2 b WITHIN 2 minutes").operators)[0]
    with_filter = lambda v, w: aot(parse_pattern(f"PATTERN S1 {v} ; S2 {w} WHERE FILTER({v}.x < {w}.x) WITHIN 1 minutes").operators)[0]  # noqa: E731
    assert with_filter("a", "b") == with_filter("m", "n") != key("S1 a ; S2 b")


# ---- reuse ----------------------------------------------------------------------------------------------
def test_reuse_serves_a_new_query_from_the_node_already_running_its_operators():
    qs = [q("S128 a ; (S1 b | S2 c)"), q("S128 x ; (S2 y | S1 z)"), q("(S2 p | S1 r) | S4 s")]
    costs = flat_costs(qs)
    reuse = Placer(4, "reuse", STATS, measured=costs, send_s=0.001, recv_s=0.001)
    first = reuse.place(qs[0])
    second = reuse.place(qs[1])
    third = reuse.place(qs[2])
    assert len(first.new) == 2 and second.new == [] and {d.id for d in second.reused} == {d.id for d in first.new}
    assert second.root is first.root  # the whole query runs where the first one does
    assert [d.kind for d in third.new] == ["union"] and [d.kind for d in third.reused] == ["union"]
    assert third.reused[0].queries == {0, 1, 2}
    greedy = Placer(4, "greedy", STATS, measured=costs, send_s=0.001, recv_s=0.001)
    assert [len(greedy.place(p).new) for p in qs] == [2, 2, 2]
    assert len(reuse.deployed) == 3 and len(greedy.deployed) == 6


def test_reuse_within_one_query():
    p = q("(S1 a ; S2 b) | (S1 c ; S2 d)")
    placer = Placer(2, "reuse", STATS, measured=flat_costs([p]), send_s=0.0, recv_s=0.0)
    qp = placer.place(p)
    assert [d.kind for d in qp.new] == ["next", "union"]  # the second S1;S2 is the first one
    assert qp.new[1].inputs[0] is qp.new[1].inputs[1] is qp.new[0]


def test_a_rejected_query_is_taken_back_out_completely():
    qs = [q("S128 a ; S1 b"), q("S128 x ; S1 y ; S2 z")]
    placer = Placer(3, "reuse", STATS, measured=flat_costs(qs), send_s=0.01, recv_s=0.01)
    placer.place(qs[0])
    before = (list(placer.node_load), [set(s) for s in placer.truth.subs], len(placer.deployed), dict(placer.by_key))
    placer.place(qs[1])
    placer.undo_last()
    assert (list(placer.node_load), [set(s) for s in placer.truth.subs], len(placer.deployed), dict(placer.by_key)) == before
    assert placer.deployed[0].queries == {0}


# ---- round-robin and greedy -----------------------------------------------------------------------------
def test_round_robin_deals_operators_to_nodes_in_turn_and_never_reuses():
    qs = [q("S1 a ; S2 b ; S4 c"), q("S1 a ; S2 b ; S4 c")]
    placer = Placer(3, "round-robin", STATS, measured=flat_costs(qs), send_s=0.0, recv_s=0.0)
    nodes = [d.node for p in qs for d in placer.place(p).new]
    assert nodes == [0, 1, 2, 0]


def test_greedy_keeps_an_operator_with_its_input_when_moving_events_costs_more_than_load():
    p = q("(S128 a ; S1 b) ; S64 c")
    placer = Placer(4, "greedy", STATS, measured=flat_costs([p], cpu=0.001, rate=128.0), send_s=0.001, recv_s=0.001)
    qp = placer.place(p)
    assert len({d.node for d in qp.new}) == 1


def test_greedy_spreads_load_when_operators_are_heavy():
    qs = [q(f"S{2 ** i} a ; S1 b") for i in range(4)]
    placer = Placer(4, "greedy", STATS, measured=flat_costs(qs, cpu=1.0, rate=1.0), send_s=1e-6, recv_s=1e-6)
    assert sorted(placer.place(p).new[0].node for p in qs) == [0, 1, 2, 3]


def test_cost_q_p_is_the_papers_formula_with_table1_estimates():
    """cost(o, n) = sum of remote sub-operator rates + CPU(o) + CPU already on n (Section 4.2)."""
    p, p2 = q("S2 a ; S4 b"), q("S8 a ; S2 b")
    placer = Placer(1, "greedy", STATS, measured=flat_costs([p, p2]), send_s=0.0, recv_s=0.0)
    est = estimate(p.operators, STATS)[-1]
    first = placer.place(p)
    assert first.paper_cost == pytest.approx(2.0 + 4.0 + est.cpu)  # both sources arrive over the network
    est2 = estimate(p2.operators, STATS)[-1]
    assert placer.place(p2).paper_cost == pytest.approx(8.0 + 2.0 + est2.cpu + est.cpu)  # est.cpu already on the node


def test_unknown_strategy_and_bad_machines_are_config_errors():
    with pytest.raises(ConfigError, match="strategy"):
        Placer(2, "random", STATS, measured={}, send_s=0.0, recv_s=0.0)
    with pytest.raises(ConfigError, match="capacity"):
        Machine(0.0, 0.0, 0.0)
    with pytest.raises(ConfigError, match="no measurement"):
        Placer(2, "greedy", STATS, measured={}, send_s=0.0, recv_s=0.0).place(q("S1 a ; S2 b"))


# ---- the capacity model ---------------------------------------------------------------------------------
def test_a_node_admits_queries_until_the_next_would_overload_it():
    qs = [q(f"S1 a{i} ; S2 b{i}") for i in range(10)]  # all the same operator: shared only by reuse
    costs = flat_costs(qs[:1], cpu=0.3, rate=1.0)
    m = Machine(capacity=1.0, send_s=0.0, recv_s=0.0)
    assert simulate(qs, nodes=1, strategy="greedy", stats=STATS, measured=costs, machine=m).supported == 3
    assert simulate(qs, nodes=2, strategy="greedy", stats=STATS, measured=costs, machine=m).supported == 6
    assert simulate(qs, nodes=1, strategy="reuse", stats=STATS, measured=costs, machine=m).supported == 10


def test_network_costs_count_once_per_stream_and_node():
    """A node receives S1 and S2 once for all its operators; results are sent to the sink."""
    qs = [q("S1 a ; S2 b"), q("S2 a ; S1 b")]
    costs = flat_costs(qs, cpu=0.1, rate=3.0)
    m = Machine(capacity=10.0, send_s=0.01, recv_s=0.02)
    r = simulate(qs, nodes=1, strategy="greedy", stats=STATS, measured=costs, machine=m)
    # operators 2 x 0.1; receive S1 (1/s) and S2 (2/s) once: 0.02 * 3; send 3 results/s per query: 2 x 0.03
    assert r.node_load[0] == pytest.approx(0.2 + 0.06 + 0.06)


def test_a_sink_proxy_overloads_before_the_nodes():
    qs = [q(f"S128 a{i} | S64 b{i}") for i in range(20)]
    costs = flat_costs(qs[:1], cpu=0.01, rate=192.0)
    m = Machine(capacity=1.0, send_s=0.0, recv_s=0.001, sinks=1)
    r = simulate(qs, nodes=10, strategy="greedy", stats=STATS, measured=costs, machine=m)
    assert r.supported == 5  # 5 x 192 events/s x 1 ms = 0.96 of the sink's second
    assert r.overloaded.startswith("sink 0") and r.rejected == 15
    assert max(r.node_load) < 0.5


def test_operator_loads_are_measured_on_the_engine():
    qs = make_queries("next", 3, 8, seed=4)
    m = measure(qs, duration=3.0, seed=1)
    digests = {aot_digest(aot(o)[0]) for p in qs for o in p.operators.operators()}
    assert digests <= set(m.operators) and m.distinct_operators == len(digests)
    assert all(m.operators[d].cpu > 0 for d in digests)
    assert all(m.operators[f"source:{t}"].rate == pytest.approx(r, rel=0.6) for t, r in PAPER_RATES.items() if r >= 16)
    # a next operator emits one item per item of its left operand that found a successor
    for p in qs:
        root = p.operators
        assert m.operators[aot_digest(aot(root)[0])].rate <= m.operators.get(
            aot_digest(aot(_leftmost(root))[0]), Measured(0, PAPER_RATES[_leftmost(root).expr.type])).rate * 1.01
    assert query_load(m, qs[0]) == pytest.approx(sum(m.operators[aot_digest(aot(o)[0])].cpu for o in qs[0].operators.operators()))
    assert 0 < m.send_s < 1e-3 and 0 < m.recv_s < 1e-3


def _leftmost(node):
    while node.children:
        node = node.children[0]
    return node


# ---- the place command ------------------------------------------------------------------------------------
def test_place_command_prints_placement_loads_and_queries_supported(tmp_path):
    f = tmp_path / "queries.txt"
    f.write_text("PATTERN S128 a ; S1 b ; S64 c WITHIN 1 minutes\nPATTERN S128 x ; S1 y ; S64 z WITHIN 1 minutes\n"
                 "PATTERN (S2 a | S4 b) ; S8 c WITHIN 1 minutes\n")
    run = lambda *a: subprocess.run([sys.executable, "-m", "experiments", "place", str(f), *a],  # noqa: E731
                                    capture_output=True, text=True)
    out = run("--nodes", "2", "--strategy", "reuse", "--duration", "1", "--json")
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout)
    assert r["supported"] == 3 and r["deployed"] == 4 and len(r["node_load"]) == 2
    assert [reused for _, _, _, reused in r["placements"][1]] == [True, True]
    text = run("--nodes", "2", "--strategy", "round-robin", "--duration", "1")
    assert text.returncode == 0 and "3 of 3 queries supported" in text.stdout and "node 1:" in text.stdout
    bad = run("--nodes", "2", "--strategy", "teleport")
    assert bad.returncode == 2
    f.write_text("PATTERN SEQ(S1 a, S2 b) WITHIN 1 minutes\n")
    assert run("--nodes", "2", "--strategy", "greedy").returncode == 2
