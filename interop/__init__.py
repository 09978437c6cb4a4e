"""interop: lossless migration of character cards and lorebooks between AI roleplay apps."""

from ._version import __version__
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
