"""SillyTavern adapter: world info round trips, card flavour, conversions, golden files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from deepdiff import DeepDiff

from interop import api
from interop.cli import cli
from interop.document import Document
from interop.errors import InvalidCardError
from interop.formats import get_platform
from interop.formats import sillytavern as st
from interop.formats.sillytavern.fields import BY_NATIVE
from interop.formats.sillytavern.model import entry_ext
from interop.model import Card, Lorebook
from interop.model.stash import Stash
from tests.conftest import PROJECT_CORPUS, corpus_params, project_files, shared_files
from tests.validator import assert_identity, assert_via

SHARED_WORLDS = shared_files("st-worldinfo")
PROJECT_WORLDS = project_files("sillytavern")
PROJECT_WORLDS = [p for p in PROJECT_WORLDS if p.suffix == ".json"]
ALL_WORLDS = SHARED_WORLDS + PROJECT_WORLDS
ST_CORPUS = PROJECT_CORPUS / "sillytavern"
SNAPSHOTS = Path(__file__).parent / "snapshots" / "test_sillytavern"
ST_CARD_PNGS = [p for p in shared_files("cards-png") if p.name in {
    "st_default_Seraphina.png", "huyt_Professor_Gandoth.png", "stcontent_contest_Assistant_Sakana.png",
    "cf_Arleigh_the_Cheerful_Assassin.png", "cf_Aira_Sweet_Hydromancer_Friend.png"}]


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def strict_diff(a: Any, b: Any) -> DeepDiff:
    """DeepDiff that also tells true from 1 and 1 from 1.0 (type changes are reported by default)."""
    return DeepDiff(a, b, ignore_order=False)


# --- world info round trips ------------------------------------------------------------


@pytest.mark.parametrize("path", corpus_params(ALL_WORLDS, "SillyTavern world info"))
def test_world_roundtrip_is_identity(path: Path) -> None:
    doc = assert_identity("sillytavern-world", path)
    out = json.loads(api.write(doc, "sillytavern-world"))
    assert list(out["entries"]) == list(load(path)["entries"])  # uid key order kept


@pytest.mark.parametrize("path", corpus_params(ALL_WORLDS, "SillyTavern world info"))
def test_world_roundtrip_through_canonical_json(path: Path) -> None:
    """The canonical form alone (dumped, re-validated) carries everything needed."""
    original = load(path)
    book = st.lorebook_from_world(original)
    again = Lorebook.model_validate(json.loads(json.dumps(book.dump())))
    assert not strict_diff(original, st.world_from_lorebook(again))


@pytest.mark.parametrize("target", ["lorebook_v3", "ccv3", "ccv2", "sillytavern-card"])
@pytest.mark.parametrize("path", corpus_params(ALL_WORLDS, "SillyTavern world info"))
def test_world_survives_other_formats(path: Path, target: str) -> None:
    assert_via("sillytavern-world", target, path, exact=True)


def test_detection_world_vs_character_book() -> None:
    world = json.dumps({"entries": {"0": {"uid": 0, "key": ["a"], "content": "x"}}}).encode()
    book = json.dumps({"entries": [{"keys": ["a"], "content": "x", "insertion_order": 1}]}).encode()
    assert api.detect(world) == "sillytavern-world"
    assert api.detect(book) != "sillytavern-world"


def test_bad_world_raises_typed_errors() -> None:
    with pytest.raises(InvalidCardError) as err:
        api.read_bytes(b'{"entries": {"0": [1, 2]}}', format="sillytavern-world", filename="w.json")
    assert err.value.location == "entries.0" and err.value.file == "w.json"
    with pytest.raises(InvalidCardError):
        api.read_bytes(b'{"entries": []}', format="sillytavern-world")


# --- canonical storage --------------------------------------------------------------


def test_canonical_mapping_of_a_modern_entry() -> None:
    book = st.lorebook_from_world(load(ST_CORPUS / "modern_world.json"))
    tide = book.entries[1]
    assert tide.keys == ["Tidewarden", "/tide ?wardens?/i"] and tide.use_regex is None  # mixed keys: no use_regex
    assert tide.case_sensitive is True and tide.enabled is True and tide.insertion_order == 110
    assert tide.position == "after_char" and tide.id == 1
    ns = entry_ext(tide)
    assert (ns.insertion_position, ns.optional_logic, ns.case_sensitive) == (1, 1, None)
    keeper = book.entries[2]
    assert keeper.use_regex is True and keeper.keys == ["/keeper\\b/"]  # every key a regex: faithful
    rumor_b = entry_ext(book.entries[11])
    assert rumor_b.inclusion_groups == ["Rumors", "Secrets"] and rumor_b.group_text is None
    assert rumor_b.prioritize_inclusion is True and rumor_b.group_weight == 30 and rumor_b.group_scoring is False
    chapel = entry_ext(book.entries[12])
    assert chapel.delay_until_recursion is True and chapel.recursion_level == 2
    maren = entry_ext(book.entries[13])
    assert maren.character_filter is not None and maren.character_filter.mode == "include"
    assert maren.character_filter.values == ["Maren"] and maren.character_filter.tags == ["2f1c"]
    assert entry_ext(book.entries[8]).additional_matching_sources == [
        "persona_description", "character_personality", "character_note", "creators_notes"]
    assert book.entries[14].enabled is False


def test_legacy_and_odd_values_are_kept_exactly() -> None:
    legacy = st.lorebook_from_world(load(ST_CORPUS / "legacy_world.json"))
    assert "role" in entry_ext(legacy.entries[0]).model_fields_set and entry_ext(legacy.entries[0]).role is None
    assert entry_ext(legacy.entries[1]).unknown == {"title": "Miller (old editor title)"}
    assert legacy.entries[2].id is None and entry_ext(legacy.entries[2]).uid_key == "2"
    assert legacy.entries[3].id == 7 and entry_ext(legacy.entries[3]).uid_key == "5"
    odd_doc = api.read(ST_CORPUS / "odd_values_world.json")
    odd = entry_ext(odd_doc.lorebook.entries[0])
    assert odd.verbatim == {"disable": "false"} and odd.inclusion_groups == ["Light", "Fire"]
    assert odd.group_text == "Light, Fire" and len(odd.omit or []) == 4
    assert any("kept verbatim" in w for w in odd_doc.warnings)


def test_original_data_fills_book_and_entry_fields() -> None:
    book = st.lorebook_from_world(load(ST_CORPUS / "card_import_world.json"))
    assert (book.name, book.scan_depth, book.token_budget, book.recursive_scanning) == ("Vell Lore", 8, 700, True)
    assert (book.entries[0].name, book.entries[0].priority) == ("Vell", 5)
    assert book.entries[0].extensions["risuai"] == {"folder": "cities"}  # foreign keys at canonical level
    assert book.entries[2].name is None  # added in ST: no originalData entry


# --- conversions card book <-> world, without ST's lossy defaults ------------------------------


def test_card_book_to_world_uses_explicit_mappings() -> None:
    book = Lorebook.model_validate({
        "name": "Spec book", "scan_depth": 3,
        "entries": [
            {"keys": ["moon"], "content": "The moon is red.", "insertion_order": 5},
            {"keys": ["sun", "/solar/i"], "content": "Two suns.", "use_regex": True, "case_sensitive": True,
             "priority": 9, "name": "Suns", "id": 3, "enabled": False, "position": "after_char",
             "selective": True, "secondary_keys": ["day"]},
        ],
    })
    world = st.world_from_lorebook(book)
    moon, suns = world["entries"]["0"], world["entries"]["3"]
    assert moon["disable"] is False and moon["position"] == 0 and moon["selective"] is False  # not ST's defaults
    assert moon["order"] == 5 and moon["uid"] == 0 and moon["probability"] == 100 and moon["role"] == 0
    assert suns["key"] == ["/sun/", "/solar/i"] and suns["caseSensitive"] is True  # case-sensitive regex: no i
    assert suns["disable"] is True and suns["position"] == 1 and suns["selective"] is True
    assert world["originalData"]["entries"][1]["priority"] == 9 and world["originalData"]["scan_depth"] == 3
    again = st.lorebook_from_world(world)
    assert (again.entries[1].priority, again.entries[1].name, again.scan_depth) == (9, "Suns", 3)


def test_world_to_card_book_and_back_via_registry(tmp_path: Path) -> None:
    doc = api.read(ST_CORPUS / "modern_world.json")
    card = json.loads(api.write(doc, "ccv3"))
    assert card["data"]["character_book"]["entries"][3]["extensions"]["sillytavern"]["entry"]["optional_logic"] == 3
    extracted = api.read_bytes(json.dumps(card).encode())
    assert extracted.kind == "card"
    world = json.loads(api.write(extracted, "sillytavern-world"))
    assert not strict_diff(load(ST_CORPUS / "modern_world.json"), world)


# --- SillyTavern's card flavour -----------------------------------------------------------


TEMPLATE_FALLBACKS: dict[str, tuple[str, Any]] = {
    # ST field: (flat key, importer fallback), sillytavern.md 2.2 (late-2025)
    "excludeRecursion": ("exclude_recursion", False), "preventRecursion": ("prevent_recursion", False),
    "delayUntilRecursion": ("delay_until_recursion", False), "probability": ("probability", 100),
    "useProbability": ("useProbability", True), "depth": ("depth", 4), "selectiveLogic": ("selectiveLogic", 0),
    "outletName": ("outlet_name", ""), "group": ("group", ""), "groupOverride": ("group_override", False),
    "groupWeight": ("group_weight", 100), "scanDepth": ("scan_depth", None), "caseSensitive": ("case_sensitive", None),
    "matchWholeWords": ("match_whole_words", None), "useGroupScoring": ("use_group_scoring", None),
    "automationId": ("automation_id", ""), "role": ("role", 0), "vectorized": ("vectorized", False),
    "sticky": ("sticky", None), "cooldown": ("cooldown", None), "delay": ("delay", None),
    "matchPersonaDescription": ("match_persona_description", False),
    "matchCharacterDescription": ("match_character_description", False),
    "matchCharacterPersonality": ("match_character_personality", False),
    "matchCharacterDepthPrompt": ("match_character_depth_prompt", False),
    "matchScenario": ("match_scenario", False), "matchCreatorNotes": ("match_creator_notes", False),
    "triggers": ("triggers", []), "ignoreBudget": ("ignore_budget", False),
}


def st_import_oracle(book: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """An independent model of ST's ``convertCharacterBook`` (sillytavern.md 2.2): flat keys only,
    ``??`` fallbacks, ``||`` for comment/constant/selective, ``disable = !enabled``."""
    out: dict[str, dict[str, Any]] = {}
    for index, entry in enumerate(book["entries"]):
        ext = entry.get("extensions") or {}

        def pick(flat: str, fallback: Any, ext: dict[str, Any] = ext) -> Any:
            return fallback if ext.get(flat) is None else ext[flat]

        uid = entry.get("id", index)
        native = {
            "uid": uid, "key": entry.get("keys"), "keysecondary": entry.get("secondary_keys") or [],
            "comment": entry.get("comment") or "", "content": entry.get("content"),
            "constant": entry.get("constant") or False, "selective": entry.get("selective") or False,
            "order": entry.get("insertion_order"),
            "position": pick("position", 0 if entry.get("position") == "before_char" else 1),
            "disable": not entry.get("enabled"), "addMemo": bool(entry.get("comment")),
            "displayIndex": pick("display_index", index),
        }
        for field, (flat, fallback) in TEMPLATE_FALLBACKS.items():
            native[field] = pick(flat, fallback)
        out[str(uid)] = native
    return out


IGNORED_BY_ORACLE = {"addMemo", "extensions", "characterFilter"}  # stashed by us, rebuilt/dropped by ST


def _imported_form(book: Lorebook) -> Lorebook:
    """The same book without the world-file marker: written as ST's card-lore import fills it."""
    raw = book.dump()
    raw["extensions"]["sillytavern"]["lorebook"].pop("native_world", None)
    return Lorebook.model_validate(raw)


