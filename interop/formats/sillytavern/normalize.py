"""Fold SillyTavern's flat card ``entry.extensions`` keys into ``extensions.sillytavern.entry``.

SillyTavern reads the flat keys, so where they disagree with the namespace (or a stashed
``card_fields`` value with the spec field) their value is kept and a ``Conflict`` is recorded
where it happens; ``conflict_text`` renders the sentence users see in warnings.
"""

from __future__ import annotations

import copy
import json
import marshal
from itertools import filterfalse
from typing import Any

from ...jsonvalue import json_equal
from ...model import Card, Lorebook, LorebookEntry
from ...model.conflict import Conflict
from ...model.stash import Stash, take
from ...transforms.card_for_target import model_copy
from .fields import BY_FLAT, POSITION_NAMES, copy_value, entry_label, is_number
from .model import BOOK_FIELDS, CARD_FIELDS, NAMESPACE, keep_record
from .read_entry import read_native_entry

HAZARD_PREFIX = "SillyTavern reads its flat key: "


def _conflict(index: int, field: str, detail: str) -> Conflict:
    """A conflict on entry ``index``'s dotted canonical ``field`` (the detail starts with the field)."""
    return Conflict(("entry", index, *field.split(".")), detail)


def conflict_text(book: Lorebook, conflict: Conflict) -> str:
    """The warning sentence: ``entry 3 ('Title'): <detail>`` for an entry of ``book``, else the detail."""
    path = conflict.path
    if len(path) > 1 and path[0] == "entry" and isinstance(path[1], int) and path[1] < len(book.entries):
        return f"{entry_label(path[1], book.entries[path[1]])}: {conflict.detail}"
    return conflict.detail


def normalize_card_book(book: Lorebook, *, keep_flat: bool = False) -> tuple[Lorebook, list[Conflict]]:
    """Fold ST's flat ``entry.extensions`` keys into ``extensions.sillytavern.entry``.

    Returns the new book and the conflicts: a flat key and the namespace (or a
    stashed ``card_fields`` value and the spec field) that disagree. SillyTavern
    reads the flat keys, so their value is the one kept; each conflict is reported,
    none is resolved silently. ``keep_flat`` leaves the flat keys in place as well
    (both forms, agreeing), so a card read this way and written back keeps its form.
    """
    conflicts: list[Conflict] = []
    entries = [_normalize_entry(index, entry, conflicts, keep_flat) for index, entry in enumerate(book.entries)]
    return model_copy(book, {"entries": entries}), conflicts


def hazards(book: Lorebook) -> list[Conflict]:
    """What SillyTavern reads differently from the canonical book: its flat keys win (fidelity findings)."""
    return [
        Conflict(c.path, HAZARD_PREFIX + c.detail, c.fate)
        for c in normalize_card_book(book)[1]
        if c.path[:1] == ("entry",)
    ]


def _layout_is_foreign(extensions: dict[str, Any]) -> bool:
    ours = extensions.get(NAMESPACE)
    if NAMESPACE in extensions and not isinstance(ours, dict):
        return True
    return isinstance(ours, dict) and "entry" in ours and not isinstance(ours["entry"], dict)


def _nothing_to_fold(flat: list[str], existing: Any) -> bool:
    """``flat``: the entry's flat keys."""
    if not isinstance(existing, dict):
        return not flat
    if not flat and not {CARD_FIELDS, "world_extensions"} & set(existing):
        return True  # nothing to fold or restore
    # Read from a world file: flat-looking keys are that entry's own `extensions` object
    # (copies ST made when the entry came from a card, ignored by ST); the namespace is the truth.
    return existing.get("has_extensions") is True and "world_extensions" not in existing


