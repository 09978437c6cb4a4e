"""A SQLite file catalog is opened and written through the driver connection (``Catalog.sqlite``), without
SQLAlchemy (issue 19: importing it was a third of a one-file ``interop migrate``). ``sqlite+pysqlite:///``
names the same kind of file but goes through the engine, the general path: both must leave the same catalog."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from interop.catalog import database, recorder
from interop.catalog.database import comparable_dump, default_data_dir, open_catalog, sqlite_file
from interop.catalog.migrate_run import load_done
from interop.cli import cli
from interop.cli.catalog_open import display_url

from .samples import make_folder

REPO = Path(__file__).resolve().parents[2]
STAMP = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}")
VOLATILE = re.compile(r"_at$|_ms$|\.id$|_id$|^runs\.(data_dir|summary)$")
"""Columns that differ between two runs of one migration: timestamps, timings, ids (rows are numbered by batch,
and a batch is cut by time), a run's blob store and summary (its timings; the rest is compared as printed)."""


def _urls(tmp_path: Path) -> tuple[str, str]:
    return f"sqlite:///{tmp_path / 'driver.sqlite'}", f"sqlite+pysqlite:///{tmp_path / 'engine.sqlite'}"


def _rows(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows, volatile columns replaced by their kind (a stamp must still look like one)."""
    conn = sqlite3.connect(path)
    try:
        out = {}
        for (table,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'entry_fts%'"
        ):
            names = [row[1] for row in conn.execute(f'PRAGMA table_info("{table}")')]
            rows = []
            for row in conn.execute(f'SELECT * FROM "{table}"'):
                rows.append(
                    tuple(_kind(v) if VOLATILE.search(f"{table}.{n}") else v for n, v in zip(names, row, strict=True))
                )
            out[table] = sorted(rows, key=repr)
        out["fts"] = sorted(
            conn.execute(
                "SELECT e.content FROM entry_fts JOIN lorebook_entries e ON e.id = entry_fts.rowid "
                "WHERE entry_fts MATCH 'dragon OR night'"
            ).fetchall()
        )
        return out
    finally:
        conn.close()


def _kind(value: Any) -> Any:
    if isinstance(value, str) and STAMP.fullmatch(value):
        return "stamp"
    return type(value).__name__


def _summary(data: dict[str, Any]) -> dict[str, Any]:
    return {
        k: v
        for k, v in data.items()
        if k not in ("timings_ms", "wall_s", "files_per_s", "database_busy_ms", "database_cpu_ms")
    }


def _migrate(folder: Path, out: Path, url: str) -> dict[str, Any]:
    result = CliRunner().invoke(
        cli, ["migrate", str(folder), "--to", "ccv3,lorebook_v3", "--out-dir", str(out), "--db", url, "--json"]
    )
    assert result.exit_code == 0, result.output
    return _summary(json.loads(result.stdout))


def test_the_two_urls_take_the_two_paths(tmp_path: Path) -> None:
    driver_url, engine_url = _urls(tmp_path)
    fast, general = open_catalog(driver_url), open_catalog(engine_url)
    try:
        assert fast.sqlite() is not None and fast._engine is None
        assert general.sqlite() is None and general._engine is not None
        assert fast.dialect == general.dialect == "sqlite"
        assert fast.data_dir == tmp_path / "driver.sqlite.data" and general.data_dir == tmp_path / "engine.sqlite.data"
    finally:
        fast.dispose()
        general.dispose()


@pytest.mark.parametrize(
    "url",
    [
        "sqlite:///c.db",
        "sqlite:////abs/c.db",
        "sqlite:///dir/sub/c.db",
        "sqlite:///we ird#dir@x/c é.db",  # shown percent-escaped, as SQLAlchemy renders it
        "sqlite:///a b+c~d_e.f-g/h.db",
        "sqlite:///C:\\x\\y.db",
        "sqlite:///a:b;c=d,e!f'g(h)*i$j&k",
        "sqlite:///:memory:",
        "sqlite://",
        "sqlite:///c.db?mode=ro&uri=true",
        "sqlite:///a%20b.db",
        "sqlite+pysqlite:///c.db",
        "postgresql+psycopg://u:p@h/db",
    ],
)
def test_sqlite_file_reads_urls_as_sqlalchemy_does(url: str) -> None:
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    database_file = sqlite_file(url)
    if database_file is not None:
        assert parsed.drivername == "sqlite" and not parsed.query and database_file == parsed.database
        assert display_url(url) == parsed.render_as_string(hide_password=True)
        assert default_data_dir(url) == Path(parsed.database + ".data")
    else:
        assert (
            url.startswith(("sqlite+", "postgresql"))
            or parsed.query
            or "%" in url
            or parsed.database in (None, ":memory:")
        )


@pytest.mark.parametrize(
    "moment",
    [
        datetime(2026, 11, 28, 9, 31, 28, 123456, tzinfo=UTC),
        datetime(1999, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=5))),
        datetime(2026, 1, 1),
    ],
)
def test_stamps_are_what_sqlalchemy_binds(moment: datetime) -> None:
    from sqlalchemy.dialects import sqlite

    assert recorder.sqlite_stamp(moment) == sqlite.DATETIME().bind_processor(sqlite.dialect())(moment)


def test_the_head_schema_key_reads_the_installed_sqlalchemy() -> None:
    import sqlalchemy

    assert database._installed_version("sqlalchemy") == sqlalchemy.__version__


def test_a_run_leaves_the_same_catalog_on_both_paths(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    make_folder(folder, 12)
    for source in (REPO / "corpus").rglob("*"):  # pictures, assets, chats, failures
        if source.is_file() and source.suffix not in (".md", ".py", ".txt"):
            target = folder / "corpus" / source.relative_to(REPO / "corpus")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
    (folder / "truncated.json").write_bytes(b'{"spec": "chara_card_v3", "data": {"name": "x"')
    driver_url, engine_url = _urls(tmp_path)
    first = [_migrate(folder, tmp_path / "out", url) for url in (driver_url, engine_url)]
    assert first[0] == first[1] and first[0]["files"]["imported"] > 50 and first[0]["failures"]
    (folder / "new.json").write_bytes((folder / "c0000.json").read_bytes().replace(b"Hero 0", b"Hero new"))
    again = [_migrate(folder, tmp_path / "out", url) for url in (driver_url, engine_url)]  # load_done, resumed
    assert again[0] == again[1] and again[0]["files"]["unchanged"] == first[0]["files"]["imported"]
    driver, engine = _rows(tmp_path / "driver.sqlite"), _rows(tmp_path / "engine.sqlite")
    assert len(driver["runs"]) == 2 and driver["fts"] and "stamp" in driver["runs"][0]
    assert driver == engine
    assert (
        comparable_dump(sqlite3.connect(tmp_path / "driver.sqlite"))[0]
        == comparable_dump(sqlite3.connect(tmp_path / "engine.sqlite"))[0]
    )


def test_load_done_reads_the_same_on_both_paths(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    make_folder(folder, 8)
    driver_url, _ = _urls(tmp_path)
    _migrate(folder, tmp_path / "out", driver_url)
    catalog = open_catalog(driver_url)
    try:
        fast = load_done(catalog, ["ccv3", "lorebook_v3", "risu"])
        general = load_done(catalog, ["ccv3", "lorebook_v3", "risu"], shas=sorted(fast))  # the engine's statement
        assert fast == general and len(fast) == 8
        assert load_done(catalog, ["risu"]) == {}
    finally:
        catalog.dispose()


def test_a_refused_value_fails_only_its_file_on_both_paths(tmp_path: Path) -> None:
    from interop.catalog.pipeline import RunConfig, process_file

    folder = tmp_path / "in"
    files = make_folder(folder, 6)
    dumps = []
    for url, name in zip(_urls(tmp_path), ("driver.sqlite", "engine.sqlite"), strict=True):
        catalog = open_catalog(url)
        config = RunConfig(targets=("ccv3",), out_dir=tmp_path / "out", data_dir=catalog.data_dir)
        outcomes = [process_file(config, f) for f in files]
        outcomes[3].format = ["not", "a", "value"]  # type: ignore[assignment]  # the driver refuses to bind it
        recorder.record_batch(catalog, outcomes)
        catalog.dispose()
        assert outcomes[3].status == "failed" and "cannot store" in (outcomes[3].error or "")
        assert [o.status for i, o in enumerate(outcomes) if i != 3] == ["imported"] * 5
        dumps.append(_rows(tmp_path / name))
    assert dumps[0] == dumps[1]


def test_a_run_on_a_sqlite_file_never_imports_sqlalchemy(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    make_folder(folder, 4)
    code = (
        "import json, sys; sys.argv = ['interop', *sys.argv[1:]]; from interop.cli import cli\n"
        "try: cli.main(standalone_mode=True)\nexcept SystemExit: pass\n"
        "heavy = sorted(m for m in sys.modules if m.startswith(('sqlalchemy', 'alembic')))\n"
        "sys.stderr.write('\\n' + json.dumps(heavy))"
    )
    args = [str(folder), "--to", "ccv3,lorebook_v3", "--out-dir", str(tmp_path / "out"), "--db", _urls(tmp_path)[0]]
    for _ in range(2):  # a new catalog, then a resumed run on it
        result = subprocess.run(
            [sys.executable, "-c", code, "migrate", *args],
            capture_output=True,
            text=True,
            env={"PYTHONPATH": str(REPO)},
            timeout=120,
        )
        assert json.loads(result.stderr.strip().splitlines()[-1]) == [], result.stderr
    assert "4 imported" in result.stdout or "4 unchanged" in result.stdout


def test_a_transaction_on_the_driver_connection_is_its_threads_alone(tmp_path: Path) -> None:
    """The web server records a job's run (request thread) while another job's batch is being written
    (writer thread), on one catalog: the run record must neither commit nor see the half-written batch."""
    import threading

    from interop.catalog.runlog import start_run

    catalog = open_catalog(_urls(tmp_path)[0])
    entered, recorded = threading.Event(), threading.Event()

    def record_a_run() -> None:
        entered.wait()
        start_run(catalog, "r" * 32, origin="web", files=[], targets=("ccv3",), out_dir=tmp_path)
        recorded.set()

    thread = threading.Thread(target=record_a_run)
    thread.start()
    with pytest.raises(RuntimeError), catalog.transaction() as conn:
        conn.execute("INSERT INTO assets (sha256, size) VALUES ('a', 1)")
        entered.set()
        assert not recorded.wait(0.5)  # waits for this transaction to end
        raise RuntimeError("the batch fails: rolled back")
    thread.join()
    with catalog.transaction() as conn:
        assert conn.execute("SELECT count(*) FROM assets").fetchone() == (0,)
        assert conn.execute("SELECT id, status FROM runs").fetchall() == [("r" * 32, "running")]
    catalog.dispose()
