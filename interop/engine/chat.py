"""The chat an activation run scans: messages, greeting, generation type, character facts.

Chat files are JSON Lines (documented in docs/engine.md):

* an optional first line without ``"text"``: the header, e.g.
  ``{"greeting_index": 0, "generation_type": "normal", "user": "Alex", "character": {...}}``;
* then one message per line, oldest first: ``{"name": "Mira", "role": "assistant", "text": "..."}``,
  optionally ``"greeting": true`` on the greeting message (the character's first message).

A platform sees the same chat differently (SillyTavern scans the greeting as a
message, RisuAI keeps it out of the message list but counts it), so the chat
stays neutral here and each profile derives its own view.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import CorruptInputError, InvalidCardError

ROLES = ("user", "assistant", "system")
GENERATION_TYPES = ("normal", "continue", "impersonate", "swipe", "regenerate", "quiet")


@dataclass(frozen=True)
class Message:
    name: str
    role: str  # "user" | "assistant" | "system"
    text: str
    greeting: bool = False


@dataclass(frozen=True)
class Character:
    """What the active character contributes to a scan (SillyTavern's match* sources, filters)."""

    name: str = "Character"
    file: str | None = None  # SillyTavern avatar file name without extension (characterFilter.names)
    tags: tuple[str, ...] | None = None  # SillyTavern tag ids (characterFilter.tags); None = untagged
    description: str = ""
    personality: str = ""
    scenario: str = ""
    depth_prompt: str = ""  # SillyTavern "Character's Note"
    creator_notes: str = ""


@dataclass(frozen=True)
class Chat:
    messages: tuple[Message, ...] = ()
    greeting_index: int | None = 0  # 0 = first_mes, n = alternate_greetings[n-1]; None = unknown
    generation_type: str = "normal"
    user: str = "User"
    persona_description: str = ""
    character: Character = field(default_factory=Character)
    source: str | None = None

    def prefix(self, count: int) -> Chat:
        """The chat as it stood when it held its first ``count`` messages."""
        return Chat(
            self.messages[:count],
            self.greeting_index,
            self.generation_type,
            self.user,
            self.persona_description,
            self.character,
            self.source,
        )

    def with_generation(self, generation_type: str) -> Chat:
        return Chat(
            self.messages,
            self.greeting_index,
            generation_type,
            self.user,
            self.persona_description,
            self.character,
            self.source,
        )

    def turns(self) -> list[int]:
        """Message counts at which a reply was (or is about to be) generated.

        One turn per assistant reply after the greeting (its prompt is the chat
        before it), plus the pending turn on the whole chat.
        """
        counts = [i for i, m in enumerate(self.messages) if m.role == "assistant" and not m.greeting and i > 0]
        if not counts or counts[-1] != len(self.messages):
            counts.append(len(self.messages))
        return counts

    def substitute(self, text: str) -> str:
        """The ``{{char}}`` / ``{{user}}`` macros every platform expands (case-insensitive)."""
        if "{{" not in text:
            return text
        out = text
        for macro, value in (("{{char}}", self.character.name), ("{{user}}", self.user)):
            lowered = out.lower()
            start = lowered.find(macro)
            while start != -1:
                out = out[:start] + value + out[start + len(macro) :]
                lowered = out.lower()
                start = lowered.find(macro, start + len(value))
        return out


def _character(value: Any, file: str | None) -> Character:
    if value is None:
        return Character()
    if not isinstance(value, dict):
        raise InvalidCardError("chat header 'character' must be an object", file=file, location="line 1")
    tags = value.get("tags")
    return Character(
        name=str(value.get("name", "Character")),
        file=value.get("file") if isinstance(value.get("file"), str) else None,
        tags=tuple(str(t) for t in tags) if isinstance(tags, list) else None,
        description=str(value.get("description", "")),
        personality=str(value.get("personality", "")),
        scenario=str(value.get("scenario", "")),
        depth_prompt=str(value.get("depth_prompt", "")),
        creator_notes=str(value.get("creator_notes", "")),
    )


def chat_from_records(records: Iterable[dict[str, Any]], *, file: str | None = None) -> Chat:
    """Build a Chat from parsed JSONL records (header first, if any)."""
    header: dict[str, Any] = {}
    messages: list[Message] = []
    for number, record in enumerate(records, start=1):
        where = f"line {number}"
        if not isinstance(record, dict):
            raise InvalidCardError("each chat line must be a JSON object", file=file, location=where)
        if "text" not in record:
            if messages or header:
                raise InvalidCardError("message without 'text'", file=file, location=where)
            header = record
            continue
        role = record.get("role", "user")
        if role not in ROLES:
            raise InvalidCardError(f"role must be one of {', '.join(ROLES)}, not {role!r}", file=file, location=where)
        text = record["text"]
        if not isinstance(text, str):
            raise InvalidCardError("'text' must be a string", file=file, location=where)
        name = record.get("name")
        if name is None:
            name = header.get("user", "User") if role == "user" else _character(header.get("character"), file).name
        messages.append(Message(str(name), role, text, bool(record.get("greeting", False))))
    generation = header.get("generation_type", "normal")
    if generation not in GENERATION_TYPES:
        raise InvalidCardError(
            f"generation_type must be one of {', '.join(GENERATION_TYPES)}", file=file, location="line 1"
        )
    greeting = header.get("greeting_index", 0)
    if greeting is not None and (not isinstance(greeting, int) or isinstance(greeting, bool)):
        raise InvalidCardError("greeting_index must be an integer or null", file=file, location="line 1")
    return Chat(
        tuple(messages),
        greeting,
        generation,
        str(header.get("user", "User")),
        str(header.get("persona_description", "")),
        _character(header.get("character"), file),
        file,
    )


def load_chat(path: str | Path) -> Chat:
    """Read a chat JSONL file (see the module docstring for the format)."""
    file = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise CorruptInputError(exc.strerror or "cannot read chat file", file=file) from None
    return chat_from_jsonl(data, file=file)


def chat_from_jsonl(data: bytes | str, *, file: str | None = None) -> Chat:
    """Parse chat JSON Lines (bytes must be UTF-8; a BOM is allowed)."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise CorruptInputError("chat file is not UTF-8", file=file) from None
    else:
        text = data.removeprefix("\ufeff")
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise CorruptInputError(f"invalid JSON: {exc.msg}", file=file, location=f"line {number}") from None
    return chat_from_records(records, file=file)


_SPEAKER = re.compile(r"^\s*([^:\n]{1,40}):\s?(.*)$")
USER_NAMES = {"user", "you", "{{user}}"}


def chat_from_transcript(data: bytes | str, *, file: str | None = None, user: str = "User") -> Chat:
    """A pasted chat: JSON Lines when every line is a JSON object, else one ``Name: message`` per line.

    In the plain form a speaker named ``user``/``you`` (or ``user``) is the user and
    anyone else the character; a line without ``Name:`` continues the message above.
    """
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise CorruptInputError("chat is not UTF-8", file=file) from None
    lines = [line for line in data.splitlines() if line.strip()]
    if lines and all(line.lstrip().startswith("{") for line in lines):
        return chat_from_jsonl(data, file=file)
    records: list[dict[str, Any]] = []
    for line in lines:
        match = _SPEAKER.match(line)
        if match is None and records:
            records[-1]["text"] += "\n" + line
            continue
        name, text = (match.group(1).strip(), match.group(2)) if match else (user, line)
        role = "user" if name.lower() in USER_NAMES or name == user else "assistant"
        records.append({"name": user if role == "user" else name, "role": role, "text": text})
    header = {
        "user": user,
        "character": {"name": next((r["name"] for r in records if r["role"] == "assistant"), "Character")},
    }
    return chat_from_records([header, *records], file=file)
