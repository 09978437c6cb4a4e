"""``agnai-chat``: Agnai's chat export (read and write).

Facts (Agnai ``web/pages/Chat/ChatExport.tsx`` ``ChatExport``; ``web/pages/Character/ImportChatModal.tsx``
``importValid`` / ``parseContent``; ``srv/api/chat/create.ts`` ``importChat``; ``web/store/data/chats.ts``
``importChat``; field table in ``mappings/agnai.json``, levels ``chat`` and ``message``):

* the export is ``JSON.stringify(json, null, 2)`` of ``{name: "Exported", greeting, sampleChat,
  scenario, messages}``; a message is ``{handle?, userId?, characterId?: "imported", msg, state?}``
  (keys whose value is undefined are left out);
* the import requires ``name``, ``greeting``, ``scenario``, ``sampleChat`` (strings) and
  ``messages[].msg``; a message with ``userId`` is the user's, one with ``characterId`` the
  character's. The server import also reads ``handle``, ``ooc`` and ``retries``; the guest import
  gives every message the time of the import (``createdAt = start + i``);
* the export carries no timestamps, no character names and no memory book: the chat's book
  (``memoryId``) and scenario links (``scenarioIds``) stay in Agnai.

What Agnai cannot hold travels in ``interop_stash`` (top level and per message). Agnai's import
ignores those keys, so the stash only serves a file taken back by interop: the mapping table says
these fields are lost in Agnai itself.
"""

from __future__ import annotations

from typing import Any

from ...cardkit.chat_native import (
    STASH_KEY,
    apply_record,
    chat_stash,
    message_stash,
    native_record,
    open_message,
    require_chat,
    restore_chat,
    restore_message,
    stash_book,
    stringify,
)
from ...document import Document
from ...errors import InvalidCardError
from ...model.chat import ChatLog, ChatMessage
from ...platform.registry import Format, Probe, ReadContext, WriteContext

PLATFORM = "agnai"
REQUIRED = ("name", "greeting", "scenario", "sampleChat")
CHAT_STASHED = ("user", "character", "group", "created", "notes", "book_name")
MESSAGE_STASHED = ("hidden", "time", "swipes", "swipe_index")
USER_ID = "anon"
"""The user id Agnai's own TavernAI import gives user messages (``parseContent``)."""
CHARACTER_ID = "imported"
"""What ``ChatExport`` writes as every character message's ``characterId``."""


def _detect(probe: Probe) -> int:
    obj = probe.json_object
    if obj is None or not isinstance(obj.get("messages"), list) or "type" in obj or "kind" in obj:
        return 0
    messages = obj["messages"]
    if messages and not all(isinstance(m, dict) and "msg" in m for m in messages[:50]):
        return 0
    return 100 if all(isinstance(obj.get(k), str) for k in REQUIRED) else 60


def _read(data: bytes, ctx: ReadContext) -> Document:
    obj = ctx.json(data)
    file = ctx.filename
    if not isinstance(obj, dict) or not isinstance(obj.get("messages"), list):
        raise InvalidCardError("not an Agnai chat export (no 'messages' list)", file=file)
    obj = dict(obj)
    stash = obj.pop(STASH_KEY, None)
    log = ChatLog()
    name, greeting, scenario = obj.get("name"), obj.get("greeting"), obj.get("scenario")
    log.title = name if isinstance(name, str) else None
    log.greeting = greeting if isinstance(greeting, str) and greeting else None
    log.scenario = scenario if isinstance(scenario, str) and scenario else None
    log.messages = [_message(m, file, f"messages[{i}]") for i, m in enumerate(obj["messages"])]
    obj["messages"] = None  # rebuilt by the writer; the placeholder keeps its position
    log.native[PLATFORM] = {"chat": native_record(obj, _fresh_chat(log))}
    restore_chat(log, stash)
    doc = Document(format="agnai-chat", chat=log, source=file)
    missing = [k for k in REQUIRED if not isinstance(obj.get(k), str)]
    if missing:
        doc.warn(f"Agnai's chat import refuses this file: {', '.join(missing)} missing or not text")
    return doc


def _message(raw: Any, file: str | None, where: str) -> ChatMessage:
    raw, stash, text = open_message(raw, "msg", file, where, "an Agnai message must be an object")
    handle, retries = raw.get("handle"), raw.get("retries")
    message = ChatMessage(
        role="user" if raw.get("userId") else "assistant",
        text=text,
        name=handle if isinstance(handle, str) else None,
        swipes=[text, *retries] if isinstance(retries, list) and all(isinstance(r, str) for r in retries) else None,
    )
    if message.swipes is not None:
        message.swipe_index = 0
    message.native[PLATFORM] = native_record(raw, _fresh_message(message))
    restore_message(message, stash)
    return message


def _fresh_message(message: ChatMessage) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if message.role == "user":
        out["handle"] = message.name if message.name is not None else "You"
        out["userId"] = USER_ID
    else:
        out["characterId"] = CHARACTER_ID
    out["msg"] = message.text
    return out


def _fresh_chat(log: ChatLog) -> dict[str, Any]:
    return {
        "name": log.title if log.title is not None else "Exported",
        "greeting": log.greeting or "",
        "sampleChat": "",
        "scenario": log.scenario or "",
        "messages": None,
    }


def _message_object(message: ChatMessage) -> dict[str, Any]:
    obj = apply_record(_fresh_message(message), message.native.get(PLATFORM))
    # A character message's speaker name, a system role: Agnai's export has no place for either.
    extra = ("name",) if message.role != "user" else ()
    extra += ("role",) if message.role == "system" else ()
    stash = message_stash(
        message, PLATFORM, MESSAGE_STASHED + extra, filled=("name",) if message.role == "user" else ()
    )
    if stash:
        obj[STASH_KEY] = stash
    return obj


def export_object(log: ChatLog) -> dict[str, Any]:
    out = apply_record(_fresh_chat(log), log.native.get(PLATFORM, {}).get("chat"))
    out["messages"] = [_message_object(m) for m in log.messages]
    stash = chat_stash(log, PLATFORM, CHAT_STASHED, stash_book(log), filled=("title",))
    if stash:
        out[STASH_KEY] = stash
    return out


def _write(doc: Document, ctx: WriteContext) -> bytes:
    log = require_chat(doc, "agnai-chat")
    return stringify(export_object(log), indent=2).encode("utf-8")


def _describe(doc: Document) -> dict[str, Any]:
    log = doc.chat
    if log is None:
        return {}
    return {"name": log.title, "messages": len(log.messages), "scenario": bool(log.scenario)}


FORMATS = (
    Format(
        name="agnai-chat",
        kind="chat",
        title="Agnai chat export",
        suffix=".json",
        platform=PLATFORM,
        detect=_detect,
        detect_max=100,
        read=_read,
        write=_write,
        describe=_describe,
    ),
)
