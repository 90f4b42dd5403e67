"""``advise`` (issue 38): on a workload whose best plan is known by construction it recommends it, and every bad
input is one line with exit status 2."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from cep.plans import OrderPlan, TreePlan
from experiments.cli import main as cli_main
from experiments.data.synthetic import generate_stream
from experiments.tools.advise import advise

#: A is 100 times rarer than B and C: a plan that starts with a waits for the rare event and examines only the B and C
#: events of its window then, while the written order (b, c, a) pairs every B with every C in the window first
PATTERN = "PATTERN SEQ(B b, C c, A a) WHERE b.x < c.x WITHIN 5 seconds\n"


def _events_csv(path, *, seconds: float = 300.0) -> None:
    cols = generate_stream({"A": 0.3, "B": 30.0, "C": 30.0}, seconds, seed=7)
    frame = pd.DataFrame({"type": cols.type_per_event(), "ts": cols.ts, "x": cols.values("x"), "y": cols.values("y")})
    frame.to_csv(path, index=False)


@pytest.fixture(scope="module")
def workload(tmp_path_factory):
    d = tmp_path_factory.mktemp("advise")
    _events_csv(d / "events.csv", seconds=900.0)
    (d / "pattern.txt").write_text(PATTERN)
    return d


def _rare_first(plan) -> bool:
    """Whether a plan joins the rare event first: an order that starts with ``a``, or a tree whose first join
    (a node of two leaves) holds ``a``."""
    (p,) = plan.plans
    if isinstance(p, OrderPlan):
        return p.order[0] == "a"
    assert isinstance(p, TreePlan)

    def pairs(node):
        if isinstance(node, str):
            return []
        left, right = node
        here = [node] if isinstance(left, str) and isinstance(right, str) else []
        return here + pairs(left) + pairs(right)

    return any("a" in pair for pair in pairs(p.root))


def test_advise_recommends_the_plan_that_starts_with_the_rare_event(workload, tmp_path):
    advice = advise(str(workload / "events.csv"), str(workload / "pattern.txt"), budget_s=25, min_samples=30, out_dir=tmp_path,
                     progress=False)
    by = {r.candidate.name: r for r in advice.ranked}
    best = by[advice.best].candidate
    assert _rare_first(best.plan), best.plan_text
    assert advice.recommendation.startswith(f"Recommendation: {advice.best}")
    # the written order pairs B with C first: behind the best, decided on throughput and on work
    trivial = by["TRIVIAL"]
    assert not _rare_first(trivial.candidate.plan)
    assert trivial.versus_best.outcome == "B wins" and trivial.versus_best.effect.hi < 1
    # (at least 30 samples whatever the machine's speed: min_samples runs past the budget if need be)
    assert trivial.work_versus_best.outcome == "B wins" and trivial.work_versus_best.effect.hi < 1
    # every plan that starts elsewhere does more work than the best's
    for r in advice.ranked:
        if r.work_versus_best is not None and not _rare_first(r.candidate.plan):
            assert r.work_versus_best.effect.estimate < 1
    assert advice.samples_run >= 2 and advice.location["size"] == 3
    assert 50 < advice.location["rate_ratio"] < 200  # 100x by construction, estimated
    page = (tmp_path / "advise.md").read_text()
    assert advice.recommendation in page and "![advise](advise.png)" in page
    assert (tmp_path / "advise.png").stat().st_size > 5_000


def test_advise_on_the_command_line_ends_with_the_recommendation(workload, tmp_path, capsys):
    assert cli_main(["advise", "--data", str(workload / "events.csv"), "--patterns", str(workload / "pattern.txt"),
                     "--budget", "15", "--min-samples", "30", "--out", str(tmp_path), "--no-progress",
                     "--maps", str(tmp_path / "none")]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-1].startswith("Recommendation: ")
    assert any(line.startswith("nearest map region: no regime maps") for line in out)
    assert any("TRIVIAL" in line and "behind the best" in line for line in out)


def _bad(tmp_path, **files) -> dict:
    paths = {}
    for name, text in files.items():
        p = tmp_path / name
        p.write_text(text)
        paths[name] = p
    return paths


@pytest.mark.parametrize("case", ["format", "attribute", "type", "empty", "budget", "short budget"])
def test_bad_input_is_one_line_with_status_2(case, workload, tmp_path, capsys):
    events, pattern = workload / "events.csv", workload / "pattern.txt"
    budget = "15"
    if case == "format":
        events = _bad(tmp_path, **{"events.json": '{"type": "A"}'})["events.json"]
        expected = "unknown events file format '.json'"
    elif case == "attribute":
        pattern = _bad(tmp_path, **{"p.txt": "PATTERN SEQ(B b, A a) WHERE b.speed < a.x WITHIN 5 seconds"})["p.txt"]
        expected = "names attribute 'speed' that the events"
    elif case == "type":
        pattern = _bad(tmp_path, **{"p.txt": "PATTERN SEQ(B b, Z z) WITHIN 5 seconds"})["p.txt"]
        expected = "event type 'Z' (variable z) does not occur"
    elif case == "empty":
        events = _bad(tmp_path, **{"e.csv": "type,ts,x,y\n"})["e.csv"]
        expected = "no events"
    elif case == "budget":
        budget = "0"
        expected = "--budget must be a positive number of seconds"
    else:
        budget = "0.001"
        expected = "is too short for one run"
    code = cli_main(["advise", "--data", str(events), "--patterns", str(pattern), "--budget", budget, "--out", str(tmp_path / "out"),
                     "--no-progress"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and expected in err[0], err
    assert not (tmp_path / "out" / "advise.md").exists()


def test_several_patterns_get_the_multi_pattern_optimizers(workload, tmp_path):
    (tmp_path / "w.txt").write_text(PATTERN + "PATTERN SEQ(B b, C c) WHERE b.x < c.x WITHIN 5 seconds\n")
    advice = advise(str(workload / "events.csv"), str(tmp_path / "w.txt"), budget_s=30, progress=False, max_samples=4)
    names = {r.candidate.name for r in advice.ranked}
    assert {"SA-EDGE", "TS-EDGE", "SH-MDT", "RE", "TRIVIAL"} <= names
    assert advice.location["workload_size"] == 2 and 0 <= advice.location["density"] <= 1
    assert np.isfinite(advice.ranked[0].throughput)


def test_a_short_stream_is_run_again_while_the_budget_lasts(tmp_path):
    """A stream used up before the budget runs its samples again: every sample keeps one throughput (over the
    median of its passes), and the work of a plan is the same count whatever the pass."""
    _events_csv(tmp_path / "events.csv", seconds=20.0)
    (tmp_path / "pattern.txt").write_text(PATTERN)
    # a pass over 20 s of events takes well under a second on an idle machine: 30 s leave room for a busy one
    advice = advise(str(tmp_path / "events.csv"), str(tmp_path / "pattern.txt"), budget_s=30, progress=False)
    assert advice.passes >= 2
    best = next(r for r in advice.ranked if r.candidate.name == advice.best)
    assert best.versus_best.effect.n == advice.samples_run and math.isfinite(best.work)
