"""The engine of an earlier commit, run beside this one on the same stream: the ratios ``bench`` prints.

A speed claim is a ratio measured in one run against the previous engine on the same stream.  So a
benchmark that reports one runs the earlier commit's code too, in a subprocess, on the stream it
measures here:

* :func:`revision_tree` extracts the packages and configs of commit ``rev`` (``git archive``) into a cache
  folder once per commit (``$CEP_BASELINE_CACHE``, default ``<tmp>/cep-plan-bench-baselines``);
* :func:`save_columns` writes a stream's columns (type names, codes, timestamps, attributes) to an
  ``.npz`` that the earlier code rebuilds with its own ``EventColumns(type_names, codes, ts,
  columns=...)`` (:data:`LOAD_COLUMNS`), so both engines see exactly the same events;
* :func:`run_at_revision` runs a script there, with that tree first on ``sys.path`` and as the working
  directory: the script reads one JSON object from stdin and prints one JSON object as its last line
  of stdout.

:data:`BASELINE_REVISION` is the engine of Round 4's start (f697127): every ratio printed by
``bench`` is against it unless ``--against REV`` names another commit.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from cep.errors import ConfigError

#: the engine every ``bench`` ratio is measured against by default (Round 4's starting commit)
BASELINE_REVISION = "f697127"

#: what a baseline tree holds: the packages an engine and its pipeline import, and the configs its
#: experiments compose (the data are read from this checkout)
PACKAGES = ("cep", "algorithms", "evaluators", "experiments", "configs")

REPO = Path(__file__).resolve().parents[2]

#: Python source a baseline script starts with: ``load_columns(path)`` gives the earlier code's own
#: ``EventColumns`` of a stream written by :func:`save_columns`
LOAD_COLUMNS = '''
import json, sys
import numpy as np
from cep.columnar import EventColumns


def load_columns(path):
    z = np.load(path, allow_pickle=False)
    names = [str(x) for x in z["type_names"]]
    cols = {k[2:]: z[k] for k in z.files if k.startswith("a_")}
    return EventColumns(names, z["codes"], z["ts"], columns=cols, source=str(path))
'''


def _git(*args: str) -> str:
    try:
        out = subprocess.run(["git", "-C", str(REPO), *args], check=True, capture_output=True, text=True)
    except FileNotFoundError:
        raise ConfigError("a baseline revision needs git on the PATH") from None
    except subprocess.CalledProcessError as e:
        msg = (e.stderr or "").strip().splitlines()
        raise ConfigError(f"git {' '.join(args)}: {msg[-1] if msg else 'failed'} (a baseline needs a git checkout with the commit)") from None
    return out.stdout.strip()


def resolve_revision(rev: str) -> str:
    """The full commit id of ``rev`` (one-line error if this is not a checkout holding it)."""
    return _git("rev-parse", "--verify", f"{rev}^{{commit}}")


def revision_tree(rev: str = BASELINE_REVISION) -> Path:
    """The packages of commit ``rev``, extracted once into the cache folder; returns that folder."""
    sha = resolve_revision(rev)
    root = Path(os.environ.get("CEP_BASELINE_CACHE", Path(tempfile.gettempdir()) / "cep-plan-bench-baselines"))
    dest = root / f"{sha}-{'-'.join(PACKAGES)}"
    if (dest / ".complete").exists():
        return dest
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=root, prefix=f".{sha[:12]}-"))
    try:
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", "--format=tar", sha, *[p for p in PACKAGES if _has_path(sha, p)]],
            check=True, capture_output=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive, check=True, capture_output=True)
        (tmp / ".complete").write_text(sha + "\n")
        try:
            tmp.rename(dest)
        except OSError:  # another process extracted it meanwhile
            shutil.rmtree(tmp, ignore_errors=True)
    except subprocess.CalledProcessError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        raise ConfigError(f"could not extract commit {sha[:12]}: {(e.stderr or b'').decode(errors='replace').strip()}") from None
    return dest


def _has_path(sha: str, path: str) -> bool:
    return bool(_git("ls-tree", "--name-only", sha, path))


def save_columns(cols, path: Path) -> Path:
    """Write an ``EventColumns`` (every attribute column it holds, as arrays) to ``path`` (.npz)."""
    arrays = {
        "type_names": np.asarray(cols.type_names, dtype=str),
        "codes": np.asarray(cols.codes),
        "ts": np.asarray(cols.ts, dtype=np.float64),
    }
    for name in cols.attributes:
        arrays[f"a_{name}"] = np.asarray(cols.column(name))
    np.savez(path, **arrays)
    return path


def run_at_revision(script: str, payload: dict, rev: str = BASELINE_REVISION, timeout: float | None = None) -> dict:
    """Run ``script`` (Python source; :data:`LOAD_COLUMNS` is prepended) with the code of ``rev``, feed it
    ``payload`` as JSON on stdin and return the JSON object it prints last."""
    tree = revision_tree(rev)
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.run(
        [sys.executable, "-c", LOAD_COLUMNS + script],
        input=json.dumps(payload), capture_output=True, text=True, cwd=tree, env=env, timeout=timeout,
    )
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise ConfigError(f"the baseline run at {rev} failed: {last}")
    lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
    if not lines:
        raise ConfigError(f"the baseline run at {rev} printed nothing")
    return json.loads(lines[-1])


#: runs evaluation cases with the revision's own engine (see :func:`evaluate_at_revision`)
EVALUATE_SCRIPT = '''
import statistics, time
from cep.columnar import read_nasdaq_text_columns
from cep.errors import EvaluationLimitError
from cep.parser import parse_pattern
from cep.plans import OrderPlan, PatternPlan, TreePlan, tree_from_json
from evaluators import compile_evaluator, evaluate

pl = json.load(sys.stdin)
if pl.get("text"):
    events = lambda: read_nasdaq_text_columns(pl["text"])
else:
    events = load_columns(pl["stream"])
out = []
for case in pl["cases"]:
    p = parse_pattern(case["pattern"])
    plan = PatternPlan(tuple(OrderPlan(tuple(x)) if case["kind"] == "order" else TreePlan(tree_from_json(x)) for x in case["plans"]))
    row = {}
    if case.get("until_cap"):
        # the revision's Runtime, so that a run its cap stops still says how many partial matches it made
        from evaluators.runtime import Runtime, prepare
        program = compile_evaluator(p, plan, case["evaluator"])
        times = []
        for _ in range(pl["repeats"]):
            t = time.perf_counter()
            rt = Runtime(program, prepare(program, events), cap=case["cap"], collect_matches=False)
            try:
                rt.run()
                row = {"capped": False}
            except EvaluationLimitError:
                row = {"capped": True}
            times.append(time.perf_counter() - t)
            row["partial_matches_created"] = rt.partial_matches_created()
        row["elapsed_s"] = statistics.median(times)
    else:
        runs = [evaluate(p, plan, events, evaluator=case["evaluator"], measure_memory=False, collect_matches=pl["collect"],
                         max_partial_matches=case.get("cap")).metrics for _ in range(pl["repeats"])]
        row = {k: statistics.median(m[k] for m in runs) for k in ("throughput_eps", "elapsed_s", "decode_s")}
        row.update({k: runs[0][k] for k in ("matches", "partial_matches_created", "work")})
    out.append(row)
print(json.dumps(out))
'''


def evaluate_at_revision(cases: list[dict], *, repeats: int, stream: Path | None = None, text: Path | None = None,
                         collect: bool = False, rev: str = BASELINE_REVISION, timeout: float | None = None) -> list[dict]:
    """Run ``cases`` with the engine of ``rev`` on a stream written by :func:`save_columns` (``stream``) or
    a NASDAQ text file it decodes itself (``text``).  A case: ``pattern`` (text), ``evaluator``, ``kind``
    ("order" or "tree") and ``plans`` (one JSON plan per DNF clause), optional ``cap``; with
    ``until_cap`` the run is timed until the partial-match cap stops it.  Returns per case the median
    ``throughput_eps``, ``elapsed_s``, ``decode_s`` and the counts of the first run (or, until the cap,
    ``capped`` and the median time to it)."""
    payload = {"cases": cases, "repeats": repeats, "collect": collect,
               "stream": str(stream) if stream else None, "text": str(text) if text else None}
    return run_at_revision(EVALUATE_SCRIPT, payload, rev=rev, timeout=timeout)


def plan_case(pattern_text: str, plan, evaluator: str, **extra) -> dict:
    """The case of :func:`evaluate_at_revision` for a pattern's plan (a :class:`cep.plans.PatternPlan`)."""
    kind = plan.kind
    return {"pattern": pattern_text, "evaluator": evaluator, "kind": kind, "plans": [p.to_json() for p in plan.plans], **extra}
