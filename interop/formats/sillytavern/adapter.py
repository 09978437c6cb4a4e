"""SillyTavern: native world info files and SillyTavern-flavoured cards.

* ``sillytavern-world``: ``{"entries": {"<uid>": {...}}, "originalData"?: {...}}``,
  read and written losslessly (``lorebook_from_world`` / ``world_from_lorebook``).
* ``sillytavern-card``: a V2 card JSON the way SillyTavern writes it (V1 mirror
  at the root, ST's flat ``entry.extensions`` keys), plus a stash of what ST's
  own exporter drops. Reading cards is the ccv2/ccv3/png readers' job; they (or
  the fidelity report) call ``normalize_card`` / ``normalize_card_book`` to fold
  the flat keys into ``extensions.sillytavern`` and get the conflicts.

Field renames and defaults come from ``mappings/sillytavern.json`` (rendered to
docs/platforms/sillytavern.md), which also documents every decision made here.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from ...convert import as_card, as_lorebook
from ...document import Document
from ...errors import InvalidCardError
from ...jsonio import dump_json
from ...mappings import load as load_mapping
from ...mappings import mappings_dir
from ...memo import memoized
from ...model import V2_SPEC, Card, Lorebook, LorebookEntry, as_bool
from ...model.versions import to_v2
from ..card_io import card_version, read_card_document
from ..registry import Format, Probe, ReadContext, WriteContext, register
from .model import (
    NAMESPACE,
    STCardExt,
    STEntryExt,
    STLorebookExt,
    book_ext,
    entry_ext,
    foreign_extensions,
)

NS_PREFIX = "extensions.sillytavern.entry."
POSITION_NAMES = {0: "before", 1: "after", 2: "an_top", 3: "an_bottom", 4: "at_depth", 5: "em_top", 6: "em_bottom",
                  7: "outlet"}
LOGIC_NAMES = {0: "AND_ANY", 1: "NOT_ALL", 2: "NOT_ANY", 3: "AND_ALL"}
ROLE_NAMES = {0: "system", 1: "user", 2: "assistant"}
# Canonical CCv3 entry fields ST's card exporter drops; stashed in card_fields on a card we write.
CARD_ONLY_FIELDS = ("name", "priority", "case_sensitive", "use_regex")
BOOK_FIELDS_DROPPED_BY_ST = ("description", "scan_depth", "token_budget", "recursive_scanning", "extensions")
_SCALARS = frozenset({str, int, float, bool, type(None)})  # deepcopy returns these as they are
_REGEX_KEY = re.compile(r"^/([\s\S]+?)/([gimsuy]*)$")


def _copy(value: Any) -> Any:
    """``copy.deepcopy``, without its cost for an immutable scalar (returned as it is) or a flat
    list of them (a key list: a new list of the same items, which is what deepcopy makes)."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is list and all(type(item) in _SCALARS for item in value):
        return list(value)
    return copy.deepcopy(value)


# --- the mapping table -----------------------------------------------------------


@dataclass(frozen=True)
class WorldField:
    """One native world-entry field of ``mappings/sillytavern.json`` with the adapter's columns."""

    native: str
    canonical: str
    transform: str
    default: Any
    has_default: bool
    card_default: Any
    flat: str | None
    source: str | None

    @functools.cached_property
    def ns_key(self) -> str | None:  # cached: read for every field of every entry written
        return self.canonical[len(NS_PREFIX):] if self.canonical.startswith(NS_PREFIX) else None

    def template_default(self, for_card: bool) -> Any:
        value = self.card_default if for_card and self.card_default is not None else self.default
        return _copy(value)


def _load_fields() -> tuple[WorldField, ...]:
    """World-entry rows (those with a ``transform``), each with its card-flavour flat key if ST exports one."""
    mapping = load_mapping("sillytavern")
    with (mappings_dir() / "sillytavern.json").open(encoding="utf-8") as handle:
        rows = [row for row in json.load(handle)["fields"] if row["level"] == "entry"]
    columns = {row["native"]: row for row in rows}
    flat_of = {row["world"]: row["native"][len("extensions."):] for row in rows if "world" in row}
    fields = []
    for row in mapping.fields_at("entry"):
        extra = columns[row.native]
        if "transform" not in extra or row.canonical is None:
            continue  # card-flavour and documentation rows
        fields.append(
            WorldField(
                native=row.native,
                canonical=row.canonical,
                transform=extra["transform"],
                default=row.default,
                has_default=row.has_default,
                card_default=extra.get("card_default"),
                flat=flat_of.get(row.native),
                source=extra.get("source"),
            )
        )
    return tuple(fields)


FIELDS = _load_fields()
BY_NATIVE = {f.native: f for f in FIELDS}
BY_FLAT = {f.flat: f for f in FIELDS if f.flat}


def flat_keys() -> tuple[str, ...]:
    """SillyTavern's flat card ``entry.extensions`` keys, exact spellings (sillytavern.md 3.2)."""
    return tuple(BY_FLAT)


# --- helpers -----------------------------------------------------------------------


def _same(a: Any, b: Any) -> bool:
    """JSON equality that tells ``true`` from ``1`` and ``1`` from ``1.0`` (Python's == does not)."""
    if type(a) is not type(b):
        return False
    if a is None or isinstance(a, str | int | float):
        return bool(a == b)
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_regex_key(key: Any) -> bool:
    """ST's rule: ``/pattern/flags`` with flags from ``gimsuy`` and no unescaped ``/`` inside."""
    if not isinstance(key, str):
        return False
    match = _REGEX_KEY.match(key)
    if not match:
        return False
    return re.search(r"(?<!\\)(?:\\\\)*/", match.group(1)) is None


