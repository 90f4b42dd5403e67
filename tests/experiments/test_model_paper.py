"""``model-paper`` (issue [4 of 6], 6(b)): a multi-pattern folder's workloads re-planned at the paper's density.

At the run's own density the rebuild re-makes every stored plan exactly (digest and cost), so what it gives at
the paper's density is the same workload's plan there; the report reads the file into each diagnosis when it
belongs to the stored run, and says why where a folder has none or one that does not match."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from experiments.running.metadata import load_meta
from experiments.running.paper_density import FILE as MODEL_PAPER_FILE
from experiments.running.paper_density import paper_factor
from experiments.tools.model_paper import compute

RESULTS = Path(__file__).resolve().parents[2] / "results"


def _stored(root: Path, metric: str) -> pd.DataFrame:
    t = pd.read_parquet(root / "results.parquet")
    return t[t["metric"] == metric].set_index(["cell_id", "algorithm"])[["value", "plan"]]


@pytest.mark.parametrize("exp, sample", [("fig12", 6), ("mcep_fig10", 4), ("motto_fig13", 2)])
def test_at_the_runs_own_density_every_stored_plan_is_remade_exactly(exp, sample):
    root = RESULTS / exp
    out = compute(root, factor=1.0, sample=sample, seed=1, write=False)
    assert out["cell_id"].nunique() == sample and out["rebuilt"].all()
    fixed = out[~out["timed"]]  # a search bounded by seconds alone may end elsewhere on a busy machine
    assert len(fixed) >= 1
    j = fixed.join(_stored(root, "plan_cost"), on=["cell_id", "algorithm"])
    assert (j["plan_paper"] == j["plan"]).all()
    assert np.allclose(j["plan_cost_paper"], j["value"], rtol=1e-9)


def test_at_the_papers_density_the_costs_are_the_same_workloads_at_higher_rates():
    root = RESULTS / "mcep_fig10"
    factor = paper_factor(load_meta(root))
    assert factor == pytest.approx(8726 / 15)
    out = compute(root, sample=3, seed=2, write=False)
    assert (out["factor"] == factor).all() and out["rebuilt"].all()
    j = out.join(_stored(root, "trivial_cost"), on=["cell_id", "algorithm"])
    assert (j["trivial_cost_paper"] > 100 * j["value"]).all()  # every instance count grows with the rates
    assert (out["plan_cost_paper"] <= out["trivial_cost_paper"] * (1 + 1e-9)).all()


def test_a_file_is_written_only_for_every_cell_at_the_papers_density(tmp_path):
    from cep.errors import ConfigError

    with pytest.raises(ConfigError, match="every cell at the paper's density"):
        compute(RESULTS / "mcep_fig10", factor=1.0, sample=1)


def _copy(exp: str, tmp_path: Path) -> Path:
    dst = tmp_path / exp
    dst.mkdir()
    for name in ("results.parquet", "metadata.json"):
        shutil.copy(RESULTS / exp / name, dst / name)
    return dst


def _plant(root: Path, keys: pd.DataFrame, cheaper: np.ndarray, gain: float, **overrides) -> None:
    """A model_paper file at the folder's paper factor where the ``cheaper`` rows' plans cost the others' / ``gain``."""
    cols = {"cell_id": keys["cell_id"].to_numpy(), "algorithm": keys["algorithm"].to_numpy(),
            "factor": paper_factor(load_meta(root)), "plan_paper": [f"p{i}" for i in range(len(keys))],
            "plan_cost_paper": np.where(cheaper, 1e20 / gain, 1e20), "trivial_cost_paper": 1e20 * max(gain, 1.0),
            "rebuilt": True, "timed": False}
    cols.update(overrides)
    pd.DataFrame(cols).to_parquet(root / MODEL_PAPER_FILE)


def _claims(root: Path, key: str) -> list:
    """The rows of sentence ``key`` (one per dataset), not their siblings."""
    from experiments.reporting import build_section

    return [c for c in build_section(root.parent, root.name).claims if c.key == key and not c.sibling]


