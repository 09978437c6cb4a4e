"""Where the catalog lives and how to connect to it: URLs, engines, schema revision checks.

SQLite is the default (one file under the platform's user data directory);
PostgreSQL is reached with psycopg 3. The schema is owned by Alembic: a new
catalog is created by running the migrations, ``interop catalog upgrade``
brings an old one to head, and every other command refuses an out-of-date
schema instead of guessing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sqlite3
import threading
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CatalogError

if TYPE_CHECKING:
    from alembic.config import Config
    from sqlalchemy import Connection, Engine
    from sqlalchemy.orm import Session

# SQLAlchemy is imported by the functions that use it: importing it was ~645 M instructions of the
# 1,760 M an ``interop migrate`` over one file cost (issue 19), and a run on a plain SQLite file
# catalog (``sqlite_file``) needs none of it: ``Catalog.sqlite`` is the driver's own connection.

# Alembic is imported only to migrate, or when the scripts are not the plain chain that
# ``head_revision`` reads itself: importing it (and running its scripts) was a tenth of the CPU
# of a whole ``interop migrate`` over 300 files, for a check that needs one revision id.

ENV_DB = "INTEROP_DB"
ENV_DATA_DIR = "INTEROP_DATA_DIR"
UPGRADE_HINT = "run `interop catalog upgrade`"
_PG_UPGRADE_LOCK = 0x696E7465  # advisory lock id: two processes never migrate at once


def default_url() -> str:
    """``INTEROP_DB`` if set, else a SQLite file in the user data directory."""
    env = os.environ.get(ENV_DB)
    if env:
        return env
    from platformdirs import user_data_dir  # only for the default location

    return f"sqlite:///{Path(user_data_dir('interop')) / 'catalog.sqlite'}"


def normalize_url(raw: str) -> str:
    """Accept SQLAlchemy URLs, ``postgresql://`` (psycopg 3 is used) and bare SQLite file paths."""
    if "://" not in raw:
        return f"sqlite:///{Path(raw).expanduser().resolve()}"
    if raw.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + raw.split("://", 1)[1]
    return raw


def alembic_dir() -> Path:
    """The migration scripts: shipped in the wheel as package data, else the repo's top-level folder."""
    packaged = resources.files("interop").joinpath("_data", "alembic")
    if packaged.is_dir() and packaged.joinpath("env.py").is_file():
        return Path(str(packaged))
    repo = Path(__file__).resolve().parents[2] / "alembic"
    if (repo / "env.py").is_file():
        return repo
    raise CatalogError("the Alembic migration scripts are missing from this installation")


def alembic_config() -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(alembic_dir()))
    return config


def head_revision() -> str:
    head = _chain_head(alembic_dir() / "versions")
    if head is None:  # not a plain chain of revisions: Alembic itself decides
        from alembic.script import ScriptDirectory

        head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:
        raise CatalogError("the Alembic migration scripts define no revision")
    return head


_REVISION_LINE = re.compile(r"^(revision|down_revision|branch_labels|depends_on)\s*=\s*(.+?)\s*$", re.MULTILINE)
_QUOTED = re.compile(r"""^(['"])(\w+)\1$""")


def _chain_head(versions: Path) -> str | None:
    """The head of the migration scripts in ``versions`` when they form one plain chain, read from
    their ``revision = '...'`` / ``down_revision = '...' | None`` lines without running them;
    None when anything is less simple (branches, merges, labels, dependencies, an unreadable line)."""
    down_of: dict[str, str | None] = {}
    try:
        scripts = sorted(versions.glob("*.py"))
        for script in scripts:
            lines = dict(_REVISION_LINE.findall(script.read_text(encoding="utf-8")))
            if lines.get("branch_labels", "None") != "None" or lines.get("depends_on", "None") != "None":
                return None
            rev, down = (_QUOTED.match(lines.get(k, "")) for k in ("revision", "down_revision"))
            if rev is None or (down is None and lines.get("down_revision") != "None") or rev.group(2) in down_of:
                return None  # a revision id given twice (a copied script): Alembic refuses it
            down_of[rev.group(2)] = down.group(2) if down is not None else None
    except OSError:
        return None
    heads = set(down_of) - set(down_of.values())
    if len(heads) != 1 or list(down_of.values()).count(None) != 1:
        return None
    return heads.pop()


