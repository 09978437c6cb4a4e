"""text-generation-webui character YAML (interop/formats/textgen/, mappings/textgen.json).

Facts cited: oobabooga/text-generation-webui ``modules/chat.py``
(``generate_character_yaml``: name, greeting, context, empty ones dropped;
``upload_tavern_character`` + ``build_pygmalion_style_context``: how the web UI
folds a TavernAI card into ``context``); SillyTavern ``importFromYaml``
(``src/endpoints/characters.js``): name, context -> description, greeting -> first_mes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from deepdiff import DeepDiff

import interop
from interop.cli import EXIT_INPUT, cli
from interop.document import Document
from interop.errors import InteropError
from interop.fidelity import fidelity_report
from interop.model import Card
from interop.yamlio import load_yaml
from tests.conftest import project_files
from tests.validator import assert_identity

SAMPLES = project_files("textgen")
YAML_SAMPLES = [p for p in SAMPLES if p.suffix == ".yaml"]


def _card_doc(**data: object) -> Document:
    return Document(
        format="ccv3", card=Card.model_validate({"spec": "chara_card_v3", "spec_version": "3.0", "data": data})
    )


@pytest.mark.parametrize("path", YAML_SAMPLES, ids=lambda p: p.name)
def test_detected_by_content_and_written_back_identically(path: Path) -> None:
    data = path.read_bytes()
    assert interop.detect(data) == "textgen-yaml"
    assert interop.detect(data, filename="misleading.json") == "textgen-yaml"
    out = interop.write(assert_identity("textgen-yaml", path), "textgen-yaml")
    # YAML is not compared by the validator: the text must come back as the same mapping
    assert DeepDiff(load_yaml(data), load_yaml(out)) == {}
    assert list(load_yaml(out)) == list(load_yaml(data))  # key order kept


def test_read_maps_fields_as_sillytavern_imports_them() -> None:
    doc = interop.read(Path(__file__).parents[2] / "corpus" / "textgen" / "aldous_hand_edited.yaml")
    data = doc.card.data  # type: ignore[union-attr]
    assert data.name == "Brother Aldous"
    assert data.description.startswith("Brother Aldous keeps the library")  # context
    assert data.first_mes == "Welcome, {{user}}. What brings you up the mountain?"  # greeting
    assert data.personality == "" and data.scenario == "" and data.mes_example == ""  # ST fills them empty
    assert data.ext("textgen") == {
        "your_name": "Pilgrim",
        "example_dialogue": "{{user}}: Is the library open?\n{{char}}: Is any door truly closed?",
        "last_edited": "2024-03-01",  # a date-like value stays text
    }


@pytest.mark.parametrize(
    "text",
    [b"context: no name\n", b"name: Only\nage: 3\n", b"- name: a\n  context: b\n", b"just some text\n"],
    ids=["no-name", "no-context-or-greeting", "a-list", "scalar"],
)
def test_yaml_that_is_not_a_character_is_not_claimed(text: bytes) -> None:
    assert "textgen-yaml" not in [d.format for d in interop.detect_all(text)]


def test_json_with_the_same_keys_is_not_yaml_here() -> None:
    data = json.dumps({"name": "A", "context": "B", "greeting": "C"}).encode()
    assert "textgen-yaml" not in [d.format for d in interop.detect_all(data)]


def test_context_is_the_description_alone_when_nothing_else_is_set() -> None:
    out = load_yaml(interop.write(_card_doc(name="Ada", description="An engineer.", first_mes="Hi."), "textgen-yaml"))
    assert out == {"name": "Ada", "greeting": "Hi.", "context": "An engineer."}


def test_context_folds_the_card_as_the_web_ui_tavern_import_does() -> None:
    """``build_pygmalion_style_context``: "{name}'s Persona: ...", "Scenario: ...", the examples stripped;
    we add a Personality line where the web UI drops the field."""
    doc = _card_doc(
        name="Ada",
        description="An engineer.",
        personality="curious",
        scenario="A workshop.",
        mes_example="\n<START>\n{{user}}: Hi\n{{char}}: Hello\n",
        first_mes="Hi.",
        alternate_greetings=["Other."],
    )
    out = load_yaml(interop.write(doc, "textgen-yaml"))
    assert out["context"] == (
        "Ada's Persona: An engineer.\nPersonality: curious\nScenario: A workshop.\n"
        "<START>\n{{user}}: Hi\n{{char}}: Hello"
    )
    assert list(out) == ["name", "greeting", "context"]
    report = fidelity_report(doc, "textgen-yaml")
    fates = {item.path: item.fate for item in report.items}
    assert fates["card.description"] == "approximated"
    assert fates["card.alternate_greetings"] == "lost"


def test_a_nameless_empty_card_is_still_a_readable_character() -> None:
    out = interop.write(_card_doc(description=""), "textgen-yaml")
    assert load_yaml(out) == {"name": "", "context": ""}  # load_character reads data['name'] unconditionally
    assert interop.detect(out) == "textgen-yaml"


def test_lorebook_and_extra_fields_are_named_lost() -> None:
    path = Path(__file__).parents[2] / "corpus" / "cards" / "ilse_v3.json"
    report = fidelity_report(interop.read(path), "textgen-yaml")
    lost = {item.path for item in report.items if item.fate == "lost"}
    assert any(p.startswith("entry[") for p in lost) and "card.alternate_greetings" in lost


def test_bad_yaml_is_one_line_error_naming_file_and_place(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(b"name: x\ncontext: [unclosed\n")
    result = CliRunner().invoke(cli, ["inspect", "--format", "textgen-yaml", str(bad)])
    assert result.exit_code == EXIT_INPUT
    line = result.output.strip().splitlines()[-1]
    assert str(bad) in line and "line 3" in line and "Traceback" not in result.output
    with pytest.raises(InteropError):
        interop.read_bytes(b"name: x\nx: &a [1]\ny: *a\ncontext: c\n", format="textgen-yaml")


def test_folder_walks_pick_up_yaml_characters(tmp_path: Path) -> None:
    """text-generation-webui keeps characters as user_data/characters/*.yaml: a folder given to
    inspect or migrate must not skip them as tooling files."""
    folder = tmp_path / "characters"
    folder.mkdir()
    for path in YAML_SAMPLES:
        (folder / path.name).write_bytes(path.read_bytes())
    result = CliRunner().invoke(cli, ["inspect", "--json", str(folder)], catch_exceptions=False)
    assert sorted(i["name"] for i in json.loads(result.output)) == ["Brother Aldous", "Tamsin Reed"]
