"""Reports stored with their shared part apart (revision 0008) read back as the exact text written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import func, select, text

from interop.catalog import report_parts
from interop.catalog.database import alembic_config, make_engine, open_catalog, upgrade_schema
from interop.catalog.models import FidelityReport, Migration, ReportPart, SourceFile
from interop.catalog.pipeline import RunConfig, process_file
from interop.catalog.queries import ItemRef, report_text, show_item
from interop.catalog.recorder import record_batch
from interop.catalog.report_parts import join_report, split_report

from .samples import make_folder


def _report(items: list[dict[str, object]], **more: object) -> str:
    """Compact report JSON in ``FidelityReport.to_json_text``'s key order."""
    data = {"schema_version": "1.2", "source": {"file": more.get("file", "a.json")}, "items": items}
    data |= {"warnings": more.get("warnings", []), "apps": [], "entry_names": []}
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


ITEMS = [{"path": f"entry[{i}].content", "fate": "kept", "detail": "", "rule": "book.**"} for i in range(20)]


@pytest.mark.parametrize(
    "report",
    [
        _report(ITEMS),
        _report(ITEMS, file='odd "items":[ name],"warnings":x.json', warnings=['a ],"warnings": b']),
        _report([*ITEMS, {"path": "card.name", "fate": "lost", "detail": 'ünï ✓ 😀 \\ "', "rule": None}]),
        _report(ITEMS[:1]),  # too small to share
        _report([]),
        '{"not":"a report"}',
        "",
    ],
)
def test_a_split_report_joins_back_to_the_same_text(report: str) -> None:
    split = split_report(report)
    if split is None:
        assert len(report) < 400 or '"items":[' not in report
        return
    assert join_report(split.rest, split.at, split.part) == report
    assert json.loads(split.rest)["items"] == []  # what is stored alone is still a report
    assert split.part == report[split.at : split.at + len(split.part)]


def test_a_remembered_part_gives_what_a_fresh_split_gives() -> None:
    """Parts of a length seen before are compared in full, not trusted by length: equal or hashed anew."""
    report_parts._RECENT.clear()
    first = split_report(_report(ITEMS))
    same = split_report(_report(ITEMS, file="other.json"))
    swapped = [dict(i, fate="lost" if n == 3 else "kept") for n, i in enumerate(ITEMS)]  # same length, other text
    other = split_report(_report(swapped))
    report_parts._RECENT.clear()
    fresh = split_report(_report(swapped))
    assert first is not None and same is not None and other is not None and fresh is not None
    assert same.sha256 == first.sha256 and same.part == first.part
    assert len(other.part) == len(first.part) and other.part != first.part
    assert other == fresh and other.sha256 != first.sha256


def _record(url: str, tmp_path: Path, files: int = 6) -> tuple[dict[tuple[str, str], str], int, int]:
    """Record ``files`` sample files converted to two targets: (source sha, target) -> the report text the
    run made; and how many reports and parts the catalog holds."""
    catalog = open_catalog(url)
    config = RunConfig(targets=("ccv3", "lorebook_v3"), out_dir=tmp_path / "out", data_dir=catalog.data_dir)
    outcomes = [process_file(config, p) for p in make_folder(tmp_path / "in", files)]
    record_batch(catalog, outcomes)
    written = {(o.sha256 or "", t.target): t.report_json or "" for o in outcomes for t in o.targets if t.report_json}
    stored: dict[tuple[str, str], str] = {}
    with catalog.session() as s:
        for m, sha in s.execute(select(Migration, SourceFile.sha256).join(SourceFile)):
            if m.report is not None and (sha, m.target) in written:  # (the catalog may hold older reports)
                stored[(sha, m.target)] = report_text(m.report)
        reports = s.scalar(select(func.count()).select_from(FidelityReport)) or 0
        parts = s.scalar(select(func.count()).select_from(ReportPart)) or 0
    catalog.dispose()
    assert stored == written
    return stored, reports, parts


def test_reports_read_back_whole_and_their_items_are_stored_once(sqlite_url: str, tmp_path: Path) -> None:
    stored, reports, parts = _record(sqlite_url, tmp_path)
    assert reports == len(stored) >= 6
    assert 0 < parts < reports  # files of one shape share their items


