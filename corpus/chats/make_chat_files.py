"""Writes the chat files of each app (issue 20): the harbour and storm scenes of ``harbor.jsonl`` /
``storm.jsonl`` as SillyTavern, RisuAI and Agnai would save or export them, plus group chats and a
plain transcript. Everything is authored here for the project; the layouts follow each app's own
save/export code (cited per file below and in tests/formats/test_chats.py).

Run from the repo root: ``python corpus/chats/make_chat_files.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATES = ["November 2, 2026 7:41pm", "November 2, 2026 7:42pm", "November 2, 2026 7:45pm", "November 2, 2026 7:46pm"]


def _scene(name: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    lines = [json.loads(line) for line in (HERE / name).read_text("utf-8").splitlines() if line.strip()]
    return lines[0], lines[1:]


def _stringify_lines(lines: list[dict[str, Any]]) -> str:
    """SillyTavern ``/api/chats/save``: ``chat.map(JSON.stringify).join('\\n')``."""
    return "\n".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) for line in lines)


def st_single(scene: str, world: str | None) -> str:
    """A character chat as ``saveChat`` (public/script.js) sends it: header, then the messages."""
    header, messages = _scene(scene)
    metadata: dict[str, Any] = {
        "integrity": "0c7e4b2a-5d0f-4b59-9d6e-6a1f1d3c2b11",
        "note_prompt": "[Mira never lies about the tide.]",
        "note_interval": 1,
        "note_depth": 4,
        "note_position": 1,
        "note_role": 0,
        "timedWorldInfo": {"sticky": {}, "cooldown": {}},
        "variables": {"tide": "turning"},
        "tainted": True,
    }
    if world is not None:
        metadata["world_info"] = world
    out: list[dict[str, Any]] = [
        {
            "user_name": header["user"],
            "character_name": header["character"]["name"],
            "create_date": "2026-11-02@19h41m07s",
            "chat_metadata": metadata,
        }
    ]
    for index, msg in enumerate(messages):
        line: dict[str, Any] = {
            "name": msg["name"],
            "is_user": msg["role"] == "user",
            "is_system": False,
            "send_date": DATES[index % len(DATES)],
            "mes": msg["text"],
        }
        if msg["role"] == "user":
            line["extra"] = {}
            line["force_avatar"] = "User Avatars/alex.png"
        elif msg.get("greeting"):
            # getFirstMessage: the greeting's swipes are first_mes + alternate_greetings
            line["extra"] = {}
            line["swipe_id"] = 0
            line["swipes"] = [msg["text"], "Another night, another stranger at the pier."]
            line["swipe_info"] = []
        else:
            line["extra"] = {"api": "openai", "model": "gpt-4o", "token_count": 17}
            line["gen_started"] = "2026-11-02T19:42:10.120Z"
            line["gen_finished"] = "2026-11-02T19:42:13.904Z"
            line["swipe_id"] = 1
            line["swipes"] = ["(an earlier reply, swiped away)", msg["text"]]
            line["swipe_info"] = [
                {"send_date": DATES[1], "gen_started": None, "gen_finished": None, "extra": {"api": "openai"}},
                {"send_date": DATES[2], "gen_started": None, "gen_finished": None, "extra": {"api": "openai"}},
            ]
        out.append(line)
    return _stringify_lines(out)


def st_with_hidden() -> str:
    """The harbour chat plus a hidden message (``/hide``: ``is_system: true``) and a ``/sys``
    narrator message (``sendNarratorMessage``: ``extra.type: "narrator"``), an ISO send_date."""
    lines = [json.loads(x) for x in st_single("harbor.jsonl", "st_matching").split("\n")]
    lines.insert(
        3,
        {
            "name": "Alex",
            "is_user": True,
            "is_system": True,
            "send_date": "2026-11-02T19:43:00.000Z",
            "mes": "(out of character: the KRAKEN-BELL, is it lore?)",
            "extra": {},
        },
    )
    lines.append(
        {
            "name": "System",
            "is_user": False,
            "is_system": False,
            "send_date": DATES[3],
            "mes": "The bells of Vellmar ring midnight.",
            "force_avatar": "img/five.png",
            "extra": {"type": "narrator", "bias": None},
            "x_unknown": {"kept": [1, 2.5, "é"]},
        }
    )
    return _stringify_lines(lines) + "\n"


def st_group(with_header: bool) -> str:
    """A group chat as ``saveGroupChat`` (public/scripts/group-chats.js) stores it: the messages only,
    ``is_group`` on the first (set by ``getGroupChat``), ``original_avatar``/``force_avatar`` per
    speaker. Newer versions write a header with the names "unused"."""
    lines: list[dict[str, Any]] = []
    if with_header:
        lines.append(
            {
                "user_name": "unused",
                "character_name": "unused",
                "create_date": "2026-11-03@08h00m00s",
                "chat_metadata": {"world_info": "st_groups", "integrity": "a1b2c3d4"},
            }
        )
    speakers = [
        ("Mira", False, "mira.png", "The harbour wakes."),
        ("Alex", True, None, "Morning, both of you."),
        ("Roderick", False, "roderick.png", "Morning. The ferry leaves at noon, storm or not."),
        ("Mira", False, "mira.png", "He says that every day."),
    ]
    for index, (name, is_user, avatar, text) in enumerate(speakers):
        line: dict[str, Any] = {"name": name, "is_user": is_user, "is_system": False, "send_date": DATES[index]}
        line["mes"] = text
        line["extra"] = {}
        if avatar:
            line["original_avatar"] = avatar
            line["force_avatar"] = f"/thumbnail?type=avatar&file={avatar}"
        if index == 0 and not with_header:
            line["is_group"] = True
        lines.append(line)
    return _stringify_lines(lines)


def risu_chat() -> str:
    """RisuAI ``exportChat`` "Export as JSON" (src/ts/characters.ts): ``{type: 'risuChat', ver: 2,
    data: chat, folders}``, compact; Chat/Message fields of src/ts/storage/database.svelte.ts."""
    return json.dumps(
        {"type": "risuChat", "ver": 2, "data": _risu_harbor(), "folders": []}, ensure_ascii=False, separators=(",", ":")
    )


def _risu_harbor() -> dict[str, Any]:
    _, messages = _scene("harbor.jsonl")
    local_lore = [
        {
            "key": "kraken-bell, kraken bell",
            "secondkey": "",
            "insertorder": 100,
            "comment": "Kraken-bell",
            "content": "The kraken-bell hangs in the old lighthouse and rings before storms.",
            "mode": "normal",
            "alwaysActive": False,
            "selective": False,
            "useRegex": False,
            "bookVersion": 2,
        },
        {
            "key": "",
            "secondkey": "",
            "insertorder": 100,
            "comment": "Pier rules",
            "content": "Strangers may not sleep on the pier.",
            "mode": "constant",
            "alwaysActive": True,
            "selective": False,
            "useRegex": False,
            "bookVersion": 2,
        },
    ]
    out_messages = []
    for index, msg in enumerate(messages[1:], start=1):  # Risu keeps the greeting out of the list
        item: dict[str, Any] = {"role": "user" if msg["role"] == "user" else "char", "data": msg["text"]}
        item["saying"] = "" if msg["role"] == "user" else "c9f1-mira"
        item["chatId"] = f"m-{index:04d}"
        item["time"] = 1793648460000 + index * 60000
        if msg["role"] != "user":
            item["generationInfo"] = {"model": "claude", "inputTokens": 812, "outputTokens": 40}
        out_messages.append(item)
    out_messages.append(
        {"role": "user", "data": "(note to self: ask about the bell)", "disabled": True, "time": 1793648700000}
    )
    chat = {
        "message": out_messages,
        "note": "[Mira never lies about the tide.]",
        "name": "Harbour night",
        "localLore": local_lore,
        "fmIndex": -1,
        "id": "5b0e2f0c-0d1e-4d7c-9c3a-2b7a1d9e8f00",
        "scriptstate": {"$tide": "turning"},
        "modules": [],
        "lastDate": 1793648700000,
    }
    return chat


def risu_all_chats() -> str:
    """RisuAI ``exportAllChats`` (the chat list's "Export all chats", src/ts/characters.ts):
    ``{type: 'risuAllChats', ver: 2, data: char.chats, folders: char.chatFolders}``, compact. The
    character's chats in its list order: a storm chat in a folder, the harbour chat, an empty
    fresh chat (``characterFormatUpdate``: ``Chat 1``)."""
    _, messages = _scene("storm.jsonl")
    storm = {
        "message": [
            {
                "role": "user" if m["role"] == "user" else "char",
                "data": m["text"],
                "chatId": f"s-{i:04d}",
                "time": 1793735000000 + i * 60000,
            }
            for i, m in enumerate(messages[1:], start=1)
        ],
        "note": "",
        "name": "Storm watch",
        "localLore": [],
        "fmIndex": -1,
        "id": "0f6c1a52-3b7e-4c8a-a0d4-5e6f7a8b9c01",
        "folderId": "fold-weather",
        "lastDate": 1793735480000,
    }
    fresh = {
        "message": [],
        "note": "",
        "name": "Chat 1",
        "localLore": [],
        "fmIndex": -1,
        "id": "7d2e9b40-1c3f-4e5a-8b6d-9f0a1b2c3d4e",
    }
    folders = [{"id": "fold-weather", "name": "Weather", "color": "#3a6ea5", "folded": False}]
    obj = {"type": "risuAllChats", "ver": 2, "data": [storm, _risu_harbor(), fresh], "folders": folders}
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def agnai_chat() -> str:
    """Agnai ``ChatExport`` (web/pages/Chat/ChatExport.tsx): ``JSON.stringify(json, null, 2)`` of
    ``{name: 'Exported', greeting, sampleChat, scenario, messages}``; undefined keys left out."""
    _, messages = _scene("harbor.jsonl")
    out = []
    for msg in messages:
        if msg["role"] == "user":
            out.append({"handle": "Alex", "userId": "u-7f3a", "msg": msg["text"], "state": "created"})
        else:
            out.append({"characterId": "imported", "msg": msg["text"]})
    obj = {
        "name": "Exported",
        "greeting": messages[0]["text"],
        "sampleChat": "",
        "scenario": "Night falls over the Saltmarket.",
        "messages": out,
    }
    return json.dumps(obj, ensure_ascii=False, indent=2)


def transcript() -> str:
    _, messages = _scene("harbor.jsonl")
    return "\n".join(f"{m['name']}: {m['text']}" for m in messages) + "\n"


FILES = {
    "st_harbor.jsonl": lambda: st_single("harbor.jsonl", "st_matching"),
    "st_storm.jsonl": lambda: st_single("storm.jsonl", None),
    "st_hidden.jsonl": st_with_hidden,
    "st_group.jsonl": lambda: st_group(False),
    "st_group_header.jsonl": lambda: st_group(True),
    "risu_harbor_chat.json": risu_chat,
    "risu_all_chats.json": risu_all_chats,
    "agnai_harbor_chat.json": agnai_chat,
    "harbor_transcript.txt": transcript,
}


def main() -> None:
    for name, make in FILES.items():
        (HERE / name).write_text(make(), encoding="utf-8")


if __name__ == "__main__":
    main()
