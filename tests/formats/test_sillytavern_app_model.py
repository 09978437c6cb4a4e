"""What SillyTavern loads from our outputs (interop.formats.sillytavern.app_load and app_model), issue 11 items 1-10.

Every test states a SillyTavern behaviour and cites the upstream function it comes from
(SillyTavern/SillyTavern; facts in ../shared/reference/sillytavern.md sections 2-3).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from interop import api
from interop.cli import cli
from interop.document import Document
from interop.fidelity import fidelity_report
from interop.fidelity.entrydiff import diff_documents
from interop.fidelity.roundtrip import roundtrip
from interop.formats.sillytavern import app_load as st
from interop.formats.sillytavern import app_model as sillytavern_check
from interop.formats.sillytavern import flat_keys
from tests.conftest import PROJECT_CORPUS, SHARED_CORPUS, corpus_params, shared_files
from tests.st_exporter import INDEX_FALLBACK, POSITION_FALLBACK, ST_FLAT_KEYS
from tests.validator import corpus_pairs, refusal

CARD_TARGETS = ("ccv3", "ccv2", "png", "charx", "character_book", "lorebook_v3", "sillytavern-card")
REAL_FILES = [p for p in shared_files(".") if p.name != "MANIFEST.tsv"]
ST_WORLDS = shared_files("st-worldinfo")


def _world(entries: dict[str, dict[str, Any]]) -> Document:
    return api.read_bytes(json.dumps({"entries": entries}).encode(), filename="w.json")


def _loaded(doc: Document, target: str) -> list[dict[str, Any]]:
    data = api.write(doc, target)
    found = st.load(data, "out")
    assert found is not None
    return found.entries


# --- item 1: ST's flat keys, against its exporter's facts ---------------------------


def test_flat_key_table_matches_sillytavern_exporter() -> None:
    """``convertWorldInfoToCharacterBook`` (src/endpoints/characters.js) writes these flat keys and
    ``convertCharacterBook`` (public/scripts/world-info.js) reads them back with these fallbacks."""
    assert set(flat_keys()) == {flat for _, flat, _ in ST_FLAT_KEYS}
    for field, flat, fallback in ST_FLAT_KEYS:
        if fallback in (POSITION_FALLBACK, INDEX_FALLBACK) or field == "triggers":
            continue
        assert st.FLAT_READS[field] == (flat, fallback), field


# One world entry with a value other than the default for every setting ST's importer reads.
EVERY_SETTING = {
    "uid": 7, "key": ["Eldoria"], "keysecondary": ["river"], "comment": "Eldoria", "content": "A realm.",
    "constant": True, "vectorized": True, "selective": True, "selectiveLogic": 3, "addMemo": True, "order": 42,
    "position": 4, "disable": True, "ignoreBudget": True, "excludeRecursion": True, "preventRecursion": True,
    "matchPersonaDescription": True, "matchCharacterDescription": True, "matchCharacterPersonality": True,
    "matchCharacterDepthPrompt": True, "matchScenario": True, "matchCreatorNotes": True, "delayUntilRecursion": 2,
    "probability": 35, "useProbability": False, "depth": 0, "outletName": "map", "group": "a,b",
    "groupOverride": True, "groupWeight": 40, "scanDepth": 3, "caseSensitive": True, "matchWholeWords": False,
    "useGroupScoring": True, "automationId": "qr1", "role": 2, "sticky": 2, "cooldown": 3, "delay": 1,
    "triggers": ["normal", "swipe"], "displayIndex": 5,
}


@pytest.mark.parametrize("target", ["ccv3", "ccv2", "png", "charx", "character_book", "lorebook_v3"])
def test_every_card_writer_writes_sillytavern_flat_keys(target: str) -> None:
    """Item 1: ``convertCharacterBook`` reads entry settings only from flat ``extensions`` keys;
    every card-book writer writes each of them with the world's value."""
    doc = _world({"7": EVERY_SETTING})
    data = api.write(doc, target)
    book = st.load(data)
    assert book is not None
    loaded = book.entries[0]
    for field, value in EVERY_SETTING.items():
        if field != "addMemo":
            assert loaded[field] == value, field
    out = api.read_bytes(data, format=target).book
    assert out is not None
    ns = out.entries[0].ext("sillytavern")["entry"]
    assert ns["depth"] == 0 and ns["insertion_position"] == 4  # kept for the round trip


