"""The layering holds (issue 15, item 7): import-linter contracts, independent platform packages, no cycles.

Layers, top to bottom (``[tool.importlinter]`` in pyproject.toml): cli/service/docs > catalog/conversion >
fidelity > engine > api/inspection/chatbook > formats.<platform> (independent of each other) > transforms >
cardkit (neutral helpers) > platform (the registry) > activation/appmodel (the runtimes of profiles and app
models) > containers > document > model > helpers.
A platform reaches another platform only through the registry at call time
(``get_platform(name).service(...)``).
"""

from __future__ import annotations

import itertools
import re
import shutil
import subprocess
import sys
import tomllib
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
    """Every import inside ``interop``: function-level ones and those under ``TYPE_CHECKING`` included."""
    grimp = pytest.importorskip("grimp", reason="grimp is in the test extras (pip install '.[test]')")
    return grimp.build_graph("interop", cache_dir=None, exclude_type_checking_imports=False)


def _contract_layers() -> list[list[str]]:
    """The module expressions of each layer, top first, read from the import-linter contract."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    contract = next(c for c in config["contracts"] if c["type"] == "layers")
    assert "containers" not in contract, "layers are written as full module names; read them relative to containers"
    return [[name.strip() for name in re.split(r"[:|]", layer)] for layer in contract["layers"]]


def _expression_pattern(expression: str) -> re.Pattern[str]:
    """A layer's module expression (import-linter wildcards: ``*`` one name, ``**`` any) as a regex
    matching the module and everything in its folder."""
    parts = [{"*": r"[^.]+", "**": r".+"}.get(part, re.escape(part)) for part in expression.split(".")]
    return re.compile(r"\.".join(parts) + r"(\..+)?")


def _layer_index(layers: list[list[str]]) -> dict[str, int]:
    """For each layer's module expression, its pattern's source -> the layer's position (0 = top)."""
    return {_expression_pattern(name).pattern: i for i, layer in enumerate(layers) for name in layer}


def _layer_of(module: str, index: dict[str, int]) -> int | None:
    """The layer of the most specific expression whose folder holds ``module``; None outside all."""
    found = [(len(pattern), layer) for pattern, layer in index.items() if re.fullmatch(pattern, module)]
    return max(found)[1] if found else None


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
    """No import cycle, type-only and function-level imports included. Move the shared code down a
    layer into a module both sides import, or type a parameter by its shape (a ``Protocol``); do not
    hide the import inside a function or under ``TYPE_CHECKING``."""
    cycles = sorted(sorted(c) for c in _cycles(_graph()))
    assert cycles == [], f"import cycle(s): {cycles}"


def test_the_layer_reader_places_modules_by_folder() -> None:
    index = _layer_index([["interop.cli", "interop.service"], ["interop.formats.*"], ["interop.model"]])
    assert _layer_of("interop.cli.main", index) == 0
    assert _layer_of("interop.formats.risu.card", index) == 1
    assert _layer_of("interop.formats", index) is None
    assert _layer_of("interop.modeling", index) is None
    assert _layer_of("interop.model.card", index) == 2


ROOT_FILES = {"interop", "interop.__main__", "interop._version"}
"""Modules that may sit in no layer's folder: the root package's own files."""


def test_every_module_sits_in_a_layer_folder() -> None:
    index = _layer_index(_contract_layers())
    outside = sorted(m for m in _graph().modules if _layer_of(m, index) is None)
    assert set(outside) <= ROOT_FILES, f"{outside}: add the new folder to the layers contract in pyproject.toml"


def test_no_import_runs_from_a_lower_layer_folder_to_a_higher_one() -> None:
    """import-linter's layers contract, checked again over every import grimp sees, type-only ones
    included, by the folder each module sits in."""
    index = _layer_index(_contract_layers())
    graph = _graph()
    layer = {module: _layer_of(module, index) for module in graph.modules}
    upward = sorted(
        (importer, imported)
        for importer in graph.modules
        for imported in graph.find_modules_directly_imported_by(importer)
        if layer[importer] is not None and layer[imported] is not None and layer[imported] < layer[importer]
    )
    assert upward == [], "a lower layer imports a higher one; move the shared code down"
