"""The ``fig12`` experiment kind: MCEP Figure 12 (Section 6.2.2) -- the throughput gain over the
trivial global plan (written orders, nothing shared) of the multi-pattern baselines SH, RE, SH-RR
(:mod:`algorithms.multi.baselines`), SH-MDT (MOTTO, :mod:`algorithms.multi.sh_mdt`) and the local
searches SA-EDGE and TS-EDGE, against the workload size, the pattern size, the time window and the
count window, on both datasets (``exp.datasets``).

Cells are exactly those of the ``mcep`` kind (:mod:`experiments.exps.mcep`: the seeded workload
of :mod:`experiments.workloads.mcep` over the dataset's type pool, replayed at the papers' 45x rate
spread by :mod:`experiments.data.replay`, statistics estimated on the stream, one multi-pattern evaluator
pass per repeat); this module only builds them for every dataset and reuses the mcep cell, so the
rows are the mcep rows with their ``dataset`` column set.  SH-MDT's MOTTO search is time-budgeted (5 s
exact, then annealing), so its plan can differ between machines when the exact search does not
finish; every other plan is deterministic given the cell spec.
"""

from __future__ import annotations

from pathlib import Path

from omegaconf import DictConfig

from experiments.exps.mcep import run_cell  # noqa: F401  (the cell of this kind; verify imports it)


def build_specs(cfg: DictConfig) -> list[dict]:
    from experiments.exps.mcep import build_specs as mcep_specs

    return mcep_specs(cfg)


def specs(cfg: DictConfig, out_dir: Path, spark=None) -> list[dict]:
    """Every cell specification of the run (what ``--estimate`` samples)."""
    return build_specs(cfg)


def run(cfg: DictConfig, out_dir: Path) -> int:
    from experiments.running.execution import run_all_cells

    return run_all_cells(cfg, out_dir, build_specs(cfg), run_cell)
