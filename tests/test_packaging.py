"""The wheel ships mappings/, alembic/ and the service's templates and static files.

A non-editable install must run every command.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_contains_data_folders(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(REPO)],
        check=True,
        capture_output=True,
    )
    wheel = next(tmp_path.glob("interop-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    mappings = {p.name for p in (REPO / "mappings").glob("*.json")}
    assert mappings, "no mapping tables in the repo"
    for name in mappings:
        assert f"interop/_data/mappings/{name}" in names
    if (REPO / "alembic" / "env.py").exists():
        assert "interop/_data/alembic/env.py" in names
    service = REPO / "interop" / "service"
    for folder in ("templates", "static"):
        files = [p.relative_to(REPO).as_posix() for p in (service / folder).iterdir() if p.is_file()]
        assert files, f"no files in interop/service/{folder}"
        assert set(files) <= names, f"interop/service/{folder} files missing from the wheel"
