"""Batched recording: a file the database refuses fails alone; the rest of its batch is kept."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from interop.catalog.database import open_catalog
from interop.catalog.models import SourceFile
from interop.catalog.pipeline import FileOutcome, RunConfig, process_file
from interop.catalog.recorder import BatchRecorder

from .samples import make_folder


@pytest.mark.postgres
def test_a_refused_value_fails_only_its_file(tmp_path: Path, pg_url: str) -> None:
    catalog = open_catalog(pg_url)
    config = RunConfig(targets=("ccv3",), out_dir=tmp_path / "out", data_dir=catalog.data_dir)
    outcomes = [process_file(config, p) for p in make_folder(tmp_path / "in", 6)]
    outcomes[3].format = "x" * 100  # wider than source_files.format: PostgreSQL refuses it
    recorder = BatchRecorder(catalog, max_files=100, max_seconds=60)
    for outcome in outcomes:
        recorder.add(outcome)
    recorder.flush()
    with catalog.session() as s:
        rows = {r.path: (r.status, r.error) for r in s.scalars(select(SourceFile))}
    catalog.dispose()
    assert len(rows) == 6
    assert [p for p, (status, _) in rows.items() if status == "failed"] == [outcomes[3].path]
    assert "cannot store" in (rows[outcomes[3].path][1] or "")
    assert outcomes[3].status == "failed"


def test_an_uncommitted_batch_leaves_nothing_behind(tmp_path: Path, sqlite_url: str) -> None:
    catalog = open_catalog(sqlite_url)
    config = RunConfig(targets=("ccv3",), out_dir=tmp_path / "out", data_dir=catalog.data_dir)
    outcomes: list[FileOutcome] = [process_file(config, p) for p in make_folder(tmp_path / "in", 4)]
    recorder = BatchRecorder(catalog, max_files=3, max_seconds=60)
    for outcome in outcomes:
        recorder.add(outcome)
    recorder.close()  # as if the run died: the fourth file was never committed
    with catalog.session() as s:
        assert len(s.scalars(select(SourceFile)).all()) == 3
    catalog.dispose()
