"""Moving cards between spec versions: V1 (TavernAI), V2 (``chara_card_v2``), V3.

The canonical ``Card`` keeps the ``spec`` it was read with; these functions
return a new card in the requested version. Downgrades stash whatever the
lower version cannot hold in ONE namespace, ``extensions.interop``
(``data.extensions.interop`` for V2, root ``extensions.interop`` for V1, which
has no ``data``), and upgrades restore it, so V3 -> V2 -> V3 and
V3 -> V1 -> V3 give back the same card. Stash layout (documented in
docs/versions.md)::

    {"from": "chara_card_v3",          # spec the card had before the downgrade
     "spec_version": "3.0",            # its spec_version
     "data": {...},                    # fields the target version has no place for
     "absent": ["extensions"],         # containers the downgrade had to create
     "entries": {"<index>": {"use_regex": true, "decorators": "@@depth 4\n"}}}

Upgrades fill the fields a higher version requires (``group_only_greetings``,
entry ``use_regex`` for V3; the V2 data fields for V1) and remember them in
``Card.filled``, so a downgrade of the same in-memory card removes them again
and V2 -> V3 -> V2 is the identity too.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

from ..jsonvalue import ABSENT
from ..mappings import load as load_mapping
from .card import V2_SPEC, V3_ONLY_FIELDS, V3_SPEC, Card
from .decorators import parse_decorators
from .stash import open_container, take

STASH = "interop"
V1_FIELDS = ("name", "description", "personality", "scenario", "first_mes", "mes_example")


def required_defaults(spec: str = "v3") -> dict[str, Any]:
    """The fields a ``"v3"`` (or ``"v2"``) card must have, each with the empty value an importer or a
    conversion fills in: the ``required``/``card_default`` rows of ``mappings/ccv3.json`` (a new copy
    on every call; read on first use, so importing the model loads no table)."""
    table = _required_v3()
    if spec == "v2":
        table = {k: v for k, v in table.items() if k not in V3_ONLY_FIELDS}
    return copy.deepcopy(table)


@functools.cache
def _required_v3() -> dict[str, Any]:
    ccv3 = load_mapping("ccv3")
    defaults = ccv3.card_defaults("card")
    return {name: defaults[name] for name in ccv3.required_fields("card")}


def spec_of(card: Card) -> str:
    """``"v3"``, ``"v2"`` or ``"v1"`` for the card as it stands."""
    if card.spec == V3_SPEC:
        return "v3"
    if card.spec == V2_SPEC:
        return "v2"
    return "v1"


def spec_version_float(value: Any) -> float | None:
    """``spec_version`` compared as a float, as the spec says; None if it is not a number."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def check_spec_version(card: Card) -> str | None:
    """A warning when the card claims a newer spec version than we know."""
    version = spec_version_float(card.spec_version)
    if card.spec == V3_SPEC and version is not None and version > 3.0:
        return f"card uses spec_version {card.spec_version}, newer than 3.0; unknown fields are kept as read"
    if card.spec == V2_SPEC and version is not None and version > 2.0:
        return f"card uses chara_card_v2 spec_version {card.spec_version}, newer than 2.0"
    return None


def _validated(raw: dict[str, Any], filled: set[str]) -> Card:
    card = Card.model_validate(raw)
    card.filled = filled
    return card


def _entry_list(data: dict[str, Any]) -> list[dict[str, Any]]:
    book = data.get("character_book")
    if isinstance(book, dict) and isinstance(book.get("entries"), list):
        return [e for e in book["entries"] if isinstance(e, dict)]
    return []


def to_v3(card: Card) -> Card:
    """The card as ``chara_card_v3``; a V1/V2 card is upgraded, a stash is restored."""
    if spec_of(card) == "v3":
        return card
    if spec_of(card) == "v1":
        card = _v1_to_v2(card)
        if spec_of(card) == "v3":
            return card
    raw = card.dump()
    data = raw.setdefault("data", {})
    filled = set(card.filled)
    stash = _pop_stash(data)
    raw["spec"] = V3_SPEC
    raw["spec_version"] = stash.get("spec_version", "3.0") if stash.get("from") == V3_SPEC else "3.0"
    if stash:
        _restore(data, stash)
        data.setdefault("group_only_greetings", [])
    else:
        if "group_only_greetings" not in data:
            data["group_only_greetings"] = []
            filled.add("data.group_only_greetings")
        for i, entry in enumerate(_entry_list(data)):
            if "use_regex" not in entry:
                entry["use_regex"] = False
                filled.add(f"entries.{i}.use_regex")
    return _validated(raw, filled)


