"""RisuAI: lorebook exports, .risum modules, Risu CHARX cards and Risu character exports."""

from __future__ import annotations

from ..registry import Platform, register_platform

# Registration order is listing order: import one module per line, in this order.
# isort: skip_file
from . import (
    card,  # noqa: F401
    lorebook,  # noqa: F401
    module,  # noqa: F401
)
from .entries import lorebook_from_risu_entries, risu_entries_from_lorebook

PLATFORM = register_platform(
    Platform(
        name="risu",
        title="RisuAI",
        rank=40,
        book_to_native=risu_entries_from_lorebook,
        book_from_native=lorebook_from_risu_entries,
    )
)