def _known_revision(rev: str) -> bool:
    from alembic.script import ScriptDirectory

    try:
        return ScriptDirectory.from_config(alembic_config()).get_revision(rev) is not None
    except Exception:  # alembic raises several types for unknown ids
        return False


def current_revision(conn: Connection) -> str | None:
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(conn).get_current_revision()


def _stored_revision(conn: Connection, tables: list[str]) -> str | None:
    """``current_revision`` read with one query (``tables``: the database's table names)."""
    if "alembic_version" not in tables:
        return None
    from sqlalchemy import text

    rows = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    return _one_revision(rows)


def _one_revision(rows: list[str]) -> str | None:
    if len(rows) > 1:
        raise CatalogError(f"the catalog records several schema revisions ({', '.join(sorted(rows))})")
    return rows[0] if rows else None


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cursor = dbapi_conn.cursor()
    # WAL lets readers (catalog list) run while a migrate run writes; NORMAL
    # sync is still crash-safe in WAL mode (a commit may be lost, never torn).
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    # Checkpoint the WAL every ~40 MB instead of every 4 MB: a migration run
    # commits once per file, and frequent small checkpoints (each an fsync)
    # were most of the commit time. 64 MB of page cache keeps the indexes hot.
    cursor.execute("PRAGMA wal_autocheckpoint=10000")
    cursor.execute("PRAGMA cache_size=-65536")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=60000")
    cursor.close()


def make_engine(url: str) -> Engine:
    from sqlalchemy import create_engine, event
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    url = normalize_url(url)
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise CatalogError(f"invalid database URL: {exc}", file=url) from None
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database
        if database and database != ":memory:":
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(parsed, connect_args={"timeout": 60})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    try:
        return create_engine(parsed, pool_pre_ping=True)
    except ModuleNotFoundError:
        raise  # the driver is an optional extra: the CLI names the pip command for it (exit 5)
    except Exception as exc:  # missing driver and the like
        raise CatalogError(f"cannot use database: {exc}", file=_safe(parsed)) from None


def _safe(url: Any) -> str:
    return url.render_as_string(hide_password=True) if hasattr(url, "render_as_string") else str(url)


def upgrade_schema(engine: Engine, revision: str = "head") -> tuple[str | None, str]:
    """Run the migrations up to ``revision``; returns (revision before, revision after)."""
    from sqlalchemy.exc import DBAPIError

    try:
        return _upgrade(engine, revision)
    except DBAPIError as exc:
        # Two processes creating one new SQLite catalog: the loser's CREATE TABLE fails.
        # If the winner got the schema to where we wanted, that is success.
        with contextlib.suppress(DBAPIError), engine.connect() as conn:
            now = current_revision(conn)
            if now is not None and (now == revision or (revision == "head" and now == head_revision())):
                return now, now
        raise CatalogError(f"cannot upgrade the catalog: {_first_line(exc)}", file=_safe(engine.url)) from None


def _upgrade(engine: Engine, revision: str) -> tuple[str | None, str]:
    from sqlalchemy import text

    from alembic import command as alembic_command

    config = alembic_config()
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_UPGRADE_LOCK})
        before = current_revision(conn)
        config.attributes["connection"] = conn
        alembic_command.upgrade(config, revision)
        after = current_revision(conn)
    return before, after or "base"


