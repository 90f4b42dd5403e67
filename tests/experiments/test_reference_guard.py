"""What the committed reference admits (issue 36, item 1): committed code only (no untracked file under the
package directories, no method loaded from outside the repository), and one configuration per folder --
a run of another configuration is refused without --replace -- with metadata.json describing the whole
table, every leg of a resumed run included."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from cep.errors import ConfigError
from experiments.cli import main as cli_main
from experiments.running import folders, metadata
from experiments.running.compose import compose_config
from experiments.running.store import ResultStore

SMALL = ["+exp=jqpg_fig3", "runner=serial", "exp.datasets=[nasdaq]", "exp.pattern_sets=[seq]", "exp.sizes=[3]",
         "exp.patterns_per_size=1", "exp.repeats=1", "progress=false", "exp.planners=[EFREQ]"]


def test_an_untracked_code_file_is_refused_and_an_ignored_or_results_file_is_not(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    (repo / "cep").mkdir(parents=True)
    (repo / "cep" / "parser.py").write_text("a = 1\n")
    (repo / ".gitignore").write_text("__pycache__/\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "-C", str(repo), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-qm", "c"], check=True)
    monkeypatch.setattr(metadata, "REPO_ROOT", repo)
    (repo / "cep" / "__pycache__").mkdir()
    (repo / "cep" / "__pycache__" / "parser.cpython-311.pyc").write_bytes(b"\0")
    (repo / "results" / "x").mkdir(parents=True)
    (repo / "results" / "x" / "new.parquet").write_bytes(b"\0")
    folders.require_committed_code()
    (repo / "cep" / "zz_probe_untracked.py").write_text("import os\n")
    with pytest.raises(ConfigError, match=r"1 file\(s\) under cep, .* are not tracked by git, e\.g\. 'cep/zz_probe_untracked.py'"):
        folders.require_committed_code()


def test_a_method_from_outside_the_repository_is_refused_in_the_reference(monkeypatch):
    monkeypatch.setattr(folders, "require_committed_code", lambda: None)
    with pytest.raises(ConfigError, match=r"reference=true runs the repository's own methods only; \+extra_planners="):
        folders.results_root(compose_config([*SMALL, "reference=true", "+extra_planners=[plugin_cases:ReversePlanner]"]))


@pytest.fixture
def reference(tmp_path, monkeypatch) -> Path:
    """A reference folder of its own (results/ stays untouched), on whatever this checkout's state."""
    ref = tmp_path / "reference"
    monkeypatch.setattr(folders, "REFERENCE_DIR", str(ref))
    monkeypatch.setattr(folders, "require_committed_code", lambda: None)
    return ref


def test_a_reference_run_of_another_configuration_is_refused_unless_it_replaces(reference, capsys):
    assert cli_main(["run", *SMALL, "reference=true"]) == 0
    folder = reference / "jqpg_fig3"
    first = set(ResultStore(folder).load()["cell_id"])
    capsys.readouterr()
    assert cli_main(["run", *SMALL, "exp.sizes=[4]", "reference=true"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds the cells of another configuration (exp.sizes: [3] there, [4] here)" in err
    assert set(ResultStore(folder).load()["cell_id"]) == first  # nothing added
    assert cli_main(["run", *SMALL, "exp.sizes=[4]", "reference=true", "--replace"]) == 0
    stored = ResultStore(folder).load()
    assert set(stored["size"]) == {4} and not set(stored["cell_id"]) & first
    meta = json.loads((folder / "metadata.json").read_text())
    assert meta["config"]["exp"]["sizes"] == [4] and meta["cells_total"] == len(set(stored["cell_id"])) and "legs" not in meta


def test_a_resumed_run_keeps_every_leg_in_its_metadata(tmp_path):
    assert cli_main(["run", *SMALL, f"results_dir={tmp_path}"]) == 0
    first = json.loads((tmp_path / "jqpg_fig3" / "metadata.json").read_text())
    assert cli_main(["run", *SMALL, f"results_dir={tmp_path}"]) == 0
    second = json.loads((tmp_path / "jqpg_fig3" / "metadata.json").read_text())
    assert second["cells_run"] == 0 and second["cells_total"] == first["cells_total"] == first["cells_run"]
    assert second["legs"] == [{k: first[k] for k in metadata.LEG_KEYS}]
    assert second["rows"] == len(ResultStore(tmp_path / "jqpg_fig3").load())


def test_replace_with_multirun_is_refused(capsys):
    assert cli_main(["run", *SMALL, "seed=0,1", "--multirun", "--replace"]) == 2
    assert "--replace with --multirun" in capsys.readouterr().err
