"""A run killed with SIGKILL and started again completes without duplicates; two runs can share PostgreSQL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from select import select as wait_readable

import pytest
from sqlalchemy import create_engine, func, select, text

from interop.api import read
from interop.catalog.database import normalize_url, open_catalog
from interop.catalog.models import Card, Lorebook, LorebookEntry, Migration, SourceFile
from interop.catalog.records import sha256_hex

from .samples import make_folder

TARGETS = "ccv3,lorebook_v3"
N_FILES = 400


# The killed run signals, from inside, once at least INTEROP_TEST_KILL_AFTER files are committed
# to the catalog, and then waits: the test kills it on that signal, never on a timer, so the
# kill always lands between two committed batches with the next one not yet handed over.
SIGNALLING_MAIN = """
import os, threading
from interop.catalog.recorder import BatchRecorder

fd, at_least = int(os.environ["INTEROP_TEST_SIGNAL_FD"]), int(os.environ["INTEROP_TEST_KILL_AFTER"])
committed = 0
committed_batch = BatchRecorder._committed

def signal_then_wait(self, batch):
    global committed
    committed_batch(self, batch)
    committed += len(batch)
    if committed >= at_least:
        os.write(fd, str(committed).encode())
        os.close(fd)
        threading.Event().wait()  # until the SIGKILL

BatchRecorder._committed = signal_then_wait
from interop.cli import main
main()
"""


def migrate_args(src: Path, out: Path, url: str, *extra: str) -> list[str]:
    return ["migrate", str(src), "--to", TARGETS, "--out", str(out), "--db", url, "--json", *extra]


def start_migrate(src: Path, out: Path, url: str, *extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", "from interop.cli import main; main()", *migrate_args(src, out, url, *extra)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def count_in_catalog(url: str, sql: str) -> int:
    """One integer from a catalog that a migration wrote to (0 while its schema does not exist yet)."""
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


def migrate_killed_after(src: Path, out: Path, url: str, at_least: int) -> tuple[subprocess.Popen[bytes], int]:
    """Run a migration, SIGKILL it once it signals ``at_least`` committed files; (process, files in catalog)."""
    read_end, write_end = os.pipe()
    env = {**os.environ, "INTEROP_TEST_SIGNAL_FD": str(write_end), "INTEROP_TEST_KILL_AFTER": str(at_least)}
    proc = subprocess.Popen(
        [sys.executable, "-c", SIGNALLING_MAIN, *migrate_args(src, out, url)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        pass_fds=(write_end,),
    )
    os.close(write_end)  # the child holds the only write end: EOF means it ended without signalling
    try:
        ready, _, _ = wait_readable([read_end], [], [], 300)
        signalled = os.read(read_end, 64) if ready else b""
    finally:
        os.close(read_end)
    if not signalled:
        proc.kill()
        _, stderr = proc.communicate()
        pytest.fail(f"the run ended (rc={proc.returncode}) without signalling: {stderr.decode()[-2000:]}")
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate()
    in_catalog = imported_so_far(url)
    assert in_catalog == int(signalled), "the catalog holds exactly the batches committed before the kill"
    return proc, in_catalog


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
    proc, killed_at = migrate_killed_after(src, out, backend_url, at_least=40)
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