ORACLE_WORLDS = [p for p in ALL_WORLDS if p.name != "odd_values_world.json"]  # off-type values: JS truthiness


@pytest.mark.parametrize("path", corpus_params(ORACLE_WORLDS, "SillyTavern world info"))
def test_card_written_by_us_reads_back_through_flat_keys(path: Path) -> None:
    source = load(path)
    card = json.loads(api.write(api.read(path), "sillytavern-card"))
    imported = st_import_oracle(card["data"]["character_book"])
    expected = st.world_from_lorebook(_imported_form(st.lorebook_from_world(source)))["entries"]
    assert list(imported) == list(expected)
    for key, ours in expected.items():
        theirs = imported[key]
        for field in set(theirs) - IGNORED_BY_ORACLE:
            assert json.dumps(theirs[field]) == json.dumps(ours.get(field)), f"{path.name} {key}.{field}"
    # and every value the world file itself had (null means "take ST's fallback")
    for native in source["entries"].values():
        theirs = imported[str(native.get("uid", ""))] if "uid" in native else None
        if theirs is None:
            continue
        for field, value in native.items():
            if field in theirs and field not in IGNORED_BY_ORACLE and value is not None:
                assert json.dumps(theirs[field]) == json.dumps(value), f"{path.name} {field}"


@pytest.mark.parametrize("path", corpus_params(ST_CARD_PNGS, "SillyTavern PNG card"))
def test_real_st_cards_import_like_sillytavern(path: Path) -> None:
    doc = api.read(path)
    raw_book = doc.card.dump()["data"]["character_book"]
    ours = json.loads(api.write(doc, "sillytavern-world"))["entries"]
    theirs = st_import_oracle(raw_book)
    assert list(ours) == list(theirs)
    for card_entry, (key, native) in zip(raw_book["entries"], theirs.items(), strict=True):
        for field in set(native) - IGNORED_BY_ORACLE - _deliberate(card_entry):
            assert json.dumps(ours[key][field]) == json.dumps(native[field]), f"{key}.{field}"
        if "caseSensitive" in _deliberate(card_entry):
            assert ours[key]["caseSensitive"] is card_entry["case_sensitive"]


