"""Chat formats (issue 20): SillyTavern JSONL, RisuAI and Agnai chat exports, interop chat JSONL and
plain transcripts. The samples are written by ``corpus/chats/make_chat_files.py`` after each app's
own save/export code:

* SillyTavern ``public/script.js`` ``saveChat`` (header + messages, ``JSON.stringify`` per line,
  joined with ``\\n``), ``public/scripts/group-chats.js`` ``saveGroupChat`` (messages only),
  ``src/endpoints/chats.js`` ``/save``, ``/group/save``;
* RisuAI ``src/ts/characters.ts`` ``exportChat`` (``{type: 'risuChat', ver: 2, data, folders}``)
  and ``importChat`` (stores the chat object unchanged);
* Agnai ``web/pages/Chat/ChatExport.tsx`` (``JSON.stringify(json, null, 2)``) and
  ``web/pages/Character/ImportChatModal.tsx`` ``importValid``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from interop import api
from interop.cardkit.chat_native import parse_time, st_timestamp
from interop.errors import ConversionError, CorruptInputError, FormatError, InvalidCardError, LimitExceededError
from interop.formats.risu.all_chats import chats_in, select_chat
from interop.inspection import summarize
from interop.limits import Limits

CHATS = Path(__file__).resolve().parents[2] / "corpus" / "chats"
NATIVE = {
    "st_harbor.jsonl": "sillytavern-chat",
    "st_storm.jsonl": "sillytavern-chat",
    "st_hidden.jsonl": "sillytavern-chat",
    "st_group.jsonl": "sillytavern-chat",
    "st_group_header.jsonl": "sillytavern-chat",
    "st_export_harbor.jsonl": "sillytavern-chat",  # SillyTavern 1.12.6's own bytes (make_st_exports.py)
    "st_export_imported_agnai.jsonl": "sillytavern-chat",
    "st_export_group.jsonl": "sillytavern-chat",
    "risu_harbor_chat.json": "risu-chat",
    "agnai_harbor_chat.json": "agnai-chat",
    "harbor.jsonl": "interop-chat",
    "storm.jsonl": "interop-chat",
}
APPS = ("sillytavern-chat", "risu-chat", "agnai-chat")


@pytest.mark.parametrize("name", sorted(NATIVE))
def test_native_round_trip_is_byte_identical(name: str) -> None:
    data = (CHATS / name).read_bytes()
    doc = api.read_bytes(data, filename=name)
    assert doc.format == NATIVE[name] and doc.kind == "chat"
    assert api.write(doc, doc.format) == data


@pytest.mark.parametrize(
    ("name", "via"),
    [(n, t) for n, f in sorted(NATIVE.items()) if f in APPS for t in APPS if t != f]
    + [(n, t) for n, f in sorted(NATIVE.items()) if f == "interop-chat" for t in APPS],
)
def test_to_another_app_and_back_is_identical(name: str, via: str) -> None:
    """ST -> Risu -> ST, ST -> Agnai -> ST, and every other pair: what the target cannot hold is
    stashed (``interop_stash``) and restored, so the way back gives the file back byte for byte."""
    data = (CHATS / name).read_bytes()
    doc = api.read_bytes(data, filename=name)
    middle = api.read_bytes(api.write(doc, via), filename=f"x{via}")
    assert middle.format == via
    assert [m.text for m in middle.chat.messages] == [m.text for m in doc.chat.messages]
    assert api.write(middle, doc.format) == data


def test_sillytavern_fields() -> None:
    doc = api.read(CHATS / "st_harbor.jsonl")
    chat = doc.chat
    assert (chat.user, chat.character, chat.group, chat.book_name) == ("Alex", "Mira", False, "st_matching")
    assert chat.notes == "[Mira never lies about the tide.]"
    greeting, _, reply, _ = chat.messages
    # getFirstMessage: the greeting's swipes are first_mes + alternate_greetings
    assert greeting.swipes is not None and len(greeting.swipes) == 2 and greeting.swipe_index == 0
    assert reply.swipe_index == 1 and reply.swipes[1] == reply.text
    assert greeting.time == parse_time("November 2, 2026 7:41pm")
    assert chat.created == parse_time("2026-11-02T19:41:07Z")


def test_sillytavern_hidden_and_narrator_messages() -> None:
    chat = api.read(CHATS / "st_hidden.jsonl").chat
    hidden = [m for m in chat.messages if m.hidden]
    assert len(hidden) == 1 and hidden[0].role == "user"  # /hide sets is_system on a user message
    narrator = chat.messages[-1]
    assert narrator.role == "system" and not narrator.hidden  # sendNarratorMessage: extra.type "narrator"
    assert hidden[0] is chat.messages[2] and hidden[0].time == parse_time("2026-11-02T19:43:00.000Z")


@pytest.mark.parametrize("name", ["st_group.jsonl", "st_group_header.jsonl", "st_export_group.jsonl"])
def test_sillytavern_group_chats(name: str) -> None:
    chat = api.read(CHATS / name).chat
    assert chat.group and chat.character is None
    assert chat.characters == ["Mira", "Roderick"]


def test_sillytavern_own_export() -> None:
    """``st_export_harbor.jsonl``: saved by SillyTavern 1.12.6 (``/api/chats/save``) and downloaded
    through its chat export (``/api/chats/export``, ``format: "jsonl"``), see make_st_exports.py."""
    chat = api.read(CHATS / "st_export_harbor.jsonl").chat
    assert (chat.user, chat.character, chat.group, chat.book_name) == ("Alex", "Mira", False, "st_matching")
    assert [(m.role, m.hidden) for m in chat.messages] == [
        ("assistant", False),
        ("user", False),
        ("user", True),
        ("assistant", False),
        ("system", False),
        ("user", False),
    ]
    greeting, reply = chat.messages[0], chat.messages[3]
    assert greeting.swipes == [
        "Welcome to Vellmar, traveler. The tide is turning.",
        "Another night, another stranger at the pier.",
    ]
    assert reply.swipe_index == 1 and reply.text == reply.swipes[1] and len(reply.swipes) == 2
    assert chat.messages[-1].time == parse_time("November 28, 2026 12:31am")
    assert chat.created == parse_time("2026-11-28T00:25:41Z")


def test_sillytavern_importer_dates() -> None:
    """SillyTavern's chat importer stamps the header and every message with
    ``humanizedISO8601DateTime`` (``src/util.js``: ``2026-11-28 @00h 25m 41s 656ms``)."""
    chat = api.read(CHATS / "st_export_imported_agnai.jsonl").chat
    assert chat.created == parse_time("2026-11-28T00:25:41.656Z")
    assert {m.time for m in chat.messages} == {chat.created}
    assert [m.role for m in chat.messages] == ["assistant", "user", "assistant", "user"]


def test_risu_fields_and_local_lore() -> None:
    chat = api.read(CHATS / "risu_harbor_chat.json").chat
    assert chat.title == "Harbour night" and chat.notes == "[Mira never lies about the tide.]"
    assert [m.role for m in chat.messages] == ["user", "assistant", "user", "user"]
    assert chat.messages[-1].hidden  # disabled: true
    assert chat.messages[0].time == 1793648460000 + 60000
    assert chat.lorebook is not None and [e.comment for e in chat.lorebook.entries] == ["Kraken-bell", "Pier rules"]
    assert chat.lorebook.entries[1].constant is True


def test_agnai_roles_from_ids() -> None:
    chat = api.read(CHATS / "agnai_harbor_chat.json").chat
    assert [m.role for m in chat.messages] == ["assistant", "user", "assistant", "user"]
    assert chat.messages[1].name == "Alex" and chat.messages[0].name is None
    assert chat.scenario == "Night falls over the Saltmarket." and chat.title == "Exported"


def test_agnai_import_rules_hold_for_written_files() -> None:
    """ImportChatModal ``importValid``: name, greeting, scenario, sampleChat strings, ``messages[].msg``;
    ``userId`` marks the user's messages (srv/api/chat/create.ts importChat)."""
    doc = api.read(CHATS / "st_harbor.jsonl")
    obj = json.loads(api.write(doc, "agnai-chat"))
    assert all(isinstance(obj[k], str) for k in ("name", "greeting", "scenario", "sampleChat"))
    assert all(isinstance(m["msg"], str) for m in obj["messages"])
    assert [bool(m.get("userId")) for m in obj["messages"]] == [m.role == "user" for m in doc.chat.messages]


