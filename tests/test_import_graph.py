"""The static import graph of our packages: no import circle, and the layers of DESIGN.md "Layout"
(cep imports nothing of ours; algorithms never import evaluators or experiments; evaluators never
import algorithms or experiments).

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


def import_graph() -> dict[str, set[str]]:
    files = module_files()
    return {name: imported_modules(name, path, set(files)) for name, path in files.items()}


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph()


def test_the_graph_sees_function_level_and_package_imports(graph):
    # evaluators/__init__.py imports evaluators.engine at module level; the commands import their
    # work inside functions
    assert "evaluators.engine" in graph["evaluators"]
    assert any(m.startswith("experiments.") for m in graph["experiments.commands.plan"])


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
