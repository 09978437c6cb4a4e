"""Each Platform carries the profile that simulates it (``Platform.profile``), and the engine and the
behaviour report find profiles through the registry, never by a name list."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from interop.activation.profile import Profile
from interop.engine import app_profile_names, find_profile, get_profile, profile_names
from interop.errors import InteropError
from interop.fidelity.behaviour import engine_platform
from interop.platform.registry import Platform, all_platforms, get_platform, register_platform, unregister_platform


def test_every_profile_simulates_the_platform_that_registers_it() -> None:
    named = {p.name: p.profile.name for p in all_platforms() if p.profile is not None}
    # A platform added later (one package) joins the list: the built-ins must be there, each its own.
    assert {"sillytavern", "risu", "agnai", "ccv3"} <= set(named) and all(k == v for k, v in named.items())
    assert all(isinstance(p.profile, Profile) for p in all_platforms() if p.profile is not None)


def test_profiles_list_in_the_order_of_the_messages() -> None:
    # Built-ins first in this order; a platform added later (default rank 100) lists after them.
    assert profile_names()[:4] == ["sillytavern", "risu", "agnai", "ccv3"]
    assert app_profile_names()[:3] == ["sillytavern", "risu", "agnai"]  # ccv3 is the spec, not an app
    assert "ccv3" not in app_profile_names()
    with pytest.raises(InteropError, match=r"unknown platform 'novelai'; choose from sillytavern, risu, agnai, ccv3"):
        get_profile("novelai")


def test_a_platform_without_a_profile_has_none() -> None:
    assert get_platform("novelai").profile is None
    assert find_profile("novelai") is None
    assert engine_platform("novelai") is None
    assert find_profile("no-such-platform") is None


@pytest.fixture
def st_like() -> Iterator[Platform]:
    """A platform simulated by the SillyTavern profile (as a fork of ST would be)."""
    platform = register_platform(Platform(name="st-fork", title="ST fork", profile=get_profile("sillytavern")))
    yield platform
    unregister_platform("st-fork")


def test_the_profile_is_found_through_the_platform(st_like: Platform) -> None:
    assert get_profile("st-fork") is get_profile("sillytavern")
    assert engine_platform("st-fork") == "st-fork"
    assert "st-fork" in profile_names()
