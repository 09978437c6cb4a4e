"""Writing files' outcomes into the catalog: a batch per transaction, idempotent, safe under concurrency.

A batch of files is written with a fixed number of statements whatever its
size: one multi-row insert per table (``insertmanyvalues``: one ``INSERT ...
VALUES (...), (...)`` per page of rows), statements built once per dialect.
On PostgreSQL every statement is a network round trip, so statements per
file, not rows, were what cost.

Every insert names its natural key and uses ``ON CONFLICT`` (SQLite and
PostgreSQL both have it): a row that another process, or an earlier killed
run, already wrote is reused instead of duplicated. A lorebook's entries and a
card's tags, and the assets of the file that creates a card, are inserted only by
the transaction that created the lorebook or card, so they can never be half
there: the other writer waits on the unique index and then sees the committed
row. A later file with the same card only adds the asset uses (card, role, URI)
the card lacks (``_record_cards``). Rows are inserted in
natural-key order, so two writers meeting on the same keys take their locks
in the same order (no deadlock cycle between them).
"""

from __future__ import annotations

import contextlib
import functools
import json
import operator
import sqlite3
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import UTC, datetime
from itertools import chain, repeat
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import CatalogError
from ..jsonio import escape_lone_surrogates
from ..mappings import FATES
from .database import Catalog
from .pipeline import FileOutcome, TargetOutcome
from .records import AssetRecord, BookRecord, CardRecord, ChatRecord
from .report_parts import split_report
from .tables import COLUMNS

if TYPE_CHECKING:
    from sqlalchemy import Connection

# SQLAlchemy is imported where a catalog goes through its engine (PostgreSQL, a SQLite URL other than
# a plain file): a run on a SQLite file writes through ``Catalog.sqlite``, the driver connection, and
# importing SQLAlchemy cost more than a third of a one-file ``interop migrate`` (issue 19).

_RETRIES = 5
BatchHook = Callable[["Connection"], None]
"""Extra work done in a batch's transaction (the distributed runs record their progress there)."""


_LINKS = ("card_assets", "card_sources", "lorebook_sources", "chat_sources")
_SOURCE_UPDATE = ("format", "platform", "kind", "status", "error", "warnings")
_REPORT_UPDATE = (*FATES, "has_losses", "report", "part_id", "part_at")
_KEYED = {
    "lorebooks": "content_hash",
    "cards": "content_hash",
    "assets": "sha256",
    "chats": "content_hash",
    "report_parts": "sha256",
}


class _Values(NamedTuple):
    """A multi-row ``INSERT ... VALUES (...), (...) <tail>`` for SQLite, texts made per row count.

    Rows are padded to one of a few counts (``padded_rows``) by repeating the last row, so a
    batch's statement text is one the driver has compiled already (its statement cache):
    compiling a multi-row ``VALUES`` costs ~2 us a row (a sub-select each), more than inserting
    the row. Every ``tail`` makes a repeated row a no-op: it conflicts with the row just written,
    and ``DO NOTHING`` skips it, ``DO UPDATE`` sets the values it already has (and ``RETURNING``
    gives that row again, which the callers' dicts absorb); no id is spent on it.
    """

    head: str
    tail: str
    cols: tuple[str, ...]
    row: Callable[[dict[str, Any]], tuple[Any, ...]]
    """A row dict's values in ``cols`` order (``operator.itemgetter``: no Python loop per value)."""

    def text(self, rows: int) -> str:
        # Only small texts are cached: one per row count, and a big batch's runs to ~1 MB (the
        # parameter limit), so 256 of them held hundreds of MB; building one costs microseconds.
        if rows * len(self.cols) <= _CACHED_VARS:
            return _values_text(self, rows)
        return _build_values_text(self, rows)


_CACHED_VARS = 4096
"""Largest statement (in bound values, ~3 characters each) whose text is cached: 256 of them stay under ~4 MB."""


