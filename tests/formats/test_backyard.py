"""Backyard AI archives (interop/formats/backyard/, mappings/backyard.json).

Facts cited: SillyTavern ``src/byaf.js`` (``ByafParser.getCharacterCard``,
``replaceMacros``, ``formatExampleMessages``, ``formatAlternateGreetings``,
``convertCharacterBook``, ``getScenariosFromManifest``); layout from the BYAF
v1 spec (ahoylabs/byaf ``specs/v1``). Zip safety is the CHARX reader's
(``containers.charx.read_zip``), tested here on .byaf inputs.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

import interop
from interop.errors import CorruptInputError, FormatError, InvalidCardError, LimitExceededError, UnsafeInputError
from interop.limits import Limits
from tests.conftest import project_files
from tests.zip_bytes import zip_of

HERE = Path(__file__).parents[2] / "corpus" / "backyard"
SAMPLES = [p for p in project_files("backyard") if p.suffix == ".byaf"]


def _members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_detected_by_content_only(path: Path) -> None:
    data = path.read_bytes()
    assert interop.detect(data) == "byaf"
    assert interop.detect(data, filename="card.charx") == "byaf"
    assert [d.format for d in interop.detect_all(data)] == ["byaf"]


def test_charx_is_not_taken_for_byaf() -> None:
    charx = Path(__file__).parents[2] / "corpus" / "charx" / "deflate_assets.charx"
    assert "byaf" not in [d.format for d in interop.detect_all(charx.read_bytes())]


def test_card_is_built_as_sillytavern_builds_it() -> None:
    doc = interop.read(HERE / "nell_harbour.byaf")
    data = json.loads(interop.write(doc, "ccv3"))["data"]
    assert data["name"] == "Nell"  # character.name before displayName
    assert data["description"].startswith("{{char}} is a harbour pilot") and "{{user}}" in data["description"]
    assert data["scenario"] == "A fog bank rolls in while {{user}} waits at the pilot station."
    assert data["first_mes"] == "Fog's thick, {{user}}. Hold the lantern high."
    # '#{user}:' -> '{{user}}:'; the example without text is skipped; '<START>' blocks, trimmed
    assert data["mes_example"] == "<START>\n{{user}}: Can we go now?\n{{char}}: Not until the bell stops."
    assert data["system_prompt"] == "Write {{char}}'s replies in third person, past tense."
    assert data["alternate_greetings"] == ["No ships tonight, {{user}}. Dance with me?"]
    assert data["creator"] == "interop-samples"
    assert data["creator_notes"] == "https://backyard.ai/hub/user/interop-samples"
    entries = data["character_book"]["entries"]
    assert [e["keys"] for e in entries] == [["the Gull", "tavern"], ["Teeth"]]
    assert [(e["insertion_order"], e["enabled"]) for e in entries] == [(0, True), (1, True)]
    assert entries[0]["content"] == "The Gull is the harbour tavern where {{char}} drinks."


def test_images_and_backgrounds_become_assets_and_the_rest_is_kept() -> None:
    doc = interop.read(HERE / "nell_harbour.byaf")
    members = _members(HERE / "nell_harbour.byaf")
    assets = doc.card.data.assets  # type: ignore[union-attr]
    assert [(a.type, a.name) for a in assets] == [("icon", "main"), ("icon", "Smiling"), ("background", "fog")]
    assert doc.assets["embeded://characters/nell/images/portrait.png"] == members["characters/nell/images/portrait.png"]
    png = interop.read_bytes(interop.write(doc, "png"))
    assert png.image is not None  # the first image is the avatar SillyTavern uses
    kept = doc.card.data.ext("backyard")  # type: ignore[union-attr]
    assert kept["character"]["displayName"] == "Nell Harrow" and kept["character"]["isNSFW"] is False
    assert "persona" not in kept["character"] and "narrative" not in kept["scenarios"][0]
    assert kept["scenarios"][0]["messages"][1]["outputs"][1]["text"] == "Port, past the second buoy."
    assert kept["scenarios"][0]["temperature"] == 1.2 and kept["scenarios"][1]["title"] == "Lantern festival"


def test_sparse_archive_uses_display_name_and_warns_about_unread_members() -> None:
    doc = interop.read(HERE / "cartographer_sparse.byaf")
    data = doc.card.data  # type: ignore[union-attr]
    assert data.name == "The Cartographer"
    assert data.character_book is None and data.alternate_greetings == [] and data.first_mes == ""
    assert any("notes.txt" in w for w in doc.warnings)


def _archive(changes: dict[str, bytes | None] | None = None) -> dict[str, bytes]:
    """The sparse sample's members with ``changes`` applied (None removes a member)."""
    members = _members(HERE / "cartographer_sparse.byaf")
    for name, content in (changes or {}).items():
        if content is None:
            members.pop(name, None)
        else:
            members[name] = content
    return members


