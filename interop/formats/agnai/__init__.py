"""Agnai: memory books and Agnai character exports. This module is the package's one public face:
it registers the platform (its lorebook conversion and key hazards) and its formats (in listing order)."""

from __future__ import annotations

from ...platform.registry import Platform, register_platform
from ...transforms.agnai_keys import key_conflicts
from . import app_model, character, chat, memory
from .activation import AgnaiProfile


def _is_native_book(obj: object) -> bool:
    """A ``kind: memory`` book (what the Agnai engine profile reads as it is)."""
    return isinstance(obj, dict) and memory.looks_like_memory_book(obj)


PLATFORM = register_platform(
    Platform(
        name="agnai",
        profile=AgnaiProfile(),
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