def padded_rows(rows: int, most: int) -> int:
    """``rows`` rounded up to a statement size: exact up to 16, then to an eighth of its power of
    two (at most 12.5 % padding, 8 sizes per doubling), never over ``most`` (>= ``rows``)."""
    if rows <= 16:
        return rows
    step = 1 << (rows.bit_length() - 4)
    return min(-(-rows // step) * step, most)


@functools.lru_cache(maxsize=256)
def _values_text(sql: _Values, rows: int) -> str:
    return _build_values_text(sql, rows)


def _build_values_text(sql: _Values, rows: int) -> str:
    marks = "(" + ", ".join("?" * len(sql.cols)) + ")"
    return sql.head + ", ".join([marks] * rows) + sql.tail


def _register_adapters() -> None:
    """Bind ``bool`` and ``None`` through the driver's adapter registry, to what it binds anyway
    (an integer, NULL). Without an entry there, the driver looks for an adapter on its protocol
    class for every such value, and the ``AttributeError`` it builds and drops each time cost
    ~0.3 us a value: a typical file binds ~40 of them (entry flags, empty columns). The registry is the
    whole process's: an adapter the embedding program registered for either type is left in place
    (ours would change what its own statements bind)."""
    for kind, adapt in ((bool, int), (type(None), _NULL)):
        if (kind, sqlite3.PrepareProtocol) not in sqlite3.adapters:
            sqlite3.register_adapter(kind, adapt)


_NULL: Callable[[None], None] = {}.get
"""None for None, a C call (a Python function would cost more than the lookup it saves)."""


@functools.cache
def _sqlite_sql() -> dict[str, Any]:
    """The recorder's SQL for SQLite, run on the driver's own connection (inside the SQLAlchemy
    connection's transaction). SQLAlchemy's per-row parameter processing (and its statement
    machinery) cost the writer thread more than SQLite's own work on the rows did.

    Inserts that need ids: multi-row ``VALUES`` with ``RETURNING`` (``_Values``); the rest:
    ``executemany`` of one prepared statement, rows bound in C: (statement, columns).
    """

    def cols_of(name: str) -> tuple[str, ...]:
        return COLUMNS[name]

    def values(name: str, tail: str) -> _Values:
        cols = cols_of(name)
        return _Values(f"INSERT INTO {name} ({', '.join(cols)}) VALUES ", " " + tail, cols, _getter(cols))

    def insert(name: str, tail: str = "") -> tuple[str, Callable[[dict[str, Any]], tuple[Any, ...]]]:
        cols = cols_of(name)
        marks = ", ".join("?" * len(cols))
        return f"INSERT INTO {name} ({', '.join(cols)}) VALUES ({marks}){tail}", _getter(cols)

    sql: dict[str, Any] = {}
    for name, key in _KEYED.items():
        sql[f"new:{name}"] = values(name, f"ON CONFLICT ({key}) DO NOTHING RETURNING id, {key}")
        sql[f"ids:{name}"] = f"SELECT id, {key} FROM {name} WHERE {key} IN "
    sql["ids:source_files"] = "SELECT id, sha256 FROM source_files WHERE sha256 IN "
    sets = ", ".join(f"{c} = excluded.{c}" for c in _SOURCE_UPDATE)
    sql["source_files"] = values(
        "source_files",
        f"ON CONFLICT (sha256) DO UPDATE SET {sets} WHERE source_files.status != 'imported' RETURNING id, sha256",
    )
    update = [c for c in cols_of("migrations") if c not in ("source_file_id", "target")]
    sets = ", ".join(f"{c} = excluded.{c}" for c in update)
    sql["migrations"] = values(
        "migrations",
        f"ON CONFLICT (source_file_id, target) DO UPDATE SET {sets} RETURNING id, source_file_id, target",
    )
    # Entries: one statement per batch, not per row. The search index's trigger (FTS5) writes its
    # pending terms out at the end of every statement: a segment per entry, and the merging of
    # those, cost ~3x the whole index update done once per batch.
    # (DO NOTHING is there for the padding rows: any other row skipped fails the statement, see
    # ``_returning_tuples``.)
    sql["insert:lorebook_entries"] = values("lorebook_entries", "ON CONFLICT DO NOTHING")
    # The rest: ``executemany`` of one statement, compiled once per connection. (A multi-row text
    # costs ~2 us a row to compile: more than the rows' whole insert when a run is one batch.)
    sql["insert:card_tags"] = insert("card_tags")
    for name in _LINKS:
        sql[f"ignore:{name}"] = insert(name, " ON CONFLICT DO NOTHING")
    sets = ", ".join(f"{c} = excluded.{c}" for c in _REPORT_UPDATE)
    sql["fidelity_reports"] = insert("fidelity_reports", f" ON CONFLICT (migration_id) DO UPDATE SET {sets}")
    return sql


def _getter(cols: tuple[str, ...]) -> Callable[[dict[str, Any]], tuple[Any, ...]]:
    get = operator.itemgetter(*cols)
    return get if len(cols) > 1 else lambda row: (get(row),)


def sqlite_stamp(moment: datetime) -> str:
    """How SQLAlchemy stores a DateTime in SQLite (text, the zone dropped): the raw statements bind
    the same (tests/catalog/test_recorder_fast.py compares it with SQLAlchemy's own)."""
    return (
        f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d} "
        f"{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}.{moment.microsecond:06d}"
    )


_ADAPTERS = functools.cache(_register_adapters)


@functools.cache
def _entry_getter() -> Callable[[dict[str, Any]], tuple[Any, ...]]:
    """An entry row's values (``records.entry_row``) in ``lorebook_entries`` column order, less the
    first, ``lorebook_id``: the recorder puts the book's id in front (no dict copied per entry)."""
    cols = _sqlite_sql()["insert:lorebook_entries"].cols
    assert cols[0] == "lorebook_id"
    return operator.itemgetter(*cols[1:])


class _SqliteOps:
    def __init__(self, conn: Connection | sqlite3.Connection) -> None:
        _ADAPTERS()
        # a SQLAlchemy connection: its driver connection, errors raised as SQLAlchemy's; a driver
        # connection (``Catalog.sqlite``): the driver's own errors (``_in_transaction`` expects those)
        self.wrap = not isinstance(conn, sqlite3.Connection)
        self.dbapi = conn.connection.driver_connection if self.wrap else conn  # type: ignore[union-attr]
        self.sql = _sqlite_sql()
        # rows per multi-row statement: as many as the build's bound-parameter limit allows
        self.max_vars = self.dbapi.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)

    def stamp(self, now: datetime) -> Any:
        return sqlite_stamp(now)

    def _fail(self, sql: str, exc: sqlite3.Error) -> Exception:
        if not self.wrap:
            return exc
        from sqlalchemy.exc import DBAPIError

        # Seen by the callers as SQLAlchemy's own errors (conflicts retried, refused values isolated).
        return DBAPIError.instance(sql, None, exc, sqlite3.Error)

    def _returning(self, name: str, rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
        """``rows`` in as few multi-row statements as the parameter limit allows; what they return."""
        values: _Values = self.sql[name]
        return self._returning_tuples(name, list(map(values.row, rows)))

    def _returning_tuples(
        self, name: str, rows: list[tuple[Any, ...]], *, all_new: str | None = None
    ) -> list[tuple[Any, ...]]:
        """``_returning`` for rows already in column order. ``all_new``: every row must be inserted,
        and a row skipped as a conflict is that unique constraint failing, as it did unpadded."""
        values: _Values = self.sql[name]
        width = len(values.cols)
        step = max(1, self.max_vars // width)
        out: list[tuple[Any, ...]] = []
        for i in range(0, len(rows), step):
            chunk = rows[i : i + step]
            size = padded_rows(len(chunk), step)
            sql = values.text(size)
            params = list(chain.from_iterable(chunk))
            if size > len(chunk):
                params += chunk[-1] * (size - len(chunk))  # see _Values: a no-op row
            try:
                cursor = self.dbapi.execute(sql, params)
                out += cursor.fetchall()
                if all_new is not None and cursor.rowcount != len(chunk):
                    raise sqlite3.IntegrityError(f"UNIQUE constraint failed: {all_new}")
            except sqlite3.Error as exc:
                raise self._fail(sql, exc) from exc
        return out

    def insert_entries(self, books: list[tuple[int, list[dict[str, Any]]]]) -> None:
        """The entries of each (lorebook id, entry rows), in that order; the rows lack ``lorebook_id``."""
        get = _entry_getter()
        self._returning_tuples(
            "insert:lorebook_entries",
            [(book_id, *get(e)) for book_id, rows in books for e in rows],
            all_new="lorebook_entries.lorebook_id, lorebook_entries.position",
        )

    def insert(self, table: str, rows: list[dict[str, Any]]) -> None:
        self._executemany(f"insert:{table}", rows)

    def _executemany(self, name: str, rows: list[dict[str, Any]]) -> None:
        sql, row = self.sql[name]
        try:
            self.dbapi.executemany(sql, map(row, rows))
        except sqlite3.Error as exc:
            raise self._fail(sql, exc) from exc

    def upsert_sources(self, rows: list[dict[str, Any]]) -> list[tuple[int, str]]:
        return self._returning("source_files", rows)  # type: ignore[return-value]

    def insert_new(self, table: str, rows: list[dict[str, Any]]) -> list[tuple[int, str]]:
        return self._returning(f"new:{table}", rows)  # type: ignore[return-value]

    def select_ids(self, table: str, keys: list[str]) -> list[tuple[int, str]]:
        out: list[tuple[int, str]] = []
        for i in range(0, len(keys), self.max_vars):
            chunk = keys[i : i + self.max_vars]
            sql = self.sql[f"ids:{table}"] + "(" + ", ".join("?" * len(chunk)) + ")"
            try:
                out += self.dbapi.execute(sql, chunk).fetchall()
            except sqlite3.Error as exc:
                raise self._fail(sql, exc) from exc
        return out

    def insert_ignore(self, table: str, rows: list[dict[str, Any]]) -> None:
        self._executemany(f"ignore:{table}", rows)

    def select_uses(self, card_ids: list[int]) -> list[tuple[int, str, str]]:
        """The (card, role, URI) keys ``card_assets`` holds for ``card_ids``."""
        out: list[tuple[int, str, str]] = []
        for i in range(0, len(card_ids), self.max_vars):
            chunk = card_ids[i : i + self.max_vars]
            sql = "SELECT card_id, role, uri FROM card_assets WHERE card_id IN (" + ", ".join("?" * len(chunk)) + ")"
            try:
                out += self.dbapi.execute(sql, chunk).fetchall()
            except sqlite3.Error as exc:
                raise self._fail(sql, exc) from exc
        return out

    def upsert_migrations(self, rows: list[dict[str, Any]]) -> list[tuple[int, int, str]]:
        return self._returning("migrations", rows)  # type: ignore[return-value]

    def upsert_reports(self, rows: list[dict[str, Any]]) -> None:
        self._executemany("fidelity_reports", rows)

    def drop_reports(self, ids: list[int]) -> None:
        for i in range(0, len(ids), self.max_vars):
            chunk = ids[i : i + self.max_vars]
            sql = "DELETE FROM fidelity_reports WHERE migration_id IN (" + ", ".join("?" * len(chunk)) + ")"
            try:
                self.dbapi.execute(sql, chunk)
            except sqlite3.Error as exc:
                raise self._fail(sql, exc) from exc


class _PgStatements:
    """The recorder's SQL for PostgreSQL: one statement per table and batch, whatever the row count.

    ``INSERT ... SELECT * FROM unnest(%s::type[], ...)`` takes one array per
    column, so the statement text never changes: psycopg parses it once and
    prepares it on the server after a few executions, and a batch of any
    size is one round trip per table. (Multi-row VALUES would send a new,
    longer text each time, which psycopg re-parses placeholder by placeholder:
    that cost more than the inserts.) Strings are cast to ``text[]``, not to
    the column's ``varchar(n)``: an explicit cast truncates silently, an
    assignment refuses an over-long value.
    """

    def __init__(self) -> None:
        from sqlalchemy import String
        from sqlalchemy.dialects import postgresql  # SQLite catalogs never pay for importing the dialect

        from .models import Base  # nor for the ORM (``tables.COLUMNS`` is all the SQLite path needs)

        pg = postgresql.dialect()

        def array_type(column: Any) -> str:
            if isinstance(column.type, String):
                return "text[]"
            return column.type.compile(dialect=pg).lower() + "[]"

        def insert(name: str) -> tuple[str, tuple[str, ...]]:
            table = Base.metadata.tables[name]
            cols = tuple(c.name for c in table.c if c.name != "id")  # ids come from the sequences
            casts = ", ".join(f"%b::{array_type(table.c[c])}" for c in cols)
            return f"INSERT INTO {name} ({', '.join(cols)}) SELECT * FROM unnest({casts})", cols

        self.sql: dict[str, tuple[str, tuple[str, ...]]] = {}
        for name, key in _KEYED.items():
            sql, cols = insert(name)
            self.sql[f"new:{name}"] = (f"{sql} ON CONFLICT ({key}) DO NOTHING RETURNING id, {key}", cols)
            self.sql[f"ids:{name}"] = (f"SELECT id, {key} FROM {name} WHERE {key} = ANY(%b::text[])", ())
        self.sql["ids:source_files"] = ("SELECT id, sha256 FROM source_files WHERE sha256 = ANY(%b::text[])", ())
        for name in ("lorebook_entries", "card_tags"):
            self.sql[f"insert:{name}"] = insert(name)
        assert self.sql["insert:lorebook_entries"][1][0] == "lorebook_id"  # insert_entries puts it first
        for name in _LINKS:
            sql, cols = insert(name)
            self.sql[f"ignore:{name}"] = (f"{sql} ON CONFLICT DO NOTHING", cols)
        sql, cols = insert("source_files")
        sets = ", ".join(f"{c} = EXCLUDED.{c}" for c in _SOURCE_UPDATE)
        self.sql["source_files"] = (
            f"{sql} ON CONFLICT (sha256) DO UPDATE SET {sets} WHERE source_files.status <> 'imported' "
            "RETURNING id, sha256",
            cols,
        )
        sql, cols = insert("migrations")
        sets = ", ".join(f"{c} = EXCLUDED.{c}" for c in cols if c not in ("source_file_id", "target"))
        self.sql["migrations"] = (
            f"{sql} ON CONFLICT (source_file_id, target) DO UPDATE SET {sets} RETURNING id, source_file_id, target",
            cols,
        )
        sql, cols = insert("fidelity_reports")
        sets = ", ".join(f"{c} = EXCLUDED.{c}" for c in _REPORT_UPDATE)
        self.sql["fidelity_reports"] = (f"{sql} ON CONFLICT (migration_id) DO UPDATE SET {sets}", cols)


@functools.cache
def _pg_statements() -> _PgStatements:
    return _PgStatements()


class _PgOps:
    def __init__(self, conn: Connection) -> None:
        import psycopg  # only PostgreSQL catalogs pay for importing the driver

        self.error = psycopg.Error
        # The driver's own cursor, inside the SQLAlchemy connection's transaction.
        self.cursor = conn.connection.driver_connection.cursor()
        self.sql = _pg_statements().sql

    def stamp(self, now: datetime) -> Any:
        return now

    def _execute(self, sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
        try:
            self.cursor.execute(sql, params)
            return self.cursor.fetchall() if self.cursor.description is not None else []
        except self.error as exc:
            # Seen by the callers as SQLAlchemy's own errors (deadlocks retried, refused values isolated).
            from sqlalchemy.exc import DBAPIError

            raise DBAPIError.instance(sql, None, exc, self.error) from exc

    def _run(self, name: str, rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
        sql, cols = self.sql[name]
        # one array per column, gathered in C (``itemgetter``), not by a comprehension per value
        return self._execute(sql, [list(map(operator.itemgetter(c), rows)) for c in cols])

    def upsert_sources(self, rows: list[dict[str, Any]]) -> list[tuple[int, str]]:
        return self._run("source_files", rows)

    def insert_new(self, table: str, rows: list[dict[str, Any]]) -> list[tuple[int, str]]:
        return self._run(f"new:{table}", rows)

    def select_ids(self, table: str, keys: list[str]) -> list[tuple[int, str]]:
        return self._execute(self.sql[f"ids:{table}"][0], [keys])

    def insert(self, table: str, rows: list[dict[str, Any]]) -> None:
        self._run(f"insert:{table}", rows)

    def insert_entries(self, books: list[tuple[int, list[dict[str, Any]]]]) -> None:
        sql, cols = self.sql["insert:lorebook_entries"]
        ids = list(chain.from_iterable(repeat(book_id, len(rows)) for book_id, rows in books))
        entries = list(chain.from_iterable(rows for _, rows in books))
        self._execute(sql, [ids, *(list(map(operator.itemgetter(c), entries)) for c in cols[1:])])

    def insert_ignore(self, table: str, rows: list[dict[str, Any]]) -> None:
        self._run(f"ignore:{table}", rows)

    def select_uses(self, card_ids: list[int]) -> list[tuple[int, str, str]]:
        sql = "SELECT card_id, role, uri FROM card_assets WHERE card_id = ANY(%b::integer[])"
        return self._execute(sql, [card_ids])

    def upsert_migrations(self, rows: list[dict[str, Any]]) -> list[tuple[int, int, str]]:
        return self._run("migrations", rows)

    def upsert_reports(self, rows: list[dict[str, Any]]) -> None:
        self._run("fidelity_reports", rows)

    def drop_reports(self, ids: list[int]) -> None:
        self._execute("DELETE FROM fidelity_reports WHERE migration_id = ANY(%b::integer[])", [ids])


_Ops = _SqliteOps | _PgOps


def _ops(conn: Connection | sqlite3.Connection) -> _Ops:
    if isinstance(conn, sqlite3.Connection):
        return _SqliteOps(conn)
    return _PgOps(conn) if conn.dialect.name == "postgresql" else _SqliteOps(conn)


def _ids(ops: _Ops, table: str, rows: list[dict[str, Any]]) -> tuple[dict[str, int], set[str]]:
    """Insert the rows whose natural key is new; returns (key -> id for every row, keys inserted here)."""
    key = _KEYED[table]
    ids: dict[str, int] = {}
    if not rows:
        return ids, set()
    rows.sort(key=lambda r: r[key])
    ids.update((value, row_id) for row_id, value in ops.insert_new(table, rows))
    inserted = set(ids)
    missing = [r[key] for r in rows if r[key] not in ids]
    if missing:
        ids.update((value, row_id) for row_id, value in ops.select_ids(table, missing))
    return ids, inserted


def storable(text: str | None) -> str | None:
    """``text`` as the database can store it: a file name that is not UTF-8 holds lone surrogates
    (Python's ``surrogateescape``), which no driver can encode; written ``\\udcXX`` instead, so one
    such file is recorded like any other instead of failing the whole run."""
    if text is None or text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def _source_rows(outcomes: Iterable[FileOutcome], now: Any) -> list[dict[str, Any]]:
    return [
        {
            "sha256": o.sha256,
            "path": storable(o.path),
            "size": o.size,
            "format": o.format,
            "platform": o.platform,
            "kind": o.kind,
            "status": o.status,
            "error": storable(o.error),
            "warnings": escape_lone_surrogates(json.dumps(o.warnings, ensure_ascii=False)) if o.warnings else None,
            "imported_at": now,
        }
        for o in outcomes
    ]


def _book_row(book: BookRecord, now: Any) -> dict[str, Any]:
    return {
        "content_hash": book.content_hash,
        "name": book.name,
        "entry_count": len(book.entries),
        "canonical": book.canonical,
        "created_at": now,
    }


def _card_row(card: CardRecord, book_id: int | None, now: Any) -> dict[str, Any]:
    return {
        "content_hash": card.content_hash,
        "name": card.name,
        "creator": card.creator,
        "spec": card.spec,
        "spec_version": card.spec_version,
        "canonical": card.canonical,
        "lorebook_id": book_id,
        "created_at": now,
    }


def _unique_by_sha(outcomes: Iterable[FileOutcome]) -> list[FileOutcome]:
    """One outcome per content (the same bytes found twice are one source file); an import beats a failure.

    In input order (the place of the content's first file): when several files carry one card,
    book or chat, the first of them supplies its row (a card's picture and assets), as it does
    across batches, so where a batch is cut never changes the catalog."""
    chosen: dict[str, FileOutcome] = {}
    for o in outcomes:
        if o.sha256 is None or o.status not in ("imported", "failed"):
            continue
        prev = chosen.get(o.sha256)
        if prev is None or (prev.status != "imported" and o.status == "imported"):
            chosen[o.sha256] = o  # a replaced failure keeps its place in the dict
    return list(chosen.values())


def write_batch(conn: Connection | sqlite3.Connection, outcomes: Iterable[FileOutcome]) -> None:
    """Record every file of ``outcomes`` inside the caller's transaction, a fixed number of statements in all."""
    files = _unique_by_sha(outcomes)
    if not files:
        return
    ops = _ops(conn)
    now = ops.stamp(datetime.now(UTC))  # one timestamp for the batch, converted once
    source_ids = _record_sources(ops, files, now)
    imported = [o for o in files if o.status == "imported" and o.item is not None]
    book_ids = _record_books(ops, imported, now)
    card_ids = _record_cards(ops, imported, book_ids, now)
    _record_chats(ops, imported, source_ids, book_ids, now)
    _record_links(ops, imported, source_ids, card_ids, book_ids, now)


def _record_sources(ops: _Ops, files: list[FileOutcome], now: Any) -> dict[str, int]:
    """Source file rows (inserted or updated): sha256 -> id."""
    # in natural-key order (the lock order, see the module docstring), not the batch's input order
    rows = _source_rows(sorted(files, key=lambda o: o.sha256 or ""), now)
    source_ids = {sha: row_id for row_id, sha in ops.upsert_sources(rows)}
    missing = [o.sha256 or "" for o in files if o.sha256 not in source_ids]
    for o in files:  # assigned on every attempt: a retried transaction starts over
        o.recorded_before = o.status == "imported" and o.sha256 not in source_ids
    if missing:
        source_ids.update((sha, row_id) for row_id, sha in ops.select_ids("source_files", missing))
    return source_ids


def _record_books(ops: _Ops, imported: list[FileOutcome], now: Any) -> dict[str, int]:
    """Lorebooks (standalone and embedded), then the entries of those created here: content hash -> id."""
    books: dict[str, BookRecord] = {}
    for o in imported:
        book = o.item.any_book if o.item else None
        if book is not None:
            books.setdefault(book.content_hash, book)
        for c in o.item.chats if o.item else ():  # the own books of a file's other chats
            if c.book is not None:
                books.setdefault(c.book.content_hash, c.book)
    book_ids, new_books = _ids(ops, "lorebooks", [_book_row(b, now) for b in books.values()])
    entries = [(book_ids[h], books[h].entries) for h in sorted(new_books) if books[h].entries]
    if entries:
        ops.insert_entries(entries)
    return book_ids


def _record_cards(ops: _Ops, imported: list[FileOutcome], book_ids: dict[str, int], now: Any) -> dict[str, int]:
    """Cards, the tags of those created here, and the assets each file brings: content hash -> id.

    Files carrying one card (equal content hash) can differ in the picture and in which of the
    card's declared assets they embed. Every use of a blob is keyed (card, role, URI) and the first
    file in input order that has one supplies it: the first file's picture and assets, plus the
    assets only later files embed (``v3_apng.png`` declares ``__asset:0`` without its bytes,
    ``v3_assets.png`` holds them). Batches are written in input order, so where one is cut never
    changes the result.
    """
    cards: dict[str, CardRecord] = {}
    later: list[CardRecord] = []  # the other files' copies of a card met in this batch, in input order
    for o in imported:
        card = o.item.card if o.item is not None else None
        if card is not None and cards.setdefault(card.content_hash, card) is not card:
            later.append(card)
    card_ids, new_cards = _ids(
        ops, "cards", [_card_row(c, book_ids[c.book.content_hash] if c.book else None, now) for c in cards.values()]
    )
    created = [cards[h] for h in sorted(new_cards)]
    tag_rows = [{"card_id": card_ids[c.content_hash], "tag": t} for c in created for t in c.tags]
    if tag_rows:
        ops.insert("card_tags", tag_rows)
    # first files before later ones: every key goes to the first file in input order that has it
    uses: dict[tuple[int, str, str], AssetRecord] = {}
    for c in chain(cards.values(), later):
        card_id = card_ids[c.content_hash]
        for a in {(a.role, a.uri): a for a in c.assets}.values():
            uses.setdefault((card_id, a.role, a.uri), a)
    known = [card_ids[h] for h in cards if h not in new_cards]
    if known and uses:
        # cards recorded by an earlier batch (or run) keep the uses they have; only new keys are
        # added (a fresh run of distinct cards never gets here: no extra statement)
        had = set(ops.select_uses(sorted(known)))
        uses = {k: a for k, a in uses.items() if k not in had}
    blobs = {a.sha256: {"sha256": a.sha256, "size": a.size} for a in uses.values()}
    blob_ids, _ = _ids(ops, "assets", list(blobs.values()))
    asset_rows = [
        {
            "card_id": key[0],
            "role": a.role,
            "uri": a.uri,
            "asset_id": blob_ids[a.sha256],
            "type": a.type,
            "name": a.name,
            "ext": a.ext,
        }
        for key, a in sorted(uses.items(), key=operator.itemgetter(0))
    ]
    if asset_rows:
        ops.insert_ignore("card_assets", asset_rows)
    return card_ids


def _record_chats(
    ops: _Ops, imported: list[FileOutcome], source_ids: dict[str, int], book_ids: dict[str, int], now: Any
) -> None:
    """Every chat of every file and its provenance link with the chat's index in the file (the
    chats' own books are recorded with the other books; those besides the file's main book are
    linked here, role ``chat``)."""
    rows: dict[str, dict[str, Any]] = {}
    for o in imported:
        for c in o.item.chats if o.item else ():
            row = {k: getattr(c.chat, k) for k in ChatRecord.__dataclass_fields__}
            book_id = book_ids[c.book.content_hash] if c.book else None
            rows.setdefault(c.chat.content_hash, {**row, "lorebook_id": book_id})["created_at"] = now
    if not rows:
        return
    chat_ids, _ = _ids(ops, "chats", list(rows.values()))
    links: dict[tuple[int, int], int] = {}  # (file, chat) -> the chat's first index in the file
    books: set[tuple[int, int]] = set()
    for o in imported:
        source_id = source_ids[o.sha256 or ""]
        main = o.item.any_book if o.item else None  # linked by _record_links with its own role
        for c in reversed(o.item.chats if o.item else ()):
            links[(source_id, chat_ids[c.chat.content_hash])] = c.index
            if c.book is not None and (main is None or c.book.content_hash != main.content_hash):
                books.add((source_id, book_ids[c.book.content_hash]))
    rows_out = [{"source_file_id": s, "chat_id": c, "chat_index": links[(s, c)]} for s, c in sorted(links)]
    ops.insert_ignore("chat_sources", rows_out)
    if books:
        ops.insert_ignore(
            "lorebook_sources", [{"source_file_id": s, "lorebook_id": b, "role": "chat"} for s, b in sorted(books)]
        )


def _record_links(
    ops: _Ops,
    imported: list[FileOutcome],
    source_ids: dict[str, int],
    card_ids: dict[str, int],
    book_ids: dict[str, int],
    now: Any,
) -> None:
    """Provenance links (file -> card / lorebook) and the migrations of every target."""
    card_links, book_links, migrations = [], [], []
    for o in imported:
        item = o.item
        assert item is not None
        source_id = source_ids[o.sha256 or ""]
        card_id = card_ids[item.card.content_hash] if item.card is not None else None
        book = item.any_book
        book_id = book_ids[book.content_hash] if book is not None else None
        if card_id is not None:
            card_links.append({"source_file_id": source_id, "card_id": card_id})
        if book_id is not None:
            role = "embedded" if item.card is not None else ("chat" if item.chat is not None else "standalone")
            book_links.append({"source_file_id": source_id, "lorebook_id": book_id, "role": role})
        migrations.extend(_migration_rows(o, source_id, card_id, book_id, now))
    if book_links:
        ops.insert_ignore("lorebook_sources", sorted(book_links, key=lambda r: (r["source_file_id"], r["lorebook_id"])))
    if card_links:
        ops.insert_ignore("card_sources", sorted(card_links, key=lambda r: (r["source_file_id"], r["card_id"])))
    if migrations:
        _migrations(ops, migrations)


def _migration_rows(
    o: FileOutcome, source_id: int, card_id: int | None, book_id: int | None, now: Any
) -> list[tuple[dict[str, Any], TargetOutcome]]:
    return [
        (
            {
                "source_file_id": source_id,
                "item_kind": o.kind or "card",
                "card_id": card_id,
                "lorebook_id": book_id,
                "target": t.target,
                "status": t.status,
                "reason": storable(t.reason),
                "output_path": storable(t.output_path),
                "output_sha256": t.output_sha256,
                "read_ms": o.read_ms,
                "convert_ms": t.convert_ms,
                "report_ms": t.report_ms,
                "finished_at": now,
            },
            t,
        )
        for t in o.targets
    ]


def _migrations(ops: _Ops, migrations: list[tuple[dict[str, Any], TargetOutcome]]) -> None:
    """Every target of every file in one multi-row upsert, their reports in one more statement
    (and their shared parts, stored once per content, in one before it)."""
    migrations.sort(key=lambda m: (m[0]["source_file_id"], m[0]["target"]))
    ids = {(src, target): mid for mid, src, target in ops.upsert_migrations([row for row, _ in migrations])}
    reports = []
    without = []
    parts: dict[str, dict[str, Any]] = {}
    for row, t in migrations:
        migration_id = ids[(row["source_file_id"], row["target"])]
        if t.counts is None or t.report_json is None:
            without.append(migration_id)
            continue
        counts = t.counts
        report = {
            "migration_id": migration_id,
            "has_losses": bool(t.has_losses),
            "report": t.report_json,
            "part_id": None,
            "part_at": None,
            **{f: int(counts.get(f, 0)) for f in FATES},
        }
        split = split_report(t.report_json)
        if split is not None:
            parts.setdefault(split.sha256, {"sha256": split.sha256, "body": split.part})
            report["report"], report["part_at"], report["part_id"] = split.rest, split.at, split.sha256
        reports.append(report)
    if parts:
        part_ids, _ = _ids(ops, "report_parts", list(parts.values()))
        for report in reports:
            if report["part_id"] is not None:
                report["part_id"] = part_ids[report["part_id"]]
    if reports:
        ops.upsert_reports(reports)
    if without:
        ops.drop_reports(without)


def _first_line(exc: Exception) -> str:
    orig = getattr(exc, "orig", exc)  # SQLAlchemy's error wraps the driver's
    text = str(orig).strip()
    return text.splitlines()[0] if text else type(orig).__name__


def _errors(driver: sqlite3.Connection | None) -> tuple[type[Exception], tuple[type[Exception], ...]]:
    """(what the database raises, the conflicts among those worth a retry) on ``driver`` (a
    ``Catalog.sqlite`` connection), else through the engine."""
    if driver is not None:
        return sqlite3.Error, (sqlite3.IntegrityError, sqlite3.OperationalError)
    from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError

    return DBAPIError, (IntegrityError, OperationalError)


def _in_transaction(catalog: Catalog, work: Callable[[Any], None], driver: sqlite3.Connection | None = None) -> None:
    """Run ``work`` in one transaction (on ``driver`` if given, else on an engine connection);
    conflicts with a concurrent writer are retried.

    IntegrityError: a concurrent transaction won a race ON CONFLICT could not
    absorb; OperationalError: a deadlock or a lock timeout. Both leave nothing
    behind (rolled back), so retrying is safe. Other database errors propagate.
    """
    _, conflicts = _errors(driver)
    for attempt in range(_RETRIES):
        try:
            if driver is not None:
                with catalog.transaction() as conn:
                    work(conn)
            else:
                with catalog.engine.begin() as conn:
                    work(conn)
            return
        except conflicts as exc:
            if attempt == _RETRIES - 1:
                raise CatalogError(f"cannot write to the catalog: {_first_line(exc)}") from None
            time.sleep(0.05 * (attempt + 1))


def record_outcome(catalog: Catalog, outcome: FileOutcome) -> None:
    """Record one file in one transaction.

    If the database refuses the data itself (a value it cannot store), the file is
    recorded as failed with that reason instead: one bad file never stops a run.
    """
    if outcome.sha256 is None or outcome.status not in ("imported", "failed"):
        return
    driver = catalog.sqlite()
    refused, _ = _errors(driver)
    try:
        _in_transaction(catalog, lambda conn: write_batch(conn, [outcome]), driver)
        return
    except CatalogError as exc:
        raise CatalogError(f"cannot record {outcome.path}: {exc.reason}") from None
    except refused as exc:
        if outcome.status == "failed":
            raise CatalogError(f"cannot record {outcome.path}: {_first_line(exc)}") from None
        # Keep only what identifies the file; whatever the database refused goes.
        outcome.status = "failed"
        outcome.error = f"the catalog cannot store this file: {_first_line(exc)}"
        outcome.item, outcome.targets, outcome.warnings = None, [], []
        outcome.format = outcome.platform = outcome.kind = None
    record_outcome(catalog, outcome)


def record_batch(catalog: Catalog, outcomes: list[FileOutcome], hook: BatchHook | None = None) -> None:
    """Record ``outcomes`` (and run ``hook``) in one transaction, all or nothing.

    If the database refuses a value, the batch is rolled back and replayed one
    transaction per file (``record_outcome``), so a bad file only fails itself;
    ``hook`` then runs in one last transaction of its own.
    """

    def work(conn: Connection | sqlite3.Connection) -> None:
        write_batch(conn, outcomes)
        if hook is not None:
            hook(conn)  # type: ignore[arg-type]  # a hook's batch goes through the engine

    driver = catalog.sqlite() if hook is None else None  # a hook is handed a SQLAlchemy connection
    refused, _ = _errors(driver)
    try:
        _in_transaction(catalog, work, driver)
    except refused:
        for outcome in outcomes:
            record_outcome(catalog, outcome)
        if hook is not None:
            _in_transaction(catalog, hook)


class BatchRecorder:
    """Records outcomes several files per transaction, bounded by count and time, in a writer thread.

    A commit per file, and statements per file, cost more than everything else
    the database does for that file. Files accumulate until ``max_files`` or
    ``max_seconds`` and are written together (``record_batch``): every file
    stays all-or-nothing, a killed run loses the uncommitted batches as a whole
    and redoes those files when started again.

    A full batch is handed to one writer thread and the caller goes on with the
    next files: the drivers release the GIL while the database works (the
    PostgreSQL server on another core, SQLite's C code), so writing overlaps
    reading and converting. At most one batch is in flight; ``flush`` waits
    until everything handed over is committed. ``waited_ms`` is the time the
    caller spent blocked on the database; ``busy_ms`` the writer's wall time
    (server work and waits for the GIL included), ``cpu_ms`` the CPU it used
    in this process (the share of the run's core the catalog takes).
    """

    def __init__(
        self,
        catalog: Catalog,
        *,
        max_files: int = 100,
        max_seconds: float = 0.5,
        background: bool = True,
        on_committed: Callable[[list[FileOutcome]], None] | None = None,
    ) -> None:
        self.catalog = catalog
        self.max_files = max_files
        self.max_seconds = max_seconds
        self.on_committed = on_committed
        """Called in the caller's thread with each batch once it is committed (a file the
        database refused is ``failed`` by then)."""
        self._pending: list[FileOutcome] = []
        self._started = 0.0
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="catalog-writer") if background else None
        self._in_flight: tuple[Future[None], list[FileOutcome]] | None = None
        self.waited_ms = 0.0
        self.busy_ms = 0.0
        self.cpu_ms = 0.0

    def add(self, outcome: FileOutcome) -> None:
        if outcome.sha256 is None or outcome.status not in ("imported", "failed"):
            return
        if not self._pending:
            self._started = time.monotonic()
        self._pending.append(outcome)
        if len(self._pending) >= self.max_files or time.monotonic() - self._started >= self.max_seconds:
            self._hand_over()

    def flush(self) -> None:
        """Write everything added so far; returns once it is committed."""
        self._hand_over()
        self._wait()

    def _write(self, batch: list[FileOutcome]) -> None:
        start, cpu = time.perf_counter(), time.thread_time()
        try:
            record_batch(self.catalog, batch)
        finally:
            self.busy_ms += (time.perf_counter() - start) * 1000.0
            self.cpu_ms += (time.thread_time() - cpu) * 1000.0

    def _hand_over(self) -> None:
        batch, self._pending = self._pending, []
        if not batch:
            return
        self._wait()  # one batch in flight: memory stays bounded and errors surface early
        if self._pool is None:
            start = time.perf_counter()
            self._write(batch)
            self.waited_ms += (time.perf_counter() - start) * 1000.0
            self._committed(batch)
        else:
            self._in_flight = (self._pool.submit(self._write, batch), batch)

    def _wait(self) -> None:
        in_flight, self._in_flight = self._in_flight, None
        if in_flight is not None:
            future, batch = in_flight
            start = time.perf_counter()
            try:
                future.result()
            finally:
                self.waited_ms += (time.perf_counter() - start) * 1000.0
            self._committed(batch)

    def _committed(self, batch: list[FileOutcome]) -> None:
        if self.on_committed is not None:
            self.on_committed(batch)

    def close(self) -> None:
        """Drop what was not handed over (after an error: those files are redone by the next run);
        a batch already being written is let finish."""
        self._pending = []
        with contextlib.suppress(Exception):
            self._wait()
        if self._pool is not None:
            self._pool.shutdown(wait=True)


class StreamedBatch:
    """One batch, one transaction, written while its files are still being processed.

    For a distributed worker, whose task must not return (be acknowledged)
    before its batch commits: every ``part_files`` outcomes are written by a
    writer thread into the batch's open transaction while the next files are
    read and converted, and ``commit`` adds the hook's rows and commits, so
    only the last part and the commit are waited for. Everything runs on the
    writer thread (a driver connection stays on one thread). If anything fails,
    the transaction is rolled back and the whole batch goes through
    ``record_batch`` (retries, a refused file failing alone): all or nothing
    either way.
    """

    def __init__(self, catalog: Catalog, *, part_files: int = 10) -> None:
        self.catalog = catalog
        self.part_files = part_files
        self.outcomes: list[FileOutcome] = []
        self._part: list[FileOutcome] = []
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="catalog-writer")
        self._conn: Connection | None = None
        self._failed = False
        from sqlalchemy.exc import DBAPIError  # a distributed worker's batch goes through the engine

        self._errors = DBAPIError

    def add(self, outcome: FileOutcome) -> None:
        self.outcomes.append(outcome)
        self._part.append(outcome)
        if len(self._part) >= self.part_files:
            self._send()

    def commit(self, hook: BatchHook | None = None) -> None:
        """Write the rest, run ``hook`` and commit; returns once the batch is committed."""
        self._send()
        committed = self._pool.submit(self._commit, hook).result()
        self._pool.shutdown(wait=True)
        if not committed:
            record_batch(self.catalog, self.outcomes, hook)

    def abort(self) -> None:
        """Roll back whatever was written (the batch is redone whole by its redelivery)."""
        self._pool.submit(self._close).result()
        self._pool.shutdown(wait=True)

    def _send(self) -> None:
        part, self._part = self._part, []
        if part:
            self._pool.submit(self._write, part)

    def _write(self, part: list[FileOutcome]) -> None:
        if self._failed:
            return
        try:
            if self._conn is None:
                self._conn = self.catalog.engine.connect()
                self._conn.begin()
            write_batch(self._conn, part)
        except self._errors:
            self._failed = True
            self._close()

    def _commit(self, hook: BatchHook | None) -> bool:
        if self._conn is None and not self._failed:
            self._write([])
        if self._failed or self._conn is None:
            self._close()
            return False
        try:
            if hook is not None:
                hook(self._conn)
            self._conn.commit()
        except self._errors:
            self._close()
            return False
        self._close()
        return True

    def _close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(self._errors):
                self._conn.rollback()
            self._conn.close()
        self._conn = None
