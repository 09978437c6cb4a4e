"""RisuAI formats: lorebook export, .risum modules, Risu CHARX, Risu character JSON, decorators across the gap."""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from deepdiff import DeepDiff, extract
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hst

import interop.formats.risu as risu_package
import interop.transforms as transforms_package
from interop.api import detect_all, read, read_bytes, write
from interop.cardkit.card_dates import unix_seconds
from interop.cli import cli
from interop.containers.charx import write_charx
from interop.containers.png import text_chunks
from interop.containers.risum import read_risum, write_risum
from interop.docs.platforms import render_platform_doc
from interop.errors import InteropError, InvalidCardError
from interop.formats import platform_packages
from interop.formats.risu import lorebook_from_risu_entries, risu_entries_from_lorebook
from interop.formats.risu.lorebook import export_object
from interop.formats.risu.module import module_from_book
from interop.mappings import load
from interop.model import Lorebook, LorebookEntry
from interop.model.stash import Stash
from interop.model.versions import to_v3
from interop.platform.registry import get_format
from interop.validation import CARD_REQUIRED
from tests import strategies
from tests.conftest import PROJECT_CORPUS, corpus_params, project_files, shared_files
from tests.validator import assert_identity, assert_via

SNAPSHOTS = Path(__file__).parent / "snapshots" / "test_risu"
SAMPLES = PROJECT_CORPUS / "risu"
LOREBOOK = SAMPLES / "lantern_harbor_lorebook.json"
MODULE = SAMPLES / "lantern_harbor_module.risum"
CHARX = SAMPLES / "lantern_harbor_card.charx"
CHARACTER = SAMPLES / "lantern_harbor_character.json"
EXPORTS = [p for p in shared_files("risu") + project_files("risu") if p.suffix == ".json" and "character" not in p.name]


def _json(data: bytes) -> Any:
    return json.loads(data)


def _members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


# --- lorebook export -----------------------------------------------------------------


@pytest.mark.parametrize("path", corpus_params(EXPORTS, "Risu lorebook export"))
def test_lorebook_export_round_trip_is_deep_equal(path: Path) -> None:
    assert_identity("risu-lorebook", path)
    # The plain functions too, entry list to entry list.
    entries = _json(path.read_bytes())["data"]
    assert not DeepDiff(entries, risu_entries_from_lorebook(lorebook_from_risu_entries(entries)))


@pytest.mark.parametrize("path", corpus_params(EXPORTS, "Risu lorebook export"))
def test_folders_are_a_hierarchy_not_entries(path: Path) -> None:
    raw = _json(path.read_bytes())["data"]
    book = read(path).lorebook
    assert book is not None
    folder_rows = [e for e in raw if e.get("mode") == "folder"]
    assert len(book.entries) == len(raw) - len(folder_rows)
    assert all(not any(k.startswith("\uf000") for k in e.keys or []) for e in book.entries)
    folders = book.ext("risuai").get("folders", [])
    assert [f["name"] for f in folders] == [e["comment"] for e in folder_rows]
    ids = {f["id"] for f in folders}
    members = [e.ext("risuai")["folder"] for e in book.entries if "folder" in e.ext("risuai")]
    assert len(members) == sum(1 for e in raw if e.get("mode") != "folder" and "folder" in e)
    assert set(members) <= ids


def test_golden_canonical_view_of_the_sample(snapshot: Any) -> None:
    snapshot.snapshot_dir = SNAPSHOTS
    doc = read(LOREBOOK)
    assert doc.lorebook is not None
    snapshot.assert_match(
        json.dumps(doc.lorebook.dump(), ensure_ascii=False, indent=2) + "\n", "lantern_harbor_lorebook.canonical.json"
    )
    facts = json.dumps(read(LOREBOOK).format and _describe(doc), ensure_ascii=False, indent=2) + "\n"
    snapshot.assert_match(facts, "lantern_harbor_lorebook.facts.json")


def _describe(doc: Any) -> dict[str, Any]:

    describe = get_format(doc.format).describe
    assert describe is not None
    return describe(doc)


def _by_comment(book: Lorebook, comment: str) -> LorebookEntry:
    return next(e for e in book.entries if e.comment == comment)


