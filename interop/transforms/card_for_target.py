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
import functools
import json
from itertools import repeat
from typing import Any, TypeVar

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from .. import findings
from ..cardkit.as_kind import as_card, as_lorebook
from ..cardkit.card_dates import DATE_FIELDS, record_of, restored_dates, translated_dates
from ..document import Document
from ..memo import memoized
from ..model import Card, Lorebook, LorebookEntry
from ..model.versions import required_defaults, spec_of
from ..platform.registry import get_platform
from .risu_card_line import add_card_line

NO_FLAT_KEYS = ("agnai-card", "risu-charx")
"""Targets whose app never reads entry ``extensions``: Agnai's ``characterBookToNative`` /
``memoryEntryToNative`` (common/memory.ts) keep keys, content, enabled, insertion_order (weight),
priority, name, ... and drop each entry's ``extensions``; only the spec-required fields are added
(no flat keys, and no ``@@dont_activate`` line: Agnai honours ``enabled`` itself)."""
# The label reports carry in each finding's `by`: kept as released (this module was card_books.py) so
# report JSON stays byte-identical across the rename.
BY = "card-book writer (transforms.card_books)"
ADDED_DETAIL = (
    "added so that SillyTavern's importer (convertCharacterBook) loads the source's settings, "
    "or required by the card spec"
)
V2_TARGETS = ("ccv2", "agnai-card")
"""Targets written as ``chara_card_v2``: V3-only dates go to the V2 stash untouched."""


def card_for(doc: Document, target: str) -> Card:
    """``as_card(doc)`` with the required fields and an ST-readable book, unless ``doc`` is already in ``target``."""
    card = as_card(doc)
    if doc.format == target or spec_of(card) == "v1":
        return card
    present = card.data.model_fields_set.union(card.data.model_extra or ())  # what CardData.has() looks in
    table = _required_table()
    update: dict[str, Any] = {name: copy.deepcopy(value) for name, value in table.items() if name not in present}
    for name in update:
        findings.record(
            "added", ("card", name), "a V3-required card field the source lacks", by=BY, value=_required_json(name)
        )
    update.update(_dates_for(card, doc.format, target))
    book = card.data.character_book
    if isinstance(book, Lorebook):
        update["character_book"] = book_for(doc, target, book)
    if not update:
        return card
    out = model_copy(card, {"data": model_copy(card.data, update)})
    out.filled = card.filled  # a set of its own
    return out


M = TypeVar("M", bound=BaseModel)
_set_attr = object.__setattr__
_DECLARED: dict[type, frozenset[str]] = {}


def model_copy(model: M, update: dict[str, Any]) -> M:
    """``model.model_copy(update=update)`` (shallow, no validation) for a model with ``extra="allow"``
    (every canonical model): the same new object, in about a third of the time, which matters for the
    one copy per entry the card-book writers make (pydantic's goes through ``copy.copy`` three times).
    tests/formats/test_sillytavern_fast_paths.py checks it against pydantic's.
    (Here, below the platform packages, so that they and the card-book writers share it.)"""
    cls = model.__class__
    new = cls.__new__(cls)
    values = model.__dict__.copy()
    extra = model.__pydantic_extra__
    if extra is not None:
        extra = extra.copy()
    declared = _DECLARED.get(cls)
    if declared is None:
        declared = _DECLARED[cls] = frozenset(cls.__pydantic_fields__)  # a metaclass lookup: slow
    for key, value in update.items():
        if key in declared:
            values[key] = value
        else:
            if extra is None:
                extra = {}
            extra[key] = value
    fields_set = set(model.__pydantic_fields_set__)
    fields_set.update(update)
    private = getattr(model, "__pydantic_private__", None)
    if private is not None:
        private = {k: v for k, v in private.items() if v is not PydanticUndefined}
    _set_attr(new, "__dict__", values)
    _set_attr(new, "__pydantic_extra__", extra)
    _set_attr(new, "__pydantic_fields_set__", fields_set)
    _set_attr(new, "__pydantic_private__", private)
    return new


@functools.cache
def _required_table() -> dict[str, Any]:
    """``required_defaults()``, read once; private (callers get deep copies of its values)."""
    return required_defaults()


@functools.cache
def _required_json(name: str) -> str:
    return json.dumps(_required_table()[name])


def _dates_for(card: Card, source_format: str, target: str) -> dict[str, Any]:
    """A V3 card's ISO dates as the numbers the spec requires, or the recorded strings put back
    when ``target`` is the format they came from (``card_dates``). A V2 target stashes the
    V3-only dates as they are, so they stay untouched."""
    if spec_of(card) != "v3" or target in V2_TARGETS:
        return {}
    present = card.data.model_fields_set.union(card.data.model_extra or ())  # what CardData.has() looks in
    data = {name: getattr(card.data, name) for name in (*DATE_FIELDS, "extensions") if name in present}
    record = record_of(data)
    if record is None:
        return translated_dates(data, source_format)
    return restored_dates(data) if record.get("format") == target else {}


def book_for(doc: Document, target: str, book: Lorebook | None = None) -> Lorebook:
    """``as_lorebook(doc)`` made ST-readable, unless ``doc`` is already in ``target``."""
    st_readable_book = get_platform("sillytavern").services["st_readable_book"]
    book = as_lorebook(doc) if book is None else book
    if doc.format == target:
        return book
    from_card, flat_keys = doc.card is not None, target not in NO_FLAT_KEYS
    readable, added = memoized(  # the same for every target of a migrate (and book reads as read-only)
        "st_readable_book",
        book,
        (from_card, flat_keys),
        lambda: _readable_with_findings(st_readable_book, book, from_card, flat_keys),
    )
    journal = findings.current()
    if journal is not None:  # recorded per write: the memo computes the book (and its findings) once per source
        journal.findings.extend(added)
    return readable


def _readable_with_findings(
    st_readable_book: Any, book: Lorebook, from_card: bool, flat_keys: bool
) -> tuple[Lorebook, list[findings.Finding]]:
    """The ST-readable book and its ``added`` findings (what ``Journal.added`` records; immutable tuples).
    A target given the flat keys (``flat_keys``: not in ``NO_FLAT_KEYS``) also gets the Risu-disabled lines."""
    readable, added = st_readable_book(book, from_card=from_card, flat_keys=flat_keys)
    if flat_keys:
        readable = _risu_disabled_lines(readable)
    if not added:
        return readable, []
    # Finding("added", path, ADDED_DETAIL, BY, value) for each pair, built at C speed (~90 per typical card)
    paths, values = zip(*added, strict=True)
    fields = zip(repeat("added"), paths, repeat(ADDED_DETAIL), repeat(BY), values, strict=False)
    return readable, list(map(tuple.__new__, repeat(findings.Finding), fields))


def _risu_disabled_lines(book: Lorebook) -> Lorebook:
    """Entries a Risu source disabled with ``@@dont_activate`` get that line back in content.

    RisuAI's card import drops ``enabled`` (``convertCharbook``), so without the line Risu would
    load them active; SillyTavern loads them disabled either way (``risu_card_line.CARD_LINE``).
    The line is recorded in the entry's decorator record, so the way back removes it.
    """
    entries = list(book.entries)
    changed = False
    for index, entry in enumerate(entries):
        if entry.enabled is not False or not entry.ext("risuai"):
            continue
        raw = entry.dump()
        if add_card_line(raw):
            entries[index] = LorebookEntry.model_validate(raw)
            changed = True
    return book.model_copy(update={"entries": entries}) if changed else book
