"""Backyard AI .byaf archives (read). This module is the package's one public face."""

from __future__ import annotations

from ...platform.registry import Platform, register_platform
from . import adapter

PLATFORM = register_platform(Platform(name="backyard", title="Backyard AI", rank=70), *adapter.FORMATS)