def schema_state(engine: Engine) -> tuple[str | None, bool]:
    """(current revision, whether the database holds any table at all)."""
    from sqlalchemy import inspect
    from sqlalchemy.exc import DBAPIError

    try:
        with engine.connect() as conn:
            tables = inspect(conn).get_table_names()
            rev = _stored_revision(conn, tables)
            has_tables = bool(tables)
    except DBAPIError as exc:
        raise CatalogError(f"cannot open the catalog: {_first_line(exc)}", file=_safe(engine.url)) from None
    return rev, has_tables


def _state_after_upgrades(engine: Engine) -> tuple[str | None, bool]:
    """``schema_state`` once no other process holds the PostgreSQL upgrade lock."""
    from sqlalchemy import text
    from sqlalchemy.exc import DBAPIError

    try:
        with engine.begin() as conn:
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_UPGRADE_LOCK})
    except DBAPIError as exc:
        raise CatalogError(f"cannot open the catalog: {_first_line(exc)}", file=_safe(engine.url)) from None
    return schema_state(engine)


def _first_line(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None) or exc
    return str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__


def default_data_dir(url: str) -> Path:
    """Where asset blobs live: ``INTEROP_DATA_DIR``, beside a SQLite file, else the user data dir."""
    env = os.environ.get(ENV_DATA_DIR)
    if env:
        return Path(env)
    url = normalize_url(url)
    database = sqlite_file(url)
    if database is None:
        from sqlalchemy.engine import make_url

        parsed = make_url(url)
        if parsed.get_backend_name() == "sqlite" and parsed.database and parsed.database != ":memory:":
            database = parsed.database
    if database is not None:
        db = Path(database)
        return db.with_name(db.name + ".data")
    from platformdirs import user_data_dir  # only for the default location

    return Path(user_data_dir("interop")) / "data"


_SQLITE_FILE = re.compile(r"sqlite:///([^?%]+)")


def sqlite_file(url: str) -> str | None:
    """The database file of a plain SQLite file URL (``sqlite:///PATH``: no driver named, no query,
    nothing percent-encoded), as SQLAlchemy reads it; None for any other URL (``:memory:`` too)."""
    match = _SQLITE_FILE.fullmatch(url)
    if match is None or match.group(1) == ":memory:":
        return None
    return match.group(1)


def connect_sqlite(database: str) -> sqlite3.Connection:
    """A driver connection to the SQLite file ``database`` as the engine of ``make_engine`` makes
    them (the same file, timeout and pragmas; usable from the writer thread, as its pool's are)."""
    Path(database).parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(os.path.abspath(database), timeout=60, check_same_thread=False)
    _sqlite_pragmas(conn, None)
    return conn