def _deliberate(card_entry: dict[str, Any]) -> set[str]:
    """Where we do not inherit ST's lossy import on purpose (mapping table notes)."""
    flat = card_entry.get("extensions") or {}
    out = set()
    if isinstance(card_entry.get("case_sensitive"), bool) and flat.get("case_sensitive") is None:
        out.add("caseSensitive")  # the spec field is mapped; ST ignores it
    if "enabled" not in card_entry:
        out.add("disable")  # missing enabled means enabled; ST disables the entry
    if "position" not in card_entry and flat.get("position") is None:
        out.add("position")  # missing position means before_char; ST uses after_char
    return out


def test_st_card_matches_its_world_file(shared_corpus: Path) -> None:
    """Gandoth's embedded book and the Mysteria world it was exported from agree field by field."""
    card = api.read(shared_corpus / "cards-png" / "huyt_Professor_Gandoth.png")
    world = load(shared_corpus / "st-worldinfo" / "huyt_Mysteria.json")
    book, conflicts = st.normalize_card_book(card.book)
    assert conflicts == []
    ours = st.world_from_lorebook(book)["entries"]
    for key, native in world["entries"].items():
        for field, value in native.items():
            if field != "addMemo":
                assert json.dumps(ours[key][field]) == json.dumps(value), f"{key}.{field}"


