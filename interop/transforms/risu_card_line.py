"""A Risu-disabled entry in a card: the ``@@dont_activate`` line goes back into its content.

Card writers for apps that read entry extensions (``card_for_target.book_for``) prepend the line;
the Risu reader and the fidelity view remove it again through the record it leaves.
"""

from __future__ import annotations

from typing import Any

from ..model.decorators import parse_decorators

CARD_LINE = "@@dont_activate\n"
"""RisuAI's card import (``convertCharbook``, src/ts/characterCards.ts) drops ``enabled``, and its
engine honours ``@@dont_activate``; SillyTavern knows the same decorator (``KNOWN_DECORATORS``,
public/scripts/world-info.js) and skips a disabled entry before reading decorators, so the line
changes nothing ST does with the entry."""
CARD_TEXT = "card_text"
"""Key of the ``extensions.risuai.decorators`` record naming the line a card writer prepended."""


def risu_disabled(entry: dict[str, Any]) -> dict[str, Any] | None:
    """The decorator record of an entry a Risu source disabled with ``@@dont_activate`` (still disabled)."""
    ext = entry.get("extensions")
    ns = ext.get("risuai") if isinstance(ext, dict) else None
    record = ns.get("decorators") if isinstance(ns, dict) else None
    if entry.get("enabled") is not False or not isinstance(record, dict):
        return None
    fields = record.get("fields")
    return record if isinstance(fields, dict) and fields.get("enabled") is False else None


def add_card_line(entry: dict[str, Any]) -> bool:
    """Prepend ``@@dont_activate`` to a Risu-disabled entry dict's content (mutated) and record it.

    False (nothing done) for any other entry, or when the content already has the decorator.
    """
    record = risu_disabled(entry)
    content = entry.get("content")
    if record is None or not isinstance(content, str):
        return False
    if any(d.name == "dont_activate" for d in parse_decorators(content).all_lines()):
        return False
    entry["content"] = CARD_LINE + content
    record[CARD_TEXT] = CARD_LINE
    return True


def strip_card_line(entry: dict[str, Any], record: Any) -> None:
    """Undo ``add_card_line`` on an entry dict and its record (both mutated): the way back."""
    if not isinstance(record, dict) or CARD_TEXT not in record:
        return
    text = record.pop(CARD_TEXT)
    content = entry.get("content")
    if isinstance(text, str) and isinstance(content, str) and content.startswith(text):
        entry["content"] = content[len(text):]
