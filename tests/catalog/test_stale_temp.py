"""A resumed migrate removes the temporary files a run killed mid-write left beside its outputs, but only
old ones: a concurrent run's write in progress is never touched (interop/io.py remove_stale_temp_files)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from click.testing import CliRunner

from interop.cli import cli
from interop.io import STALE_TEMP_AGE_S, remove_stale_temp_files, write_atomic

from .samples import make_folder


def plant(folder: Path, name: str, age_s: float) -> Path:
    path = folder / name
    path.write_bytes(b'{"half": ')  # what a SIGKILL mid-write leaves
    then = time.time() - age_s
    os.utime(path, (then, then))
    return path


def test_resumed_migrate_removes_old_temp_files_and_keeps_fresh_ones(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    make_folder(src, 4)
    out = tmp_path / "out"
    folder = out / "ccv3"
    folder.mkdir(parents=True)
    old = plant(folder, ".hero-0123456789ab.json.k3j_x9a2.tmp", STALE_TEMP_AGE_S + 60)
    fresh = plant(folder, ".hero-0123456789ab.json.q8w2e4r6.tmp", 5)  # a concurrent run writing now
    other_old = plant(folder, "notes.tmp", STALE_TEMP_AGE_S * 10)  # not a name write_atomic makes
    db = f"sqlite:///{tmp_path / 'catalog.sqlite'}"
    result = CliRunner().invoke(cli, ["migrate", str(src), "--to", "ccv3", "--out", str(out), "--db", db])
    assert result.exit_code == 0, result.output
    assert not old.exists()
    assert fresh.exists() and other_old.exists()
    assert f"interop: removed 1 temporary file(s) an interrupted run left in {out}" in result.stderr
    assert any(not p.name.endswith(".tmp") for p in folder.iterdir())  # the run wrote its outputs as usual


def test_only_regular_files_named_like_write_atomic_temps_and_older_than_the_age(tmp_path: Path) -> None:
    written = write_atomic(tmp_path / "card.json", b"{}")  # a real write leaves no temp file of its own
    old = plant(tmp_path, ".card.json.abcdefgh.tmp", 7200)
    fresh = plant(tmp_path, ".card.json.ijklmnop.tmp", 60)
    target = plant(tmp_path, "victim", 7200)
    link = tmp_path / ".card.json.linklink.tmp"
    link.symlink_to(target)
    os.utime(link, (time.time() - 7200,) * 2, follow_symlinks=False)
    sub = tmp_path / ".dir.json.abcdefgh.tmp"
    sub.mkdir()
    os.utime(sub, (time.time() - 7200,) * 2)
    assert remove_stale_temp_files(tmp_path) == [old]
    assert written.exists() and fresh.exists() and target.exists() and link.is_symlink() and sub.is_dir()
    assert remove_stale_temp_files(tmp_path, older_than=30) == [fresh]
    assert remove_stale_temp_files(tmp_path / "missing") == []
