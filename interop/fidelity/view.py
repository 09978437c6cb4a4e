"""A document as the fidelity report sees it: plain JSON sections plus container parts.

Cards are compared as CCv3 (``to_v3``), so a V2 card written by a V2 target and
read back compares field by field with its V3 source, and a downgrade stash
(``extensions.interop``) is restored before comparing. Fields an upgrade filled
with spec defaults (``Card.filled``) were not in the file and are left out.
``spec``/``spec_version`` name the format, not the character, and are left out too.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..appmodel.paths import Path
from ..cardkit.as_kind import mapped_card
from ..cardkit.card_dates import restored_dates
from ..document import Document
from ..model import Card
from ..model.versions import STASH, spec_of, to_v3
from ..transforms.risu_card_line import CARD_TEXT, strip_card_line

_MISSING: Any = object()
_FORMAT_LABELS = ("spec", "spec_version")
_NOT_ROOT = frozenset(("data", *_FORMAT_LABELS))


@dataclass
class CanonicalView:
    kind: str
    root: dict[str, Any] = field(default_factory=dict)
    card: dict[str, Any] | None = None
    book: dict[str, Any] | None = None
    entries: list[dict[str, Any]] | None = None
    has_book_key: bool = False
    """The card has a ``character_book`` key (possibly ``null``)."""
    assets: dict[str, bytes] = field(default_factory=dict)
    members: dict[str, bytes] = field(default_factory=dict)
    image: bytes | None = None
    typed: dict[str, bytes | None] = field(default_factory=dict, repr=False, compare=False)
    """A section's strict-equality bytes (``field_diff.section_equal``), made when first compared: a
    source view is compared with every target's output (views are read-only once made)."""

    def sections(self) -> Iterator[tuple[Path, Any]]:
        """``(prefix, subtree)`` pairs that together hold every field."""
        if self.root:
            yield ("root",), self.root
        if self.card is not None:
            yield ("card",), self.card
        if self.book is not None:
            yield ("book",), self.book
        for i, entry in enumerate(self.entries or ()):
            yield ("entry", i), entry

    def get(self, path: Path) -> Any:
        """The value at ``path``, or ``MISSING``."""
        head = path[0]
        if head == "entry":
            index = path[1]
            if self.entries is None or not isinstance(index, int) or index >= len(self.entries):
                return _MISSING
            node: Any = self.entries[index]
            rest = path[2:]
        elif head == "book" and len(path) == 2 and path[1] == "entries":
            return self.entries if self.entries is not None else _MISSING
        elif head == "card" and len(path) == 2 and path[1] == "character_book":
            return None if self.has_book_key and self.book is None else _MISSING
        else:
            name = head if type(head) is str else str(head)
            node = _SECTIONS[name](self) if name in _SECTIONS else None
            if node is None:
                return _MISSING
            rest = path[1:]
            if not rest:
                return node  # a whole section (``changed_fields`` asks for each)
        for segment in rest:
            if isinstance(segment, int):
                if not isinstance(node, list) or segment >= len(node):
                    return _MISSING
            elif not isinstance(node, dict) or segment not in node:
                return _MISSING
            node = node[segment]
        return node


MISSING = _MISSING
_SECTIONS = {
    "root": operator.attrgetter("root"),
    "card": operator.attrgetter("card"),
    "book": operator.attrgetter("book"),
}
"""A path's first part -> its section of the view (no dict of the three built per look-up)."""


def view_of(doc: Document) -> CanonicalView:
    filled: set[str] = set()
    view = CanonicalView(kind=doc.kind, assets=dict(doc.assets), members=dict(doc.members), image=doc.image)
    card = doc.card if doc.card is not None else mapped_card(doc)  # a NovelAI scenario/story: its text is a card's
    if card is not None:
        raw, filled = _v3_dump(card)
        view.root = {k: v for k, v in raw.items() if k not in _NOT_ROOT}
        data = dict(raw.get("data") or {})
        data.update(restored_dates(data))  # an ISO date written as a number: compared as the source's string
        for name in [f[5:] for f in filled if f.startswith("data.")]:  # usually none: an upgrade's defaults
            data.pop(name, None)
        view.has_book_key = "character_book" in data
        book = data.pop("character_book", None)
        view.card = data
    else:
        book = doc.lorebook.dump() if doc.lorebook is not None else None
    if isinstance(book, dict):
        book = dict(book)
        entries = book.pop("entries", _MISSING)
        view.book = book
        if isinstance(entries, list):
            if any(f.startswith("entries.") for f in filled):
                entries = [
                    {k: v for k, v in e.items() if f"entries.{i}.{k}" not in filled} for i, e in enumerate(entries)
                ]
            view.entries = [_without_card_line(e) for e in entries]
    return view


def _without_card_line(entry: Any) -> Any:
    """An entry as its source had it when a card writer prepended ``@@dont_activate`` for RisuAI
    (``transforms.risu_card_line.add_card_line``): the line and its record key are left out."""
    ext = entry.get("extensions") if isinstance(entry, dict) else None
    ns = ext.get("risuai") if isinstance(ext, dict) else None
    record = ns.get("decorators") if isinstance(ns, dict) else None
    if not (isinstance(record, dict) and CARD_TEXT in record):
        return entry
    record = dict(record)
    out = {**entry, "extensions": {**ext, "risuai": {**ns, "decorators": record}}}
    strip_card_line(out, record)
    return out


def _v3_dump(card: Card) -> tuple[dict[str, Any], set[str]]:
    """The card as CCv3 JSON and the paths an upgrade filled in.

    A V2 card without a downgrade stash needs no upgrade for the view: the
    upgrade would only add fields it marks as filled, which the view leaves
    out anyway, so its plain dump is used (saves a validate and a dump).
    """
    if spec_of(card) == "v2":
        extensions = card.data.extensions
        if not (isinstance(extensions, dict) and STASH in extensions):
            return card.dump(), set(card.filled)
    upgraded = to_v3(card)
    return upgraded.dump(), set(upgraded.filled)


def leaves(view: CanonicalView) -> dict[Path, Any]:
    """Every field of the view as ``path -> value``.

    Dicts are walked; lists and empty dicts are single fields (a key list is one
    field), except ``card.assets``, one field per asset descriptor. A book with
    an empty entry list gives a ``book.entries`` field.
    """
    out: dict[Path, Any] = {}
    for prefix, subtree in view.sections():
        if prefix == ("card",):
            for key, value in subtree.items():
                if key == "assets" and isinstance(value, list) and value:
                    for i, asset in enumerate(value):
                        out[("card", "assets", i)] = asset
                else:
                    _walk(value, ("card", key), out)
        else:
            _walk_dict(subtree, prefix, out)
    if view.card is not None and view.has_book_key and view.book is None:
        out[("card", "character_book")] = None
    if view.book is not None and view.entries == []:
        out[("book", "entries")] = []
    return out


def _walk_dict(value: dict[str, Any], prefix: Path, out: dict[Path, Any]) -> None:
    if not value:
        out[prefix] = value  # an empty book or entry is still one field
        return
    for key, item in value.items():
        _walk(item, (*prefix, key), out)


def _walk(value: Any, prefix: Path, out: dict[Path, Any]) -> None:
    if isinstance(value, dict) and value:
        for key, item in value.items():
            _walk(item, (*prefix, key), out)
    else:
        out[prefix] = value
