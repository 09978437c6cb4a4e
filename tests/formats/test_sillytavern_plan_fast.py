"""The SillyTavern app verdict's per-source plan, built from the writer's memoized world view,
equals the plan built the general way (issue 19, speed).

``world_entry_items`` shares the card writer's memoized natives instead of copying every entry;
``source_settings`` copies an entry that has every template field instead of merging the template
under it; ``_quick_check`` looks each entry shape's layout up once. Each is compared with the
general form (``world_entries``, ``{**TEMPLATE, **MISSING_IN_WORLD, **entry, "uid": uid}``,
``_check(want, _fields(want, commented))``) on the corpora and on drawn books.
"""

from __future__ import annotations

import marshal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from interop import api
from interop.document import Document
from interop.errors import InteropError
from interop.formats import sillytavern as st_format
from interop.formats.sillytavern import app_load as st
from interop.formats.sillytavern import app_model
from interop.formats.sillytavern.world import plain_keys, st_exported_use_regex, world_entries, world_entry_items
from interop.memo import document_scope
from interop.model import Lorebook
from tests.conftest import project_files, shared_files
from tests.strategies import lorebook as lorebook_dicts

FILES = [p for p in shared_files(".") + project_files(".") if p.name != "MANIFEST.tsv" and p.is_file()]


def _strict(value: Any) -> bytes:
    """Equal bytes = equal values of equal types in the same key order (1, 1.0 and true apart)."""
    return marshal.dumps(value, 2)


def _unordered(settings_list: list[dict[str, Any]]) -> bytes:
    """Each entry's settings by name (the plan reads them with ``get``: key order is not a setting)."""
    return _strict([sorted(entry.items(), key=lambda item: item[0]) for entry in settings_list])


def _general_settings(doc: Document) -> list[dict[str, Any]]:
    """``source_settings`` as it was spelled out: every entry merged over the template, copies throughout."""
    assert doc.book is not None
    out = []
    for key, entry in world_entries(doc.book, from_card=doc.card is not None).items():
        if isinstance(entry, dict):
            uid = entry.get("uid", int(key) if key.isdigit() else key)
            out.append({**st.TEMPLATE, **st.MISSING_IN_WORLD, **entry, "uid": uid})
    return out


def _general_checks(doc: Document, mine: list[dict[str, Any]]) -> list[Any]:
    entries = doc.book.entries if doc.book is not None else []
    commented = [i < len(entries) and entries[i].has("comment") for i in range(len(mine))]
    return [app_model._check(want, app_model._fields(want, c)) for want, c in zip(mine, commented, strict=True)]


def _assert_plan_is_general(doc: Document, *, write: tuple[str, ...]) -> None:
    """Outside any scope (nothing memoized) and inside one after the writers ran (their memos reused),
    the plan equals the general one built outside any scope."""
    assert doc.book is not None
    from_card = doc.card is not None
    want_items = _strict(list(world_entries(doc.book, from_card=from_card).items()))
    want_settings = _general_settings(doc)
    want_checks = _strict(_general_checks(doc, want_settings))
    assert _strict(world_entry_items(doc.book, from_card=from_card)) == want_items
    assert _unordered(app_model.source_settings(doc)) == _unordered(want_settings)
    assert _strict(app_model._plan(doc).checks) == want_checks
    with document_scope():
        for target in write:
            try:
                api.write(doc, target)
            except Exception:  # a target that refuses the source is not this test's subject
                continue
        assert _strict(world_entry_items(doc.book, from_card=from_card)) == want_items
        plan = app_model._plan(doc)
        assert _unordered(plan.settings) == _unordered(want_settings)
        assert _strict(plan.checks) == want_checks
        assert plain_keys(doc.book) == [st_exported_use_regex(e) for e in doc.book.entries]
    # the memoized natives were only read: the general view is unchanged afterwards
    assert _strict(list(world_entries(doc.book, from_card=from_card).items())) == want_items


def test_plan_from_the_writers_memo_is_the_general_plan() -> None:
    if not FILES:
        pytest.skip("no corpus files found (is ../shared beside the repo?)")
    checked = 0
    for path in FILES:
        try:
            doc = api.read(path)
        except InteropError:  # scripts, notes and files no reader takes are not this test's subject
            continue
        if doc.book is not None:
            checked += 1
            _assert_plan_is_general(doc, write=("ccv3", "lorebook_v3", "sillytavern-card"))
    assert checked >= 10  # the books of the project's corpus alone are more


@settings(max_examples=150, deadline=None)
@given(lorebook_dicts, hs.booleans())
def test_plan_of_drawn_books_is_the_general_plan(book: dict[str, Any], in_card: bool) -> None:
    """Drawn books: ids missing, duplicated, strings or numbers (uid fix-ups), odd values, extra keys."""
    try:
        lorebook = Lorebook.model_validate(book)
    except ValueError:
        return
    doc = _doc_of(lorebook, in_card)
    _assert_plan_is_general(doc, write=("ccv3", "lorebook_v3"))


@settings(max_examples=60, deadline=None)
@given(hs.lists(hs.sampled_from([0, 1, "1", "", None, "a"]), min_size=1, max_size=5))
def test_plan_with_missing_and_duplicate_uids(ids: list[Any]) -> None:
    """Entries whose ids collide or are missing take the first free uid (a copy, not the memo's entry)."""
    book = Lorebook.model_validate({"entries": [
        {"keys": [f"k{i}"], "content": f"c{i}", **({} if uid is None else {"id": uid})} for i, uid in enumerate(ids)
    ]})
    _assert_plan_is_general(_doc_of(book, True), write=("ccv3", "lorebook_v3"))


def test_world_files_plan_is_the_general_plan() -> None:
    """A world file's book (native world: its object keys are the entries' keys)."""
    world = {"entries": {"5": {"uid": 5, "key": ["a"], "content": "x"}, "7": {"key": ["b"], "content": "y"},
                         "9": {"uid": 5, "key": ["c"], "content": "z", "selective": True}}}
    book = st_format.lorebook_from_world(world)
    _assert_plan_is_general(Document("sillytavern-world", lorebook=book), write=("lorebook_v3", "sillytavern-world"))


def _doc_of(book: Lorebook, in_card: bool) -> Document:
    if not in_card:
        return Document("lorebook_v3", lorebook=book)
    card = api.read(b'{"spec": "chara_card_v3", "spec_version": "3.0", "data": {"name": "n"}}', filename="c.json").card
    assert card is not None
    card.data.character_book = book
    return Document("ccv3", card=card)
