"""``sillytavern-chat``: SillyTavern's chat file, JSON Lines (read and write, group chats included).

Facts (SillyTavern ``public/script.js`` ``saveChat`` / ``getChat``, ``public/scripts/group-chats.js``
``saveGroupChat`` / ``getGroupChat``, ``src/endpoints/chats.js`` ``/save``, ``/group/save``,
``/import``; field table in ``mappings/sillytavern.json``, levels ``chat`` and ``message``):

* a character chat is a header line ``{user_name, character_name, create_date, chat_metadata}``
  followed by one message object per line; the file is ``JSON.stringify`` of each line joined
  with ``\\n`` (compact, no trailing newline);
* a group chat file (``/group/save``) is the message lines only. Files with a header whose names
  are ``"unused"`` also occur (newer saves and third-party tools write it, for group chats and even
  for single chats; not checked against an official release here): such a chat is a group chat
  when more than one character speaks in it;
* ``chat_metadata`` holds the chat-bound world *by name* (``world_info``), the author's note
  (``note_prompt``, ``note_interval``, ``note_depth``, ``note_position``, ``note_role``), the
  timed-effect state (``timedWorldInfo``), ``variables``, ``integrity`` and what extensions add;
* a message holds ``name``, ``is_user``, ``is_system`` (hidden from the prompt), ``send_date``,
  ``mes``, ``extra`` (``display_text``, ``type: "narrator"`` for ``/sys`` messages, ...),
  ``swipes`` / ``swipe_id`` / ``swipe_info``, ``gen_started`` / ``gen_finished``, group chats'
  ``original_avatar`` / ``force_avatar``.

SillyTavern keeps unknown keys of messages and of ``chat_metadata`` (both are saved as the objects
they are), so the stash is ``interop_stash`` on a message and in ``chat_metadata``.
"""

from __future__ import annotations

from typing import Any

from ...cardkit.chat_native import (
    STASH_KEY,
    apply_record,
    chat_stash,
    first_json_line,
    jsonl_records,
    message_stash,
    native_record,
    open_message,
    parse_time,
    require_chat,
    restore_chat,
    restore_message,
    st_timestamp,
    stash_book,
    stringify,
)
from ...document import Document
from ...errors import InvalidCardError
from ...model.chat import ChatLog, ChatMessage
from ...platform.registry import Format, Probe, ReadContext, WriteContext

PLATFORM = "sillytavern"
HEADER_KEYS = ("user_name", "character_name", "create_date", "chat_metadata")
GROUP_NAME = "unused"
"""The names a group chat's header carries (no single character owns the chat)."""
CHAT_STASHED = ("title", "scenario", "greeting")
"""Canonical chat fields a SillyTavern chat file has no place for."""
MESSAGE_STASHED: tuple[str, ...] = ()


def _detect(probe: Probe) -> int:
    first = first_json_line(probe)
    if not isinstance(first, dict):
        return 0
    if "mes" not in first and ("chat_metadata" in first or ("user_name" in first and "character_name" in first)):
        return 100
    if isinstance(first.get("mes"), str) and "is_user" in first:
        return 90  # a group chat without a header
    return 0


def _is_header(record: Any) -> bool:
    return isinstance(record, dict) and "mes" not in record and any(k in record for k in HEADER_KEYS)


def _read(data: bytes, ctx: ReadContext) -> Document:
    file = ctx.filename
    log = ChatLog()
    header: dict[str, Any] | None = None
    for number, record in jsonl_records(data, file, ctx.limits):
        if header is None and not log.messages and _is_header(record):
            header = record
            continue
        log.messages.append(_message(record, file, f"line {number}"))
    if header is None and not log.messages:
        raise InvalidCardError("SillyTavern chat holds no header and no message", file=file)
    native: dict[str, Any] = {}
    if header is None:
        native["headerless"] = True
        log.group = True
    else:
        named = header.get("character_name")
        log.group = named == GROUP_NAME and len(log.characters) > 1 and "group" not in _stash_fields(header)
        _read_header(log, header, native, file)
    native["newline"] = data.endswith(b"\n")
    log.native[PLATFORM] = native
    return Document(format="sillytavern-chat", chat=log, source=file)


def _read_header(log: ChatLog, header: dict[str, Any], native: dict[str, Any], file: str | None) -> None:
    header = dict(header)
    meta = header.get("chat_metadata")
    if meta is not None and not isinstance(meta, dict):
        raise InvalidCardError("chat_metadata must be an object", file=file, location="line 1")
    meta = dict(meta) if isinstance(meta, dict) else None
    stash = meta.pop(STASH_KEY, None) if meta is not None else None
    user, character = header.get("user_name"), header.get("character_name")
    log.user = user if isinstance(user, str) else None
    log.character = character if isinstance(character, str) and character != GROUP_NAME else None
    log.created = parse_time(header.get("create_date"))
    if meta is not None:
        note, world = meta.get("note_prompt"), meta.get("world_info")
        log.notes = note if isinstance(note, str) and note else None
        log.book_name = world if isinstance(world, str) and world else None
        native["meta"] = native_record(meta, _fresh_meta(log))
        header["chat_metadata"] = meta
    native["header"] = native_record(header, _fresh_header(log, meta))
    restore_chat(log, stash)


def _stash_fields(header: dict[str, Any]) -> dict[str, Any]:
    """The canonical fields another app's writer stashed in ``chat_metadata`` (they decide over guesses)."""
    meta = header.get("chat_metadata")
    stash = meta.get(STASH_KEY) if isinstance(meta, dict) else None
    fields = stash.get("fields") if isinstance(stash, dict) else None
    return fields if isinstance(fields, dict) else {}


