"""Make ``st_export_*.jsonl`` with a running SillyTavern server (provenance of those files).

Not run by the tests: it needs SillyTavern (AGPL, not in this repository) started from its own
source. How the committed files were made (2026-11-28):

    SillyTavern 1.12.6, commit ba6f7b7a98cf7a5eaf4f0e81da9779a9a668ced4, `git archive` into /tmp/st,
    `npm install --omit=dev`, config.yaml from default/ with dataRoot /tmp/st-data, port 18931,
    whitelistMode false, disableCsrfProtection true, autorun false; `node server.js` (Node 20).
    python corpus/chats/make_st_exports.py http://127.0.0.1:18931

Every file is SillyTavern's own bytes: the server writes a chat with ``/api/chats/save`` (or
``/api/chats/group/save``, or its importer ``/api/chats/import``) and hands it back through the
chat menu's "Export chat" endpoint ``/api/chats/export`` with ``format: "jsonl"``
(``src/endpoints/chats.js``: the raw file). The message objects sent to ``/save`` are built the way
SillyTavern's browser code builds them (that code needs a browser, so it is mirrored here from
1.12.6): ``public/script.js`` ``getFirstMessage`` (greeting with alternate greetings as swipes),
``sendMessageAsUser`` (``extra.isSmallSys``), ``saveReply`` (``extra`` first, no ``is_system``,
``gen_started``/``gen_finished`` as ISO dates, ``swipe_info``), ``public/scripts/chats.js``
``hideChatMessageRange`` (``is_system: true``), ``public/scripts/slash-commands.js``
``sendNarratorMessage`` (``/sys``), ``public/scripts/RossAscends-mods.js`` ``getMessageTimeStamp``
and ``humanizedDateTime``; the header is ``saveChat``'s, with the world bound through the chat's
lorebook button (``chat_metadata.world_info``, ``public/scripts/world-info.js`` ``METADATA_KEY``).
The text is the harbour scene of ``harbor.jsonl``.
"""

from __future__ import annotations

import json
import sys
import urllib.parse
import urllib.request
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
MONTHS = [
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
]  # fmt: skip


def post(base: str, route: str, body: object, form: bool = False) -> bytes:
    if form:
        data, kind = urllib.parse.urlencode(body, doseq=True).encode(), "application/x-www-form-urlencoded"
    else:
        data, kind = json.dumps(body).encode(), "application/json"
    request = urllib.request.Request(base + route, data=data, headers={"Content-Type": kind}, method="POST")
    with urllib.request.urlopen(request) as response:
        return response.read()


def post_file(base: str, route: str, fields: dict[str, str], name: str, content: bytes) -> bytes:
    boundary = uuid.uuid4().hex
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode() for k, v in fields.items()
    ]
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="avatar"; filename="{name}"\r\n'
        f"Content-Type: application/json\r\n\r\n".encode()
        + content
        + b"\r\n"
    )
    data = b"".join(parts) + f"--{boundary}--\r\n".encode()
    headers = {"Content-Type": f"multipart/form-data; boundary={boundary}"}
    with urllib.request.urlopen(urllib.request.Request(base + route, data=data, headers=headers)) as response:
        return response.read()


def stamp(at: datetime) -> str:
    """``getMessageTimeStamp``: ``November 28, 2026 12:41am``."""
    hours = at.hour % 12 or 12
    meridiem = "pm" if at.hour >= 12 else "am"
    return f"{MONTHS[at.month - 1]} {at.day}, {at.year} {hours}:{at.minute:02d}{meridiem}"


def humanized(at: datetime) -> str:
    """``humanizedDateTime``: ``2026-11-28@00h41m07s``."""
    return at.strftime("%Y-%m-%d@%Hh%Mm%Ss")


def iso(at: datetime) -> str:
    """``JSON.stringify(new Date())``."""
    return at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z"


def user_message(text: str, at: datetime) -> dict:
    return {
        "name": "Alex",
        "is_user": True,
        "is_system": False,
        "send_date": stamp(at),
        "mes": text,
        "extra": {"isSmallSys": False},
    }


