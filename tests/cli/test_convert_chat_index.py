"""``interop convert --chat-index N``: chat N of a file holding several chats (issue 20).

RisuAI ``src/ts/characters.ts``: ``exportAllChats`` writes every chat of a character
(``{type: 'risuAllChats', ver: 2, data: char.chats, ...}``); a Risu character object keeps its
chats in ``chats``. ``exportChat`` writes one chat (``{type: 'risuChat', ver: 2, data: chat, ...}``).
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from interop.cli import EXIT_INPUT, cli

CORPUS = Path(__file__).parents[2] / "corpus"
ALL_CHATS = CORPUS / "chats" / "risu_all_chats.json"  # storm, harbour, an empty chat
HARBOUR = CORPUS / "chats" / "risu_harbor_chat.json"  # the harbour chat's single export


def run(*args: str, stdin: bytes | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=stdin)


def test_chat_index_converts_that_chat(tmp_path: Path) -> None:
    """Chat 1 of the all-chats export, written as ``risu-chat``, is that chat's single export."""
    out = tmp_path / "harbour.json"
    result = run("convert", str(ALL_CHATS), "--chat-index", "1", "--to", "risu-chat", "-o", str(out), "-q")
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == HARBOUR.read_bytes()
    first = tmp_path / "first.json"
    assert run("convert", str(ALL_CHATS), "--to", "risu-chat", "-o", str(first), "-q").exit_code == 0
    assert json.loads(first.read_bytes())["data"]["name"] == "Storm watch"  # default: the first chat


def test_chat_index_reads_standard_input() -> None:
    result = run("convert", "-", "--chat-index", "1", "--to", "risu-chat", stdin=ALL_CHATS.read_bytes())
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == json.loads(HARBOUR.read_bytes())


def test_chat_index_picks_a_chat_a_risu_character_keeps(tmp_path: Path) -> None:
    """A Risu character holding chats: chat N goes to SillyTavern named after the character."""
    character = json.loads((CORPUS / "risu" / "lantern_harbor_character.json").read_bytes())
    character["chats"] = [*character["chats"], json.loads(HARBOUR.read_bytes())["data"]]
    source = tmp_path / "character.json"
    source.write_text(json.dumps(character), "utf-8")
    out = tmp_path / "harbour.jsonl"
    result = run("convert", str(source), "--chat-index", "1", "--to", "sillytavern-chat", "-o", str(out), "-q")
    assert result.exit_code == 0, result.output
    header, *messages = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert header["character_name"] == "Mira"
    harbour = json.loads(HARBOUR.read_bytes())["data"]["message"]
    assert [m["mes"] for m in messages] == [m["data"] for m in harbour]


def test_a_wrong_chat_index_is_one_line_naming_the_file_and_the_range(tmp_path: Path) -> None:
    out = tmp_path / "x.json"
    result = run("convert", str(ALL_CHATS), "--chat-index", "3", "--to", "risu-chat", "-o", str(out))
    assert result.exit_code == EXIT_INPUT
    assert result.stderr.strip().splitlines() == [
        f"interop: error: {ALL_CHATS}: chat 3 asked for; the file holds 3 chat(s), 0 to 2"
    ]
    assert not out.exists()
    for card in (CORPUS / "cards" / "ilse_v3.json", CORPUS / "cards" / "old_tom_v1.json"):  # V1: no extensions
        result = run("convert", str(card), "--chat-index", "0", "--to", "risu-chat", "-o", str(out))
        assert result.exit_code == EXIT_INPUT and "the file holds no chat" in result.stderr, result.output
        assert "Traceback" not in result.output and not out.exists()
