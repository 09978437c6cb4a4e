"""What SillyTavern loads from a file: its import code, modelled from its facts (our own code).

Sources read (SillyTavern/SillyTavern; facts in ../shared/reference/sillytavern.md sections 2-3):

* ``src/character-card-parser.js`` (``read``): a PNG card is the ``ccv3`` tEXt chunk when
  present, else ``chara`` (keyword case-insensitive, tEXt only), base64 JSON.
* ``src/endpoints/characters.js``: ``importFromCharX`` reads ``card.json`` of a CHARX zip;
  ``importFromJson`` takes a JSON with ``spec`` as a V2/V3 card.
* ``public/scripts/world-info.js``: a card's book becomes a world through
  ``convertCharacterBook`` ("Import Card Lore"); ``importWorldInfo`` converts a standalone
  file with ``convertNovelLorebook`` (``lorebookVersion``), ``convertAgnaiMemoryBook``
  (``kind: 'memory'``) or ``convertRisuLorebook`` (``type: 'risu'``), and uploads anything
  else with an ``entries`` object as it is; every entry then starts from the new-entry
  template (``newWorldInfoEntryTemplate`` / ``createDefaultWorldInfoEntry``).

``load(data)`` answers with the world entries ST holds (every template field filled),
in file order; ``None`` when ST would not import the bytes as a character or a world.
"""

from __future__ import annotations

import binascii
import zipfile
from dataclasses import dataclass, field
from typing import Any

from ...appmodel.card_book import parse_output
from ...errors import InteropError
from ...mappings import load as load_mapping

APP = "sillytavern"

_TABLE = load_mapping("sillytavern")

TEMPLATE: dict[str, Any] = _TABLE.template("entry")
"""createDefaultWorldInfoEntry (public/scripts/world-info.js): what every imported entry starts from
(the table's entry defaults, with the template's own spelling where it differs: ``app_default``)."""

_CARD_IMPORT = _TABLE.import_defaults("entry")  # flat card key -> convertCharacterBook's `??` fallback
_WORLD_NAME = {f.native: str(f.world) for f in _TABLE.fields_at("entry") if f.native in _CARD_IMPORT}

FLAT_READS: dict[str, tuple[str, Any]] = {
    _WORLD_NAME[flat]: (flat.removeprefix("extensions."), fallback) for flat, fallback in _CARD_IMPORT.items()
}
"""ST field <- (flat entry.extensions key, fallback when null/absent): the flat card rows of the
table with an ``import_default``."""

IMPORT_FALLBACKS: dict[str, Any] = {name: fallback for name, (_, fallback) in FLAT_READS.items()}
"""convertCharacterBook: the ST fields it reads from a card entry's flat ``extensions`` keys, and
its fallback when the key is null or absent (``??``)."""


MISSING_IN_WORLD: dict[str, Any] = {"selective": False}
"""A world entry without the field holds ``undefined``, which ST's activation reads as false
(``entry.selective && keysecondary.length``), not the template's true."""


def filled(entry: dict[str, Any]) -> dict[str, Any]:
    """A raw world entry with every template field: its own values, else what ST acts on."""
    return {**TEMPLATE, **MISSING_IN_WORLD, **entry}


@dataclass
class AppLoad:
    """What an application holds after importing a file."""

    app: str
    via: str
    """The import path taken, e.g. ``convertCharacterBook (PNG ccv3 chunk)``."""
    entries: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def truthy(value: Any) -> bool:
    """JavaScript truthiness (``[]`` and ``{}`` are true, ``0``/``''``/``null`` false)."""
    if isinstance(value, list | dict):
        return True
    return bool(value)


def js_or(value: Any, fallback: Any) -> Any:
    return value if truthy(value) else fallback


def nullish(value: Any, fallback: Any) -> Any:
    return fallback if value is None else value


# --- reading the bytes the way ST does -----------------------------------------------


def load(data: bytes, filename: str | None = None) -> AppLoad | None:
    """What SillyTavern holds after importing ``data`` (a card's book, or a world file)."""
    return _converted(import_of(data))


def import_of(data: bytes) -> tuple[AppLoad, dict[str, Any] | None] | None:
    """ST's import of ``data`` up to ``convertCharacterBook``: the load (entries filled, except
    when that converter is the path taken) and the card book it converts (None on other paths).
    None when ST would not import the bytes as a character or a world."""
    try:
        obj, via = parse_output(data)
    except (InteropError, ValueError, zipfile.BadZipFile, binascii.Error, UnicodeDecodeError):
        return None
    if not isinstance(obj, dict):
        return None
    return _dispatch(obj, via)


