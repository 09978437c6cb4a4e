"""Two concurrent ``migrate`` runs over the same files on one catalog (issue 23): each file is counted
imported by one summary only; the other run counts it unchanged (the catalog is written once either way)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .samples import make_folder

REPO = Path(__file__).resolve().parents[2]
N_FILES = 120


def start(src: Path, out: Path, url: str, *extra: str) -> subprocess.Popen[str]:
    args = ["migrate", str(src), "--to", "ccv3", "--out", str(out), "--db", url, "--json", *extra]
    return subprocess.Popen(
        [sys.executable, "-c", "from interop.cli import main; main()", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'shared.sqlite'}"
    return request.getfixturevalue("pg_url")


def test_concurrent_runs_count_each_file_imported_once(tmp_path: Path, url: str) -> None:
    src = tmp_path / "in"
    make_folder(src, N_FILES)
    # create the schema first: two runs racing to create it is another matter (docs/catalog.md)
    first = start(src, tmp_path / "out", url)
    assert first.communicate(timeout=300)[0] and first.returncode == 0
    src2 = tmp_path / "in2"
    for path in make_folder(src2, N_FILES * 2)[:N_FILES]:
        path.unlink()  # the second half: files the catalog has not seen
    runs = [start(src2, tmp_path / "out", url), start(src2, tmp_path / "out", url, "--jobs", "2")]
    files = []
    for proc in runs:
        stdout, stderr = proc.communicate(timeout=600)
        assert proc.returncode == 0, stderr[-2000:]
        files.append(json.loads(stdout)["files"])
    for counted in files:
        assert counted["failed"] == 0 and counted["imported"] + counted["unchanged"] == N_FILES, counted
    assert files[0]["imported"] + files[1]["imported"] == N_FILES, files  # was up to 2 x N_FILES