def test_flat_keys_win_over_the_namespace_and_the_report_says_so() -> None:
    """Item 1: when both disagree, SillyTavern reads the flat key (``convertCharacterBook``)."""
    card = json.loads(api.write(_world({"0": {"uid": 0, "key": ["a"], "content": "A", "depth": 2}}), "ccv3"))
    card["data"]["character_book"]["entries"][0]["extensions"]["depth"] = 6
    doc = api.read_bytes(json.dumps(card).encode())
    report = fidelity_report(doc, "sillytavern-world")
    item = report.item("entry[0].extensions.sillytavern.entry.depth")
    assert item is not None and item.fate in ("approximated", "lost") and "2 -> 6" in item.detail
    world = json.loads(api.write(doc, "sillytavern-world"))
    assert world["entries"]["0"]["depth"] == 6
    assert any("SillyTavern's flat key gives 6; the flat value is kept" in w for w in doc.warnings)


def _writable_pairs(paths: list[Path]) -> list[tuple[Path, str]]:
    """(file, target) pairs whose conversion applies (a card without a lorebook has none to write;
    tests/fidelity/test_corpus_matrix.py checks such pairs are refused)."""
    pairs = []
    for path in paths:
        doc = api.read(path)
        pairs += [(path, target) for target in CARD_TARGETS if refusal(doc, target) is None]
    return pairs


@pytest.mark.parametrize(("path", "target"), corpus_pairs(_writable_pairs(REAL_FILES), "shared corpus"))
def test_app_load_equals_source_or_the_report_names_it(path: Path, target: str) -> None:
    """Every real file, every card/lorebook target: what the judging app loads from our output
    equals the source's settings, or the report names each difference (and --strict would fail)."""
    doc = api.read(path)
    report = fidelity_report(doc, target)
    for verdict in report.apps:
        if verdict.findings:
            assert report.has_losses
        for finding in verdict.findings:
            item = report.item(_render(finding.path))
            assert item is None or item.fate in ("approximated", "lost"), finding
    if doc.book is None or doc.format == target or api.get_format(doc.format).platform != "sillytavern":
        return
    # Done when: every entry setting SillyTavern's importer reads comes back identical.
    verdict = sillytavern_check.findings(doc, api.write(doc, target), target)
    assert [f for f in verdict.findings if "characterFilter" not in f.detail] == []


def _render(path: tuple[Any, ...]) -> str:
    from interop.appmodel.paths import render

    return render(path)


@pytest.mark.parametrize("path", corpus_params(ST_WORLDS, "SillyTavern world info"))
@pytest.mark.parametrize("target", ["ccv3", "png", "charx", "character_book"])
def test_real_worlds_keep_every_setting_st_imports(path: Path, target: str) -> None:
    """Issue 11 'done when': ``convertCharacterBook`` loads each world entry's settings unchanged
    (a character filter excepted: ST's card import never reads one)."""
    doc = api.read(path)
    verdict = sillytavern_check.findings(doc, api.write(doc, target), target)
    assert verdict.compared > 0
    assert [f.detail for f in verdict.findings if "characterFilter" not in f.detail] == []


# --- items 2-10 -----------------------------------------------------------------------


@pytest.mark.parametrize("target", ["ccv3", "png", "charx", "ccv2", "character_book", "lorebook_v3"])
def test_outputs_have_the_v3_required_entry_fields_and_the_report_lists_them(target: str, tmp_path: Path) -> None:
    """Item 2: CCv3 requires keys, content, extensions, enabled, insertion_order (and use_regex in V3)."""
    path = SHARED_CORPUS / "st-worldinfo" / "st_old_KoboldAI_Worlds_Sample.json"
    if not path.exists():
        pytest.skip("shared corpus not found")
    doc = api.read(path)
    data = api.write(doc, target)
    runner = CliRunner()
    out = tmp_path / f"item2.{target}"
    out.write_bytes(data)
    result = runner.invoke(cli, ["validate", "--strict", str(out)])
    assert result.exit_code == 0, result.output
    report = fidelity_report(doc, target, data)
    assert "entry.enabled = true (2 entries)" in report.added
    assert "entry.insertion_order = 100 (2 entries)" in report.added


def test_legacy_world_without_disable_is_imported_enabled() -> None:
    """Item 3: ``convertCharacterBook`` sets ``disable = !entry.enabled``: an entry without
    ``enabled`` would come in disabled, so every card writer writes ``enabled: true``."""
    path = SHARED_CORPUS / "st-worldinfo" / "st_old_KoboldAI_Worlds_Sample.json"
    if not path.exists():
        pytest.skip("shared corpus not found")
    loaded = _loaded(api.read(path), "png")
    assert [e["disable"] for e in loaded] == [False, False]


