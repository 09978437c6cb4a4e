"""Generated docs are current and the code is ruff-clean (both enforced in CI through pytest)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from interop import docs
from interop.docs import formats_table, platforms

REPO = Path(__file__).resolve().parents[1]


def test_platform_docs_match_the_mapping_tables() -> None:
    stale = [str(path) for path, text in platforms.rendered(REPO / "docs" / "platforms").items()
             if not path.exists() or path.read_text(encoding="utf-8") != text]
    assert not stale, f"run `python -m interop.docs --write`: stale {stale}"


def test_readme_format_table_is_current() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert formats_table.updated(readme) == readme, "run `python -m interop.docs --write`"


def test_every_generated_doc_is_current() -> None:
    assert docs.stale_docs(REPO) == {}, "run `python -m interop.docs --write`"


def test_one_command_checks_and_writes_every_generated_doc(tmp_path: Path) -> None:
    """``--check`` names each stale file and exits 1; ``--write`` makes them current, byte for byte."""
    (tmp_path / "README.md").write_text(
        f"# x\n\n{formats_table.START}\nold\n{formats_table.END}\ntail\n", encoding="utf-8"
    )
    assert docs.main(["--check", "--root", str(tmp_path)]) == 1
    assert docs.main(["--write", "--root", str(tmp_path)]) == 0
    assert docs.main(["--check", "--root", str(tmp_path)]) == 0
    for doc in docs.generated_docs():
        written = (tmp_path / doc.path).read_text(encoding="utf-8")
        if doc.path != formats_table.README:
            assert written == (REPO / doc.path).read_text(encoding="utf-8"), doc.path
    readme = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert readme.startswith("# x\n\n") and readme.endswith(f"{formats_table.END}\ntail\n")
    assert formats_table.render() in readme


def test_the_old_doc_commands_are_gone() -> None:
    """One generator: the three former entry points must not come back (they drifted apart)."""
    import interop.fidelity.matrix
    import interop.mappings

    assert not hasattr(interop.mappings, "main") and not hasattr(interop.fidelity.matrix, "main")
    assert not (REPO / "interop" / "formats" / "table.py").exists()


def test_ruff_is_clean() -> None:
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(ruff).exists():
        pytest.skip("ruff not installed (pip install '.[test]')")
    result = subprocess.run(
        [ruff, "check", "interop", "tests", "benchmarks", "corpus"], cwd=REPO, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout[-4000:]