def _normalize_entry(index: int, entry: LorebookEntry, conflicts: list[Conflict], keep_flat: bool) -> LorebookEntry:
    extensions = entry.extensions if isinstance(entry.extensions, dict) else None
    if extensions is None:
        return entry
    if _layout_is_foreign(extensions):
        conflicts.append(_conflict(index, NAMESPACE_PATH, "extensions.sillytavern is not in our layout; left as it is"))
        return entry
    flat_keys = list(filter(_FLAT_KEYS.__contains__, extensions))  # C-speed: ~30 keys on an ST export
    ours = extensions.get(NAMESPACE)
    existing = ours.get("entry") if isinstance(ours, dict) else None
    if _nothing_to_fold(flat_keys, existing):
        return entry
    only_flat = len(flat_keys) == len(extensions)  # SillyTavern's own export
    flat = extensions if only_flat else {k: extensions[k] for k in flat_keys}
    # The entry's top-level fields as ``dump()`` has them, not copied: the steps below only set
    # top-level names, and the new entry takes the changed ones (no dump and validation round trip).
    raw = entry.__dict__.copy()  # the declared fields, in order (the set ones kept below, at C speed)
    for name in raw.keys() - entry.__pydantic_fields_set__:  # model_fields_set without its property
        del raw[name]
    raw.update(entry.__pydantic_extra__ or {})
    before = dict(raw)
    top, from_flat = read_flat(flat)
    if isinstance(existing, dict):
        ns: dict[str, Any] = copy.deepcopy(existing)
        _fold_namespace(index, ns, from_flat, conflicts)
    else:
        ns = from_flat  # a new dict (read_flat): what folding it into an empty namespace gives
    _fold_case_sensitive(index, raw, top, flat, conflicts)
    _check_position(index, raw, flat.get("position"), conflicts)
    if CARD_FIELDS in ns:
        _restore_card_fields(index, raw, keep_record(ns.pop(CARD_FIELDS)), conflicts)
    world_keys = ns.pop("world_extensions", None)
    if isinstance(world_keys, list):
        ns["has_extensions"] = True  # the world entry had an extensions object (these flat keys were in it)
        kept_flat = set(world_keys)
    else:
        kept_flat = set(BY_FLAT) if keep_flat else set()
    if only_flat and not kept_flat:
        raw["extensions"] = {NAMESPACE: {"entry": ns}}  # what _folded_extensions gives
    else:
        raw["extensions"] = _folded_extensions(extensions, ns, kept_flat)
    return model_copy(entry, {k: v for k, v in raw.items() if k not in before or before[k] is not v})


_FLAT_KEYS = frozenset(BY_FLAT)
_NATIVE_OF_FLAT = {flat: field.native for flat, field in BY_FLAT.items()}
_READ: dict[bytes, tuple[dict[str, Any], dict[str, Any], tuple[str, ...], tuple[str, ...]]] = {}
"""``read_flat``'s (top, namespace) fields by its input's ``marshal`` bytes (which give the input back
exactly, so equal bytes read the same): private copies and the names of their list or object values.
A hit returns new dicts (the same key objects: no rehashing of ~30 fresh names, as ``marshal.loads``
made) with deep copies of those values, scalars shared (immutable).
Bounded: an ST export's entries share most of their flat values (often all but ``display_index``)."""
_READ_LIMIT = 1024
_KEY_BYTES = 4096
"""Flat keys up to this size (marshal bytes) are kept (an ST export's are ~600): the memo lives for the
process, so a key's size bounds its memory (a flat value may be many megabytes)."""