def test_sample_features_in_the_canonical_model() -> None:
    book = read(LOREBOOK).lorebook
    assert book is not None
    folders = {f["name"]: f for f in book.ext("risuai")["folders"]}
    assert folders["Docks"]["parent"] == folders["Places"]["id"]  # nested folder
    assert [f["position"] for f in folders.values()] == [0, 1, 4]
    modes = {e.comment: e.ext("risuai").get("mode") for e in book.entries}
    assert {"normal", "constant", "multiple", "child"} <= set(modes.values())
    # Child entry shares its parent's id.
    mira = [e for e in book.entries if e.comment == "Mira"]
    assert [e.ext("risuai")["mode"] for e in mira] == ["normal", "child"] and mira[0].id == mira[1].id
    # Irregular comma spacing: clean keys, exact text remembered.
    harbor = _by_comment(book, "Lantern Harbor")
    assert harbor.keys == ["Lantern Harbor", "harbor", "the bay"]
    assert harbor.ext("risuai")["text"]["key"] == "Lantern Harbor, harbor,the bay"
    # secondkey with selective=false: kept, not activated.
    bell = _by_comment(book, "Tide Bell (secondkey kept, selective off)")
    assert bell.secondary_keys == ["storm", "squall"] and bell.selective is False
    # Regex keys: Risu splits them on commas too.
    smugglers = _by_comment(book, "Smugglers (regex keys)")
    assert smugglers.use_regex is True and smugglers.keys == ["/smuggl(er|ing)s?/i", "/contraband/gi"]
    # extentions -> extensions, risu_case_sensitive -> case_sensitive.
    dock = _by_comment(book, "Dry Dock")
    assert dock.case_sensitive is False and dock.extensions["editor_color"] == "#3a6ea5"
    # Unknown fields and legacy ones kept in the namespace.
    assert _by_comment(book, "Festival of Wicks").ext("risuai")["extra"] == {"colorTag": "amber"}
    fog = _by_comment(book, "Fog (legacy multiple mode)")
    assert "bookVersion" not in fog.ext("risuai") and fog.ext("risuai")["loreCache"]["data"] == ["AACAPwAAAEA="]
    assert _by_comment(book, "Old Tobin").ext("risuai")["activationPercent"] == 75


def test_keys_with_commas_are_carried_exactly() -> None:
    book = Lorebook(
        entries=[
            LorebookEntry(
                keys=["Smith, John", " padded ", "plain"],
                content="x",
                secondary_keys=["a,b"],
                enabled=True,
                priority=3,
                name="N",
            )
        ]
    )
    raw = risu_entries_from_lorebook(book)
    assert raw[0]["key"] == "Smith, John,  padded , plain"  # what Risu will split on
    stash = raw[0]["extentions"]["interop_stash"]["entry"]
    assert stash["keys"] == ["Smith, John", " padded ", "plain"] and stash["priority"] == 3
    back = lorebook_from_risu_entries(raw)
    assert back.entries[0].dump() == book.entries[0].dump()
    # Edited in Risu: the stale exact list is not used.
    raw[0]["key"] = "Smith, Jane"
    assert lorebook_from_risu_entries(raw).entries[0].keys == ["Smith", "Jane"]


def test_bad_lorebook_export_is_a_typed_error() -> None:
    with pytest.raises(InvalidCardError) as info:
        read_bytes(b'{"type":"risu","ver":1,"data":{}}', filename="x.json")
    assert info.value.location == "data"
    with pytest.raises(InvalidCardError) as info:
        read_bytes(b'{"type":"risu","ver":1,"data":[{"key":"a"}, 5]}', filename="x.json")
    assert info.value.location == "data[1]"


# --- modules ---------------------------------------------------------------------------


def test_module_round_trip_same_json_and_assets() -> None:
    data = MODULE.read_bytes()
    doc = assert_identity("risum", MODULE)
    assert doc.lorebook is not None
    assert doc.lorebook.name == "Lantern Harbor"
    module = doc.lorebook.ext("risuai")["module"]
    assert len(module["regex"]) == 2 and len(module["trigger"]) == 1 and module["cjs"].startswith("// lantern")
    assert sorted(doc.assets) == ["risum-asset:0", "risum-asset:1", "risum-asset:2"]
    assert write(doc, "risum") == data  # unchanged: byte for byte
    doc.lorebook.entries[0].content = "changed"
    again = read_risum(write(doc, "risum"))
    original = read_risum(data)
    assert again.assets == original.assets
    diff = DeepDiff(original.payload, again.payload)
    assert list(diff) == ["values_changed"] and list(diff["values_changed"]) == [
        "root['module']['lorebook'][1]['content']"
    ]