def load_json(obj: dict[str, Any], via: str = "JSON") -> AppLoad | None:
    """ST's import of parsed JSON: a card (its book via convertCharacterBook) or a world file."""
    return _converted(_dispatch(obj, via))


def _converted(imported: tuple[AppLoad, dict[str, Any] | None] | None) -> AppLoad | None:
    """The load with its card book's entries as ``convertCharacterBook`` makes them."""
    if imported is None:
        return None
    load, book = imported
    if book is not None:
        load.entries = convert_character_book(book)
    return load


def _dispatch(obj: dict[str, Any], via: str) -> tuple[AppLoad, dict[str, Any] | None] | None:
    """Which import ST runs on ``obj``; a card book is returned unconverted (see ``import_of``)."""
    if "spec" in obj and obj.get("spec") != "lorebook_v3":
        data = obj.get("data") if isinstance(obj.get("data"), dict) else {}
        book = data.get("character_book")
        load = AppLoad(APP, f"convertCharacterBook ({via})")
        return load, (book if isinstance(book, dict) and isinstance(book.get("entries"), list) else None)
    if obj.get("lorebookVersion") is not None and isinstance(obj.get("entries"), list):
        return AppLoad(APP, "convertNovelLorebook", convert_novel_lorebook(obj)), None
    if obj.get("kind") == "memory" and isinstance(obj.get("entries"), list):
        return AppLoad(APP, "convertAgnaiMemoryBook", convert_agnai_memory_book(obj)), None
    if obj.get("type") == "risu" and isinstance(obj.get("data"), list):
        return AppLoad(APP, "convertRisuLorebook", convert_risu_lorebook(obj)), None
    return _standalone(obj)


def _standalone(obj: dict[str, Any]) -> tuple[AppLoad, dict[str, Any] | None] | None:
    entries = obj.get("entries")
    if isinstance(entries, dict):
        loaded = [filled(e) for e in entries.values() if isinstance(e, dict)]
        return AppLoad(APP, "importWorldInfo (world file as it is)", loaded), None
    book = obj.get("data") if obj.get("spec") == "lorebook_v3" else obj
    if isinstance(book, dict) and isinstance(book.get("entries"), list):
        # importWorldInfo does not convert a standalone card book: it is loaded embedded in a card.
        load = AppLoad(APP, "convertCharacterBook (the book embedded in a card: Import Card Lore)")
        load.notes.append(
            "SillyTavern's importWorldInfo does not convert a standalone character_book/lorebook_v3 file "
            "(it converts NovelAI, Agnai and Risu files only): embed the book in a card, or use --to sillytavern-world"
        )
        return load, book
    return None


# --- the converters -----------------------------------------------------------------


def convert_character_book(book: dict[str, Any]) -> list[dict[str, Any]]:
    """``convertCharacterBook``: a card book's entries as ST world entries, in book order."""
    raw_entries = card_entries(book)
    return [
        _from_card_entry(entry, index, uid)
        for index, (entry, uid) in enumerate(zip(raw_entries, card_uids(raw_entries), strict=True))
    ]


def card_entries(book: dict[str, Any]) -> list[dict[str, Any]]:
    """The entries ``convertCharacterBook`` converts (objects only), in book order."""
    return [e for e in book.get("entries", []) if isinstance(e, dict)]


def card_uids(raw_entries: list[dict[str, Any]]) -> list[Any]:
    """Each entry's uid: its ``id`` as given, else the lowest number no entry's id takes."""
    if all("id" in e for e in raw_entries):  # the usual case: every writer writes ids
        return [e["id"] for e in raw_entries]
    used = {str(e["id"]) for e in raw_entries if "id" in e}
    counter = [0]
    return [entry["id"] if "id" in entry else _next_id(used, counter) for entry in raw_entries]


def _next_id(used: set[str], counter: list[int]) -> int:
    while str(counter[0]) in used:
        counter[0] += 1
    used.add(str(counter[0]))
    counter[0] += 1
    return counter[0] - 1


