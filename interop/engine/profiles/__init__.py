"""Platform profiles, selected by name (``--platform``)."""

from __future__ import annotations

from ...errors import InteropError
from ...platform.registry import get_platform
from .agnai import AgnaiProfile, AgnaiSettings
from .base import Profile
from .ccv3 import CCv3Profile, CCv3Settings
from .risu import RisuProfile, RisuSettings
from .sillytavern import SillyTavernProfile, STBook, STSettings

PROFILES: dict[str, Profile] = {p.name: p for p in (SillyTavernProfile(), RisuProfile(), AgnaiProfile(), CCv3Profile())}


def get_profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise InteropError(f"unknown platform {name!r}; choose from {', '.join(PROFILES)}") from None


def platform_profile(platform: str) -> str | None:
    """The profile that simulates registry platform ``platform`` (its ``Platform.engine_profile``);
    None when none does (e.g. NovelAI) or the platform is unknown."""
    try:
        name = get_platform(platform).engine_profile
    except KeyError:
        return None
    return name if name in PROFILES else None


__all__ = [
    "PROFILES",
    "AgnaiProfile",
    "AgnaiSettings",
    "CCv3Profile",
    "CCv3Settings",
    "Profile",
    "RisuProfile",
    "RisuSettings",
    "STBook",
    "STSettings",
    "SillyTavernProfile",
    "get_profile",
    "platform_profile",
]
