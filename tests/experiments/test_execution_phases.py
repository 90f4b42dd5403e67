"""A run in phases (motto_fig14's driver cells, NEXT's two phases) into one results folder: the
cells of one phase are not taken for another configuration's; a changed configuration's are."""

from __future__ import annotations

from omegaconf import OmegaConf

from experiments.running.execution import execute_cells
from experiments.running.metadata import RunMetadata
from experiments.running.runners import SerialRunner
from experiments.running.store import ResultStore, cell_id


def _cell(spec):
    return [{"experiment": "phases", "pattern_id": spec["pattern_id"], "algorithm": "A", "metric": "matches",
             "value": float(spec["n"]), "status": "ok", "cell_id": cell_id(spec)}]


def _run_phases(out, phases, capsys) -> str:
    cfg = OmegaConf.create({"exp": {"name": "phases"}, "progress": False})
    everything = [s for phase in phases for s in phase]
    meta = RunMetadata(out / "metadata.json", {})
    for phase in phases:
        assert execute_cells(cfg, out, phase, _cell, runner=SerialRunner(), meta=meta, configuration=everything).failed == 0
    return capsys.readouterr().err


def test_phases_of_one_configuration_are_not_stale_and_another_configuration_is(tmp_path, capsys):
    phases = [[{"pattern_id": f"p{i}", "n": i} for i in range(3)], [{"pattern_id": "driver", "n": 9}]]
    err = _run_phases(tmp_path, phases, capsys)
    assert "not cells of this configuration" not in err
    err = _run_phases(tmp_path, phases, capsys)  # a rerun: all done, nothing stale
    assert "not cells of this configuration" not in err and "(3 already done" in err and "(1 already done" in err
    changed = [phases[0][:2], phases[1]]  # one cell dropped from the configuration
    err = _run_phases(tmp_path, changed, capsys)
    assert err.count("warning: 1 cells stored in") == 2
    stored = set(ResultStore(tmp_path).load()["cell_id"])
    assert cell_id(phases[0][2]) in stored and len(stored) == 4  # kept, not dropped


def test_a_run_of_phases_records_its_totals_once_and_runs_driver_cells_in_this_process(tmp_path, capsys):
    """run_all_cells: every phase on the configured runner or, in_driver, serially in this process; the run's
    metadata counts the cells of every phase (not the last phase's) and records each phase's facts."""
    import json

    from experiments.running.execution import Cells, Phase, run_all_cells

    cfg = OmegaConf.create({"exp": {"name": "phases", "kind": "toy"}, "runner": {"name": "serial"}, "progress": False, "seed": 0})
    phases = [Phase([{"pattern_id": f"p{i}", "n": i} for i in range(3)]),
              Phase([{"pattern_id": "driver", "n": 9}], in_driver=True, facts={"driver_cells": {"cells": 1}})]
    assert run_all_cells(cfg, tmp_path, _cell, Cells(phases, {"datasets": {"toy": {}}}), keys=None) == 0
    meta = json.loads((tmp_path / "metadata.json").read_text())
    assert (meta["cells_total"], meta["cells_run"], meta["cells_failed"], meta["rows"]) == (4, 4, 0, 4)
    assert meta["driver_cells"] == {"cells": 1} and meta["datasets"] == {"toy": {}} and meta["settings"] is None
    assert run_all_cells(cfg, tmp_path, _cell, [s for p in phases for s in p.specs], keys=None) == 0  # all done: none run
    assert json.loads((tmp_path / "metadata.json").read_text())["cells_run"] == 0
