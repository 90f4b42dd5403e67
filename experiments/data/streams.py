"""The stream an experiment evaluates, from a JSON-able specification that travels with each cell.

    {"dataset": {"name", "path", "format"}, "start": s, "end": e, "pool": [types...],
     "replay": {window_seconds, events_per_window, rate_ratio, windows} | null, "seed": n}

With ``replay`` (the default of every experiment) the stream is the pool's types replayed at the
papers' rates (:mod:`experiments.data.replay`); with ``replay: null`` it is the dataset's slice
``[start, end]`` at its own cadence, every type included.  Either way the whole stream enters each
evaluator (which discards the types its pattern does not mention).  Streams and their columns are
built once per process and cached, so the cells of one worker share them.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Mapping

from cep.columnar import EventColumns
from cep.events import EventStream


def stream_key(spec: Mapping) -> str:
    return json.dumps(spec, sort_keys=True, default=str)


@lru_cache(maxsize=4)
def _raw(dataset_json: str, start, end) -> EventStream:
    from experiments.data.datasets import load_dataset

    return load_dataset(json.loads(dataset_json), start=start, end=end)


def raw_stream(spec: Mapping) -> EventStream:
    """The dataset slice the stream is made from."""
    return _raw(json.dumps(spec["dataset"], sort_keys=True), spec.get("start"), spec.get("end"))


@lru_cache(maxsize=4)
def _built(key: str) -> EventStream:
    from experiments.data.replay import ReplaySpec, replay

    spec = json.loads(key)
    raw = raw_stream(spec)
    if spec.get("replay") is None:
        return raw
    return replay(raw, spec["pool"], ReplaySpec(**spec["replay"], seed=int(spec.get("seed", 0)))).stream


def experiment_stream(spec: Mapping) -> EventStream:
    """The events of the stream specification (cached per process)."""
    return _built(stream_key(spec))


@lru_cache(maxsize=4)
def _columns(key: str) -> EventColumns:
    return EventColumns.from_events(_built(key))


def experiment_columns(spec: Mapping) -> EventColumns:
    """The stream as the evaluators' columns (converted once per process)."""
    return _columns(stream_key(spec))