def _as_regex_key(key: str, case_sensitive: bool) -> str:
    if is_regex_key(key):
        return key
    return "/" + re.sub(r"(?<!\\)((?:\\\\)*)/", r"\1\\/", key) + "/" + ("" if case_sensitive else "i")


def _split_groups(text: str) -> list[str]:
    return [part for part in re.split(r",\s*", text) if part]


def _entry_label(index: int, entry: LorebookEntry) -> str:
    title = entry.comment if isinstance(entry.comment, str) and entry.comment else None
    return f"entry {index}" + (f" ({title!r})" if title else "")


# --- native entry -> canonical -------------------------------------------------------


def _read_native_entry(native: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any] | None]:
    """Map native fields to (canonical top-level fields, namespace fields, foreign extensions)."""
    top: dict[str, Any] = {}
    ns: dict[str, Any] = {}
    foreign: dict[str, Any] | None = None
    unknown: dict[str, Any] = {}
    for name, value in native.items():
        field = BY_NATIVE.get(name)
        if field is None:
            unknown[name] = value
            continue
        key = field.ns_key
        kind = field.transform
        if kind == "copy":
            if key is None:
                top[field.canonical] = value
            else:
                ns[key] = value
            if name == "position" and _is_number(value):
                top["position"] = "before_char" if value == 0 else "after_char"
        elif kind == "invert":
            if isinstance(value, bool):
                top[field.canonical] = not value
        elif kind == "match":
            sources = ns.setdefault("additional_matching_sources", [])
            if value is True:
                sources.append(field.source)
        elif kind == "recursion":
            if _is_number(value):
                ns["delay_until_recursion"] = value != 0
                ns["recursion_level"] = value
            else:
                ns["delay_until_recursion"] = value
        elif kind == "group":
            if isinstance(value, str):
                groups = _split_groups(value)
                ns["inclusion_groups"] = groups
                if ",".join(groups) != value:
                    ns["group_text"] = value
            else:
                ns["inclusion_groups"] = value
        elif kind == "case":
            if isinstance(value, bool):
                top["case_sensitive"] = value
            else:
                ns["case_sensitive"] = value
        elif kind == "filter":
            ns["character_filter"] = _filter_to_canonical(value)
        elif kind == "extensions" and isinstance(value, dict):
            foreign = {k: v for k, v in value.items() if k != NAMESPACE}
            ns["has_extensions"] = True
    if unknown:
        ns["unknown"] = unknown
    keys = top.get("keys")
    if isinstance(keys, list) and all(isinstance(k, str) for k in keys):
        real = [k for k in keys if k.strip()]
        if real and all(is_regex_key(k) for k in real):
            top["use_regex"] = True
    return top, ns, foreign


