"""Writing one file's outcome into the catalog: one transaction, idempotent, safe under concurrency.

Every insert names its natural key and uses ``ON CONFLICT`` (SQLite and
PostgreSQL both have it): a row that another process, or an earlier killed
run, already wrote is reused instead of duplicated. A lorebook's entries and a
card's tags and assets are inserted only by the transaction that created the
lorebook or card, so they can never be half there: the other writer waits on
the unique index and then sees the committed row.
"""

from __future__ import annotations

import contextlib
import functools
import json
import time
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, bindparam, delete, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError

from ..errors import CatalogError
from .database import Catalog
from .models import (
    FATES,
    AssetBlob,
    Card,
    CardAsset,
    CardSource,
    CardTag,
    FidelityReport,
    Lorebook,
    LorebookEntry,
    LorebookSource,
    Migration,
    SourceFile,
)
from .pipeline import FileOutcome
from .records import BookRecord, CardRecord

_RETRIES = 5


class _Statements:
    """Every statement the recorder runs, built once per dialect.

    Building a Core statement costs far more than executing a cached one;
    prebuilt statements executed with parameter dicts keep the database share
    of a migration run small.
    """

    def __init__(self, dialect: str) -> None:
        insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
        self.insert_new: dict[str, Any] = {}
        self.select_id: dict[str, Any] = {}
        for model, key in ((Lorebook, "content_hash"), (Card, "content_hash"), (AssetBlob, "sha256")):
            table = model.__table__
            self.insert_new[table.name] = (
                insert(table).on_conflict_do_nothing(index_elements=[key]).returning(table.c.id)
            )
            self.select_id[table.name] = select(table.c.id).where(table.c[key] == bindparam("key"))
        self.link = {
            m.__table__.name: insert(m.__table__).on_conflict_do_nothing()
            for m in (CardAsset, CardSource, LorebookSource)
        }
        self.entries = LorebookEntry.__table__.insert()
        self.tags = CardTag.__table__.insert()

        source = SourceFile.__table__
        stmt = insert(source)
        # A file that failed before may read now (a newer adapter): the latest attempt wins.
        # A file already imported is never downgraded to failed by a flaky later attempt.
        self.source = stmt.on_conflict_do_update(
            index_elements=["sha256"],
            set_={k: stmt.excluded[k] for k in ("format", "platform", "kind", "status", "error", "warnings")},
            where=source.c.status != "imported",
        ).returning(source.c.id)
        self.source_id = select(source.c.id).where(source.c.sha256 == bindparam("key"))

        migration = Migration.__table__
        stmt = insert(migration)
        self.migration = stmt.on_conflict_do_update(
            index_elements=["source_file_id", "target"],
            set_={
                c.name: stmt.excluded[c.name] for c in migration.c if c.name not in ("id", "source_file_id", "target")
            },
        ).returning(migration.c.id, sort_by_parameter_order=True)

        report = FidelityReport.__table__
        stmt = insert(report)
        self.report = stmt.on_conflict_do_update(
            index_elements=["migration_id"],
            set_={k: stmt.excluded[k] for k in (*FATES, "has_losses", "report")},
        )
        self.drop_reports = delete(report).where(report.c.migration_id.in_(bindparam("ids", expanding=True)))


@functools.cache
def _statements(dialect: str) -> _Statements:
    return _Statements(dialect)


def _upsert_id(conn: Connection, model: Any, key: str, values: dict[str, Any]) -> tuple[int, bool]:
    """Insert unless the natural key exists; returns (id, inserted)."""
    st = _statements(conn.dialect.name)
    name = model.__tablename__
    new_id = conn.execute(st.insert_new[name], values).scalar()
    if new_id is not None:
        return new_id, True
    return conn.execute(st.select_id[name], {"key": values[key]}).scalar_one(), False


def _link(conn: Connection, model: Any, values: dict[str, Any]) -> None:
    conn.execute(_statements(conn.dialect.name).link[model.__tablename__], values)


