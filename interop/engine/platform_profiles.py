"""The activation profile of each registry platform (``Platform.profile``): the engine's only way to a profile.

A platform package builds its profile and registers it with its ``Platform``; nothing here
names a platform. ``--platform NAME`` is a registry platform's name.
"""

from __future__ import annotations

from ..activation.profile import Profile
from ..errors import InteropError
from ..platform.registry import Platform, all_platforms, get_platform


def simulated_platforms() -> list[Platform]:
    """The platforms that have a profile, in profile listing order (``Profile.rank``, then platform order)."""
    ranked = [(p.profile.rank, p) for p in all_platforms() if p.profile is not None]
    return [p for _, p in sorted(ranked, key=lambda pair: pair[0])]


def profile_names() -> list[str]:
    """Names of the platforms ``--platform`` accepts, in listing order."""
    return [p.name for p in simulated_platforms()]


def app_profile_names() -> list[str]:
    """The platforms whose profile simulates an app (not a generic spec's semantics, ``Platform.generic``):
    the ones compared side by side when none is named."""
    return [p.name for p in simulated_platforms() if not p.generic]


def find_profile(platform: str) -> Profile | None:
    """The profile of registry platform ``platform``; None when it has none (NovelAI) or is unknown."""
    try:
        return get_platform(platform).profile
    except KeyError:
        return None


def get_profile(platform: str) -> Profile:
    """The profile of registry platform ``platform``, or an error naming the platforms that have one."""
    profile = find_profile(platform)
    if profile is None:
        raise InteropError(f"unknown platform {platform!r}; choose from {', '.join(profile_names())}")
    return profile
