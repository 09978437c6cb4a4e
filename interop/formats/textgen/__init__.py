"""text-generation-webui YAML characters. This module is the package's one public face."""

from __future__ import annotations

from ...platform.registry import Platform, register_platform
from . import adapter

PLATFORM = register_platform(Platform(name="textgen", title="text-generation-webui", rank=60), *adapter.FORMATS)
