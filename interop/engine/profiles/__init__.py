"""Platform profiles, selected by name (``--platform``)."""

from __future__ import annotations

from ...errors import InteropError
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
]
