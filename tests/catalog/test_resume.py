"""A run killed with SIGKILL and started again completes without duplicates; two runs can share PostgreSQL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import create_engine, func, select, text

from interop.api import read
from interop.catalog.database import normalize_url, open_catalog
from interop.catalog.models import Card, Lorebook, LorebookEntry, Migration, SourceFile
from interop.catalog.records import sha256_hex

from .samples import make_folder

TARGETS = "ccv3,lorebook_v3"
N_FILES = 400


def start_migrate(src: Path, out: Path, url: str, *extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from interop.cli import main; main()",
            "migrate",
            str(src),
            "--to",
            TARGETS,
            "--out",
            str(out),
            "--db",
            url,
            "--json",
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def count_in_catalog(url: str, sql: str) -> int:
    """One integer from a catalog that a running migration writes to (0 while its schema does not exist yet)."""
    engine = create_engine(normalize_url(url))
    try:
        with engine.connect() as conn:
            return conn.execute(text(sql)).scalar() or 0
    except Exception:  # the schema may not exist yet
        return 0
    finally:
        engine.dispose()


def imported_so_far(url: str) -> int:
    return count_in_catalog(url, "SELECT count(*) FROM source_files")


def kill_after_some_files(proc: subprocess.Popen[bytes], url: str, at_least: int) -> int:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        done = imported_so_far(url)
        if done >= at_least:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            return done
        time.sleep(0.02)
    pytest.fail(f"the run ended (rc={proc.returncode}) before it could be killed: {proc.stderr and proc.stderr.read()}")


def assert_complete_and_unique(url: str, out: Path, n_files: int) -> None:
    catalog = open_catalog(url)
    with catalog.session() as s:
        assert s.scalar(select(func.count()).select_from(SourceFile)) == n_files
        assert s.scalar(select(func.count(func.distinct(SourceFile.sha256)))) == n_files
        assert s.scalar(select(func.count()).select_from(SourceFile).where(SourceFile.status != "imported")) == 0
        cards = s.scalar(select(func.count()).select_from(Card))
        assert cards == s.scalar(select(func.count(func.distinct(Card.content_hash))))
        books = s.scalar(select(func.count()).select_from(Lorebook))
        assert books == s.scalar(select(func.count(func.distinct(Lorebook.content_hash))))
        # every lorebook has exactly its entries: none missing, none twice
        for book in s.scalars(select(Lorebook)):
            positions = [e.position for e in book.entries]
            assert positions == list(range(book.entry_count))
        assert s.scalar(select(func.count()).select_from(LorebookEntry)) == sum(
            b.entry_count for b in s.scalars(select(Lorebook))
        )
        migrations = s.scalars(select(Migration)).all()
    catalog.dispose()
    assert len(migrations) == 2 * n_files
    assert {(m.source_file_id, m.target) for m in migrations}.__len__() == 2 * n_files
    outputs = set()
    for m in migrations:
        assert m.status in ("done", "skipped"), (m.status, m.reason)
        if m.status == "done":
            path = Path(m.output_path or "")
            data = path.read_bytes()
            assert sha256_hex(data) == m.output_sha256
            assert read(path).format == m.target
            outputs.add(path)
    finals = {p for p in out.rglob("*") if p.is_file() and not p.name.startswith(".")}
    assert finals == outputs  # no stray or duplicate outputs under final names


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def backend_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'catalog.sqlite'}"
    return request.getfixturevalue("pg_url")


def test_sigkill_mid_run_then_rerun_completes_without_duplicates(tmp_path: Path, backend_url: str) -> None:
    src, out = tmp_path / "in", tmp_path / "out"
    make_folder(src, N_FILES)
    proc = start_migrate(src, out, backend_url)
    killed_at = kill_after_some_files(proc, backend_url, at_least=40)
    assert proc.returncode == -signal.SIGKILL
    assert 40 <= killed_at < N_FILES

    rerun = start_migrate(src, out, backend_url)
    stdout, stderr = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, stderr.decode()
    summary = json.loads(stdout)
    assert summary["files"]["failed"] == 0
    assert summary["files"]["unchanged"] >= killed_at - 1  # at most the file in flight is redone
    assert summary["files"]["unchanged"] + summary["files"]["imported"] == N_FILES
    assert_complete_and_unique(backend_url, out, N_FILES)


@pytest.mark.postgres
def test_two_concurrent_runs_on_one_postgresql_catalog(tmp_path: Path, pg_url: str) -> None:
    src, out = tmp_path / "in", tmp_path / "out"
    make_folder(src, 200)
    first = start_migrate(src, out, pg_url)
    second = start_migrate(src, out, pg_url, "--jobs", "2")
    for proc in (first, second):
        stdout, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 0, stderr.decode()
        assert json.loads(stdout)["files"]["failed"] == 0
    assert_complete_and_unique(pg_url, out, 200)
