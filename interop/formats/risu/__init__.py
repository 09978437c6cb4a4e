"""RisuAI: lorebook exports, .risum modules, Risu CHARX cards and Risu character exports.

This ``__init__`` is the package's only public face: it registers the platform and its
formats, and exports the raw ``loreBook`` list <-> canonical ``Lorebook`` conversion. The
modules inside are private: ``entries`` (raw entries <-> canonical), ``lorebook``
(``risu-lorebook``), ``module`` (``risum``), ``card`` (``risu-charx``, ``risu-character``),
``describe`` (what every Risu format's ``describe`` reports). What Risu data must become for
another app, and back, is in ``interop.transforms`` (``for_risu``, ``st_risu``, ...).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from ...platform.registry import Deferred, Platform, register_platform
from ...transforms.for_risu import book_losses
from . import all_chats, app_model, card, chat, lorebook, module
from .entries import NS, lorebook_from_risu_entries, risu_entries_from_lorebook

if TYPE_CHECKING:
    from .activation import RisuProfile
    from .legacy_png import LegacyCharacter

__all__ = ["PLATFORM", "lorebook_from_risu_entries", "risu_entries_from_lorebook"]


def _is_native_book(obj: object) -> bool:
    """A ``type:risu`` lorebook export, or a bare list of Risu entries (the engine reads both as they are)."""
    if isinstance(obj, dict):
        return obj.get("type") == lorebook.EXPORT_TYPE and isinstance(obj.get("data"), list)
    fields = ("insertorder", "secondkey", "alwaysActive")
    return (
        isinstance(obj, list)
        and bool(obj)
        and all(isinstance(e, dict) for e in obj)
        and any(f in e for e in obj for f in fields)
    )


def _legacy_png_character(*args: Any, **kwargs: Any) -> LegacyCharacter:
    """``legacy_png.read_legacy_chunk``, imported (with msgpack) only for a PNG carrying Risu's legacy chunk."""
    from .legacy_png import read_legacy_chunk

    return read_legacy_chunk(*args, **kwargs)


def _profile() -> RisuProfile:
    # imported on first use (``Platform.profile`` is Deferred): only ``activate`` and the engine run profiles
    from .activation import RisuProfile

    return RisuProfile()


PLATFORM = register_platform(
    Platform(
        name="risu",
        profile=Deferred(_profile),
        title="RisuAI",
        rank=40,
        book_to_native=risu_entries_from_lorebook,
        book_from_native=lorebook_from_risu_entries,
        native_book_kind=_is_native_book,
        # What Risu will not honour of a book, recorded by the ST -> Risu rewrite where it happens.
        hazards=partial(book_losses, namespace=NS),
        app_check=app_model.MODEL,
        # The ccv3 platform's PNG reader asks for this when a PNG carries Risu's legacy ``risuai`` chunk.
        services={
            "legacy_png_character": _legacy_png_character,
            # Files holding several chats (RisuAI's "Export all chats", a Risu character's chats):
            # interop.chatbook asks for these, so no other package names this one.
            "chats_in": all_chats.chats_in,
            "select_chat": all_chats.select_chat,
        },
    ),
    *lorebook.FORMATS,
    *module.FORMATS,
    *card.FORMATS,
    *chat.FORMATS,
    *all_chats.FORMATS,
)
