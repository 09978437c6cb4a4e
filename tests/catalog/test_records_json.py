"""The catalog's canonical JSON and content hashes are json's, whoever writes them (orjson when it agrees)."""

from __future__ import annotations

import datetime
import hashlib
import uuid
from enum import StrEnum
from typing import Any

import pytest

from interop.catalog import records
from interop.catalog.records import _COMPACT, _SORTED, book_record, canonical_json, content_hash
from tests.catalog.samples import make_book


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
