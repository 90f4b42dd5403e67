"""Methods from outside the repository (algorithms/plugins.py): names resolve through entry points and
module:Class in the registries, mistakes are one line, broken methods are named with the pattern they
fail on, and the conformance suite (check-planner) rejects a broken planner and optimizer."""

from __future__ import annotations

import pytest

from cep import Statistics, parse_pattern
from cep.errors import PlanError
from algorithms import plan_pattern, planner_kind
from algorithms.multi import plan_workload
from experiments.cli import main as cli_main
from experiments.tools.conformance import check_planner

P = parse_pattern("PATTERN SEQ(A a, B b, C c) WHERE a.x = c.x WITHIN 10 seconds")
Q = parse_pattern("PATTERN SEQ(A a, B b, D d) WITHIN 10 seconds")
STATS = Statistics({"A": 3.0, "B": 1.0, "C": 2.0, "D": 4.0}, {"a,c": 0.01})


def test_module_class_names_a_planner_everywhere_a_name_is_accepted():
    r = plan_pattern(P, "plugin_cases:ReversePlanner", STATS)
    assert str(r.plan) == "c, b, a" and planner_kind("plugin_cases:ReversePlanner") == "order"
    g = plan_workload([P, Q], "plugin_cases:WrittenOrderOptimizer", STATS)
    assert g.plan.kind == "order" and g.plan.describe()["plans"] == {"0.0": ["a", "b", "c"], "1.0": ["a", "b", "d"]}
    assert g.cost < g.trivial_cost  # the shared prefix a, b is paid once


def test_an_entry_point_names_a_planner(tmp_path, monkeypatch):
    dist = tmp_path / "byo_planner-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: byo-planner\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[cep_plan_bench.planners]\nMY-REVERSE = plugin_cases:ReversePlanner\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert str(plan_pattern(P, "MY-REVERSE", STATS).plan) == "c, b, a"


@pytest.mark.parametrize("name, words", [
    ("DP-X", ["unknown planner 'DP-X' (no single-pattern planner", "did you mean DP-B"]),
    ("plugin_cases:NoSuchClass", ["has no 'NoSuchClass'"]),
    ("no_such_module:Planner", ["cannot import module 'no_such_module'"]),
    ("plugin_cases:NotAPlanner", ["not a subclass of algorithms.planners.base.Planner"]),
    ("plugin_cases:WrittenOrderOptimizer", ["it is a multi-pattern optimizer"]),
    ("plugin_cases:RaisingPlanner", ["planner plugin_cases:RaisingPlanner failed on pattern", "ValueError: no plan today"]),
    ("plugin_cases:DroppingPlanner", ["invalid plan for pattern", "drops c"]),
    ("plugin_cases:OrderAsTreePlanner", ["returned OrderPlan", "a tree planner returns TreePlan"]),
    ("plugin_cases:NamedLikeABuiltin", ["is named 'DP-LD', the name of a built-in method"]),
    ("plugin_cases:Nameless", ["(Nameless) declares no name"]),
    ("plugin_cases:RaisingConstructor", ["planner RAISING-CONSTRUCTOR (plugin_cases:RaisingConstructor): its constructor raised "
                                         "RuntimeError: no constructor today"]),
    ("plugin_cases:WrongOrder", ["planner WRONG-ORDER returned the order [0, 0, 0] for pattern", "_order returns every variable index 0..2 once"]),
])
def test_mistakes_and_broken_planners_are_one_line_plan_errors(name, words):
    with pytest.raises(PlanError) as e:
        plan_pattern(P, name, STATS)
    text = str(e.value)
    assert "\n" not in text and all(w in text for w in words), text


def test_a_broken_optimizer_is_named_with_what_it_left_out():
    with pytest.raises(PlanError, match=r"optimizer plugin_cases:ForgetfulOptimizer returned no plan for pattern 1 clause 0"):
        plan_workload([P, Q], "plugin_cases:ForgetfulOptimizer", STATS)
    with pytest.raises(PlanError, match=r"unknown planner 'SA-EDG' \(no multi-pattern optimizer .*did you mean SA-EDGE"):
        plan_workload([P, Q], "SA-EDG", STATS)


def test_the_conformance_suite_passes_correct_methods_and_rejects_broken_ones():
    assert check_planner("plugin_cases:ReversePlanner", streams=1).ok
    assert check_planner("plugin_cases:WrittenOrderOptimizer", streams=1).ok
    broken = check_planner("plugin_cases:DroppingPlanner", streams=1)
    assert not broken.ok and len(broken.failures) == broken.checks and all("drops" in f for f in broken.failures)
    forgetful = check_planner("plugin_cases:ForgetfulOptimizer", streams=1)
    assert not forgetful.ok and all("no plan for pattern" in f for f in forgetful.failures)


