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
    wheel = next(tmp_path.glob("interop_cards-*.whl"))
    archive = zipfile.ZipFile(wheel)
    names = set(archive.namelist())
    assert "interop/py.typed" in names  # PEP 561: type checkers use the package's own hints
    assert "interop/__main__.py" in names  # python -m interop
    dist_info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
    assert f"{dist_info}/licenses/LICENSE" in names
    metadata = archive.read(f"{dist_info}/METADATA").decode("utf-8")
    assert "Name: interop-cards" in metadata
    assert "License-Expression: MIT" in metadata
    assert "Provides-Extra: service" in metadata and "Provides-Extra: all" in metadata
    # the core a converting user installs carries no server, queue or PostgreSQL stack
    core = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:") and "extra ==" not in line]
    assert core and not any(name in line for line in core for name in ("fastapi", "celery", "psycopg", "uvicorn"))
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
