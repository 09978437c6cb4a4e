"""Pygmalion / Gradio character JSON (interop/formats/pygmalion/, mappings/pygmalion.json).

Facts cited: SillyTavern ``importFromJson`` (``src/endpoints/characters.js``):
the branch order ``spec`` -> V1 ``name`` -> ``char_name``; ``name`` <- char_name,
``description`` <- char_persona, ``first_mes`` <- char_greeting, ``scenario``
<- world_scenario, ``mes_example`` <- example_dialogue, ``creatorcomment``
<- ``creatorcomment ?? creator_notes`` after removing "Creator's notes go
here.", ``creator``, ``tags``, ``talkativeness`` (``convertToV2`` puts it in
``extensions.talkativeness``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import interop
from interop.errors import FormatError, InvalidCardError
from interop.fidelity import fidelity_report
from tests.conftest import project_files

SAMPLES = [p for p in project_files("pygmalion") if p.suffix == ".json"]
HERE = Path(__file__).parents[2] / "corpus" / "pygmalion"


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_detected_by_content_only(path: Path) -> None:
    data = path.read_bytes()
    assert interop.detect(data) == "pygmalion-json"
    assert interop.detect(data, filename="card.png") == "pygmalion-json"
    assert [d.format for d in interop.detect_all(data)] == ["pygmalion-json"]


def test_fields_map_as_sillytavern_imports_them() -> None:
    source = json.loads((HERE / "mirela_editor.json").read_text())
    card = json.loads(interop.write(interop.read(HERE / "mirela_editor.json"), "ccv2"))
    data = card["data"]
    assert data["name"] == source["char_name"]
    assert data["description"] == source["char_persona"]
    assert data["first_mes"] == source["char_greeting"]
    assert data["scenario"] == source["world_scenario"]
    assert data["mes_example"] == source["example_dialogue"]
    assert data["creator_notes"] == " Written for slow-burn village stories."  # placeholder removed, as ST does
    assert (data["creator"], data["tags"]) == ("interop-samples", ["village", "craft"])
    assert data["extensions"]["talkativeness"] == 0.7
    # what ST drops or changes is kept, not lost
    assert data["extensions"]["pygmalion"] == {
        "creator_notes": source["creator_notes"],
        "editor_version": "1.2",
    }
    assert data["personality"] == ""  # ST fills it empty


def test_creatorcomment_wins_over_creator_notes() -> None:
    raw = {"char_name": "A", "creatorcomment": "from comment", "creator_notes": "from notes"}
    data = interop.read_bytes(json.dumps(raw).encode()).card.data  # type: ignore[union-attr]
    assert data.creator_notes == "from comment"
    assert data.ext("pygmalion") == {"creator_notes": "from notes"}


def test_a_name_key_makes_it_a_v1_card_for_sillytavern() -> None:
    raw = {"name": "A", "char_name": "B", "description": "d", "first_mes": "f"}
    assert interop.detect(json.dumps(raw).encode()) != "pygmalion-json"


def test_read_only_and_forced_wrong_input_is_typed() -> None:
    doc = interop.read(HERE / "orrin_gradio.json")
    with pytest.raises(FormatError, match="cannot be written"):
        interop.write(doc, "pygmalion-json")
    with pytest.raises(InvalidCardError, match="char_name"):
        interop.read_bytes(b'{"spec": "chara_card_v2", "char_name": "x"}', format="pygmalion-json")
    with pytest.raises(InvalidCardError):
        interop.read_bytes(b"[1, 2]", format="pygmalion-json")


def test_conversion_report_names_nothing_lost_to_a_v3_card() -> None:
    report = fidelity_report(interop.read(HERE / "mirela_editor.json"), "ccv3")
    assert not report.has_losses