def reply(texts: list[str], shown: int, at: datetime) -> dict:
    """``saveReply`` 'normal' then 'swipe's: every swipe gets its own ``swipe_info``; ``title`` is
    undefined (``extractTitleFromData``) so ``JSON.stringify`` leaves it out."""
    info = []
    for i, _ in enumerate(texts):
        started, finished = at + timedelta(seconds=20 * i), at + timedelta(seconds=20 * i + 4)
        extra = {"api": "openai", "model": "gpt-4o-2024-08-06"}
        info.append(
            {"send_date": stamp(finished), "gen_started": iso(started), "gen_finished": iso(finished), "extra": extra}
        )
    last = info[shown]
    return {
        "extra": dict(last["extra"]),
        "name": "Mira",
        "is_user": False,
        "send_date": last["send_date"],
        "mes": texts[shown],
        "gen_started": last["gen_started"],
        "gen_finished": last["gen_finished"],
        "swipe_id": shown,
        "swipes": texts,
        "swipe_info": info,
    }


def harbour_chat(character: dict, start: datetime) -> list[dict]:
    greeting = {
        "name": "Mira",
        "is_user": False,
        "is_system": False,
        "send_date": stamp(start),
        "mes": character["first_mes"],
        "extra": {},
    }
    greeting.update(
        swipe_id=0, swipes=[character["first_mes"], *character["data"]["alternate_greetings"]], swipe_info=[]
    )
    hidden = user_message("(OOC: skip the small talk, I want the ferry.)", start + timedelta(minutes=2))
    hidden["is_system"] = True  # /hide 2
    narrator = {
        "name": "System",
        "is_user": False,
        "is_system": False,
        "send_date": stamp(start + timedelta(minutes=5)),
        "mes": "Fog rolls in over the Saltmarket; the lamps dim.",
        "force_avatar": "img/five.png",
        "extra": {
            "type": "narrator",
            "bias": None,
            "gen_id": int(start.timestamp() * 1000) + 300_000,
            "isSmallSys": False,
            "api": "manual",
            "model": "slash command",
        },
    }
    return [
        greeting,
        user_message("I need passage to the Glass Isles. Is the ferry running?", start + timedelta(minutes=1)),
        hidden,
        reply(
            ["The ferry? Not tonight, friend.", "The ferrymen are on strike, but old Captain Roderick might take you."],
            1,
            start + timedelta(minutes=3),
        ),
        narrator,
        user_message(
            "Where can I find Roderick? And what is this KRAKEN-BELL I keep hearing?", start + timedelta(minutes=6)
        ),
    ]


def group_chat(members: list[dict], start: datetime) -> list[dict]:
    """A fresh group chat (``public/scripts/group-chats.js`` ``getGroupChat``: the "group" system
    message, then each member's ``getFirstCharacterMessage``), a user message and a group reply
    (``saveReply`` with ``force_avatar``, ``original_avatar``, ``extra.gen_id``)."""
    created = {
        "name": "SillyTavern System",
        "force_avatar": "img/five.png",
        "is_user": False,
        "is_system": True,
        "is_group": True,
        "mes": "Group chat created. Say 'Hi' to lovely people!",
        "send_date": stamp(start),
        "extra": {"isSmallSys": True, "type": "group"},
    }
    chat = [created]
    for i, member in enumerate(members):
        chat.append(
            {
                "is_user": False,
                "is_system": False,
                "name": member["name"],
                "send_date": stamp(start),
                "original_avatar": member["avatar"],
                "extra": {"gen_id": 1732754000000.25 * (i + 1)},
                "mes": member["first_mes"],
                "force_avatar": f"/thumbnail?type=avatar&file={member['avatar']}",
            }
        )
    chat.append(user_message("Roderick, will you sail tonight? I heard the KRAKEN-BELL.", start + timedelta(minutes=1)))
    answer = reply(["Not while that bell rings, lad. Mira knows the tide."], 0, start + timedelta(minutes=2))
    answer["name"] = "Roderick"
    answer["force_avatar"] = f"/thumbnail?type=avatar&file={members[1]['avatar']}"
    answer["original_avatar"] = members[1]["avatar"]
    answer["extra"]["gen_id"] = int(start.timestamp() * 1000) + 120_000
    answer["swipe_info"][0]["extra"] = dict(answer["extra"])
    keys = [
        "extra",
        "name",
        "is_user",
        "send_date",
        "mes",
        "gen_started",
        "gen_finished",
        "force_avatar",
        "original_avatar",
        "swipe_id",
        "swipes",
        "swipe_info",
    ]  # saveReply's order for a group reply
    chat.append({k: answer[k] for k in keys})
    return chat


