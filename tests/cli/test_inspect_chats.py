"""``interop inspect`` on a file holding several chats (RisuAI's "Export all chats"): one line per chat
for people, the objects in ``--json``."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from interop.cli import cli

ALL_CHATS = Path(__file__).parents[2] / "corpus" / "chats" / "risu_all_chats.json"  # storm, harbour, an empty chat


def test_inspect_lists_each_chat_on_its_own_line() -> None:
    result = CliRunner().invoke(cli, ["inspect", str(ALL_CHATS)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    at = lines.index("  chats            3")
    assert lines[at + 1 : at + 4] == [
        "    0  Storm watch (7 messages)",
        "    1  Harbour night (4 messages, 2 local lore entries)",
        "    2  Chat 1 (0 messages)",
    ]
    assert "{'name'" not in result.output  # no Python reprs
    as_json = json.loads(CliRunner().invoke(cli, ["inspect", str(ALL_CHATS), "--json"]).stdout)
    assert as_json[0]["facts"]["chats"][1] == {"name": "Harbour night", "messages": 4, "local_lore_entries": 2}


def test_inspect_shows_a_chat_name_safely() -> None:
    """A chat name is user text: control characters are shown as escapes, not sent to the terminal."""
    obj = json.loads(ALL_CHATS.read_bytes())
    obj["data"][0]["name"] = "Storm\x1b[31m watch"
    result = CliRunner().invoke(cli, ["inspect", "-"], input=json.dumps(obj).encode())
    assert result.exit_code == 0, result.output
    assert "    0  Storm\\e[31m watch (7 messages)" in result.output.splitlines()
