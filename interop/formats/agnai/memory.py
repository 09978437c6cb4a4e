"""Agnai memory books (``{kind: "memory", ...}``): format ``agnai-book``.

Field renames and defaults come from ``mappings/agnai.json``. Agnai-only data
is kept under ``extensions.agnai`` (``book.extensions.agnai.book.*`` for
``_id``/``userId``/unknown book keys, ``entry.extensions.agnai.entry.*`` for
passthrough entry keys such as ``probability``).

Writing to Agnai, whatever Agnai would drop (entry ``extensions``,
``case_sensitive``, ``use_regex``, unknown entry keys, unknown book keys, and
which required fields we had to fill in) goes into the one place Agnai keeps
verbatim, the book-level ``extensions``, under ``interop_agnai`` keyed by entry
id; reading pops that stash and restores the entries, so a lorebook taken to
Agnai and back is unchanged.
"""

from __future__ import annotations

import copy
from pathlib import PurePath
from typing import Any

from pydantic import ValidationError

from ...cardkit.as_kind import as_lorebook
from ...document import Document
from ...errors import InvalidCardError
from ...jsonio import dump_json
from ...jsonvalue import ABSENT
from ...mappings import Level
from ...mappings import load as load_mapping
from ...model import Lorebook, as_str_list
from ...model.stash import Stash, take
from ...platform.registry import Format, Probe, ReadContext, WriteContext
from ...transforms.agnai_keys import agnai_key_hazards

NAMESPACE = "agnai"
STASH = "interop_agnai"
STASH_VERSION = 1
KIND = "memory"

_MAPPING = load_mapping("agnai")


def _renames(level: Level) -> list[tuple[str, str]]:
    """(native, canonical) pairs of plain one-to-one renames at ``level``."""
    return [
        (f.native, f.canonical)
        for f in _MAPPING.fields_at(level)
        if f.canonical and f.native != "*" and "." not in f.canonical
    ]


BOOK_FIELDS = [(n, c) for n, c in _renames("book") if n != "entries"]
ENTRY_FIELDS = _renames("entry")
ENTRY_DEFAULTS: dict[str, Any] = _MAPPING.defaults("entry")
BOOK_DEFAULTS: dict[str, Any] = _MAPPING.defaults("book")
# Agnai's book import drops an entry without text or keyword list and its
# validation wants all six (``required`` rows); the writer fills them when the source lacks them.
REQUIRED_ENTRY_FIELDS = tuple(_MAPPING.required_fields("entry"))

_CANONICAL_BY_NATIVE_BOOK = dict(BOOK_FIELDS)
_CANONICAL_BY_NATIVE_ENTRY = dict(ENTRY_FIELDS)


# --- native -> canonical -------------------------------------------------------


def lorebook_from_memory_book(obj: dict[str, Any], *, file: str | None = None, location: str | None = None) -> Lorebook:
    """The canonical lorebook of an Agnai ``MemoryBook`` (the stash, if any, is restored)."""
    where = location or ""
    if not isinstance(obj, dict):
        raise InvalidCardError("memory book is not an object", file=file, location=location)
    entries = obj.get("entries")
    if not isinstance(entries, list):
        raise InvalidCardError("memory book 'entries' is not a list", file=file, location=_at(where, "entries"))
    raw, native_only = _book_from_native(obj)
    stash = _pop_stash(raw)
    _keep_agnai_namespace(raw, native_only, [] if "kind" in obj else ["kind"])
    raw_entries = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise InvalidCardError("memory entry is not an object", file=file, location=_at(where, f"entries[{i}]"))
        raw_entries.append(_entry_from_native(entry))
    _apply_stash(raw, raw_entries, entries, stash)
    raw["entries"] = raw_entries
    try:
        return Lorebook.model_validate(raw)
    except ValidationError as exc:  # only entries can fail: they must be objects
        raise InvalidCardError(f"memory book does not validate: {exc.errors()[0]['msg']}", file=file) from None


def _at(base: str, path: str) -> str:
    return f"{base}.{path}" if base else path


