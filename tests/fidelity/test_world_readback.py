"""Issue 19 ("no silent loss", "lost counts only what a user would miss"): a card book written as a
SillyTavern world file.

(b) Fields ST's world entries have no place for (Chub's ``entry_id``, ``scan_persona``, ... and book
    fields such as ``creator``) are kept in ``originalData``, which SillyTavern stores as uploaded and
    saves back whole (src/endpoints/worldinfo.js, router ``/import`` writes the uploaded text, ``/edit``
    writes ``request.body.data`` whole): stashed, and they come back on the way to a card.
(a) ST's card-flavour flat keys (``entry.extensions.position``, ``depth``, ...) are written as the world
    entry's native fields, as ST's own card import does (public/scripts/world-info.js
    ``convertCharacterBook`` reads ``entry.extensions.position`` etc.): translated.

The written world file is read here as plain JSON, independently of the report.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from interop import api
from interop.fidelity import fidelity_report
from interop.fidelity.items import FidelityItem
from interop.fidelity.world_readback import found_in_world
from tests.conftest import SHARED_CORPUS, corpus_params

CHUB_ENTRY = {"entry_id": "7", "scan_persona": False, "whole_words_only": True, "key_logic": "AND_ALL", "delay": 2}
CHUB_BOOK = {"id": 1234, "creator": {"_id": "abc", "displayName": "someone"}, "visibility": "public"}
FLAT = {"position": 4, "depth": 2, "probability": 55, "useProbability": True, "selectiveLogic": 3, "group": "g1"}
NATIVE_OF_FLAT = {
    "position": "position",
    "depth": "depth",
    "probability": "probability",
    "useProbability": "useProbability",
    "selectiveLogic": "selectiveLogic",
    "group": "group",
}


def _card() -> dict[str, Any]:
    """A V2 card as Chub exports one: ST's flat keys in entry ``extensions`` plus Chub's own fields."""
    entry = {
        "keys": ["tower"],
        "content": "The tower is old.",
        "enabled": True,
        "insertion_order": 10,
        "name": "Tower",
        "comment": "Tower",
        "extensions": dict(FLAT),
        **CHUB_ENTRY,
        "id": 0,
    }
    book = {"name": "Lore", "entries": [entry], **CHUB_BOOK}
    data = {
        "name": "Ada",
        "description": "d",
        "personality": "",
        "scenario": "",
        "first_mes": "hi",
        "mes_example": "",
        "character_book": book,
        "extensions": {},
    }
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": data}


def _world_of(tmp_path: Path) -> tuple[Any, bytes]:
    src = tmp_path / "ada.json"
    src.write_text(json.dumps(_card()))
    doc = api.read(src)
    return doc, api.write(doc, "sillytavern-world")


def test_chub_fields_are_stashed_in_original_data_and_come_back(tmp_path: Path) -> None:
    doc, out = _world_of(tmp_path)
    world = json.loads(out)
    original = world["originalData"]
    for key, value in CHUB_ENTRY.items():
        assert original["entries"][0][key] == value
    for key, value in CHUB_BOOK.items():
        assert original[key] == value
    report = fidelity_report(doc, "sillytavern-world", out)
    for key in CHUB_ENTRY:
        item = report.item(f"entry[0].{key}")
        assert item is not None and item.fate == "stashed", item
    for path in ("book.id", "book.creator._id", "book.creator.displayName", "book.visibility"):
        item = report.item(path)
        assert item is not None and item.fate == "stashed", item
    # the way back: world -> card gives the fields again (read as plain JSON)
    (tmp_path / "w.json").write_bytes(out)
    back = json.loads(api.write(api.read(tmp_path / "w.json"), "ccv3"))["data"]["character_book"]
    for key, value in CHUB_ENTRY.items():
        assert back["entries"][0][key] == value
    for key, value in CHUB_BOOK.items():
        assert back[key] == value


def test_flat_keys_are_translated_to_the_native_world_field(tmp_path: Path) -> None:
    doc, out = _world_of(tmp_path)
    native = next(iter(json.loads(out)["entries"].values()))
    report = fidelity_report(doc, "sillytavern-world", out)
    for flat, value in FLAT.items():
        name = NATIVE_OF_FLAT[flat]
        assert native[name] == value
        item = report.item(f"entry[0].extensions.{flat}")
        assert item is not None and item.fate == "translated", item
        assert f"`{name}`" in item.detail
    assert report.by_fate("lost") == [i for i in report.by_fate("lost") if not i.path.startswith("entry")]
    assert not [i for i in report.by_fate("lost") if i.path.startswith(("entry", "book"))]


def test_a_value_the_world_does_not_hold_stays_lost() -> None:
    """Only a strictly equal written value counts: a different one (or none) is still lost."""
    world = json.dumps({"entries": {"0": {"uid": 0, "position": 1}}}).encode()

    def items() -> list[FidelityItem]:
        return [
            FidelityItem("entry[0].extensions.position", "lost", "not in the sillytavern-world output"),
            FidelityItem("entry[0].extensions.depth", "lost", "not in the sillytavern-world output"),
        ]

    wrong = items()
    found_in_world(wrong, "sillytavern-world", world, [{"extensions": {"position": 4, "depth": 2}}])
    assert [i.fate for i in wrong] == ["lost", "lost"]
    other = items()
    found_in_world(other, "ccv3", world, [{"extensions": {"position": 1}}])
    assert [i.fate for i in other] == ["lost", "lost"]  # another target: untouched
    right = items()
    found_in_world(right, "sillytavern-world", world, [{"extensions": {"position": 1, "depth": 2}}])
    assert [i.fate for i in right] == ["translated", "lost"]
    assert "`position`" in right[0].detail


CHUB_PNG = [
    SHARED_CORPUS / "cards-png" / n
    for n in ("cf_Arleigh_the_Cheerful_Assassin.png", "stcontent_contest_Assistant_Sakana.png")
]


@pytest.mark.parametrize("path", corpus_params([p for p in CHUB_PNG if p.exists()], "shared-corpus Chub PNG card"))
def test_shared_corpus_card_book_to_world_loses_no_entry_or_book_field(path: Path) -> None:
    doc = api.read(path)
    out = api.write(doc, "sillytavern-world")
    world = json.loads(out)
    natives = list(world["entries"].values())
    report = fidelity_report(doc, "sillytavern-world", out)
    assert not [i for i in report.by_fate("lost") if i.path.startswith(("entry", "book"))]
    raw = doc.book.dump()  # type: ignore[union-attr]
    for number, entry in enumerate(raw["entries"]):
        for key, value in (entry.get("extensions") or {}).items():
            item = report.item(f"entry[{number}].extensions.{key}")
            if item is not None and item.fate == "translated" and value is not None:
                name = item.detail.split("`")[1]
                assert natives[number][name] == value, (number, key)
