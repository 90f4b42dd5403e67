"""Why a claim does not hold: a cause computed for every row that does not fully hold or cannot be
measured, from what the paper's own cost model predicts.

Three facts, each judged by the claim's own rule (its direction and size, :mod:`experiments.reporting.rules`):

(a) **the model at our density** -- the effect the paper's cost model predicts for the same plans on the
    same statistics (a throughput or memory ratio predicted as the inverse ratio of the plans' costs: the
    paper's Figure 6 reading, throughput ~ 1/cost and memory ~ cost);
(b) **the model at the paper's density** -- the same with the arrival rates scaled so that a type has as
    many events per window as in the paper (the plans re-planned on those statistics);
(c) **whether the work follows the model** -- the effect on the deterministic work the evaluator did
    (join candidates examined, or for memory the peak live partial matches), judged the same way, with
    the rank correlation of the per-unit work and model ratios beside it.

The cause class:

* **regime** -- the model does not predict the claim at our density but does at the paper's: the claim
  depends on a density we do not run;
* **model** -- the model predicts it at neither: the paper's own cost model does not support the claim on
  these plans;
* **regime or model** -- the model does not predict it at our density, and its prediction at the paper's
  was not computed (an MCEP or MOTTO folder without ``model_paper.parquet``, or a study whose plans it does
  not re-make: :mod:`experiments.reporting.model_paper`);
* **engine** -- the model predicts it and the work does not follow: our evaluator departs from the model;
* **genuine** -- the model predicts it, the work follows, and the measurement (time, bytes) still does not
  show it: a non-reproduction of the measured claim;
* **engine or genuine** -- the model predicts it and no deterministic work was stored to tell the two apart,
  or the work's own effect cannot be decided;
* **not modelled** -- the claim's metric has no cost model (HAMLET's engines, NEXT's measured CPU, plan and
  optimizer times, MOTTO's own objective, which *is* a model): the row says which.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as st

from experiments.reporting.rules import HOLDS, NOT_MEASURABLE, UNCHECKED, Verdict

REGIME, MODEL, REGIME_OR_MODEL = "regime", "model", "regime or model"
ENGINE, GENUINE, ENGINE_OR_GENUINE = "engine", "genuine", "engine or genuine"
NOT_MODELLED = "not modelled"
#: the cause classes, in the order the summary table shows them
CAUSES = (REGIME, MODEL, REGIME_OR_MODEL, ENGINE, GENUINE, ENGINE_OR_GENUINE, NOT_MODELLED)


@dataclass(frozen=True)
class Facts:
    """The three facts of a diagnosis: the model's predicted effect at our density and at the paper's
    (None where it cannot be computed, with why), and the work's effect (None where none was stored)."""

    ours: Verdict | None
    paper: Verdict | None = None
    work: Verdict | None = None
    paper_note: str = ""  # how the paper's density was reached, or why it was not
    work_note: str = ""  # e.g. the rank correlation of work and model per unit
    ours_note: str = ""  # e.g. how many re-plans differ from the stored plans


def _said(v: Verdict | None) -> str:
    return "n/a" if v is None else f"{v.effect.text()} ({v.verdict})"


def predicts(v: Verdict | None) -> bool:
    return v is not None and v.verdict == HOLDS


def classify(f: Facts) -> tuple[str, str]:
    """The cause class of a claim and the text of its diagnosis (module docstring)."""
    parts = [f"model at our density: {_said(f.ours)}" + (f" ({f.ours_note})" if f.ours_note else "")]
    if f.ours is None or f.ours.verdict == UNCHECKED:
        return NOT_MODELLED, parts[0] + "; no prediction"
    if f.paper is not None:
        parts.append(f"at the paper's density{' (' + f.paper_note + ')' if f.paper_note else ''}: {_said(f.paper)}")
    elif f.paper_note:
        parts.append(f"at the paper's density: {f.paper_note}")
    if f.work is not None:
        parts.append(f"work: {_said(f.work)}" + (f"; {f.work_note}" if f.work_note else ""))
    text = "; ".join(parts)
    if not predicts(f.ours):
        if f.paper is None:
            return REGIME_OR_MODEL, text
        return (REGIME if predicts(f.paper) else MODEL), text
    if f.work is None or f.work.verdict in (NOT_MEASURABLE, UNCHECKED):
        return ENGINE_OR_GENUINE, text
    return (GENUINE if predicts(f.work) else ENGINE), text


def not_modelled(why: str) -> Callable:
    """A ``Claim.diagnose`` for a claim without a cost model: its cause and why."""
    return lambda claim: (NOT_MODELLED, why)


def diagnosed(facts: Callable[[], Facts]) -> Callable:
    """A ``Claim.diagnose`` computing the facts only when the report asks (a claim that holds needs none)."""
    return lambda claim: classify(facts())


def rank_agreement(model: pd.Series, work: pd.Series) -> str:
    """The Spearman rank correlation of the per-unit model and work ratios (aligned on their index), as the
    text beside the work's verdict."""
    j = pd.concat([model.rename("m"), work.rename("w")], axis=1).replace([np.inf, -np.inf], np.nan).dropna()
    j = j[(j["m"] > 0) & (j["w"] > 0)]
    if len(j) < 3 or j["m"].nunique() < 2 or j["w"].nunique() < 2:
        return ""
    rho = st.spearmanr(np.log(j["m"]), np.log(j["w"])).statistic
    return f"Spearman rank correlation of work and model per unit {rho:.2f} (n={len(j)})" if math.isfinite(rho) else ""
