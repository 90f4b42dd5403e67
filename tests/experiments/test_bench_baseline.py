"""The earlier engine a benchmark measures against runs that commit's code on exactly the same events."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from cep.columnar import EventColumns
from cep.errors import ConfigError
from experiments.bench.baseline import REPO, run_at_revision, save_columns

SCRIPT = '''
import cep.columnar
pl = json.load(sys.stdin)
cols = load_columns(pl["stream"])
print(json.dumps({"module": cep.columnar.__file__, "types": cols.type_names, "codes": cols.codes.tolist(),
                  "ts": cols.ts.tolist(), "x": cols.column("x")}))
'''


def _head() -> str:
    try:
        return subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: a baseline revision needs one")


def test_a_revision_runs_its_own_code_on_the_same_columns(tmp_path):
    head = _head()
    cols = EventColumns(["A", "B"], np.array([0, 1, 0]), np.array([0.0, 1.5, 2.0]), columns={"x": np.array([3.0, -1.0, 7.5])})
    out = run_at_revision(SCRIPT, {"stream": str(save_columns(cols, tmp_path / "s.npz"))}, rev=head)
    assert head in out["module"], "the subprocess must import the revision's tree, not the working copy"
    assert (out["types"], out["codes"], out["ts"], out["x"]) == (["A", "B"], [0, 1, 0], [0.0, 1.5, 2.0], [3.0, -1.0, 7.5])


def test_an_unknown_revision_is_a_one_line_error():
    _head()
    with pytest.raises(ConfigError, match="baseline needs a git checkout"):
        run_at_revision("print('{}')", {}, rev="no-such-revision-xyz")
