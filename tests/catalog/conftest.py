"""Catalog fixtures: a SQLite catalog per test, and a throwaway PostgreSQL database.

PostgreSQL tests run against the server given by ``INTEROP_TEST_PG`` (default
``postgresql://127.0.0.1:5432/test``, trust auth). Each test creates its own
database and drops it afterwards; they skip, saying why, only when no server
is reachable.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

PG_ADMIN = os.environ.get("INTEROP_TEST_PG", "postgresql://127.0.0.1:5432/test")


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'catalog.sqlite'}"


def _pg_connect(url: str) -> tuple[Any, str]:
    import psycopg  # imported here: the SQLite tests need no PostgreSQL driver

    last: Exception | None = None
    for user in (None, "root", "postgres"):
        try:
            conninfo = url if user is None else url.replace("://", f"://{user}@", 1)
            return psycopg.connect(conninfo, autocommit=True, connect_timeout=3), conninfo
        except psycopg.Error as exc:
            last = exc
    pytest.skip(f"PostgreSQL not reachable at {url}: {str(last).strip().splitlines()[0] if last else '?'}")


@pytest.fixture
def pg_url() -> Iterator[str]:
    admin, conninfo = _pg_connect(PG_ADMIN)
    name = f"interop_test_{uuid.uuid4().hex[:12]}"
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        base = conninfo.rsplit("/", 1)[0]
        try:
            yield "postgresql+psycopg://" + base.split("://", 1)[1] + "/" + name
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
