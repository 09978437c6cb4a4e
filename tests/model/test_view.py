"""``dump_view`` is ``dump``: the same keys in the same order and equal values, without the copy."""

from __future__ import annotations

from typing import Any

import interop
from interop.errors import InteropError
from interop.model import CanonicalModel, Card, Lorebook, LorebookEntry
from interop.model.view import dump_view
from tests.conftest import project_files, shared_files


def _models(model: CanonicalModel) -> list[CanonicalModel]:
    """``model`` and every model nested in its fields (the views of each are checked too)."""
    found = [model]
    for value in model.__dict__.values():
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, CanonicalModel):
                found.extend(_models(item))
    return found


def _check(model: CanonicalModel) -> None:
    for each in _models(model):
        assert repr(dump_view(each)) == repr(each.dump())


def test_dump_view_is_the_dump_for_every_corpus_card_and_book() -> None:
    checked = 0
    for path in [
        *project_files("cards", "png", "charx", "risu", "agnai", "novelai", "sillytavern"),
        *shared_files("cards-json", "cards-png", "charx", "lorebook-v2", "risu", "st-worldinfo", "novelai"),
    ]:
        try:
            doc = interop.read(path)
        except InteropError:
            continue
        for model in (doc.card, doc.book):
            if model is not None:
                _check(model)
                checked += 1
    assert checked > 40


def test_unset_fields_are_left_out_and_extras_come_last() -> None:
    entry = LorebookEntry.model_validate({"zzz": 1, "content": "x", "keys": ["a"], "enabled": None})
    view = dump_view(entry)
    assert list(view) == list(entry.dump()) == ["keys", "content", "enabled", "zzz"]
    assert view["enabled"] is None
    built = Card.model_validate({"spec": "chara_card_v3", "data": {"name": "n", "character_book": {"entries": [{}]}}})
    built.data.tags = ["set after reading"]
    _check(built)


def test_values_are_the_models_own_and_dump_converts_what_the_view_keeps() -> None:
    book = Lorebook.model_validate({"entries": [{"keys": ["a"], "extensions": {"x": [1]}}]})
    view: Any = dump_view(book)
    assert view["entries"][0]["extensions"] is book.entries[0].extensions  # not copied
    book.entries[0].extensions = {"inner": LorebookEntry.model_validate({"content": "x"})}  # built in code
    assert isinstance(dump_view(book)["entries"][0]["extensions"]["inner"], LorebookEntry)
    assert book.dump()["entries"][0]["extensions"]["inner"] == {"content": "x"}