def test_flat_keys_and_stash_written_for_sillytavern() -> None:
    doc = api.read(ST_CORPUS / "modern_world.json")
    card = json.loads(api.write(doc, "sillytavern-card"))
    entry = card["data"]["character_book"]["entries"][13]
    assert set(st.flat_keys()) <= set(entry["extensions"])
    assert "selectiveLogic" in entry["extensions"] and "useProbability" in entry["extensions"]
    assert entry["extensions"]["sillytavern"]["entry"]["character_filter"]["values"] == ["Maren"]
    assert entry["extensions"]["sillytavern"]["entry"]["add_memo"] is True
    outlet = card["data"]["character_book"]["entries"][9]
    assert outlet["position"] == "after_char" and outlet["extensions"]["position"] == 7
    assert outlet["extensions"]["outlet_name"] == "TownMap"
    assert card["spec"] == "chara_card_v2" and card["avatar"] == "none" and card["name"] == "modern_world"
    assert card["data"]["character_book"]["extensions"] is not None  # ST's validator needs it


def test_normalize_reports_conflicts_and_keeps_the_flat_value() -> None:
    book = Lorebook.model_validate({"entries": [{
        "keys": ["a"], "content": "x", "position": "before_char", "case_sensitive": True, "name": "A",
        "extensions": {
            "position": 4, "depth": 2, "case_sensitive": False, "selectiveLogic": 2, "risuai": {"k": 1},
            "sillytavern": {"entry": {"insertion_position": 1, "depth": 2, "character_filter": {"mode": "exclude"},
                                      "card_fields": {"name": "B", "priority": 3}}},
        },
    }]})
    normalized, conflicts = st.normalize_card_book(book)
    text = "\n".join(st.conflict_text(book, c) for c in conflicts)
    assert "insertion_position is 1" in text and "case_sensitive is true" in text
    assert "position is 'before_char'" in text and "name is \"A\"" in text
    assert len(conflicts) == 4
    entry = normalized.entries[0]
    ns = entry_ext(entry)
    assert (ns.insertion_position, ns.depth, ns.optional_logic) == (4, 2, 2)
    assert ns.character_filter is not None and ns.character_filter.mode == "exclude"
    assert entry.priority == 3 and entry.name == "A" and entry.case_sensitive is False
    assert set(entry.extensions) == {"risuai", "sillytavern"}



def test_conflicts_are_records_with_canonical_paths_and_hazards_say_what_st_reads() -> None:
    book = Lorebook.model_validate({"entries": [{"keys": ["a"], "content": "x"}, {
        "keys": ["b"], "content": "y", "comment": "Two", "position": "before_char", "name": "A",
        "extensions": {"position": 4, "sillytavern": {"entry": {"depth": 5, "card_fields": {"name": "B"}}},
                       "depth": 2},
    }]})
    _, conflicts = st.normalize_card_book(book)
    assert [c.path for c in conflicts] == [
        ("entry", 1, "extensions", "sillytavern", "entry", "depth"), ("entry", 1, "position"), ("entry", 1, "name"),
    ]
    assert all(c.fate == "approximated" for c in conflicts)
    assert conflicts[0].detail == (
        "extensions.sillytavern.entry.depth is 5 but SillyTavern's flat key gives 2; the flat value is kept"
    )
    assert st.conflict_text(book, conflicts[1]) == (
        "entry 1 ('Two'): position is 'before_char' but SillyTavern's extensions.position is 4 (at_depth);"
        " SillyTavern uses the flat key"
    )
    hazards = get_platform("sillytavern").hazards
    assert hazards is not None
    assert [(h.path, h.detail) for h in hazards(book)] == [
        (c.path, f"SillyTavern reads its flat key: {c.detail}") for c in conflicts
    ]


