"""Platform hazards reach the report through the registry, as findings with the record's path and fate."""

from __future__ import annotations

from interop.document import Document
from interop.fidelity.hooks import findings
from interop.model import Lorebook
from interop.model.conflict import Conflict
from interop.platform.registry import Platform, register_platform, unregister_platform


def _hazards(book: Lorebook) -> list[Conflict]:
    return [
        Conflict(("entry", 0, "keys"), "the app drops regex keys", "lost"),
        Conflict(("entry", 1, "comment"), "the app trims titles"),
    ]


def test_platform_hazards_become_findings() -> None:
    register_platform(Platform(name="sample-hazards", title="Sample", hazards=_hazards))
    try:
        doc = Document(format="lorebook_v3", lorebook=Lorebook(entries=[]))
        found = findings(doc, "lorebook_v3", "sample-hazards", None)
    finally:
        unregister_platform("sample-hazards")
    assert [(f.path, f.fate, f.detail) for f in found] == [
        (("entry", 0, "keys"), "lost", "the app drops regex keys"),
        (("entry", 1, "comment"), "approximated", "the app trims titles"),
    ]


def test_no_book_no_hazards() -> None:
    register_platform(Platform(name="sample-hazards", title="Sample", hazards=_hazards))
    try:
        assert findings(Document(format="ccv3"), "ccv3", "sample-hazards", None) == []
    finally:
        unregister_platform("sample-hazards")


def test_unknown_platform_has_no_findings() -> None:
    assert findings(Document(format="ccv3"), "ccv3", "no-such-platform", None) == []