def make_group(base: str) -> None:
    form = {
        "ch_name": "Roderick",
        "description": "Roderick is an old ferry captain.",
        "first_mes": "Captain Roderick, at your service. Mind the ropes.",
        "tags": "t-captain",
    }
    post(base, "/api/characters/create", form, form=True)
    characters = json.loads(post(base, "/api/characters/all", {}))
    members = [c for name in ("Mira", "Roderick") for c in characters if c["name"] == name]
    group = json.loads(
        post(
            base,
            "/api/groups/create",
            {
                "name": "Harbour",
                "members": [m["avatar"] for m in members],
                "avatar_url": "",
                "allow_self_responses": False,
                "activation_strategy": 0,
                "generation_mode": 0,
                "disabled_members": [],
                "chat_metadata": {},
                "fav": False,
            },
        )
    )
    chat = group_chat(members, datetime.now(UTC).replace(tzinfo=None))
    post(base, "/api/chats/group/save", {"id": group["chat_id"], "chat": chat})
    data = export(base, group["chat_id"] + ".jsonl", "", True)
    (HERE / "st_export_group.jsonl").write_bytes(data)


def export(base: str, file: str, avatar: str, is_group: bool) -> bytes:
    body = {"is_group": is_group, "avatar_url": avatar, "file": file, "exportfilename": file, "format": "jsonl"}
    return json.loads(post(base, "/api/chats/export", body))["result"].encode("utf-8")


def make(base: str) -> None:
    world = json.loads((HERE / "st_matching.json").read_text("utf-8"))
    post(base, "/api/worldinfo/edit", {"name": "st_matching", "data": world})
    form = {
        "ch_name": "Mira",
        "description": "Mira is a harbor pilot of Vellmar.",
        "personality": "Dry humour, patient.",
        "scenario": "Night falls over the Saltmarket.",
        "first_mes": "Welcome to Vellmar, traveler. The tide is turning.",
        "alternate_greetings": "Another night, another stranger at the pier.",
        "tags": "t-guide",
        "world": "st_matching",
        "talkativeness": "0.5",
        "fav": "false",
    }
    avatar = post(base, "/api/characters/create", form, form=True).decode()
    character = json.loads(post(base, "/api/characters/get", {"avatar_url": avatar}))
    start = datetime.now(UTC).replace(tzinfo=None)
    header = {
        "user_name": "Alex",
        "character_name": "Mira",
        "create_date": humanized(start),
        "chat_metadata": {
            "integrity": str(uuid.uuid4()),
            "world_info": "st_matching",
            "note_prompt": "[Mira never lies about the tide.]",
            "note_interval": 1,
            "note_position": 1,
            "note_depth": 4,
            "note_role": 0,
            "tainted": True,
            "timedWorldInfo": {"sticky": {}, "cooldown": {}},
        },
    }
    chat = [header, *harbour_chat(character, start)]
    post(
        base, "/api/chats/save", {"ch_name": "Mira", "file_name": character["chat"], "chat": chat, "avatar_url": avatar}
    )
    (HERE / "st_export_harbor.jsonl").write_bytes(export(base, character["chat"] + ".jsonl", avatar, False))

    # SillyTavern's own importer builds the messages of an Agnai chat export.
    fields = {"file_type": "json", "avatar_url": avatar, "character_name": "Mira", "user_name": "Alex"}
    post_file(
        base, "/api/chats/import", fields, "agnai_harbor_chat.json", (HERE / "agnai_harbor_chat.json").read_bytes()
    )
    chats = json.loads(post(base, "/api/characters/chats", {"avatar_url": avatar, "simple": True}))
    imported = next(c["file_name"] for c in chats if "imported" in c["file_name"])
    (HERE / "st_export_imported_agnai.jsonl").write_bytes(export(base, imported, avatar, False))


if __name__ == "__main__":
    # ``URL``: every file; ``URL group``: the group chat only (made in a second run, after the
    # character chats, against the same data root).
    url = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000"
    if sys.argv[2:] != ["group"]:
        make(url)
    make_group(url)