def _ours_predicts(claim) -> bool:
    """Whether the diagnosis's model at our density predicts the claim (its verdict there holds)."""
    return claim.diagnosis.split("model at our density: ", 1)[1].split("; at the paper's density", 1)[0].rstrip(")").endswith("(holds")


def test_the_diagnosis_reads_the_papers_density_and_says_why_when_it_is_missing(tmp_path):
    from experiments.reporting.diagnosis import ENGINE, ENGINE_OR_GENUINE, GENUINE, MODEL, REGIME, REGIME_OR_MODEL
    from experiments.reporting.model_paper import NOT_COMPUTED

    root = _copy("motto_fig13", tmp_path)
    t = pd.read_parquet(root / "results.parquet")
    keys = t[t["x_name"] == "r"][["cell_id", "algorithm"]].drop_duplicates()
    methods = (keys["algorithm"] != "NA").to_numpy()
    (claim,) = _claims(root, "motto_over_na")
    assert claim.verdict != "holds", "a stored claim that holds has no diagnosis to read; pick another sentence"
    assert claim.cause == REGIME_OR_MODEL and NOT_COMPUTED in claim.diagnosis
    predicted = _ours_predicts(claim)
    _plant(root, keys, methods, 10.0)  # the model predicts a 10x gain there
    (claim,) = _claims(root, "motto_over_na")
    assert "at the paper's density (each method re-planned there, model_paper.parquet): 10.00x" in claim.diagnosis
    assert claim.cause in ((GENUINE, ENGINE, ENGINE_OR_GENUINE) if predicted else (REGIME,))
    _plant(root, keys, methods, 1.0)  # no gain there
    (claim,) = _claims(root, "motto_over_na")
    assert claim.cause in ((GENUINE, ENGINE, ENGINE_OR_GENUINE) if predicted else (MODEL,))


@pytest.mark.parametrize("why, overrides", [("made at", {"factor": 3.0}), ("did not rebuild", {"rebuilt": False})])
def test_a_file_that_does_not_belong_to_the_run_is_left_out_with_a_note(tmp_path, why, overrides):
    from experiments.reporting import build_section
    from experiments.reporting.model_paper import NOT_COMPUTED

    root = _copy("motto_fig13", tmp_path)
    t = pd.read_parquet(root / "results.parquet")
    keys = t[t["x_name"] == "r"][["cell_id", "algorithm"]].drop_duplicates()
    _plant(root, keys, (keys["algorithm"] != "NA").to_numpy(), 10.0, **overrides)
    section = build_section(root.parent, root.name)
    assert any(n.startswith(f"{MODEL_PAPER_FILE} left out of the diagnoses") and why in n for n in section.notes)
    assert all(NOT_COMPUTED in c.diagnosis for c in section.claims if c.key == "motto_over_na")
    _plant(root, keys.iloc[1:], (keys["algorithm"] != "NA").to_numpy()[1:], 10.0)  # one (cell, method) short
    notes = build_section(root.parent, root.name).notes
    assert any(f"of the run's {len(keys)} (cell, method) pairs" in n for n in notes)


def test_an_mcep_diagnosis_judges_the_plans_remade_at_the_papers_density_with_the_claims_own_rule(tmp_path):
    from experiments.reporting.diagnosis import ENGINE, ENGINE_OR_GENUINE, GENUINE, MODEL, REGIME

    root = _copy("fig12", tmp_path)
    t = pd.read_parquet(root / "results.parquet")
    keys = t[t["metric"] == "plan_cost"][["cell_id", "algorithm"]].drop_duplicates()
    local = keys["algorithm"].isin(["SA-EDGE", "TS-EDGE"]).to_numpy()
    open_rows = [c for c in _claims(root, "fig12_best") if c.verdict != "holds"]
    assert open_rows, "every stored fig12_best row holds: no diagnosis to read; pick another sentence"
    predicted = {c.claim: _ours_predicts(c) for c in open_rows}
    _plant(root, keys, local, 10.0)  # every local search's plan there costs the trivial plan's / 10
    for claim in [c for c in _claims(root, "fig12_best") if c.verdict != "holds"]:
        assert "at the paper's density (each method re-planned there, model_paper.parquet): 10.00x" in claim.diagnosis
        assert claim.cause in ((GENUINE, ENGINE, ENGINE_OR_GENUINE) if predicted[claim.claim] else (REGIME,))
    _plant(root, keys, local, 1.0)
    for claim in [c for c in _claims(root, "fig12_best") if c.verdict != "holds"]:
        assert "at the paper's density (each method re-planned there, model_paper.parquet): 1.00x" in claim.diagnosis
        assert claim.cause in ((GENUINE, ENGINE, ENGINE_OR_GENUINE) if predicted[claim.claim] else (MODEL,))


