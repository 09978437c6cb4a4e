"""``interop.memo``: per-source work shared by the targets of one file, and only inside a scope."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from interop.api import read_bytes, write
from interop.fidelity import fidelity_report
from interop.formats import get_platform, sillytavern
from interop.formats.sillytavern import app_model as sillytavern_check
from interop.memo import document_scope, memoized

CARD = Path(__file__).resolve().parent.parent / "corpus" / "cards" / "ilse_v2_st_mirror.json"
TARGETS = ("ccv3", "lorebook_v3", "character_book", "png", "sillytavern-card", "risu-charx", "agnai-card")


def test_memoized_is_per_object_and_arguments_inside_a_scope() -> None:
    calls: list[str] = []

    def compute(tag: str) -> list[str]:
        calls.append(tag)
        return [tag]

    first, second = object(), object()
    with document_scope():
        value = memoized("kind", first, (1,), lambda: compute("a"))
        assert memoized("kind", first, (1,), lambda: compute("b")) is value
        assert memoized("kind", first, (2,), lambda: compute("c")) == ["c"]
        assert memoized("kind", second, (1,), lambda: compute("d")) == ["d"]
        assert memoized("other", first, (1,), lambda: compute("e")) == ["e"]
    assert calls == ["a", "c", "d", "e"]
    with document_scope():  # a new scope starts empty
        assert memoized("kind", first, (1,), lambda: compute("f")) == ["f"]


def test_nothing_is_kept_outside_a_scope() -> None:
    calls: list[int] = []
    key = object()
    for _ in range(2):
        memoized("kind", key, (), lambda: calls.append(1))
    assert len(calls) == 2


def test_outside_a_scope_a_changed_source_is_written_as_changed() -> None:
    """Library callers may edit a document between writes: without a scope they see every edit."""
    doc = read_bytes(CARD.read_bytes(), filename=CARD.name)
    assert doc.book is not None and doc.book.entries
    before = write(doc, "lorebook_v3")
    doc.book.entries[0].content = "edited in place"
    after = write(doc, "lorebook_v3")
    assert b"edited in place" not in before
    assert b"edited in place" in after


def test_a_scope_changes_no_output_and_no_report(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every target written and reported inside one scope (as ``migrate`` does) gives the same
    bytes and the same report as each written on its own, and the shared work runs once."""
    data = CARD.read_bytes()
    alone = {}
    for target in TARGETS:
        doc = read_bytes(data, filename=CARD.name)
        output = write(doc, target)
        alone[target] = (output, fidelity_report(doc, target, output).to_json())
    calls = {"book": 0, "settings": 0}
    real_book, real_settings = sillytavern.st_readable_book, sillytavern_check._settings

    def book(*args: Any, **kwargs: Any) -> Any:
        calls["book"] += 1
        return real_book(*args, **kwargs)

    def settings(*args: Any, **kwargs: Any) -> Any:
        calls["settings"] += 1
        return real_settings(*args, **kwargs)

    # card_for_target reaches SillyTavern's function through the registry, so patch it there.
    monkeypatch.setitem(get_platform("sillytavern").services, "st_readable_book", book)
    # the app verdict's per-source settings (its plan calls ``_settings``, sharing the writer's natives)
    monkeypatch.setattr(sillytavern_check, "_settings", settings)
    doc = read_bytes(data, filename=CARD.name)
    with document_scope():
        for target in TARGETS:
            output = write(doc, target)
            assert output == alone[target][0], target
            assert fidelity_report(doc, target, output).to_json() == alone[target][1], target
    # one readable book per (from_card, flat_keys): with flat keys, and without (agnai-card, risu-charx)
    assert calls == {"book": 2, "settings": 1}
