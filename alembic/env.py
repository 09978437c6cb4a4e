"""Alembic environment for the interop catalog.

interop runs migrations in-process (``interop catalog upgrade``) and hands a
live connection in ``config.attributes["connection"]``. Running the
``alembic`` command directly also works: pass the database with
``-x db=URL`` or ``INTEROP_DB``.
"""

from __future__ import annotations

from sqlalchemy import Connection

from alembic import context
from interop.catalog.database import default_url, make_engine
from interop.catalog.models import Base
from interop.catalog.search import include_object

target_metadata = Base.metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        # SQLite cannot ALTER most things: batch mode recreates tables instead.
        render_as_batch=connection.dialect.name == "sqlite",
        include_object=include_object,
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = context.config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = context.get_x_argument(as_dictionary=True).get("db") or default_url()
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            _run(conn)
    finally:
        engine.dispose()


if context.is_offline_mode():
    raise SystemExit("interop catalog migrations run online only (they branch on the database dialect)")
run_migrations_online()
