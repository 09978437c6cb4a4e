"""Pygmalion / Oobabooga JSON character files (read). This module is the package's one public face."""

from __future__ import annotations

from ...platform.registry import Platform, register_platform
from . import adapter

PLATFORM = register_platform(Platform(name="pygmalion", title="Pygmalion JSON", rank=50), *adapter.FORMATS)
