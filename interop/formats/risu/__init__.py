"""RisuAI: lorebook exports, .risum modules, Risu CHARX cards and Risu character exports."""

from __future__ import annotations

from ..registry import Platform, register_platform

# Registration order is listing order: import one module per line, in this order.
# isort: skip_file
from . import (
    card,  # noqa: F401
    lorebook,  # noqa: F401
    module,  # noqa: F401
)
from .entries import lorebook_from_risu_entries, risu_entries_from_lorebook


def _is_native_book(obj: object) -> bool:
    """A ``type:risu`` lorebook export, or a bare list of Risu entries (the engine reads both as they are)."""
    if isinstance(obj, dict):
        return obj.get("type") == "risu" and isinstance(obj.get("data"), list)
    fields = ("insertorder", "secondkey", "alwaysActive")
    return (
        isinstance(obj, list)
        and bool(obj)
        and all(isinstance(e, dict) for e in obj)
        and any(f in e for e in obj for f in fields)
    )


PLATFORM = register_platform(
    Platform(
        name="risu",
        title="RisuAI",
        rank=40,
        book_to_native=risu_entries_from_lorebook,
        book_from_native=lorebook_from_risu_entries,
        native_book_kind=_is_native_book,
    )
)
