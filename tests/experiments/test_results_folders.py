"""Where a run may write (issue 36, items 2 and 7): never into the committed reference without
reference=true, also not through a symbolic link to it, and never into a file."""

from __future__ import annotations

from pathlib import Path

import pytest

from cep.errors import ConfigError
from experiments.cli import main as cli_main
from experiments.running.compose import compose_config
from experiments.running.folders import results_root

REPO = Path(__file__).resolve().parents[2]
RUN = ["+exp=jqpg_fig3", "runner=serial", "progress=false"]


@pytest.mark.parametrize("below", ["", "sub", "sub/deeper"])
def test_a_symbolic_link_to_the_reference_folder_is_the_reference_folder(tmp_path, below):
    link = tmp_path / "LINK"
    link.symlink_to(REPO / "results", target_is_directory=True)
    with pytest.raises(ConfigError, match=r"is the committed reference reproduction .* \(through a symbolic link: "):
        results_root(compose_config([*RUN, f"results_dir={link / below}"]))
    assert not (REPO / "results" / "sub").exists()


def test_a_link_elsewhere_is_followed_to_where_it_points(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "LINK").symlink_to(tmp_path / "real", target_is_directory=True)
    assert results_root(compose_config([*RUN, f"results_dir={tmp_path / 'LINK' / 'sub'}"])) == (tmp_path / "real" / "sub").resolve()


@pytest.mark.parametrize("results_dir", ["/etc/passwd", "/etc/passwd/sub"])
def test_a_results_dir_that_is_a_file_is_one_line_and_exit_2(results_dir, capsys):
    assert cli_main(["run", *RUN, f"results_dir={results_dir}"]) == 2
    err = capsys.readouterr().err
    assert err == f"error: results_dir={results_dir} is not a folder: /etc/passwd is a file\n"
