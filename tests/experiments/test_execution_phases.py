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