def test_risu_import_rules_hold_for_written_files() -> None:
    """importChat (ver 1 check): message, note, name and localLore must not be nullish; ver 2 reads data."""
    obj = json.loads(api.write(api.read(CHATS / "st_group.jsonl"), "risu-chat"))
    assert obj["type"] == "risuChat" and obj["ver"] == 2
    assert all(obj["data"][k] is not None for k in ("message", "note", "name", "localLore"))
    assert {m["role"] for m in obj["data"]["message"]} <= {"user", "char"}


def test_sillytavern_import_rules_hold_for_written_files() -> None:
    """chats.js /import (jsonl): the first line needs user_name or name; every message needs mes."""
    lines = api.write(api.read(CHATS / "risu_harbor_chat.json"), "sillytavern-chat").decode().split("\n")
    header = json.loads(lines[0])
    assert "user_name" in header and "chat_metadata" in header
    assert all(isinstance(json.loads(line)["mes"], str) for line in lines[1:])


def test_transcript_reads_but_is_not_written() -> None:
    doc = api.read(CHATS / "harbor_transcript.txt")
    assert doc.format == "transcript"
    assert [m.name for m in doc.chat.messages] == ["Mira", "Alex", "Mira", "Alex"]
    assert [m.role for m in doc.chat.messages] == ["assistant", "assistant", "assistant", "assistant"]
    with pytest.raises(FormatError):
        api.write(doc, "transcript")


