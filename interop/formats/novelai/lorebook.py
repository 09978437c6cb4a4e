"""NovelAI lorebooks (``.lorebook``, ``lorebookVersion`` 1 to 6): format ``novelai-lorebook``.

Field names and defaults come from ``mappings/novelai.json``. Everything
NovelAI-only is kept verbatim: ``book.extensions.novelai.lorebook``
(``lorebookVersion``, ``settings``, ``categories``, unknown keys) and
``entry.extensions.novelai.entry`` (``contextConfig`` minus
``budgetPriority``, ``searchRange``, ``keyRelative``, ``nonStoryActivatable``,
``category``, ``loreBiasGroups``, ``lastUpdatedAt``, unknown keys).

Keys are kept exactly as written. NovelAI decides regex-ness per key (a key
written ``/pattern/flags`` is a JS regex), CCv3 per entry (``use_regex``), so
``use_regex`` stays unset and entries holding regex keys get the flag
``extensions.novelai.key_syntax = "slash_regex"``: every ``/../flags`` key is a
regex, every other key plain text, the convention SillyTavern uses too.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from pydantic import ValidationError

from ...cardkit.as_kind import as_lorebook
from ...document import Document
from ...errors import InvalidCardError
from ...jsonio import dump_json
from ...mappings import load as load_mapping
from ...model import Lorebook, LorebookEntry, as_bool, as_str_list
from ...model.keys import is_regex_key
from ...platform.registry import Format, Probe, ReadContext, WriteContext

NAMESPACE = "novelai"
KEY_SYNTAX = "slash_regex"

_MAPPING = load_mapping("novelai")

# Plain one-to-one renames (native, canonical) at entry level: text -> content, ...
ENTRY_FIELDS = [
    (f.native, f.canonical)
    for f in _MAPPING.fields_at("entry")
    if f.canonical and "." not in f.canonical and "." not in f.native and f.native != "*"
]
ENTRY_DEFAULTS: dict[str, Any] = _MAPPING.defaults("entry")
BOOK_DEFAULTS: dict[str, Any] = _MAPPING.defaults("book")
BUDGET_PRIORITY = "budgetPriority"

_CANONICAL_BY_NATIVE = dict(ENTRY_FIELDS)
# The order NovelAI itself writes entry and book keys in (the table's ``order``) and
# contextConfig keys in (the table's default contextConfig, written as NovelAI writes it).
ENTRY_ORDER = tuple(_MAPPING.native_order("entry"))
CONTEXT_ORDER = tuple(ENTRY_DEFAULTS["contextConfig"])
BOOK_ORDER = tuple(_MAPPING.native_order("book"))


# --- native -> canonical -------------------------------------------------------


def lorebook_from_novelai(obj: dict[str, Any], *, file: str | None = None, location: str | None = None) -> Lorebook:
    """The canonical lorebook of a NovelAI lorebook object."""
    if not isinstance(obj, dict):
        raise InvalidCardError("NovelAI lorebook is not an object", file=file, location=location)
    entries = obj.get("entries", [])
    if not isinstance(entries, list):
        raise InvalidCardError("NovelAI 'entries' is not a list", file=file, location=_at(location, "entries"))
    book_ns = {k: copy.deepcopy(v) for k, v in obj.items() if k != "entries"}
    if "entries" not in obj:
        book_ns["no_entries"] = True
    raw_entries = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise InvalidCardError("NovelAI entry is not an object", file=file, location=_at(location, f"entries[{i}]"))
        raw_entries.append(_entry_from_native(entry))
    try:
        return Lorebook.model_validate({"extensions": {NAMESPACE: {"lorebook": book_ns}}, "entries": raw_entries})
    except ValidationError as exc:
        raise InvalidCardError(f"NovelAI lorebook does not validate: {exc.errors()[0]['msg']}", file=file) from None


def _at(base: str | None, path: str) -> str:
    return f"{base}.{path}" if base else path


def _entry_from_native(entry: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in entry.items():
        canonical = _CANONICAL_BY_NATIVE.get(key)
        if canonical is not None:
            out[canonical] = copy.deepcopy(value)
        else:
            extra[key] = copy.deepcopy(value)
    config = extra.get("contextConfig")
    if isinstance(config, dict) and BUDGET_PRIORITY in config:
        out["priority"] = out["insertion_order"] = config.pop(BUDGET_PRIORITY)
    ns: dict[str, Any] = {"entry": extra}
    if any(is_regex_key(k) for k in as_str_list(entry.get("keys"))):
        ns["key_syntax"] = KEY_SYNTAX
    out["extensions"] = {NAMESPACE: ns}
    return out


# --- canonical -> native -------------------------------------------------------


def novelai_from_lorebook(book: Lorebook) -> dict[str, Any]:
    """The NovelAI lorebook object for ``book``.

    A book read from NovelAI is written back as read; entries from other
    platforms get NovelAI's lore defaults and their keys translated
    (``use_regex`` and case-sensitive plain keys become ``/../`` regexes).
    """
    ns = book.ext(NAMESPACE).get("lorebook")
    ns = copy.deepcopy(ns) if isinstance(ns, dict) else {}
    cascading = book.recursive_scanning is True
    out: dict[str, Any] = {}
    no_entries = ns.pop("no_entries", False)
    for key in BOOK_ORDER:
        if key == "entries":
            if not (no_entries and not book.entries):
                out["entries"] = [_entry_to_native(e, cascading) for e in book.entries]
        elif key in ns:
            out[key] = ns.pop(key)
        elif not book.ext(NAMESPACE):
            out[key] = copy.deepcopy(BOOK_DEFAULTS[key])
    out.update(ns)
    return out


def _entry_to_native(entry: LorebookEntry, cascading: bool) -> dict[str, Any]:
    raw = entry.dump()
    ns = entry.ext(NAMESPACE)
    native_only = ns.get("entry")
    from_novelai = isinstance(native_only, dict)
    out: dict[str, Any] = copy.deepcopy(native_only) if from_novelai else _defaults(cascading)
    for native, canonical in ENTRY_FIELDS:
        if canonical in raw:
            out[native] = raw[canonical]
    if not from_novelai:
        if "name" not in raw and isinstance(raw.get("comment"), str):
            out["displayName"] = raw["comment"]
        if "keys" in raw:
            out["keys"] = translated_keys(entry)
        if not isinstance(out.get("id"), str):
            out.pop("id", None)
    priority = raw.get("priority", raw.get("insertion_order"))
    if "priority" in raw or "insertion_order" in raw:
        config = out.get("contextConfig")
        if not isinstance(config, dict):
            config = out["contextConfig"] = {}
        config[BUDGET_PRIORITY] = priority
        out["contextConfig"] = _ordered(config, CONTEXT_ORDER)
    return _ordered(out, ENTRY_ORDER)


def _defaults(cascading: bool) -> dict[str, Any]:
    out = {k: copy.deepcopy(v) for k, v in ENTRY_DEFAULTS.items() if "." not in k}
    out["nonStoryActivatable"] = cascading
    return out


def _ordered(obj: dict[str, Any], order: tuple[str, ...]) -> dict[str, Any]:
    out = {k: obj[k] for k in order if k in obj}
    out.update((k, v) for k, v in obj.items() if k not in out)
    return out


_WORD = re.compile(r"\w")


def translated_keys(entry: LorebookEntry) -> list[str]:
    """The keys of a non-NovelAI entry in NovelAI syntax.

    ``use_regex`` entries: every key becomes ``/key/`` (plus ``i`` unless
    case-sensitive). Case-sensitive plain keys become a case-sensitive
    whole-word regex, since NovelAI plain keys ignore case. Keys already written
    ``/../flags`` are kept.
    """
    keys = as_str_list(entry.keys)
    regex_entry = entry.use_regex is True
    case_sensitive = as_bool(entry.case_sensitive, False)
    out = []
    for key in keys:
        if is_regex_key(key):
            out.append(key)
        elif regex_entry:
            out.append(f"/{key.replace('/', chr(92) + '/')}/{'' if case_sensitive else 'i'}")
        elif case_sensitive and key.lower() != key.upper():
            escaped = re.sub(r"[\\^$.*+?()[\]{}|/]", lambda m: "\\" + m.group(0), key)
            left = r"\b" if _WORD.match(key[:1]) else ""
            right = r"\b" if _WORD.match(key[-1:]) else ""
            out.append(f"/{left}{escaped}{right}/")
        else:
            out.append(key)
    return out


# --- the novelai-lorebook format -------------------------------------------------


def looks_like_novelai_lorebook(obj: dict[str, Any]) -> bool:
    return "lorebookVersion" in obj and isinstance(obj.get("entries", []), list)


def _detect(probe: Probe) -> int:
    obj = probe.json_object
    return 100 if obj is not None and looks_like_novelai_lorebook(obj) else 0


def _read(data: bytes, ctx: ReadContext) -> Document:
    obj = ctx.json(data)
    if not isinstance(obj, dict):
        raise InvalidCardError("NovelAI lorebook is not a JSON object", file=ctx.filename)
    doc = Document(format="novelai-lorebook", lorebook=lorebook_from_novelai(obj, file=ctx.filename))
    check_version(doc, obj.get("lorebookVersion"))
    return doc


KNOWN_VERSIONS = range(1, 7)


def check_version(doc: Document, version: Any) -> None:
    if not (isinstance(version, int) and version in KNOWN_VERSIONS):
        doc.warn(f"lorebookVersion {version!r} is not one we know (1 to 6); unknown fields are kept as read")


def _write(doc: Document, ctx: WriteContext) -> bytes:
    return dump_json(novelai_from_lorebook(as_lorebook(doc)), pretty=ctx.pretty)


def describe_book(book: Lorebook | None) -> dict[str, Any]:
    """NovelAI facts for ``inspect``: version, categories, search ranges, budgets, regex keys."""
    if book is None:
        return {}
    ns = book.ext(NAMESPACE).get("lorebook")
    ns = ns if isinstance(ns, dict) else {}
    entries = [(e, e.ext(NAMESPACE).get("entry") or {}) for e in book.entries]
    categories = ns.get("categories") if isinstance(ns.get("categories"), list) else []
    by_category: dict[Any, int] = {}
    for _, native in entries:
        by_category[native.get("category")] = by_category.get(native.get("category"), 0) + 1
    facts: dict[str, Any] = {
        "lorebookVersion": ns.get("lorebookVersion"),
        "orderByKeyLocations": (ns.get("settings") or {}).get("orderByKeyLocations")
        if isinstance(ns.get("settings"), dict)
        else None,
        "categories": [
            f"{c.get('name')} ({by_category.get(c.get('id'), 0)} entries"
            + (", subcontext" if c.get("createSubcontext") else "")
            + ")"
            for c in categories
            if isinstance(c, dict)
        ],
        "search_ranges": _spread(n.get("searchRange") for _, n in entries),
        "token_budgets": _spread(
            (n.get("contextConfig") or {}).get("tokenBudget")
            for _, n in entries
            if isinstance(n.get("contextConfig"), dict)
        ),
        "reserved_tokens": _spread(
            (n.get("contextConfig") or {}).get("reservedTokens")
            for _, n in entries
            if isinstance(n.get("contextConfig"), dict)
        ),
        "budget_priorities": _spread(e.priority for e, _ in entries),
        "force_activation": sum(1 for e, _ in entries if e.constant is True),
        "regex_keys": sum(1 for e, _ in entries for k in as_str_list(e.keys) if is_regex_key(k)),
        "bias_groups": sum(len(n.get("loreBiasGroups") or []) for _, n in entries),
    }
    return facts


def _spread(values: Any) -> str | None:
    """``min..max (n distinct)`` of the numeric values, or None when there are none."""
    numbers = sorted({v for v in values if isinstance(v, int | float) and not isinstance(v, bool)})
    if not numbers:
        return None
    if len(numbers) == 1:
        return str(numbers[0])
    return f"{numbers[0]}..{numbers[-1]} ({len(numbers)} distinct)"


def _describe(doc: Document) -> dict[str, Any]:
    return describe_book(doc.book)


FORMATS = (
    Format(
        name="novelai-lorebook",
        kind="lorebook",
        title="NovelAI lorebook (.lorebook, lorebookVersion 1-6)",
        suffix=".lorebook",
        platform="novelai",
        detect=_detect,
        detect_max=100,
        read=_read,
        write=_write,
        describe=_describe,
        aliases=("novelai",),
    ),
)
"""This module's formats, registered by the package ``__init__`` (in this order)."""
