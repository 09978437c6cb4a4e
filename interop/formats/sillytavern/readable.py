"""``st_readable_book``: a book as every card-book writer writes it, so SillyTavern loads the same settings."""

from __future__ import annotations

import json
import marshal
from dataclasses import dataclass
from typing import Any

from ...model import Lorebook, LorebookEntry, as_bool
from ...transforms.card_for_target import model_copy
from .card import card_book_from_lorebook
from .fields import BY_FLAT, REQUIRED_ENTRY_FIELDS, ST_TOP_LEVEL, copy_value
from .model import ADDED_FIELDS, CARD_FIELDS, NAMESPACE, book_ext, foreign_extensions
from .world import is_native_world, natives, normalized, plain_keys, st_exported_use_regex
from .write_entry import Fill, native_from_entry

Added = list[tuple[tuple[str | int, ...], str]]
"""What the writer adds to the source's entries: (report path, value as JSON), e.g.
``(("entry", 2, "extensions", "vectorized"), "false")``."""


def st_readable_book(book: Lorebook, *, from_card: bool = False, flat_keys: bool = True) -> tuple[Lorebook, Added]:
    """``book`` as every card-book writer writes it: what SillyTavern needs to load the same settings.

    Each entry keeps its fields and its ``extensions.sillytavern`` namespace (our round trip) and
    gains (1) the flat ``extensions`` keys ST's ``convertCharacterBook`` reads (exactly the
    ``sillytavern-card`` writer's, from ``card_book_from_lorebook``; a flat key the entry already
    has is kept as it is), and (2) the V3-required fields it lacks, with the value ST would apply
    (``enabled: true`` unless disabled, ``insertion_order`` = ST's order, ``use_regex: false``
    unless every key is a ``/regex/``). Returns the book and every field it added to an entry
    (``Added``), which the card-book writers record in the conversion's journal.
    ``flat_keys=False`` adds only (2): for a target whose app never reads entry ``extensions`` (Agnai).
    """
    if not is_native_world(book):
        return _direct(book, from_card, flat_keys)
    return via_card_book(book, from_card=from_card, flat_keys=flat_keys)


def via_card_book(book: Lorebook, *, from_card: bool = False, flat_keys: bool = True) -> tuple[Lorebook, Added]:
    """``st_readable_book`` through the whole ``sillytavern-card`` book (the general path: a book
    read from a world file needs the card entry's namespace records; any book gives the same here)."""
    card = card_book_from_lorebook(book, from_card=from_card)
    added: Added = []
    entries = []
    native_world = book_ext(book).native_world is True
    for index, (entry, written) in enumerate(zip(book.entries, card["entries"], strict=True)):
        fill = Fill(from_card, st_exported_use_regex(entry))
        entries.append(_readable_entry(entry, index, written, added, fill, native_world, flat_keys))
    return book.model_copy(update={"entries": entries}), added


def _count(added: Added, index: int, path: tuple[str, ...], value: Any) -> None:
    added.append((("entry", index, *path), _as_json(value)))


_SCALARS: dict[tuple[type, Any], str] = {}
"""JSON of the scalar defaults the writers add (``false``, ``""``, ``100``): the same few values every time."""
_CACHED = frozenset({str, int, bool, type(None)})
"""Types whose equal values have one JSON text (not float: ``0.0 == -0.0``)."""


def _as_json(value: Any) -> str:
    if value.__class__ not in _CACHED:
        return json.dumps(value, ensure_ascii=False)
    key = (value.__class__, value)
    text = _SCALARS.get(key)
    if text is None:
        text = json.dumps(value, ensure_ascii=False)
        if len(_SCALARS) < 1024:
            _SCALARS[key] = text
    return text


def _add_required(entry: LorebookEntry, index: int, raw: dict[str, Any], written: dict[str, Any], added: Added) -> None:
    """The V3-required fields and ST's top-level fallbacks the entry lacks, as ST would apply them."""
    for name, _native in REQUIRED_ENTRY_FIELDS:
        if name not in raw and name != "extensions":
            value = entry.use_regex is True if name == "use_regex" else written[name]
            raw[name] = value
            _count(added, index, (name,), value)
    for name, _native, fallback in ST_TOP_LEVEL:
        if name not in raw and written.get(name) is not None and written[name] != fallback:
            raw[name] = written[name]
            _count(added, index, (name,), written[name])