CHARACTER = "characters/c1/character.json"


@pytest.mark.parametrize(
    ("changes", "error", "text"),
    [
        ({"manifest.json": b"{not json"}, CorruptInputError, "invalid JSON"),
        ({"manifest.json": b"[]"}, InvalidCardError, "not an object"),
        ({"manifest.json": b'{"schemaVersion": 1, "characters": []}'}, InvalidCardError, "no character"),
        ({CHARACTER: None}, InvalidCardError, "not in the archive"),
        ({CHARACTER: b"[1]"}, InvalidCardError, "not an object"),
    ],
    ids=["manifest-not-json", "manifest-not-object", "no-character", "character-missing", "character-not-object"],
)
def test_bad_archives_are_typed_errors_with_location(changes: dict, error: type, text: str) -> None:
    with pytest.raises(error, match=text) as info:
        interop.read_bytes(zip_of(_archive(changes)), format="byaf", filename="x.byaf")
    assert info.value.location is not None


def test_a_scenario_that_is_not_json_is_skipped_with_a_warning() -> None:
    doc = interop.read_bytes(zip_of(_archive({"scenarios/s1.json": b"{oops"})))
    assert any("scenario scenarios/s1.json skipped" in w for w in doc.warnings)


def test_zip_safety_checks_are_the_charx_ones() -> None:
    good = _archive()
    with pytest.raises(UnsafeInputError, match="zip-slip"):
        interop.read_bytes(zip_of(good | {"../evil.png": b"x"}), format="byaf")
    with pytest.raises(LimitExceededError, match="entries"):
        interop.read_bytes(zip_of(good), format="byaf", limits=Limits(max_zip_entries=2))
    bomb = good | {"characters/c1/images/big.png": b"\0" * (3 * 1024 * 1024)}
    with pytest.raises(LimitExceededError, match="compression ratio"):
        interop.read_bytes(zip_of(bomb), format="byaf")
    with pytest.raises(FormatError, match=r"manifest\.json"):
        interop.read_bytes(zip_of({"characters/c1/character.json": b"{}"}), format="byaf")


def test_read_only() -> None:
    with pytest.raises(FormatError, match="cannot be written"):
        interop.write(interop.read(HERE / "nell_harbour.byaf"), "byaf")


@pytest.mark.parametrize(
    "path",
    SAMPLES + [p for p in project_files("pygmalion", "textgen") if p.suffix in (".json", ".yaml")],
    ids=lambda p: p.name,
)
def test_ccv3_output_of_every_new_source_passes_strict_validation(path: Path) -> None:
    """The fields V3 requires are filled the way SillyTavern's importers fill them (empty), and
    lore items get the entry fields V3 requires (enabled, insertion_order, use_regex)."""
    from interop.validation import validate_document

    out = interop.read_bytes(interop.write(interop.read(path), "ccv3"))
    assert validate_document(out) == []
