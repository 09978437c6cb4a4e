"""``risu-chat``: RisuAI's chat export (``{"type": "risuChat", "ver": 2, "data": Chat, "folders": []}``).

Facts (RisuAI ``src/ts/characters.ts`` ``exportChat`` mode "Export as JSON" and ``importChat``;
``src/ts/storage/database.svelte.ts`` interfaces ``Chat`` and ``Message``; field table in
``mappings/risu.json``, levels ``chat`` and ``message``):

* the export is ``JSON.stringify`` (compact) of the wrapper; ``importChat`` accepts ``ver`` 2
  (``data`` one chat or a list, ``folders``) and ``ver`` 1 (needs ``message``, ``note``, ``name``,
  ``localLore``), gives the chat a new ``id`` and stores the object as it is;
* a chat: ``message[]``, ``note`` (author's note), ``name``, ``localLore`` (the chat's own
  lorebook: Risu lorebook entries), ``fmIndex`` (which greeting), ``scriptstate``, ``modules``,
  ``folderId``, ``lastDate``, memory data (``supaMemoryData``, ``hypaV2Data``, ``hypaV3Data``), ...;
* a message: ``role`` ``user`` | ``char``, ``data`` (text), ``saying`` (the speaking character's
  id in a group), ``chatId``, ``time`` (Unix ms), ``generationInfo``, ``promptInfo``, ``name``,
  ``otherUser``, ``disabled`` (``true`` or ``"allBefore"``: out of the prompt), ``isComment``.

Risu has no system role and no swipes (a reroll replaces the reply): both go to the message's
``interop_stash``, which Risu keeps because it stores the object unchanged. The greeting is not
a message in Risu (``fmIndex`` picks the card's); a greeting message from another app stays a
``char`` message. ``localLore`` goes through the Risu lorebook adapter (``entries.py``).
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
    stringify,
)
from ...document import Document
from ...errors import InvalidCardError
from ...model.chat import ChatLog, ChatMessage
from ...platform.registry import Format, Probe, ReadContext, WriteContext
from .entries import lorebook_from_risu_entries, risu_entries_from_lorebook

PLATFORM = "risu"
EXPORT_TYPE = "risuChat"
CHAT_STASHED = ("user", "character", "group", "created", "scenario", "greeting", "book_name")
MESSAGE_STASHED = ("swipes", "swipe_index")
ROLES = {"user": "user", "char": "assistant"}


def _detect(probe: Probe) -> int:
    obj = probe.json_object
    if obj is None or obj.get("type") != EXPORT_TYPE:
        return 0
    return 100 if isinstance(obj.get("data"), dict) else 0


def _read(data: bytes, ctx: ReadContext) -> Document:
    obj = ctx.json(data)
    file = ctx.filename
    if not isinstance(obj, dict) or obj.get("type") != EXPORT_TYPE or not isinstance(obj.get("data"), dict):
        raise InvalidCardError("not a RisuAI chat export (type 'risuChat' with a 'data' object)", file=file)
    log = chat_log(obj["data"], file, "data")
    # The chat is rebuilt by the writer: a placeholder keeps its position in the wrapper.
    wrapper = {k: (None if k == "data" else v) for k, v in obj.items()}
    log.native[PLATFORM]["wrapper"] = native_record(wrapper, _fresh_wrapper())
    doc = Document(format="risu-chat", chat=log, source=file)
    if obj.get("ver") not in (1, 2):
        doc.warn(f"Risu chat export version {obj.get('ver')!r}; RisuAI imports 1 and 2")
    return doc


def chat_log(
    raw: dict[str, Any], file: str | None, where: str, speakers: dict[str, str] | None = None
) -> ChatLog:
    """One Risu ``Chat`` object (an export's ``data``, an entry of an all-chats export) as a
    canonical log; ``native["risu"]["chat"]`` keeps what the writer would not rebuild.

    ``speakers``: character id -> name, when the file holds the characters (a Risu character's own
    chats). A message without ``name`` whose ``saying`` is one of them is named after it, as RisuAI
    names it (``lorebook.svelte.ts`` ``loadLoreBookV3Prompt``: ``msg.name``, else the name of
    ``findCharacterbyId(msg.saying)``; ``characters.ts`` ``exportChat`` TXT/HTML likewise); the
    file is written back without the name. An id the file does not hold stays an id."""
    chat = dict(raw)
    messages = chat.get("message")
    if not isinstance(messages, list):
        raise InvalidCardError("Risu chat has no 'message' list", file=file, location=f"{where}.message")
    stash = chat.pop(STASH_KEY, None)
    log = ChatLog()
    note, name, lore = chat.get("note"), chat.get("name"), chat.get("localLore")
    log.notes = note if isinstance(note, str) and note else None
    log.title = name if isinstance(name, str) else None
    if isinstance(lore, list) and lore:
        log.lorebook = lorebook_from_risu_entries(lore, location=f"{where}.localLore")
    log.messages = [_message(m, file, f"{where}.message[{i}]", speakers or {}) for i, m in enumerate(messages)]
    chat["message"] = None  # the message list is rebuilt by the writer: the placeholder keeps its position
    log.native[PLATFORM] = {"chat": native_record(chat, _fresh_chat(log, None))}
    restore_chat(log, stash)
    return log


def wrapper_record(folders: list[Any]) -> dict[str, Any]:
    """The wrapper record of a chat whose single export (``exportChat``) lists ``folders``."""
    return native_record({"type": EXPORT_TYPE, "ver": 2, "data": None, "folders": folders}, _fresh_wrapper())


def _message(raw: Any, file: str | None, where: str, speakers: dict[str, str]) -> ChatMessage:
    raw, stash, text = open_message(raw, "data", file, where, "a Risu message must be an object")
    role = ROLES.get(raw.get("role"))  # type: ignore[arg-type]
    if role is None:
        raise InvalidCardError(f"role must be 'user' or 'char', not {raw.get('role')!r}", file=file, location=where)
    name, time, saying = raw.get("name"), raw.get("time"), raw.get("saying")
    if not isinstance(name, str) and isinstance(saying, str):
        name = speakers.get(saying)
    message = ChatMessage(
        role=role,  # type: ignore[arg-type]
        text=text,
        name=name if isinstance(name, str) else None,
        hidden=raw.get("disabled") is True or raw.get("isComment") is True,
        time=int(time) if isinstance(time, int | float) and not isinstance(time, bool) else None,
    )
    message.native[PLATFORM] = native_record(raw, _fresh_message(message))
    restore_message(message, stash)
    return message


def _fresh_message(message: ChatMessage) -> dict[str, Any]:
    out: dict[str, Any] = {"role": "user" if message.role == "user" else "char", "data": message.text}
    if message.time is not None:
        out["time"] = message.time
    if message.name is not None:
        out["name"] = message.name
    if message.hidden:
        out["disabled"] = True
    return out


def _fresh_chat(log: ChatLog, messages: list[dict[str, Any]] | None) -> dict[str, Any]:
    lore = risu_entries_from_lorebook(log.lorebook) if log.lorebook is not None else []
    return {"message": messages, "note": log.notes or "", "name": log.title or "Chat", "localLore": lore}


def _fresh_wrapper() -> dict[str, Any]:
    return {"type": EXPORT_TYPE, "ver": 2, "data": None, "folders": []}


def _message_object(message: ChatMessage) -> dict[str, Any]:
    obj = apply_record(_fresh_message(message), message.native.get(PLATFORM))
    fields = MESSAGE_STASHED + (("role",) if message.role == "system" else ())
    stash = message_stash(message, PLATFORM, fields)
    if stash:
        obj[STASH_KEY] = stash
    return obj


def export_object(log: ChatLog) -> dict[str, Any]:
    """The export wrapper RisuAI's ``importChat`` reads, chat-level stash included."""
    native = log.native.get(PLATFORM, {})
    chat = apply_record(_fresh_chat(log, None), native.get("chat"))
    chat["message"] = [_message_object(m) for m in log.messages]
    stash = chat_stash(log, PLATFORM, CHAT_STASHED, filled=("title",))
    if stash:
        chat[STASH_KEY] = stash
    wrapper = apply_record(_fresh_wrapper(), native.get("wrapper"))
    wrapper["data"] = chat
    return wrapper


def _write(doc: Document, ctx: WriteContext) -> bytes:
    log = require_chat(doc, "risu-chat")
    return stringify(export_object(log), separators=(",", ":")).encode("utf-8")


def _describe(doc: Document) -> dict[str, Any]:
    log = doc.chat
    if log is None:
        return {}
    return {
        "name": log.title,
        "messages": len(log.messages),
        "local_lore_entries": len(log.lorebook.entries) if log.lorebook is not None else 0,
        "note": bool(log.notes),
    }


FORMATS = (
    Format(
        name="risu-chat",
        kind="chat",
        title="RisuAI chat export (type risuChat)",
        suffix=".json",
        platform=PLATFORM,
        detect=_detect,
        detect_max=100,
        read=_read,
        write=_write,
        describe=_describe,
    ),
)