def _message(record: Any, file: str | None, where: str) -> ChatMessage:
    record, stash, text = open_message(record, "mes", file, where, "a chat line must be a JSON object")
    extra = record.get("extra")
    kind = extra.get("type") if isinstance(extra, dict) else None
    is_user = record.get("is_user") is True
    role = "user" if is_user else ("system" if isinstance(kind, str) and kind else "assistant")
    name = record.get("name")
    swipes = record.get("swipes")
    swipe_id = record.get("swipe_id")
    message = ChatMessage(
        role=role,  # type: ignore[arg-type]
        text=text,
        name=name if isinstance(name, str) else None,
        hidden=record.get("is_system") is True,
        time=parse_time(record.get("send_date")),
        swipes=list(swipes) if isinstance(swipes, list) and all(isinstance(s, str) for s in swipes) else None,
        swipe_index=swipe_id if isinstance(swipe_id, int) and not isinstance(swipe_id, bool) else None,
    )
    message.native[PLATFORM] = native_record(record, _fresh_message(message))
    restore_message(message, stash)
    return message


def _fresh_message(message: ChatMessage) -> dict[str, Any]:
    """The message object SillyTavern would hold for the canonical fields (key order of ``saveChat``)."""
    out: dict[str, Any] = {
        "name": message.name if message.name is not None else ("You" if message.role == "user" else "Character"),
        "is_user": message.role == "user",
        "is_system": message.hidden,
    }
    if message.time is not None:
        out["send_date"] = st_timestamp(message.time)
    out["mes"] = message.text
    out["extra"] = {"type": "narrator"} if message.role == "system" else {}
    if message.swipes is not None:
        out["swipes"] = list(message.swipes)
        out["swipe_id"] = message.swipe_index if message.swipe_index is not None else 0
    return out


def _fresh_meta(log: ChatLog) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    if log.notes is not None:
        meta["note_prompt"] = log.notes
    if log.book_name is not None:
        meta["world_info"] = log.book_name
    return meta


def _fresh_header(log: ChatLog, meta: dict[str, Any] | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "user_name": log.user if log.user is not None else ("unused" if log.group else "You"),
        "character_name": log.character if log.character is not None else (GROUP_NAME if log.group else "Character"),
    }
    if log.created is not None:
        out["create_date"] = st_timestamp(log.created)
    out["chat_metadata"] = meta if meta is not None else _fresh_meta(log)
    return out


def chat_lines(log: ChatLog) -> list[dict[str, Any]]:
    """The chat as SillyTavern's JSON Lines objects (header first unless the source had none)."""
    native = log.native.get(PLATFORM, {})
    lines: list[dict[str, Any]] = []
    if not native.get("headerless"):
        meta = apply_record(_fresh_meta(log), native.get("meta"))
        kept = native.get("header", {}).get("keep", {})  # names the file itself spells (e.g. "unused")
        names = (("user", "user_name"),) if log.group else (("user", "user_name"), ("character", "character_name"))
        filled = tuple(field for field, key in names if key not in kept)
        stash = chat_stash(log, PLATFORM, CHAT_STASHED, stash_book(log), filled=filled, binds_by_name=True)
        if stash:
            meta[STASH_KEY] = stash
        lines.append(apply_record(_fresh_header(log, meta), native.get("header")))
    for message in log.messages:
        obj = apply_record(_fresh_message(message), message.native.get(PLATFORM))
        stash = message_stash(message, PLATFORM, MESSAGE_STASHED + _inexact_time(message, obj), filled=("name",))
        if stash:
            obj[STASH_KEY] = stash
        lines.append(obj)
    return lines


def _inexact_time(message: ChatMessage, obj: dict[str, Any]) -> tuple[str, ...]:
    """``("time",)`` when the line's ``send_date`` does not give the message's time back: SillyTavern's
    stamp has minutes only (``getMessageTimeStamp``), a RisuAI ``time`` has milliseconds."""
    if message.time is None or parse_time(obj.get("send_date")) == message.time:
        return ()
    return ("time",)


def dump_line(obj: Any) -> str:
    """One line as ``JSON.stringify`` writes it (compact, characters unescaped; a lone surrogate
    escaped, as JavaScript's well-formed stringify does)."""
    return stringify(obj, separators=(",", ":"))


def _write(doc: Document, ctx: WriteContext) -> bytes:
    log = require_chat(doc, "sillytavern-chat")
    text = "\n".join(dump_line(obj) for obj in chat_lines(log))
    if log.native.get(PLATFORM, {}).get("newline"):
        text += "\n"
    return text.encode("utf-8")


def _describe(doc: Document) -> dict[str, Any]:
    log = doc.chat
    if log is None:
        return {}
    return {
        "character": log.character,
        "group": log.group,
        "messages": len(log.messages),
        "bound_world": log.book_name,
        "swiped_messages": sum(1 for m in log.messages if m.swipes),
        "hidden_messages": sum(1 for m in log.messages if m.hidden),
    }


FORMATS = (
    Format(
        name="sillytavern-chat",
        kind="chat",
        title="SillyTavern chat (JSON Lines)",
        suffix=".jsonl",
        platform=PLATFORM,
        detect=_detect,
        detect_max=100,
        read=_read,
        write=_write,
        describe=_describe,
        aliases=("st-chat",),
    ),
)
