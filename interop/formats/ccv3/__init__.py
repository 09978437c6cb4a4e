"""Character Card V1/V2/V3 JSON, lorebook_v3 / character_book JSON, PNG/APNG cards and CHARX:
the spec formats every app exchanges. This module is the package's one public face: it registers
the platform and its formats (in listing order); the modules inside are private."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...platform.registry import Deferred, Platform, register_platform
from . import card_json, charx_card, lorebook_json, png_card

if TYPE_CHECKING:
    from .activation import CCv3Profile


def _profile() -> CCv3Profile:
    # imported on first use (``Platform.profile`` is Deferred): only ``activate`` and the engine run profiles
    from .activation import CCv3Profile

    return CCv3Profile()


PLATFORM = register_platform(
    Platform(
        name="ccv3",
        title="Character Card V3 (and V1/V2) files",
        rank=0,
        profile=Deferred(_profile),
        generic=True,
    ),
    *card_json.FORMATS,
    *lorebook_json.FORMATS,
    *png_card.FORMATS,
    *charx_card.FORMATS,
)