def _readable_entry(
    entry: LorebookEntry,
    index: int,
    written: dict[str, Any],
    added: Added,
    fill: Fill,
    book_native_world: bool,
    flat_keys: bool = True,
) -> LorebookEntry:
    raw = entry.dump()
    before = set(raw)
    _add_required(entry, index, raw, written, added)
    added_here = [n for n in raw if n not in before]
    extensions = dict(raw["extensions"]) if isinstance(raw.get("extensions"), dict) else {}
    flat = _flat_to_write(index, written, extensions) if flat_keys else {}
    for key in flat:
        if key not in extensions:
            _count(added, index, ("extensions", key), flat[key])
    if "extensions" not in raw and not flat:
        _count(added, index, ("extensions",), {})
    extensions.update(flat)
    extra = _namespace_extra(entry, written, extensions, fill)
    # A world file written back leaves out again what it lacked: spec fields, and fields
    # given a flat key only because ST's card import would not fall back to the world's default.
    added_here += [BY_FLAT[k].native for k in flat if k not in written["extensions"]]
    if book_native_world and added_here:
        extra[ADDED_FIELDS] = added_here
    if extra:
        ns = entry.ext(NAMESPACE).get("entry")
        for key, value in extra.items():
            if not isinstance(ns, dict) or key not in ns:
                _count(added, index, ("extensions", NAMESPACE, "entry", key), value)
        ours = extensions.get(NAMESPACE) if isinstance(extensions.get(NAMESPACE), dict) else {}
        extensions[NAMESPACE] = {**ours, "entry": {**(ns if isinstance(ns, dict) else {}), **extra}}
    raw["extensions"] = extensions
    return LorebookEntry.model_validate(raw)


def _flat_to_write(index: int, written: dict[str, Any], extensions: dict[str, Any]) -> dict[str, Any]:
    """ST's exporter's flat keys the entry lacks (a flat key it has stays as it is, except over a
    world entry's own stale ``extensions`` copy). A world entry written without some field gets
    the template's value for it: what the world means, and not always what ``convertCharacterBook``
    falls back to (``position``: 0 in the world, 1 for a card entry without the key)."""
    exported = written["extensions"]
    stale_world_copy = "world_extensions" in exported.get(NAMESPACE, {}).get("entry", {})
    out = {}
    for key, field in BY_FLAT.items():
        if key in extensions and not stale_world_copy:
            continue
        if key in exported:
            out[key] = exported[key]
        elif field.has_default and key != "display_index":
            out[key] = import_fallback(key)
    return out


def import_fallback(flat: str) -> Any:
    """What a new world entry (ST's template, position 0) holds for the flat key ``flat``'s field.

    Every caller asks for a field with a table default: ``position`` is 0 in the template, the
    ``recursion``/``match``/``invert`` flags are false and ``group`` is "", all equal to the table's
    ``default`` (a field without one has no fallback here)."""
    return BY_FLAT[flat].default


def _namespace_extra(entry: LorebookEntry, written: dict[str, Any], extensions: dict[str, Any], fill: Fill) -> dict:
    """What the namespace needs for the way back: the world entry's own extension keys, and a real
    ``use_regex`` next to flat keys (else read as ST's exporter constant, see st_exported_use_regex)."""
    ns_written = written["extensions"].get(NAMESPACE, {}).get("entry", {})
    extra: dict[str, Any] = {}
    if "world_extensions" in ns_written:
        extra["world_extensions"] = ns_written["world_extensions"]
    has_flat = any(k in BY_FLAT for k in extensions)
    if has_flat and entry.use_regex is True and not fill.plain_keys and "risuai" not in extensions:
        extra[CARD_FIELDS] = {"use_regex": True}
    return extra


# --- The direct path: a book not read from a world file -------------------------------------------
# For such a book the card entry ``card_book_from_lorebook`` writes holds nothing
# ``_readable_entry`` reads but (1) a few top-level values taken from the entry's template-filled
# native (``_card_value``) and (2) its flat keys, each the entry's own native value or else the
# template-filled one (``_flat_keys_of``); its namespace records (``world_extensions``) exist only
# for a world file's book. So the direct path reads the template-filled natives, which are
# memoized and shared with the report's SillyTavern app model, and builds each readable entry with
# one ``model_copy`` instead of the card entry, a dump and a validation.
# tests/formats/sillytavern/test_readable_direct.py checks it gives what ``via_card_book`` gives.

_CARD_VALUE = {
    "keys": "key", "secondary_keys": "keysecondary", "content": "content", "constant": "constant",
    "selective": "selective", "insertion_order": "order",
}  # fmt: skip
"""Card-entry top-level fields ``_card_entry`` copies from a native field (``enabled`` is computed)."""