def test_a_folder_that_is_not_multi_pattern_is_a_one_line_error(capsys):
    from experiments.cli import main as cli_main

    assert cli_main(["model-paper", "jqpg_fig3"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not an MCEP or MOTTO run" in err[0]


def test_a_run_stores_its_plans_at_the_papers_density_beside_its_cells(tmp_path, capsys):
    """``run`` re-plans an MCEP or MOTTO run's cells when they are stored (``model_paper: true``, the default)."""
    from experiments.cli import main as cli_main

    args = ["run", "+exp=motto_fig13", "scale=quick", "runner=serial", "progress=false", "report=false", f"results_dir={tmp_path}",
            "exp.scales.quick.seeds=[0]", "exp.scales.quick.repeats=1", "exp.scales.quick.windows=100",
            "exp.scales.quick.base.queries=6", "exp.scales.quick.base.budget_s=1", "exp.scales.quick.values.r=[0.5]"]
    assert cli_main(args) == 0
    root = tmp_path / "motto_fig13"
    out = pd.read_parquet(root / MODEL_PAPER_FILE)
    stored = pd.read_parquet(root / "results.parquet")
    assert set(zip(out["cell_id"], out["algorithm"])) == set(zip(stored["cell_id"], stored["algorithm"]))
    assert out["rebuilt"].all() and (out["factor"] == 82.0).all()
    made = (root / MODEL_PAPER_FILE).stat().st_mtime_ns
    capsys.readouterr()
    assert cli_main([*args, "model_paper=false"]) == 0  # the cells are stored and the step is off: the file is not touched
    assert (root / MODEL_PAPER_FILE).stat().st_mtime_ns == made and "re-planned" not in capsys.readouterr().err
    assert cli_main([*args, "model_paper=off"]) == 2  # not a boolean: a one-line error


def test_verify_remakes_a_sampled_cells_plans_at_the_papers_density_and_catches_a_wrong_one(tmp_path):
    from experiments.tools.model_paper import cell_rows, stored_rows
    from experiments.tools.verify import sample_experiment, verify_model_paper

    root = _copy("fig12", tmp_path)
    shutil.copy(RESULTS / "fig12" / "cells.jsonl.gz", root / "cells.jsonl.gz")
    (cell,) = sample_experiment(root, 1, seed=3, max_cell_s=5.0)
    assert verify_model_paper(cell) == []  # no file: nothing to compare
    rows = pd.DataFrame(cell_rows(cell.spec, "mcep", paper_factor(load_meta(root)), stored_rows(cell.committed)[cell.cell_id]))
    rows.to_parquet(root / MODEL_PAPER_FILE)
    diffs = verify_model_paper(cell)
    assert len(diffs) == 1 + 4 * len(rows) and all(d.ok for d in diffs)
    rows["plan_cost_paper"] *= 1.01
    rows.to_parquet(root / MODEL_PAPER_FILE)
    bad = [d for d in verify_model_paper(cell) if not d.ok]
    assert [d.metric for d in bad] == ["model_paper:plan_cost_paper"] * len(rows)
    pd.concat([rows, rows.assign(algorithm="RE")]).to_parquet(root / MODEL_PAPER_FILE)  # a method the re-run does not make
    assert [d.metric for d in verify_model_paper(cell) if not d.ok][0] == "model_paper:methods"
