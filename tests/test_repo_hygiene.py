"""Generated docs are current and the code is ruff-clean (both enforced in CI through pytest)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from interop import mappings

REPO = Path(__file__).resolve().parents[1]


def test_platform_docs_match_the_mapping_tables() -> None:
    stale = [str(path) for path, text in mappings.rendered_docs(REPO / "docs" / "platforms").items()
             if not path.exists() or path.read_text(encoding="utf-8") != text]
    assert not stale, f"run `python -m interop.mappings --write-docs`: stale {stale}"


def test_readme_format_table_is_current() -> None:
    from interop.formats import table

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert table.updated(readme) == readme, "run `python -m interop.formats.table --write`"


def test_ruff_is_clean() -> None:
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(ruff).exists():
        pytest.skip("ruff not installed (pip install '.[test]')")
    result = subprocess.run(
        [ruff, "check", "interop", "tests", "benchmarks", "corpus"], cwd=REPO, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout[-4000:]