class Catalog:
    """An open catalog at the current schema revision.

    ``engine`` is made on first use when the catalog was opened without one: a run on a SQLite
    file writes through ``sqlite()``, the driver's own connection, and never imports SQLAlchemy."""

    def __init__(self, url: str, engine: Engine | None, data_dir: Path) -> None:
        self.url = url
        self._engine = engine
        self.data_dir = data_dir
        self._sqlite: sqlite3.Connection | None = None
        # one transaction at a time on the driver connection: a run's writer thread and the web
        # server's request threads (a job's run record) share it; also guards making it and the engine
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        return f"Catalog(url={self.url!r}, data_dir={self.data_dir!r})"

    @property
    def engine(self) -> Engine:
        if self._engine is None:
            with self._lock:
                if self._engine is None:
                    self._engine = make_engine(self.url)
        return self._engine

    def sqlite(self) -> sqlite3.Connection | None:
        """The driver connection of a SQLite file catalog (one, kept open until ``dispose``; used
        through ``transaction``), or None: then go through ``engine``."""
        if self._sqlite is None:
            database = sqlite_file(self.url)
            if database is None:
                return None
            with self._lock:
                if self._sqlite is None:
                    self._sqlite = connect_sqlite(database)
        return self._sqlite

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``engine.begin()`` on the driver connection (only when ``sqlite()`` gives one), this thread's
        alone until it ends: committed, or rolled back on any error (the same driver calls as the engine's)."""
        conn = self.sqlite()
        assert conn is not None, "not a SQLite file catalog: use the engine"
        with self._lock:
            try:
                yield conn
                conn.commit()
            except BaseException:
                conn.rollback()
                raise

    @property
    def dialect(self) -> str:
        if self._engine is None and sqlite_file(self.url) is not None:
            return "sqlite"
        return self.engine.dialect.name

    def session(self) -> Session:
        from sqlalchemy.orm import sessionmaker  # the ORM only for who reads through it (not `interop migrate`)

        return sessionmaker(self.engine, expire_on_commit=False)()

    def asset_path(self, sha256: str) -> Path:
        return self.data_dir / "assets" / sha256[:2] / sha256

    def dispose(self) -> None:
        with self._lock:
            if self._sqlite is not None:
                self._sqlite.close()
                self._sqlite = None
        if self._engine is not None:
            self._engine.dispose()


def open_catalog(url: str | None = None, *, create: bool = True, data_dir: Path | None = None) -> Catalog:
    """Open the catalog, creating it by migrations when the database is empty.

    An existing catalog whose revision is not head is refused with a
    CatalogError telling the user to run ``interop catalog upgrade``.
    """
    url = normalize_url(url or default_url())
    database = sqlite_file(url)
    conn = _open_sqlite_file(database, create) if database is not None else None
    if conn is not None:
        catalog = Catalog(url, None, data_dir or default_data_dir(url))
        catalog._sqlite = conn  # the connection that checked it: its schema is read already
        return catalog
    engine = make_engine(url)
    rev, has_tables = schema_state(engine)
    if rev is None and has_tables and create and engine.dialect.name == "postgresql":
        # Another process may be creating this catalog right now (its tables are visible before
        # its revision is): wait for its upgrade lock, then look again.
        rev, has_tables = _state_after_upgrades(engine)
    head = head_revision()
    if rev is None and not has_tables and create:
        if not _create_from_head_schema(engine):
            upgrade_schema(engine)
    elif rev != head:
        engine.dispose()
        where = _safe(engine.url)
        if rev is None:
            raise CatalogError(f"database is not an interop catalog (no schema revision); {UPGRADE_HINT}", file=where)
        if not _known_revision(rev):
            raise CatalogError(
                f"catalog schema revision {rev} is newer than this interop knows (head {head}): upgrade interop",
                file=where,
            )
        raise CatalogError(
            f"catalog schema is at revision {rev}, this interop needs {head}: {UPGRADE_HINT}", file=where
        )
    return Catalog(url, engine, data_dir or default_data_dir(url))


def _open_sqlite_file(database: str, create: bool) -> sqlite3.Connection | None:
    """``open_catalog``'s usual outcome on a SQLite file, through the driver alone: its connection when
    the catalog is at head, or was empty and is now made from ``head_schema``. None (nothing changed)
    for everything else, which the general path then handles (and words) as before."""
    try:
        conn = connect_sqlite(database)
    except (sqlite3.Error, OSError):
        return None
    try:
        if _usable(conn, create):
            return conn
    except (sqlite3.Error, CatalogError):
        pass
    conn.close()
    return None


def _usable(conn: sqlite3.Connection, create: bool) -> bool:
    """The catalog on ``conn`` is at head, or was empty and is now made from ``head_schema``."""
    tables = [
        name
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite~_%' ESCAPE '~'"
        )
    ]
    if "alembic_version" in tables:
        rev = _one_revision([v for (v,) in conn.execute("SELECT version_num FROM alembic_version")])
        return rev == head_revision()
    return not tables and create and _create_in(conn)


# A new SQLite catalog is made from ``head_schema`` (the schema the migrations build, read off a
# database they made) instead of by running them: importing Alembic and running its scripts was about
# a third of the CPU of an ``interop migrate`` over one file. The snapshot is used only when what
# decides the migrations' result is what it was made from: the scripts (and env.py), the SQLAlchemy and
# Alembic versions that render their DDL, and FTS5 in this SQLite; otherwise Alembic runs as before.
# ``python -m interop.catalog.database --write-head-schema`` remakes it; tests/catalog/test_head_schema.py
# checks that it is current and that a catalog made from it equals one made by the migrations.