def test_platform_offers_its_services_through_the_registry() -> None:
    platform = get_platform("sillytavern")
    assert platform.book_to_native is st.world_from_lorebook and platform.book_from_native is st.lorebook_from_world
    for name in ("card_book_from_lorebook", "conflict_text", "flat_keys", "lorebook_from_world",
                 "normalize_card_book", "position_names", "st_readable_book", "world_fields", "world_from_lorebook"):
        assert platform.service(name) is not None, name
    assert platform.services["position_names"]() == st.POSITION_NAMES
    assert [f.native for f in platform.services["world_fields"]()][:3] == ["uid", "key", "keysecondary"]

def test_normalize_card_restores_dropped_book_fields() -> None:
    doc = api.read(ST_CORPUS / "card_import_world.json")
    written = json.loads(api.write(doc, "sillytavern-card"))
    stash = written["data"]["extensions"]["sillytavern"]["character_book"]
    assert stash["scan_depth"] == 8 and stash["description"] == "Cities of the red desert"
    # SillyTavern's own re-export keeps data.extensions but rebuilds the book with name + entries only
    written["data"]["character_book"] = {"name": written["data"]["character_book"]["name"],
                                         "entries": written["data"]["character_book"]["entries"]}
    card, conflicts = st.normalize_card(Card.model_validate(written))
    assert conflicts == []
    book = card.data.character_book
    assert (book.scan_depth, book.token_budget, book.recursive_scanning) == (8, 700, True)
    assert "sillytavern" not in card.data.extensions


def test_ccv2_identity_is_untouched_by_flat_keys() -> None:
    doc = api.read(ST_CORPUS / "modern_world.json")
    card_bytes = api.write(doc, "sillytavern-card")
    again = api.write(api.read_bytes(card_bytes), "ccv2")
    assert not strict_diff(json.loads(card_bytes), json.loads(again))


# --- the stash: verbatim/omit, unknown, card_fields, character_book (interop.model.stash) ------


def _world_book(entry_ns: dict[str, Any], *, native_world: bool = True, **book: Any) -> Lorebook:
    """A one-entry book whose entry namespace is ``entry_ns`` (read from a world file or not)."""
    return Lorebook.model_validate({**book, "entries": [{
        "keys": ["k"], "content": "c", "id": 0, "extensions": {"sillytavern": {"entry": entry_ns}},
    }], "extensions": {"sillytavern": {"lorebook": {"native_world": native_world}}}})


def test_world_entry_stash_is_the_shared_stash() -> None:
    """``verbatim``/``omit`` are ``Stash`` keep/absent: restoring them on what the typed fields
    write gives the native entry back."""
    original = load(ST_CORPUS / "odd_values_world.json")
    book = st.lorebook_from_world(original)
    ns = book.entries[0].ext("sillytavern")["entry"]
    stash = Stash.from_json(ns, "verbatim", "omit")
    assert stash.keep == {"disable": "false"} and len(stash.absent) == 4
    assert stash.to_json("verbatim", "omit") == {k: ns[k] for k in ("verbatim", "omit")}
    bare = book.model_copy(deep=True)
    for name in ("verbatim", "omit"):
        del bare.entries[0].extensions["sillytavern"]["entry"][name]
    typed_only = st.world_from_lorebook(bare)["entries"]["0"]
    assert typed_only != original["entries"]["0"]
    stash.restore(typed_only)
    assert not strict_diff(typed_only, original["entries"]["0"])


def test_a_field_both_kept_and_omitted_stays_out_of_a_world_file() -> None:
    book = _world_book({"verbatim": {"zz": 1, "comment": "kept"}, "omit": ["zz"], "unknown": {"yy": 2}})
    native = st.world_from_lorebook(book)["entries"]["0"]
    assert "zz" not in native and native["comment"] == "kept" and native["yy"] == 2
    # a book not read from a world file is filled the way ST's importers fill it: omit does not apply
    filled = st.world_from_lorebook(_world_book({"verbatim": {"zz": 1}, "omit": ["zz"]}, native_world=False))
    assert filled["entries"]["0"]["zz"] == 1


def test_malformed_stash_records_restore_nothing() -> None:
    clean = st.world_from_lorebook(_world_book({}))
    for odd in ({"verbatim": "x", "omit": 3}, {"verbatim": [1], "omit": {"uid": 1}}, {"unknown": None}):
        assert st.world_from_lorebook(_world_book(odd)) == clean, odd
    card = Lorebook.model_validate({"entries": [{"keys": ["k"], "content": "c", "name": "A", "extensions": {
        "position": 0, "sillytavern": {"entry": {"card_fields": ["name"]}}}}]})
    normalized, conflicts = st.normalize_card_book(card)
    assert conflicts == [] and normalized.entries[0].name == "A"
    assert "card_fields" not in normalized.entries[0].ext("sillytavern")["entry"]


