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
from itertools import repeat
from typing import Any

from ..appmodel.paths import Path
from ..cardkit.as_kind import mapped_card
from ..cardkit.card_dates import restored_dates
from ..cardkit.card_image import DATA_URL, data_url_bytes
from ..document import Document
from ..errors import CorruptInputError
from ..jsonio import written_value
from ..limits import DEFAULT_LIMITS, Limits
from ..model import V2_SPEC, V3_SPEC, Asset, Card, CardData, Lorebook
from ..model.base import CanonicalModel
from ..model.lorebook import LorebookEntry
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
    card = doc.card if doc.card is not None else mapped_card(doc)  # a NovelAI scenario/story: its text is a card's
    if card is not None:
        raw, filled = _v3_dump(card)
        return _view(doc.kind, raw, None, filled, doc.assets, doc.members, doc.image)
    book = doc.lorebook.dump() if doc.lorebook is not None else None
    return _view(doc.kind, None, book, set(), doc.assets, doc.members, doc.image)


def _view(
    kind: str,
    raw: dict[str, Any] | None,
    book: Any,
    filled: set[str],
    assets: dict[str, bytes],
    members: dict[str, bytes],
    image: bytes | None,
) -> CanonicalView:
    """The view of a card's CCv3 JSON ``raw`` (its book inside), else of a lorebook's JSON ``book``."""
    view = CanonicalView(kind=kind, assets=dict(assets), members=dict(members), image=image)
    if raw is not None:
        view.root = {k: v for k, v in raw.items() if k not in _NOT_ROOT}
        data = dict(raw.get("data") or {})
        data.update(restored_dates(data))  # an ISO date written as a number: compared as the source's string
        for name in [f[5:] for f in filled if f.startswith("data.")]:  # usually none: an upgrade's defaults
            data.pop(name, None)
        view.has_book_key = "character_book" in data
        book = data.pop("character_book", None)
        view.card = data
    if isinstance(book, dict):
        book = dict(book)
        entries = book.pop("entries", _MISSING)
        view.book = book
        if isinstance(entries, list):
            if any(f.startswith("entries.") for f in filled):
                entries = [
                    {k: v for k, v in e.items() if f"entries.{i}.{k}" not in filled} for i, e in enumerate(entries)
                ]
            view.entries = _without_card_lines(entries)
    return view


def view_of_json(value: Any, format: str, limits: Limits = DEFAULT_LIMITS) -> CanonicalView | None:
    """``view_of(read_bytes(data, format=format))`` for output JSON ``data`` whose parse is ``value``,
    without the canonical model: None unless the reader would take ``value`` as it is (the report then
    reads the output back). Our writers dump a model, so their JSON is one the model dumps back unchanged
    (``_as_dumped``): validating it and dumping it again, the general path's work, gives the same dicts."""
    if format in _CARD_FORMATS:
        if not _as_dumped(value, "card", limits):
            return None
        spec = value.get("spec")
        if spec == V2_SPEC:
            data = value.get("data")
            extensions = data.get("extensions") if isinstance(data, dict) else None
            if isinstance(extensions, dict) and STASH in extensions:
                return None  # to_v3 restores a stash: the general path
        elif spec != V3_SPEC:
            return None  # to_v3 upgrades it: the general path
        assets = _data_url_assets(value)
        if assets is None:
            return None
        return _view("card", value, None, set(), assets, {}, None)
    if format in _BOOK_FORMATS:
        book = value.get("data") if format == "lorebook_v3" and isinstance(value, dict) else value
        if not (isinstance(value, dict) and _as_dumped(book, "book", limits)):
            return None
        return _view("lorebook", None, book, set(), {}, {}, None)
    return None


_CARD_FORMATS = ("ccv3", "ccv2")
"""Card JSON formats whose reader is ``read_card_document`` on the parsed JSON."""
_BOOK_FORMATS = ("lorebook_v3", "character_book")
"""Lorebook JSON formats whose reader is ``lorebook_from_json`` on the parsed JSON (``data`` for the wrapper)."""


def _data_url_assets(value: dict[str, Any]) -> dict[str, bytes] | None:
    """``read_card_document``'s ``doc.assets``: the bytes of each base64 data-URL asset (None: one does
    not decode, which the reader warns about: the general path)."""
    data = value.get("data")
    assets = data.get("assets") if isinstance(data, dict) else None
    out: dict[str, bytes] = {}
    for asset in assets if isinstance(assets, list) else ():
        uri = asset.get("uri")
        if not isinstance(uri, str) or not uri.startswith(DATA_URL) or uri in out:
            continue
        try:
            out[uri] = data_url_bytes(uri)
        except CorruptInputError:
            return None
    return out


def _fields(model: type[CanonicalModel]) -> dict[str, int]:
    return {name: i for i, name in enumerate(model.model_fields)}


