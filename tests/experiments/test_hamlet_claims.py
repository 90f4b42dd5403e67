"""HAMLET Figure 10's "GRETA fails at 40K events per minute" (experiments/reporting/hamlet.py): judged per
dataset, a GRETA run stopped at its cap entering with its throughput's upper bound (a lower bound on
arrival rate over throughput)."""

from __future__ import annotations

import pandas as pd

from experiments.reporting.bounds import BOUND_COLUMN, UPPER
from experiments.reporting.hamlet import _fails_at_top
from experiments.reporting.rules import FAILED, HOLDS, UNCHECKED


def _greta(ds: str, rate: int, throughputs, capped: bool) -> list[dict]:
    return [{"dataset": ds, "x_name": "events_per_minute", "x_value": float(rate), "algorithm": "greta",
             "throughput_eps": t, BOUND_COLUMN: UPPER if capped else None, "workload_key": f"{ds}|{rate}|50|{i}"}
            for i, t in enumerate(throughputs)]


def test_capped_runs_decide_and_each_dataset_is_judged_alone():
    # 40K events per minute arrive at 667 events/s: capped runs whose upper bounds lie below that cannot keep up;
    # finished runs above it keep up
    # (six capped stock runs: the censored sign-test interval of a median needs six or more units)
    w = pd.DataFrame(_greta("stock", 40000, [460.0, 480.0, 400.0, 397.0, 450.0, 430.0], capped=True)
                     + _greta("traffic", 40000, [947.0, 920.0, 969.0, 849.0], capped=False)
                     + _greta("stock", 20000, [10.0, 11.0], capped=True))
    stock, traffic = _fails_at_top(w, "stock"), _fails_at_top(w, "traffic")
    assert stock.verdict == HOLDS and "6 lower bounds" in stock.ours and stock.claim.startswith("stock: ")
    assert traffic.verdict in FAILED and "n=4" in traffic.ours
    # a capped run whose upper bound is above the arrival rate bounds nothing in the claim's favour
    loose = pd.DataFrame(_greta("stock", 40000, [900.0, 950.0, 1000.0, 920.0, 980.0, 940.0], capped=True))
    assert _fails_at_top(loose, "stock").verdict not in (HOLDS, *FAILED)
    assert _fails_at_top(pd.DataFrame(_greta("stock", 20000, [1.0, 2.0], capped=False)), "stock").verdict == UNCHECKED
