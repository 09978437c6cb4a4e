"""A new SQLite catalog is made from ``head_schema`` (the migrations' result, kept in the package) and is
the same database the migrations make; the snapshot is current, and ignored when it no longer applies."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from interop.catalog import database, head_schema
from interop.catalog.database import (
    comparable_dump,
    comparable_sql,
    head_revision,
    make_engine,
    open_catalog,
    render_head_schema,
    upgrade_schema,
)

REPO = Path(__file__).resolve().parents[2]


def _dump(path: Path) -> tuple[object, object]:
    conn = sqlite3.connect(path)
    try:
        return comparable_dump(conn)
    finally:
        conn.close()


def _by_migrations(path: Path) -> None:
    engine = make_engine(f"sqlite:///{path}")
    try:
        upgrade_schema(engine)
    finally:
        engine.dispose()


def test_head_schema_is_current(tmp_path: Path) -> None:
    assert head_revision() == head_schema.REVISION
    current: dict[str, object] = {}
    exec(render_head_schema(tmp_path), current)  # the module as it would be written now
    message = (
        "the migrations or SQLAlchemy/Alembic changed: run `python -m interop.catalog.database --write-head-schema`"
    )
    for key in ("REVISION", "SCRIPTS_DIGEST", "SQLALCHEMY", "ALEMBIC", "FTS5"):
        assert current[key] == getattr(head_schema, key), message
    statements = current["STATEMENTS"]
    assert isinstance(statements, tuple)
    assert [comparable_sql(s) for s in statements] == [comparable_sql(s) for s in head_schema.STATEMENTS], message


def test_constraint_order_is_not_a_difference() -> None:
    def table(*items: str) -> str:
        return "CREATE TABLE t (\n\t" + ", \n\t".join(items) + "\n)"

    pk, uq = "CONSTRAINT pk_t PRIMARY KEY (id)", "CONSTRAINT uq_t UNIQUE (x)"
    same = comparable_sql(table("id INTEGER", "x INTEGER", pk, uq))
    assert same == comparable_sql(table("id INTEGER", "x INTEGER", uq, pk))
    assert same != comparable_sql(table("x INTEGER", "id INTEGER", pk, uq))  # column order is kept


def test_a_new_catalog_is_the_database_the_migrations_make(tmp_path: Path) -> None:
    open_catalog(f"sqlite:///{tmp_path / 'snapshot.sqlite'}").dispose()
    _by_migrations(tmp_path / "migrations.sqlite")
    made = _dump(tmp_path / "snapshot.sqlite")
    assert made == _dump(tmp_path / "migrations.sqlite")
    schema, rows = made
    assert rows["alembic_version"] == [(head_revision(),)]
    assert any(name == "entry_fts" for _, name, _, _ in schema)  # this SQLite build has FTS5


def test_a_new_catalog_is_made_without_alembic(tmp_path: Path) -> None:
    code = (
        "import json, sys; from interop.catalog.database import open_catalog; "
        f"open_catalog({str(tmp_path / 'c.sqlite')!r}).dispose(); print(json.dumps('alembic' in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={"PYTHONPATH": str(REPO)}, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) is False


def test_a_snapshot_that_no_longer_applies_leaves_it_to_the_migrations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(head_schema, "SCRIPTS_DIGEST", "0" * 64)  # as if a migration had been added
    engine = make_engine(f"sqlite:///{tmp_path / 'a.sqlite'}")
    assert database._create_from_head_schema(engine) is False
    engine.dispose()
    assert _dump(tmp_path / "a.sqlite") == ([], {})
    open_catalog(f"sqlite:///{tmp_path / 'a.sqlite'}").dispose()  # made by the migrations instead
    _by_migrations(tmp_path / "b.sqlite")
    assert _dump(tmp_path / "a.sqlite") == _dump(tmp_path / "b.sqlite")


def test_a_database_filled_meanwhile_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite"
    sqlite3.connect(path).execute("CREATE TABLE t (x)").connection.commit()
    engine = make_engine(f"sqlite:///{path}")
    try:
        assert database._create_from_head_schema(engine) is False
    finally:
        engine.dispose()
    schema, _ = _dump(path)
    assert [name for _, name, _, _ in schema] == ["t"]


def test_a_failing_statement_leaves_an_empty_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(head_schema, "STATEMENTS", (*head_schema.STATEMENTS[:3], "CREATE TABLE broken ("))
    engine = make_engine(f"sqlite:///{tmp_path / 'c.sqlite'}")
    try:
        assert database._create_from_head_schema(engine) is False
    finally:
        engine.dispose()
    assert _dump(tmp_path / "c.sqlite") == ([], {})  # one transaction: nothing half made
