"""``interop migrate``: import, convert, record; idempotent reruns; bad files never stop a run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sqlalchemy import func, select

from interop.api import read
from interop.catalog.database import open_catalog
from interop.catalog.models import (
    Card,
    CardSource,
    CardTag,
    FidelityReport,
    Lorebook,
    LorebookEntry,
    LorebookSource,
    Migration,
    SourceFile,
)
from interop.catalog.queries import ItemRef, load_document
from interop.cli import cli

from .samples import make_book, make_card, make_folder, write_book, write_card


def run_migrate(*args: str) -> Result:
    result = CliRunner().invoke(cli, ["migrate", *args], catch_exceptions=False)
    return result


def counts(url: str) -> dict[str, int]:
    catalog = open_catalog(url)
    with catalog.session() as s:
        out = {
            model.__tablename__: s.scalar(select(func.count()).select_from(model)) or 0
            for model in (SourceFile, Card, Lorebook, LorebookEntry, Migration, CardSource, LorebookSource, CardTag)
        }
    catalog.dispose()
    return out


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    src = tmp_path / "in"
    make_folder(src, 8)
    (src / "README.md").write_text("# samples\n")
    (src / "make_samples.py").write_text("print('hi')\n")
    (src / "junk.json").write_text('{"hello": "world"}')
    (src / "truncated.json").write_bytes(b'{"spec": "chara_card_v3", "data": {"name": "x"')
    return src


def test_migrate_imports_converts_and_summarises(folder: Path, tmp_path: Path, sqlite_url: str) -> None:
    out = tmp_path / "out"
    result = run_migrate(str(folder), "--to", "ccv3,lorebook_v3", "--out", str(out), "--db", sqlite_url, "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["files"] == {
        "seen": 12,
        "imported": 8,
        "duplicate": 0,
        "unchanged": 0,
        "ignored": 2,
        "failed": 2,
    }
    assert (summary["cards"], summary["lorebooks"], summary["embedded_lorebooks"]) == (4, 4, 2)
    assert summary["entries"] == 2 * 3 + 2 * 4 + 2 * 2
    assert summary["targets"]["ccv3"] == {**summary["targets"]["ccv3"], "written": 8, "skipped": 0, "failed": 0}
    book_target = summary["targets"]["lorebook_v3"]
    assert (book_target["written"], book_target["skipped"], book_target["failed"]) == (6, 2, 0)
    assert sum(book_target["skip_reasons"].values()) == 2  # the two ccv2 cards without a lorebook
    failed = {Path(f["file"]).name: f["reason"] for f in summary["failures"]}
    assert set(failed) == {"junk.json", "truncated.json"}
    assert all(failed.values())

    written = sorted(out.rglob("*.json"))
    assert len(written) == 14
    for path in written:
        doc = read(path)
        assert doc.format == path.parent.name
    assert not list(out.rglob("*.tmp"))

    c = counts(sqlite_url)
    assert c["source_files"] == 10  # 8 imported + 2 failed, the ignored ones are not recorded
    assert (c["cards"], c["lorebooks"], c["lorebook_entries"]) == (4, 6, 18)
    assert c["migrations"] == 16


def test_rerun_does_nothing_twice(folder: Path, tmp_path: Path, sqlite_url: str) -> None:
    out = tmp_path / "out"
    run_migrate(str(folder), "--to", "ccv3,lorebook_v3", "--out", str(out), "--db", sqlite_url)
    before = counts(sqlite_url)
    outputs = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    result = run_migrate(str(folder), "--to", "ccv3,lorebook_v3", "--out", str(out), "--db", sqlite_url, "--json")
    summary = json.loads(result.stdout)
    assert summary["files"]["unchanged"] == 8 and summary["files"]["imported"] == 0
    assert summary["files"]["failed"] == 2  # bad files are retried (a newer adapter may read them)
    assert counts(sqlite_url) == before
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == outputs


def test_a_new_target_on_rerun_converts_only_what_is_missing(folder: Path, tmp_path: Path, sqlite_url: str) -> None:
    out = tmp_path / "out"
    run_migrate(str(folder), "--to", "ccv3", "--out", str(out), "--db", sqlite_url)
    result = run_migrate(str(folder), "--to", "ccv3,ccv2", "--out", str(out), "--db", sqlite_url, "--json")
    summary = json.loads(result.stdout)
    assert summary["files"]["imported"] == 8
    assert summary["targets"]["ccv2"]["written"] == 8
    c = counts(sqlite_url)
    assert c["migrations"] == 16 and c["cards"] == 4 and c["source_files"] == 10


def test_identical_files_import_once_and_one_card_from_two_files_is_linked(tmp_path: Path, sqlite_url: str) -> None:
    src = tmp_path / "in"
    card = make_card("Twin", book_entries=2, seed=3)
    write_card(src / "a.json", card)
    write_card(src / "copy" / "a.json", card)  # same bytes
    write_card(src / "compact.json", card, pretty=False)  # same card, other bytes
    out = tmp_path / "out"
    result = run_migrate(str(src), "--to", "ccv3", "--out", str(out), "--db", sqlite_url, "--json")
    summary = json.loads(result.stdout)
    assert summary["files"]["imported"] == 2 and summary["files"]["duplicate"] == 1
    c = counts(sqlite_url)
    assert (c["source_files"], c["cards"], c["lorebooks"], c["card_sources"], c["lorebook_sources"]) == (2, 1, 1, 2, 2)
    assert c["lorebook_entries"] == 2
    # one output per distinct source file (named by its bytes): the copy adds none
    assert len(list((out / "ccv3").iterdir())) == 2


def test_fidelity_fates_are_recorded(folder: Path, tmp_path: Path, sqlite_url: str) -> None:
    result = run_migrate(str(folder), "--to", "ccv2", "--out", str(tmp_path / "out"), "--db", sqlite_url, "--json")
    summary = json.loads(result.stdout)
    fates = summary["targets"]["ccv2"]["fates"]
    assert fates is not None and sum(fates.values()) > 0
    catalog = open_catalog(sqlite_url)
    with catalog.session() as s:
        reports = s.scalars(select(FidelityReport)).all()
    catalog.dispose()
    assert len(reports) == summary["targets"]["ccv2"]["written"]
    assert all(json.loads(r.report) for r in reports)


def test_jobs_give_the_same_catalog(tmp_path: Path) -> None:
    src = tmp_path / "in"
    make_folder(src, 12)
    one, two = f"sqlite:///{tmp_path / 'one.sqlite'}", f"sqlite:///{tmp_path / 'two.sqlite'}"
    r1 = run_migrate(str(src), "--to", "ccv3", "--out", str(tmp_path / "o1"), "--db", one, "--json")
    r2 = run_migrate(str(src), "--to", "ccv3", "--out", str(tmp_path / "o2"), "--db", two, "--json", "--jobs", "2")
    s1, s2 = json.loads(r1.stdout), json.loads(r2.stdout)
    assert s1["files"] == s2["files"] and s1["targets"] == s2["targets"]
    assert counts(one) == counts(two)
    names1 = sorted(p.name for p in (tmp_path / "o1").rglob("*.json"))
    assert names1 == sorted(p.name for p in (tmp_path / "o2").rglob("*.json"))


def test_a_file_named_explicitly_is_tried_and_unknown_targets_are_usage_errors(tmp_path: Path, sqlite_url: str) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("just text")
    result = run_migrate(str(notes), "--to", "ccv3", "--out", str(tmp_path / "o"), "--db", sqlite_url, "--json")
    assert json.loads(result.stdout)["files"]["failed"] == 1
    result = run_migrate(str(notes), "--to", "no-such-format", "--out", str(tmp_path / "o"), "--db", sqlite_url)
    assert result.exit_code == 2 and "not a writable format" in result.output


def test_strict_exits_1_on_failures_and_out_inside_a_source_is_refused(folder: Path, sqlite_url: str) -> None:
    result = run_migrate(str(folder), "--to", "ccv3", "--out", str(folder.parent / "o"), "--db", sqlite_url, "--strict")
    assert result.exit_code == 1
    result = run_migrate(str(folder), "--to", "ccv3", "--out", str(folder / "out"), "--db", sqlite_url)
    assert result.exit_code == 2


def test_standalone_book_exports_as_a_card_and_books_keep_their_entries(tmp_path: Path, sqlite_url: str) -> None:
    src = tmp_path / "in"
    write_book(src / "w.json", make_book("Atlas", 5, 1))
    run_migrate(str(src), "--to", "ccv3", "--out", str(tmp_path / "o"), "--db", sqlite_url)
    out_file = next((tmp_path / "o" / "ccv3").iterdir())
    doc = read(out_file)
    assert doc.card is not None and doc.book is not None and len(doc.book.entries) == 5


def test_a_damaged_or_deleted_output_is_redone_on_rerun(folder: Path, tmp_path: Path, sqlite_url: str) -> None:
    out = tmp_path / "out"
    run_migrate(str(folder), "--to", "ccv3", "--out", str(out), "--db", sqlite_url)
    outputs = sorted((out / "ccv3").iterdir())
    good = outputs[0].read_bytes()
    outputs[0].write_bytes(good[: len(good) // 2])
    outputs[1].unlink()
    result = run_migrate(str(folder), "--to", "ccv3", "--out", str(out), "--db", sqlite_url, "--json")
    summary = json.loads(result.stdout)
    assert summary["files"]["imported"] == 2 and summary["files"]["unchanged"] == 6
    assert outputs[0].read_bytes() == good and outputs[1].is_file()
    assert counts(sqlite_url)["migrations"] == 8


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def any_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'any.sqlite'}"
    return request.getfixturevalue("pg_url")


def test_nul_characters_and_lone_surrogates_are_catalogued_losslessly(tmp_path: Path, any_url: str) -> None:
    src = tmp_path / "in"
    src.mkdir()
    card = json.loads((write_card(src / "tmp.json", make_card("Odd", book_entries=1))).read_text())
    (src / "tmp.json").unlink()
    card["data"]["name"] = "Odd \ud83d name"  # half an emoji, as broken exporters write
    card["data"]["character_book"]["entries"][0]["content"] = "before\u0000after"
    raw = json.dumps(card, ensure_ascii=True)
    (src / "odd.json").write_text(raw)
    result = run_migrate(str(src), "--to", "ccv3", "--out", str(tmp_path / "out"), "--db", any_url, "--json")
    summary = json.loads(result.stdout)
    assert summary["files"]["imported"] == 1, summary
    # the catalog gives back exactly what was read (the JSON writer's own handling of
    # lone surrogates is not the catalog's business, so compare canonical models)
    catalog = open_catalog(any_url)
    with catalog.session() as session:
        doc = load_document(catalog, session, ItemRef("card", 1))
    catalog.dispose()
    assert doc.card is not None and doc.card.dump() == json.loads(raw)
    hits = CliRunner().invoke(cli, ["catalog", "search", "before", "--db", any_url, "--json"])
    assert json.loads(hits.stdout)[0]["snippet"].startswith("before")
