"""--behaviour: entries that fire differently on the target become approximated items."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from click.testing import CliRunner

from interop.cli import cli
from interop.document import Document
from interop.engine import chat_from_records
from interop.fidelity import fidelity_report
from interop.model import Lorebook

SCHEMA = json.loads((Path(__file__).parents[2] / "docs" / "fidelity-report.schema.json").read_text())

# A constant entry: always on in SillyTavern and in the CCv3 reference, but
# Agnai has no constants (agnai-novelai.md §0.5), so without a keyword match it stays off.
BOOK = {
    "name": "Harbour",
    "entries": [
        {"keys": ["zzz-never-said"], "content": "Always-on harbour rules.", "constant": True, "id": 1, "enabled": True},
        {"keys": ["ferry"], "content": "The ferry runs at dawn.", "id": 2, "enabled": True},
    ],
}
RECORDS = [
    {"user": "Alex", "character": {"name": "Mira"}},
    {"name": "Mira", "role": "assistant", "text": "Welcome to the harbour.", "greeting": True},
    {"name": "Alex", "role": "user", "text": "When does the ferry leave?"},
]


def book_doc() -> Document:
    return Document(format="lorebook_v3", lorebook=Lorebook.model_validate(BOOK), source="harbour.json")


def test_constant_entry_fires_differently_on_agnai() -> None:
    chat = chat_from_records(RECORDS)
    report = fidelity_report(book_doc(), "agnai-book", chats=[chat])
    behaviour = [i for i in report.items if i.path.startswith("behaviour[")]
    assert len(behaviour) == 1
    item = behaviour[0]
    assert item.fate == "approximated"
    assert "fires on the source" in item.detail and "does not fire on the target" in item.detail
    jsonschema.validate(report.to_json(), SCHEMA)


def test_same_platform_has_no_behaviour_items() -> None:
    report = fidelity_report(book_doc(), "character_book", chats=[chat_from_records(RECORDS)])
    assert not [i for i in report.items if i.path.startswith("behaviour[")]
    assert report.warnings == []


def test_platform_without_profile_is_a_warning() -> None:
    report = fidelity_report(book_doc(), "novelai-lorebook", chats=[chat_from_records(RECORDS)])
    assert any("no activation profile for novelai" in w for w in report.warnings)


def test_convert_behaviour_option(tmp_path: Path) -> None:
    src = tmp_path / "harbour.json"
    src.write_text(json.dumps({"spec": "lorebook_v3", "data": BOOK}))
    chat = tmp_path / "chat.jsonl"
    chat.write_text("\n".join(json.dumps(r) for r in RECORDS))
    report = tmp_path / "r.json"
    result = CliRunner().invoke(
        cli,
        [
            "convert",
            str(src),
            "--to",
            "agnai-book",
            "-o",
            str(tmp_path / "o.json"),
            "--behaviour",
            str(chat),
            "--report",
            str(report),
            "-q",
        ],
    )
    assert result.exit_code == 0, result.output
    items = [i for i in json.loads(report.read_text())["items"] if i["path"].startswith("behaviour[")]
    assert len(items) == 1 and items[0]["fate"] == "approximated"


def test_roundtrip_prints_behaviour_items(tmp_path: Path) -> None:
    src = tmp_path / "harbour.json"
    src.write_text(json.dumps({"spec": "lorebook_v3", "data": BOOK}))
    chat = tmp_path / "chats"
    chat.mkdir()
    (chat / "one.jsonl").write_text("\n".join(json.dumps(r) for r in RECORDS))
    result = CliRunner().invoke(cli, ["roundtrip", str(src), "--via", "agnai-book", "--behaviour", str(chat)])
    assert result.exit_code == 0, result.output
    leg = result.output.split("via agnai-book", 1)[1]  # the behaviour items follow the leg's verdict line
    assert '\n    behaviour["' in leg
    assert "activation differs in" in result.output
