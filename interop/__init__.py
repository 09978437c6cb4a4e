"""interop: lossless migration of character cards and lorebooks between AI roleplay apps.

The public names are loaded on first use (PEP 562): ``import interop.cli`` for
``interop --help`` must not pay for pydantic and every format module.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .api import Detection, detect, detect_all, read, read_bytes, write
    from .document import Document
    from .errors import (
        ConversionError,
        CorruptInputError,
        FormatError,
        InteropError,
        InvalidCardError,
        LimitExceededError,
        OutputError,
        UnknownFormatError,
        UnsafeInputError,
    )
    from .limits import DEFAULT_LIMITS, Limits
    from .model import Asset, Card, CardData, Lorebook, LorebookEntry

_HOME: dict[str, str] = {
    **dict.fromkeys(("Detection", "detect", "detect_all", "read", "read_bytes", "write"), ".api"),
    "Document": ".document",
    **dict.fromkeys(
        (
            "ConversionError",
            "CorruptInputError",
            "FormatError",
            "InteropError",
            "InvalidCardError",
            "LimitExceededError",
            "OutputError",
            "UnknownFormatError",
            "UnsafeInputError",
        ),
        ".errors",
    ),
    **dict.fromkeys(("DEFAULT_LIMITS", "Limits"), ".limits"),
    **dict.fromkeys(("Asset", "Card", "CardData", "Lorebook", "LorebookEntry"), ".model"),
    "__version__": "._version",
}

__all__ = [
    "DEFAULT_LIMITS",
    "Asset",
    "Card",
    "CardData",
    "ConversionError",
    "CorruptInputError",
    "Detection",
    "Document",
    "FormatError",
    "InteropError",
    "InvalidCardError",
    "LimitExceededError",
    "Limits",
    "Lorebook",
    "LorebookEntry",
    "OutputError",
    "UnknownFormatError",
    "UnsafeInputError",
    "__version__",
    "detect",
    "detect_all",
    "read",
    "read_bytes",
    "write",
]


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'interop' has no attribute {name!r}")
    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value  # once: later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
