"""The stream an experiment evaluates, from a JSON-able specification that travels with each cell.

    {"dataset": {"name", "path", "format"}, "start": s, "end": e, "pool": [types...],
     "replay": {window_seconds, events_per_window, rate_ratio, windows} | null, "seed": n}

With ``replay`` (the default of every experiment) the stream is the pool's types replayed at the
papers' rates (:mod:`experiments.data.replay`); with ``replay: null`` it is the dataset's slice
``[start, end]`` at its own cadence, every type included.  Either way the whole stream enters each
evaluator (which discards the types its pattern does not mention).  Streams are columns
(:class:`cep.columnar.EventColumns`), built once per process and cached, so the cells of one worker
share them.

:func:`stream_of_types` builds the events of some types only -- exactly the whole stream's events of
those types, in the same order -- without building the rest (what ``--estimate`` builds for a sampled
cell, :mod:`experiments.running.estimate`); :func:`install` makes such a stream the one this process
answers for the specification.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from functools import lru_cache
from typing import Iterable, Mapping

from cep.columnar import EventColumns
from experiments.data.datasets import load_dataset
from experiments.data.replay import ReplayPlan, ReplaySpec

#: streams kept per process (the cells of one worker share them)
CACHED = 4


def stream_key(spec: Mapping) -> str:
    return json.dumps(spec, sort_keys=True, default=str)


@lru_cache(maxsize=CACHED)
def _raw(dataset_json: str, start, end) -> EventColumns:
    return load_dataset(json.loads(dataset_json), start=start, end=end)


def raw_stream(spec: Mapping) -> EventColumns:
    """The dataset slice the stream is made from."""
    return _raw(json.dumps(spec["dataset"], sort_keys=True), spec.get("start"), spec.get("end"))


@lru_cache(maxsize=CACHED)
def _plan(key: str):
    spec = json.loads(key)
    return ReplayPlan(raw_stream(spec), spec["pool"], ReplaySpec(**spec["replay"], seed=int(spec.get("seed", 0))))


def replay_plan(spec: Mapping):
    """The :class:`~experiments.data.replay.ReplayPlan` of a replayed stream specification (rates,
    events per type, live time) -- nothing built yet."""
    if spec.get("replay") is None:
        raise ValueError("replay_plan: the stream specification replays nothing")
    return _plan(stream_key(spec))


_BUILT: OrderedDict[str, EventColumns] = OrderedDict()


def experiment_stream(spec: Mapping) -> EventColumns:
    """The events of the stream specification (cached per process)."""
    key = stream_key(spec)
    if key not in _BUILT:
        install(spec, raw_stream(spec) if spec.get("replay") is None else replay_plan(spec).build())
    _BUILT.move_to_end(key)
    return _BUILT[key]


def stream_of_types(spec: Mapping, types: Iterable[str]) -> EventColumns:
    """The stream's events of ``types`` only (not cached): a replay builds just those types."""
    if spec.get("replay") is None:
        return raw_stream(spec).select_types(types)
    return replay_plan(spec).build(types)


def install(spec: Mapping, stream: EventColumns) -> None:
    """Make ``stream`` the stream this process gives for ``spec`` (kept among the last
    :data:`CACHED`)."""
    _BUILT[stream_key(spec)] = stream
    _BUILT.move_to_end(stream_key(spec))
    while len(_BUILT) > CACHED:
        _BUILT.popitem(last=False)
