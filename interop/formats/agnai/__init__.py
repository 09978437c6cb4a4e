"""Agnai: memory books and Agnai character exports."""

from __future__ import annotations

from ...transforms.agnai_keys import agnai_key_hazards, key_conflicts
from ..registry import Platform, register_platform

# Registration order is listing order: import one module per line, in this order.
# isort: skip_file
from . import memory
from . import character  # noqa: F401

PLATFORM = register_platform(
    Platform(
        name="agnai",
        title="Agnai",
        rank=10,
        book_to_native=memory.memory_book_from_lorebook,
        book_from_native=memory.lorebook_from_memory_book,
        hazards=key_conflicts,
        services={"agnai_key_hazards": agnai_key_hazards},
    )
)
