"""``interop inspect`` facts of a SillyTavern world: positions, logic, groups, timed effects, outlets, ..."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from ...document import Document
from ...mappings import load as load_mapping
from ...model.keys import is_sillytavern_regex_key
from .fields import LOGIC_NAMES, POSITION_NAMES, ROLE_NAMES, is_number, split_groups
from .normalize import normalize_card_book
from .world import world_from_lorebook

TIMED_EFFECTS = ("sticky", "cooldown", "delay")
FLAGS = load_mapping("sillytavern").inspect_flags("entry")  # the table's ``inspect_flag`` column
# The positions whose entries carry a role / an outlet name (numbers from the mapping table).
AT_DEPTH, OUTLET = ({name: value for value, name in POSITION_NAMES.items()}[n] for n in ("at_depth", "outlet"))


def _enum_name(table: dict[Any, str], value: Any) -> str:
    return table.get(value, str(value)) if is_number(value) else json.dumps(value)


class _Facts:
    """Counters over the entries of one world."""

    def __init__(self) -> None:
        self.counters: dict[str, Counter[str]] = {
            name: Counter()
            for name in ("positions", "selective_logic", "depth_roles", "groups", "outlets", "timed_effects", "flags")
        }
        self.regex_keys = 0
        self.filters = 0

    def add(self, entry: dict[str, Any]) -> None:
        self._placement(entry)
        c = self.counters
        if entry.get("selective") and entry.get("keysecondary"):
            c["selective_logic"][_enum_name(LOGIC_NAMES, entry.get("selectiveLogic", 0))] += 1
        if isinstance(entry.get("group"), str):
            c["groups"].update(split_groups(entry["group"]))
        c["timed_effects"].update(n for n in TIMED_EFFECTS if is_number(entry.get(n)) and entry[n] > 0)
        c["flags"].update(n for n in FLAGS if entry.get(n) is True)
        if entry.get("delayUntilRecursion") not in (None, False, 0):
            c["flags"]["delayUntilRecursion"] += 1
        for keys in (entry.get("key"), entry.get("keysecondary")):
            self.regex_keys += sum(1 for k in keys if is_sillytavern_regex_key(k)) if isinstance(keys, list) else 0
        cf = entry.get("characterFilter")
        if isinstance(cf, dict) and (cf.get("names") or cf.get("tags")):
            self.filters += 1

    def _placement(self, entry: dict[str, Any]) -> None:
        position = entry.get("position")
        c = self.counters
        c["positions"][_enum_name(POSITION_NAMES, position) if "position" in entry else "absent"] += 1
        if position == AT_DEPTH:
            c["depth_roles"][_enum_name(ROLE_NAMES, entry.get("role"))] += 1
        if position == OUTLET:
            c["outlets"][str(entry.get("outletName", ""))] += 1


def describe_world(world: dict[str, Any]) -> dict[str, Any]:
    """ST facts of a native world-info object: positions, logic, groups, timed effects, outlets, ..."""
    facts = _Facts()
    for entry in world.get("entries", {}).values():
        if isinstance(entry, dict):
            facts.add(entry)
    out: dict[str, Any] = {"positions": dict(facts.counters["positions"])}
    for name in ("selective_logic", "depth_roles", "groups", "outlets", "timed_effects", "flags"):
        if facts.counters[name]:
            out[name] = dict(facts.counters[name])
    out["regex_keys"] = facts.regex_keys
    out["character_filters"] = facts.filters
    if "originalData" in world:
        out["original_data"] = True
    return out


def describe(doc: Document) -> dict[str, Any]:
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
