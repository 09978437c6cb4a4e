"""What reading a file gives: the canonical object plus what its container held."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from .model import Card, Lorebook
from .model.chat import ChatLog
from .model.versions import as_displayed

Kind = Literal["card", "lorebook", "chat"]


@dataclass
class Document:
    """One input file read into the canonical model.

    ``card`` is set for card formats, ``lorebook`` for standalone lorebook
    formats. ``assets`` maps an asset URI as the card spells it
    (``embeded://assets/icon/images/main.png``, ``__asset:0``) to its bytes.
    ``image`` is the picture a PNG card lives in (``ccdefault:``).
    ``members`` holds container parts that have no place in the canonical
    model but must be written back unchanged (CHARX ``module.risum``,
    ``x_meta/*.json``, foreign PNG chunks): their owner writes them back.
    ``native`` is per-format metadata an adapter needs to write the same
    format back exactly (key order, wrapper values); it is not canonical data.
    """

    format: str
    card: Card | None = None
    lorebook: Lorebook | None = None
    assets: dict[str, bytes] = field(default_factory=dict)
    image: bytes | None = None
    members: dict[str, bytes] = field(default_factory=dict)
    native: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    source: str | None = None
    chat: ChatLog | None = None
    """Set for chat formats (``sillytavern-chat``, ``risu-chat``, ...); ``book`` is its lorebook."""

    @property
    def kind(self) -> Kind:
        if self.chat is not None:
            return "chat"
        return "card" if self.card is not None else "lorebook"

    @property
    def book(self) -> Lorebook | None:
        """The lorebook: the standalone one, or the card's ``character_book``."""
        if self.lorebook is not None:
            return self.lorebook
        if self.chat is not None:
            return self.chat.lorebook
        if self.card is None:
            return None
        # A V1 file written by interop keeps the higher-version card (and its book) in its stash.
        return as_displayed(self.card).data.character_book

    @property
    def title(self) -> str | None:
        if self.card is not None:
            name = as_displayed(self.card).data.name
            if isinstance(name, str):
                return name
        if self.chat is not None:
            return self.chat.title or self.chat.character
        book = self.book
        if book is not None and isinstance(book.name, str):
            return book.name
        return None

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)
