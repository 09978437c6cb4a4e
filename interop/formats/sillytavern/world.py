"""SillyTavern world file <-> canonical book (``{"entries": {"<uid>": {...}}, "originalData"?: {...}}``)."""

from __future__ import annotations

import copy
import json
from typing import Any

from ...errors import InvalidCardError
from ...jsonvalue import json_equal
from ...memo import memoized
from ...model import Lorebook, LorebookEntry
from ...model.conflict import Conflict
from ...model.stash import Stash
from .fields import BY_FLAT
from .model import NAMESPACE, STASH_KEYS, UNKNOWN, book_ext, entry_ext, foreign_extensions
from .normalize import normalize_card_book
from .read_entry import build_entry, read_native_entry
from .write_entry import Fill, native_from_entry

BOOK_FIELDS_IN_ORIGINAL = ("name", "description", "scan_depth", "token_budget", "recursive_scanning")


def lorebook_from_world(obj: dict[str, Any], *, file: str | None = None) -> Lorebook:
    """A native SillyTavern world-info object as a canonical ``Lorebook`` (lossless)."""
    if not isinstance(obj, dict) or not isinstance(obj.get("entries"), dict):
        raise InvalidCardError("world info has no 'entries' object", file=file, location="entries")
    obj = copy.deepcopy(obj)  # the canonical book must not share mutable values with the caller's dict
    original = obj.get("originalData")
    by_id = _original_entries(original)
    entries = [_entry_from_world(key, native, by_id, file) for key, native in obj["entries"].items()]
    lorebook: dict[str, Any] = {"native_world": True}
    if "originalData" in obj:
        lorebook["original_data"] = original
    unknown = Stash(keep={k: v for k, v in obj.items() if k not in ("entries", "originalData")})
    lorebook.update(unknown.to_json(UNKNOWN))
    book: dict[str, Any] = {}
    if isinstance(original, dict):
        book.update({name: original[name] for name in BOOK_FIELDS_IN_ORIGINAL if name in original})
        # other tools' book fields (Chub's id, creator, ...) that the world stashed in originalData
        book.update({k: v for k, v in original.items() if k not in Lorebook.model_fields})
    book["extensions"] = {**_original_extensions(original), NAMESPACE: {"lorebook": lorebook}}
    book["entries"] = entries
    try:
        return Lorebook.model_validate(book)
    except ValueError as exc:  # pydantic ValidationError: an originalData field of an impossible shape
        raise InvalidCardError(f"originalData: {exc}", file=file, location="originalData") from None


def _original_extensions(original: Any) -> dict[str, Any]:
    """The book ``extensions`` kept in ``originalData`` (other tools' namespaces, e.g. Risu's folders).

    ``originalData`` is the book the world was made from; SillyTavern stores a world file as uploaded and
    saves it back whole (``src/endpoints/worldinfo.js`` ``/import``, ``/edit``), so these come back on the
    way to the app that owns them.
    """
    extensions = original.get("extensions") if isinstance(original, dict) else None
    return copy.deepcopy(foreign_extensions(extensions))


def _entry_from_world(key: str, native: Any, by_id: dict[str, dict[str, Any]], file: str | None) -> LorebookEntry:
    if not isinstance(native, dict):
        raise InvalidCardError(
            f"entry is a {type(native).__name__}, not an object", file=file, location=f"entries.{key}"
        )
    top, ns, foreign = read_native_entry(native)
    if "uid" not in native or str(native["uid"]) != key:
        ns["uid_key"] = key
    source = by_id.get(json.dumps(native.get("uid")))
    for name in ("name", "priority"):
        if source is not None and name in source:
            top[name] = source[name]
    if source is not None:  # fields ST's entries have no place for (Chub's entry_id, ...), stashed there
        top.update({k: v for k, v in source.items() if k not in LorebookEntry.model_fields and k not in top})
    entry = build_entry(top, ns, foreign)
    _pin_exact(entry, ns, native, foreign)
    return entry


