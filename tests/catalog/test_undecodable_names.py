"""A file whose name is not UTF-8 (Python hands it over with lone surrogates) is migrated and
recorded like any other: it used to end the whole run with an internal error (exit 4), because no
database driver can encode those surrogates (the run record, the source row, the summary)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from interop.catalog.database import open_catalog
from interop.catalog.models import Run, SourceFile
from interop.cli import cli

from .samples import make_card, write_card

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file names are bytes")


def _odd(folder: Path, stem: bytes) -> Path:
    return Path(os.fsdecode(os.fsencode(folder) + b"/" + stem + b".json"))


@pytest.mark.parametrize("db", ["sqlite", "pg"])
def test_a_file_named_in_no_utf8_is_recorded_not_fatal(db: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    url = request.getfixturevalue("sqlite_url" if db == "sqlite" else "pg_url")
    src = tmp_path / "in"
    src.mkdir()
    write_card(src / "plain.json", make_card("Plain", seed=1))
    odd = write_card(_odd(src, b"caf\xe9"), make_card("Odd", seed=2))  # Latin-1 "café"
    _odd(src, b"bad\xff").write_bytes(b"not json")  # a failure whose reason names the file
    assert "\udce9" in str(odd)
    result = CliRunner().invoke(
        cli, ["migrate", str(src), "--to", "ccv3", "--out", str(tmp_path / "out"), "--db", url, "--json"]
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["files"]["imported"] == 2 and summary["files"]["failed"] == 1
    catalog = open_catalog(url)
    try:
        with catalog.session() as s:
            paths = sorted(s.scalars(select(SourceFile.path)))
            run = s.scalars(select(Run)).one()
        assert any(p.endswith("caf\\udce9.json") for p in paths), paths
        assert run.status == "done"
        # the run's own list reads back to the very names (a resumed run opens them again)
        assert sorted(json.loads(run.files)) == sorted(str(p) for p in src.iterdir())
    finally:
        catalog.dispose()
