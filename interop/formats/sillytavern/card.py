"""SillyTavern's card flavour: ``character_book`` the way ST's exporter writes it, and the whole card."""

from __future__ import annotations

import copy
from typing import Any

from ...mappings import load as load_mapping
from ...model import V2_SPEC, Card, Lorebook, LorebookEntry, as_bool
from ...model.stash import Stash, open_container
from ...model.versions import to_v2
from .fields import BOOK_FIELDS_DROPPED_BY_ST, CARD_ONLY_FIELDS, FIELDS, TOP_LEVEL_NATIVE, copy_value
from .model import (
    BOOK_FIELDS,
    CARD_FIELDS,
    NAMESPACE,
    OMIT,
    STASH_KEYS,
    UNKNOWN,
    VERBATIM,
    book_ext,
    foreign_extensions,
)
from .world import natives, normalized, st_exported_use_regex

# ``data`` fields SillyTavern mirrors at the card's root (V1 layout).
V1_MIRROR = ("name", "description", "personality", "scenario", "first_mes", "mes_example")
# Namespace records a card entry carries for every book, and for a book read from a world file.
STASHED_ALWAYS = ("character_filter", UNKNOWN)
STASHED_FOR_WORLD = ("uid_key", VERBATIM)


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
    book = normalized(book)[0]
    native_world = book_ext(book).native_world is True
    # ``book.dump()`` less its entries (written one by one below), without dumping them
    out: dict[str, Any] = book.model_dump(mode="python", exclude_unset=True, round_trip=True, exclude={"entries"})
    out.setdefault("extensions", {})
    fulls, owns = natives(book, True, from_card, plain), natives(book, False, from_card, plain)
    out["entries"] = [
        _card_entry(entry, full, own, native_world, plain[index])
        for index, (entry, full, own) in enumerate(zip(book.entries, fulls, owns, strict=True))
    ]
    return out


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
    extensions.update(_flat_keys_of(full, own, native_world))
    extensions[NAMESPACE] = {"entry": _entry_stash(entry, card, full, own, native_world, plain_keys)}
    card["extensions"] = extensions
    return card


def _flat_keys_of(full: dict[str, Any], own: dict[str, Any], native_world: bool) -> dict[str, Any]:
    """Values as held (a null stays null: ST's importer reads it with `??`); a world file's
    missing fields stay missing, any other book gets the importer's fallback."""
    out: dict[str, Any] = {}
    for native, flat in _FLAT_FIELDS:
        if native in own:
            value = own[native]
        elif not native_world and native in full:
            value = full[native]
        else:
            continue
        out[flat] = value if value.__class__ in _IMMUTABLE else copy_value(value)
    return out


_IMMUTABLE = frozenset({str, int, float, bool, type(None)})  # copy_value returns these as they are
_FLAT_FIELDS = tuple((field.native, field.flat) for field in FIELDS if field.flat)
"""(native name, flat key) of every field ST's card exporter writes as a flat ``extensions`` key."""


def _entry_stash(
    entry: LorebookEntry, card: dict[str, Any], full: dict[str, Any], own: dict[str, Any], native_world: bool,
    plain_keys: bool,
) -> dict[str, Any]:
    """``extensions.sillytavern.entry`` of a card entry: what ST's exporter drops."""
    ns = entry.ext(NAMESPACE).get("entry")
    ns = ns if isinstance(ns, dict) else {}
    stash: dict[str, Any] = {}
    held = own if native_world else full
    if "addMemo" in held:
        stash["add_memo"] = held["addMemo"]
    for name in STASHED_ALWAYS + (STASHED_FOR_WORLD if native_world else ()):
        if name in ns:
            stash[name] = copy.deepcopy(ns[name])
    if native_world:
        stash.update(_world_shape(ns, own).to_json(*STASH_KEYS))
        if isinstance(own.get("extensions"), dict):
            stash["world_extensions"] = list(own["extensions"])
    # ST's constant use_regex is not stashed: a stashed one says the keys really are patterns.
    card_fields = Stash(keep={
        n: card[n] for n in CARD_ONLY_FIELDS if n in card and not (plain_keys and n == "use_regex")
    })
    stash.update(card_fields.to_json(CARD_FIELDS))
    return stash


def _world_shape(ns: dict[str, Any], own: dict[str, Any]) -> Stash:
    """For a world entry: the top-level fields it lacked, which the card entry has (absent: ``omit``).

    Its ``verbatim`` record is carried over as it is by ``STASHED_FOR_WORLD``."""
    absent = [n for n in TOP_LEVEL_NATIVE if n not in own]
    absent += [n for n in ns.get(OMIT) or [] if n not in absent]
    return Stash(absent=absent)


def _card_extension_defaults() -> dict[str, Any]:
    """``data.extensions.*`` defaults ST writes on every card (mapping table, card level)."""
    prefix = "extensions."
    return {
        name[len(prefix):]: value
        for name, value in load_mapping("sillytavern").defaults("card").items()
        if name.startswith(prefix)
    }


CARD_EXTENSION_DEFAULTS = _card_extension_defaults()
ROOT_DEFAULTS = {
    name: value for name, value in load_mapping("sillytavern").defaults("card").items() if "." not in name
}


def sillytavern_card(card: Card, *, from_card: bool = True, plain: list[bool] | None = None) -> dict[str, Any]:
    """The card as SillyTavern writes it: ``chara_card_v2``, V1 mirror at the root, flat book keys.

    ``from_card``: the book was a card's (ST's card-import position fallback applies), not a
    standalone lorebook wrapped in a new card."""
    v2 = to_v2(card)
    raw = v2.dump()
    data = raw.setdefault("data", {})
    if "extensions" not in data:
        data["extensions"] = {}
    extensions = data["extensions"]
    if v2.data.character_book is not None:
        data["character_book"] = card_book_from_lorebook(v2.data.character_book, from_card=from_card, plain=plain)
        _stash_dropped_book_fields(data["character_book"], extensions)
    if isinstance(extensions, dict):
        for name, value in CARD_EXTENSION_DEFAULTS.items():
            extensions.setdefault(name, copy.deepcopy(value))
    _mirror_v1(raw, data, extensions)
    raw["spec"] = V2_SPEC
    raw["spec_version"] = "2.0"
    return raw


def _stash_dropped_book_fields(book: dict[str, Any], extensions: Any) -> None:
    """Book fields ST's exporter drops, kept in ``data.extensions.sillytavern.character_book``."""
    dropped = Stash(keep={k: copy.deepcopy(book[k]) for k in BOOK_FIELDS_DROPPED_BY_ST if k in book})
    if dropped.keep.get("extensions") == {}:
        del dropped.keep["extensions"]
    if dropped and isinstance(extensions, dict):
        ours, _ = open_container(extensions, NAMESPACE)  # a non-object value there is not ours: replaced
        ours.update(dropped.to_json(BOOK_FIELDS))


def _mirror_v1(raw: dict[str, Any], data: dict[str, Any], extensions: Any) -> None:
    """ST's V1 mirror at the card's root."""
    for name in V1_MIRROR:
        if name in data:
            raw[name] = data[name]
    if "creator_notes" in data:
        raw["creatorcomment"] = data["creator_notes"]
    for name, value in ROOT_DEFAULTS.items():
        raw.setdefault(name, copy.deepcopy(value))
    if isinstance(extensions, dict):
        raw["talkativeness"] = extensions["talkativeness"]
        raw["fav"] = extensions["fav"]
    if "tags" in data:
        raw["tags"] = data["tags"]