def _original_entries(original: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(original, dict) or not isinstance(original.get("entries"), list):
        return {}
    return {json.dumps(e.get("id")): e for e in original["entries"] if isinstance(e, dict) and "id" in e}


def _pin_exact(
    entry: LorebookEntry, ns: dict[str, Any], native: dict[str, Any], foreign: dict[str, Any] | None
) -> None:
    """Record in ``verbatim``/``omit`` whatever the typed fields would not write back exactly."""
    again = native_from_entry(entry, template=False, index=0)
    stash = Stash(
        keep={k: v for k, v in native.items() if k not in again or not json_equal(again[k], v)},
        absent=[k for k in again if k not in native],
    )
    if not stash:
        return
    ns.update(stash.to_json(*STASH_KEYS))
    entry.extensions = {**(foreign or {}), NAMESPACE: {"entry": ns}}


def normalized(book: Lorebook) -> tuple[Lorebook, list[Conflict]]:
    """``normalize_card_book(book)`` (the same for the writers and the report: memo)."""
    return memoized("st_normalized", book, (), lambda: normalize_card_book(book))


def natives(book: Lorebook, template: bool, from_card: bool, plain: list[bool]) -> list[dict[str, Any]]:
    """Each entry of ``book`` as a native ST entry, template-filled or not (read-only when memoized:
    the card writer's and the report's world view of one source book are the same)."""

    def compute() -> list[dict[str, Any]]:
        if not template:  # without the template, the fill (from_card, plain keys) changes nothing
            return [native_from_entry(e, template=False, index=i) for i, e in enumerate(book.entries)]
        return [
            native_from_entry(e, template=True, index=i, fill=_fill(from_card, plain[i]))
            for i, e in enumerate(book.entries)
        ]

    args = (True, from_card, tuple(plain)) if template else (False,)
    return memoized("st_natives", book, args, compute)


def is_native_world(book: Lorebook) -> bool:
    """``book_ext(book).native_world is True`` without validating the record when there is none (most books)."""
    return isinstance(book.ext(NAMESPACE).get("lorebook"), dict) and book_ext(book).native_world is True


_FILLS = {(from_card, plain): Fill(from_card, plain) for from_card in (False, True) for plain in (False, True)}


def _fill(from_card: bool, plain: bool) -> Fill:
    """``Fill(from_card, plain)``: frozen, so the four usual ones are shared (one per entry cost ~1 µs)."""
    fill = _FILLS.get((from_card, plain))  # equal keys (1 == True) are read alike: both fields are only tested
    return fill if fill is not None else Fill(from_card, plain)


def st_exported_use_regex(entry: LorebookEntry) -> bool:
    """The entry's ``use_regex`` is ST's exporter constant, not a statement about its keys.

    ``convertWorldInfoToCharacterBook`` (src/endpoints/characters.js) writes ``use_regex: true``
    on every entry next to its flat ``extensions`` keys; ST's importer ignores it and treats a
    key as a regex only when it is written ``/pattern/flags``. SillyTavern never writes an
    ``extensions.sillytavern`` namespace: an entry with ours (a card we wrote records a real
    ``use_regex`` in ``card_fields`` there) or with Risu data (``extensions.risuai``) has a real one.
    """
    extensions = entry.extensions if isinstance(entry.extensions, dict) else {}
    if not any(k in BY_FLAT for k in extensions):
        return False
    return NAMESPACE not in extensions and "risuai" not in extensions


def world_from_lorebook(book: Lorebook, *, from_card: bool = False) -> dict[str, Any]:
    """The native world-info object SillyTavern would hold for ``book``.

    A book read from a world file gives that file back exactly. Any other book is
    filled the way ST's importers fill it (template defaults, ``originalData`` = the
    book; ``from_card``: a card's book, imported by ``convertCharacterBook``), without
    their lossy fallbacks (see the mapping table notes).
    """
    return world_from_normalized(book, normalized(book)[0], from_card=from_card)


def world_from_normalized(source: Lorebook, book: Lorebook, *, from_card: bool = False) -> dict[str, Any]:
    """``world_from_lorebook(source)`` for ``book`` = ``source`` already normalized (a card book may
    still carry ST's flat keys); the plain-key rule reads the source's entries as they came."""
    meta = book_ext(book)
    native_world = meta.native_world is True
    entries = _world_entries(source, book, from_card, native_world)
    out: dict[str, Any] = {"entries": entries}
    if native_world:
        if "original_data" in meta.model_fields_set:
            out["originalData"] = copy.deepcopy(meta.original_data)
    else:
        out["originalData"] = _original_data(book, entries)
    if isinstance(meta.unknown, dict):  # other top-level keys of the world file; never over ours
        Stash(keep=meta.unknown).restore(out, skip=list(out))
    return out


def world_entries(book: Lorebook, *, from_card: bool = False) -> dict[str, Any]:
    """``world_from_lorebook(book)["entries"]`` alone: the settings SillyTavern holds, without
    building ``originalData`` (the app model compares settings only)."""
    normal = normalized(book)[0]
    return _world_entries(book, normal, from_card, is_native_world(normal))


def _world_entries(source: Lorebook, book: Lorebook, from_card: bool, native_world: bool) -> dict[str, Any]:
    # copies: the uid fix-up below writes into them, and the lists may be shared (memo)
    entries_native = [dict(n) for n in natives(book, not native_world, from_card, plain_keys(source))]
    return _keyed_by_uid(book, entries_native, native_world)


def world_entry_items(book: Lorebook, *, from_card: bool = False) -> list[tuple[str, dict[str, Any]]]:
    """``list(world_entries(book, from_card=from_card).items())`` without copying every entry: the
    entries are the memoized natives the card writer built for ``book`` (read-only; an entry whose uid
    is fixed up is a copy). For the app model, which copies each into its template-filled settings."""
    normal = normalized(book)[0]
    native_world = is_native_world(normal)
    shared = natives(normal, not native_world, from_card, plain_keys(book))
    keys = [_uid_key(entry, native, native_world) for entry, native in zip(normal.entries, shared, strict=True)]
    if None not in keys and len(set(keys)) == len(keys):  # the usual case: no uid to fix up
        return list(zip(keys, shared, strict=True))
    return list(_keyed_by_uid(normal, [dict(n) for n in shared], native_world).items())


def plain_keys(book: Lorebook) -> list[bool]:
    """``st_exported_use_regex`` of each entry of ``book`` (memoized, read-only: the card writer's
    readable book and the app model's world view of one source ask for the same list)."""
    return memoized("st_plain_keys", book, (), lambda: [st_exported_use_regex(e) for e in book.entries])


def _uid_key(entry: LorebookEntry, native: dict[str, Any], native_world: bool) -> str | None:
    if native_world:  # only a world file's entry records its object key
        uid_key = entry_ext(entry).uid_key
        if isinstance(uid_key, str):
            return uid_key
    uid = native.get("uid")
    if (isinstance(uid, int) and not isinstance(uid, bool)) or (isinstance(uid, str) and uid):
        return str(uid)  # ST's convertCharacterBook keys an entry by its id as given, "1" included
    return None


def _keyed_by_uid(book: Lorebook, entries_native: list[dict[str, Any]], native_world: bool) -> dict[str, Any]:
    keys = [_uid_key(entry, native, native_world) for entry, native in zip(book.entries, entries_native, strict=True)]
    entries: dict[str, Any] = {}
    taken = {k for k in keys if k is not None}
    free = 0
    for key, native in zip(keys, entries_native, strict=True):
        if key is None or key in entries:
            # A missing or duplicate uid gets the first free one (ST's importer would overwrite the duplicate).
            while str(free) in taken:
                free += 1
            key = str(free)
            taken.add(key)
            if not native_world or "uid" in native:
                native["uid"] = free
        entries[key] = native
    return entries


def _original_data(book: Lorebook, entries: dict[str, Any]) -> dict[str, Any]:
    """What ST's importer keeps as ``originalData``: the input card book (ids set to the uids)."""
    raw = book.dump()
    book_foreign = foreign_extensions(raw.pop("extensions", None))
    if book_foreign:
        raw["extensions"] = book_foreign
    uids = [native.get("uid") for native in entries.values()]
    for item, uid in zip(raw.get("entries", []), uids, strict=False):
        if "extensions" in item:
            item["extensions"] = foreign_extensions(item["extensions"])
        if uid is not None:
            item["id"] = uid
    return raw
