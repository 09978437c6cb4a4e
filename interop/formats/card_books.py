"""What every card-book writer writes: a book SillyTavern loads with the source's settings.

SillyTavern is where most cards are imported, and its importer (``convertCharacterBook``,
public/scripts/world-info.js) reads entry settings only from flat ``entry.extensions`` keys.
So ``ccv3``, ``ccv2``, ``png``, ``charx``, ``character_book`` and ``lorebook_v3`` outputs carry
them (``sillytavern.st_readable_book``, the ``sillytavern-card`` writer's keys) next to our
``extensions.sillytavern`` namespace, plus the V3-required entry fields a source lacks.
Writing a document back into its own format changes nothing (identity rule).
"""

from __future__ import annotations

import copy
from typing import Any

from ..convert import as_card, as_lorebook
from ..document import Document
from ..model import Card, Lorebook
from ..model.versions import spec_of

# CCv3 card fields every card must have (character-card-v3.txt) and the empty value a
# conversion writes when the source lacks one (the fidelity report lists them as added).
REQUIRED_CARD_FIELDS: dict[str, Any] = {
    "name": "", "description": "", "tags": [], "creator": "", "character_version": "", "mes_example": "",
    "extensions": {}, "system_prompt": "", "post_history_instructions": "", "first_mes": "",
    "alternate_greetings": [], "personality": "", "scenario": "", "creator_notes": "", "group_only_greetings": [],
}


def card_for(doc: Document, target: str) -> Card:
    """``as_card(doc)`` with the required fields and an ST-readable book, unless ``doc`` is already in ``target``."""
    card = as_card(doc)
    if doc.format == target or spec_of(card) == "v1":
        return card
    update: dict[str, Any] = {
        name: copy.deepcopy(value) for name, value in REQUIRED_CARD_FIELDS.items() if not card.data.has(name)
    }
    book = card.data.character_book
    if isinstance(book, Lorebook):
        update["character_book"] = book_for(doc, target, book)
    if not update:
        return card
    out = card.model_copy(update={"data": card.data.model_copy(update=update)})
    out.data.model_fields_set.update(update)
    out._filled = set(card._filled)
    return out


def book_for(doc: Document, target: str, book: Lorebook | None = None) -> Lorebook:
    """``as_lorebook(doc)`` made ST-readable, unless ``doc`` is already in ``target``."""
    from .sillytavern import st_readable_book

    book = as_lorebook(doc) if book is None else book
    if doc.format == target:
        return book
    readable, _ = st_readable_book(book, from_card=doc.card is not None)
    return readable
