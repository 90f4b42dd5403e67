"""evaluators.timing.no_cyclic_gc: the cyclic collector is off inside a timed block and back as it was after."""

from __future__ import annotations

import gc

import pytest

import evaluators.next.engine as next_engine
from cep import Event, EventStream, OrderPlan, parse_pattern
from cep.next_algebra import Next, NextPattern, Source
from cep.pattern import Window
from evaluators import evaluate
import evaluators.runtime as runtime
from evaluators.timing import no_cyclic_gc


@pytest.fixture
def restore_gc():
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


def test_the_collector_is_off_inside_and_on_again_after(restore_gc):
    gc.enable()
    with no_cyclic_gc():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off(restore_gc):
    gc.disable()
    with no_cyclic_gc():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_the_collector_comes_back_when_the_block_raises(restore_gc):
    gc.enable()
    with pytest.raises(RuntimeError), no_cyclic_gc():
        raise RuntimeError("the timed run failed")
    assert gc.isenabled()


def test_the_evaluators_time_their_runs_with_the_collector_off(restore_gc, monkeypatch):
    """run_program (JQPG evaluators) runs its kernel and run_queries (NEXT) its generated code under no_cyclic_gc."""
    seen = []
    real_run = runtime.run
    monkeypatch.setattr(runtime, "run", lambda *a, **k: (seen.append(gc.isenabled()), real_run(*a, **k))[1])
    real_engine_run = next_engine.Engine.run
    monkeypatch.setattr(next_engine.Engine, "run",
                        lambda self, *a, **k: (seen.append(gc.isenabled()), real_engine_run(self, *a, **k))[1])
    gc.enable()
    stream = EventStream([Event("A", 0.0, {"x": 1.0}), Event("B", 1.0, {"x": 2.0})])
    evaluate(parse_pattern("PATTERN SEQ(A a, B b) WITHIN 5 s"), OrderPlan(("a", "b")), stream)
    next_engine.run_queries([NextPattern(Next(Source("A", "a"), Source("B", "b")), window=Window.seconds(5))], stream)
    assert seen == [False, False]  # the timed run (it meters the state's bytes too), the NEXT run
    assert gc.isenabled()
