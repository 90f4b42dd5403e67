"""Plans are a function of the pattern and the statistics, not of the CPU.

numpy dispatches its kernels by the CPU's SIMD level (``exp`` and ``log`` have AVX-512 kernels) and
OpenBLAS picks its matrix kernels by CPU model, so the same cost can come out a unit in the last
place apart on two machines; equal-cost plans were then broken one way on an AVX-512 machine and
the other way on an AVX2 one.  The fixed cases of :mod:`cpu_cases` (JQPG patterns of 3 to 8 events
full of equal-cost plans, every single-pattern planner; MCEP workloads through SA-EDGE, TS-EDGE and
SA-EDGE-PREFIX with a budget of evaluated neighbours, and SH-MDT with a node budget) are planned

* in two processes, one at the machine's full kernel level and one with numpy's AVX-512 and AVX2
  kernels switched off (``NPY_DISABLE_CPU_FEATURES``) and OpenBLAS on its SSE kernels
  (``OPENBLAS_CORETYPE``): the plans are identical;
* with every subset cost of the cost model moved a few units in the last place (seeded, as another
  CPU's kernels would round them): the plans are those of the unmoved costs.  This one holds the
  property on any machine, whatever kernels it has.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import cpu_cases
from algorithms.cost_model import ClauseCostModel

HERE = os.path.dirname(__file__)
FULL = {"NPY_DISABLE_CPU_FEATURES": None, "OPENBLAS_CORETYPE": None}
LOWER = {"NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4 AVX512_ICL AVX512_SPR AVX512F AVX2 FMA3",
         "OPENBLAS_CORETYPE": "Nehalem"}


def _run(level: dict) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in level}
    env.update({k: v for k, v in level.items() if v is not None})
    env["PYTHONPATH"] = os.pathsep.join([HERE, env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, os.path.join(HERE, "cpu_cases.py")], env=env, capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout)


def _plans(result: dict) -> dict:
    """The plans alone (the costs are compared by the planners, not here)."""
    return {case: {p: v[0] for p, v in row.items()} for case, row in result.items()}


def test_plans_are_identical_at_two_kernel_levels():
    full, lower = _run(FULL), _run(LOWER)
    if full["dispatch"] == lower["dispatch"]:
        pytest.skip(f"this machine offers one kernel level only ({full['dispatch']})")
    assert _plans(full["plans"]) == _plans(lower["plans"])


def _moved(values: np.ndarray, masks: np.ndarray, seed: int) -> np.ndarray:
    """``values`` moved by -4..4 units in the last place, a fixed amount per (mask, seed)."""
    h = (masks.astype(np.uint64) + np.uint64(seed)) * np.uint64(0x9E3779B97F4A7C15)
    h ^= h >> np.uint64(29)
    ulps = (h % np.uint64(9)).astype(np.float64) - 4.0
    with np.errstate(invalid="ignore"):
        return np.where(np.isfinite(values), values + ulps * np.spacing(np.abs(values)), values)


@pytest.fixture(scope="module")
def unmoved() -> dict:
    return _plans(cpu_cases.plans())


@pytest.mark.parametrize("seed", [1, 2])
def test_plans_do_not_move_when_the_costs_are_rounded_otherwise(unmoved, seed):
    table, direct = ClauseCostModel._build_table, ClauseCostModel._direct
    mp = pytest.MonkeyPatch()
    mp.setattr(ClauseCostModel, "_build_table",
               lambda self: _moved(table(self), np.arange(1 << self.n, dtype=np.int64), seed))
    mp.setattr(ClauseCostModel, "_direct", lambda self, masks: _moved(direct(self, masks), masks, seed))
    try:
        moved = _plans(cpu_cases.plans())
    finally:
        mp.undo()
    assert moved == unmoved
