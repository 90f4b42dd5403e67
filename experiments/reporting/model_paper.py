"""The multi-pattern plans re-made at the paper's density (``model_paper.parquet``, written after an MCEP or
MOTTO run or by ``python -m experiments model-paper``, :mod:`experiments.tools.model_paper`) as rows of the
report's table: per cell and method, ``plan_cost_paper`` and ``trivial_cost_paper`` (the plan's and the
trivial plan's cost with the arrival rates at the paper's events per window), each with the re-made plan's
digest in ``plan_paper`` and no ``plan`` (the stored plan stays the row group's plan).  The diagnoses of
MCEP's and MOTTO's claims judge them with the claim's own rule: the effect the paper's cost model predicts at
the paper's density (issue [4 of 6], 6(b)).

The file is read only when it belongs to the stored run: made at the factor the run's ``metadata.json``
gives, every row rebuilt from the run's own workload and statistics, and every (cell, method) of the run's
re-planned sweeps present; otherwise it is left out and a note says why (a re-run whose cells changed, a
``model_paper=false`` run over an older file, a changed paper scale)."""

from __future__ import annotations

import math

import pandas as pd

from cep.errors import ConfigError
from experiments.reporting.core import SectionInput
from experiments.running.paper_density import EXCLUDED_SWEEPS, FILE, PLAN, PLAN_COST, TRIVIAL_COST, paper_factor
from experiments.running.settings import RENAMED_KINDS

__all__ = ["NOTE", "NOT_COMPUTED", "PLAN", "PLAN_COST", "TRIVIAL_COST", "with_model_paper"]

#: what a diagnosis says of how the paper's density was reached
NOTE = "each method re-planned there, model_paper.parquet"
#: why a multi-pattern claim has no prediction at the paper's density
NOT_COMPUTED = ("not computed: these cells' plans were not re-made there (`python -m experiments model-paper <experiment>` "
                "re-makes the static global plans of an MCEP or MOTTO run on time windows; not MCEP's reshuffling study "
                "and count windows, nor MOTTO's core study; a file that does not match the run is left out, the section's notes say why)")


def with_model_paper(inp: SectionInput) -> tuple[pd.DataFrame, list[str]]:
    """The section's table with the rows of its folder's ``model_paper.parquet`` (module docstring), and the
    notes on it: the table itself when the folder has none, or with a note when the file does not match the
    stored run.  A row takes the other columns of its cell and method's first stored row."""
    df, path = inp.table, inp.exp_dir / FILE
    if not path.exists() or df.empty:
        return df, []
    m = pd.read_parquet(path)
    want = _wanted(df, inp)
    why = _mismatch(m, want, inp)
    if why:
        return df, [f"{FILE} left out of the diagnoses: {why}; `python -m experiments model-paper {inp.experiment}` re-makes it"]
    m = m[pd.MultiIndex.from_frame(m[["cell_id", "algorithm"]]).isin(want)]
    first = df.drop_duplicates(["cell_id", "algorithm"]).drop(columns=["metric", "value", "status", "plan"])
    long = m.melt(id_vars=["cell_id", "algorithm", PLAN], value_vars=[PLAN_COST, TRIVIAL_COST], var_name="metric", value_name="value")
    rows = first.merge(long, on=["cell_id", "algorithm"], how="inner")
    rows["status"], rows["plan"] = "ok", None
    timed = int(m["timed"].sum())
    note = [f"{FILE}: {m['cell_id'].nunique()} cells re-planned at {float(m['factor'].iloc[0]):.4g}x the run's events per window"
            + (f"; {timed} plans came from a search bounded by seconds (MOTTO's exact Steiner search)" if timed else "")]
    return pd.concat([df, rows[[c for c in df.columns if c in rows] + [PLAN]]], ignore_index=True), note


def _mismatch(m: pd.DataFrame, want: set, inp: SectionInput) -> str:
    """Why ``m`` does not belong to the stored run, whose re-planned (cell, method) pairs are ``want``
    (empty when it does)."""
    try:
        factor = paper_factor(inp.meta, inp.exp_dir / "metadata.json")
    except ConfigError as e:
        return str(e)
    made = set(m["factor"].round(9))
    if len(made) != 1 or not math.isclose(made.pop(), factor, rel_tol=1e-9):
        return f"it was made at {sorted(set(m['factor']))} times the run's events per window, the run's paper factor is {factor:.4g}"
    if not m["rebuilt"].all():
        return f"{int((~m['rebuilt']).sum())} of its rows did not rebuild the run's own workload and statistics"
    have = set(map(tuple, m[["cell_id", "algorithm"]].to_numpy()))
    if want - have:
        return f"it has {len(want & have)} of the run's {len(want)} (cell, method) pairs"
    return ""


def _wanted(df: pd.DataFrame, inp: SectionInput) -> set:
    """The run's (cell, method) pairs of the sweeps that are re-planned."""
    kind = ((inp.meta.get("config") or {}).get("exp") or {}).get("kind")
    excluded = EXCLUDED_SWEEPS.get(RENAMED_KINDS.get(kind, kind), ())
    return set(map(tuple, df[~df["x_name"].isin(excluded)][["cell_id", "algorithm"]].drop_duplicates().to_numpy()))
