"""SillyTavern: world info files and SillyTavern-flavoured cards."""

from __future__ import annotations

from ..registry import Platform, register_platform
from . import adapter


def _is_native_book(obj: object) -> bool:
    """A world-info object: ``entries`` keyed by uid, entries with ``key``/``uid`` (no card ``spec``)."""
    if not isinstance(obj, dict) or "spec" in obj or not isinstance(obj.get("entries"), dict):
        return False
    values = [v for v in obj["entries"].values() if isinstance(v, dict)]
    return not values or any("key" in v or "uid" in v for v in values)


PLATFORM = register_platform(
    Platform(
        name="sillytavern",
        title="SillyTavern",
        rank=30,
        book_to_native=adapter.world_from_lorebook,
        book_from_native=adapter.lorebook_from_world,
        native_book_kind=_is_native_book,
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
