"""The SQLite writer's fast paths against the plain ones: the same rows, whatever the batch cuts.

Fast paths: multi-row statements padded to a few sizes with repeated rows (texts compiled already),
``bool`` / ``None`` bound through registered adapters, entry rows bound without a dict copy each.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from interop.catalog import recorder
from interop.catalog.database import open_catalog, sqlite_dump
from interop.catalog.pipeline import FileOutcome, RunConfig, process_file

from .samples import make_folder


def test_padded_sizes_are_few_and_close() -> None:
    sizes = set()
    for rows in range(1, 2185):  # a chunk never holds more rows than its limit
        size = recorder.padded_rows(rows, 2184)
        assert rows <= size <= 2184
        assert size <= max(16, rows * 9 // 8)
        sizes.add(size)
    assert len(sizes) < 16 + 8 * 8  # exact to 16, then 8 per doubling
    assert recorder.padded_rows(2100, 2100) == 2100  # never over the statement's limit


class _Fixed(dt.datetime):
    @classmethod
    def now(cls, tz: dt.tzinfo | None = None) -> _Fixed:
        return cls(2026, 1, 2, 3, 4, 5, tzinfo=tz)


def _record(url: str, outcomes: list[FileOutcome], cuts: list[int]) -> None:
    catalog = open_catalog(url)
    try:
        start = 0
        for end in [*cuts, len(outcomes)]:
            recorder.record_batch(catalog, outcomes[start:end])
            start = end
        # again, in other cuts and order: every row already there (conflict paths)
        recorder.record_batch(catalog, outcomes[::-1][: len(outcomes) // 2])
        recorder.record_batch(catalog, outcomes)
    finally:
        catalog.dispose()


def _dump(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    conn = sqlite3.connect(path)
    try:
        _, rows = sqlite_dump(conn)
        # typeof() too: an adapter binding another type would store the same value differently
        rows["types"] = conn.execute(
            "SELECT typeof(enabled), typeof(constant), typeof(insertion_order), typeof(name) FROM lorebook_entries"
        ).fetchall()
        rows["search"] = conn.execute("SELECT rowid FROM entry_fts WHERE entry_fts MATCH 'dragon OR night'").fetchall()
    finally:
        conn.close()
    return {k: v for k, v in rows.items() if not k.startswith("entry_fts")}


def test_fast_paths_store_what_the_plain_statements_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = RunConfig(targets=("ccv3", "lorebook_v3"), out_dir=tmp_path / "out", data_dir=tmp_path / "data")
    outcomes = [process_file(config, p) for p in make_folder(tmp_path / "in", 48)]
    assert any(o.item and o.item.any_book and o.item.any_book.entries for o in outcomes)
    monkeypatch.setattr(recorder, "datetime", _Fixed)
    _record(f"sqlite:///{tmp_path / 'fast.sqlite'}", outcomes, [17, 18, 37])

    # the plain way: every statement exactly its rows' size, bool and None bound without adapters
    monkeypatch.setattr(recorder, "padded_rows", lambda rows, most: rows)
    monkeypatch.setattr(recorder, "_ADAPTERS", lambda: None)
    for kind in (bool, type(None)):
        monkeypatch.delitem(sqlite3.adapters, (kind, sqlite3.PrepareProtocol), raising=False)
    _record(f"sqlite:///{tmp_path / 'plain.sqlite'}", outcomes, [17, 18, 37])

    fast, plain = _dump(tmp_path / "fast.sqlite"), _dump(tmp_path / "plain.sqlite")
    assert fast["lorebook_entries"] and fast["search"]
    assert fast == plain


def test_a_real_entry_conflict_still_fails_the_batch(tmp_path: Path) -> None:
    """Padding rows are skipped as conflicts; a real row never is (here: an orphan entry left at the
    id the next book gets, by a delete made without foreign keys)."""
    from interop.errors import CatalogError

    config = RunConfig(targets=("ccv3",), out_dir=tmp_path / "out", data_dir=tmp_path / "data")
    outcomes = [process_file(config, p) for p in make_folder(tmp_path / "in", 20)]
    url = f"sqlite:///{tmp_path / 'c.sqlite'}"
    open_catalog(url).dispose()
    conn = sqlite3.connect(tmp_path / "c.sqlite")
    conn.execute(
        "INSERT INTO lorebook_entries (lorebook_id, position, keys, secondary_keys, keys_text, content, enabled,"
        " constant, selective, use_regex, case_sensitive, content_hash) VALUES (1, 0, '[]', '[]', '', '', 1, 0, 0,"
        " 0, 0, 'x')"
    )
    conn.commit()
    conn.close()
    catalog = open_catalog(url)
    try:
        with pytest.raises(CatalogError, match=r"UNIQUE constraint failed: lorebook_entries\.lorebook_id"):
            recorder.record_batch(catalog, outcomes)
    finally:
        catalog.dispose()


def test_an_adapter_the_embedding_program_registered_is_left_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    """The driver's adapter registry is the whole process's: ours fill a gap, never replace another's."""

    def theirs(value: bool) -> str:
        return "yes" if value else "no"

    for kind in (bool, type(None)):
        monkeypatch.delitem(sqlite3.adapters, (kind, sqlite3.PrepareProtocol), raising=False)
    monkeypatch.setitem(sqlite3.adapters, (bool, sqlite3.PrepareProtocol), theirs)
    recorder._register_adapters()
    assert sqlite3.adapters[(bool, sqlite3.PrepareProtocol)] is theirs
    assert (type(None), sqlite3.PrepareProtocol) in sqlite3.adapters  # the gap is filled
