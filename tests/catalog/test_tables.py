"""``catalog.tables`` (the ORM-free write path of ``interop migrate``) agrees with ``models``."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import insert, select
from sqlalchemy.dialects import postgresql, sqlite

from interop.catalog import tables
from interop.catalog.models import Base, Migration, Run, SourceFile


def test_columns_are_the_models_columns_in_their_order() -> None:
    expected = {t.name: tuple(c.name for c in t.c if c.name != "id") for t in Base.metadata.sorted_tables}
    assert expected == tables.COLUMNS


@pytest.mark.parametrize("light", [tables.SOURCE_FILES, tables.MIGRATIONS, tables.RUNS])
def test_light_tables_have_the_models_names_and_types(light: object) -> None:
    table = Base.metadata.tables[light.name]  # type: ignore[attr-defined]
    for column in light.c:  # type: ignore[attr-defined]
        model = table.c[column.name]
        assert type(column.type) is type(model.type), column.name
        assert repr(column.type) == repr(model.type), column.name


@pytest.mark.parametrize("dialect", [sqlite.dialect(), postgresql.dialect()])
def test_statements_compile_as_through_the_models(dialect: object) -> None:
    values = {
        "id": "r1",
        "created_at": datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
        "sources": "[]",
        "targets": "ccv3",
        "out_dir": "/o",
        "data_dir": "/d",
        "pretty": True,
        "total_files": 1,
        "batch_count": 0,
        "batch_size": 0,
        "files": "[]",
        "ignored": 0,
        "origin": "cli",
        "status": "running",
    }
    for ours, theirs in [
        (tables.RUNS.insert().values(values), insert(Run.__table__).values(values)),
        (
            select(tables.SOURCE_FILES.c.sha256, tables.MIGRATIONS.c.output_path)
            .join(tables.MIGRATIONS, tables.MIGRATIONS.c.source_file_id == tables.SOURCE_FILES.c.id)
            .where(tables.SOURCE_FILES.c.status == "imported", tables.MIGRATIONS.c.target.in_(["ccv3"])),
            select(SourceFile.sha256, Migration.output_path)
            .join(Migration, Migration.source_file_id == SourceFile.id)
            .where(SourceFile.status == "imported", Migration.target.in_(["ccv3"])),
        ),
    ]:
        a, b = ours.compile(dialect=dialect), theirs.compile(dialect=dialect)  # type: ignore[attr-defined]
        assert str(a) == str(b)
        # bound as through the models (SQLite stores timestamps as text, booleans as 0/1)
        processors_a, processors_b = a._bind_processors, b._bind_processors
        params_a, params_b = a.construct_params(), b.construct_params()
        assert params_a == params_b
        bound_a = {k: processors_a[k](v) if k in processors_a else v for k, v in params_a.items()}
        bound_b = {k: processors_b[k](v) if k in processors_b else v for k, v in params_b.items()}
        assert bound_a == bound_b