def test_transcript_user_names() -> None:
    doc = api.read_bytes(b"You: hello there\nMira: Welcome.\nstill Mira here\n", filename="t.txt")
    assert [(m.role, m.text) for m in doc.chat.messages] == [
        ("user", "hello there"),
        ("assistant", "Welcome.\nstill Mira here"),
    ]


def test_truncated_jsonl_names_the_line() -> None:
    data = (CHATS / "st_harbor.jsonl").read_bytes()
    with pytest.raises(CorruptInputError) as info:
        api.read_bytes(data[:-20], filename="cut.jsonl", format="sillytavern-chat")
    assert info.value.location == "line 5" and "truncated" in info.value.reason


def test_mixed_encodings_name_the_line() -> None:
    lines = (CHATS / "st_harbor.jsonl").read_bytes().split(b"\n")
    lines[2] = lines[2].replace(b"passage", "passagé".encode("latin-1"))
    with pytest.raises(CorruptInputError) as info:
        api.read_bytes(b"\n".join(lines), filename="mixed.jsonl")
    assert info.value.location == "line 3" and "encoding" in info.value.reason


def test_oversized_chat_is_refused_before_reading(tmp_path: Path) -> None:
    big = tmp_path / "huge.jsonl"
    with big.open("wb") as handle:
        handle.truncate(1 << 30)  # a sparse 1 GiB file: refused from its size, never read
    with pytest.raises(LimitExceededError):
        api.read(big)
    small = Limits(max_file_bytes=100)
    with pytest.raises(LimitExceededError):
        api.read(CHATS / "st_harbor.jsonl", limits=small)


def test_message_without_mes_is_a_typed_error() -> None:
    data = b'{"user_name":"A","character_name":"B","chat_metadata":{}}\n{"name":"B","is_user":false}'
    with pytest.raises(InvalidCardError) as info:
        api.read_bytes(data, filename="x.jsonl")
    assert info.value.location == "line 2"


def test_a_card_is_not_written_as_a_chat() -> None:
    card = api.read(CHATS / "ccv3_harbor.json")
    for target in APPS:
        with pytest.raises(ConversionError):
            api.write(card, target)


def test_a_chat_without_a_lorebook_is_not_written_as_one_and_the_error_says_chat() -> None:
    """A chat with no own lorebook and no bound world found gives no lorebook; the error names a
    chat, not a card's ``character_book`` (the message cards get)."""
    chat = api.read(CHATS / "agnai_harbor_chat.json")
    with pytest.raises(ConversionError, match=": the chat has no lorebook"):
        api.write(chat, "sillytavern-world")


def test_sillytavern_timestamps() -> None:
    """getMessageTimeStamp (public/scripts/RossAscends-mods.js): 12-hour clock, 0 shown as 12."""
    assert st_timestamp(parse_time("November 2, 2026 12:05am")) == "November 2, 2026 12:05am"
    assert parse_time("November 2, 2026 12:05am") == parse_time("2026-11-02T00:05:00Z")
    assert parse_time("November 2, 2026 12:05pm") == parse_time("2026-11-02T12:05:00Z")
    assert parse_time("2026-11-02@19h41m07s") == parse_time("2026-11-02T19:41:07Z")
    assert parse_time("not a date") is None