def _from_card_entry(entry: dict[str, Any], index: int, uid: Any) -> dict[str, Any]:
    """One card entry as ``convertCharacterBook`` makes it a world entry (the model, spelled out;
    ``card_entry_settings`` is the same, faster)."""
    ext = entry.get("extensions") if isinstance(entry.get("extensions"), dict) else {}
    out = dict(TEMPLATE)
    out.update(
        uid=uid,
        key=entry.get("keys"),
        keysecondary=js_or(entry.get("secondary_keys"), []),
        comment=js_or(entry.get("comment"), ""),
        content=entry.get("content"),
        constant=js_or(entry.get("constant"), False),
        selective=js_or(entry.get("selective"), False),
        order=entry.get("insertion_order"),
        position=nullish(ext.get("position"), 0 if entry.get("position") == "before_char" else 1),
        disable=not truthy(entry.get("enabled")),
        addMemo=truthy(entry.get("comment")),
        displayIndex=nullish(ext.get("display_index"), index),
        triggers=js_or(ext.get("triggers"), []),
        extensions=entry.get("extensions") if entry.get("extensions") is not None else {},  # shared, read-only
    )
    for name, (flat, fallback) in FLAT_READS.items():
        out[name] = nullish(ext.get(flat), fallback)
    return out


_FLAT_NAMES = tuple(FLAT_READS)
_FLAT_KEYS = tuple(flat for flat, _ in FLAT_READS.values())
_FLAT_FALLBACKS = tuple(fallback for _, fallback in FLAT_READS.values())
_FALLBACK_AT = tuple(i for i, fallback in enumerate(_FLAT_FALLBACKS) if fallback is not None)
"""Where a null flat key reads as something else (``??``): elsewhere null stays null."""
_EMPTY: dict[str, Any] = {}
_CONTAINERS = (list, dict)


CARD_READS: tuple[str, ...] = (
    "uid", "key", "keysecondary", "comment", "content", "constant", "selective", "order", "position", "disable",
    "displayIndex", "triggers", *_FLAT_NAMES,
)
"""The settings ``convertCharacterBook`` sets from a card entry, in ``card_entry_values``' order
(``addMemo`` and ``extensions`` aside; every other template field keeps the template's value)."""


def card_entry_values(entry: dict[str, Any], index: int, uid: Any) -> tuple[Any, ...]:
    """``card_entry_settings(entry, index, uid)``'s values of ``CARD_READS``, in that order, without
    building the entry (the report compares these with the source's; a test holds them together)."""
    get = entry.get
    extensions = get("extensions")
    ext_get = (extensions if isinstance(extensions, dict) else _EMPTY).get
    secondary, comment, constant, selective = get("secondary_keys"), get("comment"), get("constant"), get("selective")
    position, display, triggers = ext_get("position"), ext_get("display_index"), ext_get("triggers")
    enabled = get("enabled")
    flat = list(map(ext_get, _FLAT_KEYS))
    if None in flat:  # JSON values: only null equals None
        for i in _FALLBACK_AT:
            if flat[i] is None:
                flat[i] = _FLAT_FALLBACKS[i]
    return (
        uid,
        get("keys"),
        secondary if secondary or isinstance(secondary, _CONTAINERS) else [],
        comment if comment or isinstance(comment, _CONTAINERS) else "",
        get("content"),
        constant if constant or isinstance(constant, _CONTAINERS) else False,
        selective if selective or isinstance(selective, _CONTAINERS) else False,
        get("insertion_order"),
        position if position is not None else (0 if get("position") == "before_char" else 1),
        not (enabled or isinstance(enabled, _CONTAINERS)),
        display if display is not None else index,
        triggers if triggers or isinstance(triggers, _CONTAINERS) else [],
        *flat,
    )


CARD_RAW: dict[str, tuple[bool, str]] = {
    "uid": (False, "id"), "key": (False, "keys"), "keysecondary": (False, "secondary_keys"),
    "comment": (False, "comment"), "content": (False, "content"), "constant": (False, "constant"),
    "selective": (False, "selective"), "order": (False, "insertion_order"), "disable": (False, "enabled"),
    "position": (True, "position"), "displayIndex": (True, "display_index"), "triggers": (True, "triggers"),
    **{name: (True, flat) for name, flat in zip(_FLAT_NAMES, _FLAT_KEYS, strict=True)},
}
"""Where ``card_entry_values`` reads each of ``CARD_READS`` in a card entry: (in its ``extensions``?, key);
``disable`` is ``enabled`` negated, ``uid`` the entry's ``id`` when every entry has one (``card_uids``)."""

KEPT_AS_IS: dict[str, Any] = {
    "keysecondary": list, "comment": str, "constant": bool, "selective": bool, "triggers": list, "disable": bool,
    "position": None, "displayIndex": None,
    **{name: None for name, fallback in zip(_FLAT_NAMES, _FLAT_FALLBACKS, strict=True) if fallback is not None},
}
"""Which values ``v`` of a setting ``card_entry_values`` gives back as they are (same value, same type)
from a card entry holding ``v`` at its ``CARD_RAW`` place (``not v`` for ``disable``), depending on
nothing else: a type, values of exactly that type (``||`` falls back to a value of it only for one
of it: ``[]``, ``''``, ``false``); None, any value but null (``??``; a null position or display index
would read the spelled ``position`` or the index); a setting not listed, any value (read as is, or
``??`` with a null fallback)."""


