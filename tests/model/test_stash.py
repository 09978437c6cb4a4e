"""The one stash module every adapter uses (keep / absent / restore)."""

from __future__ import annotations

import json

import pytest

from interop.jsonvalue import ABSENT
from interop.model.stash import Stash, open_container, take


def test_keep_and_absent_round_trip_through_json() -> None:
    stash = Stash()
    stash.keep["personality"] = "shy"
    stash.absent.append("name")
    assert stash.to_json() == {"keep": {"personality": "shy"}, "absent": ["name"]}
    assert stash.to_json("verbatim", "omit") == {"verbatim": {"personality": "shy"}, "omit": ["name"]}
    assert Stash.from_json(stash.to_json()) == stash
    assert Stash().to_json() == {} and not Stash()


def test_restore_drops_absent_fields_and_puts_kept_values_back() -> None:
    target = {"name": "filled", "personality": "", "extensions": {"x": 1}}
    Stash(keep={"personality": "shy", "extensions": {}}, absent=["name"]).restore(target, skip=["extensions"])
    assert target == {"personality": "shy", "extensions": {"x": 1}}


def test_a_damaged_stash_restores_nothing() -> None:
    assert Stash.from_json({"keep": [1], "absent": "name"}) == Stash()
    assert Stash.from_json(None) == Stash()


def test_box_records_what_it_replaces() -> None:
    stash = Stash()
    assert stash.box(ABSENT, "extensions") == {} and stash.absent == ["extensions"]
    assert stash.box("odd", "extensions") == {} and stash.keep == {"extensions": "odd"}
    mine = {"a": 1}
    assert stash.box(mine, "extensions") is mine


def test_open_container_and_take() -> None:
    holder: dict = {"extensions": 3}
    box, before = open_container(holder, "extensions")
    assert before == 3 and holder["extensions"] is box == {}
    box, before = open_container({}, "extensions")
    assert before is ABSENT
    holder = {"extensions": {"interop": {"v": 1}, "other": 1}}
    assert take(holder["extensions"], "interop") == {"v": 1}
    assert holder == {"extensions": {"other": 1}}
    assert take(holder["extensions"], "interop") == {} and take(None, "interop") == {}


def test_a_damaged_absent_list_restores_only_field_names() -> None:
    """A hand-edited record (``"omit": [[]]``) once raised TypeError (unhashable list) mid-conversion."""
    target = {"a": 1, "b": 2}
    Stash(absent=[[], {"x": 1}, 3, "b"]).restore(target)
    assert target == {"a": 1}


@pytest.mark.parametrize("record", [{"omit": [[]], "verbatim": {}}, {"added_fields": [[]]}])
def test_a_card_entry_with_a_damaged_record_converts(record: dict) -> None:
    """Hand-edited ``extensions.sillytavern.entry`` records once raised TypeError (unhashable list) mid-conversion."""
    from interop.api import read_bytes, write

    entry = {
        "keys": ["a"],
        "content": "c",
        "enabled": True,
        "insertion_order": 0,
        "use_regex": False,
        "extensions": {"sillytavern": {"entry": record}},
    }
    card = {
        "spec": "chara_card_v3",
        "spec_version": "3.0",
        "data": {"name": "X", "extensions": {}, "character_book": {"entries": [entry], "extensions": {}}},
    }
    doc = read_bytes(json.dumps(card).encode(), filename="damaged.json")
    for target in ("lorebook_v3", "ccv2", "sillytavern-world", "sillytavern-card"):
        assert write(doc, target)
