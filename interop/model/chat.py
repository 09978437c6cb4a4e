"""The canonical chat: one conversation as every chat format reads into it (docs/chats.md).

A chat log is neutral: messages with a speaker, a role, the text, whether the app keeps it out
of the prompt (``hidden``), a time (Unix milliseconds), the alternatives a reply was swiped
through, and the chat's own lorebook (Risu ``localLore``, a SillyTavern world bound by name).

What a format holds beyond these fields stays with the log in ``native[<platform>]``: the
keep/absent/order record (``interop.cardkit.chat_native``) that lets that platform's writer give
its file back exactly, and that other platforms' writers stash so the way back restores it.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Literal

from .lorebook import Lorebook

ChatRole = Literal["user", "assistant", "system"]
CHAT_ROLES: tuple[str, ...] = ("user", "assistant", "system")

CHAT_FIELDS: tuple[str, ...] = (
    "user",
    "character",
    "group",
    "title",
    "created",
    "notes",
    "scenario",
    "greeting",
    "book_name",
)
"""Canonical chat-level fields besides ``messages`` and ``lorebook`` (what the report compares)."""

MESSAGE_FIELDS: tuple[str, ...] = ("name", "role", "text", "hidden", "time", "swipes", "swipe_index")
"""Canonical message fields (what the report compares, message by message)."""


@dataclass
class ChatMessage:
    role: ChatRole
    text: str
    name: str | None = None
    hidden: bool = False
    """Kept in the log, left out of the prompt (ST ``is_system`` on a chat message, Risu ``disabled``)."""
    time: int | None = None
    """When it was sent, Unix milliseconds (None: the format or the file has none)."""
    swipes: list[str] | None = None
    """Every alternative of this message, the shown one included (ST ``swipes``, Agnai ``retries``)."""
    swipe_index: int | None = None
    native: dict[str, dict[str, Any]] = field(default_factory=dict)

    def value(self, name: str) -> Any:
        return getattr(self, name)


@dataclass
class ChatLog:
    messages: list[ChatMessage] = field(default_factory=list)
    user: str | None = None
    character: str | None = None
    """The character the chat belongs to (a group chat: None unless the file names one)."""
    group: bool = False
    title: str | None = None
    created: int | None = None
    notes: str | None = None
    """The chat's author's note (ST ``chat_metadata.note_prompt``, Risu ``note``)."""
    scenario: str | None = None
    greeting: str | None = None
    book_name: str | None = None
    """The lorebook bound by name (ST ``chat_metadata.world_info``: a world file name)."""
    lorebook: Lorebook | None = None
    book_external: bool = False
    """True when ``lorebook`` was found outside the chat file (the ST world ``book_name`` names)."""
    native: dict[str, dict[str, Any]] = field(default_factory=dict)

    def value(self, name: str) -> Any:
        return getattr(self, name)

    @property
    def characters(self) -> list[str]:
        """Names of the non-user speakers, in order of first appearance (a group chat has several)."""
        seen: list[str] = []
        for m in self.messages:
            if m.role == "assistant" and m.name and m.name not in seen:
                seen.append(m.name)
        return seen

    def copy(self) -> ChatLog:
        return copy.deepcopy(self)
