"""Byte-identical files in one run (issue 23 item 11): one is converted, nothing unrecorded stays on disk,
and a run killed (SIGKILL) at any point and started again ends in exactly the catalog and outputs of an
uninterrupted run."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from interop.catalog.migrate_run import split_copies

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "corpus"
TARGETS = "ccv3,sillytavern-world"

# Kills itself (SIGKILL: no cleanup of any kind) at the N-th call of one step of the run.
KILLING_MAIN = """
import os, signal
import interop.catalog.pipeline as pipeline
import interop.catalog.migrate_run as run
from interop.catalog.recorder import BatchRecorder

where, at = os.environ["KILL_WHERE"], int(os.environ["KILL_AT"])
calls = [0]

def count() -> None:
    calls[0] += 1
    if calls[0] == at:
        os.kill(os.getpid(), signal.SIGKILL)

if where == "process":  # before converting the N-th file
    real_process = run.process_file
    def process_file(config, path):
        count()
        return real_process(config, path)
    run.process_file = process_file
elif where == "write":  # right after an output is written, before it is recorded
    real_write = pipeline.write_output
    def write_output(path, data, *, inputs=()):
        real_write(path, data, inputs=inputs)
        count()
    pipeline.write_output = write_output
else:  # right after a batch is committed
    real_committed = BatchRecorder._committed
    def committed(self, batch):
        real_committed(self, batch)
        count()
    BatchRecorder._committed = committed
from interop.cli import main
main()
"""


def make_corpus(src: Path) -> None:
    """Copies whose titles come from the file name (SillyTavern worlds) or from the card, among unique files."""
    world = (CORPUS / "sillytavern" / "modern_world.json").read_bytes()
    card = (CORPUS / "cards" / "ilse_v3.json").read_bytes()
    (src / "nested").mkdir(parents=True)
    files = {
        "a_harbor.json": world,
        "b_legacy.json": (CORPUS / "sillytavern" / "legacy_world.json").read_bytes(),
        "c_harbor_copy.json": world,
        "d_ilse.json": card,
        "e_ilse_again.json": card,
        "f_old_tom.json": (CORPUS / "cards" / "old_tom_v1.json").read_bytes(),
        "nested/g_harbor_third.json": world,
    }
    for name, data in files.items():
        (src / name).write_bytes(data)


def migrate(src: Path, base: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    args = ["migrate", str(src), "--to", TARGETS, "--out", str(base / "out"), "--db", f"sqlite:///{base / 'c.db'}"]
    code = KILLING_MAIN if env else "from interop.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args, "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})},
    )


def snapshot(base: Path) -> dict[str, Any]:
    """The catalog rows (no ids, no timestamps) and every file under out/, paths relative to ``base``."""
    conn = sqlite3.connect(base / "c.db")
    try:
        rows = {
            "sources": conn.execute(
                "SELECT sha256, path, size, format, kind, status, error, warnings FROM source_files ORDER BY sha256"
            ).fetchall(),
            "migrations": conn.execute(
                "SELECT s.sha256, m.target, m.status, m.reason, m.output_path, m.output_sha256 "
                "FROM migrations m JOIN source_files s ON s.id = m.source_file_id ORDER BY s.sha256, m.target"
            ).fetchall(),
            "cards": conn.execute("SELECT content_hash, name FROM cards ORDER BY content_hash").fetchall(),
            "lorebooks": conn.execute(
                "SELECT content_hash, name, entry_count FROM lorebooks ORDER BY content_hash"
            ).fetchall(),
            "entries": conn.execute("SELECT count(*) FROM lorebook_entries").fetchall(),
            "reports": conn.execute("SELECT count(*) FROM fidelity_reports").fetchall(),
        }
    finally:
        conn.close()
    text = json.dumps(rows).replace(str(base), "<base>")
    outputs = {str(p.relative_to(base)): p.read_bytes() for p in sorted((base / "out").rglob("*")) if p.is_file()}
    return {"catalog": json.loads(text), "outputs": outputs}


def test_copies_are_split_off_in_input_order(tmp_path: Path) -> None:
    make_corpus(tmp_path)
    files = sorted(p for p in tmp_path.rglob("*.json"))
    keep, copies = split_copies(files)
    assert [p.name for p, _ in copies] == ["c_harbor_copy.json", "e_ilse_again.json", "g_harbor_third.json"]
    assert [p.name for p in keep] == ["a_harbor.json", "b_legacy.json", "d_ilse.json", "f_old_tom.json"]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("copies")
    src = root / "src"
    make_corpus(src)
    base = root / "whole"
    result = migrate(src, base)
    assert result.returncode == 0, result.stderr
    return src, snapshot(base)


def test_an_uninterrupted_run_leaves_no_unrecorded_output(uninterrupted: tuple[Path, dict[str, Any]]) -> None:
    _src, whole = uninterrupted
    recorded = {m[4].replace("<base>/", "") for m in whole["catalog"]["migrations"] if m[2] == "done"}
    assert set(whole["outputs"]) == recorded  # before: c_harbor_copy's output stayed on disk, never recorded
    assert len(whole["catalog"]["sources"]) == 4  # one source per content, the first path of each
    assert {Path(s[1]).name for s in whole["catalog"]["sources"]} == {
        "a_harbor.json",
        "b_legacy.json",
        "d_ilse.json",
        "f_old_tom.json",
    }


@pytest.mark.parametrize(
    ("where", "at"),
    [("process", n) for n in (1, 2, 3, 4)] + [("write", n) for n in (1, 2, 3, 5, 7)] + [("commit", 1)],
)
def test_a_killed_and_resumed_run_equals_an_uninterrupted_one(
    tmp_path: Path, uninterrupted: tuple[Path, dict[str, Any]], where: str, at: int
) -> None:
    src, whole = uninterrupted
    killed = migrate(src, tmp_path, {"KILL_WHERE": where, "KILL_AT": str(at)})
    assert killed.returncode == -9, f"the run was not killed at {where} #{at}: {killed.stderr[-500:]}"
    resumed = migrate(src, tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    again = snapshot(tmp_path)
    assert again["catalog"] == whole["catalog"]
    assert again["outputs"] == whole["outputs"]
    shutil.rmtree(tmp_path / "out")
