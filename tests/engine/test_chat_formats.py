"""``interop activate --chat`` and ``convert --behaviour`` take every chat format (issue 20, item 2).

The SillyTavern chats are ``corpus/chats/st_harbor.jsonl`` / ``st_storm.jsonl`` (the scenes of
``harbor.jsonl`` / ``storm.jsonl`` as SillyTavern's ``saveChat`` writes them: header line, then
``name``/``is_user``/``is_system``/``send_date``/``mes``/``extra``/``swipes`` per message). The
equivalent interop chat is built here from the interop scene with the header reduced to what a
SillyTavern chat file itself knows (user and character name): the card's description, tags and
avatar file, which feed SillyTavern's match sources and character filter, live in the card.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from interop.cli import cli
from tests.engine.scenario import CHATS

SCENES = {"st_harbor.jsonl": "harbor.jsonl", "st_storm.jsonl": "storm.jsonl"}
PAIRS = [  # the books that fire something in each scene
    *[(b, "st_harbor.jsonl") for b in ("st_matching", "st_recursion", "st_groups", "st_budget", "st_depth")],
    *[(b, "st_storm.jsonl") for b in ("st_matching", "st_recursion", "st_timed")],
]


def invoke(*args: str, stdin: bytes | None = None):
    return CliRunner().invoke(cli, ["activate", *args], input=stdin, catch_exceptions=False)


def equivalent_interop_chat(scene: str, tmp_path: Path) -> Path:
    lines = (CHATS / scene).read_text("utf-8").splitlines()
    header = json.loads(lines[0])
    reduced = {"user": header["user"], "character": {"name": header["character"]["name"]}}
    path = tmp_path / f"equivalent_{scene}"
    path.write_text("\n".join([json.dumps(reduced), *lines[1:]]) + "\n", "utf-8")
    return path


def fired_per_turn(output: str) -> list[tuple[int, list[str]]]:
    return [(r["turn"], [a["entry_id"] for a in r["activated"]]) for r in json.loads(output)]


@pytest.mark.parametrize(("book", "st_chat"), PAIRS)
def test_sillytavern_chat_fires_what_the_equivalent_interop_chat_fires(book: str, st_chat: str, tmp_path) -> None:
    interop_chat = equivalent_interop_chat(SCENES[st_chat], tmp_path)
    st = invoke(str(CHATS / f"{book}.json"), "--chat", str(CHATS / st_chat), "--json", "--all-turns")
    ours = invoke(str(CHATS / f"{book}.json"), "--chat", str(interop_chat), "--json", "--all-turns")
    assert st.exit_code == 0 and ours.exit_code == 0, st.output + ours.output
    assert fired_per_turn(st.output) == fired_per_turn(ours.output)
    assert any(ids for _, ids in fired_per_turn(st.output))  # the comparison is about something


def test_chat_from_standard_input() -> None:
    data = (CHATS / "st_harbor.jsonl").read_bytes()
    piped = invoke(str(CHATS / "st_matching.json"), "--chat", "-", "--json", stdin=data)
    direct = invoke(str(CHATS / "st_matching.json"), "--chat", str(CHATS / "st_harbor.jsonl"), "--json")
    assert piped.exit_code == 0 and json.loads(piped.output) == json.loads(direct.output)


def test_hidden_messages_are_not_scanned(tmp_path) -> None:
    """A message hidden with ``/hide`` (``is_system: true``) is out of the prompt, so out of the scan."""
    lines = (CHATS / "st_harbor.jsonl").read_text("utf-8").split("\n")
    message = json.loads(lines[4])
    assert "KRAKEN-BELL" in message["mes"]
    message["is_system"] = True
    hidden = tmp_path / "hidden.jsonl"
    hidden.write_text("\n".join([*lines[:4], json.dumps(message)]), "utf-8")
    shown = invoke(str(CHATS / "st_matching.json"), "--chat", str(CHATS / "st_harbor.jsonl"), "--json", "--trace")
    masked = invoke(str(CHATS / "st_matching.json"), "--chat", str(hidden), "--json", "--trace")
    keys = {r["key"] for r in json.loads(shown.output)["log"] if r["fired"]}
    masked_keys = {r["key"] for r in json.loads(masked.output)["log"] if r["fired"]}
    assert "kraken-bell" in {str(k).lower() for k in keys}
    assert "kraken-bell" not in {str(k).lower() for k in masked_keys}


@pytest.mark.parametrize(
    ("book", "chat", "platform"),
    [
        ("risu_harbor.json", "risu_harbor_chat.json", "risu"),
        ("risu_harbor.json", "risu_all_chats.json", "risu"),  # the first chat of RisuAI's "Export all chats"
        ("agnai_harbor.json", "agnai_harbor_chat.json", "agnai"),
        ("st_matching.json", "st_group.jsonl", "sillytavern"),
        ("st_matching.json", "harbor_transcript.txt", "sillytavern"),
    ],
)
def test_every_chat_format_drives_activate(book: str, chat: str, platform: str) -> None:
    result = invoke(str(CHATS / book), "--chat", str(CHATS / chat), "--platform", platform, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["turn"] > 0


def test_a_lorebook_is_not_a_chat() -> None:
    result = CliRunner().invoke(
        cli, ["activate", str(CHATS / "st_matching.json"), "--chat", str(CHATS / "st_budget.json")]
    )
    assert result.exit_code == 3 and "not a chat" in result.output


def test_convert_behaviour_takes_a_sillytavern_chat(tmp_path) -> None:
    out = tmp_path / "out.json"
    result = CliRunner().invoke(
        cli,
        [
            "convert",
            str(CHATS / "st_matching.json"),
            "--to",
            "risu-lorebook",
            "-o",
            str(out),
            "--behaviour",
            str(CHATS / "st_harbor.jsonl"),
            "--behaviour",
            "-",
            "--quiet",
        ],
        input=(CHATS / "agnai_harbor_chat.json").read_bytes(),
    )
    assert result.exit_code == 0, result.output
    assert out.exists()


def test_platform_all_compares_the_apps_side_by_side() -> None:
    """``--platform all``: every app's last turn, as ``activate --platform P`` gives it, plus the rows
    pairing the entries (what the web page's playground shows)."""
    book, chat = str(CHATS / "ccv3_harbor.json"), str(CHATS / "st_harbor.jsonl")
    data = json.loads(invoke(book, "--chat", chat, "--platform", "all", "--json", "--trace").output)
    assert data["platforms"][:3] == ["sillytavern", "risu", "agnai"]  # the built-in apps first
    for platform in data["platforms"]:
        single = invoke(book, "--chat", chat, "--platform", platform, "--json", "--trace")
        assert data["results"][platform] == json.loads(single.output)
    text = invoke(book, "--chat", chat, "--platform", "all").output
    assert text.count("\n* ") + text.startswith("* ") == data["differences"] > 0
    refused = CliRunner().invoke(cli, ["activate", book, "--chat", chat, "--platform", "all", "--turn", "2"])
    assert refused.exit_code == 2


# SillyTavern's own export (corpus/chats/make_st_exports.py: SillyTavern 1.12.6 saved the chat and
# gave it back through /api/chats/export, format jsonl). The equivalent interop chat is the
# harbour scene with the two messages SillyTavern keeps out of the prompt as ``system`` lines: the
# /hide-hidden user message and the /sys narrator message.
EXPORT_EXTRA = {
    2: {"name": "Alex", "role": "system", "text": "(OOC: skip the small talk, I want the ferry.)"},
    4: {"name": "System", "role": "system", "text": "Fog rolls in over the Saltmarket; the lamps dim."},
}


def equivalent_of_the_export(tmp_path: Path) -> Path:
    scene = equivalent_interop_chat("harbor.jsonl", tmp_path).read_text("utf-8").splitlines()
    header, messages = scene[0], scene[1:]
    for index in sorted(EXPORT_EXTRA):
        messages.insert(index, json.dumps(EXPORT_EXTRA[index]))
    path = tmp_path / "equivalent_export.jsonl"
    path.write_text("\n".join([header, *messages]) + "\n", "utf-8")
    return path


@pytest.mark.parametrize("book", ["st_matching", "st_recursion", "st_groups", "st_budget", "st_depth"])
def test_sillytavern_own_export_fires_what_the_equivalent_interop_chat_fires(book: str, tmp_path) -> None:
    export = CHATS / "st_export_harbor.jsonl"
    st = invoke(str(CHATS / f"{book}.json"), "--chat", str(export), "--json", "--all-turns")
    ours = invoke(
        str(CHATS / f"{book}.json"), "--chat", str(equivalent_of_the_export(tmp_path)), "--json", "--all-turns"
    )
    assert st.exit_code == 0 and ours.exit_code == 0, st.output + ours.output
    assert fired_per_turn(st.output) == fired_per_turn(ours.output)
    assert any(ids for _, ids in fired_per_turn(st.output))
    # The hidden and narrator messages are out of the prompt: the last turn fires what the same
    # scene without them fires (corpus/chats/st_harbor.jsonl, made by interop's own writer).
    before = invoke(str(CHATS / f"{book}.json"), "--chat", str(CHATS / "st_harbor.jsonl"), "--json", "--all-turns")
    assert fired_per_turn(st.output)[-1][1] == fired_per_turn(before.output)[-1][1]


def test_sillytavern_import_of_an_agnai_chat_fires_like_the_agnai_chat() -> None:
    """``st_export_imported_agnai.jsonl`` is what SillyTavern's importer (``importAgnaiChat``) made
    of ``agnai_harbor_chat.json``: the same messages fire the same entries."""
    book = str(CHATS / "st_matching.json")
    st = invoke(book, "--chat", str(CHATS / "st_export_imported_agnai.jsonl"), "--json", "--all-turns")
    agnai = invoke(book, "--chat", str(CHATS / "agnai_harbor_chat.json"), "--json", "--all-turns")
    assert st.exit_code == 0 and agnai.exit_code == 0, st.output + agnai.output
    assert fired_per_turn(st.output) == fired_per_turn(agnai.output)
    assert any(ids for _, ids in fired_per_turn(st.output))


def test_chat_index_picks_a_chat_of_a_file_holding_several() -> None:
    """``--chat-index N``: chat N of RisuAI's "Export all chats" (``risu_all_chats.json``: storm, harbour,
    an empty chat). Chat 1 is the harbour chat of ``risu_harbor_chat.json``: it fires what that file fires."""
    book, all_chats = str(CHATS / "risu_harbor.json"), str(CHATS / "risu_all_chats.json")
    picked = invoke(book, "--chat", all_chats, "--chat-index", "1", "--platform", "risu", "--json", "--all-turns")
    single = invoke(book, "--chat", str(CHATS / "risu_harbor_chat.json"), "--platform", "risu", "--json", "--all-turns")
    assert picked.exit_code == 0, picked.output
    assert fired_per_turn(picked.output) == fired_per_turn(single.output)
    first = invoke(book, "--chat", all_chats, "--platform", "risu", "--json")
    storm = invoke(book, "--chat", all_chats, "--chat-index", "0", "--platform", "risu", "--json")
    assert json.loads(first.output) == json.loads(storm.output) != json.loads(picked.output)[-1]
    piped = invoke(
        book,
        "--chat",
        "-",
        "--chat-index",
        "1",
        "--platform",
        "risu",
        "--json",
        stdin=(CHATS / "risu_all_chats.json").read_bytes(),
    )
    assert json.loads(piped.output) == json.loads(picked.output)[-1]
    missing = CliRunner().invoke(cli, ["activate", book, "--chat", all_chats, "--chat-index", "3"])
    assert missing.exit_code == 3 and "holds 3 chat(s)" in missing.output


def test_a_card_keeping_chats_names_them_and_the_option_to_pick_one() -> None:
    """A Risu character keeps chats (``chats``): given as --chat without --chat-index, the error says
    how many it keeps and that one is picked by index (``--chat-index``), not only "not a chat"."""
    character = CHATS.parent / "risu" / "lantern_harbor_character.json"
    result = CliRunner().invoke(cli, ["activate", str(CHATS / "st_matching.json"), "--chat", str(character)])
    assert result.exit_code == 3, result.output
    assert "the file is a card (risu-character) keeping 1 chat(s): pick one by its index, 0 to 0" in result.output
