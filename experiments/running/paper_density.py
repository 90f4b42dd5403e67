"""What a multi-pattern results folder's plans at the paper's density are (issue [4 of 6], 6(b)): the file
:mod:`experiments.tools.model_paper` writes beside the results and the report reads, its columns, the sweeps
whose cells it leaves out, and the factor from the run's density to the paper's."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from cep.errors import ConfigError

#: the file, in the results folder
FILE = "model_paper.parquet"
#: its columns: per cell and method, the re-made plan's digest (``plan_paper``), its cost and the trivial plan's
#: there, the factor, whether the rebuild met the run's stored trivial cost, whether a clock bounded the search
PLAN, PLAN_COST, TRIVIAL_COST = "plan_paper", "plan_cost_paper", "trivial_cost_paper"
COLUMNS = ["cell_id", "algorithm", "factor", PLAN, PLAN_COST, TRIVIAL_COST, "rebuilt", "timed"]
#: per multi-pattern kind, the sweeps whose cells are not re-planned: MCEP's reshuffling study (an adaptive plan,
#: not a static one), its count windows (a window of a fixed number of events holds as many at any rate: the
#: paper's density is not a rate there), MOTTO's core study (one plan split over Spark tasks)
EXCLUDED_SWEEPS = {"mcep": ("reshuffle_every", "count_window"), "motto": ("cores",)}


def paper_factor(meta: Mapping, where: Path | str = "metadata.json") -> float:
    """The paper's events of a type per window over the run's: the value the run resolved (its settings
    record, overrides included) over the paper scale's; ``where`` names the file in an error."""
    rec = meta.get("settings") or {}
    ours = ((rec.get("run") or {}).get("scale") or {}).get("events_per_window")
    paper = (((rec.get("configs") or {}).get("paper") or {}).get("scale") or {}).get("events_per_window")
    cfg = meta.get("config") or {}
    scales = (cfg.get("exp") or {}).get("scales") or {}
    name = (cfg.get("scale") or {}).get("name")
    if ours is None:
        ours = (scales.get(name) or {}).get("events_per_window")
    if paper is None:
        paper = (scales.get("paper") or {}).get("events_per_window")
    try:
        ours, paper = float(ours), float(paper)
    except (TypeError, ValueError):
        raise ConfigError(f"{where}: no events_per_window of the run (scale {name!r}) and of the paper scale") from None
    if not (ours > 0 and paper > 0):
        raise ConfigError(f"{where}: events_per_window must be positive (the run: {ours:g}, the paper: {paper:g})")
    return paper / ours
