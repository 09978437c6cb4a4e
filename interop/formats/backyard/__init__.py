"""Backyard AI .byaf archives (read)."""

from __future__ import annotations

from ..registry import Platform, register_platform

PLATFORM = register_platform(Platform(name="backyard", title="Backyard AI", rank=70))

from . import adapter  # noqa: E402, F401  (registers its formats)
