"""Chat conversions and their report (issue 20, item 3): ``interop convert chat --to risu-chat`` etc.

The fates come from the target's own import rules, cited in the mapping tables: RisuAI
``importChat`` stores the chat object unchanged (stash kept), Agnai's ``importChat``
(srv/api/chat/create.ts) reads only msg/characterId/userId/handle/ooc/retries (everything else
lost in Agnai itself, kept in the file for interop), SillyTavern saves message objects and
``chat_metadata`` as they are (stash kept).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from interop import api
from interop.chatbook import attach_bound_book
from interop.cli import cli
from interop.conversion import convert_document

CHATS = Path(__file__).resolve().parents[2] / "corpus" / "chats"


def report_of(name: str, target: str, *, bound: bool = False):
    doc = api.read(CHATS / name)
    if bound:
        assert attach_bound_book(doc, CHATS / name) is not None
    conversion = convert_document(doc, target)
    return doc, conversion, {item.path: item for item in conversion.report.items}


def test_sillytavern_to_risu_names_every_difference() -> None:
    _, conversion, items = report_of("st_harbor.jsonl", "risu-chat")
    assert items["chat.user"].fate == "stashed" and items["chat.created"].fate == "stashed"
    assert items["message[*].swipes"].fate == "stashed"
    assert items["message[*].text"].fate == "kept" and items["message[*].time"].fate == "kept"
    assert items["chat.native.sillytavern"].fate == "stashed"
    assert not [i for i in conversion.report.items if "not restored" in i.detail]


def test_bound_world_travels_into_local_lore_with_its_findings() -> None:
    doc, conversion, items = report_of("st_harbor.jsonl", "risu-chat", bound=True)
    assert doc.chat.book_external and items["chat.lorebook"].fate == "translated"
    book_items = [i for i in conversion.report.items if i.path.startswith("book.")]
    assert book_items and any(i.fate == "translated" for i in book_items)
    lore = json.loads(conversion.data)["data"]["localLore"]
    assert len(lore) == len(doc.chat.lorebook.entries)


def test_sillytavern_to_agnai_loses_what_agnai_import_ignores() -> None:
    _, conversion, items = report_of("st_hidden.jsonl", "agnai-chat")
    for path in ("message[*].time", "message[*].hidden", "message[*].swipes", "chat.notes", "chat.user"):
        assert items[path].fate == "lost", path
    assert items["message[*].role"].fate == "approximated"  # the /sys narrator message
    assert not [i for i in conversion.report.items if "not restored" in i.detail]


def test_risu_local_lore_to_sillytavern_is_stashed_and_exportable() -> None:
    _, _, items = report_of("risu_harbor_chat.json", "sillytavern-chat")
    assert items["chat.lorebook"].fate == "stashed" and items["chat.title"].fate == "stashed"
    assert any(path.startswith("book.") for path in items)  # the world it would become, reported
    world = api.write(api.read(CHATS / "risu_harbor_chat.json"), "sillytavern-world")
    assert len(json.loads(world)["entries"]) == 2


@pytest.mark.parametrize(("name", "via"), [("st_harbor.jsonl", "risu-chat"), ("st_harbor.jsonl", "agnai-chat")])
def test_cli_there_and_back_is_identical(tmp_path: Path, name: str, via: str) -> None:
    """ST -> Risu -> ST and ST -> Agnai -> ST with the bound world found beside the chat."""
    source = tmp_path / name
    shutil.copy(CHATS / name, source)
    shutil.copy(CHATS / "st_matching.json", tmp_path / "st_matching.json")
    middle, back = tmp_path / f"middle.{via}.json", tmp_path / "back.jsonl"
    first = CliRunner().invoke(cli, ["convert", str(source), "--to", via, "-o", str(middle)])
    assert first.exit_code == 0, first.output
    assert "st_matching" in first.output  # the note naming the bound world
    second = CliRunner().invoke(cli, ["convert", str(middle), "--to", "sillytavern-chat", "-o", str(back), "-q"])
    assert second.exit_code == 0, second.output
    assert back.read_bytes() == source.read_bytes()


def test_cli_truncated_chat_writes_nothing(tmp_path: Path) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes((CHATS / "st_harbor.jsonl").read_bytes()[:-30])
    out = tmp_path / "out.json"
    result = CliRunner().invoke(cli, ["convert", str(broken), "--to", "risu-chat", "-o", str(out)])
    assert result.exit_code == 3
    assert "line 5" in result.output and "truncated" in result.output and "Traceback" not in result.output
    assert not out.exists()


def test_cli_a_card_to_a_chat_format_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(
        cli, ["convert", str(CHATS / "ccv3_harbor.json"), "--to", "sillytavern-chat", "-o", str(out)]
    )
    assert result.exit_code == 3 and not out.exists()


def test_roundtrip_command_checks_chats_against_the_report() -> None:
    """``interop roundtrip`` on a chat goes through the chat formats; the lossy interop-chat leg differs
    only where the report said it would (lost), so nothing is flagged and the exit code is 0."""
    result = CliRunner().invoke(cli, ["roundtrip", str(CHATS / "st_hidden.jsonl")])
    assert result.exit_code == 0, result.output
    assert "via risu-chat -> sillytavern-chat: identical" in result.output
    assert "via agnai-chat -> sillytavern-chat: identical" in result.output
    assert "message[*].time differs" in result.output and "!" not in result.output


def test_diff_compares_chats_through_the_canonical_chat() -> None:
    same = CliRunner().invoke(cli, ["diff", str(CHATS / "st_harbor.jsonl"), str(CHATS / "st_harbor.jsonl")])
    assert same.exit_code == 0 and "no differences" in same.output
    other = CliRunner().invoke(cli, ["diff", str(CHATS / "st_harbor.jsonl"), str(CHATS / "st_storm.jsonl")])
    assert other.exit_code == 1 and "chat.messages: differs" in other.output
    kinds = CliRunner().invoke(cli, ["diff", str(CHATS / "st_harbor.jsonl"), str(CHATS / "st_matching.json")])
    assert kinds.exit_code == 1 and "A is a chat, B is a lorebook" in kinds.output
