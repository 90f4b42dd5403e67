"""The multi-pattern plans re-made at the paper's density (``model_paper.parquet``, written by
``python -m experiments model-paper``, :mod:`experiments.tools.model_paper`) as rows of the report's table:
per cell and method, ``plan_cost_paper`` and ``trivial_cost_paper`` (the plan's and the trivial plan's
cost with the arrival rates at the paper's events per window), each with the re-made plan's digest in
``plan_paper`` and no ``plan`` (the stored plan stays the row group's plan).  The diagnoses of MCEP's and
MOTTO's claims judge them with the claim's own rule: the effect the paper's cost model predicts at the
paper's density (issue [4 of 6], 6(b))."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from experiments.running.folders import MODEL_PAPER_FILE
from experiments.running.folders import MODEL_PAPER_PLAN as PLAN
from experiments.running.folders import MODEL_PAPER_PLAN_COST as PLAN_COST
from experiments.running.folders import MODEL_PAPER_TRIVIAL_COST as TRIVIAL_COST
#: what a diagnosis says of how the paper's density was reached
NOTE = "each method re-planned there, model_paper.parquet"


#: why a multi-pattern claim has no prediction at the paper's density
NOT_COMPUTED = ("not computed: these cells' plans were not re-made there (`python -m experiments model-paper <experiment>` "
                "re-makes the static global plans of an MCEP or MOTTO run; not MCEP's reshuffling study nor MOTTO's "
                "core study)")


def with_model_paper(df: pd.DataFrame, exp_dir: Path) -> pd.DataFrame:
    """``df`` with the rows of the folder's ``model_paper.parquet`` (module docstring), or ``df`` itself
    when the folder has none.  A row takes the other columns of its cell and method's first stored row."""
    path = Path(exp_dir) / MODEL_PAPER_FILE
    if not path.exists() or df.empty:
        return df
    m = pd.read_parquet(path)
    first = df.drop_duplicates(["cell_id", "algorithm"]).drop(columns=["metric", "value", "status", "plan"])
    long = m.melt(id_vars=["cell_id", "algorithm", PLAN], value_vars=[PLAN_COST, TRIVIAL_COST], var_name="metric", value_name="value")
    rows = first.merge(long, on=["cell_id", "algorithm"], how="inner")
    rows["status"], rows["plan"] = "ok", None
    return pd.concat([df, rows[[c for c in df.columns if c in rows] + [PLAN]]], ignore_index=True)