def _book(conn: Connection, book: BookRecord) -> int:
    book_id, inserted = _upsert_id(
        conn,
        Lorebook,
        "content_hash",
        {
            "content_hash": book.content_hash,
            "name": book.name,
            "entry_count": len(book.entries),
            "canonical": book.canonical,
            "created_at": datetime.now(UTC),
        },
    )
    if inserted and book.entries:
        conn.execute(_statements(conn.dialect.name).entries, [{"lorebook_id": book_id, **e} for e in book.entries])
    return book_id


def _card(conn: Connection, card: CardRecord, book_id: int | None) -> int:
    card_id, inserted = _upsert_id(
        conn,
        Card,
        "content_hash",
        {
            "content_hash": card.content_hash,
            "name": card.name,
            "creator": card.creator,
            "spec": card.spec,
            "spec_version": card.spec_version,
            "canonical": card.canonical,
            "lorebook_id": book_id,
            "created_at": datetime.now(UTC),
        },
    )
    if inserted:
        if card.tags:
            conn.execute(_statements(conn.dialect.name).tags, [{"card_id": card_id, "tag": t} for t in card.tags])
        for asset in card.assets:
            asset_id, _ = _upsert_id(conn, AssetBlob, "sha256", {"sha256": asset.sha256, "size": asset.size})
            _link(
                conn,
                CardAsset,
                {
                    "card_id": card_id,
                    "role": asset.role,
                    "uri": asset.uri,
                    "asset_id": asset_id,
                    "type": asset.type,
                    "name": asset.name,
                    "ext": asset.ext,
                },
            )
    return card_id


def _source(conn: Connection, outcome: FileOutcome) -> int:
    values = {
        "sha256": outcome.sha256,
        "path": outcome.path,
        "size": outcome.size,
        "format": outcome.format,
        "platform": outcome.platform,
        "kind": outcome.kind,
        "status": outcome.status,
        "error": outcome.error,
        "warnings": json.dumps(outcome.warnings, ensure_ascii=False) if outcome.warnings else None,
        "imported_at": datetime.now(UTC),
    }
    st = _statements(conn.dialect.name)
    source_id = conn.execute(st.source, values).scalar()
    if source_id is None:
        source_id = conn.execute(st.source_id, {"key": outcome.sha256}).scalar_one()
    return source_id


def _migrations(
    conn: Connection, outcome: FileOutcome, source_id: int, card_id: int | None, book_id: int | None
) -> None:
    """All targets of the file in one multi-row upsert, then their reports in one more statement
    (on PostgreSQL every statement is a round trip)."""
    if not outcome.targets:
        return
    st = _statements(conn.dialect.name)
    now = datetime.now(UTC)
    rows = [
        {
            "source_file_id": source_id,
            "item_kind": outcome.kind or "card",
            "card_id": card_id,
            "lorebook_id": book_id,
            "target": t.target,
            "status": t.status,
            "reason": t.reason,
            "output_path": t.output_path,
            "output_sha256": t.output_sha256,
            "read_ms": outcome.read_ms,
            "convert_ms": t.convert_ms,
            "report_ms": t.report_ms,
            "finished_at": now,
        }
        for t in outcome.targets
    ]
    ids = conn.execute(st.migration, rows).scalars().all()
    reports = []
    without = []
    for t, migration_id in zip(outcome.targets, ids, strict=True):
        if t.counts is None or t.report_json is None:
            without.append(migration_id)
            continue
        reports.append(
            {
                "migration_id": migration_id,
                "has_losses": bool(t.has_losses),
                "report": t.report_json,
                **{f: int(t.counts.get(f, 0)) for f in FATES},
            }
        )
    if reports:
        conn.execute(st.report, reports)
    if without:
        conn.execute(st.drop_reports, {"ids": without})


def _record(conn: Connection, outcome: FileOutcome) -> None:
    source_id = _source(conn, outcome)
    if outcome.status != "imported" or outcome.item is None:
        return
    item = outcome.item
    card_id: int | None = None
    book_id: int | None = None
    if item.card is not None:
        if item.card.book is not None:
            book_id = _book(conn, item.card.book)
            _link(conn, LorebookSource, {"source_file_id": source_id, "lorebook_id": book_id, "role": "embedded"})
        card_id = _card(conn, item.card, book_id)
        _link(conn, CardSource, {"source_file_id": source_id, "card_id": card_id})
    elif item.book is not None:
        book_id = _book(conn, item.book)
        _link(conn, LorebookSource, {"source_file_id": source_id, "lorebook_id": book_id, "role": "standalone"})
    _migrations(conn, outcome, source_id, card_id, book_id)