def test_check_planner_exits_1_on_a_failed_check_and_2_on_a_name_that_resolves_to_nothing(capsys):
    assert cli_main(["check-planner", "plugin_cases:ReversePlanner", "--streams", "1"]) == 0
    assert cli_main(["check-planner", "plugin_cases:DroppingPlanner", "--streams", "1"]) == 1
    assert "FAIL" in capsys.readouterr().out
    assert cli_main(["check-planner", "DP-X"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "did you mean DP-B" in err


def test_a_planner_module_that_does_not_compile_is_one_line(tmp_path, monkeypatch):
    (tmp_path / "broken_syntax_planner.py").write_text("from algorithms.planners.base import OrderPlanner\nclass X(OrderPlanner:\n    pass\n")
    (tmp_path / "broken_import_planner.py").write_text("raise RuntimeError('not today')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(PlanError, match=r"module 'broken_syntax_planner' fails to import: SyntaxError: .*broken_syntax_planner.py, line 2"):
        plan_pattern(P, "broken_syntax_planner:X", STATS)
    with pytest.raises(PlanError, match=r"module 'broken_import_planner' fails to import: RuntimeError: not today"):
        plan_pattern(P, "broken_import_planner:X", STATS)


def test_a_planner_named_like_a_builtin_never_prints_a_second_row_of_that_name(tmp_path, capsys):
    stats = tmp_path / "s.json"
    stats.write_text('{"rates": {"A": 1.0, "B": 2.0}}')
    assert cli_main(["plan", "PATTERN SEQ(A a, B b) WITHIN 1 minutes", "--planner", "DP-LD,plugin_cases:NamedLikeABuiltin",
                     "--stats", str(stats)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "is named 'DP-LD', the name of a built-in method" in err and err.count("\n") == 1


@pytest.mark.parametrize("name, call", [("plugin_cases:ExitingPlanner", "sys.exit(0)"), ("plugin_cases:HardExitingPlanner", "os._exit(0)")])
def test_a_planner_that_ends_the_process_ends_plan_with_one_line_and_status_2(tmp_path, name, call):
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    stats = tmp_path / "s.json"
    stats.write_text('{"rates": {"A": 1.0, "B": 2.0, "C": 3.0}}')
    env = {"PYTHONPATH": str(repo / "tests" / "algorithms"), "PATH": "/usr/bin:/bin"}
    r = subprocess.run([sys.executable, "-m", "experiments", "plan", "PATTERN SEQ(A a, B b, C c) WITHIN 1 minutes", "--planner", name,
                        "--stats", str(stats)], cwd=repo, capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 2 and r.stdout == "", (r.returncode, r.stdout, r.stderr)
    assert r.stderr.startswith(f"error: plan: {call} called at ") and "plugin_cases.py" in r.stderr and r.stderr.count("\n") == 1


def test_a_planner_returning_a_wrong_order_is_refused_under_python_dash_O_too(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    stats = tmp_path / "s.json"
    stats.write_text('{"rates": {"A": 1.0, "B": 2.0, "C": 3.0}}')
    env = {"PYTHONPATH": str(repo / "tests" / "algorithms"), "PATH": "/usr/bin:/bin"}
    r = subprocess.run([sys.executable, "-O", "-m", "experiments", "plan", "PATTERN SEQ(A a, B b, C c) WITHIN 1 minutes",
                        "--planner", "plugin_cases:WrongOrder", "--stats", str(stats)], cwd=repo, capture_output=True, text=True,
                       timeout=300, env=env)
    assert r.returncode == 2 and r.stdout == "", (r.returncode, r.stdout, r.stderr)
    assert "returned the order [0, 0, 0]" in r.stderr and r.stderr.count("\n") == 1


def test_a_process_forked_while_exits_are_refused_still_ends_with_its_status():
    """refusing_exit refuses os._exit in the process that entered it only: a child forked inside the block (as
    multiprocessing's fork start method makes them) ends with its status instead of running on as the parent."""
    import os

    import pytest

    from cep.errors import ExitRefused
    from experiments.running.exits import refusing_exit

    with refusing_exit("test"):
        pid = os.fork()
        if pid == 0:
            os._exit(7)
        _, status = os.waitpid(pid, 0)
        with pytest.raises(ExitRefused, match=r"test: os._exit\(3\) called at "):
            os._exit(3)
    assert os.waitstatus_to_exitcode(status) == 7