def card_entry_settings(entry: dict[str, Any], index: int, uid: Any) -> dict[str, Any]:
    """``_from_card_entry(entry, index, uid)``, equal key for key and type for type (a test holds
    them together), with the JavaScript ``||``/``??``/truthiness inlined: the report runs it on
    every entry of every output (``truthy(v)`` is ``bool(v)`` except that ``[]``/``{}`` are true)."""
    get = entry.get
    extensions = get("extensions")
    ext = extensions if isinstance(extensions, dict) else _EMPTY
    ext_get = ext.get
    out = dict(TEMPLATE)
    value: Any
    out["uid"] = uid
    out["key"] = get("keys")
    value = get("secondary_keys")
    out["keysecondary"] = value if value or isinstance(value, _CONTAINERS) else []
    comment = get("comment")
    commented = bool(comment) or isinstance(comment, _CONTAINERS)
    out["comment"] = comment if commented else ""
    out["content"] = get("content")
    value = get("constant")
    out["constant"] = value if value or isinstance(value, _CONTAINERS) else False
    value = get("selective")
    out["selective"] = value if value or isinstance(value, _CONTAINERS) else False
    out["order"] = get("insertion_order")
    value = ext_get("position")
    out["position"] = value if value is not None else (0 if get("position") == "before_char" else 1)
    value = get("enabled")
    out["disable"] = not (value or isinstance(value, _CONTAINERS))
    out["addMemo"] = commented
    value = ext_get("display_index")
    out["displayIndex"] = value if value is not None else index
    value = ext_get("triggers")
    out["triggers"] = value if value or isinstance(value, _CONTAINERS) else []
    out["extensions"] = extensions if extensions is not None else {}
    flat = list(map(ext_get, _FLAT_KEYS))
    if None in flat:  # JSON values: only null equals None
        for i in _FALLBACK_AT:
            if flat[i] is None:
                flat[i] = _FLAT_FALLBACKS[i]
    out.update(zip(_FLAT_NAMES, flat, strict=True))
    return out


def convert_novel_lorebook(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """``convertNovelLorebook``: keys, displayName -> comment, text, budgetPriority -> order, enabled."""
    out = []
    for index, entry in enumerate(e for e in obj["entries"] if isinstance(e, dict)):
        name = entry.get("displayName")
        config = entry.get("contextConfig") if isinstance(entry.get("contextConfig"), dict) else {}
        out.append({
            **TEMPLATE, "uid": index, "key": entry.get("keys"), "comment": js_or(name, ""),
            "content": entry.get("text"), "selective": False, "order": nullish(config.get("budgetPriority"), 0),
            "disable": not truthy(entry.get("enabled")), "displayIndex": index,
            "addMemo": isinstance(name, str) and name.strip() != "", "delayUntilRecursion": False,
        })
    return out


def convert_agnai_memory_book(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """``convertAgnaiMemoryBook``: keywords, name -> comment, entry, weight -> order, enabled."""
    out = []
    for index, entry in enumerate(e for e in obj["entries"] if isinstance(e, dict)):
        out.append({
            **TEMPLATE, "uid": index, "key": entry.get("keywords"), "comment": entry.get("name"),
            "content": entry.get("entry"), "selective": False, "order": entry.get("weight"),
            "disable": not truthy(entry.get("enabled")), "addMemo": truthy(entry.get("name")),
            "displayIndex": index, "delayUntilRecursion": False,
        })
    return out


def convert_risu_lorebook(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """``convertRisuLorebook``: comma-split keys, alwaysActive -> constant, activationPercent."""
    out = []
    for index, entry in enumerate(e for e in obj["data"] if isinstance(e, dict)):
        key, second = entry.get("key"), entry.get("secondkey")
        percent = entry.get("activationPercent")
        out.append({
            **TEMPLATE, "uid": index, "key": [k.strip() for k in key.split(",")] if isinstance(key, str) else key,
            "keysecondary": [k.strip() for k in second.split(",")] if isinstance(second, str) and second else [],
            "comment": entry.get("comment"), "content": entry.get("content"), "constant": entry.get("alwaysActive"),
            "selective": entry.get("selective"), "order": entry.get("insertorder"), "addMemo": True,
            "displayIndex": index, "probability": nullish(percent, 100), "useProbability": nullish(percent, True),
            "delayUntilRecursion": False,
        })
    return out
