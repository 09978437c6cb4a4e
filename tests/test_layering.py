"""The layering holds (issue 15, item 7): import-linter contracts, independent platform packages, no cycles.

Layers, top to bottom (``[tool.importlinter]`` in pyproject.toml): cli/service/docs > catalog/conversion >
fidelity > engine > api/inspection > formats.<platform> (independent of each other) > transforms >
cardkit (neutral helpers) > platform (the registry) > containers > document > model > helpers.
A platform reaches another platform only through the registry at call time
(``get_platform(name).service(...)``).
"""

from __future__ import annotations

import itertools
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from interop.formats import platform_packages

REPO = Path(__file__).resolve().parents[1]


def _lint_imports() -> str:
    found = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    if not Path(found).exists():
        pytest.skip("import-linter is not installed (pip install '.[test]')")
    return found


def _graph() -> Any:
    grimp = pytest.importorskip("grimp", reason="grimp comes with import-linter (pip install '.[test]')")
    return grimp.build_graph("interop", cache_dir=None, exclude_type_checking_imports=True)


def test_import_linter_contracts_are_kept() -> None:
    result = subprocess.run([_lint_imports(), "--no-cache"], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]


def test_every_platform_package_is_independent() -> None:
    """Also platforms added after pyproject's contract was written (found on disk, not listed)."""
    graph = _graph()
    packages = [f"interop.formats.{name}" for name in platform_packages()]
    assert len(packages) >= 8
    chains = [
        (a, b)
        for a, b in itertools.permutations(packages, 2)
        if graph.chain_exists(importer=a, imported=b, as_packages=True)
    ]
    assert chains == [], "a platform package imports another; ask the registry instead"


def _cycles(graph: Any) -> list[frozenset[str]]:
    """Strongly connected sets of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def test_the_cycle_finder_finds_a_cycle() -> None:
    class Graph:
        modules = {"a", "b", "c", "d"}
        edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}

        def find_modules_directly_imported_by(self, module: str) -> set[str]:
            return self.edges.get(module, set())

    assert _cycles(Graph()) == [frozenset({"a", "b", "c"})]


def test_no_import_cycles() -> None:
    """Runtime import cycles (imports under TYPE_CHECKING do not count): none. Move the shared code
    down a layer into a module both sides import; do not hide the import inside a function."""
    cycles = sorted(sorted(c) for c in _cycles(_graph()))
    assert cycles == [], f"import cycle(s): {cycles}"
