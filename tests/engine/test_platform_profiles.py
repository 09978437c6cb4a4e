"""Each Platform names the engine profile that simulates it (``Platform.engine_profile``), and the
engine and the behaviour report find profiles and adapters through that name, never by hand."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from interop.engine import PROFILES, platform_profile
from interop.engine.profiles.base import simulated_platform
from interop.fidelity.behaviour import engine_platform
from interop.platform.registry import Platform, all_platforms, get_platform, register_platform, unregister_platform


def test_every_profile_simulates_a_platform_and_every_named_profile_exists() -> None:
    named = {p.name: p.engine_profile for p in all_platforms() if p.engine_profile is not None}
    assert named == {"sillytavern": "sillytavern", "risu": "risu", "agnai": "agnai", "ccv3": "ccv3"}
    assert set(named.values()) == set(PROFILES)


def test_a_platform_without_a_profile_has_none() -> None:
    assert get_platform("novelai").engine_profile is None
    assert platform_profile("novelai") is None
    assert engine_platform("novelai") is None
    assert platform_profile("no-such-platform") is None


@pytest.fixture
def st_like() -> Iterator[Platform]:
    """A platform simulated by the SillyTavern profile (as a fork of ST would be)."""
    platform = register_platform(Platform(name="st-fork", title="ST fork", engine_profile="sillytavern"))
    yield platform
    unregister_platform("st-fork")


def test_the_profile_is_found_through_the_platform(st_like: Platform) -> None:
    assert platform_profile("st-fork") == "sillytavern"
    assert engine_platform("st-fork") == "sillytavern"


def test_a_profile_named_but_not_in_the_engine_is_none() -> None:
    register_platform(Platform(name="future", title="Future", engine_profile="future"))
    try:
        assert platform_profile("future") is None
    finally:
        unregister_platform("future")


def test_a_profile_converts_with_the_adapter_of_the_platform_it_simulates() -> None:
    for name in PROFILES:
        simulated = simulated_platform(name)
        assert simulated is not None and simulated.engine_profile == name
    assert simulated_platform("no-such-profile") is None