def test_unknown_world_keys_never_override_the_world() -> None:
    book = Lorebook.model_validate({"entries": [{"keys": ["k"], "content": "c"}], "extensions": {"sillytavern": {
        "lorebook": {"native_world": True, "unknown": {"entries": {}, "folders": [1]}}}}})
    world = st.world_from_lorebook(book)
    assert list(world) == ["entries", "folders"] and len(world["entries"]) == 1 and world["folders"] == [1]


def test_card_book_stash_replaces_a_foreign_namespace_value() -> None:
    """``data.extensions.sillytavern`` of another shape is not ours: the stash container replaces it."""
    book = {"description": "d", "scan_depth": 3, "entries": [{"keys": ["k"], "content": "c"}]}
    card = Card.model_validate({"spec": "chara_card_v3", "spec_version": "3.0", "data": {
        "name": "C", "character_book": book, "extensions": {"sillytavern": "theirs", "other": 1}}})
    written = st.sillytavern_card(card)
    assert written["data"]["extensions"]["sillytavern"] == {"character_book": {"description": "d", "scan_depth": 3}}
    back, conflicts = st.normalize_card(Card.model_validate(written))
    assert conflicts == [] and back.data.character_book.scan_depth == 3
    assert "sillytavern" not in back.data.extensions and back.data.extensions["other"] == 1


# --- SillyTavern card data ----------------------------------------------------------------


ST_CARD = {
    "name": "Maren", "description": "Keeper of the light.", "personality": "stern", "scenario": "Gull Rock",
    "first_mes": "Mind the steps.", "mes_example": "", "creatorcomment": "old note", "avatar": "none",
    "chat": "Maren - 2025-01-02@10h00m00s", "talkativeness": "0.5", "fav": True, "tags": ["sea"],
    "create_date": "2025-01-02T10:00:00.000Z", "spec": "chara_card_v2", "spec_version": "2.0",
    "data": {
        "name": "Maren", "description": "Keeper of the light.", "personality": "stern", "scenario": "Gull Rock",
        "first_mes": "Mind the steps.", "mes_example": "", "creator_notes": "new note", "system_prompt": "",
        "post_history_instructions": "", "tags": ["sea"], "creator": "us", "character_version": "1",
        "alternate_greetings": [], "group_only_greetings": [],
        "extensions": {
            "talkativeness": "0.5", "fav": True, "world": "Saltmere",
            "depth_prompt": {"prompt": "Maren never lies.", "depth": 2, "role": "assistant"},
            "regex_scripts": [{"id": "r1", "scriptName": "gulls", "findRegex": "/gull/g", "replaceString": "gull",
                               "trimStrings": [], "placement": [2], "disabled": False, "markdownOnly": True,
                               "promptOnly": False, "runOnEdit": True, "substituteRegex": 0,
                               "minDepth": None, "maxDepth": None}],
            "chub": {"full_path": "x/maren"},
        },
    },
}


def test_st_card_data_and_v1_mirror_survive() -> None:
    doc = api.read_bytes(json.dumps(ST_CARD).encode())
    out = json.loads(api.write(doc, "sillytavern-card"))
    assert out["data"]["extensions"] == ST_CARD["data"]["extensions"]
    for key in ("chat", "create_date", "avatar", "talkativeness", "fav", "tags", "name", "first_mes"):
        assert out[key] == ST_CARD[key], key
    assert out["creatorcomment"] == "new note"  # ST rewrites the mirror from data
    assert out["data"]["group_only_greetings"] == []


def test_missing_st_card_data_is_filled_like_sillytavern() -> None:
    card = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {"name": "Nova", "first_mes": "hi",
                                                                     "nickname": "N", "extensions": {}}}
    out = json.loads(api.write(api.read_bytes(json.dumps(card).encode()), "sillytavern-card"))
    ext = out["data"]["extensions"]
    assert (ext["talkativeness"], ext["fav"], ext["world"]) == (0.5, False, "")
    assert ext["depth_prompt"] == {"prompt": "", "depth": 4, "role": "system"}
    assert ext["interop"]["data"]["nickname"] == "N"  # V3-only data stashed, restorable
    assert out["spec"] == "chara_card_v2" and out["name"] == "Nova" and "chat" not in out


@pytest.mark.parametrize("path", corpus_params(ST_CARD_PNGS, "SillyTavern PNG card"))
def test_real_st_card_extensions_survive(path: Path) -> None:
    doc = api.read(path)
    out = json.loads(api.write(doc, "sillytavern-card"))
    source = doc.card.dump()
    for key, value in (source["data"].get("extensions") or {}).items():
        assert out["data"]["extensions"][key] == value, key
    for key in source:
        if key not in ("data", "spec", "spec_version"):
            assert key in out, key