def _filter_to_canonical(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for name, item in value.items():
        if name == "isExclude":
            out["mode"] = ("exclude" if item else "include") if isinstance(item, bool) else item
        elif name == "names":
            out["values"] = item
        elif name in ("mode", "values"):
            out[f"native_{name}"] = item  # a native key that would collide with ours
        else:
            out[name] = item
    return out


def _filter_to_native(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for name, item in value.items():
        if name == "mode":
            out["isExclude"] = item == "exclude" if item in ("exclude", "include") else item
        elif name == "values":
            out["names"] = item
        elif name in ("native_mode", "native_values"):
            out[name[len("native_"):]] = item
        else:
            out[name] = item
    return out


def _build_entry(top: dict[str, Any], ns: dict[str, Any], foreign: dict[str, Any] | None) -> LorebookEntry:
    extensions = dict(foreign or {})
    extensions[NAMESPACE] = {"entry": ns}
    return LorebookEntry.model_validate({**top, "extensions": extensions})


# --- canonical entry -> native ---------------------------------------------------------


@dataclass(frozen=True)
class Fill:
    """How a book that is not a world file is filled the way ST's importers fill it.

    ``from_card``: the book is a card's ``character_book``, imported by ``convertCharacterBook``
    (public/scripts/world-info.js), whose position fallback is 1 (after char) for anything but
    ``'before_char'``; ST's NovelAI/Agnai/Risu converters put entries at 0 (before char).
    ``plain_keys``: the entry's ``use_regex`` is ST's exporter constant (``true`` on every entry of
    ``convertWorldInfoToCharacterBook``), so its plain keys stay plain.
    """

    from_card: bool = False
    plain_keys: bool = False


def _native_value(
    field: WorldField, entry: LorebookEntry, ns: dict[str, Any], template: bool, index: int, fill: Fill,
    top: set[str],
) -> Any:
    """The native value of ``field``, or ``_ABSENT``. ``template`` fills ST's import defaults.

    ``top``: the entry's set top-level fields (``model_fields_set`` and extras), computed once per entry.
    """
    key = field.ns_key
    kind = field.transform
    if kind == "copy":
        if key is None:
            present = field.canonical in top
            value = getattr(entry, field.canonical, None) if present else None
        else:
            present = key in ns
            value = ns.get(key)
        if present and value is None and template and (field.default is not None or not field.has_default):
            present = False  # ST's importer reads these with `??` / `||`: null takes the fallback
        if present:
            if field.native == "key" and template and entry.use_regex is True and isinstance(value, list) and not (
                fill.plain_keys
            ):
                cs = entry.case_sensitive is True
                value = [_as_regex_key(k, cs) if isinstance(k, str) and k.strip() else k for k in value]
            return value
        if not template:
            return _ABSENT
        if field.native == "position":
            return _position_fallback(entry, fill)
        named = not fill.from_card and isinstance(entry.name, str) and bool(entry.name.strip())
        if field.native == "comment" and named:
            return entry.name  # ST's NovelAI importer: comment <- displayName (our `name`); a card's is ignored
        if field.native == "addMemo":
            return bool(entry.comment) or named
        if field.native == "displayIndex":
            return index
        if field.native == "uid":
            return index
        return field.template_default(for_card=True) if field.has_default else _ABSENT
    if kind == "invert":
        if "enabled" in top and entry.enabled is not None:
            return not as_bool(entry.enabled, True)
        return False if template else _ABSENT
    if kind == "match":
        sources = ns.get("additional_matching_sources")
        if isinstance(sources, list):
            return field.source in sources
        return False if template else _ABSENT
    if kind == "recursion":
        for name in ("recursion_level", "delay_until_recursion"):
            if name in ns and not (template and ns[name] is None):
                return ns[name]
        return False if template else _ABSENT
    if kind == "group":
        if "group_text" in ns:
            return ns["group_text"]
        if "inclusion_groups" in ns and not (template and ns["inclusion_groups"] is None):
            groups = ns["inclusion_groups"]
            if isinstance(groups, list) and all(isinstance(g, str) for g in groups):
                return ",".join(groups)
            return groups
        return "" if template else _ABSENT
    if kind == "case":
        if "case_sensitive" in top and isinstance(entry.case_sensitive, bool):
            return entry.case_sensitive
        if "case_sensitive" in ns:
            return ns["case_sensitive"]
        return None if template else _ABSENT
    if kind == "filter":
        return _filter_to_native(ns["character_filter"]) if "character_filter" in ns else _ABSENT
    if kind == "extensions":
        if template or ns.get("has_extensions") is True:
            return foreign_extensions(entry.extensions)
        return _ABSENT
    raise AssertionError(f"unknown transform {kind!r} in mappings/sillytavern.json")  # table bug, not input


def _position_fallback(entry: LorebookEntry, fill: Fill) -> int:
    if fill.from_card:
        return 0 if entry.position == "before_char" else 1
    return 1 if entry.position == "after_char" else 0


class _Absent:
    def __repr__(self) -> str:
        return "<absent>"


_ABSENT = _Absent()


def _native_from_entry(entry: LorebookEntry, template: bool, index: int, fill: Fill = Fill()) -> dict[str, Any]:
    ns = entry.ext(NAMESPACE).get("entry")
    ns = ns if isinstance(ns, dict) else {}
    out: dict[str, Any] = {}
    top = entry.model_fields_set | set(entry.model_extra or {})
    for field in FIELDS:
        value = _native_value(field, entry, ns, template, index, fill, top)
        if value is not _ABSENT:
            out[field.native] = _copy(value)
    added = ns.get("added_fields")
    if isinstance(added, list) and not template:  # spec fields a card writer added to a world entry
        for name in added:
            out.pop(NATIVE_OF_REQUIRED.get(name, name) or "", None)
    unknown = ns.get("unknown")
    if isinstance(unknown, dict):
        out.update(copy.deepcopy(unknown))
    verbatim = ns.get("verbatim")
    if isinstance(verbatim, dict):
        out.update(copy.deepcopy(verbatim))
    omit = ns.get("omit")
    if isinstance(omit, list) and not template:  # an import would fill them: only a world file lacks them
        for name in omit:
            out.pop(name, None)
    return out


# --- world file <-> canonical book --------------------------------------------------


def lorebook_from_world(obj: dict[str, Any], *, file: str | None = None) -> Lorebook:
    """A native SillyTavern world-info object as a canonical ``Lorebook`` (lossless)."""
    if not isinstance(obj, dict) or not isinstance(obj.get("entries"), dict):
        raise InvalidCardError("world info has no 'entries' object", file=file, location="entries")
    obj = copy.deepcopy(obj)  # the canonical book must not share mutable values with the caller's dict
    original = obj.get("originalData")
    by_id = _original_entries(original)
    entries = []
    for key, native in obj["entries"].items():
        if not isinstance(native, dict):
            raise InvalidCardError(
                f"entry is a {type(native).__name__}, not an object", file=file, location=f"entries.{key}"
            )
        top, ns, foreign = _read_native_entry(native)
        if "uid" not in native or str(native["uid"]) != key:
            ns["uid_key"] = key
        source = by_id.get(json.dumps(native.get("uid")))
        for name in ("name", "priority"):
            if source is not None and name in source:
                top[name] = source[name]
        entry = _build_entry(top, ns, foreign)
        _pin_exact(entry, ns, native, foreign)
        entries.append(entry)
    lorebook: dict[str, Any] = {"native_world": True}
    if "originalData" in obj:
        lorebook["original_data"] = original
    unknown = {k: v for k, v in obj.items() if k not in ("entries", "originalData")}
    if unknown:
        lorebook["unknown"] = unknown
    book: dict[str, Any] = {}
    if isinstance(original, dict):
        for name in ("name", "description", "scan_depth", "token_budget", "recursive_scanning"):
            if name in original:
                book[name] = original[name]
    book["extensions"] = {NAMESPACE: {"lorebook": lorebook}}
    book["entries"] = entries
    try:
        return Lorebook.model_validate(book)
    except ValueError as exc:  # pydantic ValidationError: an originalData field of an impossible shape
        raise InvalidCardError(f"originalData: {exc}", file=file, location="originalData") from None


def _original_entries(original: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(original, dict) or not isinstance(original.get("entries"), list):
        return {}
    return {json.dumps(e.get("id")): e for e in original["entries"] if isinstance(e, dict) and "id" in e}


def _pin_exact(
    entry: LorebookEntry, ns: dict[str, Any], native: dict[str, Any], foreign: dict[str, Any] | None
) -> None:
    """Record in ``verbatim``/``omit`` whatever the typed fields would not write back exactly."""
    again = _native_from_entry(entry, template=False, index=0)
    verbatim = {k: v for k, v in native.items() if k not in again or not _same(again[k], v)}
    omit = [k for k in again if k not in native]
    if not verbatim and not omit:
        return
    if verbatim:
        ns["verbatim"] = verbatim
    if omit:
        ns["omit"] = omit
    entry.extensions = {**(foreign or {}), NAMESPACE: {"entry": ns}}


def _normalized(book: Lorebook) -> Lorebook:
    """``normalize_card_book(book)``'s book (the same for the writers and the report: memo)."""
    return memoized("st_normalized", book, (), lambda: normalize_card_book(book))[0]


def _natives(book: Lorebook, template: bool, from_card: bool, plain: list[bool]) -> list[dict[str, Any]]:
    """Each entry of ``book`` as a native ST entry, template-filled or not (read-only when memoized:
    the card writer's and the report's world view of one source book are the same)."""

    def compute() -> list[dict[str, Any]]:
        if not template:  # without the template, the fill (from_card, plain keys) changes nothing
            return [_native_from_entry(e, template=False, index=i) for i, e in enumerate(book.entries)]
        return [
            _native_from_entry(e, template=True, index=i, fill=Fill(from_card, plain[i]))
            for i, e in enumerate(book.entries)
        ]

    args = (True, from_card, tuple(plain)) if template else (False,)
    return memoized("st_natives", book, args, compute)


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
    plain = [st_exported_use_regex(e) for e in book.entries]
    book = _normalized(book)  # a card book may still carry ST's flat keys
    meta = book_ext(book)
    native_world = meta.native_world is True
    # copies: the uid fix-up below writes into them, and the lists may be shared (memo)
    natives = [dict(n) for n in _natives(book, not native_world, from_card, plain)]
    keys: list[str | None] = []
    for entry, native in zip(book.entries, natives, strict=True):
        uid_key = entry_ext(entry).uid_key
        uid = native.get("uid")
        if isinstance(uid_key, str) and native_world:
            keys.append(uid_key)
        elif (isinstance(uid, int) and not isinstance(uid, bool)) or (isinstance(uid, str) and uid):
            keys.append(str(uid))  # ST's convertCharacterBook keys an entry by its id as given, "1" included
        else:
            keys.append(None)
    entries: dict[str, Any] = {}
    taken = {k for k in keys if k is not None}
    free = 0
    for key, native in zip(keys, natives, strict=True):
        if key is None or key in entries:
            # A missing or duplicate uid gets the first free one (ST's importer would overwrite the duplicate).
            while str(free) in taken:
                free += 1
            key = str(free)
            taken.add(key)
            if not native_world or "uid" in native:
                native["uid"] = free
        entries[key] = native
    out: dict[str, Any] = {"entries": entries}
    if native_world:
        if "original_data" in meta.model_fields_set:
            out["originalData"] = copy.deepcopy(meta.original_data)
    else:
        out["originalData"] = _original_data(book, entries)
    if isinstance(meta.unknown, dict):
        for key, value in meta.unknown.items():
            out.setdefault(key, copy.deepcopy(value))
    return out


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


# --- SillyTavern's card flavour ---------------------------------------------------------


TOP_LEVEL_NATIVE = ("uid", "key", "keysecondary", "comment", "content", "constant", "selective", "order", "disable")


def card_book_from_lorebook(
    book: Lorebook, *, from_card: bool = False, plain: list[bool] | None = None
) -> dict[str, Any]:
    """``character_book`` the way ST's exporter writes it, without its losses.

    Entry top level: the spec fields ST writes (``position`` is ``before_char`` only
    for ST position 0) plus the canonical ``use_regex``/``case_sensitive``/``name``/
    ``priority`` when set. ``extensions``: foreign keys, then the flat keys ST reads
    (all of them; for a book read from a world file, those the file had, with its
    exact values: ST's importer fills the rest with the same fallbacks), then
    ``sillytavern.entry`` with what ST's exporter drops (``add_memo``,
    ``character_filter``, unknown world fields, ``card_fields``, and for a world
    file what makes it come back exactly: ``uid_key``, ``verbatim``, ``omit``,
    ``world_extensions``).
    """
    plain = plain if plain is not None else [st_exported_use_regex(e) for e in book.entries]
    book = _normalized(book)
    raw = book.dump()
    native_world = book_ext(book).native_world is True
    out: dict[str, Any] = {k: v for k, v in raw.items() if k != "entries"}
    out.setdefault("extensions", {})
    entries = []
    fulls, owns = _natives(book, True, from_card, plain), _natives(book, False, from_card, plain)
    for index, (entry, full, own) in enumerate(zip(book.entries, fulls, owns, strict=True)):
        entries.append(_card_entry(entry, full, own, native_world, plain[index]))
    out["entries"] = entries
    return out


# Spec fields CCv3 requires on every entry (character-card-v3.txt, "lorebook entry"), with the
# native field whose value SillyTavern would apply when the source lacks them.
REQUIRED_ENTRY_FIELDS = (
    ("keys", "key"), ("content", "content"), ("enabled", "disable"), ("insertion_order", "order"),
    ("use_regex", None), ("extensions", None),
)


# Top-level card fields convertCharacterBook reads with a fallback (`x || fallback`): written when
# the entry lacks them and means something else than the fallback.
ST_TOP_LEVEL = (
    ("selective", "selective", False), ("constant", "constant", False), ("secondary_keys", "keysecondary", []),
)
NATIVE_OF_REQUIRED = {name: native for name, native in REQUIRED_ENTRY_FIELDS if native} | {
    name: native for name, native, _ in ST_TOP_LEVEL
}


def st_readable_book(
    book: Lorebook, *, from_card: bool = False, flat_keys: bool = True
) -> tuple[Lorebook, dict[str, Counter[str]]]:
    """``book`` as every card-book writer writes it: what SillyTavern needs to load the same settings.

    Each entry keeps its fields and its ``extensions.sillytavern`` namespace (our round trip) and
    gains (1) the flat ``extensions`` keys ST's ``convertCharacterBook`` reads (exactly the
    ``sillytavern-card`` writer's, from ``card_book_from_lorebook``; a flat key the entry already
    has is kept as it is), and (2) the V3-required fields it lacks, with the value ST would apply
    (``enabled: true`` unless disabled, ``insertion_order`` = ST's order, ``use_regex: false``
    unless every key is a ``/regex/``). Returns the book and the added defaults
    (``{field: Counter(value as JSON)}``) for the report. ``flat_keys=False`` adds only (2): for a
    target whose app never reads entry ``extensions`` (Agnai).
    """
    card = card_book_from_lorebook(book, from_card=from_card)
    added: dict[str, Counter[str]] = {}
    entries = []
    native_world = book_ext(book).native_world is True
    for index, (entry, written) in enumerate(zip(book.entries, card["entries"], strict=True)):
        fill = Fill(from_card, st_exported_use_regex(entry))
        entries.append(_readable_entry(entry, index, written, added, fill, native_world, flat_keys))
    return book.model_copy(update={"entries": entries}), added


def _readable_entry(
    entry: LorebookEntry, index: int, written: dict[str, Any], added: dict[str, Counter[str]], fill: Fill,
    book_native_world: bool, flat_keys: bool = True,
) -> LorebookEntry:
    raw = entry.dump()
    before = set(raw)
    for name, _native in REQUIRED_ENTRY_FIELDS:
        if name not in raw and name != "extensions":
            value = {"keys": written["keys"], "content": written["content"], "enabled": written["enabled"],
                     "insertion_order": written["insertion_order"], "use_regex": entry.use_regex is True}[name]
            raw[name] = value
            added.setdefault(name, Counter())[json.dumps(value)[:40]] += 1
    for name, _native, fallback in ST_TOP_LEVEL:
        if name not in raw and written.get(name) is not None and written[name] != fallback:
            raw[name] = written[name]
            added.setdefault(name, Counter())[json.dumps(written[name])[:40]] += 1
    added_here = [n for n in raw if n not in before]
    extensions = dict(raw["extensions"]) if isinstance(raw.get("extensions"), dict) else {}
    if "extensions" not in raw:
        added.setdefault("extensions", Counter())["{}"] += 1
    flat = _flat_to_write(entry, index, written, extensions, fill) if flat_keys else {}
    extensions.update(flat)
    extra = _namespace_extra(entry, written, extensions, fill)
    # A world file written back leaves out again what it lacked: spec fields, and fields
    # given a flat key only because ST's card import would not fall back to the world's default.
    added_here += [BY_FLAT[k].native for k in flat if k not in written["extensions"]]
    if book_native_world and added_here:
        extra["added_fields"] = added_here
    if extra:
        ns = entry.ext(NAMESPACE).get("entry")
        ours = extensions.get(NAMESPACE) if isinstance(extensions.get(NAMESPACE), dict) else {}
        extensions[NAMESPACE] = {**ours, "entry": {**(ns if isinstance(ns, dict) else {}), **extra}}
    raw["extensions"] = extensions
    return LorebookEntry.model_validate(raw)


def _flat_to_write(
    entry: LorebookEntry, index: int, written: dict[str, Any], extensions: dict[str, Any], fill: Fill
) -> dict[str, Any]:
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
            out[key] = import_fallback(key, _TEMPLATE_ENTRY, index, fill)
    return out


_TEMPLATE_ENTRY = LorebookEntry(position="before_char")  # position 0, like ST's new-entry template


def import_fallback(flat: str, entry: LorebookEntry, index: int, fill: Fill) -> Any:
    """What ``convertCharacterBook`` loads for an entry without the flat key ``flat``."""
    if flat == "position":
        return 0 if entry.position == "before_char" else 1
    if flat == "display_index":
        return index
    field = BY_FLAT[flat]
    if field.transform in ("recursion", "match", "invert"):
        return False
    if field.transform == "group":
        return ""
    return field.default


def _namespace_extra(entry: LorebookEntry, written: dict[str, Any], extensions: dict[str, Any], fill: Fill) -> dict:
    """What the namespace needs for the way back: the world entry's own extension keys, and a real
    ``use_regex`` next to flat keys (else read as ST's exporter constant, see st_exported_use_regex)."""
    ns_written = written["extensions"].get(NAMESPACE, {}).get("entry", {})
    extra: dict[str, Any] = {}
    if "world_extensions" in ns_written:
        extra["world_extensions"] = ns_written["world_extensions"]
    has_flat = any(k in BY_FLAT for k in extensions)
    if has_flat and entry.use_regex is True and not fill.plain_keys and "risuai" not in extensions:
        extra["card_fields"] = {"use_regex": True}
    return extra


def _card_entry(
    entry: LorebookEntry, full: dict[str, Any], own: dict[str, Any], native_world: bool, plain_keys: bool = False
) -> dict[str, Any]:
    position = full.get("position")
    card: dict[str, Any] = {
        "id": full.get("uid"),
        "keys": full.get("key"),
        "secondary_keys": full.get("keysecondary"),
        "comment": full.get("comment"),
        "content": full.get("content"),
        "constant": full.get("constant"),
        "selective": full.get("selective"),
        "insertion_order": full.get("order"),
        "enabled": not as_bool(full.get("disable"), False),
        "position": "before_char" if position == 0 else "after_char",
    }
    present = entry.model_fields_set | set(entry.model_extra or {})
    for name in CARD_ONLY_FIELDS:
        if name in present:
            card[name] = getattr(entry, name, None)
    for name, value in (entry.model_extra or {}).items():
        card.setdefault(name, value)
    extensions = foreign_extensions(entry.extensions)
    for field in FIELDS:
        # Values as held (a null stays null: ST's importer reads it with `??`); a world file's
        # missing fields stay missing, any other book gets the importer's fallback.
        if field.flat and field.native in own:
            extensions[field.flat] = _copy(own[field.native])
        elif field.flat and not native_world and field.native in full:
            extensions[field.flat] = _copy(full[field.native])
    ns = entry.ext(NAMESPACE).get("entry")
    ns = ns if isinstance(ns, dict) else {}
    stash: dict[str, Any] = {}
    if "addMemo" in (own if native_world else full):
        stash["add_memo"] = (own if native_world else full)["addMemo"]
    for name in ("character_filter", "unknown") + (("uid_key", "verbatim") if native_world else ()):
        if name in ns:
            stash[name] = copy.deepcopy(ns[name])
    if native_world:
        omit = [n for n in TOP_LEVEL_NATIVE if n not in own]
        omit += [n for n in ns.get("omit") or [] if n not in omit]
        if omit:
            stash["omit"] = omit
        if isinstance(own.get("extensions"), dict):
            stash["world_extensions"] = list(own["extensions"])
    # ST's constant use_regex is not stashed: a stashed one says the keys really are patterns.
    card_fields = {n: card[n] for n in CARD_ONLY_FIELDS if n in card and not (plain_keys and n == "use_regex")}
    if card_fields:
        stash["card_fields"] = card_fields
    extensions[NAMESPACE] = {"entry": stash}
    card["extensions"] = extensions
    return card


def normalize_card_book(book: Lorebook, *, keep_flat: bool = False) -> tuple[Lorebook, list[str]]:
    """Fold ST's flat ``entry.extensions`` keys into ``extensions.sillytavern.entry``.

    Returns the new book and the conflicts: a flat key and the namespace (or a
    stashed ``card_fields`` value and the spec field) that disagree. SillyTavern
    reads the flat keys, so their value is the one kept; each conflict is reported,
    none is resolved silently. ``keep_flat`` leaves the flat keys in place as well
    (both forms, agreeing), so a card read this way and written back keeps its form.
    """
    conflicts: list[str] = []
    entries = []
    for index, entry in enumerate(book.entries):
        entries.append(_normalize_entry(index, entry, conflicts, keep_flat))
    out = book.model_copy(update={"entries": entries})
    return out, conflicts


def _normalize_entry(index: int, entry: LorebookEntry, conflicts: list[str], keep_flat: bool) -> LorebookEntry:
    extensions = entry.extensions if isinstance(entry.extensions, dict) else None
    if extensions is None:
        return entry
    flat = {k: v for k, v in extensions.items() if k in BY_FLAT}
    ours = extensions.get(NAMESPACE)
    if (NAMESPACE in extensions and not isinstance(ours, dict)) or (
        isinstance(ours, dict) and "entry" in ours and not isinstance(ours["entry"], dict)
    ):
        conflicts.append(f"{_entry_label(index, entry)}: extensions.sillytavern is not in our layout; left as it is")
        return entry
    existing = ours.get("entry") if isinstance(ours, dict) else None
    if not flat and (not isinstance(existing, dict) or not {"card_fields", "world_extensions"} & set(existing)):
        return entry  # nothing to fold or restore
    if isinstance(existing, dict) and existing.get("has_extensions") is True and "world_extensions" not in existing:
        # Read from a world file: flat-looking keys are that entry's own `extensions` object
        # (copies ST made when the entry came from a card, ignored by ST); the namespace is the truth.
        return entry
    label = _entry_label(index, entry)
    raw = entry.dump()
    present = set(raw)
    top, from_flat, _ = _read_native_entry({BY_FLAT[k].native: v for k, v in flat.items()})
    ns: dict[str, Any] = copy.deepcopy(existing) if isinstance(existing, dict) else {}
    for key, value in from_flat.items():
        if key in ns and not _same(ns[key], value):
            conflicts.append(
                f"{label}: extensions.sillytavern.entry.{key} is {json.dumps(ns[key])} but SillyTavern's flat key "
                f"gives {json.dumps(value)}; the flat value is kept"
            )
        ns[key] = value
    if "case_sensitive" in top:
        if "case_sensitive" in present and not _same(raw["case_sensitive"], top["case_sensitive"]):
            conflicts.append(
                f"{label}: case_sensitive is {json.dumps(raw['case_sensitive'])} but extensions.case_sensitive is "
                f"{json.dumps(top['case_sensitive'])}; SillyTavern uses the flat key, so its value is kept"
            )
        raw["case_sensitive"] = top["case_sensitive"]
    elif "case_sensitive" in flat and "case_sensitive" in present and raw["case_sensitive"] is not None:
        conflicts.append(
            f"{label}: case_sensitive is {json.dumps(raw['case_sensitive'])} but SillyTavern's "
            "extensions.case_sensitive is null (use the global setting)"
        )
    position = flat.get("position")
    if _is_number(position) and isinstance(raw.get("position"), str):
        expected = "before_char" if position == 0 else "after_char"
        if raw["position"] != expected:
            conflicts.append(
                f"{label}: position is {raw['position']!r} but SillyTavern's extensions.position is {position}"
                f" ({POSITION_NAMES.get(position, '?')}); SillyTavern uses the flat key"
            )
    stashed = ns.pop("card_fields", None)
    if isinstance(stashed, dict):
        for name, value in stashed.items():
            if name not in raw:  # after the flat keys: a stale stash never overrides what ST wrote
                raw[name] = value
            elif not _same(raw[name], value):
                conflicts.append(
                    f"{label}: {name} is {json.dumps(raw[name])} but the SillyTavern stash says {json.dumps(value)};"
                    " the spec field is kept"
                )
    world_keys = ns.pop("world_extensions", None)
    if isinstance(world_keys, list):
        ns["has_extensions"] = True  # the world entry had an extensions object (these flat keys were in it)
        kept_flat = set(world_keys)
    else:
        kept_flat = set(BY_FLAT) if keep_flat else set()
    new_ext = {k: v for k, v in extensions.items() if (k not in BY_FLAT or k in kept_flat) and k != NAMESPACE}
    other = extensions.get(NAMESPACE)
    if isinstance(other, dict):
        new_ext[NAMESPACE] = {**{k: v for k, v in other.items() if k != "entry"}, "entry": ns}
    else:
        new_ext[NAMESPACE] = {"entry": ns}
    raw["extensions"] = new_ext
    return LorebookEntry.model_validate(raw)


def normalize_card(card: Card, *, keep_flat: bool = False) -> tuple[Card, list[str]]:
    """``normalize_card_book`` for the card's book, plus the book fields stashed in
    ``data.extensions.sillytavern.character_book`` by ``sillytavern-card`` output."""
    book = card.data.character_book
    if book is None:
        return card, []
    book, conflicts = normalize_card_book(book, keep_flat=keep_flat)
    data_ext = card.data.extensions if isinstance(card.data.extensions, dict) else None
    ours = data_ext.get(NAMESPACE) if data_ext is not None else None
    stash = STCardExt.model_validate(ours).character_book if isinstance(ours, dict) else None
    data_update: dict[str, Any] = {}
    if isinstance(ours, dict) and isinstance(stash, dict):
        raw = book.dump()
        for name, value in stash.items():
            if name not in raw:
                raw[name] = value
            elif not _same(raw[name], value):
                conflicts.append(
                    f"character_book.{name} is {json.dumps(raw[name])} but the SillyTavern stash says "
                    f"{json.dumps(value)}; the book's value is kept"
                )
        book = Lorebook.model_validate(raw)
        rest = {k: v for k, v in ours.items() if k != "character_book"}
        new_ext = {k: v for k, v in data_ext.items() if k != NAMESPACE}
        if rest:
            new_ext[NAMESPACE] = rest
        data_update["extensions"] = new_ext
    data_update["character_book"] = book
    new = card.model_copy(update={"data": card.data.model_copy(update=data_update)})
    new._filled = set(card._filled)
    return new, conflicts


def sillytavern_card(card: Card, *, from_card: bool = True, plain: list[bool] | None = None) -> dict[str, Any]:
    """The card as SillyTavern writes it: ``chara_card_v2``, V1 mirror at the root, flat book keys.

    ``from_card``: the book was a card's (ST's card-import position fallback applies), not a
    standalone lorebook wrapped in a new card."""
    v2 = to_v2(card)
    raw = v2.dump()
    data = raw.setdefault("data", {})
    book = v2.data.character_book
    if "extensions" not in data:
        data["extensions"] = {}
    extensions = data["extensions"]
    if book is not None:
        data["character_book"] = card_book_from_lorebook(book, from_card=from_card, plain=plain)
        dropped = {k: data["character_book"][k] for k in BOOK_FIELDS_DROPPED_BY_ST if k in data["character_book"]}
        if dropped.get("extensions") == {}:
            del dropped["extensions"]
        if dropped and isinstance(extensions, dict):
            ours = extensions.get(NAMESPACE) if isinstance(extensions.get(NAMESPACE), dict) else {}
            extensions[NAMESPACE] = {**ours, "character_book": copy.deepcopy(dropped)}
    if isinstance(extensions, dict):
        extensions.setdefault("talkativeness", 0.5)
        extensions.setdefault("fav", False)
        extensions.setdefault("world", "")
        extensions.setdefault("depth_prompt", {"prompt": "", "depth": 4, "role": "system"})
    for name in ("name", "description", "personality", "scenario", "first_mes", "mes_example"):
        if name in data:
            raw[name] = data[name]
    if "creator_notes" in data:
        raw["creatorcomment"] = data["creator_notes"]
    raw.setdefault("avatar", "none")
    if isinstance(extensions, dict):
        raw["talkativeness"] = extensions["talkativeness"]
        raw["fav"] = extensions["fav"]
    if "tags" in data:
        raw["tags"] = data["tags"]
    raw["spec"] = V2_SPEC
    raw["spec_version"] = "2.0"
    return raw


# --- formats ---------------------------------------------------------------------------


def _detect_world(probe: Probe) -> int:
    obj = probe.json_object
    return 100 if obj is not None and isinstance(obj.get("entries"), dict) else 0


def _read_world(data: bytes, ctx: ReadContext) -> Document:
    obj = ctx.json(data)
    if not isinstance(obj, dict):
        raise InvalidCardError("world info is not a JSON object", file=ctx.filename)
    book = lorebook_from_world(obj, file=ctx.filename)
    if book.name is None and ctx.filename:
        book.name = PurePath(ctx.filename).stem  # ST names a world by its file name
    doc = Document(format="sillytavern-world", lorebook=book, source=ctx.filename)
    for index, entry in enumerate(book.entries):
        ns = entry_ext(entry)
        if isinstance(ns.verbatim, dict) or isinstance(ns.omit, list):
            fields = sorted(set(ns.verbatim or {}) | set(ns.omit or []))
            doc.warn(f"{_entry_label(index, entry)}: fields kept verbatim (unusual values): {', '.join(fields)}")
    return doc


def _write_world(doc: Document, ctx: WriteContext) -> bytes:
    book = as_lorebook(doc)
    for conflict in normalize_card_book(book)[1]:
        doc.warn(conflict)
    return dump_json(world_from_lorebook(book, from_card=doc.card is not None), pretty=ctx.pretty)


def _read_card(data: bytes, ctx: ReadContext) -> Document:
    """A card JSON read as SillyTavern reads it: flat keys folded into the namespace, conflicts as warnings.

    Never chosen by detection (SillyTavern cards are detected as ccv2/ccv3, whose
    readers keep the file as it is); used with ``--from sillytavern-card`` and by
    the fidelity report to read our own ``sillytavern-card`` output back.
    """
    obj = ctx.json(data)
    if not isinstance(obj, dict) or card_version(obj) not in ("v2", "v3"):
        raise InvalidCardError("not a V2/V3 character card JSON", file=ctx.filename)
    doc = read_card_document(obj, "sillytavern-card", ctx)
    if doc.card is None:  # read_card_document always sets it; keeps the type checker honest
        raise InvalidCardError("not a character card", file=ctx.filename)
    doc.card, conflicts = normalize_card(doc.card, keep_flat=True)
    for conflict in conflicts:
        doc.warn(conflict)
    return doc


def _write_card(doc: Document, ctx: WriteContext) -> bytes:
    source = as_card(doc)
    book = source.data.character_book
    plain = [st_exported_use_regex(e) for e in book.entries] if isinstance(book, Lorebook) else None
    card, conflicts = normalize_card(source)
    for conflict in conflicts:
        doc.warn(conflict)
    return dump_json(sillytavern_card(card, from_card=doc.card is not None, plain=plain), pretty=ctx.pretty)


def _enum_name(table: dict[int, str], value: Any) -> str:
    return table.get(value, str(value)) if _is_number(value) else json.dumps(value)


def describe_world(world: dict[str, Any]) -> dict[str, Any]:
    """ST facts of a native world-info object: positions, logic, groups, timed effects, outlets, ..."""
    entries = [e for e in world.get("entries", {}).values() if isinstance(e, dict)]
    positions: Counter[str] = Counter()
    logic: Counter[str] = Counter()
    roles: Counter[str] = Counter()
    groups: Counter[str] = Counter()
    outlets: Counter[str] = Counter()
    timed: Counter[str] = Counter()
    flags: Counter[str] = Counter()
    regex_keys = 0
    filters = 0
    for entry in entries:
        position = entry.get("position")
        positions[_enum_name(POSITION_NAMES, position) if "position" in entry else "absent"] += 1
        if position == 4:
            roles[_enum_name(ROLE_NAMES, entry.get("role"))] += 1
        if position == 7:
            outlets[str(entry.get("outletName", ""))] += 1
        if entry.get("selective") and entry.get("keysecondary"):
            logic[_enum_name(LOGIC_NAMES, entry.get("selectiveLogic", 0))] += 1
        if isinstance(entry.get("group"), str):
            for group in _split_groups(entry["group"]):
                groups[group] += 1
        for name in ("sticky", "cooldown", "delay"):
            if _is_number(entry.get(name)) and entry[name] > 0:
                timed[name] += 1
        for name in ("constant", "disable", "vectorized", "excludeRecursion", "preventRecursion", "ignoreBudget"):
            if entry.get(name) is True:
                flags[name] += 1
        if entry.get("delayUntilRecursion") not in (None, False, 0):
            flags["delayUntilRecursion"] += 1
        for keys in (entry.get("key"), entry.get("keysecondary")):
            regex_keys += sum(1 for k in keys if is_regex_key(k)) if isinstance(keys, list) else 0
        cf = entry.get("characterFilter")
        if isinstance(cf, dict) and (cf.get("names") or cf.get("tags")):
            filters += 1
    facts: dict[str, Any] = {"positions": dict(positions)}
    for name, counter in (("selective_logic", logic), ("depth_roles", roles), ("groups", groups),
                          ("outlets", outlets), ("timed_effects", timed), ("flags", flags)):
        if counter:
            facts[name] = dict(counter)
    facts["regex_keys"] = regex_keys
    facts["character_filters"] = filters
    if "originalData" in world:
        facts["original_data"] = True
    return facts


def _describe(doc: Document) -> dict[str, Any]:
    book = doc.book
    if book is None:
        return {}
    if doc.card is not None:
        book, conflicts = normalize_card_book(book)
        facts = describe_world(world_from_lorebook(book))
        if conflicts:
            facts["flat_key_conflicts"] = len(conflicts)
        return facts
    return describe_world(world_from_lorebook(book))


register(
    Format(
        name="sillytavern-world",
        kind="lorebook",
        title="SillyTavern world info ({entries: {uid: entry}})",
        suffix=".json",
        platform="sillytavern",
        detect=_detect_world,
        read=_read_world,
        write=_write_world,
        describe=_describe,
        aliases=("st-world", "worldinfo"),
    )
)
register(
    Format(
        name="sillytavern-card",
        kind="card",
        title="Character card JSON as SillyTavern writes it (V2, V1 mirror, flat lorebook keys)",
        suffix=".json",
        platform="sillytavern",
        read=_read_card,
        write=_write_card,
        describe=_describe,
        aliases=("st-card",),
    )
)

__all__ = [
    "STEntryExt",
    "STLorebookExt",
    "card_book_from_lorebook",
    "describe_world",
    "flat_keys",
    "is_regex_key",
    "lorebook_from_world",
    "normalize_card",
    "normalize_card_book",
    "sillytavern_card",
    "world_from_lorebook",
]
