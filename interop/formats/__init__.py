"""Platform packages. Each ``interop/formats/<platform>/`` registers its formats and its
``Platform`` with ``registry.register_platform`` when imported.

To add a platform: write the package ``interop/formats/<platform>/`` (its ``__init__.py``
registers it), add ``mappings/<platform>.json`` and ``tests/formats/test_<platform>.py``.
Nothing else names it: ``registry.load_all`` finds every package here, and packages installed
elsewhere that declare an ``interop.platforms`` entry point.

This module only re-exports the registry (which imports nothing back from here).
"""

from __future__ import annotations

from ..platform.registry import (
    ENTRY_POINT_GROUP,
    PLATFORM_PATH,
    Format,
    Platform,
    Probe,
    ReadContext,
    WriteContext,
    all_formats,
    all_platforms,
    get_format,
    get_platform,
    load_all,
    platform_packages,
    register_platform,
)

# The registry searches the same list the import system uses for this package's sub-modules:
# a folder appended to ``interop.formats.__path__`` is a folder of platform packages.
PLATFORM_PATH[:] = __path__
__path__ = PLATFORM_PATH

__all__ = [
    "ENTRY_POINT_GROUP",
    "PLATFORM_PATH",
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
    "register_platform",
]