# --- CLI ------------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["lorebook_v3", "ccv3", "sillytavern-card", "sillytavern-world"])
def test_cli_convert_world(tmp_path: Path, target: str) -> None:
    out = tmp_path / f"out.{target}.json"
    source = str(ST_CORPUS / "modern_world.json")
    result = CliRunner().invoke(cli, ["convert", source, "--to", target, "-o", str(out)])
    assert result.exit_code == 0, result.output
    back = json.loads(api.write(api.read(out), "sillytavern-world"))
    assert not strict_diff(load(ST_CORPUS / "modern_world.json"), back)


def test_cli_inspect_shows_st_facts() -> None:
    result = CliRunner().invoke(cli, ["inspect", "--json", str(ST_CORPUS / "modern_world.json")])
    assert result.exit_code == 0, result.output
    facts = json.loads(result.output)[0]["facts"]
    assert facts["positions"]["outlet"] == 1 and facts["outlets"] == {"TownMap": 1}
    assert facts["timed_effects"] == {"sticky": 1, "cooldown": 1, "delay": 1}


# --- golden files ----------------------------------------------------------------------


@pytest.mark.parametrize("path", corpus_params(PROJECT_WORLDS, "project SillyTavern samples"))
def test_golden(path: Path, snapshot: Any) -> None:
    snapshot.snapshot_dir = SNAPSHOTS
    doc = api.read(path)
    canonical = json.dumps(doc.lorebook.dump(), ensure_ascii=False, indent=2) + "\n"
    snapshot.assert_match(canonical, f"{path.stem}.canonical.json")
    card = api.write(doc, "sillytavern-card").decode()
    snapshot.assert_match(card, f"{path.stem}.sillytavern-card.json")
    facts = json.dumps(st.describe_world(load(path)), indent=2, sort_keys=True) + "\n"
    snapshot.assert_match(facts, f"{path.stem}.facts.json")


def test_project_samples_cover_every_enum_value() -> None:
    facts = st.describe_world(load(ST_CORPUS / "modern_world.json"))
    assert set(facts["positions"]) == set(st.POSITION_NAMES.values())
    assert set(facts["selective_logic"]) == set(st.LOGIC_NAMES.values())
    assert set(facts["depth_roles"]) == set(st.ROLE_NAMES.values())
    assert facts["regex_keys"] >= 2 and facts["character_filters"] == 2
    entries = load(ST_CORPUS / "modern_world.json")["entries"].values()
    triggers = {t for e in entries for t in e["triggers"]}
    assert triggers == {"normal", "continue", "impersonate", "swipe", "regenerate", "quiet"}
    for flag in ("matchPersonaDescription", "matchCharacterDescription", "matchCharacterPersonality",
                 "matchCharacterDepthPrompt", "matchScenario", "matchCreatorNotes"):
        assert any(e[flag] for e in entries), flag


def test_mapping_table_covers_the_template() -> None:
    """Every field of the late-2025 entry template (and ST's flat export keys) is in the table."""
    sample = load(ST_CORPUS / "modern_world.json")["entries"]["0"]
    assert set(sample) <= set(BY_NATIVE)
    assert len(st.flat_keys()) == 31


# --- property: any world entry comes back exactly --------------------------------------


def _world_entries() -> Any:
    from hypothesis import strategies as hs

    from tests.strategies import json_value, short

    fields = {f.native: json_value for f in st.FIELDS if f.native not in ("extensions", "characterFilter")}
    fields.update({
        "key": hs.lists(hs.one_of(short, hs.just("/a|b/i")), max_size=3),
        "position": hs.integers(0, 7), "role": hs.one_of(hs.none(), hs.integers(0, 2)),
        "delayUntilRecursion": hs.one_of(hs.booleans(), hs.integers(0, 3)),
        "group": hs.one_of(short, hs.just("a, b"), hs.just("a,b")),
        "disable": hs.one_of(hs.booleans(), json_value),
        "characterFilter": hs.one_of(json_value, hs.fixed_dictionaries(
            {}, optional={"isExclude": json_value, "names": json_value, "tags": json_value, "mode": json_value})),
        "extensions": hs.one_of(
            hs.dictionaries(hs.sampled_from(["position", "risuai", "sillytavern", "depth"]), json_value), json_value),
        "x_unknown": json_value,
    })
    entry = hs.fixed_dictionaries({}, optional=fields)
    return hs.lists(entry, max_size=4).map(lambda es: {"entries": {str(i * 3): e for i, e in enumerate(es)}})


def test_any_world_round_trips_exactly() -> None:
    from hypothesis import given, settings

    @settings(max_examples=50, deadline=None)
    @given(_world_entries())
    def check(world: dict[str, Any]) -> None:
        book = st.lorebook_from_world(world)
        again = Lorebook.model_validate(json.loads(json.dumps(book.dump())))
        assert not strict_diff(world, st.world_from_lorebook(again))

    check()


