"""Turning a document of one kind into what a target format needs.

A card format asked to write a standalone lorebook wraps it in a minimal V3
card; a lorebook format asked to write a card takes the card's
``character_book``. Everything else a target cannot hold is the fidelity
report's business, not this module's.
"""

from __future__ import annotations

from pathlib import PurePath

from .. import findings
from ..document import Document
from ..errors import ConversionError
from ..model import V3_SPEC, Card, CardData, Lorebook
from ..model.versions import required_defaults
from ..platform.registry import get_format, get_platform


def as_card(doc: Document) -> Card:
    """The document's card, or a new V3 card carrying its standalone lorebook.

    A NovelAI scenario or story export becomes the card its text maps to: a platform that has such
    documents offers a ``card_of`` service (NovelAI: formats/novelai/story_card.py).
    """
    if doc.card is not None:
        return doc.card
    mapped = mapped_card(doc)
    if mapped is not None:
        for name, empty in required_defaults().items():
            if not mapped.data.has(name):
                setattr(mapped.data, name, type(empty)())
        return mapped
    book = doc.lorebook
    if book is None:
        raise ConversionError("document holds neither a card nor a lorebook", file=doc.source)
    name = book.name if isinstance(book.name, str) and book.name else _stem(doc.source) or "Lorebook"
    findings.record(
        "added",
        ("card",),
        f"the standalone lorebook was wrapped in a new card named {name!r}, every other card field empty: "
        "a card format holds a lorebook only inside a character",
        by="convert.as_card",
    )
    notes = book.description if isinstance(book.description, str) else ""
    # Every V3-required field, empty but for the name and notes the lorebook gives.
    fields = {**required_defaults(), "name": name, "creator_notes": notes, "character_book": book}
    data = CardData(**fields)
    return Card(spec=V3_SPEC, spec_version="3.0", data=data)


def as_lorebook(doc: Document) -> Lorebook:
    """The document's lorebook (standalone, or the card's ``character_book``)."""
    book = doc.book
    if book is None:
        if doc.chat is not None:  # a chat's book is its own (Risu localLore) or the world it binds, found beside it
            reason = "the chat has no lorebook (no own book, no bound world found) to write"
            raise ConversionError(reason, file=doc.source)
        raise ConversionError("the card has no lorebook (character_book) to write", file=doc.source)
    return book


def mapped_card(doc: Document) -> Card | None:
    """The card ``doc``'s platform maps it to with its ``card_of`` service (None when it has none)."""
    try:
        card_of = get_platform(get_format(doc.format).platform).service("card_of")
    except KeyError:
        return None
    return card_of(doc) if card_of is not None else None


def _stem(path: str | None) -> str | None:
    return PurePath(path).stem if path else None
