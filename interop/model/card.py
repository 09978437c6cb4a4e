"""Canonical character card: the CCv3 ``chara_card_v3`` object.

V1 and V2 cards are upgraded into this shape on read (see ``versions``);
fields a card did not have stay unset and are not written back.
"""

from __future__ import annotations

from collections.abc import Set
from typing import Any

from .base import CanonicalModel, Lenient
from .lorebook import Lorebook, Number

V3_SPEC = "chara_card_v3"
V2_SPEC = "chara_card_v2"


class Asset(CanonicalModel):
    """CCv3 asset descriptor. ``uri`` is ``embeded://path``, ``ccdefault:``, ``__asset:N``, a URL or a data URI."""

    type: Lenient[str] = None
    uri: Lenient[str] = None
    name: Lenient[str] = None
    ext: Lenient[str] = None


class CardData(CanonicalModel):
    # From CCv2
    name: Lenient[str] = None
    description: Lenient[str] = None
    tags: Lenient[list[str]] = None
    creator: Lenient[str] = None
    character_version: Lenient[str] = None
    mes_example: Lenient[str] = None
    extensions: Lenient[dict[str, Any]] = None
    system_prompt: Lenient[str] = None
    post_history_instructions: Lenient[str] = None
    first_mes: Lenient[str] = None
    alternate_greetings: Lenient[list[str]] = None
    personality: Lenient[str] = None
    scenario: Lenient[str] = None
    # Changed in CCv3
    creator_notes: Lenient[str] = None
    character_book: Lorebook | None = None
    # New in CCv3
    assets: list[Asset] | None = None
    nickname: Lenient[str] = None
    creator_notes_multilingual: Lenient[dict[str, str]] = None
    source: Lenient[list[str]] = None
    group_only_greetings: Lenient[list[str]] = None
    creation_date: Lenient[Number] = None
    modification_date: Lenient[Number] = None

    def ext(self, namespace: str) -> dict[str, Any]:
        if isinstance(self.extensions, dict):
            value = self.extensions.get(namespace)
            if isinstance(value, dict):
                return value
        return {}


V3_ONLY_FIELDS = (
    "assets",
    "nickname",
    "creator_notes_multilingual",
    "source",
    "group_only_greetings",
    "creation_date",
    "modification_date",
)


class Card(CanonicalModel):
    """A character card. Root-level unknown keys (e.g. the V1 mirror SillyTavern writes) are kept."""

    spec: Lenient[str] = None
    spec_version: Lenient[str | Number] = None
    data: CardData = CardData()

    # Paths that an upgrade (V1/V2 -> V3) filled with spec defaults; a downgrade removes
    # them again so V2 -> V3 -> V2 is the identity. Kept in ``__pydantic_private__`` by hand,
    # None while empty (most cards): a declared private attribute costs every validation a
    # Python call (pydantic's ``init_private_attributes``), a third of a small card's.

    @property
    def filled(self) -> Set[str]:
        """Paths (``data.<field>``, ``entries.<i>.<field>``) an upgrade or importer filled with defaults
        (assign a new set to change them)."""
        private = self.__pydantic_private__
        return private["_filled"] if private else frozenset()

    @filled.setter
    def filled(self, paths: Set[str]) -> None:
        # Empty is None, as a card that never had any: model equality compares the private dicts.
        object.__setattr__(self, "__pydantic_private__", {"_filled": set(paths)} if paths else None)

    @property
    def book(self) -> Lorebook | None:
        return self.data.character_book