def test_write_reports_conflicts_as_document_warnings() -> None:
    card = {"spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": "C", "first_mes": "", "character_book": {"entries": [{
            "keys": ["a"], "content": "x", "enabled": True, "position": "before_char",
            "extensions": {"depth": 1, "sillytavern": {"entry": {"depth": 6}}}}]}}}
    doc = api.read_bytes(json.dumps(card).encode())
    world = json.loads(api.write(doc, "sillytavern-world"))
    assert world["entries"]["0"]["depth"] == 1  # SillyTavern reads the flat key
    assert any("depth is 6" in w for w in doc.warnings)


def test_any_card_book_reads_back_the_same_through_a_sillytavern_card() -> None:
    """Random canonical books: the ST card we write, read back and normalised, gives the same world."""
    from hypothesis import given, settings

    from tests.strategies import lorebook

    @settings(max_examples=60, deadline=None)
    @given(lorebook)
    def check(raw: dict[str, Any]) -> None:
        book = Lorebook.model_validate(raw)
        card = json.loads(api.write(Document(format="lorebook_v3", lorebook=book), "sillytavern-card"))
        back, _ = st.normalize_card(Card.model_validate(card))
        assert not strict_diff(st.world_from_lorebook(book)["entries"],
                               st.world_from_lorebook(back.data.character_book)["entries"])

    check()


@pytest.mark.parametrize("path", corpus_params(ALL_WORLDS + ST_CARD_PNGS, "SillyTavern worlds and cards"))
def test_sillytavern_card_output_is_read_and_written_back_identically(path: Path) -> None:
    out = api.write(api.read(path), "sillytavern-card")
    doc = assert_identity("sillytavern-card", out, detected="ccv2")
    assert doc.warnings == []


@pytest.mark.parametrize("path", corpus_params(ALL_WORLDS, "SillyTavern world info"))
def test_namespace_is_fully_typed(path: Path) -> None:
    """Every key we store under extensions.sillytavern is a declared, well-typed field."""
    from interop.formats.sillytavern.model import STEntryExt, STLorebookExt, book_ext

    book = st.lorebook_from_world(load(path))
    card = json.loads(api.write(api.read(path), "sillytavern-card"))
    stashes = [e["extensions"]["sillytavern"]["entry"] for e in card["data"]["character_book"]["entries"]]
    for ns in [e.ext("sillytavern")["entry"] for e in book.entries] + stashes:
        assert set(ns) <= set(STEntryExt.model_fields), set(ns) - set(STEntryExt.model_fields)
        typed = STEntryExt.model_validate(ns)
        issues = [i for i in typed.type_issues() if not i[0].startswith(("verbatim", "unknown"))]
        if path.name != "odd_values_world.json":
            assert issues == []
    assert set(book.ext("sillytavern")["lorebook"]) <= set(STLorebookExt.model_fields)
    assert book_ext(book).native_world is True


def test_card_books_with_any_flat_values_never_crash() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as hs

    from tests.strategies import json_value

    flat = hs.dictionaries(hs.sampled_from([*st.flat_keys(), "sillytavern"]), json_value, max_size=6)
    entry = hs.fixed_dictionaries({"keys": json_value, "content": json_value}, optional={
        "extensions": hs.one_of(flat, json_value), "position": json_value, "case_sensitive": json_value,
        "enabled": json_value, "id": json_value, "use_regex": json_value})

    @settings(max_examples=60, deadline=None)
    @given(hs.lists(entry, max_size=3))
    def check(entries: list[dict[str, Any]]) -> None:
        book = Lorebook.model_validate({"name": "b", "entries": entries})
        normalized, _ = st.normalize_card_book(book)
        world = st.world_from_lorebook(normalized)
        assert list(world["entries"]) == [str(e["uid"]) for e in world["entries"].values()]
        st.describe_world(world)
        card = json.loads(api.write(Document(format="lorebook_v3", lorebook=book), "sillytavern-card"))
        assert len(card["data"]["character_book"]["entries"]) == len(entries)

    check()


BOOK_SOURCES = ALL_WORLDS + shared_files("cards-json", "cards-png", "lorebook-v2", "charx", "risu", "novelai")


@pytest.mark.parametrize("path", corpus_params(BOOK_SOURCES, "world, card or lorebook"))
def test_world_entries_are_the_entries_of_world_from_lorebook(path: Path) -> None:
    """The app verdict's ``world_entries`` (no ``originalData``) = ``world_from_lorebook``'s entries,
    uids and object keys included (a world file's own ``uid_key`` too)."""
    from interop.formats.sillytavern.world import world_entries

    try:
        doc = api.read(path)
    except Exception as exc:  # a corpus file no reader takes is not this test's subject
        pytest.skip(f"{path.name}: {exc}")
    if doc.book is None:
        pytest.skip(f"{path.name} holds no lorebook")
    for from_card in (False, True):
        whole = st.world_from_lorebook(doc.book, from_card=from_card)["entries"]
        alone = world_entries(doc.book, from_card=from_card)
        assert list(alone) == list(whole)
        assert not strict_diff(whole, alone)
