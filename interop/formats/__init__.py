"""Platform packages. Each ``interop/formats/<platform>/`` registers its formats and its
``Platform`` with ``registry.register_platform`` when imported.

To add a platform: write the package ``interop/formats/<platform>/`` (its ``__init__.py``
registers it), add ``mappings/<platform>.json`` and ``tests/formats/test_<platform>.py``.
Nothing else names it: ``load_all`` finds every package here, and packages installed
elsewhere that declare an ``interop.platforms`` entry point.
"""

from __future__ import annotations

import importlib
import pkgutil
from importlib.metadata import entry_points

from .registry import (
    Format,
    Platform,
    Probe,
    ReadContext,
    WriteContext,
    all_formats,
    all_platforms,
    get_format,
    get_platform,
    register,
    register_platform,
)

ENTRY_POINT_GROUP = "interop.platforms"

_loaded = False


def platform_packages() -> list[str]:
    """Names of the platform packages found in this folder (sub-packages only)."""
    return sorted(info.name for info in pkgutil.iter_modules(__path__) if info.ispkg)


def load_all() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for name in platform_packages():
        importlib.import_module(f"{__name__}.{name}")
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        entry.load()


__all__ = [
    "Format",
    "Platform",
    "Probe",
    "ReadContext",
    "WriteContext",
    "all_formats",
    "all_platforms",
    "get_format",
    "get_platform",
    "load_all",
    "platform_packages",
    "register",
    "register_platform",
]