def _book_from_native(obj: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The renamed book fields, and the native keys the table does not map (``_id``, ``userId``, ...)."""
    raw: dict[str, Any] = {}
    native_only: dict[str, Any] = {}
    for key, value in obj.items():
        if key == "entries" or (key == "kind" and value == KIND):
            continue
        canonical = _CANONICAL_BY_NATIVE_BOOK.get(key)
        if canonical is not None:
            raw[canonical] = copy.deepcopy(value)
        else:
            native_only[key] = copy.deepcopy(value)
    return raw, native_only


def _keep_agnai_namespace(raw: dict[str, Any], native_only: dict[str, Any], absent: list[str]) -> None:
    """Put what only Agnai has under ``extensions.agnai`` (creating ``extensions`` if need be, remembered)."""
    ns: dict[str, Any] = {}
    if native_only:
        ns["book"] = native_only
    if absent:
        ns["absent"] = absent
    extensions = raw.get("extensions")
    if isinstance(extensions, dict) and NAMESPACE in extensions:
        ns["extensions_agnai"] = extensions.pop(NAMESPACE)
    if not ns:
        return
    if not isinstance(raw.get("extensions"), dict):
        if "extensions" in raw:
            ns["replaced_extensions"] = raw["extensions"]
        else:
            ns.setdefault("absent", []).append("extensions")
        raw["extensions"] = {}
    raw["extensions"][NAMESPACE] = ns


def _entry_from_native(entry: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    passthrough: dict[str, Any] = {}
    for key, value in entry.items():
        canonical = _CANONICAL_BY_NATIVE_ENTRY.get(key)
        if canonical is not None:
            out[canonical] = copy.deepcopy(value)
        else:
            passthrough[key] = copy.deepcopy(value)
    if passthrough:
        out["extensions"] = {NAMESPACE: {"entry": passthrough}}
    return out


def _pop_stash(raw: dict[str, Any]) -> dict[str, Any]:
    extensions = raw.get("extensions")
    stash = take(extensions, STASH)
    if not stash or extensions:
        return stash
    book = Stash.from_json(stash.get("book"))
    if "extensions" in book.absent:
        raw.pop("extensions")
    elif "extensions" in book.keep:
        raw["extensions"] = copy.deepcopy(book.keep["extensions"])
    return stash


def _apply_stash(
    raw: dict[str, Any], entries: list[dict[str, Any]], natives: list[dict[str, Any]], stash: dict[str, Any]
) -> None:
    """Restore the entries and the book from ``stash``; stashed data for entries that no longer exist is kept."""
    leftover = _restore_entries(entries, natives, stash.get("entries"))
    _restore_book(raw, stash.get("book"))
    if leftover:
        ext = raw.setdefault("extensions", {})
        if isinstance(ext, dict):
            ext[STASH] = {"v": STASH_VERSION, "entries": leftover}


def _restore_book(raw: dict[str, Any], saved: Any) -> None:
    if not isinstance(saved, dict):
        return
    Stash.from_json(saved).restore(raw, skip=["extensions"])
    residue = saved.get("agnai")
    if isinstance(residue, dict):
        ext = raw.setdefault("extensions", {})
        if isinstance(ext, dict):
            ns = ext.setdefault(NAMESPACE, {})
            if isinstance(ns, dict):
                ns.update(copy.deepcopy(residue))


def _restore_entries(entries: list[dict[str, Any]], natives: list[dict[str, Any]], saved: Any) -> dict[str, Any]:
    """Apply per-entry stashes; return the ones matching no entry."""
    if not isinstance(saved, dict):
        return {}
    index = {key: i for i, key in enumerate(stash_keys([n.get("id", ABSENT) for n in natives]))}
    leftover = {}
    for key, item in saved.items():
        i = index.get(key)
        if i is None or not isinstance(item, dict):
            leftover[key] = item
            continue
        _restore_entry(entries[i], item)
    return leftover


def _restore_entry(entry: dict[str, Any], saved: dict[str, Any]) -> None:
    stash = Stash.from_json(saved)
    stash.restore(entry, skip=["extensions"])
    if "extensions" in stash.absent:  # never also kept: only a V2 card's entry without one is absent
        entry.pop("extensions", None)
    if "extensions" in stash.keep:
        passthrough = entry.get("extensions", {}).get(NAMESPACE, {}).get("entry") if "extensions" in entry else None
        extensions = copy.deepcopy(stash.keep["extensions"])
        if passthrough is not None and isinstance(extensions, dict):
            ns = extensions.setdefault(NAMESPACE, {})
            if isinstance(ns, dict):
                ns["entry"] = passthrough
        entry["extensions"] = extensions


def restore_agnai_stash(book: Lorebook) -> Lorebook:
    """``book`` with its ``interop_agnai`` stash applied, for a V2 ``character_book`` that went through
    Agnai (written by ``agnai-card``, imported and exported by Agnai, read back as ``ccv2``).

    Agnai's export gives every entry ``extensions: {}``; the stash lists the entries that had
    none (``absent``). A book without a stash is returned unchanged.
    """
    raw = book.dump()
    stash = _pop_stash(raw)
    if not stash:
        return book
    entries = raw.get("entries", [])
    _apply_stash(raw, entries, entries, stash)
    return Lorebook.model_validate(raw)


def stash_keys(ids: list[Any]) -> list[str]:
    """The stash key of each entry: its id when that is a unique int/str, else ``#<index>``."""
    texts = [str(i) if isinstance(i, int | str) and not isinstance(i, bool) else None for i in ids]
    counts: dict[str, int] = {}
    for text in texts:
        if text is not None:
            counts[text] = counts.get(text, 0) + 1
    return [
        text if text is not None and counts[text] == 1 and not text.startswith("#") else f"#{i}"
        for i, text in enumerate(texts)
    ]


# --- canonical -> native -------------------------------------------------------


def memory_book_from_lorebook(
    book: Lorebook, *, fill_required: bool = True, default_name: str | None = None, for_v2_card: bool = False
) -> dict[str, Any]:
    """The Agnai ``MemoryBook`` for ``book``, with everything Agnai drops stashed in its extensions.

    ``fill_required`` fills the six fields Agnai's import needs on every entry
    (and the book name) when the source lacks them, remembering in the stash that
    they were filled. Writing an Agnai book back as read passes False.
    ``for_v2_card``: the book goes into a V2 card, whose entries Agnai's export
    gives back with ``extensions: {}``; an empty object is then not stashed, a
    missing one is recorded as absent instead, and ``extensions.agnai`` is not
    turned into native keys (a V2 card has no place for them).
    """
    raw = book.dump()
    entries = raw.pop("entries", [])
    ext = raw.pop("extensions", ABSENT)
    ns: dict[str, Any] = {}
    if isinstance(ext, dict) and isinstance(ext.get(NAMESPACE), dict) and not for_v2_card:
        ext = dict(ext)
        ns = dict(ext.pop(NAMESPACE))
    native_only = ns.pop("book", {})
    absent = set(ns.pop("absent", []))
    book_saved = Stash()
    out = _book_to_native(raw, absent, book_saved, default_name, fill_required)
    native_ext = _native_book_extensions(ext, ns, absent)
    book_saved.keep.update(raw)  # unknown canonical book keys

    keys = stash_keys([e.get("id", ABSENT) for e in entries])
    saved_entries: dict[str, Any] = {}
    for key, entry in zip(keys, entries, strict=True):
        native, saved = _entry_to_native(entry, fill_required, for_v2_card)
        out["entries"].append(native)
        if saved:
            saved_entries[key] = saved

    if saved_entries or book_saved or ns:  # ns: agnai-namespace keys we do not write natively
        native_ext = book_saved.box(native_ext, "extensions")
        stash: dict[str, Any] = {"v": STASH_VERSION}
        if saved_entries:
            stash["entries"] = saved_entries
        book_json = {**book_saved.to_json(), **({"agnai": ns} if ns else {})}
        if book_json:
            stash["book"] = book_json
        native_ext[STASH] = stash
    if native_ext is not ABSENT:
        out["extensions"] = native_ext
    for key, value in native_only.items():
        out.setdefault(key, value)
    return _ordered_book(out)


def _book_to_native(
    raw: dict[str, Any], absent: set[str], saved: Stash, default_name: str | None, fill_required: bool
) -> dict[str, Any]:
    """The native book fields (renamed from ``raw``, which loses them); a name filled in is recorded."""
    out: dict[str, Any] = {}
    if "kind" not in absent:
        out["kind"] = KIND
    for native, canonical in BOOK_FIELDS:
        if native == "extensions":
            continue
        if canonical in raw:
            out[native] = raw.pop(canonical)
        elif native == "name" and fill_required:
            out["name"] = default_name or BOOK_DEFAULTS["name"]
            saved.absent.append("name")
    out["entries"] = []
    return out


def _native_book_extensions(ext: Any, ns: dict[str, Any], absent: set[str]) -> Any:
    """The native book ``extensions`` as Agnai had it (its own ``agnai`` key and odd values put back)."""
    if not isinstance(ext, dict):
        return ext
    native_ext: Any = dict(ext)
    if "extensions_agnai" in ns:
        native_ext[NAMESPACE] = ns.pop("extensions_agnai")
    if "replaced_extensions" in ns:
        native_ext = native_ext or ns.pop("replaced_extensions")
    elif "extensions" in absent and not native_ext:
        native_ext = ABSENT
    return native_ext


_BOOK_ORDER = tuple(_MAPPING.native_order("book"))  # the key order of Agnai's own book export


def _ordered_book(out: dict[str, Any]) -> dict[str, Any]:
    ordered = {k: out[k] for k in _BOOK_ORDER if k in out}
    ordered.update((k, v) for k, v in out.items() if k not in ordered)
    return ordered


def _entry_to_native(
    entry: dict[str, Any], fill_required: bool, for_v2_card: bool = False
) -> tuple[dict[str, Any], dict[str, Any]]:
    entry = dict(entry)
    ext = entry.pop("extensions", ABSENT)
    passthrough, ext, only_agnai = _split_passthrough(ext, for_v2_card)
    native: dict[str, Any] = {}
    saved = Stash()
    for name, canonical in ENTRY_FIELDS:
        if canonical in entry:
            value = entry.pop(canonical)
            fixed = _usable(name, value) if fill_required else value
            if fixed is not value:
                saved.keep[canonical] = value
            native[name] = fixed
        elif fill_required and name in REQUIRED_ENTRY_FIELDS:
            native[name] = _default(name, entry)
            saved.absent.append(canonical)
    saved.keep.update(entry)  # case_sensitive, use_regex, unknown keys
    if for_v2_card and ext is ABSENT:
        saved.absent.append("extensions")
    elif ext is not ABSENT and not only_agnai and not (for_v2_card and ext == {}):
        saved.keep["extensions"] = ext
    for key, value in passthrough.items():
        if key in native:
            saved.keep.setdefault("extensions", {}).setdefault(NAMESPACE, {}).setdefault("entry", {})[key] = value
        else:
            native[key] = value
    return native, saved.to_json()


def _split_passthrough(ext: Any, for_v2_card: bool) -> tuple[dict[str, Any], Any, bool]:
    """Native entry keys kept in ``extensions.agnai.entry``, the rest of ``ext``, and whether that was all."""
    if (
        for_v2_card  # a V2 card has no place for native keys: the namespace is stashed whole
        or not isinstance(ext, dict)
        or not isinstance(ext.get(NAMESPACE), dict)
        or not isinstance(ext[NAMESPACE].get("entry"), dict)
    ):
        return {}, ext, False
    ext = copy.deepcopy(ext)
    passthrough = ext[NAMESPACE].pop("entry")
    if not ext[NAMESPACE]:
        ext.pop(NAMESPACE)
    return passthrough, ext, not ext


def _default(native: str, entry: dict[str, Any]) -> Any:
    if native == "name" and isinstance(entry.get("comment"), str):
        return entry["comment"]
    return copy.deepcopy(ENTRY_DEFAULTS[native])


def _usable(native: str, value: Any) -> Any:
    """A value Agnai's import accepts (it drops entries whose keywords are not a list); else ``value`` itself."""
    if native == "keywords" and not (isinstance(value, list) and all(isinstance(k, str) for k in value)):
        return as_str_list(value)
    if native == "entry" and not isinstance(value, str):
        return "" if value is None else str(value)
    return value


# --- the agnai-book format ---------------------------------------------------------


def looks_like_memory_book(obj: dict[str, Any]) -> bool:
    entries = obj.get("entries")
    return obj.get("kind") == KIND and isinstance(entries, list)


def _detect(probe: Probe) -> int:
    obj = probe.json_object
    return 100 if obj is not None and looks_like_memory_book(obj) else 0


def _read(data: bytes, ctx: ReadContext) -> Document:
    obj = ctx.json(data)
    if not isinstance(obj, dict):
        raise InvalidCardError("Agnai memory book is not a JSON object", file=ctx.filename)
    book = lorebook_from_memory_book(obj, file=ctx.filename)
    doc = Document(format="agnai-book", lorebook=book, source=ctx.filename)
    if isinstance(book.extensions, dict) and STASH in book.extensions:
        doc.warn("the interop_agnai stash names entries this book no longer has; kept in extensions.interop_agnai")
    return doc


def _write(doc: Document, ctx: WriteContext) -> bytes:
    book = as_lorebook(doc)
    native = memory_book_from_lorebook(book, fill_required=doc.format != "agnai-book", default_name=_stem(doc.source))
    return dump_json(native, pretty=ctx.pretty)


def _stem(path: str | None) -> str | None:
    return PurePath(path).stem if path else None


def describe_book(book: Lorebook | None) -> dict[str, Any]:
    """Agnai facts: what the engine will use, and what it keeps but ignores."""
    if book is None:
        return {}
    entries = book.entries
    return {
        "enabled_entries": sum(1 for e in entries if e.enabled is not False),
        "priorities": sorted({p for e in entries if isinstance((p := e.priority), int | float)}, reverse=True)[:10],
        "weights": sorted({w for e in entries if isinstance((w := e.insertion_order), int | float)}, reverse=True)[:10],
        # Kept by Agnai but not used: its preset's memory depth and budget apply.
        "unused_scan_depth": book.scan_depth,
        "unused_token_budget": book.token_budget,
        "key_hazards": len(agnai_key_hazards(book)),
    }


def _describe(doc: Document) -> dict[str, Any]:
    return describe_book(doc.book)


FORMATS = (
    Format(
        name="agnai-book",
        kind="lorebook",
        title="Agnai memory book ({kind: memory})",
        suffix=".json",
        platform="agnai",
        detect=_detect,
        detect_max=100,
        read=_read,
        write=_write,
        describe=_describe,
        aliases=("agnai-memory",),
    ),
)
"""This module's formats, registered by the package ``__init__`` (in this order)."""