def read_flat(flat: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``read_native_entry(...)[:2]`` of a card entry's flat keys ``flat`` (their native fields), memoized
    by content; the dicts returned are new."""
    try:
        key: bytes | None = marshal.dumps(flat)
    except ValueError:  # a value marshal does not know (never from a JSON file): read it
        key = None
    if key is not None and len(key) > _KEY_BYTES:
        key = None  # read, not kept alive by the memo
    known = _READ.get(key) if key is not None else None
    if known is not None:
        kept_top, kept_ns, top_containers, ns_containers = known
        top, ns = kept_top.copy(), kept_ns.copy()
        for name in top_containers:
            top[name] = copy_value(top[name])
        for name in ns_containers:
            ns[name] = copy_value(ns[name])
        return top, ns
    top, ns, _ = read_native_entry(dict(zip(map(_NATIVE_OF_FLAT.__getitem__, flat), flat.values(), strict=True)))
    if key is not None:
        try:
            kept_top, kept_ns = marshal.loads(marshal.dumps((top, ns)))  # the memo's own deep copies
        except ValueError:
            return top, ns
        if len(_READ) >= _READ_LIMIT:
            _READ.clear()
        _READ[key] = (kept_top, kept_ns, _containers(kept_top), _containers(kept_ns))
    return top, ns


def _containers(values: dict[str, Any]) -> tuple[str, ...]:
    """The names whose values are not immutable scalars (a copy of the dict must copy them too)."""
    return tuple(name for name, value in values.items() if value.__class__ not in _SCALARS)


_SCALARS = frozenset({str, int, float, bool, type(None)})


NAMESPACE_PATH = f"extensions.{NAMESPACE}"
_FLAT_AND_OURS = frozenset({*BY_FLAT, NAMESPACE})


def _fold_namespace(index: int, ns: dict[str, Any], from_flat: dict[str, Any], conflicts: list[Conflict]) -> None:
    for key, value in from_flat.items():
        if key in ns and not json_equal(ns[key], value):
            conflicts.append(_conflict(
                index, f"{NAMESPACE_PATH}.entry.{key}",
                f"{NAMESPACE_PATH}.entry.{key} is {json.dumps(ns[key])} but SillyTavern's flat key "
                f"gives {json.dumps(value)}; the flat value is kept",
            ))
        ns[key] = value


def _fold_case_sensitive(
    index: int, raw: dict[str, Any], top: dict[str, Any], flat: dict[str, Any], conflicts: list[Conflict]
) -> None:
    present = "case_sensitive" in raw
    if "case_sensitive" in top:
        if present and not json_equal(raw["case_sensitive"], top["case_sensitive"]):
            conflicts.append(_conflict(
                index, "case_sensitive",
                f"case_sensitive is {json.dumps(raw['case_sensitive'])} but extensions.case_sensitive is "
                f"{json.dumps(top['case_sensitive'])}; SillyTavern uses the flat key, so its value is kept",
            ))
        raw["case_sensitive"] = top["case_sensitive"]
    elif "case_sensitive" in flat and present and raw["case_sensitive"] is not None:
        conflicts.append(_conflict(
            index, "case_sensitive",
            f"case_sensitive is {json.dumps(raw['case_sensitive'])} but SillyTavern's "
            "extensions.case_sensitive is null (use the global setting)",
        ))


def _check_position(index: int, raw: dict[str, Any], position: Any, conflicts: list[Conflict]) -> None:
    if not is_number(position) or not isinstance(raw.get("position"), str):
        return
    expected = "before_char" if position == 0 else "after_char"
    if raw["position"] != expected:
        conflicts.append(_conflict(
            index, "position",
            f"position is {raw['position']!r} but SillyTavern's extensions.position is {position}"
            f" ({POSITION_NAMES.get(position, '?')}); SillyTavern uses the flat key",
        ))


def _restore_missing(target: dict[str, Any], stash: Stash) -> list[tuple[str, Any]]:
    """Put back the kept values ``target`` lacks; return the ``(name, kept value)`` pairs that
    disagree with the value ``target`` has (that one stays: a stale stash never overrides)."""
    present = [name for name in stash.keep if name in target]
    stash.restore(target, skip=present)
    return [(name, stash.keep[name]) for name in present if not json_equal(target[name], stash.keep[name])]


def _restore_card_fields(index: int, raw: dict[str, Any], stash: Stash, conflicts: list[Conflict]) -> None:
    # after the flat keys: a stale stash never overrides what ST wrote
    for name, value in _restore_missing(raw, stash):
        conflicts.append(_conflict(
            index, name,
            f"{name} is {json.dumps(raw[name])} but the SillyTavern stash says {json.dumps(value)};"
            " the spec field is kept",
        ))


def _folded_extensions(extensions: dict[str, Any], ns: dict[str, Any], kept_flat: set[str]) -> dict[str, Any]:
    dropped = (_FLAT_KEYS - kept_flat) | {NAMESPACE} if kept_flat else _FLAT_AND_OURS
    new_ext = {k: extensions[k] for k in filterfalse(dropped.__contains__, extensions)}  # foreign keys only
    other = extensions.get(NAMESPACE)
    if isinstance(other, dict):
        new_ext[NAMESPACE] = {**{k: v for k, v in other.items() if k != "entry"}, "entry": ns}
    else:
        new_ext[NAMESPACE] = {"entry": ns}
    return new_ext


def normalize_card(card: Card, *, keep_flat: bool = False) -> tuple[Card, list[Conflict]]:
    """``normalize_card_book`` for the card's book, plus the book fields stashed in
    ``data.extensions.sillytavern.character_book`` by ``sillytavern-card`` output."""
    book = card.data.character_book
    if book is None:
        return card, []
    book, conflicts = normalize_card_book(book, keep_flat=keep_flat)
    data_update: dict[str, Any] = {}
    taken = _take_book_stash(card.data.extensions)
    if taken is not None:
        stash, data_update["extensions"] = taken
        book = _restore_book_fields(book, stash, conflicts)
    data_update["character_book"] = book
    new = card.model_copy(update={"data": card.data.model_copy(update=data_update)})
    new.filled = card.filled
    return new, conflicts


def _take_book_stash(extensions: Any) -> tuple[Stash, dict[str, Any]] | None:
    """The book fields in ``data.extensions.sillytavern.character_book`` and the card's
    ``extensions`` without them (an emptied namespace goes too); None when there is no such stash."""
    ours = extensions.get(NAMESPACE) if isinstance(extensions, dict) else None
    if not isinstance(ours, dict) or not isinstance(ours.get(BOOK_FIELDS), dict):
        return None
    rest = dict(ours)  # the card's own dicts stay as they are
    stash = keep_record(take(rest, BOOK_FIELDS))
    new_ext = {k: v for k, v in extensions.items() if k != NAMESPACE}
    if rest:
        new_ext[NAMESPACE] = rest
    return stash, new_ext


def _restore_book_fields(book: Lorebook, stash: Stash, conflicts: list[Conflict]) -> Lorebook:
    raw = book.dump()
    for name, value in _restore_missing(raw, stash):
        conflicts.append(Conflict(
            ("book", name),
            f"character_book.{name} is {json.dumps(raw[name])} but the SillyTavern stash says "
            f"{json.dumps(value)}; the book's value is kept",
        ))
    return Lorebook.model_validate(raw)