@pytest.mark.parametrize(
    "text",
    [
        b"name: n\ncontext: &a [x, x]\nb: [*a, *a]\n",  # YAML anchors and flow lists
        b"name: Tamsin\ngreeting: |\n  Hello there.\ncontext: She runs the mill.\n",  # block scalar
        b"a: b\nc: d\n",  # settings, nobody speaking
    ],
)
def test_key_value_text_is_not_a_transcript(text: bytes) -> None:
    assert "transcript" not in [d.format for d in api.detect_all(text, "x.txt")]


def test_unused_header_names_with_one_character_are_not_a_group() -> None:
    lines = (CHATS / "st_harbor.jsonl").read_text("utf-8").split("\n")
    header = json.loads(lines[0])
    header["user_name"] = header["character_name"] = "unused"
    data = "\n".join([json.dumps(header, separators=(",", ":")), *lines[1:]]).encode()
    doc = api.read_bytes(data, filename="single.jsonl")
    assert not doc.chat.group and doc.chat.character is None and doc.chat.characters == ["Mira"]
    assert api.write(doc, "sillytavern-chat") == data


def test_risu_all_chats_lists_and_selects() -> None:
    """RisuAI ``exportAllChats`` (src/ts/characters.ts): ``{type: 'risuAllChats', ver: 2, data:
    char.chats, folders: char.chatFolders}``. The document is the first chat; every chat is listed."""
    doc = api.read(CHATS / "risu_all_chats.json")
    assert doc.format == "risu-all-chats" and doc.kind == "chat"
    chats = chats_in(doc)
    assert [(c.title, len(c.messages)) for c in chats] == [("Storm watch", 7), ("Harbour night", 4), ("Chat 1", 0)]
    assert doc.chat is chats[0]
    assert summarize(doc, "x")["facts"]["chats"][1] == {"name": "Harbour night", "messages": 4, "local_lore_entries": 2}
    # One chat of the file, written as RisuAI's single-chat export (exportChat: folders = the chat's
    # folder), is the export of that chat: the harbour chat gives risu_harbor_chat.json byte for byte.
    harbour = select_chat(doc, 1)
    assert harbour.chat is chats[1] and summarize(harbour, "x")["facts"]["selected"] == 1
    assert api.write(harbour, "risu-chat") == (CHATS / "risu_harbor_chat.json").read_bytes()
    storm = json.loads(api.write(doc, "risu-chat"))
    source = json.loads((CHATS / "risu_all_chats.json").read_bytes())
    assert storm["data"] == source["data"][0] and storm["folders"] == source["folders"]
    with pytest.raises(InvalidCardError, match="holds 3 chat"):
        select_chat(doc, 3)


def test_risu_all_chats_version_1_and_bad_input() -> None:
    """``importChat`` also takes ``ver`` 1 (no folders); an empty list is refused (RisuAI: noData)."""
    one = {
        "type": "risuAllChats",
        "ver": 1,
        "data": [{"message": [{"role": "user", "data": "hi"}], "note": "", "name": "A", "localLore": []}],
    }
    doc = api.read_bytes(json.dumps(one).encode(), filename="all.json")
    assert doc.format == "risu-all-chats" and [m.text for m in doc.chat.messages] == ["hi"]
    with pytest.raises(InvalidCardError, match="no chat"):
        api.read_bytes(b'{"type":"risuAllChats","ver":2,"data":[]}', filename="all.json")
    with pytest.raises(InvalidCardError, match="role"):
        api.read_bytes(b'{"type":"risuAllChats","ver":2,"data":[{"message":[{"role":"x","data":""}]}]}')


