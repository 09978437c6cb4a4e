"""SillyTavern: world info files and SillyTavern-flavoured cards."""

from __future__ import annotations

from ..registry import Platform, register_platform
from . import adapter

PLATFORM = register_platform(
    Platform(
        name="sillytavern",
        title="SillyTavern",
        rank=30,
        book_to_native=adapter.world_from_lorebook,
        book_from_native=adapter.lorebook_from_world,
        services={
            name: getattr(adapter, name)
            for name in (
                "card_book_from_lorebook",
                "flat_keys",
                "lorebook_from_world",
                "normalize_card_book",
                "st_readable_book",
                "world_from_lorebook",
            )
        },
    )
)