def _card_value(name: str, full: dict[str, Any]) -> Any:
    """The top-level value ``_card_entry`` writes for ``name`` (a required or ST top-level field)."""
    if name == "enabled":
        return not as_bool(full.get("disable"), False)
    return full.get(_CARD_VALUE[name])


def _direct(book: Lorebook, from_card: bool, flat_keys: bool) -> tuple[Lorebook, Added]:
    plain = plain_keys(book)
    normal = normalized(book)[0]
    fulls = natives(normal, True, from_card, plain)
    added: Added = []
    entries = [
        _direct_entry(entry, index, normal.entries[index], fulls[index], added, plain[index], flat_keys)
        for index, entry in enumerate(book.entries)
    ]
    return model_copy(book, {"entries": entries}), added


def _direct_entry(
    entry: LorebookEntry,
    index: int,
    normal: LorebookEntry,
    full: dict[str, Any],
    added: Added,
    plain_keys: bool,
    flat_keys: bool,
) -> LorebookEntry:
    """``_readable_entry`` of a book that is not a world file's (see the comment above)."""
    # model_fields_set / model_extra without their (Python-level) properties: read for every entry
    present = entry.__pydantic_fields_set__  # with the extra keys: the keys of entry.dump()
    extra = entry.__pydantic_extra__
    if extra:
        present = present | extra.keys()
    update: dict[str, Any] = {}
    if not _TOP_NAMES.issubset(present):  # most entries have every required and ST top-level field
        for name, _native in REQUIRED_ENTRY_FIELDS:
            if name not in present and name != "extensions":
                value = entry.use_regex is True if name == "use_regex" else copy_value(_card_value(name, full))
                update[name] = value
                _count(added, index, (name,), value)
        for name, _native, fallback in ST_TOP_LEVEL:
            if name not in present:
                value = _card_value(name, full)
                if value is not None and value != fallback:
                    update[name] = copy_value(value)
                    _count(added, index, (name,), value)
    source = entry.extensions
    extensions = dict(source) if isinstance(source, dict) else {}
    flat = _direct_flat(index, normal, full, extensions, added) if flat_keys else {}
    if "extensions" not in present and not flat:
        _count(added, index, ("extensions",), {})
    extensions.update(flat)
    if (
        entry.use_regex is True and not plain_keys and "risuai" not in extensions
        and not _FLAT_KEY_SET.isdisjoint(extensions)
    ):  # _namespace_extra: a real use_regex next to flat keys
        ns = entry.ext(NAMESPACE).get("entry")
        ns = ns if isinstance(ns, dict) else None
        if ns is None or CARD_FIELDS not in ns:
            _count(added, index, ("extensions", NAMESPACE, "entry", CARD_FIELDS), {"use_regex": True})
        ours = extensions.get(NAMESPACE) if isinstance(extensions.get(NAMESPACE), dict) else {}
        extensions[NAMESPACE] = {**ours, "entry": {**(ns or {}), CARD_FIELDS: {"use_regex": True}}}
    update["extensions"] = extensions
    return model_copy(entry, update)


_TOP_NAMES = frozenset(
    [name for name, _native in REQUIRED_ENTRY_FIELDS if name != "extensions"] + [name for name, *_ in ST_TOP_LEVEL]
)
"""The top-level fields ``_direct_entry`` adds to an entry that lacks them."""
_FLAT_KEYS = tuple(BY_FLAT)
_FLAT_KEY_SET = frozenset(BY_FLAT)
_FLAT_NATIVES = tuple(field.native for field in BY_FLAT.values())
_IMMUTABLE = frozenset({str, int, float, bool, type(None)})
_PATHS: dict[int, tuple[tuple[str | int, ...], ...]] = {}
"""The ``added`` paths of every flat key of entry ``index`` (an entry without any): the same for every book."""
_MEMO_LIMIT = 1024
_KEY_BYTES = 4096
"""Flat values up to this size (marshal bytes) are kept in ``_ALL_FLAT`` (typically under 100): the memo
lives for the process, so a key's size bounds its memory (a value may be many megabytes)."""


@dataclass(frozen=True)
class _AllFlat:
    """Every flat key with one list of values: the flat dict (private: entries get copies), the keys
    whose values are mutable, the values' JSON texts, and the ``added`` records per entry index."""

    flat: dict[str, Any]
    mutable: tuple[str, ...]
    texts: tuple[str, ...]
    by_index: dict[int, tuple[tuple[tuple[str | int, ...], str], ...]]

    @classmethod
    def of(cls, values: list[Any]) -> _AllFlat:
        flat = dict(zip(_FLAT_KEYS, map(copy_value, values), strict=True))
        mutable = tuple(key for key, value in flat.items() if value.__class__ not in _IMMUTABLE)
        return cls(flat, mutable, tuple(map(_as_json, values)), {})

    def added(self, index: int) -> tuple[tuple[tuple[str | int, ...], str], ...]:
        records = self.by_index.get(index)
        if records is None:
            records = tuple(zip(_paths(index), self.texts, strict=True))
            if len(self.by_index) < _MEMO_LIMIT:
                self.by_index[index] = records
        return records


