"""The card book an application imports from our output bytes (PNG, CHARX or JSON).

Shared by the Risu and Agnai checks: both import a card's ``character_book``. The PNG chunk
read is ``ccv3`` first, then ``chara`` (both hold the same book in our output).
"""

from __future__ import annotations

from typing import Any

from ...document import Document
from . import sillytavern as st
from .verdict import AppVerdict


def card_book(data: bytes) -> tuple[list[dict[str, Any]], str] | None:
    """The output's card book entries and where they were read, or None when it is not a card."""
    try:
        obj, via = st.parse_output(data)
    except Exception:
        return None
    if not isinstance(obj, dict):
        return None
    book: Any = None
    if "spec" in obj and obj.get("spec") != "lorebook_v3":
        book = (obj.get("data") or {}).get("character_book") if isinstance(obj.get("data"), dict) else None
    elif obj.get("spec") == "lorebook_v3":
        book = obj.get("data")
    elif isinstance(obj.get("entries"), list):
        book = obj
    if not isinstance(book, dict) or not isinstance(book.get("entries"), list):
        return None
    return [e for e in book["entries"] if isinstance(e, dict)], via


def open_verdict(
    app: str, label: str, importer: str, source: Document, output: bytes, target_format: str
) -> tuple[AppVerdict, list[dict[str, Any]] | None]:
    """A fresh verdict for ``app`` and the card book entries its ``importer`` reads from ``output``
    (None, with a note on the verdict, when the output holds no card book or the source no book)."""
    verdict = AppVerdict(app)
    found = card_book(output)
    if found is None or source.book is None:
        verdict.notes.append(f"{label}'s card import does not read a {target_format} file as a card book")
        return verdict, None
    entries, via = found
    verdict.via = f"{importer} ({via})"
    return verdict, entries
