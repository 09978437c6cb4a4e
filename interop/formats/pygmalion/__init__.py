"""Pygmalion / Oobabooga JSON character files (read)."""

from __future__ import annotations

from ..registry import Platform, register_platform

PLATFORM = register_platform(Platform(name="pygmalion", title="Pygmalion JSON", rank=50))

from . import adapter  # noqa: E402, F401  (registers its formats)
