"""The schema is made by Alembic, matches the ORM, and an old catalog is refused until upgraded."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from click.testing import CliRunner
from sqlalchemy import inspect

from interop.catalog.database import (
    alembic_dir,
    current_revision,
    head_revision,
    make_engine,
    normalize_url,
    open_catalog,
    upgrade_schema,
)
from interop.catalog.models import Base
from interop.catalog.search import FTS_TABLE, PG_INDEX, include_object
from interop.cli import cli
from interop.errors import CatalogError


def _drift(url: str) -> list[object]:
    engine = make_engine(url)
    try:
        upgrade_schema(engine)
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"include_object": include_object, "compare_type": True})
            return compare_metadata(context, Base.metadata)
    finally:
        engine.dispose()


def test_migrations_match_the_orm_on_sqlite(sqlite_url: str) -> None:
    assert _drift(sqlite_url) == []


@pytest.mark.postgres
def test_migrations_match_the_orm_on_postgresql(pg_url: str) -> None:
    assert _drift(pg_url) == []
    engine = make_engine(pg_url)
    with engine.connect() as conn:
        indexes = {ix["name"] for ix in inspect(conn).get_indexes("lorebook_entries")}
    engine.dispose()
    assert PG_INDEX in indexes


def test_fresh_catalog_is_created_by_migrations(sqlite_url: str) -> None:
    catalog = open_catalog(sqlite_url)
    with catalog.engine.connect() as conn:
        assert current_revision(conn) == head_revision()
        tables = set(inspect(conn).get_table_names())
    catalog.dispose()
    assert {t.name for t in Base.metadata.sorted_tables} <= tables
    assert FTS_TABLE in tables  # this SQLite build has FTS5


def test_out_of_date_catalog_is_refused_until_upgraded(sqlite_url: str, tmp_path: Path) -> None:
    engine = make_engine(sqlite_url)
    upgrade_schema(engine, "0001")
    engine.dispose()
    with pytest.raises(CatalogError, match="run `interop catalog upgrade`"):
        open_catalog(sqlite_url)

    runner = CliRunner()
    result = runner.invoke(cli, ["catalog", "list", "--db", sqlite_url])
    assert result.exit_code == 3
    # the first line names the database opened (issue 21), then the one-line error
    named, message = result.stderr.strip().split("\n", 1)
    assert named == f"interop: catalog {sqlite_url}"
    assert "\n" not in message and "0001" in message and "interop catalog upgrade" in message

    (tmp_path / "in").mkdir()
    result = runner.invoke(
        cli, ["migrate", str(tmp_path / "in"), "--to", "ccv3", "--out", str(tmp_path / "o"), "--db", sqlite_url]
    )
    assert result.exit_code == 3 and "interop catalog upgrade" in result.stderr

    result = runner.invoke(cli, ["catalog", "upgrade", "--db", sqlite_url])
    assert result.exit_code == 0, result.output
    assert f"from 0001 to {head_revision()}" in result.output
    result = runner.invoke(cli, ["catalog", "list", "--db", sqlite_url])
    assert result.exit_code == 0, result.output
    result = runner.invoke(cli, ["catalog", "upgrade", "--db", sqlite_url])
    assert "already at revision" in result.output


def test_a_foreign_database_is_not_taken_for_a_catalog(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "other.sqlite"
    sqlite3.connect(db).execute("CREATE TABLE t (x)").connection.commit()
    with pytest.raises(CatalogError, match="not an interop catalog"):
        open_catalog(str(db))


def test_urls_and_script_location() -> None:
    assert normalize_url("postgresql://h/db") == "postgresql+psycopg://h/db"
    assert normalize_url("/x/cat.sqlite") == "sqlite:////x/cat.sqlite"
    assert (alembic_dir() / "env.py").is_file()
    assert head_revision() == "0008"


def test_default_catalog_location_honours_interop_db(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from interop.catalog.database import default_url

    monkeypatch.setenv("INTEROP_DB", f"sqlite:///{tmp_path}/env.sqlite")
    assert default_url().endswith("env.sqlite")
    monkeypatch.delenv("INTEROP_DB")
    assert default_url().startswith("sqlite:///") and default_url().endswith("catalog.sqlite")


def test_a_catalog_from_a_newer_interop_is_refused(sqlite_url: str) -> None:
    engine = make_engine(sqlite_url)
    upgrade_schema(engine)
    with engine.begin() as conn:
        conn.exec_driver_sql("UPDATE alembic_version SET version_num = '9999'")
    engine.dispose()
    with pytest.raises(CatalogError, match="newer than this interop"):
        open_catalog(sqlite_url)


def test_migrations_downgrade_and_upgrade_again(sqlite_url: str) -> None:
    from alembic import command
    from interop.catalog.database import alembic_config

    engine = make_engine(sqlite_url)
    upgrade_schema(engine)
    config = alembic_config()
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, "base")
    with engine.connect() as conn:
        assert set(inspect(conn).get_table_names()) == {"alembic_version"}
    assert upgrade_schema(engine) == (None, head_revision())
    engine.dispose()


def test_head_revision_read_from_the_scripts_is_alembics() -> None:
    from alembic.script import ScriptDirectory

    from interop.catalog.database import _chain_head, alembic_config

    assert _chain_head(alembic_dir() / "versions") == ScriptDirectory.from_config(alembic_config()).get_current_head()


def _script(folder: Path, rev: str, down: str) -> None:
    (folder / f"{rev}_x.py").write_text(f"revision = '{rev}'\ndown_revision = {down}\n", encoding="utf-8")


@pytest.mark.parametrize(
    "scripts",
    [
        [("a", "None"), ("b", "'a'"), ("c", "'a'")],  # a branch: two heads
        [("a", "None"), ("b", "('a', 'x')")],  # a merge point
        [("a", "None"), ("b", "'a'"), ("c", "None")],  # two roots
    ],
)
def test_head_revision_leaves_anything_but_a_plain_chain_to_alembic(tmp_path: Path, scripts: list) -> None:
    from interop.catalog.database import _chain_head

    for rev, down in scripts:
        _script(tmp_path, rev, down)
    assert _chain_head(tmp_path) is None
    (tmp_path / "b_x.py").unlink()
    (tmp_path / "c_x.py").unlink(missing_ok=True)
    assert _chain_head(tmp_path) == "a"


def test_a_catalog_with_two_recorded_revisions_is_refused(sqlite_url: str) -> None:
    engine = make_engine(sqlite_url)
    upgrade_schema(engine)
    with engine.begin() as conn:
        conn.exec_driver_sql("INSERT INTO alembic_version (version_num) VALUES ('0001')")
    engine.dispose()
    with pytest.raises(CatalogError, match="several schema revisions"):
        open_catalog(sqlite_url)


def test_head_revision_leaves_a_revision_id_given_twice_to_alembic(tmp_path: Path) -> None:
    """A copied script (the same revision id in two files, e.g. an editor's backup) is for Alembic to refuse."""
    from interop.catalog.database import _chain_head

    _script(tmp_path, "a", "None")
    _script(tmp_path, "b", "'a'")
    (tmp_path / "b_copy.py").write_text("revision = 'b'\ndown_revision = 'a'\n", encoding="utf-8")
    assert _chain_head(tmp_path) is None
    (tmp_path / "b_copy.py").unlink()
    assert _chain_head(tmp_path) == "b"
