"""JQPG's cost model on stored cells (experiments/reporting/jqpg_model.py): a claim's facts re-plan only the
cells it asks about, and re-plans spread over worker processes equal the same re-plans in this process."""

from __future__ import annotations

import gzip
import json
import random

import pandas as pd

from experiments.reporting import jqpg_model
from experiments.reporting.jqpg_model import PARALLEL_MIN, JqpgModel, plan_facts, replan

TYPES = ["AAA", "BBB", "CCC", "DDD", "EEE", "FFF"]
ALGORITHMS = ["DP-B", "DP-LD", "EFREQ", "GREEDY"]


def _spec(i: int, algorithm: str, dataset: str) -> dict:
    """A cell of a random SEQ pattern of 3-5 types with one condition per neighbouring pair."""
    rng = random.Random(i + 1000 * (dataset == "traffic"))
    n = 3 + i % 3
    types = rng.sample(TYPES, n)
    names = [f"e{j}" for j in range(n)]
    conds = " AND ".join(f"{a}.diff < {b}.diff + {rng.uniform(-0.1, 0.1):.4f}" for a, b in zip(names, names[1:]))
    pattern = f"PATTERN SEQ({', '.join(f'{t} {v}' for t, v in zip(types, names))}) WHERE {conds} WITHIN 20 minutes"
    stats = {"rates": {t: rng.uniform(0.002, 0.1) for t in types},
             "selectivities": {f"{a},{b}": rng.uniform(0.01, 0.9) for a, b in zip(names, names[1:])}}
    return {"cell_id": f"{dataset}-{algorithm}-{i}", "dataset": {"name": dataset}, "pattern_id": f"p{i}", "size": n,
            "workload": "seq", "algorithm": algorithm, "alpha": 0.0, "seed": 0, "params": {}, "pattern": pattern, "stats": stats}


def _model(tmp_path, patterns: int = 6) -> JqpgModel:
    specs = [_spec(i, a, ds) for ds in ("nasdaq", "traffic") for a in ALGORITHMS for i in range(patterns)]
    with gzip.open(tmp_path / "cells.jsonl.gz", "wt") as f:
        f.writelines(json.dumps(s) + "\n" for s in specs)
    regime = {"events_per_type_per_window": {"median": 30.0},
              "paper_regime": {"rates_eps": [1.0, 45.0], "window_seconds": 1200.0}}
    return JqpgModel(tmp_path, {"datasets": {"nasdaq": regime, "traffic": regime}}, pd.DataFrame())


def test_facts_re_plan_only_the_rows_and_planners_asked_about(tmp_path, monkeypatch):
    monkeypatch.setattr(jqpg_model, "_REPLANS", {})
    model = _model(tmp_path)
    where = (model.specs["dataset"] == "traffic") & (model.specs["size"] == 4)
    some = model.facts({"DP-B", "EFREQ"}, paper=True, where=where)
    assert len(jqpg_model._REPLANS) == len(some) == int((where & model.specs["algorithm"].isin(["DP-B", "EFREQ"])).sum()) > 0
    assert set(some["algorithm"]) == {"DP-B", "EFREQ"} and set(some["dataset"]) == {"traffic"} and set(some["size"]) == {4}
    every = model.facts(set(ALGORITHMS), paper=True)  # the same cells among all, in the same order
    asked = every[(every["dataset"] == "traffic") & (every["size"] == 4) & every["algorithm"].isin(["DP-B", "EFREQ"])]
    pd.testing.assert_frame_equal(some, asked.reset_index(drop=True))
    assert len(jqpg_model._REPLANS) == len(every) == len(model.specs)


def test_re_plans_in_worker_processes_equal_those_of_this_process(tmp_path, monkeypatch):
    monkeypatch.setattr(jqpg_model, "_REPLANS", {})
    model = _model(tmp_path, patterns=PARALLEL_MIN // 8 + 1)
    keys = [jqpg_model.replan_key(s, 281.0) for s in model.specs["spec"]]
    assert len(set(keys)) >= PARALLEL_MIN
    spread = replan(keys, model.specs["size"].tolist())
    assert spread == [plan_facts(*k) for k in keys]
    assert len({f.plan for f in spread}) > 1  # the planners did plan different patterns differently