def test_lorebook_export_to_module_and_back() -> None:
    assert_via("risu-lorebook", "risum", LOREBOOK, exact=True)
    doc = read(LOREBOOK)
    module_doc = read_bytes(write(doc, "risum"), filename="x.risum")
    assert module_doc.lorebook is not None and doc.lorebook is not None
    assert module_doc.lorebook.dump() == doc.lorebook.dump()  # the module holds the same canonical book


def test_module_facts() -> None:
    facts = _describe(read(MODULE))
    assert facts["regex"] == 2 and facts["trigger"] == 1 and facts["assets"] == 3
    assert facts["folders"] == ["Places", "Docks"]


# --- Risu CHARX -----------------------------------------------------------------------


def test_risu_charx_detection_and_module_authority() -> None:
    data = CHARX.read_bytes()
    found = {d.format: d.confidence for d in detect_all(data, CHARX.name)}
    assert found["risu-charx"] == 110 and found["charx"] == 100
    doc = read(CHARX)
    assert doc.format == "risu-charx" and doc.card is not None and doc.book is not None
    # The module's lorebook wins: folders are real folders, not entries with strange keys.
    assert [f["name"] for f in doc.book.ext("risuai")["folders"]] == ["Places", "Docks"]
    assert len(doc.book.entries) == 3
    assert doc.book.scan_depth == 6 and doc.book.token_budget == 900  # settings from card.json
    # Both views stay available.
    assert len(doc.native["risu"]["card_book"]["entries"]) == 5
    assert doc.native["risu"]["module"]["name"] == "Mira Module"
    assert doc.native["risu"]["creation_date_seconds"] == 1714564800
    risuai = doc.card.data.extensions["risuai"]
    assert len(risuai["customScripts"]) == 2 and len(risuai["triggerscript"]) == 1
    assert any("milliseconds" in w for w in doc.warnings)
    assert any("'undefined'" in w for w in doc.warnings)
    assert any("WEBP bytes" in w for w in doc.warnings)
    assert any("mode" in w and "folder" in w for w in doc.warnings)


RISU_CHARX = [CHARX, *(p for p in project_files("charx") if p.suffix == ".charx" and b"module.risum" in p.read_bytes())]


@pytest.mark.parametrize("path", corpus_params(RISU_CHARX, "Risu CHARX"))
def test_risu_charx_round_trip_keeps_every_member(path: Path) -> None:
    data = path.read_bytes()
    written = write(assert_identity("risu-charx", path), "risu-charx")
    assert list(_members(written)) == list(_members(data))
    assert _members(written) == _members(data)
    assert written[: data.find(b"PK\x03\x04")] == data[: data.find(b"PK\x03\x04")]  # a JPEG prefix survives


def test_plain_charx_still_owns_files_with_a_module() -> None:
    data = CHARX.read_bytes()
    doc = read_bytes(data, filename="x.charx", format="charx")
    assert _members(write(doc, "charx")) == _members(data)
    plain = {name: blob for name, blob in _members(data).items() if name != "module.risum"}
    card = plain.pop("card.json")
    only_card = write_charx(card, plain)
    assert detect_all(only_card)[0].format == "charx"
    assert "risu-charx" not in {d.format for d in detect_all(only_card)}


def test_card_to_risu_charx_uses_risus_layout() -> None:
    doc = read(LOREBOOK)
    data = write(doc, "risu-charx")
    members = _members(data)
    assert "module.risum" in members
    module = read_risum(members["module.risum"]).module
    assert module["name"] == "lantern_harbor_lorebook Module" and len(module["lorebook"]) == 13
    back = read_bytes(data, filename="x.charx")
    assert back.format == "risu-charx" and back.book is not None and doc.lorebook is not None
    assert back.book.entries
    _assert_only_spec_fields_added(
        {"entries": [e.dump() for e in doc.lorebook.entries]}, {"entries": [e.dump() for e in back.book.entries]}
    )
    assert all(e.has("enabled") and e.has("insertion_order") and e.has("use_regex") for e in back.book.entries)
    assert "module" not in back.book.ext("risuai")  # generated metadata is dropped again