def to_v2(card: Card, *, strip_decorators: bool = False) -> Card:
    """The card as ``chara_card_v2``. V3-only data is stashed in ``data.extensions.interop``.

    ``strip_decorators`` follows the spec's advice for backfilled V2 copies:
    decorator lines leave ``content`` and go to the stash, restorable on upgrade.
    """
    source = spec_of(card)
    raw = card.dump()
    filled = set(card.filled)
    if source == "v2" and not strip_decorators:
        return card
    if source == "v1":
        upgraded = _v1_to_v2(card)
        return to_v2(upgraded, strip_decorators=strip_decorators) if spec_of(upgraded) == "v3" else upgraded
    data = raw.setdefault("data", {})
    stash: dict[str, Any] = {"from": raw.get("spec"), "spec_version": raw.get("spec_version")}
    moved = _pop_v3_only(data, filled) if source == "v3" else {}
    entry_stash = _downgrade_entries(data, filled if source == "v3" else set(), strip_decorators)
    if moved:
        stash["data"] = moved
    if entry_stash:
        stash["entries"] = entry_stash
    raw["spec"] = V2_SPEC
    raw["spec_version"] = "2.0"
    if moved or entry_stash or stash["spec_version"] not in ("3.0", None):
        extensions, before = open_container(data, "extensions")
        if before is ABSENT:
            stash["absent"] = ["extensions"]
        elif before is not extensions:
            stash["replaced_extensions"] = before
        extensions[STASH] = stash
    return _validated(raw, {f for f in filled if not f.startswith(("data.group_only", "entries."))})


def _pop_v3_only(data: dict[str, Any], filled: set[str]) -> dict[str, Any]:
    """Remove the V3-only fields from ``data``; the ones to stash (not filled in by an upgrade)."""
    moved: dict[str, Any] = {}
    for name in V3_ONLY_FIELDS:
        if name in data:
            value = data.pop(name)
            # An empty group_only_greetings is what an upgrade fills in anyway.
            if f"data.{name}" not in filled and not (name == "group_only_greetings" and value == []):
                moved[name] = value
    return moved


def _downgrade_entries(data: dict[str, Any], filled: set[str], strip_decorators: bool) -> dict[str, dict[str, Any]]:
    """Drop the ``use_regex`` an upgrade filled in; move decorator lines out (``strip_decorators``).

    Returns the per-entry stash (``{"<index>": {"decorators": ...}}``).
    """
    entry_stash: dict[str, dict[str, Any]] = {}
    for i, entry in enumerate(_entry_list(data)):
        if f"entries.{i}.use_regex" in filled:
            entry.pop("use_regex", None)
        if strip_decorators and isinstance(entry.get("content"), str):
            parsed = parse_decorators(entry["content"])
            if parsed.decorators:
                entry["content"] = parsed.body
                entry_stash.setdefault(str(i), {})["decorators"] = parsed.prefix
    return entry_stash


def v1_carried(root: dict[str, Any]) -> dict[str, Any]:
    """The V2 ``data`` fields SillyTavern's V1 import makes from root keys besides the six V1 fields.

    ``importFromJson``/``importFromPng`` (src/endpoints/characters.js, the branch for
    ``name !== undefined`` without ``spec``) read ``creatorcomment ?? creator_notes``,
    ``talkativeness``, ``creator`` and ``tags``; ``convertToV2`` -> ``charaFormatData`` puts them
    in ``data.creator_notes``, ``data.extensions.talkativeness``, ``data.creator`` and
    ``data.tags`` (a string split on commas, trimmed, empty parts dropped). Only keys present
    with a usable value are carried (ST's own defaults for absent ones are not added).
    """
    out: dict[str, Any] = {}
    if isinstance(root.get("creator"), str):
        out["creator"] = root["creator"]
    notes = root.get("creatorcomment")
    notes = root.get("creator_notes") if notes is None else notes
    if isinstance(notes, str):
        out["creator_notes"] = notes
    tags = root.get("tags")
    if isinstance(tags, str):
        out["tags"] = [t.strip() for t in tags.split(",") if t.strip()]
    elif isinstance(tags, list) and all(isinstance(t, str) for t in tags):
        out["tags"] = list(tags)
    if root.get("talkativeness") is not None:
        out["extensions"] = {"talkativeness": copy.deepcopy(root["talkativeness"])}
    return out


def _v1_to_v2(card: Card) -> Card:
    raw = card.dump()
    root_stash = raw.get("extensions", {}).get(STASH) if isinstance(raw.get("extensions"), dict) else None
    data = raw.pop("data", None) or {}
    filled = set(card.filled)
    for name in V1_FIELDS:
        if name in raw and name not in data:
            data[name] = raw[name]
    for name, value in v1_carried(raw).items():
        data.setdefault(name, value)
    for name, default in required_defaults("v2").items():
        if name not in data:
            data[name] = default
            filled.add(f"data.{name}")
    raw["spec"] = V2_SPEC
    raw["spec_version"] = "2.0"
    raw["data"] = data
    if isinstance(root_stash, dict):
        # A V1 file we wrote earlier: its stash holds the full higher-version card.
        raw["extensions"].pop(STASH)
        if not raw["extensions"] and "extensions" in root_stash.get("absent_root", []):
            raw.pop("extensions")
        original = root_stash.get("card")
        if isinstance(original, dict):
            restored = copy.deepcopy(original)
            for key, value in raw.items():
                if key not in ("spec", "spec_version", "data", "extensions", *V1_FIELDS):
                    restored.setdefault(key, value)
            return _validated(restored, set())
    return _validated(raw, filled)