@pytest.mark.postgres
def test_reports_read_back_whole_on_postgresql(pg_url: str, tmp_path: Path) -> None:
    stored, reports, parts = _record(pg_url, tmp_path)
    assert reports == len(stored) >= 6
    assert 0 < parts < reports


def test_catalog_show_reads_the_whole_report(sqlite_url: str, tmp_path: Path) -> None:
    """``show`` lists a migration's lost items from the items stored apart."""
    catalog = open_catalog(sqlite_url)
    config = RunConfig(targets=("novelai-lorebook",), out_dir=tmp_path / "out", data_dir=catalog.data_dir)
    outcomes = [process_file(config, p) for p in make_folder(tmp_path / "in", 1)]
    record_batch(catalog, outcomes)
    with catalog.session() as s:
        row = s.scalars(select(FidelityReport)).first()
        assert row is not None and row.part_id is not None
        expected = [i for i in json.loads(report_text(row))["items"] if i["fate"] == "lost"]
        card_id = s.scalar(select(Migration.card_id).where(Migration.id == row.migration_id))
        shown = show_item(s, ItemRef("card", card_id or 0))
    catalog.dispose()
    assert expected and shown["migrations"][0]["lost"] == expected


@pytest.mark.parametrize("db", ["sqlite", pytest.param("pg", marks=pytest.mark.postgres)])
def test_reports_stored_before_0008_stay_readable_and_survive_a_downgrade(
    db: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Upgrading keeps a 0007 report as it was; going back down puts shared parts back into their reports."""
    from alembic import command

    sqlite_url = request.getfixturevalue("sqlite_url" if db == "sqlite" else "pg_url")
    _, written = _record_at_0007(sqlite_url, tmp_path)
    engine = make_engine(sqlite_url)
    upgrade_schema(engine)
    catalog = open_catalog(sqlite_url)
    with catalog.session() as s:
        old = {r.migration_id: report_text(r) for r in s.scalars(select(FidelityReport))}
    assert old == written
    # a new run over other files stores split reports beside the old whole ones
    stored, _, parts = _record(sqlite_url, tmp_path / "more")
    assert parts > 0
    config = alembic_config()
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, "0007")
    with engine.connect() as conn:
        texts = {r[0] for r in conn.execute(text("SELECT report FROM fidelity_reports"))}
    engine.dispose()
    catalog.dispose()
    assert texts == set(written.values()) | set(stored.values())


def _record_at_0007(url: str, tmp_path: Path) -> tuple[int, dict[int, str]]:
    """A catalog at revision 0007 holding whole reports (as that version wrote them)."""
    engine = make_engine(url)
    upgrade_schema(engine, "0007")
    report = _report(ITEMS)
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO source_files (sha256, path, size, status, imported_at) "
                "VALUES ('aa', 'a.json', 1, 'imported', '2026-01-01 00:00:00')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO migrations (source_file_id, item_kind, target, status, read_ms, convert_ms, "
                "report_ms, finished_at) VALUES (1, 'card', 'ccv3', 'done', 0, 0, 0, '2026-01-01 00:00:00')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO fidelity_reports (migration_id, kept, translated, stashed, approximated, lost, "
                "has_losses, report) VALUES (1, 20, 0, 0, 0, 0, :no, :r)"
            ),
            {"r": report, "no": False},
        )
    engine.dispose()
    return 1, {1: report}


def test_remembered_parts_hold_bounded_memory() -> None:
    """The per-length memory of recent parts must not keep hundreds of large item lists alive for the
    life of the process (``interop serve``): a run over big, distinct books once held 256 of them."""
    report_parts._RECENT.clear()
    body = "x" * 200_000
    for i in range(250):
        items = [{"path": "entry.content", "fate": "kept", "detail": body[: 200_000 - i], "rule": None}]
        assert split_report(_report(items)) is not None
    held = sum(len(part) for part, _ in report_parts._RECENT.values())
    assert held <= 16_000_000
    # and the usual case is still remembered: a repeated small part is found again
    report_parts._RECENT.clear()
    first = split_report(_report(ITEMS))
    assert first is not None and report_parts._RECENT[len(first.part)][0] == first.part
