"""Table-driven knowledge of SillyTavern's world-entry fields (``mappings/sillytavern.json``).

Every rename, default, enum name and card-flavour flat key the adapter uses comes from the
table; this module turns its rows into the small lookup structures the readers and writers need.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from dataclasses import dataclass
from typing import Any

from ...mappings import load as load_mapping
from ...model import LorebookEntry

NS_PREFIX = "extensions.sillytavern.entry."
_SCALARS = frozenset({str, int, float, bool, type(None)})  # deepcopy returns these as they are


def copy_value(value: Any) -> Any:
    """``copy.deepcopy``, without its cost for an immutable scalar (returned as it is) or a flat
    list or dict of them (a key list: a new list of the same items, which is what deepcopy makes)."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is list:
        if _SCALARS.issuperset(map(type, value)):  # the item types checked at C speed
            return value.copy()
    elif kind is dict and _SCALARS.issuperset(map(type, value.values())):
        return value.copy()  # e.g. an entry's foreign `extensions`, most often {}
    return copy.deepcopy(value)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def split_groups(text: str) -> list[str]:
    """ST's inclusion groups: the native comma string split on ``/,\\s*/``, empty parts dropped."""
    return [part for part in re.split(r",\s*", text) if part]


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
        return copy_value(value)


def _load_fields() -> tuple[WorldField, ...]:
    """World-entry rows (those with a ``transform``) in the template's key order, each with its
    card-flavour flat key if ST exports one."""
    mapping = load_mapping("sillytavern")
    rows = mapping.fields_at("entry")
    flat_of = {row.world: row.native[len("extensions."):] for row in rows if row.world}
    by_native = {row.native: row for row in rows}
    fields = []
    for native in mapping.native_order("entry"):
        row = by_native[native]
        if not row.transform or row.canonical is None:
            continue  # card-flavour and documentation rows
        fields.append(
            WorldField(
                native=row.native,
                canonical=row.canonical,
                transform=row.transform,
                default=row.default,
                has_default=row.has_default,
                card_default=row.card_default,
                flat=flat_of.get(row.native),
                source=row.source or None,
            )
        )
    return tuple(fields)


def _enum(native: str) -> dict[Any, str]:
    """An enum's names by native value (the table keys them by the value's JSON text)."""
    return {json.loads(value): name for value, name in load_mapping("sillytavern").enum_values("entry", native).items()}


FIELDS = _load_fields()
BY_NATIVE = {f.native: f for f in FIELDS}
BY_FLAT = {f.flat: f for f in FIELDS if f.flat}
POSITION_NAMES = _enum("position")
LOGIC_NAMES = _enum("selectiveLogic")
ROLE_NAMES = _enum("role")


def flat_keys() -> tuple[str, ...]:
    """SillyTavern's flat card ``entry.extensions`` keys, exact spellings (sillytavern.md 3.2)."""
    return tuple(BY_FLAT)


def entry_label(index: int, entry: LorebookEntry) -> str:
    """``entry 3 ('Title')``: how warnings name an entry."""
    title = entry.comment if isinstance(entry.comment, str) and entry.comment else None
    return f"entry {index}" + (f" ({title!r})" if title else "")


# Canonical CCv3 entry fields ST's card exporter drops; stashed in card_fields on a card we write.
CARD_ONLY_FIELDS = ("name", "priority", "case_sensitive", "use_regex")
BOOK_FIELDS_DROPPED_BY_ST = ("description", "scan_depth", "token_budget", "recursive_scanning", "extensions")
# Native fields of a world entry that ST's card exporter writes at the card entry's top level.
TOP_LEVEL_NATIVE = ("uid", "key", "keysecondary", "comment", "content", "constant", "selective", "order", "disable")



def _required_entry_fields() -> tuple[tuple[str, str | None], ...]:
    """Spec fields CCv3 requires on every entry (the table's ``required`` rows), in the spec's order,
    each with the native world field whose value SillyTavern would apply when the source lacks it."""
    native_of: dict[str, str | None] = {}
    for row in load_mapping("sillytavern").fields_at("entry"):
        if row.required and row.canonical is not None:
            native_of[row.canonical] = row.native if row.transform else None  # None: a card-only field
    spec_order = list(LorebookEntry.model_fields)
    return tuple(sorted(native_of.items(), key=lambda item: spec_order.index(item[0])))


REQUIRED_ENTRY_FIELDS = _required_entry_fields()
# Top-level card fields convertCharacterBook reads with a fallback (`x || fallback`): written when
# the entry lacks them and means something else than the fallback.
ST_TOP_LEVEL = tuple(
    (BY_NATIVE[native].canonical, native, BY_NATIVE[native].template_default(for_card=True))
    for native in ("selective", "constant", "keysecondary")
)
NATIVE_OF_REQUIRED = {name: native for name, native in REQUIRED_ENTRY_FIELDS if native} | {
    name: native for name, native, _ in ST_TOP_LEVEL
}
