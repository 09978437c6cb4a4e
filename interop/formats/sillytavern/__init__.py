"""SillyTavern: native world info files and SillyTavern-flavoured cards.

* ``sillytavern-world``: ``{"entries": {"<uid>": {...}}, "originalData"?: {...}}``,
  read and written losslessly (``lorebook_from_world`` / ``world_from_lorebook``).
* ``sillytavern-card``: a V2 card JSON the way SillyTavern writes it (V1 mirror
  at the root, ST's flat ``entry.extensions`` keys), plus a stash of what ST's
  own exporter drops. Detection reads such cards as ccv2/ccv3/png, whose readers keep
  the file as it is; this format's reader and writer fold the flat keys into
  ``extensions.sillytavern`` with ``normalize_card`` and report the conflicts
  (other layers reach ``normalize_card_book`` through the platform's services).

Field renames, defaults and enum names come from ``mappings/sillytavern.json``
(rendered to docs/platforms/sillytavern.md), which also documents every decision
made here. This module is the package's one public face: other packages reach it
through the registry (``get_platform("sillytavern").service(name)``), never by import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...platform.registry import Deferred, Platform, register_platform
from . import app_model, chat, files
from .card import card_book_from_lorebook, sillytavern_card
from .describe import describe_world
from .fields import FIELDS, LOGIC_NAMES, POSITION_NAMES, ROLE_NAMES, WorldField, flat_keys
from .normalize import conflict_text, hazards, normalize_card, normalize_card_book
from .readable import st_readable_book
from .world import lorebook_from_world, world_from_lorebook

if TYPE_CHECKING:
    from .activation import SillyTavernProfile


def world_fields() -> tuple[WorldField, ...]:
    """The world-entry fields of the mapping table, in the template's key order (``fields.WorldField``)."""
    return FIELDS


def position_names() -> dict[int, str]:
    """ST's insertion positions by number (``0`` -> ``"before"``, ...), from the mapping table."""
    return dict(POSITION_NAMES)


def _is_native_book(obj: object) -> bool:
    """A world-info object: ``entries`` keyed by uid, entries with ``key``/``uid`` (no card ``spec``)."""
    if not isinstance(obj, dict) or "spec" in obj or not isinstance(obj.get("entries"), dict):
        return False
    values = [v for v in obj["entries"].values() if isinstance(v, dict)]
    return not values or any("key" in v or "uid" in v for v in values)


def _profile() -> SillyTavernProfile:
    # imported on first use (``Platform.profile`` is Deferred): only ``activate`` and the engine run profiles
    from .activation import SillyTavernProfile

    return SillyTavernProfile()


PLATFORM = register_platform(
    Platform(
        name="sillytavern",
        profile=Deferred(_profile),
        title="SillyTavern",
        rank=30,
        book_to_native=world_from_lorebook,
        book_from_native=lorebook_from_world,
        native_book_kind=_is_native_book,
        hazards=hazards,
        app_check=app_model.MODEL,
        services={
            "card_book_from_lorebook": card_book_from_lorebook,
            "conflict_text": conflict_text,
            "flat_keys": flat_keys,
            "lorebook_from_world": lorebook_from_world,
            "normalize_card_book": normalize_card_book,
            "position_names": position_names,
            "st_readable_book": st_readable_book,
            "world_fields": world_fields,
            "world_from_lorebook": world_from_lorebook,
        },
    ),
    *files.FORMATS,
    *chat.FORMATS,
)

__all__ = [
    "FIELDS",
    "LOGIC_NAMES",
    "PLATFORM",
    "POSITION_NAMES",
    "ROLE_NAMES",
    "card_book_from_lorebook",
    "conflict_text",
    "describe_world",
    "flat_keys",
    "hazards",
    "lorebook_from_world",
    "normalize_card",
    "normalize_card_book",
    "sillytavern_card",
    "st_readable_book",
    "world_from_lorebook",
]
