"""NovelAI: lorebooks, scenarios, stories and lorebook PNGs. This module is the package's one
public face: it registers the platform and its formats (in listing order)."""

from __future__ import annotations

from ...platform.registry import Platform, register_platform
from . import app_model, containers, lorebook, story_card

PLATFORM = register_platform(
    Platform(
        name="novelai",
        title="NovelAI",
        rank=20,
        services={"card_of": story_card.card_of},
        app_check=app_model.MODEL,
    ),
    *lorebook.FORMATS,
    *containers.FORMATS,
)
