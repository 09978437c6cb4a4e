"""The catalog's canonical JSON and content hashes are json's, whoever writes them (orjson when it agrees)."""

from __future__ import annotations

import datetime
import hashlib
import uuid
from enum import StrEnum
from typing import Any

import pytest

import interop
from interop.catalog import records
from interop.catalog.records import _COMPACT, _SORTED, book_record, canonical_json, content_hash, item_record
from interop.document import Document
from interop.errors import InteropError
from interop.model import LorebookEntry
from tests.catalog.samples import make_book, make_card
from tests.conftest import project_files, shared_files


class Kind(StrEnum):
    A = "a"


VALUES: list[Any] = [
    {"b": 1, "a": [1, 2.5, None, True, False], "é": "ünï ✓ 😀", "\U0001f600": {"z": 0, "y": -0.0}},
    {"text": "".join(chr(c) for c in range(0x250)) + "\u2028\u2029\ufeff"},  # every escape json writes
    {"small": [1e-05, 1.5e-07, 2.5e-9, 9.9e-05, 0.0001, 1e-10, 1e-300]},  # floats orjson writes otherwise
    {"big": [1e16, 1.5e22, 1e300, 123456.789, 2**63, -(2**63), 2**64 - 1]},
    {"odd": [float("nan"), float("inf")]},  # json: NaN / Infinity, orjson: null
    {"huge": 2**70},  # orjson refuses
    {1: "int key", 2: "two"},  # json writes "1"
    {"date": datetime.datetime(2026, 1, 2, 3, 4, 5), "day": datetime.date(2026, 1, 2)},  # json: str()
    {"uuid": uuid.UUID(int=5), "tuple": (1, "x")},
    {"enum": Kind.A, Kind.A: 1},
    {"surrogate": "half \ud83d emoji"},
    {"text with 1e-5 and 0.00001 inside": "2e-7 is not a number here"},
    [],
    "plain",
]


@pytest.mark.parametrize("value", VALUES)
def test_canonical_json_and_hash_are_what_json_writes(value: Any) -> None:
    try:
        expected = _COMPACT(value)
        expected.encode("utf-8")
    except UnicodeEncodeError:
        expected = records._COMPACT_ASCII(value)
    assert canonical_json(value) == expected
    assert content_hash(value) == hashlib.sha256(_SORTED(value).encode("utf-8", "surrogatepass")).hexdigest()


def test_a_book_record_is_the_same_through_either_writer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The book is checked once and its entries hashed unchecked: the rows equal json's everywhere."""
    book = make_book("World", 4, 3)
    book.entries[1].extensions = {"weight": 1e-05, "when": None}  # a float orjson writes otherwise
    book.entries[2].extensions = {"none": None, "list": [1, 2]}
    fast = book_record(book)
    monkeypatch.setattr(records, "_orjson", lambda obj, option=0: None)
    monkeypatch.setattr(records, "_orjson_checked", lambda obj, option=0: None)
    monkeypatch.setattr(records, "_str_list_json", records._canonical_slow)
    assert book_record(book) == fast
    book.entries[1].extensions = {}
    assert book_record(book).content_hash != fast.content_hash  # the hash does see the values


ODD_ENTRIES: list[dict[str, Any]] = [
    {"keys": ["a", "b"], "secondary_keys": ["c"], "content": "plain", "enabled": True, "insertion_order": 3},
    {"keys": "a, b ,, c", "secondary_keys": None, "content": None, "name": "", "comment": "by comment"},
    {"keys": [1, None, "x"], "secondary_keys": ["y", 2.5], "content": {"not": "text"}, "insertion_order": "7"},
    {"keys": [], "secondary_keys": [], "enabled": "false", "constant": 1, "selective": "yes", "use_regex": 0},
    {"keys": ["nul\x00key"], "content": "nul\x00 and half \ud83d emoji", "case_sensitive": "TRUE"},
    {"keys": ["half \udc00"], "secondary_keys": ("tuple",), "insertion_order": True, "name": "n\x00"},
    {"keys": ["k"], "insertion_order": 2.5, "extensions": {"weight": 1e-05, "none": None, "nan": float("nan")}},
    {"content": "é ✓ 😀", "insertion_order": None, "enabled": None},
]


@pytest.mark.parametrize("raw", ODD_ENTRIES)
def test_entry_row_is_the_general_row(raw: dict[str, Any]) -> None:
    """``entry_row``'s inline cases (lists of strings, bool flags, the hash of an accepted dump) give
    what the lenient readers and ``content_hash`` give, and every other value goes to them."""
    entry = LorebookEntry.model_validate(raw)
    dumped = entry.dump()
    checked = records._orjson(dumped) is not None  # the caller's promise: the whole value was accepted
    expected = records._entry_row_general(4, entry, dumped)
    assert records.entry_row(4, entry, dumped, checked=checked) == expected
    assert records.entry_row(4, entry) == expected


def _corpus_docs() -> list[Document]:
    docs = []
    for path in [
        *project_files("cards", "png", "charx", "risu", "agnai", "novelai", "sillytavern"),
        *shared_files("cards-json", "cards-png", "charx", "lorebook-v2", "risu", "st-worldinfo", "novelai"),
    ]:
        try:
            docs.append(interop.read(path))
        except InteropError:
            continue
    return docs


def test_records_from_views_are_the_records_from_dumps(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every corpus file's records, written from ``dump_view`` and its entry rows' inline cases, equal
    those written from ``dump`` and the general rows."""
    docs = _corpus_docs()
    fast = [item_record(doc) for doc in docs]
    monkeypatch.setattr(records, "dump_view", lambda model: model.dump())
    general = records._entry_row_general
    monkeypatch.setattr(records, "entry_row", lambda i, e, raw=None, checked=False: general(i, e, raw))
    monkeypatch.setattr(records, "_tags", records._tags_general)
    assert [item_record(doc) for doc in docs] == fast
    assert sum(1 for r in fast if r.any_book is not None and r.any_book.entries) > 20


def test_a_card_its_view_cannot_write_is_recorded_from_its_dump(monkeypatch: pytest.MonkeyPatch) -> None:
    """A model inside ``extensions`` (built in code) stays a model in the view, which orjson refuses:
    the card and the book are written from their ``dump``, as before."""
    inner = LorebookEntry.model_validate({"content": "x"})
    for where in ("card", "book"):
        card = make_card("Ann", book_entries=2)
        book = card.data.character_book
        assert book is not None
        if where == "card":
            card.data.extensions = {"inner": inner}
        else:
            book.entries[1].extensions = {"inner": inner}
        doc = Document(format="ccv3", card=card)
        record = item_record(doc)
        dumped = item_record(doc)  # once more: the view is not changed by the first
        assert record == dumped
        text = record.card.canonical if where == "card" else record.card.book.canonical  # type: ignore[union-attr]
        assert '"inner":{"content":"x"}' in text
        loose_book = book_record(book)
        monkeypatch.setattr(records, "dump_view", lambda model: model.dump())
        assert item_record(doc) == record
        assert book_record(book) == loose_book
        monkeypatch.undo()


@pytest.mark.parametrize(
    "tags",
    [
        ["b", " a ", "", "  ", "a", "b"],
        ["x" * 300, "y" * 200],
        ["nul\x00tag", "é", "✓ tick"],
        ["half \ud83d emoji", "ok"],
        "a, b ,c",
        None,
        [1, "x", None],
        ("tuple",),
        [],
    ],
)
def test_tags_are_the_general_tags(tags: Any) -> None:
    assert records._tags(tags) == records._tags_general(tags)