def test_novelai_lorebook_to_png_is_imported_enabled() -> None:
    """Item 3 with a NovelAI source: 151 entries come in enabled (``convertCharacterBook``)."""
    path = SHARED_CORPUS / "novelai" / "wbrown_darkest-dungeon.lorebook"
    if not path.exists():
        pytest.skip("shared corpus not found")
    doc = api.read(path)
    loaded = _loaded(doc, "png")
    source = json.loads(path.read_text())["entries"]
    assert [not e["disable"] for e in loaded] == [e.get("enabled", True) for e in source]


def test_at_depth_entry_keeps_position_and_depth() -> None:
    """Item 4: ``convertCharacterBook`` reads ``extensions.position ?? (before_char ? 0 : 1)`` and
    ``extensions.depth ?? 4``; without the flat keys an at-depth entry (4, depth 0) became (1, 4)."""
    doc = _world({"0": {"uid": 0, "key": ["x"], "content": "X", "position": 4, "depth": 0, "role": 1}})
    entry = _loaded(doc, "ccv3")[0]
    assert (entry["position"], entry["depth"], entry["role"]) == (4, 0, 1)


def test_novelai_display_name_becomes_st_comment() -> None:
    """Item 5: ``convertNovelLorebook`` (public/scripts/world-info.js) sets ``comment = displayName || ''``."""
    path = SHARED_CORPUS / "novelai" / "wbrown_darkest-dungeon.lorebook"
    if not path.exists():
        pytest.skip("shared corpus not found")
    world = json.loads(api.write(api.read(path), "sillytavern-world"))
    names = [e.get("displayName") or "" for e in json.loads(path.read_text())["entries"]]
    assert [e["comment"] for e in world["entries"].values()] == names
    assert any(names)


def test_scenario_text_goes_into_the_card_and_is_lost_in_a_world(tmp_path: Path) -> None:
    """Item 6: a scenario's prompt, title, tags and Memory are carried into a card's first_mes,
    name, tags and description (the rest stashed); a target that cannot hold them reports them
    lost, --strict fails, and diff/roundtrip do not say identical."""
    path = PROJECT_CORPUS / "novelai" / "quiet_abbey.scenario"
    source = json.loads(path.read_text())
    doc = api.read(path)
    card = json.loads(api.write(doc, "ccv3"))["data"]
    assert card["first_mes"] == source["prompt"] and card["name"] == source["title"]
    assert card["tags"] == source["tags"] and card["description"] == source["context"][0]["text"]
    assert card["extensions"]["novelai"]["scenario"]["placeholders"] == source["placeholders"]
    assert roundtrip(doc, "ccv3").only_additions  # the scenario comes back from the card
    runner = CliRunner()
    out = tmp_path / "w.json"
    result = runner.invoke(cli, ["convert", str(path), "--to", "sillytavern-world", "-o", str(out), "--strict"])
    assert result.exit_code == 1
    report = fidelity_report(doc, "sillytavern-world")
    assert report.item("card.first_mes").fate == "lost"  # type: ignore[union-attr]
    assert not diff_documents(doc, api.read(out)).identical
    assert not roundtrip(doc, "sillytavern-world").identical


def test_scenario_to_ccv3_reports_no_loss_of_the_prompt() -> None:
    """Item 6 on the real scenario: its 2,286-character prompt is in the card, nothing reported lost."""
    path = SHARED_CORPUS / "novelai" / "wbrown_darkest-dungeon.scenario"
    if not path.exists():
        pytest.skip("shared corpus not found")
    doc = api.read(path)
    report = fidelity_report(doc, "ccv3")
    assert report.item("card.first_mes") is not None and report.item("card.first_mes").fate == "kept"  # type: ignore[union-attr]
    assert report.counts["lost"] == 0 and report.counts["stashed"] > 0


