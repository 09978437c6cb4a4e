"""The one stash module every adapter uses (keep / absent / restore)."""

from __future__ import annotations

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