_ALL_FLAT: dict[bytes, _AllFlat] = {}
"""For an entry given every flat key, by the values' ``marshal`` bytes (which give the values back
exactly: equal bytes, equal values). Bounded; the entries of typical cards share a few lists."""


def _direct_flat(
    index: int, normal: LorebookEntry, full: dict[str, Any], extensions: dict[str, Any], added: Added
) -> dict[str, Any]:
    """``_flat_to_write`` over ``_flat_keys_of(full, own, native_world=False)``: the flat keys the entry
    lacks, each the entry's own native value (``own``), else the template-filled one; each recorded
    in ``added`` (``_count``).

    Without our namespace an entry's own natives hold no flat field but ``caseSensitive``, whose
    own value is the template-filled one: ``own`` is then not needed (write_entry: the copy writers
    of namespace fields, ``_write_match``/``_recursion``/``_group`` and the records read the namespace)."""
    if _FLAT_KEY_SET.isdisjoint(extensions):
        keys, natives_ = _FLAT_KEYS, _FLAT_NATIVES
    elif extensions.keys() >= _FLAT_KEY_SET:  # an ST export's entry has them all: no pair to build (C speed)
        return {}
    else:
        pairs = [(key, native) for key, native in zip(_FLAT_KEYS, _FLAT_NATIVES, strict=True) if key not in extensions]
        if not pairs:
            return {}
        keys, natives_ = tuple(k for k, _ in pairs), tuple(n for _, n in pairs)
    ns = normal.ext(NAMESPACE).get("entry")
    if isinstance(ns, dict) and ns:
        keys, values = _flat_values(normal, native_from_entry(normal, template=False, index=index), full, keys)
    else:
        try:  # the common case, at C speed: every value from the template-filled natives
            values = list(map(full.__getitem__, natives_))
        except KeyError:
            keys, values = _flat_values(normal, {}, full, keys)
    try:
        packed: bytes | None = marshal.dumps(values)
    except ValueError:  # not a JSON value marshal knows (never from a JSON file)
        packed = None
    if keys is _FLAT_KEYS and packed is not None and len(packed) <= _KEY_BYTES:
        known = _ALL_FLAT.get(packed)
        if known is None:
            if len(_ALL_FLAT) >= _MEMO_LIMIT:
                _ALL_FLAT.clear()
            known = _ALL_FLAT[packed] = _AllFlat.of(values)
        added.extend(known.added(index))
        flat = known.flat.copy()
        for key in known.mutable:  # e.g. `triggers: []`: a list of the entry's own
            flat[key] = copy_value(flat[key])
        return flat
    paths = [("entry", index, "extensions", key) for key in keys]
    added.extend(zip(paths, map(_as_json, values), strict=True))
    if not _IMMUTABLE.issuperset(map(type, values)):  # values shared with the memoized natives: copies
        values = marshal.loads(packed) if packed is not None else list(map(copy_value, values))
    return dict(zip(keys, values, strict=True))


def _paths(index: int) -> tuple[tuple[str | int, ...], ...]:
    paths = _PATHS.get(index)
    if paths is None:
        paths = tuple(("entry", index, "extensions", key) for key in _FLAT_KEYS)
        if len(_PATHS) < _MEMO_LIMIT:
            _PATHS[index] = paths
    return paths


def _flat_values(
    normal: LorebookEntry, own: dict[str, Any], full: dict[str, Any], keys: tuple[str, ...]
) -> tuple[tuple[str, ...], list[Any]]:
    """The flat keys that get a value and their values, key by key (``_flat_keys_of``, ``_flat_to_write``)."""
    foreign: dict[str, Any] | None = None
    out_keys, values = [], []
    for key in keys:
        field = BY_FLAT[key]
        native = field.native
        if native in own:
            value = own[native]
        elif native in full:
            value = full[native]
        else:  # not reached for a template-filled native (every flat field has a value there); kept exact
            if foreign is None:
                foreign = foreign_extensions(normal.extensions)
            if key in foreign:
                value = foreign[key]
            elif field.has_default and key != "display_index":
                value = import_fallback(key)
            else:
                continue
        out_keys.append(key)
        values.append(value)
    return tuple(out_keys), values