def test_card_assets_are_placed_in_singular_image_folders() -> None:
    source = read_bytes(_members(CHARX.read_bytes())["card.json"], filename="card.json")
    assert source.card is not None
    source.assets = {"__asset:0": _members(CHARX.read_bytes())["assets/emotion/image/calm.png"]}
    source.card.data.assets[1].uri = "__asset:0"  # type: ignore[index]
    members = _members(write(source, "risu-charx"))
    assert "assets/emotion/image/calm.png" in members and "x_meta/calm.json" in members
    assert json.loads(members["x_meta/calm.json"]) == {}  # a PNG: its tEXt chunks, here none
    card = json.loads(members["card.json"])
    assert card["data"]["assets"][1]["uri"] == "embeded://assets/emotion/image/calm.png"
    assert "customScripts" not in card["data"]["extensions"]["risuai"]


# --- cards and Risu's character JSON -------------------------------------------------


def test_ccv3_reader_keeps_extensions_risuai_whole() -> None:
    card_json = _members(CHARX.read_bytes())["card.json"]
    doc = read_bytes(card_json, filename="card.json")
    assert doc.format == "ccv3" and doc.card is not None
    original = json.loads(card_json)["data"]["extensions"]["risuai"]
    assert doc.card.data.extensions["risuai"] == original
    assert json.loads(write(doc, "ccv3"))["data"]["extensions"]["risuai"] == original


def test_risu_character_json_imports() -> None:
    doc = read(CHARACTER)
    assert doc.format == "risu-character" and doc.card is not None
    data = doc.card.data
    assert data.first_mes.startswith("*Mira lifts") and data.mes_example.startswith("<START>")
    assert data.system_prompt.startswith("Write Mira's") and data.creator_notes.startswith("Sample Risu")
    assert data.post_history_instructions == "Keep track of unpaid mooring fees."
    assert data.alternate_greetings == ["*The fog is thick tonight.* You're late."]
    assert data.creator == "interop" and data.character_version == "1.2"
    book = data.character_book
    assert book is not None and book.scan_depth == 6 and book.recursive_scanning is False
    assert [f["name"] for f in book.ext("risuai")["folders"]] == ["Places", "Docks"]
    risuai = data.extensions["risuai"]
    assert risuai["customScripts"][0]["comment"] == "Bell sound"
    assert risuai["character"]["chaId"] == "b7e1c2d3-4f5a-4b6c-8d9e-0f1a2b3c4d5e"
    assert "emotionImages" in risuai["character"]
    assert json.loads(write(doc, "ccv3"))["data"]["first_mes"] == data.first_mes


