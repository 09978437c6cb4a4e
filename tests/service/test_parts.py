"""The service's small parts: names, bindings, pasted chats, the side-by-side table, zip bundles, catalog search."""

from __future__ import annotations

from pathlib import Path

import pytest

from interop.containers.charx import read_zip
from interop.engine import chat_from_transcript, load_book, load_chat
from interop.engine.sidebyside import side_by_side
from interop.errors import InteropError, LimitExceededError, UnsafeInputError
from interop.limits import Limits
from interop.service.config import ServiceConfig, check_binding, is_loopback
from interop.service.uploads import content_disposition, safe_name
from tests.zip_bytes import zip_of

from ..conftest import PROJECT_CORPUS

CHATS = PROJECT_CORPUS / "chats"


@pytest.mark.parametrize(
    ("raw", "safe"),
    [
        ("card.png", "card.png"),
        ("../../etc/passwd", "passwd"),
        ("..\\..\\boot.ini", "boot.ini"),
        ("a%22b%0D%0Ac.json", "a_bc.json"),
        ("$(rm -rf).json", "(rm -rf).json"),
        ("", "upload"),
        ("...", "upload"),
        ("x" * 300 + ".json", "x" * 115 + ".json"),
        ("Ｆｕｌｌ.json", "Full.json"),
    ],
)
def test_safe_name(raw: str, safe: str) -> None:
    assert safe_name(raw) == safe


def test_content_disposition_has_ascii_fallback_and_utf8_name() -> None:
    header = content_disposition("Élise ☕.json")
    assert header == "attachment; filename=\"_lise _.json\"; filename*=UTF-8''%C3%89lise%20_.json"
    assert content_disposition('a"b.json').startswith('attachment; filename="a_b.json"')


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("::1", True), ("[::1]", True), ("localhost", True), ("0.0.0.0", False), ("10.0.0.5", False)],
)
def test_loopback_hosts(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_binding_elsewhere_needs_a_token() -> None:
    check_binding("127.0.0.1", None)
    check_binding("0.0.0.0", "t")
    with pytest.raises(InteropError, match="--token"):
        check_binding("0.0.0.0", None)


def test_config_round_trips_through_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    config = ServiceConfig(db="sqlite:///x.sqlite", token="t", max_upload_bytes=1000)
    monkeypatch.setenv("INTEROP_SERVE_CONFIG", config.to_env())
    assert ServiceConfig.from_env() == config
    assert config.limits.max_file_bytes == 1000


def test_pasted_chat_plain_lines() -> None:
    chat = chat_from_transcript("User: Where is the bell?\n\nMira: Up the tower.\nIt rings at dusk.\nYou: thanks")
    assert [(m.name, m.role, m.text) for m in chat.messages] == [
        ("User", "user", "Where is the bell?"),
        ("Mira", "assistant", "Up the tower.\nIt rings at dusk."),
        ("User", "user", "thanks"),
    ]
    assert chat.character.name == "Mira"


def test_pasted_chat_jsonl_is_the_file_format() -> None:
    path = CHATS / "harbor.jsonl"
    assert chat_from_transcript(path.read_bytes(), file=str(path)) == load_chat(path)


def test_side_by_side_lines_up_entries_and_flags_differences() -> None:
    chat = load_chat(CHATS / "harbor.jsonl")
    books = {p: [load_book(CHATS / "ccv3_harbor.json", p)] for p in ("sillytavern", "risu", "agnai")}
    result = side_by_side(books, chat)
    assert result.platforms == ["sillytavern", "risu", "agnai"]
    for platform in result.platforms:
        fired = {c.entry_id for row in result.rows if (c := row.cells[platform]) and c.fired}
        assert fired == result.results[platform].fired_ids
    differing = [row for row in result.rows if row.differs]
    assert differing and all(len({bool(c and c.fired) for c in row.cells.values()}) == 2 for row in differing)
    same = [row for row in result.rows if not row.differs]
    assert same and all(len({bool(c and c.fired) for c in row.cells.values()}) == 1 for row in same)


def test_a_zip_bundle_gives_its_file_members() -> None:
    data = zip_of({"a/": b"", "a/one.json": b"{}", "two.png": b"\x89PNG"})
    assert read_zip(data).members == {"a/one.json": b"{}", "two.png": b"\x89PNG"}


def test_a_zip_bundle_gets_the_charx_checks() -> None:
    with pytest.raises(UnsafeInputError, match="zip-slip"):
        read_zip(zip_of({"../x": b"1"}))
    with pytest.raises(LimitExceededError, match="compression ratio"):
        read_zip(zip_of({"z": b"\0" * (4 * 1024 * 1024)}))
    with pytest.raises(LimitExceededError, match="entries"):
        read_zip(zip_of({f"{i}.json": b"{}" for i in range(5)}), limits=Limits(max_zip_entries=4))


def test_catalog_list_items_search_and_pages(tmp_path: Path) -> None:
    from interop.catalog import migrate, open_catalog
    from interop.catalog.queries import list_items

    cards = PROJECT_CORPUS / "cards"
    catalog = open_catalog(f"sqlite:///{tmp_path / 'c.sqlite'}")
    try:
        migrate(catalog, sorted(p for p in cards.iterdir() if p.suffix == ".json"), ("ccv3",), tmp_path / "out")
        with catalog.session() as session:
            everything = list_items(session, limit=1000)
            pages = [list_items(session, limit=2, offset=o) for o in range(0, len(everything), 2)]
            assert [i for page in pages for i in page] == everything
            by_name = list_items(session, q="ILSE")
            assert by_name and all("ilse" in (i["name"] or "").lower() for i in by_name)
            # "%" and "_" are literal characters, not LIKE wildcards.
            assert list_items(session, q="%") == [] and list_items(session, q="_") == []
            # A lorebook whose entries mention a word, though its name does not.
            by_entry = list_items(session, q="copper cranes", kind="lorebook")
            assert by_entry and all((i["name"] or "").startswith("Brasshaven") for i in by_entry)
            # Cards match through their embedded lorebook too (every Ilse card carries the Brasshaven book).
            cards = list_items(session, q="copper cranes", kind="card")
            assert cards and all("Ilse" in i["name"] for i in cards)
    finally:
        catalog.dispose()


def test_warm_up_loads_every_writer_and_freezes_the_heap() -> None:
    import gc

    from interop.service.warmup import warm_up

    before = gc.get_freeze_count()
    try:
        warm_up()
        assert gc.get_freeze_count() > before
    finally:
        gc.unfreeze()