HEAD_SCHEMA_MODULE = Path(__file__).with_name("head_schema.py")


def scripts_digest() -> str:
    """sha256 of the migration scripts and env.py, as shipped (what the migrations run)."""
    folder = alembic_dir()
    digest = hashlib.sha256()
    for script in [folder / "env.py", *sorted((folder / "versions").glob("*.py"))]:
        digest.update(f"{script.relative_to(folder).as_posix()}\0".encode())
        digest.update(script.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def _alembic_version() -> str | None:
    return _installed_version("alembic")


def _has_fts5(cursor: sqlite3.Cursor) -> bool:
    return any(row[0] == "ENABLE_FTS5" for row in cursor.execute("PRAGMA compile_options"))


def _create_from_head_schema(engine: Engine) -> bool:
    """Create the head schema in an empty SQLite catalog from ``head_schema``, in one transaction.
    False (nothing done) when the snapshot does not apply or the database is no longer empty."""
    if engine.dialect.name != "sqlite":
        return False
    raw = engine.raw_connection()
    try:
        return _create_in(raw)  # type: ignore[arg-type]  # the pool's proxy of a driver connection
    finally:
        raw.close()


def _installed_version(package: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return None


def _create_in(raw: sqlite3.Connection) -> bool:
    """``_create_from_head_schema`` on a driver connection (left open)."""
    from . import head_schema

    try:
        current = scripts_digest()
    except (OSError, CatalogError):
        return False
    # the installed distribution's version, as SQLAlchemy's ``__version__`` says (without importing it)
    if (current, _installed_version("sqlalchemy"), _alembic_version()) != (
        head_schema.SCRIPTS_DIGEST,
        head_schema.SQLALCHEMY,
        head_schema.ALEMBIC,
    ):
        return False
    try:
        cursor = raw.cursor()
        if _has_fts5(cursor) != head_schema.FTS5:
            return False
        cursor.execute("BEGIN IMMEDIATE")  # another process creating this catalog waits here
        try:
            if cursor.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                raw.rollback()  # created meanwhile: the usual path judges it
                return False
            for statement in head_schema.STATEMENTS:
                cursor.execute(statement)
            raw.commit()
        except sqlite3.Error:
            raw.rollback()
            return False  # nothing was made: the migrations run and report as before
    except sqlite3.Error:
        return False
    return True


def sqlite_dump(conn: sqlite3.Connection) -> tuple[list[tuple[Any, ...]], dict[str, list[tuple[Any, ...]]]]:
    """A SQLite database's schema (sqlite_master in order, less page numbers) and every table's rows."""
    schema = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid").fetchall()
    tables = [name for kind, name, _, sql in schema if kind == "table" and not (sql or "").startswith("CREATE VIRTUAL")]
    return schema, {name: sorted(conn.execute(f'SELECT * FROM "{name}"').fetchall()) for name in tables}


def comparable_sql(sql: str | None) -> str | None:
    """A schema statement with its table constraints sorted: Alembic's batch mode (a table recreated,
    0006/0008) writes them in an order that varies from run to run, which SQLite gives no meaning.
    Columns keep their order."""
    if sql is None or not sql.startswith("CREATE TABLE") or not sql.endswith(")"):
        return sql
    head, _, body = sql[:-1].partition("(")
    items, depth, start = [], 0, 0
    for i, char in enumerate(body):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            items.append(body[start:i].strip())
            start = i + 1
    items.append(body[start:].strip())
    columns = [item for item in items if not item.startswith("CONSTRAINT")]
    constraints = sorted(item for item in items if item.startswith("CONSTRAINT"))
    return f"{head}({', '.join(columns + constraints)})"


def comparable_dump(conn: sqlite3.Connection) -> tuple[list[tuple[Any, ...]], dict[str, list[tuple[Any, ...]]]]:
    """``sqlite_dump`` with ``comparable_sql`` statements: equal for two databases the migrations made."""
    schema, rows = sqlite_dump(conn)
    return [(kind, name, table, comparable_sql(sql)) for kind, name, table, sql in schema], rows


def _literal(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    raise ValueError(f"head_schema: cannot write the value {value!r}")


def head_schema_statements(path: Path) -> list[str]:
    """The statements that rebuild the SQLite database at ``path`` (made by the migrations) in an empty
    one: its schema objects in creation order (less those SQLite makes itself: indexes of constraints,
    a virtual table's shadow tables) and the rows of its plain tables; checked by rebuilding it."""
    source = sqlite3.connect(path)
    target = sqlite3.connect(":memory:")
    try:
        schema, rows = sqlite_dump(source)
        statements: list[str] = []
        for _kind, name, _table, sql in schema:
            made = target.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone()
            if sql is None or made:
                continue
            target.execute(sql)
            statements.append(sql)
        _, made_rows = sqlite_dump(target)
        for kind, name, _table, sql in schema:
            if kind == "table" and " USING fts5(" in (sql or ""):
                shadows = [t for t in rows if t.startswith(f"{name}_")]
                if any(rows[t] != made_rows[t] for t in shadows):  # 0002 rebuilds the (empty) index
                    statement = f"INSERT INTO {name}({name}) VALUES ('rebuild')"
                    target.execute(statement)
                    statements.append(statement)
        _, made_rows = sqlite_dump(target)
        for table, values in rows.items():
            if values != made_rows.get(table):  # rows the migrations wrote (alembic_version)
                for row in values:
                    statement = f'INSERT INTO "{table}" VALUES ({", ".join(map(_literal, row))})'
                    target.execute(statement)
                    statements.append(statement)
        if sqlite_dump(target) != (schema, rows):
            raise RuntimeError("head_schema: the rebuilt database differs from the one the migrations made")
        return statements
    finally:
        source.close()
        target.close()


def _sqlalchemy_version() -> str:
    from sqlalchemy import __version__

    return __version__


def render_head_schema(workdir: Path) -> str:
    """The text of ``head_schema.py`` for this installation (the migrations run in ``workdir``)."""
    db = workdir / "head.sqlite"
    engine = make_engine(f"sqlite:///{db}")
    try:
        upgrade_schema(engine)
        with engine.connect() as conn:
            fts5 = _has_fts5(conn.connection.driver_connection.cursor())
    finally:
        engine.dispose()
    statements = head_schema_statements(db)
    lines = [
        "# ruff: noqa: E501",
        '"""The SQLite catalog schema at head, as the migrations make it (generated: do not edit).',
        "",
        "Remake with ``python -m interop.catalog.database --write-head-schema``; used by",
        "``database.open_catalog`` for a new catalog only when every key below still holds.",
        '"""',
        "",
        f"REVISION = {json.dumps(head_revision())}",
        f"SCRIPTS_DIGEST = {json.dumps(scripts_digest())}",
        f"SQLALCHEMY = {json.dumps(_sqlalchemy_version())}",
        f"ALEMBIC = {json.dumps(_alembic_version())}",
        f"FTS5 = {fts5!r}",
        "STATEMENTS = (",
        *(f"    {json.dumps(statement)}," for statement in statements),
        ")",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    import sys
    import tempfile

    if sys.argv[1:] != ["--write-head-schema"]:
        raise SystemExit("usage: python -m interop.catalog.database --write-head-schema")
    with tempfile.TemporaryDirectory() as tmp:
        HEAD_SCHEMA_MODULE.write_text(render_head_schema(Path(tmp)), encoding="utf-8")
    print(f"wrote {HEAD_SCHEMA_MODULE}")
