"""A fixed set of planning problems full of equal-cost plans, for the CPU-independence tests.

:func:`plans` plans every case with every planner it names and returns the plans and costs as
JSON-ready data; ``python cpu_cases.py`` prints them, so that a test can run it in subprocesses
whose numpy (``NPY_DISABLE_CPU_FEATURES``) and OpenBLAS (``OPENBLAS_CORETYPE``) dispatch to other
kernels and compare.  The cases tie on purpose: equal rates, symmetric conditions of equal
selectivity, selectivity-0 conditions (every plan joining the pair first costs the same), and the
jqpg_fig4 cell whose DP-B plan differed between an AVX-512 and an AVX2 machine (cell
e54752b8d2d72103, conj-6-7).
"""

from __future__ import annotations

import ctypes
import glob
import json
import math
import os
import sys

import numpy as np

from algorithms import plan_pattern, planner_names
from algorithms.multi.registry import plan_workload
from cep import Statistics, parse_pattern

MULTI = ("SA-EDGE", "TS-EDGE", "SA-EDGE-PREFIX", "SH-MDT")
SEARCH_NEIGHBOURS = 300  # evaluated neighbours, not a time budget: the searches are deterministic
STEINER_NODES = 200


def _types(n: int) -> list[str]:
    return [f"T{i}" for i in range(n)]


def single_cases() -> list[tuple[str, str, Statistics]]:
    """(name, pattern text, statistics) of the single-pattern cases, sizes 3 to 8."""
    out = []
    for n in range(3, 9):
        ts = _types(n)
        vs = [f"v{i}" for i in range(n)]
        items = ", ".join(f"{t} {v}" for t, v in zip(ts, vs))
        equal = {t: 0.05 for t in ts}
        two = {t: (0.05 if i % 2 else 0.02) for i, t in enumerate(ts)}
        out.append((f"seq-equal-{n}", f"PATTERN SEQ({items}) WITHIN 20 minutes", Statistics(equal)))
        ring = [(i, (i + 1) % n) for i in range(n)] if n > 3 else [(0, 1), (1, 2), (0, 2)]
        conds = " AND ".join(f"v{min(a, b)}.x < v{max(a, b)}.x" for a, b in ring)
        sels = {f"v{min(a, b)},v{max(a, b)}": 0.1 for a, b in ring}
        out.append((f"and-ring-{n}", f"PATTERN AND({items}) WHERE {conds} WITHIN 20 minutes", Statistics(two, sels)))
        pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
        conds = " AND ".join(f"v{i}.x < v{j}.x" for i, j in pairs)
        sels = {f"v{i},v{j}": 0.3 for i, j in pairs}
        out.append((f"seq-all-pairs-{n}", f"PATTERN SEQ({items}) WHERE {conds} WITHIN 20 minutes", Statistics(two, sels)))
        conds = " AND ".join(["v1.x = v2.x"] + [f"v{i}.x < v{i + 1}.x" for i in range(2, n - 1)])
        sels = {"v1,v2": 0.0, **{f"v{i},v{i + 1}": 0.5 for i in range(2, n - 1)}}
        rates = {t: 0.01 * (1 + i % 3) for i, t in enumerate(ts)}
        out.append((f"and-zero-{n}", f"PATTERN AND({items}) WHERE {conds} WITHIN 20 minutes", Statistics(rates, sels)))
        if n <= 6:
            out.append((f"next-equal-{n}", f"PATTERN SEQ({items}) WITHIN 20 minutes STRATEGY skip-till-next-match",
                        Statistics(equal)))
            kl = ", ".join(f"KL({t} {v})" if i == 1 else f"{t} {v}" for i, (t, v) in enumerate(zip(ts, vs)))
            out.append((f"kleene-equal-{n}", f"PATTERN SEQ({kl}) WITHIN 2 minutes", Statistics(equal)))
    out.append((
        "jqpg_fig4-e54752b8d2d72103",
        "PATTERN AND(FRST e1, LFWD e2, CAMP e3, GCBC e4, IMDX e5, GTIM e6) WHERE e2.diff < e4.diff + (-1.1225) "
        "AND e2.diff > e5.diff + 0.5075 AND e5.diff > e6.diff + (-0.00420022) WITHIN 20 minutes SEQ_ORDER strict",
        Statistics(
            {"CAMP": 0.02014164504362215, "FRST": 0.034032434728878805, "GCBC": 0.00972355277967966,
             "GTIM": 0.004583960596134697, "IMDX": 0.025003421433461983, "LFWD": 0.003750513215019297},
            {"e2,e4": 0.0, "e2,e5": 0.010904425914047467, "e5,e6": 0.5605278255880666},
        ),
    ))
    return out


