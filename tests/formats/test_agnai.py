"""Agnai: memory books (``agnai-book``), native characters (``agnai-character``), the V2 card Agnai
imports (``agnai-card``), the book-level stash, and keys Agnai would not match as written."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from deepdiff import DeepDiff
from hypothesis import HealthCheck, given, settings

from interop.api import read, read_bytes, write
from interop.cardkit.as_kind import as_card
from interop.cli import cli
from interop.document import Document
from interop.errors import InvalidCardError
from interop.formats.agnai.character import agnai_from_card, agnai_v2_card, card_from_agnai, render_persona
from interop.formats.agnai.memory import STASH, lorebook_from_memory_book, memory_book_from_lorebook
from interop.model import Card, Lorebook
from interop.model.keys import agnai_keyword
from interop.model.versions import to_v2
from interop.transforms.agnai_keys import agnai_entry_hazards, agnai_key_hazards
from tests.conftest import PROJECT_CORPUS, corpus_params, project_files, shared_files
from tests.strategies import card_v3
from tests.strategies import lorebook as lorebook_strategy
from tests.validator import assert_identity

AGNAI_FILES = [p for p in project_files("agnai") if p.suffix == ".json"]
BOOKS = [p for p in AGNAI_FILES if p.name.startswith("book_")]
CHARACTERS = [p for p in AGNAI_FILES if p.name.startswith("character_")]
CARD_JSON = [p for p in project_files("cards") if p.suffix == ".json"]


def parsed(data: bytes) -> Any:
    return json.loads(data)


def via_json(obj: Any) -> Any:
    """What a file on disk gives back (no shared references, JSON types only)."""
    return json.loads(json.dumps(obj, ensure_ascii=False))


def agnai_guest_import_export(native: dict[str, Any]) -> dict[str, Any]:
    """Agnai's standalone-book import (validateBookJson, native shape) then export, as agnai-novelai.md 1.3
    describes them: numbers coerced (NaN -> 0), enabled/name defaulted, entries without text or keyword
    list dropped, the object kept otherwise (guest mode), _id/userId removed on export."""
    book = copy.deepcopy(native)
    kept = []
    for entry in book["entries"]:
        for field in ("priority", "weight"):
            value = entry.get(field)
            entry[field] = value if isinstance(value, int | float) and not isinstance(value, bool) else 0
        entry.setdefault("enabled", True)
        entry.setdefault("name", "")
        if entry.get("entry") and isinstance(entry.get("keywords"), list):
            kept.append(entry)
    book["entries"] = kept
    book["_id"], book["userId"] = "6650f0c2a1", "local"
    return {k: v for k, v in book.items() if k not in ("_id", "userId")}


# --- agnai-book: corpus, golden files, identity ---------------------------------------------------


@pytest.mark.parametrize("path", corpus_params(BOOKS, "corpus/agnai book"))
def test_book_detected_and_written_back_identical(path: Path) -> None:
    assert_identity("agnai-book", path)


@pytest.mark.parametrize("path", corpus_params(BOOKS, "corpus/agnai book"))
def test_book_canonical_golden(path: Path, snapshot: Any) -> None:
    doc = read(path)
    snapshot.assert_match(json.dumps(doc.lorebook.dump(), ensure_ascii=False, indent=2) + "\n", f"{path.stem}.json")


def test_priority_and_weight_map_like_agnais_character_book_import() -> None:
    book = lorebook_from_memory_book(parsed((PROJECT_CORPUS / "agnai" / "book_editor.json").read_bytes()))
    inn = book.entries[0]
    assert (inn.priority, inn.insertion_order) == (80, 20)
    native = memory_book_from_lorebook(
        Lorebook.model_validate({"entries": [{"keys": ["a"], "content": "x", "priority": 7, "insertion_order": 3}]})
    )
    assert (native["entries"][0]["priority"], native["entries"][0]["weight"]) == (7, 3)


def test_sillytavern_import_passthrough_fields_are_kept_in_the_agnai_namespace() -> None:
    book = lorebook_from_memory_book(parsed((PROJECT_CORPUS / "agnai" / "book_from_sillytavern.json").read_bytes()))
    queen = book.entries[0]
    assert queen.secondary_keys == ["throne", "court"]
    assert queen.position == 1  # ST's integer position, kept as read
    assert queen.ext("agnai")["entry"] == {
        "excludeRecursion": False,
        "probability": 100,
        "useProbability": True,
        "selectiveLogic": 0,
    }
    assert book.scan_depth == 50 and book.token_budget == 500 and book.recursive_scanning is False


def test_chub_import_keeps_the_source_book_in_extensions() -> None:
    book = lorebook_from_memory_book(parsed((PROJECT_CORPUS / "agnai" / "book_from_chub.json").read_bytes()))
    assert book.extensions["is_creation"] is False and book.extensions["entries"] == {}
    assert [e.id for e in book.entries] == [0, 1, 2]


def test_agnai_only_book_keys_survive() -> None:
    native = {"_id": "abc", "kind": "memory", "name": "N", "userId": "u1", "entries": [], "future": {"x": 1}}
    book = lorebook_from_memory_book(native)
    assert book.ext("agnai")["book"] == {"_id": "abc", "userId": "u1", "future": {"x": 1}}
    assert memory_book_from_lorebook(book, fill_required=False) == native


def test_native_extensions_with_an_agnai_key_and_null_extensions_round_trip() -> None:
    for native in (
        {"kind": "memory", "name": "N", "entries": [], "extensions": {"agnai": {"theirs": 1}}, "_id": "x"},
        {"kind": "memory", "name": "N", "entries": [], "extensions": None, "_id": "x"},
        {"name": "no kind", "entries": [{"keywords": ["k"], "entry": "t"}]},
    ):
        back = memory_book_from_lorebook(lorebook_from_memory_book(native), fill_required=False)
        assert DeepDiff(native, back) == {}


def test_bad_books_raise_typed_errors_with_a_location() -> None:
    with pytest.raises(InvalidCardError) as err:
        lorebook_from_memory_book({"kind": "memory", "entries": {"0": {}}})
    assert err.value.location == "entries"
    with pytest.raises(InvalidCardError) as err:
        read_bytes(b'{"kind": "memory", "name": "x", "entries": [{"entry": "a"}, 3]}', filename="b.json")
    assert err.value.location == "entries[1]" and err.value.file == "b.json"


# --- the stash: other platforms -> Agnai -> back ---------------------------------------------------


def assert_agnai_round_trip(book: Lorebook, *, through_agnai: bool = True) -> dict[str, Any]:
    native = via_json(memory_book_from_lorebook(book))
    if through_agnai:
        native = agnai_guest_import_export(native)
    back = lorebook_from_memory_book(native)
    assert DeepDiff(book.dump(), back.dump()) == {}
    return native


def test_entry_data_agnai_drops_goes_to_the_book_stash_keyed_by_id() -> None:
    book = Lorebook.model_validate(
        {
            "name": "W",
            "entries": [
                {
                    "id": 7,
                    "keys": ["a"],
                    "content": "x",
                    "case_sensitive": True,
                    "use_regex": False,
                    "weird": [1],
                    "extensions": {"sillytavern": {"entry": {"depth": 4}}},
                    "insertion_order": 10,
                },
                {"keys": ["b"], "content": "y"},
            ],
        }
    )
    native = assert_agnai_round_trip(book)
    stash = native["extensions"][STASH]
    assert stash["entries"]["7"]["keep"] == {
        "case_sensitive": True,
        "use_regex": False,
        "weird": [1],
        "extensions": {"sillytavern": {"entry": {"depth": 4}}},
    }
    assert stash["entries"]["#1"]["absent"] == ["name", "priority", "insertion_order", "enabled"]
    assert native["entries"][0] == {
        "name": "",
        "entry": "x",
        "keywords": ["a"],
        "priority": 100,
        "weight": 10,
        "enabled": True,
        "id": 7,
    }
    assert "extensions" in stash["book"]["absent"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lorebook_strategy)
def test_any_lorebook_survives_agnai(raw: dict[str, Any]) -> None:
    assert_agnai_round_trip(Lorebook.model_validate(raw), through_agnai=False)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(card_v3)
def test_any_v3_card_survives_agnai_character(raw: dict[str, Any]) -> None:
    card = Card.model_validate(raw)
    back = card_from_agnai(via_json(agnai_from_card(card)))
    assert DeepDiff(card.dump(), back.dump()) == {}


def test_stash_follows_ids_when_agnai_reorders_entries() -> None:
    book = Lorebook.model_validate(
        {
            "entries": [
                {"id": 1, "keys": ["a"], "content": "A", "case_sensitive": True},
                {"id": 2, "keys": ["b"], "content": "B", "extensions": {"x": 1}},
            ]
        }
    )
    native = via_json(memory_book_from_lorebook(book))
    native["entries"].reverse()
    back = lorebook_from_memory_book(native)
    assert back.entries[0].id == 2 and back.entries[0].extensions == {"x": 1}
    assert back.entries[1].case_sensitive is True


def test_off_type_values_are_made_usable_for_agnai_and_restored() -> None:
    book = Lorebook.model_validate({"entries": [{"keys": "a, b", "content": 5, "enabled": "yes"}]})
    native = assert_agnai_round_trip(book)
    assert native["entries"][0]["keywords"] == ["a", "b"] and native["entries"][0]["entry"] == "5"


# only the files that hold a lorebook (listed at collection, not skipped)
@pytest.mark.parametrize("path", corpus_params([p for p in CARD_JSON if read(p).book is not None], "corpus/cards"))
def test_spec_lorebooks_to_agnai_and_back(path: Path) -> None:
    doc = read(path)
    assert doc.book is not None
    assert_agnai_round_trip(doc.book)


# only the files that read as a world (listed at collection, not skipped)
ST_WORLDS = [
    p
    for p in shared_files("st-worldinfo") + [p for p in project_files("sillytavern") if p.suffix == ".json"]
    if read(p).format == "sillytavern-world"
]


@pytest.mark.parametrize("path", corpus_params(ST_WORLDS, "SillyTavern world"))
def test_sillytavern_world_to_agnai_and_back_is_identical(path: Path) -> None:
    doc = read(path)
    assert doc.format == "sillytavern-world"
    native = via_json(memory_book_from_lorebook(doc.lorebook, default_name=path.stem))
    agnai_file = json.dumps(agnai_guest_import_export(native)).encode()
    back = read_bytes(agnai_file, filename="world.json")
    assert back.format == "agnai-book"
    assert DeepDiff(doc.lorebook.dump(), back.lorebook.dump()) == {}
    assert DeepDiff(parsed(write(doc, "sillytavern-world")), parsed(write(back, "sillytavern-world"))) == {}


RISU_BOOKS = shared_files("risu")


@pytest.mark.parametrize("path", corpus_params(RISU_BOOKS, "Risu lorebook"))
def test_risu_lorebook_to_agnai_and_back(path: Path) -> None:
    doc = read(path)
    assert doc.book is not None
    assert_agnai_round_trip(doc.book)


NOVELAI = shared_files("novelai") + [p for p in project_files("novelai") if p.suffix != ".py"]


@pytest.mark.parametrize("path", corpus_params(NOVELAI, "NovelAI"))
def test_novelai_lorebook_to_agnai_and_back(path: Path) -> None:
    doc = read(path)
    native = assert_agnai_round_trip(doc.book)
    back = Document(format="agnai-book", lorebook=lorebook_from_memory_book(native))
    assert DeepDiff(parsed(write(doc, "novelai-lorebook")), parsed(write(back, "novelai-lorebook"))) == {}


# --- keys Agnai would mangle: reported, never changed -----------------------------------------------


def test_regex_wildcard_and_dotted_keys_are_reported_not_changed() -> None:
    doc = read(PROJECT_CORPUS / "novelai" / "veyra_v6.lorebook")
    hazards = agnai_key_hazards(doc.book)
    by_key = {h.key: h for h in hazards}
    assert by_key["/\\bcanal[- ]city\\b/i"].fate == "lost"
    assert by_key["/\\bcanal[- ]city\\b/i"].path == "entries[0].keys[1]"
    assert "wildcards" in by_key["lamplighter*"].reason and by_key["lamplighter*"].fate == "approximated"
    assert "'.'" in by_key["Mr. Oss"].reason and "'Mr Oss'" in by_key["Mr. Oss"].reason
    assert "word boundaries" in by_key["塩文字"].reason
    assert "Veyra" not in by_key and "council" not in by_key
    native = memory_book_from_lorebook(doc.book)
    written = [k for e in native["entries"] for k in e["keywords"]]
    assert "/\\bcanal[- ]city\\b/i" in written and "lamplighter*" in written and "Mr. Oss" in written


def test_hazards_of_st_regex_underscore_and_case_sensitive_entries() -> None:
    book = Lorebook.model_validate(
        {
            "entries": [
                {"keys": ["R2_D2", "plain"], "content": "x", "case_sensitive": True},
                {"keys": ["foo.*bar"], "content": "y", "use_regex": True},
                {"keys": ["..."], "content": ""},
            ]
        }
    )
    found = {(h.path, h.reason.split(":")[0].split(" (")[0]) for h in agnai_key_hazards(book)}
    assert ("entries[0].keys[0]", "Agnai deletes '_' from keywords") in found
    assert ("entries[0].keys[1]", "case-sensitive entry") in found
    assert ("entries[1].keys[0]", "regex key") in found
    assert (
        "entries[2].keys[0]",
        "keyword is empty after Agnai deletes its metacharacters; it can never match as intended",
    ) in found
    assert agnai_keyword("  Mr. (Smith) ") == "Mr Smith"
    entry_hazards = agnai_entry_hazards(book)
    assert [(h.path, h.fate) for h in entry_hazards] == [("entries[2].content", "lost")]


def test_fidelity_report_marks_mangled_keys() -> None:
    from interop.fidelity import fidelity_report

    doc = read(PROJECT_CORPUS / "novelai" / "veyra_v6.lorebook")
    report = fidelity_report(doc, "agnai-book")
    assert report.item("entry[0].keys").fate == "lost"  # a regex key
    assert report.item("entry[3].keys").fate == "approximated"  # 'lamplighter*', 'Mr. Oss'
    assert "Mr. Oss" in report.item("entry[3].keys").detail
    assert report.item("entry[2].keys").fate == "kept"  # no keys at all: nothing mangled


# --- characters ----------------------------------------------------------------------------------


@pytest.mark.parametrize("path", corpus_params(CHARACTERS, "corpus/agnai character"))
def test_character_detected_and_written_back_identical(path: Path) -> None:
    assert_identity("agnai-character", path)


@pytest.mark.parametrize("path", corpus_params(CHARACTERS, "corpus/agnai character"))
def test_character_canonical_golden(path: Path, snapshot: Any) -> None:
    doc = read(path)
    snapshot.assert_match(json.dumps(doc.card.dump(), ensure_ascii=False, indent=2) + "\n", f"{path.stem}.json")


def test_character_fields_land_where_agnais_v2_export_puts_them() -> None:
    card = read(PROJECT_CORPUS / "agnai" / "character_wpp.json").card
    data = card.data
    assert data.first_mes.startswith("*The deck lurches") and data.creator_notes.startswith("A weary")
    assert data.description.startswith('[character("Captain Mirela Voss") {\nspecies("human")')
    assert data.extensions["depth_prompt"] == {
        "depth": 4,
        "prompt": "[{{char}} hides that the Kestrel is out of fuel.]",
    }
    assert data.extensions["agnai"]["voice"]["service"] == "webspeechsynthesis"
    assert data.character_book.ext("agnai")["book"]["_id"] == "__bundled__characterbook__"
    assert data.character_book.entries[1].secondary_keys == ["storm"]
    written = write(read(PROJECT_CORPUS / "agnai" / "character_wpp.json"), "ccv3")
    assert parsed(written)["data"]["personality"] == ""  # a complete V3 card


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("wpp", '[character("Ann") {\nmind("kind" + "shy")\nlikes("tea")\n}]'),
        ("sbf", '[ character: "Ann"; mind: "kind", "shy"; likes: "tea" ]'),
        ("boostyle", "Ann + kind + shy + tea"),
        ("attributes", "mind: kind, shy\nlikes: tea"),
    ],
)
def test_persona_rendering(kind: str, expected: str) -> None:
    persona = {"kind": kind, "attributes": {"mind": ["kind", "shy"], "likes": ["tea"]}}
    assert render_persona("Ann", persona) == expected
    assert render_persona("Ann", {"kind": "text", "attributes": {"text": ["Plain."]}}) == "Plain."


CARDS = CARD_JSON + shared_files("cards-json")


def _v2_or_v3_card(path: Path) -> bool:
    doc = read(path)
    return doc.kind == "card" and doc.card.spec in ("chara_card_v2", "chara_card_v3")


@pytest.mark.parametrize("path", corpus_params([p for p in CARDS if _v2_or_v3_card(p)], "V2/V3 card JSON"))
def test_cards_to_agnai_character_and_back(path: Path) -> None:
    doc = read(path)
    assert _v2_or_v3_card(path)
    native = via_json(agnai_from_card(doc.card))
    assert native["kind"] == "character" and "persona" in native and "greeting" in native
    back = card_from_agnai(native)
    assert DeepDiff(doc.card.dump(), back.dump()) == {}


def test_edited_description_becomes_the_persona_and_the_old_persona_stays_restorable() -> None:
    card = read(PROJECT_CORPUS / "agnai" / "character_wpp.json").card
    wpp = copy.deepcopy(card.data.extensions["agnai"]["persona"])
    card.data.description = "Mirela, rewritten by hand."
    native = via_json(agnai_from_card(card, fill_required=False))
    assert native["persona"] == {"kind": "text", "attributes": {"text": ["Mirela, rewritten by hand."]}}
    back = card_from_agnai(native)
    assert back.data.description == "Mirela, rewritten by hand."
    assert back.data.extensions["agnai"]["persona"] == wpp


def test_v1_card_is_upgraded_before_becoming_an_agnai_character() -> None:
    doc = read(PROJECT_CORPUS / "cards" / "old_tom_v1.json")
    native = parsed(write(doc, "agnai-character"))
    raw = parsed((PROJECT_CORPUS / "cards" / "old_tom_v1.json").read_bytes())
    assert native["name"] == raw["name"] and native["greeting"] == raw["first_mes"]
    assert native["sampleChat"] == raw["mes_example"] and native["scenario"] == raw["scenario"]
    persona_text = "\n".join(t for t in (raw["description"], raw["personality"]) if t)
    assert native["persona"]["attributes"]["text"] == [persona_text]


def test_agnai_card_is_the_v2_card_agnai_imports() -> None:
    doc = read(PROJECT_CORPUS / "agnai" / "character_wpp.json")
    out = parsed(write(doc, "agnai-card"))
    assert out["spec"] == "chara_card_v2" and out["spec_version"] == "2.0"
    data = out["data"]
    assert data["personality"] == ""
    # Agnai takes the persona from extensions.agnai only when it renders to exactly this description.
    assert data["description"] == render_persona(data["name"], data["extensions"]["agnai"]["persona"])
    assert data["extensions"]["depth_prompt"]["depth"] == 4
    assert STASH not in data["extensions"]  # persona text matches: nothing to stash at card level
    assert data["character_book"]["entries"][0]["insertion_order"] == 100
    assert all(e["extensions"] == {} for e in data["character_book"]["entries"])


REQUIRED_ADDED = (
    r"root\['data'\]\['(group_only_greetings|extensions)'\]"
    r"|root\['data'\]\['character_book'\]\['entries'\]\[\d+\]\['(enabled|insertion_order|use_regex|extensions)'\]"
)


@pytest.mark.parametrize("path", corpus_params(CARD_JSON + CHARACTERS + shared_files("cards-json"), "cards"))
def test_agnai_card_files_are_read_back_and_rewritten_identically(path: Path) -> None:
    doc = read(path)
    out = write(doc, "agnai-card")
    back = read_bytes(out, filename="card.json")
    if back.format != "agnai-card":
        assert back.format == "ccv2"  # nothing needed a stash: a plain V2 card
        return
    assert_identity("agnai-card", out, filename="card.json")
    source = doc.card if doc.card is not None else as_card(doc)
    diff = DeepDiff(to_v2(source).dump(), back.card.dump())
    # The only change: spec-required fields the source lacked (card_for_target.card_for; the report's ``added``).
    assert set(diff) <= {"dictionary_item_added"}, diff
    for path in diff.get("dictionary_item_added", []):
        assert re.fullmatch(REQUIRED_ADDED, path), path


def test_agnai_card_from_a_st_card_keeps_personality_restorable() -> None:
    card = read(PROJECT_CORPUS / "cards" / "ilse_v2_st_mirror.json")
    out = agnai_v2_card(card.card)
    data = out["data"]
    original = card.card.data
    assert data["personality"] == ""
    assert data["description"] == "\n".join(t for t in (original.description, original.personality) if t)
    assert data["extensions"][STASH]["card"]["keep"]["personality"] == original.personality
    if original.character_book is not None:
        for entry in data["character_book"]["entries"]:
            assert entry["extensions"] == {}  # everything Agnai drops is in the book stash


# --- CLI ---------------------------------------------------------------------------------------------


def test_cli_convert_and_inspect(tmp_path: Path) -> None:
    runner = CliRunner()
    source = PROJECT_CORPUS / "agnai" / "book_from_sillytavern.json"
    out = tmp_path / "book.lorebook_v3.json"
    result = runner.invoke(cli, ["convert", str(source), "--to", "lorebook_v3", "-o", str(out)])
    assert result.exit_code == 0, result.output
    back = tmp_path / "back.json"
    result = runner.invoke(cli, ["convert", str(out), "--to", "agnai-book", "-o", str(back)])
    assert result.exit_code == 0, result.output
    came_back = parsed(back.read_bytes())
    # lorebook_v3 added what CCv3 requires and SillyTavern's flat keys (its exporter's, see
    # tests/st_exporter.py); the Agnai file keeps them in its interop stash for the way back.
    stash = came_back.pop("extensions")["interop_agnai"]["entries"]
    assert {k for e in stash.values() for k in e["keep"]} == {"use_regex", "extensions"}
    assert DeepDiff(parsed(source.read_bytes()), came_back) == {}
    character = tmp_path / "char.json"
    result = runner.invoke(
        cli,
        ["convert", str(PROJECT_CORPUS / "cards" / "ilse_v3.json"), "--to", "agnai-character", "-o", str(character)],
    )
    assert result.exit_code == 0, result.output
    assert parsed(character.read_bytes())["kind"] == "character"
    result = runner.invoke(cli, ["inspect", "--json", str(source)])
    assert result.exit_code == 0, result.output
    facts = json.loads(result.output)[0]["facts"]
    assert facts["key_hazards"] >= 1 and facts["weights"] == [0]


def test_key_conflicts_are_the_per_entry_records_of_the_key_hazards() -> None:
    entries = [{"keys": ["plain"], "content": "a"}, {"keys": ["/dr(a|e)gon/i", "a.b", "x*", "é"], "content": "b"}]
    book = Lorebook.model_validate({"entries": entries})
    from interop.model.conflict import Conflict
    from interop.platform.registry import get_platform

    conflicts = get_platform("agnai").hazards(book)
    assert [c.path for c in conflicts] == [("entry", 1, "keys")]
    assert isinstance(conflicts[0], Conflict) and conflicts[0].fate == "lost"
    assert conflicts[0].detail.startswith("'/dr(a|e)gon/i': regex key")
    assert conflicts[0].detail.endswith("; and 1 more")