def to_v1(card: Card) -> Card:
    """The card as a TavernAI V1 object: the six V1 fields at the root, each a string.

    A V1 object is only recognised by its root ``name``: SillyTavern's
    ``importFromJson``/``importFromPng`` (src/endpoints/characters.js) take the
    V1 branch on ``jsonData.name !== undefined`` and pass it to ``sanitize``,
    which needs a string; our own detector (``card_json.card_version``) wants a
    string ``name`` and the other V1 fields. So all six are written, ``""``
    standing in for a field that is absent or not a string (the V1 spec makes
    all six required strings); a field an upgrade filled in stays out, so
    V1 -> V3 -> V1 is the identity. Everything else, and the original of a field
    that had to be filled or replaced, goes to root ``extensions.interop.card``
    (V1 has no other place), unless all of it was filled in by an upgrade.
    """
    if spec_of(card) == "v1":
        return card
    raw = card.dump()
    data = raw.get("data", {})
    filled = card.filled
    out: dict[str, Any] = {
        k: copy.deepcopy(v) for k, v in raw.items() if k not in ("spec", "spec_version", "data")
    }
    replaced = False
    for name in V1_FIELDS:
        value = data.get(name)
        if f"data.{name}" in filled:
            continue  # an upgrade filled it in: the V1 original had none
        if isinstance(value, str):
            out[name] = value
        else:
            out[name] = ""
            replaced = True
    carried = v1_carried(out)  # what an upgrade of ``out`` gives back from its root keys
    extra = {
        k: v for k, v in data.items()
        if k not in V1_FIELDS and f"data.{k}" not in filled and not (k in carried and carried[k] == v)
    }
    if extra or replaced:
        extensions, before = open_container(out, "extensions")
        absent = ["extensions"] if before is ABSENT else []
        # A deep copy: the root ``extensions`` of ``out`` may be the very dict inside ``raw``.
        extensions[STASH] = {"card": copy.deepcopy(raw), "absent_root": absent}
    return _validated(out, set())


def _pop_stash(data: dict[str, Any]) -> dict[str, Any]:
    extensions = data.get("extensions")
    stash = take(extensions, STASH)
    if stash and not extensions:
        if "extensions" in (stash.get("absent") or ()):
            data.pop("extensions")
        elif "replaced_extensions" in stash:
            data["extensions"] = stash["replaced_extensions"]
    return stash


def _restore(data: dict[str, Any], stash: dict[str, Any]) -> None:
    for name, value in (stash.get("data") or {}).items():
        data[name] = value
    entries = _entry_list(data)
    for index, saved in (stash.get("entries") or {}).items():
        try:
            entry = entries[int(index)]
        except (ValueError, IndexError):
            continue
        if "decorators" in saved and isinstance(entry.get("content"), str):
            entry["content"] = saved["decorators"] + entry["content"]


V1_LABEL = "v1"
"""What listings show as the spec of a TavernAI V1 card, which has no ``spec`` field."""


def as_displayed(card: Card) -> Card:
    """The card as every listing shows it (names, creator, tags, book): V1 upgraded first.

    A V1 card keeps its fields at the root, where ``card.data`` does not look,
    and a V1 file written by interop keeps the whole higher-version card in its
    stash. Everything that shows a card's name (``Document.title``/``book``,
    ``interop inspect``, catalog records, default avatars) goes through here.
    Other cards are returned as they are; a stash that does not validate leaves
    the card as read.
    """
    if spec_of(card) != "v1" or card.spec is not None or card.data.model_fields_set:
        return card
    try:
        return to_v3(card)
    except ValueError:  # pydantic's ValidationError: a damaged stash
        return card


def spec_label(card: Card) -> Any:
    """The card's ``spec`` as shown: the value it has, or ``"v1"`` for a V1 card (no ``spec`` at all)."""
    if card.spec is None and not card.data.model_fields_set:
        return V1_LABEL
    return card.spec


def imported_card(data: dict[str, Any]) -> Card:
    """A V3 card from an importer's ``data``: the fields V2/V3 require and ``data`` lacks are filled.

    What SillyTavern's importers of non-card formats do (``convertToV2`` fills
    every V2 field); the filled paths are remembered in ``Card.filled`` like
    an upgrade's, so a downgrade of the same card drops them again.
    """
    full = {**required_defaults(), **data}
    card = Card.model_validate({"spec": V3_SPEC, "spec_version": "3.0", "data": full})
    card.filled = {f"data.{name}" for name in full if name not in data}
    return card