# --- CLI ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "suffix"), [("risu-lorebook", ".json"), ("risum", ".risum"), ("risu-charx", ".charx")]
)
def test_cli_convert_to_risu_targets(tmp_path: Path, target: str, suffix: str) -> None:
    out = tmp_path / f"out{suffix}"
    result = CliRunner().invoke(cli, ["convert", str(LOREBOOK), "--to", target, "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert read(out).format == target


def test_cli_inspect_shows_folders_modes_and_decorators() -> None:
    result = CliRunner().invoke(cli, ["inspect", "--json", str(LOREBOOK)])
    assert result.exit_code == 0, result.output
    facts = json.loads(result.output)[0]["facts"]
    assert facts["folders"] == ["Places", "Docks", "People"]
    assert facts["modes"] == {"child": 1, "constant": 1, "multiple": 1, "normal": 7}
    assert facts["decorators"]["depth"] == 2 and facts["decorators"]["probability"] == 1


def _is_card(path: Path) -> bool:
    found = detect_all(path.read_bytes(), path.name)
    return bool(found) and found[0].kind == "card"


CARDS = [
    p
    for p in shared_files("cards-png", "cards-json", "charx") + project_files("png", "cards", "charx")
    if p.suffix in (".png", ".json", ".charx") and _is_card(p)
]


@pytest.mark.parametrize("path", corpus_params(CARDS, "card"))
def test_cards_through_risu_charx_keep_their_data(path: Path) -> None:

    doc = read(path)
    assert doc.card is not None
    back = read_bytes(write(doc, "risu-charx"), filename="x.charx")
    assert back.format == "risu-charx" and back.card is not None
    before, after = to_v3(doc.card).dump(), back.card.dump()
    mains = [a for a in before["data"].get("assets") or [] if a.get("type") == "icon" and a.get("name") == "main"]
    if doc.image is not None and not mains:  # the picture became the main icon, after the card's own assets
        assert after["data"]["assets"].pop() == {
            "type": "icon",
            "uri": "embeded://assets/icon/image/main.png",
            "name": "main",
            "ext": "png",
        }
        if not after["data"]["assets"] and "assets" not in before["data"]:
            del after["data"]["assets"]
    for card in (before, after):  # CHARX embeds asset bytes: their URIs change by design
        for asset in card["data"].get("assets") or []:
            asset.pop("uri", None)
    _assert_only_spec_fields_added(before, after)


# What a card writer adds (card_for_target.card_for): the CCv3-required fields a source lacks, with the
# values RisuAI's own card export writes (createBaseV3, src/ts/characterCards.ts: ``enabled: true``,
# ``insertion_order: lore.insertorder``, ``use_regex: lore.useRegex ?? false``), and ISO dates as
# Unix seconds (card_dates, the strings recorded in ``extensions.interop``). Nothing else may change.
_CARD_REQUIRED = "|".join((*CARD_REQUIRED, "group_only_greetings"))
_ADDED = re.compile(
    rf"root\['data'\]\['({_CARD_REQUIRED})'\]|root\['data'\]\['extensions'\]\['interop'\]"
    r"|root(\['data'\]\['character_book'\])?\['entries'\]\[\d+\]\['(enabled|insertion_order|use_regex|extensions)'\]"
)
_ADDED_TYPES = {"enabled": bool, "insertion_order": int, "use_regex": bool, "extensions": dict}


def _assert_only_spec_fields_added(before: dict[str, Any], after: dict[str, Any]) -> None:
    diff = DeepDiff(before, after, threshold_to_diff_deeper=0)
    assert set(diff) <= {"dictionary_item_added", "type_changes"}, diff
    for path in diff.get("dictionary_item_added", []):
        match = _ADDED.fullmatch(path)
        assert match, path
        if match.group(3):
            value = extract(after, path)
            assert isinstance(value, _ADDED_TYPES[match.group(3)]), (path, value)
    for path, change in diff.get("type_changes", {}).items():
        assert path in ("root['data']['creation_date']", "root['data']['modification_date']"), path
        assert change["new_value"] == unix_seconds(change["old_value"]), change


def test_mapping_table_targets_are_registered_formats() -> None:

    table = load("risu")
    for name in table.formats:
        assert get_format(name).platform == "risu"
    assert set(table.targets) == {"risu-lorebook", "risum", "risu-charx", "risu-chat"}
    assert table.rule_for("risu-lorebook", "entry.extensions.sillytavern.entry.trigger_percent").fate == "translated"
    assert table.rule_for("risu-lorebook", "entry.extensions.sillytavern.entry.sticky").fate == "stashed"
    assert table.rule_for("risu-lorebook", "entry.priority").fate == "stashed"
    doc = Path(__file__).resolve().parents[2] / "docs" / "platforms" / "risu.md"
    assert doc.read_text(encoding="utf-8") == render_platform_doc(table)


def test_risu_card_export_entries_become_risu_entries_again() -> None:
    """A CCv3 card as Risu exports it (mode/folder on entries, risu_* extension keys) -> Risu formats -> back."""
    folder = {
        "keys": ["\uf000folder:abc"],
        "content": "",
        "mode": "folder",
        "name": "Harbor",
        "comment": "Harbor",
        "enabled": True,
        "insertion_order": 100,
        "constant": False,
        "selective": False,
        "case_sensitive": False,
        "use_regex": False,
        "extensions": {"risu_activationPercent": None, "risu_loreCache": None},
    }
    member = {
        "keys": ["pier"],
        "content": "Piers.",
        "mode": "normal",
        "folder": "\uf000folder:abc",
        "name": "Pier",
        "comment": "Pier",
        "enabled": True,
        "insertion_order": 100,
        "constant": False,
        "selective": False,
        "case_sensitive": True,
        "use_regex": False,
        "extensions": {"risu_case_sensitive": False},
    }
    card = {
        "spec": "chara_card_v3",
        "spec_version": "3.0",
        "data": {"name": "R", "character_book": {"entries": [folder, member]}},
    }
    doc = read_bytes(json.dumps(card).encode(), filename="card.json")
    raw = _json(write(doc, "risu-lorebook"))["data"]
    assert raw[0]["mode"] == "folder" and raw[1]["folder"] == "\uf000folder:abc"  # Risu's fields again
    assert raw[1]["extentions"]["risu_case_sensitive"] is False  # the card's own copy wins in Risu
    for target in ("risu-lorebook", "risum", "risu-charx"):
        back = read_bytes(write(doc, target), filename=f"x.{target}")
        assert back.book is not None and doc.book is not None
        assert not DeepDiff(doc.book.dump(), back.book.dump()), target


def test_ccv2_reader_keeps_extensions_risuai_whole() -> None:
    risuai = {"bias": [["x", 1]], "customScripts": [{"in": "a", "out": "b", "type": "editinput"}], "vits": {}}
    card = {"spec": "chara_card_v2", "spec_version": "2.0", "data": {"name": "V", "extensions": {"risuai": risuai}}}
    doc = read_bytes(json.dumps(card).encode(), filename="v2.json")
    assert doc.card is not None and doc.card.data.extensions["risuai"] == risuai
    assert _json(write(doc, "ccv2"))["data"]["extensions"]["risuai"] == risuai


# --- property: canonical -> Risu -> canonical is the identity --------------------------

_st_knobs = hst.fixed_dictionaries(
    {},
    optional={
        "trigger_percent": hst.one_of(hst.integers(0, 120), hst.floats(0, 100, allow_nan=False)),
        "use_probability": hst.one_of(hst.booleans(), hst.none()),
        "insertion_position": hst.sampled_from([0, 1, 4, 7, "at_depth", None]),
        "depth": hst.one_of(hst.integers(-2, 9), hst.none()),
        "role": hst.sampled_from([0, 1, 2, 3, "user", None]),
        "optional_logic": hst.sampled_from([0, 1, 2, 3, "not_any", None]),
        "delay": hst.one_of(hst.integers(-1, 5), hst.none()),
        "match_whole_words": hst.one_of(hst.booleans(), hst.none()),
        "sticky": hst.integers(0, 3),
    },
)
_keys = hst.lists(hst.sampled_from(["a", "b c", "Smith, John", " pad ", "", "/re,x/i", "月"]), max_size=3)


@hst.composite
def _risu_ready_book(draw: Any) -> dict[str, Any]:
    book = draw(strategies.lorebook)
    for entry in book["entries"]:
        if draw(hst.booleans()):
            entry["keys"] = draw(_keys)
            entry["secondary_keys"] = draw(_keys)
        if draw(hst.booleans()):
            extensions = entry.setdefault("extensions", {})
            extensions["sillytavern"] = {"entry": draw(_st_knobs)}
        if draw(hst.booleans()):
            flat = {
                "position": 4,
                "depth": draw(hst.integers(0, 3)),
                "role": draw(hst.integers(0, 2)),
                "probability": draw(hst.integers(0, 100)),
                "useProbability": draw(hst.booleans()),
            }
            entry.setdefault("extensions", {}).update(flat)
    return book


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_risu_ready_book())
def test_canonical_through_risu_is_identity(raw_book: dict[str, Any]) -> None:
    book = Lorebook.model_validate(raw_book)
    entries = risu_entries_from_lorebook(book)
    assert all(isinstance(e["key"], str) and isinstance(e["content"], str) for e in entries)
    back = lorebook_from_risu_entries(json.loads(json.dumps(entries)))
    assert not DeepDiff([e.dump() for e in book.entries], [e.dump() for e in back.entries])
    doc = read_bytes(
        write(
            read_bytes(json.dumps({"spec": "lorebook_v3", "data": raw_book}).encode(), filename="b.json"),
            "risu-lorebook",
        ),
        filename="r.json",
    )
    assert doc.lorebook is not None and not DeepDiff(book.dump(), doc.lorebook.dump())


_decorator_line = hst.sampled_from(
    [
        "@@depth 0",
        "@@depth 3",
        "@@depth 03",
        "@@role user",
        "@@role system",
        "@@role narrator",
        "@@probability 50",
        "@@probability 100",
        "@@probability 5.5",
        "@@activate_only_after 2",
        "@@activate_only_after 0",
        "@@match_full_word",
        "@@match_partial_word",
        "@@dont_activate",
        "@@activate",
        "@@exclude_keys a",
        "@@exclude_keys_all a,b",
        "@@additional_keys b",
        "@@@depth 2",
        "@@@role user",
        "@@inject_lore X",
        "  @@depth 1",
        "@@depth 1 ",
        "",
        "@@@end",
        "@@x_custom 1,2",
    ]
)
_risu_entry = hst.fixed_dictionaries(
    {
        "key": hst.sampled_from(["", "a", "a, b", "a,b ,", " x ", "\uf000folder:f1"]),
        "comment": strategies.short,
        "content": hst.builds(
            lambda lines, body, nl: nl.join([*lines, body]),
            hst.lists(_decorator_line, max_size=5),
            strategies.text,
            hst.sampled_from(["\n", "\r\n"]),
        ),
        "mode": hst.sampled_from(["normal", "constant", "multiple", "child", "folder"]),
    },
    optional={
        "insertorder": hst.integers(0, 1000),
        "alwaysActive": hst.booleans(),
        "secondkey": hst.sampled_from(["", "a", "a,b", "b"]),
        "selective": hst.booleans(),
        "useRegex": hst.booleans(),
        "folder": hst.sampled_from(["\uf000folder:f1", "\uf000folder:zz", "plain"]),
        "bookVersion": hst.integers(1, 2),
        "id": strategies.short,
        "activationPercent": hst.integers(0, 100),
        "loreCache": hst.none(),
        "extentions": hst.dictionaries(
            hst.sampled_from(["risu_case_sensitive", "x", "risuai", "sillytavern"]), strategies.json_value, max_size=3
        ),
        "x_unknown": strategies.json_value,
    },
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hst.lists(_risu_entry, max_size=6))
def test_risu_through_canonical_is_identity(entries: list[dict[str, Any]]) -> None:
    book = lorebook_from_risu_entries(entries)
    assert not DeepDiff(entries, risu_entries_from_lorebook(book))
    # Through the canonical model's JSON form too (what a catalog or another format stores).
    again = Lorebook.model_validate(json.loads(json.dumps(book.dump())))
    assert not DeepDiff(entries, risu_entries_from_lorebook(again))


# --- hand-edited files: the identity rule holds whatever the stash says ----------------

_ODD_VALUES = [
    None,
    True,
    False,
    0,
    2.5,
    "",
    "x",
    "a, b",
    "\uf000folder:zz",
    [],
    ["a"],
    {},
    {"interop_stash": {"filled": ["mode"]}},
    {"risuai": 1},
    {"interop_stash": 5},
    {"interop_stash": {"decorators": {"text": 5}}},
    {"interop_stash": {"entry": {"keys": 5}}},
    {"interop_stash": {"absent": ["keys", "content", "extensions"]}},
    "@@depth 2\n@@role user\nx",
    "@@probability 5\n",
    "@@@depth 1",
    {"filled": ["name"]},
    {"book": {"name": "q"}},
    {"book": 5},
    {"filled": 5},
    {"book": {"extensions": {"risuai": 3}}},
]


def _mutations(count: int, seed: int) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(lorebook export, module payload) pairs with random fields replaced by odd values."""
    import copy
    import random

    rng = random.Random(seed)
    export = _json(LOREBOOK.read_bytes())
    payload = read_risum(MODULE.read_bytes()).payload
    out = []
    for _ in range(count):
        book, module = copy.deepcopy(export), copy.deepcopy(payload)
        for _ in range(rng.randint(1, 3)):
            entry = rng.choice(book["data"])
            key = rng.choice([*entry, "extentions", "folder", "mode", "newfield"])
            if rng.random() < 0.15:
                entry.pop(key, None)
            else:
                entry[key] = copy.deepcopy(rng.choice(_ODD_VALUES))
            book[rng.choice(["interop_stash", "ver", "extra"])] = copy.deepcopy(rng.choice(_ODD_VALUES))
            key = rng.choice([*module["module"], "interop_stash"])
            module["module"][key] = copy.deepcopy(rng.choice(_ODD_VALUES))
        out.append((book, module))
    return out


def test_hand_edited_exports_and_modules_write_back_unchanged() -> None:

    checked = 0
    for book, payload in _mutations(250, seed=11):
        for data, fmt, parse in (
            (json.dumps(book).encode(), "risu-lorebook", _json),
            (write_risum(payload), "risum", lambda b: read_risum(b).payload),
        ):
            try:
                doc = read_bytes(data, filename="edited")
            except InteropError:
                continue  # rejected with a typed error: fine
            assert doc.format == fmt
            assert not DeepDiff(parse(data), parse(write(doc, fmt))), fmt
            checked += 1
    assert checked > 300


def test_module_assets_travel_through_risu_charx() -> None:
    doc = read(MODULE)
    charx = write(doc, "risu-charx")
    module = read_risum(_members(charx)["module.risum"])
    assert module.assets == [doc.assets[f"risum-asset:{i}"] for i in range(3)]
    back = read_risum(write(read_bytes(charx, filename="x.charx"), "risum"))
    assert back.assets == module.assets
    assert back.module["assets"] == [["night_sky", "", "png"], ["lantern", "", "png"], ["bell", "", "mp3"]]


# --- the card picture as Risu's main icon ------------------------------------------------


def _members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_png_picture_becomes_risu_main_icon() -> None:

    doc = read(PROJECT_CORPUS / "png" / "v2_chara_only.png")
    assert doc.image is not None and not (doc.card and doc.card.data.assets)
    out = write(doc, "risu-charx")
    card = json.loads(_members(out)["card.json"])
    assert card["data"]["assets"] == [
        {"type": "icon", "uri": "embeded://assets/icon/image/main.png", "name": "main", "ext": "png"}
    ]
    members = _members(out)
    icon = members["assets/icon/image/main.png"]
    assert not {c.keyword for c in text_chunks(icon)} & {"chara", "ccv3"}  # no stale copy of the card
    assert "x_meta/main.json" in members
    assert "x_interop/asset_origins.json" not in members  # an added icon has nowhere to go back to


def test_risu_charx_to_png_to_risu_charx_puts_the_icon_back() -> None:
    source = read(PROJECT_CORPUS / "charx" / "risu_stored.charx")
    assert source.format == "risu-charx"
    png = read_bytes(write(source, "png"), format="png")
    back = read_bytes(write(png, "risu-charx"), format="risu-charx")
    icon = next(a.uri for a in source.card.data.assets or [] if a.type == "icon" and a.name == "main")
    assert back.assets[icon] == source.assets[icon]
    assert [a.dump() for a in back.card.data.assets or []] == [a.dump() for a in source.card.data.assets or []]


# --- layering: the package stands alone, the transforms name no platform -------------------------


def _imports(path: Path, package: str) -> set[str]:
    """Absolute module names ``path`` (a module of ``package``) imports."""
    import ast

    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def test_risu_package_has_no_cycle_and_imports_no_other_platform() -> None:

    others = {f"interop.formats.{name}" for name in platform_packages()} - {"interop.formats.risu"}
    folder = Path(risu_package.__file__).parent
    graph: dict[str, set[str]] = {}
    for path in folder.glob("*.py"):
        imported = _imports(path, "interop.formats.risu")
        assert not {m for m in imported for o in others if m == o or m.startswith(o + ".")}, path.name
        graph[path.stem] = {m.split(".")[3] for m in imported if m.startswith("interop.formats.risu.")} - {"__init__"}
    graph.pop("__init__")

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(n == goal or (n not in seen and reaches(n, goal, seen | {n})) for n in graph.get(start, ()))

    assert not [name for name in graph if reaches(name, name, set())]
    # The cross-platform rewrites reach other platforms only through the registry.
    platforms = {f"interop.formats.{name}" for name in platform_packages()}
    for path in Path(transforms_package.__file__).parent.glob("*.py"):
        imported = _imports(path, "interop.transforms")
        assert not {m for m in imported for p in platforms if m == p or m.startswith(p + ".")}, path.name


def test_risu_stashes_are_the_one_stash_module() -> None:
    """Entry, export and module stashes are keep/absent records of interop.model.stash, in Risu's spelling."""

    book = Lorebook.model_validate(
        {"name": "B", "description": "d", "scan_depth": 3,
         "entries": [{"keys": ["a, b"], "content": "x", "enabled": True, "priority": 5}]}
    )  # fmt: skip
    marker = risu_entries_from_lorebook(book)[0]["extentions"]["interop_stash"]
    entry = Stash.from_json(marker, "entry", "absent")
    assert entry.keep == {"keys": ["a, b"], "enabled": True, "priority": 5}
    assert entry.absent == ["secondary_keys", "insertion_order", "comment", "constant", "selective", "extensions"]
    assert marker["filled"] == ["mode", "bookVersion"]
    assert Stash.from_json(export_object(book)["interop_stash"], "book", "filled") == Stash(
        keep={"name": "B", "description": "d", "scan_depth": 3}
    )
    module = Stash.from_json(module_from_book(book)["interop_stash"], "book", "filled")
    assert module == Stash(keep={"scan_depth": 3}, absent=["id"])
    assert lorebook_from_risu_entries(risu_entries_from_lorebook(book)).entries == book.entries