def record_outcome(catalog: Catalog, outcome: FileOutcome) -> None:
    """Record one file in one transaction. Conflicts with a concurrent writer are retried.

    If the database refuses the data itself (a value it cannot store), the file is
    recorded as failed with that reason instead: one bad file never stops a run.
    """
    if outcome.sha256 is None or outcome.status not in ("imported", "failed"):
        return
    for attempt in range(_RETRIES):
        try:
            with catalog.engine.begin() as conn:
                _record(conn, outcome)
            return
        except (IntegrityError, OperationalError) as exc:
            # IntegrityError: a concurrent transaction won a race ON CONFLICT could not
            # absorb; OperationalError: a deadlock or a lock timeout. Both leave nothing
            # behind (rolled back), so retrying is safe.
            if attempt == _RETRIES - 1:
                raise CatalogError(f"cannot record {outcome.path}: {_first_line(exc)}") from None
            time.sleep(0.05 * (attempt + 1))
        except DBAPIError as exc:
            if outcome.status == "failed":
                raise CatalogError(f"cannot record {outcome.path}: {_first_line(exc)}") from None
            # Keep only what identifies the file; whatever the database refused goes.
            outcome.status = "failed"
            outcome.error = f"the catalog cannot store this file: {_first_line(exc)}"
            outcome.item, outcome.targets, outcome.warnings = None, [], []
            outcome.format = outcome.platform = outcome.kind = None


def _first_line(exc: DBAPIError) -> str:
    text = str(exc.orig).strip()
    return text.splitlines()[0] if text else type(exc.orig).__name__


class BatchRecorder:
    """Records outcomes several files per commit; falls back to one transaction per file on any error.

    A commit per file costs more than everything else the database does for
    that file (on SQLite: the WAL write). Grouping the files of a short span
    (``max_files`` or ``max_seconds``) into one transaction keeps every file
    all-or-nothing (a killed run loses the uncommitted batch as a whole and
    redoes those files when started again) while cutting that cost. When
    anything goes wrong inside a batch (a deadlock with another process, a value
    the database refuses), the batch is rolled back and replayed file by file
    with ``record_outcome``, so one bad file still only fails itself.
    """

    def __init__(self, catalog: Catalog, *, max_files: int = 64, max_seconds: float = 0.5) -> None:
        self.catalog = catalog
        self.max_files = max_files
        self.max_seconds = max_seconds
        self._conn: Connection | None = None
        self._pending: list[FileOutcome] = []
        self._started = 0.0

    def add(self, outcome: FileOutcome) -> None:
        if outcome.sha256 is None or outcome.status not in ("imported", "failed"):
            return
        if self._conn is None:
            self._conn = self.catalog.engine.connect()
            self._conn.begin()
            self._started = time.monotonic()
        try:
            _record(self._conn, outcome)
        except DBAPIError:
            self._replay([*self._pending, outcome])
            return
        self._pending.append(outcome)
        if len(self._pending) >= self.max_files or time.monotonic() - self._started >= self.max_seconds:
            self.flush()

    def flush(self) -> None:
        if self._conn is None:
            return
        try:
            self._conn.commit()
        except DBAPIError:
            self._replay(self._pending)
            return
        self._close()

    def _replay(self, outcomes: list[FileOutcome]) -> None:
        if self._conn is not None:
            with contextlib.suppress(DBAPIError):
                self._conn.rollback()
        self._close()
        for outcome in outcomes:
            record_outcome(self.catalog, outcome)

    def close(self) -> None:
        """Drop an uncommitted batch (after an error: those files are redone by the next run)."""
        if self._conn is not None:
            with contextlib.suppress(DBAPIError):
                self._conn.rollback()
        self._close()

    def _close(self) -> None:
        if self._conn is not None:
            self._conn.close()
        self._conn = None
        self._pending = []
