"""Where a replayed event's values come from (experiments/data/replay.py, ``value_order``).

In the real order the k-th replayed event of a type carries the type's k-th real event, so later
windows carry later real values; ``value_order="random"`` draws each event's real event uniformly at
random, so that every window sees the same distribution of values -- the same timestamps and types,
each event still one whole real event of its own type.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import spearmanr

from cep.errors import ConfigError
from experiments.commands.run import compose_config
from experiments.data.replay import ReplayPlan, ReplaySpec
from experiments.data.streams import raw_stream
from experiments.exps import jqpg as grid


@pytest.fixture(scope="module")
def source():
    spec = grid.stream_specs(compose_config(["+exp=jqpg_fig3", "scale=quick", "runner=serial"]))[0]
    return raw_stream(spec), spec["pool"][:6], spec["replay"]


def _plan(source, order: str, **replay) -> ReplayPlan:
    raw, pool, base = source
    return ReplayPlan(raw, pool, ReplaySpec(**{**base, **replay}, seed=3, value_order=order))


def test_a_random_replay_keeps_the_clock_and_draws_whole_real_events_of_each_type(source):
    real = _plan(source, "real").build()
    plan = _plan(source, "random")
    drawn = plan.build()
    assert np.array_equal(drawn.ts, real.ts) and np.array_equal(drawn.type_per_event(), real.type_per_event())
    raw = source[0]
    rows = drawn.positions_by_type()
    for a in drawn.attributes:  # every attribute of an event comes from one and the same real event
        got = drawn.column(a)
        for t in plan.ranked:
            want = raw.column(a, plan.real[t][plan.real_index(t)].tolist())
            assert [got[i] for i in rows[t]] == want


def test_a_random_replay_built_in_chunks_or_by_types_is_the_same_stream(source):
    plan = _plan(source, "random")
    whole = plan.build()
    chunked = plan.build(chunk_events=257)
    assert np.array_equal(chunked.ts, whole.ts)
    for a in whole.attributes:
        assert chunked.column(a) == whole.column(a)
    types = plan.ranked[1:5:2]
    part = plan.build(types)
    rows = whole.rows_of_types(types)
    for a in whole.attributes:
        assert part.column(a) == whole.column(a, rows)


def test_values_follow_the_clock_in_the_real_order_and_not_in_a_random_one(source):
    """Spearman's rho of the carried real event's index (the build carries it, test above) against
    the replayed event's timestamp, per type whose real sequence did not start over: 1 in the real
    order; near 0 drawn at random."""
    for order, check in (("real", lambda r: r == pytest.approx(1.0)), ("random", lambda r: abs(r) < 0.1)):
        plan = _plan(source, order, windows=2.0)
        rhos = [spearmanr(plan.times(t), plan.real_index(t)).statistic for t in plan.ranked
                if plan.counts[t] > 50 and plan.counts[t] <= len(plan.real[t])]
        assert rhos and all(check(r) for r in rhos), (order, rhos)


def test_an_unknown_value_order_is_a_config_error_naming_it():
    with pytest.raises(ConfigError, match="value_order must be one of real, random, got 'sorted'"):
        ReplaySpec(600.0, 10.0, value_order="sorted")
