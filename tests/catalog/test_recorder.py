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


@pytest.mark.postgres
@pytest.mark.parametrize("background", [True, False])
def test_batches_are_reported_once_committed_with_refused_files_failed(
    tmp_path: Path, pg_url: str, background: bool
) -> None:
    """``migrate`` counts a file from ``on_committed``: by then a refused file is failed, not imported."""
    catalog = open_catalog(pg_url)
    config = RunConfig(targets=("ccv3",), out_dir=tmp_path / "out", data_dir=catalog.data_dir)
    outcomes = [process_file(config, p) for p in make_folder(tmp_path / "in", 5)]
    outcomes[1].format = "x" * 100  # wider than source_files.format: PostgreSQL refuses it
    seen: list[tuple[str, str]] = []
    recorder = BatchRecorder(
        catalog,
        max_files=2,
        max_seconds=60,
        background=background,
        on_committed=lambda batch: seen.extend((str(o.path), o.status) for o in batch),
    )
    for outcome in outcomes:
        recorder.add(outcome)
    recorder.flush()
    recorder.close()
    catalog.dispose()
    assert [path for path, _ in seen] == [str(o.path) for o in outcomes]
    assert [status for _, status in seen] == ["imported", "failed", "imported", "imported", "imported"]


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


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def any_url(request: pytest.FixtureRequest, sqlite_url: str) -> str:
    return sqlite_url if request.param == "sqlite" else request.getfixturevalue("pg_url")


def test_one_batch_stores_shared_content_once(tmp_path: Path, any_url: str) -> None:
    """Inside one batch (one statement per table), content that several files carry is one row,
    its entries and tags are written once, and every file keeps its provenance."""
    from sqlalchemy import func

    from interop.catalog.models import Card, CardSource, CardTag, Lorebook, LorebookEntry, LorebookSource, Migration

    from .samples import make_card, write_book, write_card

    card = make_card("Mira", book_entries=3, seed=5, tags=("fantasy", "bard"))
    assert card.data.character_book is not None
    src = tmp_path / "in"
    paths = [
        write_card(src / "mira.json", card),  # a card with its book
        write_card(src / "mira_compact.json", card, pretty=False),  # same card, other bytes
        write_book(src / "mira_book.json", card.data.character_book),  # the same book, standalone
    ]
    (src / "copy.json").write_bytes(paths[0].read_bytes())  # the same bytes again
    paths.append(src / "copy.json")
    catalog = open_catalog(any_url)
    config = RunConfig(targets=("ccv3", "lorebook_v3"), out_dir=tmp_path / "out", data_dir=catalog.data_dir)
    recorder = BatchRecorder(catalog, max_files=100, max_seconds=60)
    for path in paths:
        recorder.add(process_file(config, path))
    recorder.flush()
    recorder.close()
    with catalog.session() as s:

        def count(model: object) -> int:
            return s.scalar(select(func.count()).select_from(model)) or 0

        assert count(SourceFile) == 3  # copy.json is mira.json's bytes
        assert count(Card) == 1 and count(Lorebook) == 1
        assert count(LorebookEntry) == 3 and count(CardTag) == 2
        assert count(CardSource) == 2
        roles = sorted(r.role for r in s.scalars(select(LorebookSource)))
        assert roles == ["embedded", "embedded", "standalone"]
        assert count(Migration) == 3 * 2
    catalog.dispose()
