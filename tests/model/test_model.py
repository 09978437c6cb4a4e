"""The canonical model keeps what it reads: no added defaults, no dropped keys."""

from __future__ import annotations

import json

from deepdiff import DeepDiff
from hypothesis import given, settings

from interop.model import Card, Lorebook, LorebookEntry, as_bool, as_number, as_str_list
from tests.strategies import card_v3


def test_unknown_keys_nulls_and_order_survive_at_every_level() -> None:
    raw = {
        "spec": "chara_card_v3",
        "spec_version": "3.0",
        "root_extra": {"nested": [None, 1]},
        "data": {
            "name": "A",
            "nickname": None,
            "data_extra": 1,
            "character_book": {
                "book_extra": True,
                "entries": [
                    {"id": "b", "keys": ["x"], "entry_extra": None},
                    {"id": 2, "keys": ["y"], "case_sensitive": None},
                ],
            },
        },
    }
    card = Card.model_validate(raw)
    assert card.dump() == raw
    assert [e.id for e in card.data.character_book.entries] == ["b", 2]


def test_off_type_values_are_kept_verbatim_not_coerced() -> None:
    raw = {"keys": "a,b", "insertion_order": "10", "enabled": "true", "id": 1.5, "priority": True}
    entry = LorebookEntry.model_validate(raw)
    assert entry.dump() == raw
    assert entry.insertion_order == "10"
    issues = dict(entry.type_issues())
    assert set(issues) == {"keys", "insertion_order", "enabled", "id", "priority"}


def test_int_and_float_keep_their_json_type() -> None:
    entry = LorebookEntry.model_validate({"insertion_order": 5, "priority": 5.0})
    dumped = json.loads(json.dumps(entry.dump()))
    assert DeepDiff({"insertion_order": 5, "priority": 5.0}, dumped) == {}
    assert isinstance(entry.insertion_order, int)
    assert isinstance(entry.priority, float)


def test_absent_fields_are_not_written() -> None:
    assert Lorebook.model_validate({}).dump() == {}
    assert Card.model_validate({}).dump() == {}


def test_lenient_accessors_read_values_the_way_apps_do() -> None:
    assert as_str_list("a, b,,c") == ["a", "b", "c"]
    assert as_str_list(None) == []
    assert as_str_list(["a", 1]) == ["a", "1"]
    assert as_bool("true", False) is True
    assert as_bool(None, True) is True
    assert as_bool(0, True) is False
    assert as_number("12") == 12
    assert as_number("x", None) is None
    assert as_number(True) == 1


@settings(max_examples=60, deadline=None)
@given(card_v3)
def test_random_cards_dump_to_what_was_read(raw: dict) -> None:
    card = Card.model_validate(raw)
    assert DeepDiff(raw, card.dump()) == {}
