"""text-generation-webui YAML characters."""

from __future__ import annotations

from ..registry import Platform, register_platform

PLATFORM = register_platform(Platform(name="textgen", title="text-generation-webui", rank=60))

from . import adapter  # noqa: E402, F401  (registers its formats)