def multi_cases() -> list[tuple[str, list[str], Statistics]]:
    """(name, pattern texts, statistics) of the workloads: patterns sharing sub-patterns, equal rates."""
    w1 = [
        "PATTERN SEQ(A a, B b, C c, D d) WHERE a.x < b.x WITHIN 5 minutes",
        "PATTERN SEQ(A a, B b, C c, E e) WHERE a.x < b.x WITHIN 5 minutes",
        "PATTERN SEQ(A a, B b, D d, E e) WITHIN 5 minutes",
        "PATTERN AND(A a, C c, D d, F f) WITHIN 5 minutes",
        "PATTERN SEQ(B b, C c, D d, E e, F f) WHERE b.x < c.x WITHIN 5 minutes",
    ]
    w2 = [
        "PATTERN AND(A a, B b, C c) WHERE a.x = b.x WITHIN 5 minutes",
        "PATTERN AND(A a, B b, D d) WHERE a.x = b.x WITHIN 5 minutes",
        "PATTERN AND(A a, B b, C c, D d) WHERE a.x = b.x AND c.x < d.x WITHIN 5 minutes",
        "PATTERN SEQ(C c, D d, E e) WHERE c.x < d.x WITHIN 5 minutes",
        "PATTERN SEQ(A a, C c, D d, E e) WHERE c.x < d.x WITHIN 5 minutes",
        "PATTERN AND(B b, D d, E e, F f) WITHIN 5 minutes",
    ]
    equal = Statistics({t: 0.05 for t in "ABCDEF"}, {"a,b": 0.1, "c,d": 0.1, "b,c": 0.1})
    two = Statistics({t: (0.02 if t in "ACE" else 0.05) for t in "ABCDEF"}, {"a,b": 0.0, "c,d": 0.2, "b,c": 0.2})
    return [("shared-equal", w1, equal), ("shared-zero", w1, two), ("and-equal", w2, equal), ("and-zero", w2, two)]


def plans(*, multi: bool = True) -> dict:
    """Every case planned by every planner: ``{case: {planner: [plan, cost]}}`` (costs as ``float.hex``)."""
    out: dict = {}
    for name, text, stats in single_cases():
        pattern = parse_pattern(text)
        row = {}
        for planner in planner_names():
            for alpha in (0.0, 0.5):
                r = plan_pattern(pattern, planner, stats, alpha=alpha, seed=1)
                row[f"{planner}@{alpha}"] = [r.plan.to_json(), _hex(r.log_cost)]
        out[name] = row
    if multi:
        for name, texts, stats in multi_cases():
            patterns = [parse_pattern(t) for t in texts]
            row = {}
            for planner in MULTI:
                r = plan_workload(patterns, planner, stats, time_limit=600.0, max_neighbours=SEARCH_NEIGHBOURS, seed=3,
                                  max_nodes=STEINER_NODES)
                row[planner] = [{str(o): str(p) for o, p in sorted(r.plan.plans.items())}, _hex(r.cost)]
            out[name] = row
    return out


def _hex(x: float) -> str:
    return float(x).hex() if math.isfinite(x) else str(x)


def dispatch() -> dict:
    """The kernels this process runs: numpy's enabled SIMD features and OpenBLAS's core (None where
    this numpy build does not tell)."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:  # pragma: no cover - another numpy layout
        features = {}
    core = None
    for path in glob.glob(os.path.join(os.path.dirname(np.__file__), os.pardir, "numpy.libs", "*openblas*")):
        for symbol in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename", "openblas_get_corename"):
            f = getattr(ctypes.CDLL(path), symbol, None)
            if f is not None:
                f.restype = ctypes.c_char_p
                core = f().decode()
                break
    return {"numpy": sorted(k for k, on in features.items() if on), "blas": core}


if __name__ == "__main__":
    json.dump({"dispatch": dispatch(), "plans": plans(multi="--single" not in sys.argv)}, sys.stdout, sort_keys=True)
