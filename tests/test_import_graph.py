"""The static import graph of our packages: no import circle, the layers of docs/DESIGN.md "Layers" (cep
imports nothing of ours; algorithms never import evaluators or experiments; evaluators never import
algorithms or experiments), and the floors of ``experiments/``: no module imports from a floor above its
own, and the experiment kinds and the report, side by side, never import each other.

The graph is read from the source with :mod:`ast`, not by importing: every ``import`` statement,
at module level or inside a function, is an edge.  ``import a.b`` is an edge to ``a.b``;
``from a import b`` an edge to ``a`` and, when ``a.b`` is a module, to ``a.b`` as well (importing
a submodule through its package runs the package first).
"""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("cep", "algorithms", "evaluators", "experiments")
FORBIDDEN = {
    "cep": ("algorithms", "evaluators", "experiments"),
    "algorithms": ("evaluators", "experiments"),
    "evaluators": ("algorithms", "experiments"),
}
#: the floors of experiments/, bottom first (docs/DESIGN.md, "Layers"): a module imports from its own floor
#: and the floors below it only
FLOORS = (
    ("experiments.data", "experiments.workloads"),
    ("experiments.running",),
    ("experiments.exps", "experiments.reporting"),
    ("experiments.tools", "experiments.bench"),
    ("experiments.commands",),
    ("experiments.cli",),
    ("experiments.__main__",),
)
#: packages of one floor that stand side by side and never import each other
APART = (("experiments.exps", "experiments.reporting"),)


def module_files() -> dict[str, Path]:
    """Every module of our packages, by dotted name (a package by its ``__init__``)."""
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


def imported_modules(name: str, path: Path, modules: set[str]) -> set[str]:
    """The modules of ``modules`` that ``name`` (at ``path``) imports anywhere in its source."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {m for m in found if m in modules and m != name}


def floor_of(module: str) -> tuple[int, str] | None:
    """The floor of an ``experiments`` module and the part of :data:`FLOORS` it belongs to (None for the
    package ``experiments`` itself, which holds nothing)."""
    for i, parts in enumerate(FLOORS):
        for part in parts:
            if module == part or module.startswith(part + "."):
                return i, part
    return None


def floor_violations(graph: dict[str, set[str]]) -> list[str]:
    """Every import of an ``experiments`` module from a floor above its own, or between two parts that stand
    apart; and every module of ``experiments`` that is on no floor."""
    bad = []
    for name, targets in graph.items():
        if not name.startswith("experiments."):
            continue
        here = floor_of(name)
        if here is None:
            bad.append(f"{name} is on no floor of FLOORS")
            continue
        for target in targets:
            there = floor_of(target) if target.startswith("experiments.") else None
            if there is None:
                continue
            if there[0] > here[0]:
                bad.append(f"{name} (floor {here[0] + 1}) imports {target} (floor {there[0] + 1})")
            elif {here[1], there[1]} in [set(pair) for pair in APART]:
                bad.append(f"{name} imports {target}: {here[1]} and {there[1]} stand side by side")
    return sorted(bad)


def import_graph() -> dict[str, set[str]]:
    files = module_files()
    return {name: imported_modules(name, path, set(files)) for name, path in files.items()}


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph()


def test_the_graph_sees_function_level_and_package_imports(graph):
    # evaluators/__init__.py imports evaluators.engine at module level; compare imports the report's
    # effects inside its main function
    assert "evaluators.engine" in graph["evaluators"]
    assert "experiments.reporting.compare" in graph["experiments.commands.compare"]


def test_no_import_circle(graph):
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as e:
        pytest.fail(f"import circle: {' -> '.join(e.args[1])}")


def test_no_module_imports_a_package_it_belongs_to(graph):
    # ``from cep import next_algebra`` inside cep/ runs cep/__init__.py, which imports the module back
    bad = sorted(f"{name} imports {target}" for name, targets in graph.items() for target in targets
                 if name.startswith(target + "."))
    assert not bad, "; ".join(bad)


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layers_import_downwards_only(graph, layer):
    bad = sorted(
        f"{name} imports {target}"
        for name, targets in graph.items()
        if name == layer or name.startswith(layer + ".")
        for target in targets
        if target.split(".")[0] in FORBIDDEN[layer]
    )
    assert not bad, "; ".join(bad)


def test_no_experiments_module_imports_from_a_floor_above_its_own(graph):
    bad = floor_violations(graph)
    assert not bad, "; ".join(bad)


def test_the_floor_check_finds_an_import_from_above_and_between_parts_side_by_side():
    graph = {"experiments.data.streams": {"experiments.running.store"},
             "experiments.exps.jqpg": {"experiments.reporting.core", "experiments.running.cells"},
             "experiments.running.cells": {"experiments.data.streams"},
             "experiments.elsewhere": set()}
    assert floor_violations(graph) == [
        "experiments.data.streams (floor 1) imports experiments.running.store (floor 2)",
        "experiments.elsewhere is on no floor of FLOORS",
        "experiments.exps.jqpg imports experiments.reporting.core: experiments.exps and experiments.reporting stand side by side",
    ]
