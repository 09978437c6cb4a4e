"""Agnai: memory books and Agnai character exports. This module is the package's one public face:
it registers the platform (its lorebook conversion and key hazards) and its formats (in listing order)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...platform.registry import Deferred, Platform, register_platform
from ...transforms.agnai_keys import key_conflicts
from . import app_model, character, chat, memory

if TYPE_CHECKING:
    from .activation import AgnaiProfile


def _is_native_book(obj: object) -> bool:
    """A ``kind: memory`` book (what the Agnai engine profile reads as it is)."""
    return isinstance(obj, dict) and memory.looks_like_memory_book(obj)


def _profile() -> AgnaiProfile:
    # imported on first use (``Platform.profile`` is Deferred): only ``activate`` and the engine run profiles
    from .activation import AgnaiProfile

    return AgnaiProfile()


PLATFORM = register_platform(
    Platform(
        name="agnai",
        profile=Deferred(_profile),
        title="Agnai",
        rank=10,
        book_to_native=memory.memory_book_from_lorebook,
        book_from_native=memory.lorebook_from_memory_book,
        native_book_kind=_is_native_book,
        hazards=key_conflicts,
        app_check=app_model.MODEL,
    ),
    *memory.FORMATS,
    *character.FORMATS,
    *chat.FORMATS,
)