@pytest.mark.parametrize("index", [0, 1, 2])
@pytest.mark.parametrize("via", ["sillytavern-chat", "agnai-chat"])
def test_each_risu_chat_of_an_all_chats_export_goes_there_and_back(index: int, via: str) -> None:
    """Each chat, as its single export, to SillyTavern or Agnai and back gives that export byte for
    byte. The storm chat's times have seconds, which SillyTavern's ``send_date`` (minutes) cannot
    hold: the exact time is stashed."""
    chat = select_chat(api.read(CHATS / "risu_all_chats.json"), index)
    single = api.read_bytes(api.write(chat, "risu-chat"), filename="single.json")
    middle = api.read_bytes(api.write(single, via), filename=f"x{via}")
    assert api.write(middle, "risu-chat") == api.write(chat, "risu-chat")
    if index == 0 and via == "sillytavern-chat":
        first = json.loads(api.write(single, via).split(b"\n")[1])
        assert first["interop_stash"]["fields"]["time"] == chat.chat.messages[0].time
        assert parse_time(first["send_date"]) != chat.chat.messages[0].time


def test_chats_inside_a_risu_character() -> None:
    """A Risu character (``risu-character``, Risu's own character object as its database and backups
    keep it) holds its chats in ``chats``: listed and picked like an all-chats export's; a picked
    chat written as ``risu-chat`` is that chat's "Export as JSON"."""
    character = json.loads(
        (Path(__file__).resolve().parents[2] / "corpus/risu/lantern_harbor_character.json").read_bytes()
    )
    harbour = json.loads((CHATS / "risu_harbor_chat.json").read_bytes())["data"]
    character["chats"] = [*character["chats"], harbour]
    doc = api.read_bytes(json.dumps(character).encode(), filename="character.json")
    assert doc.format == "risu-character" and doc.kind == "card"
    chats = chats_in(doc)
    assert [(c.title, c.character, len(c.messages)) for c in chats] == [
        ("Chat 1", "Mira", 0),
        ("Harbour night", "Mira", 4),
    ]
    picked = select_chat(doc, 1)
    assert picked.format == "risu-chat" and picked.chat is not None and picked.chat.lorebook is not None
    written = json.loads(api.write(picked, "risu-chat"))
    assert {k: v for k, v in written["data"].items() if k != "interop_stash"} == harbour
    assert written["data"]["interop_stash"]["fields"] == {"character": "Mira"}  # whose chat it was


def test_a_risu_characters_chat_names_the_replies_it_says() -> None:
    """RisuAI stamps every reply with the speaker's id (``process/index.svelte.ts`` ``sendChat``:
    ``saying: currentChar.chaId``) and names a message ``msg.name``, else the character
    ``findCharacterbyId(msg.saying)`` (``lorebook.svelte.ts`` ``loadLoreBookV3Prompt``). A Risu
    character holds its own id: its chats' replies get its name; the chat written back to Risu is
    unchanged (no ``name`` added). An id the file does not hold, or a chat export alone (it holds no
    characters), keeps the id only."""
    character = json.loads(
        (Path(__file__).resolve().parents[2] / "corpus/risu/lantern_harbor_character.json").read_bytes()
    )
    harbour = json.loads((CHATS / "risu_harbor_chat.json").read_bytes())["data"]
    assert [m.get("saying") for m in harbour["message"]] == ["", "c9f1-mira", "", None]
    stranger = {**harbour, "message": [{**m, "saying": "c9f1-other"} for m in harbour["message"]]}
    character.update(chaId="c9f1-mira", chats=[harbour, stranger])
    doc = api.read_bytes(json.dumps(character).encode(), filename="character.json")
    named, unknown = chats_in(doc)
    assert [m.name for m in named.messages] == [None, "Mira", None, None]
    assert [m.name for m in unknown.messages] == [None] * 4
    written = json.loads(api.write(select_chat(doc, 0), "risu-chat"))
    assert {k: v for k, v in written["data"].items() if k != "interop_stash"} == harbour
    st = [json.loads(line) for line in api.write(select_chat(doc, 0), "sillytavern-chat").splitlines()]
    assert st[2]["name"] == "Mira" and st[2]["mes"] == harbour["message"][1]["data"]
    alone = api.read(CHATS / "risu_harbor_chat.json").chat
    assert [m.name for m in alone.messages] == [None] * 4


def test_inspect_lists_the_chats_a_risu_character_keeps() -> None:
    """``interop inspect`` of a Risu character names its chats, as for an all-chats export, so the
    user can find the index ``--chat-index`` takes."""
    doc = api.read(CHATS.parent / "risu" / "lantern_harbor_character.json")
    facts = summarize(doc, "x")["facts"]
    assert facts["chats"] == [{"name": "Chat 1", "messages": 0, "local_lore_entries": 0}]
    assert facts["decorators"]  # the book's facts are still there