def test_plain_keys_of_an_st_exported_card_stay_plain() -> None:
    """Item 7: ``convertWorldInfoToCharacterBook`` writes ``use_regex: true`` on every entry, and ST
    treats a key as a regex only when written /pattern/flags (``parseRegexFromString``): plain stays plain."""
    card = {"spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": "Seraphina", "first_mes": "", "character_book": {"name": "Eldoria", "entries": [{
            "id": 0, "keys": ["Eldoria", "realm"], "secondary_keys": [], "comment": "", "content": "A realm.",
            "constant": False, "selective": True, "insertion_order": 100, "enabled": True, "position": "before_char",
            "use_regex": True, "extensions": {"position": 0, "depth": 4, "selectiveLogic": 0, "probability": 100,
                                              "useProbability": True, "display_index": 0}}]}}}
    doc = api.read_bytes(json.dumps(card).encode())
    world = json.loads(api.write(doc, "sillytavern-world"))
    assert world["entries"]["0"]["key"] == ["Eldoria", "realm"]


@pytest.mark.parametrize("position", [None, "", "before_char_defs"])
def test_card_entry_without_a_spec_position_goes_after_char_for_st(position: str | None) -> None:
    """Item 8: ``convertCharacterBook`` gives ``position === 'before_char' ? 0 : 1``: an entry without
    a position (or any other value) is imported after the character; our ST outputs do the same and say so."""
    entry: dict[str, Any] = {"keys": ["k"], "content": "C", "enabled": True, "insertion_order": 1, "extensions": {}}
    if position is not None:
        entry["position"] = position
    card = {"spec": "chara_card_v3", "spec_version": "3.0",
            "data": {"name": "X", "character_book": {"entries": [entry]}}}
    doc = api.read_bytes(json.dumps(card).encode())
    world = json.loads(api.write(doc, "sillytavern-world"))
    assert world["entries"]["0"]["position"] == 1
    report = fidelity_report(doc, "sillytavern-world")
    verdict = report.apps[0]
    if position is None:
        assert any("no position" in note for note in verdict.notes)
    else:
        item = report.item("entry[0].position")
        assert item is not None and item.fate in ("approximated", "lost") and report.has_losses
        assert any("as after the character (1)" in f.detail for f in verdict.findings)


def test_string_uids_survive_through_ccv3() -> None:
    """Item 9: ``convertCharacterBook`` keys an entry by ``entry.id`` as given (``"1"`` stays ``"1"``)."""
    doc = _world({"1": {"uid": "1", "key": ["a"], "content": "A"}, "2": {"uid": "2", "key": ["b"], "content": "B"}})
    card = api.read_bytes(api.write(doc, "ccv3"))
    back = json.loads(api.write(card, "sillytavern-world"))
    assert list(back["entries"]) == ["1", "2"] and back["entries"]["1"]["uid"] == "1"
    assert [e["uid"] for e in _loaded(doc, "ccv3")] == ["1", "2"]


def test_risum_assets_in_a_charx_are_reported_where_they_went() -> None:
    """Item 10: the module's asset files become CHARX members; the report names the member."""
    doc = api.read(PROJECT_CORPUS / "risu" / "lantern_harbor_module.risum")
    report = fidelity_report(doc, "charx")
    assets = [i for i in report.items if i.path.startswith("asset[")]
    assert assets and all("only as the charx member assets/" in i.detail for i in assets)


def test_roundtrip_is_not_identical_while_st_loads_something_else() -> None:
    """``roundtrip`` never says identical while the report names a loss at the app: ST's card
    import drops a character filter (``convertCharacterBook`` never reads ``characterFilter``)."""
    doc = _world({"0": {"uid": 0, "key": ["a"], "content": "A",
                        "characterFilter": {"isExclude": False, "names": ["Maren"], "tags": []}}})
    leg = roundtrip(doc, "ccv3")
    assert leg.app_losses == 1 and not leg.identical
    assert leg.forward is not None and leg.forward.has_losses


def test_png_reader_prefers_ccv3_then_chara() -> None:
    """``src/character-card-parser.js`` ``read``: the ``ccv3`` tEXt chunk wins over ``chara``."""
    doc = _world({"0": {"uid": 0, "key": ["a"], "content": "A", "depth": 1}})
    found = st.load(api.write(doc, "png"))
    assert found is not None and found.via == "convertCharacterBook (PNG ccv3 chunk)"


def test_standalone_card_book_is_noted_as_not_importable_as_a_world() -> None:
    """``importWorldInfo`` (public/scripts/world-info.js) converts only NovelAI, Agnai and Risu files."""
    doc = _world({"0": {"uid": 0, "key": ["a"], "content": "A"}})
    found = st.load(api.write(doc, "lorebook_v3"))
    assert found is not None and any("does not convert a standalone" in n for n in found.notes)