_MODELS: dict[str, tuple[dict[str, int], dict[str, str]]] = {
    "card": (_fields(Card), {"data": "card_data"}),
    "card_data": (_fields(CardData), {"character_book": "book?", "assets": "assets?"}),
    "book": (_fields(Lorebook), {"entries": "entries"}),
    "entry": (_fields(LorebookEntry), {}),
    "asset": (_fields(Asset), {}),
}
"""Per model: its declared fields' positions, and those that are not ``Lenient`` (a nested model or a list
of them, ``?``: or null) with what they hold. Every other field takes any JSON value as it is."""
_LISTS = {"entries": "entry", "assets": "asset"}
_ORDERED: dict[tuple[str, tuple[str, ...]], bool] = {}
"""(model, keys in order) -> whether ``dump()`` writes them in that order (a run sees few key orders)."""
_ORDERED_KEPT = 4096
_ORDERED_KEY_CHARS = 4096
"""Key orders longer than this (characters of the names) are checked each time, not kept."""


def _as_dumped(value: Any, model: str, limits: Limits) -> bool:
    """Whether ``value`` validates as ``model`` and ``dump()`` then gives ``value`` back, equal and in the
    same key order: every value fits (``Lenient`` fields keep anything as it is, nested models must be
    objects), and the keys are the declared fields in their order, then the others (``exclude_unset``
    writes the fields read, in declaration order, then the extra keys as read)."""
    if type(value) is not dict:
        return False
    nested = _MODELS[model][1]
    if not _ordered(model, tuple(value)):
        return False
    for name, inner in nested.items():
        if name not in value:
            continue
        item = value[name]
        if inner.endswith("?"):
            if item is None:
                continue
            inner = inner[:-1]
        if inner in _LISTS:
            if type(item) is not list or (inner == "entries" and len(item) > limits.max_entries):
                return False  # the reader raises (Lorebook._bounded counts the entries first)
            if not _all_as_dumped(item, _LISTS[inner], limits):
                return False
        elif not _as_dumped(item, inner, limits):
            return False
    return True


def _all_as_dumped(items: list[Any], model: str, limits: Limits) -> bool:
    """``all(_as_dumped(item, model, limits) for item in items)``; for a model without nested ones (entries,
    assets) at C speed but once per distinct key order (a book's entries share a few)."""
    if _MODELS[model][1]:
        return all(_as_dumped(item, model, limits) for item in items)
    if not {*map(type, items)} <= _DICT:
        return False
    return all(_ordered(model, keys) for keys in dict.fromkeys(map(tuple, items)))


_DICT = {dict}


def _ordered(model: str, keys: tuple[str, ...]) -> bool:
    """Whether ``dump()`` of ``model`` writes ``keys`` in this order (``_in_dump_order``, kept)."""
    ordered = _ORDERED.get((model, keys))
    if ordered is None:
        ordered = _in_dump_order(keys, _MODELS[model][0])
        if sum(map(len, keys)) <= _ORDERED_KEY_CHARS:  # megabyte key names are checked, not kept alive
            if len(_ORDERED) >= _ORDERED_KEPT:
                _ORDERED.clear()
            _ORDERED[(model, keys)] = ordered
    return ordered


def _in_dump_order(keys: tuple[str, ...], fields: dict[str, int]) -> bool:
    declared = [fields[k] for k in keys if k in fields]
    return declared == sorted(declared) and all(k in fields for k in keys[: len(declared)])


def _without_card_lines(entries: list[Any]) -> list[Any]:
    """``[_without_card_line(e) for e in entries]``: a copy of the list when no entry has a ``risuai``
    extension (the usual book), told without a call per entry."""
    if {*map(type, entries)} <= _DICT:
        extensions = map(dict.get, entries, repeat("extensions"))
        if not any(type(ext) is dict and "risuai" in ext for ext in extensions):
            return list(entries)
    return [_without_card_line(e) for e in entries]


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
            return _dumped(card), set(card.filled)
    upgraded = to_v3(card)
    return _dumped(upgraded), set(upgraded.filled)


def _dumped(model: CanonicalModel) -> dict[str, Any]:
    """``model.dump()``, or the ``dump_view`` a writer dumped it from in this scope (``jsonio.written_value``;
    a ccv3 source written as ccv3): orjson took that, so it holds no model or dataclass that ``dump``
    would convert, and the values are ``dump``'s (``dump_view``'s contract; tests/fidelity/test_view_written.py)."""
    written = written_value(model)
    return written if written is not None else model.dump()


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
        elif subtree:
            _walk_items(subtree, prefix, out)
        else:
            out[prefix] = subtree  # an empty book or entry is still one field
    if view.card is not None and view.has_book_key and view.book is None:
        out[("card", "character_book")] = None
    if view.book is not None and view.entries == []:
        out[("book", "entries")] = []
    return out


def _walk(value: Any, prefix: Path, out: dict[Path, Any]) -> None:
    if isinstance(value, dict) and value:
        _walk_items(value, prefix, out)
    else:
        out[prefix] = value


def _walk_items(value: dict[str, Any], prefix: Path, out: dict[Path, Any]) -> None:
    """``_walk`` of each item of a non-empty dict, a leaf stored without a call (most items are leaves)."""
    for key, item in value.items():
        if isinstance(item, dict) and item:
            _walk_items(item, (*prefix, key), out)
        else:
            out[(*prefix, key)] = item
