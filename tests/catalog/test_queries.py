"""``interop catalog list|show|search|export|stats`` on a catalog filled by ``interop migrate``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from deepdiff import DeepDiff

from interop.api import read
from interop.catalog.database import open_catalog
from interop.catalog.queries import ItemRef, load_document, show_item
from interop.catalog.search import search_entries
from interop.cli import cli
from interop.errors import CatalogError

from .samples import make_book, make_card, write_book, write_card


def catalog_cmd(*args: str) -> str:
    result = CliRunner().invoke(cli, ["catalog", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def filled(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, Path]:
    url = f"sqlite:///{tmp_path / 'c.sqlite'}" if request.param == "sqlite" else request.getfixturevalue("pg_url")
    src = tmp_path / "in"
    write_card(src / "aria.json", make_card("Aria", book_entries=3, seed=0, tags=("fantasy", "Bard")))
    write_card(src / "bob.json", make_card("Bob", seed=1, tags=("scifi",)), "ccv2")
    write_book(src / "atlas.json", make_book("Atlas", 4, 5))
    result = CliRunner().invoke(
        cli, ["migrate", str(src), "--to", "ccv3,lorebook_v3", "--out", str(tmp_path / "out"), "--db", url]
    )
    assert result.exit_code == 0, result.output
    return url, src


def refs(output: str) -> list[str]:
    return [item["ref"] for item in json.loads(output)]


def test_list_filters(filled: tuple[str, Path]) -> None:
    url, _ = filled
    everything = json.loads(catalog_cmd("list", "--db", url, "--json"))
    assert {(i["kind"], i["name"]) for i in everything} == {
        ("card", "Aria"),
        ("card", "Bob"),
        ("lorebook", "Aria lore"),
        ("lorebook", "Atlas"),
    }
    names = lambda out: sorted(i["name"] for i in json.loads(out))  # noqa: E731
    assert names(catalog_cmd("list", "--db", url, "--json", "--tag", "bard")) == ["Aria"]
    assert names(catalog_cmd("list", "--db", url, "--json", "--creator", "other")) == ["Bob"]
    assert names(catalog_cmd("list", "--db", url, "--json", "--format", "ccv2")) == ["Bob"]
    assert names(catalog_cmd("list", "--db", url, "--json", "--format", "lorebook_v3")) == ["Atlas"]
    assert names(catalog_cmd("list", "--db", url, "--json", "--platform", "ccv3", "--kind", "card")) == ["Aria", "Bob"]
    assert names(catalog_cmd("list", "--db", url, "--json", "--tag", "nope")) == []
    assert "Aria" in catalog_cmd("list", "--db", url)


def test_show_card_with_book_migrations_and_sources(filled: tuple[str, Path]) -> None:
    url, src = filled
    aria = next(i for i in json.loads(catalog_cmd("list", "--db", url, "--json")) if i["name"] == "Aria")
    info = json.loads(catalog_cmd("show", aria["ref"], "--db", url, "--json"))
    assert info["lorebook"]["entries"] == 3
    assert info["sources"][0]["path"] == str(src / "aria.json")
    assert {m["target"]: m["status"] for m in info["migrations"]} == {"ccv3": "done", "lorebook_v3": "done"}
    book = json.loads(catalog_cmd("show", info["lorebook"]["ref"], "--db", url, "--json"))
    assert [e["position"] for e in book["entries"]] == [0, 1, 2]
    assert book["cards"][0]["name"] == "Aria"
    text = catalog_cmd("show", aria["ref"], "--db", url)
    assert "lorebook" in text and "ccv3" in text


def test_search_over_keys_and_content(filled: tuple[str, Path]) -> None:
    url, _ = filled
    hits = json.loads(catalog_cmd("search", "dragon", "--db", url, "--json"))
    assert hits and all("dragon" in (h["keys"] + h["snippet"]).lower() for h in hits)
    both = json.loads(catalog_cmd("search", "Atlas tavern", "--db", url, "--json"))
    assert {h["lorebook"] for h in both} == {"Atlas"}
    assert json.loads(catalog_cmd("search", "unobtainium", "--db", url, "--json")) == []
    # key-only words (secondary keys) are searchable too
    catalog = open_catalog(url)
    with catalog.engine.connect() as conn:
        assert search_entries(conn, "night")
        assert search_entries(conn, '"quoted" AND (syntax') == []  # user text is never FTS syntax
    catalog.dispose()


def test_export_round_trips_the_canonical_card(filled: tuple[str, Path], tmp_path: Path) -> None:
    url, src = filled
    aria = next(i for i in json.loads(catalog_cmd("list", "--db", url, "--json")) if i["name"] == "Aria")
    out = tmp_path / "export.json"
    catalog_cmd("export", aria["ref"], "--to", "ccv3", "-o", str(out), "--db", url)
    original = json.loads((src / "aria.json").read_text())
    assert DeepDiff(original, json.loads(out.read_text())) == {}
    atlas = next(i for i in json.loads(catalog_cmd("list", "--db", url, "--json")) if i["name"] == "Atlas")
    book_out = tmp_path / "atlas.json"
    catalog_cmd("export", atlas["ref"], "--to", "lorebook_v3", "-o", str(book_out), "--db", url)
    assert DeepDiff(json.loads((src / "atlas.json").read_text()), json.loads(book_out.read_text())) == {}
    card_out = tmp_path / "atlas-card.json"
    catalog_cmd("export", atlas["ref"], "--to", "ccv2", "-o", str(card_out), "--db", url)
    assert read(card_out).card is not None


def test_stats_by_format_and_target(filled: tuple[str, Path]) -> None:
    url, _ = filled
    stats = json.loads(catalog_cmd("stats", "--db", url, "--json"))
    assert stats["files_by_format"] == {
        "ccv2": {"imported": 1},
        "ccv3": {"imported": 1},
        "lorebook_v3": {"imported": 1},
    }
    assert (stats["cards"], stats["lorebooks"], stats["entries"]) == (2, 2, 7)
    assert stats["migrations_by_target"]["lorebook_v3"]["skipped"] == 1
    assert stats["migrations_by_target"]["ccv3"]["done"] == 3
    assert "migrations by target" in catalog_cmd("stats", "--db", url)


def test_bad_item_references_are_catalog_errors(sqlite_url: str) -> None:
    with pytest.raises(CatalogError):
        ItemRef.parse("song:3")
    assert ItemRef.parse("book:7") == ItemRef("lorebook", 7) and ItemRef.parse("12") == ItemRef("card", 12)
    result = CliRunner().invoke(cli, ["catalog", "show", "card:99", "--db", sqlite_url])
    assert result.exit_code == 3 and "no card with id 99" in result.stderr


def test_assets_are_content_addressed_blobs_and_come_back_on_export(tmp_path: Path, sqlite_url: str) -> None:
    from io import BytesIO

    from PIL import Image

    from interop.api import write
    from interop.document import Document
    buffer = BytesIO()
    Image.new("RGB", (8, 8), (200, 30, 30)).save(buffer, "PNG")
    picture = buffer.getvalue()
    src = tmp_path / "in"
    src.mkdir()
    card_doc = Document(format="ccv3", card=make_card("Pixel", book_entries=1))
    (src / "pixel.png").write_bytes(write(card_doc, "png", image=picture))
    (src / "again.png").write_bytes(write(card_doc, "png", image=picture) + b"")  # identical bytes
    result = CliRunner().invoke(
        cli, ["migrate", str(src), "--to", "ccv3", "--out", str(tmp_path / "o"), "--db", sqlite_url]
    )
    assert result.exit_code == 0, result.output

    catalog = open_catalog(sqlite_url)
    with catalog.session() as session:
        info = show_item(session, ItemRef("card", 1))
        images = [a for a in info["assets"] if a["role"] == "image"]
        assert len(images) == 1
        blob = catalog.asset_path(images[0]["sha256"])
        doc = load_document(catalog, session, ItemRef("card", 1))
    catalog.dispose()
    assert blob.is_file() and blob.parent.parent.name == "assets"
    assert doc.image is not None and Image.open(BytesIO(doc.image)).size == (8, 8)
    out = tmp_path / "back.png"
    catalog_cmd("export", "card:1", "--to", "png", "-o", str(out), "--db", sqlite_url)
    assert read(out).card is not None and read(out).card.data.name == "Pixel"
