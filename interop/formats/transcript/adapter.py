"""``interop-chat`` (read and write) and ``transcript`` (read only).

``interop-chat`` is the chat JSON Lines the activation engine has always read (docs/engine.md):
an optional header without ``text`` (``user``, ``character``, ``greeting_index``,
``generation_type``, ``persona_description``), then ``{"name", "role", "text"}`` per message with
optional ``greeting`` / ``swipe`` flags. What the canonical chat has no field for (the header's
character facts, the flags) stays in the native record, so the file is written back as it was.

``transcript`` is the text people paste: one ``Name: message`` per line, a line without a
speaker continuing the message above; ``User``/``You``/``{{user}}`` is the user, anyone else a
character. It is read only: a transcript loses every field but speaker and text, and an app
imports none.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ...cardkit.chat_native import apply_record, chat_text, first_json_line, jsonl_records, native_record, require_chat
from ...document import Document
from ...errors import InvalidCardError
from ...model.chat import CHAT_ROLES, ChatLog, ChatMessage
from ...platform.registry import Format, Probe, ReadContext, WriteContext

PLATFORM = "transcript"
SPEAKER = re.compile(r"^\s*([^:\n{}\[\]]{1,40}):\s?(.*)$")
USER_NAMES = {"user", "you", "{{user}}"}


def _detect_jsonl(probe: Probe) -> int:
    first = first_json_line(probe)
    if not isinstance(first, dict):
        return 0
    if isinstance(first.get("text"), str) and first.get("role") in CHAT_ROLES:
        return 80
    header_keys = ("greeting_index", "generation_type", "persona_description")
    if "text" not in first and (any(k in first for k in header_keys) or isinstance(first.get("character"), dict)):
        return 80
    return 0


def _read_jsonl(data: bytes, ctx: ReadContext) -> Document:
    file = ctx.filename
    log = ChatLog()
    native: dict[str, Any] = {"newline": data.endswith(b"\n")}
    for number, record in jsonl_records(data, file, ctx.limits):
        where = f"line {number}"
        if not isinstance(record, dict):
            raise InvalidCardError("each chat line must be a JSON object", file=file, location=where)
        if "text" not in record:
            if log.messages or "header" in native:
                raise InvalidCardError("message without 'text'", file=file, location=where)
            _read_header(log, record, native)
            continue
        log.messages.append(_message(record, file, where))
    log.native[PLATFORM] = native
    return Document(format="interop-chat", chat=log, source=file)


def _read_header(log: ChatLog, header: dict[str, Any], native: dict[str, Any]) -> None:
    user, character = header.get("user"), header.get("character")
    log.user = user if isinstance(user, str) else None
    name = character.get("name") if isinstance(character, dict) else None
    log.character = name if isinstance(name, str) else None
    native["header"] = native_record(header, _fresh_header(log))


def _message(record: dict[str, Any], file: str | None, where: str) -> ChatMessage:
    role, text, name = record.get("role", "user"), record["text"], record.get("name")
    if role not in CHAT_ROLES:
        raise InvalidCardError(f"role must be one of {', '.join(CHAT_ROLES)}", file=file, location=where)
    if not isinstance(text, str):
        raise InvalidCardError("'text' must be a string", file=file, location=where)
    message = ChatMessage(role=role, text=text, name=name if isinstance(name, str) else None)
    message.native[PLATFORM] = native_record(record, _fresh_message(message))
    return message


def _fresh_header(log: ChatLog) -> dict[str, Any]:
    out: dict[str, Any] = {"user": log.user if log.user is not None else "User"}
    out["character"] = {"name": log.character if log.character is not None else _first_character(log)}
    return out


def _first_character(log: ChatLog) -> str:
    return next(iter(log.characters), "Character")


def _fresh_message(message: ChatMessage) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if message.name is not None:
        out["name"] = message.name
    out["role"] = message.role
    out["text"] = message.text
    return out


def _write_jsonl(doc: Document, ctx: WriteContext) -> bytes:
    log = require_chat(doc, "interop-chat")
    native = log.native.get(PLATFORM, {})
    lines = [apply_record(_fresh_header(log), native.get("header"))]
    for index, message in enumerate(log.messages):
        obj = apply_record(_fresh_message(message), message.native.get(PLATFORM))
        if message.role == "system" or message.hidden:
            obj["role"] = "system"  # out of the prompt, as the engine reads a system line
        if index == 0 and message.role == "assistant" and PLATFORM not in message.native:
            obj["greeting"] = True  # another app's first character message is its greeting
        lines.append(obj)
    text = "\n".join(json.dumps(obj, ensure_ascii=False) for obj in lines)
    return (text + "\n" if native.get("newline", True) else text).encode("utf-8", "surrogatepass")


def _detect_transcript(probe: Probe) -> int:
    if probe.data[:1] in (b"{", b"[", b"<") or b"\x00" in probe.data[:4096]:
        return 0
    try:
        lines = [line for line in probe.data[:65536].decode("utf-8-sig").splitlines() if line.strip()]
    except UnicodeDecodeError:
        return 0
    matches = [m for m in map(SPEAKER.match, lines[:50]) if m]
    if not lines or SPEAKER.match(lines[0]) is None or len({m.group(1).strip() for m in matches}) < 2:
        return 0
    if any(_structured(line) for line in lines[:50]) or not any(" " in m.group(2).strip() for m in matches):
        return 0  # YAML or key: value settings, not people talking
    return 5  # the weakest claim: any format that knows the text better wins


YAML_VALUE_START = ("&", "*", "[", "{", "|", ">", "!", "'", '"')


def _structured(line: str) -> bool:
    """A line of YAML (anchors, flow collections, block scalars, list items, comments, documents)."""
    stripped = line.strip()
    if stripped.startswith(("- ", "#", "---", "...")):
        return True
    match = SPEAKER.match(line)
    return bool(match and match.group(2).strip().startswith(YAML_VALUE_START))


def _read_transcript(data: bytes, ctx: ReadContext) -> Document:
    text = chat_text(data, ctx.filename)
    log = ChatLog()
    for line in (line for line in text.splitlines() if line.strip()):
        match = SPEAKER.match(line)
        if match is None and log.messages:
            log.messages[-1].text += "\n" + line
            continue
        name, body = (match.group(1).strip(), match.group(2)) if match else ("User", line)
        role = "user" if name.lower() in USER_NAMES else "assistant"
        log.messages.append(ChatMessage(role=role, text=body, name=name))
    if not log.messages:
        raise InvalidCardError("transcript holds no 'Name: message' line", file=ctx.filename)
    log.user = next((m.name for m in log.messages if m.role == "user"), None)
    log.character = next(iter(log.characters), None)
    return Document(format="transcript", chat=log, source=ctx.filename)


def _describe(doc: Document) -> dict[str, Any]:
    log = doc.chat
    return {"messages": len(log.messages), "speakers": log.characters} if log is not None else {}


FORMATS = (
    Format(
        name="interop-chat",
        kind="chat",
        title="interop chat (JSON Lines, docs/engine.md)",
        suffix=".jsonl",
        platform=PLATFORM,
        detect=_detect_jsonl,
        detect_max=80,
        read=_read_jsonl,
        write=_write_jsonl,
        describe=_describe,
    ),
    Format(
        name="transcript",
        kind="chat",
        title="Plain transcript (Name: message per line)",
        suffix=".txt",
        platform=PLATFORM,
        detect=_detect_transcript,
        detect_max=5,
        read=_read_transcript,
        describe=_describe,
    ),
)
