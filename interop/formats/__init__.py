"""Format modules. Each registers itself with ``registry.register`` on import.

To add a platform: write ``interop/formats/<platform>.py``, add it to
``FORMAT_MODULES`` below, add ``mappings/<platform>.json`` and
``tests/formats/test_<platform>.py``.
"""

from __future__ import annotations

import importlib

from .registry import Format, Probe, ReadContext, WriteContext, all_formats, get_format, register

FORMAT_MODULES = (
    "card_json",
    "lorebook_json",
    "png_card",
    "charx_card",
    "agnai",
    "agnai_character",
    "novelai",
    "novelai_containers",
    "sillytavern",
    "risu",
    "pygmalion",
    "textgen",
    "backyard",
)

_loaded = False


def load_all() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for module in FORMAT_MODULES:
        importlib.import_module(f"{__name__}.{module}")


__all__ = [
    "FORMAT_MODULES",
    "Format",
    "Probe",
    "ReadContext",
    "WriteContext",
    "all_formats",
    "get_format",
    "load_all",
    "register",
]
