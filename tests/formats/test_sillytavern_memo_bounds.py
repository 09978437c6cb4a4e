"""The SillyTavern card-book memos (layouts, flat keys, flat reads) are bounded in bytes, not only in count.

They live for the whole process and are keyed by a namespace's or flat values' marshal bytes: one
large value (a 1 MB ``automation_id`` is a valid input, up to ``max_file_bytes``) must not stay alive in
them after its document is gone, or 1024 such keys would hold gigabytes. A big key is simply not kept;
the result is the same as from the general path.
"""

from __future__ import annotations

import copy
from typing import Any

from interop.formats.sillytavern import normalize as norm
from interop.formats.sillytavern import readable
from interop.formats.sillytavern import write_entry as we
from interop.memo import document_scope
from interop.model import Lorebook

BIG = "x" * 300_000


def _kept_bytes() -> int:
    memos: list[dict[bytes, Any]] = [we._LAYOUTS, readable._ALL_FLAT, norm._READ]
    return sum(len(key) for memo in memos for key in memo)


def _book(entries: list[dict[str, Any]]) -> Lorebook:
    return Lorebook.model_validate({"entries": copy.deepcopy(entries)})


ENTRIES = [
    # our namespace with a big value: a per-namespace layout
    {"keys": ["a"], "content": "c", "extensions": {"sillytavern": {"entry": {"automation_id": BIG, "depth": 2}}}},
    # an ST export's flat keys with a big value: the flat read (normalize) and the flat values (readable)
    {"keys": ["b"], "content": "c", "extensions": {"automation_id": BIG, "depth": 4, "position": 1}},
    # no namespace, but a big value in the template-filled natives' flat values (all flat keys)
    {"keys": ["c"], "content": "c", "extensions": {}, "comment": BIG},
]


def test_big_values_are_not_kept_by_the_memos() -> None:
    for memo in (we._LAYOUTS, readable._ALL_FLAT, norm._READ):
        memo.clear()
    book = _book(ENTRIES)
    with document_scope():
        fresh = readable.st_readable_book(book, from_card=True)
    assert _kept_bytes() < 50_000  # a typical key is under 600 bytes
    # the same result as the general path, and as a second pass
    with document_scope():
        general = readable.via_card_book(_book(ENTRIES), from_card=True)
    with document_scope():
        again = readable.st_readable_book(_book(ENTRIES), from_card=True)
    for other in (general, again):
        assert repr([e.dump() for e in fresh[0].entries]) == repr([e.dump() for e in other[0].entries])
        assert repr(fresh[1]) == repr(other[1])
    for index, entry in enumerate(book.entries):
        for template in (True, False):
            want = we.native_by_plan(we._View(
                entry, entry.ext("sillytavern").get("entry") or {}, template, index, we.Fill(True, False),
                entry.model_fields_set | set(entry.model_extra or {}),
            ))
            assert repr(we.native_from_entry(entry, template, index, we.Fill(True, False))) == repr(want)


def test_small_values_are_still_kept() -> None:
    for memo in (we._LAYOUTS, readable._ALL_FLAT, norm._READ):
        memo.clear()
    small = copy.deepcopy(ENTRIES)
    small[0]["extensions"]["sillytavern"]["entry"]["automation_id"] = "id"
    small[1]["extensions"]["automation_id"] = "id"
    small[2]["comment"] = "a title"
    with document_scope():
        readable.st_readable_book(_book(small), from_card=True)
    assert we._LAYOUTS and readable._ALL_FLAT and norm._READ
