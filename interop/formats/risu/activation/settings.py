"""RisuAI's lorebook settings, read by the profile and by the decorators of each entry (``hook``)."""

from __future__ import annotations

from dataclasses import dataclass

from ....activation.jsregex import DEFAULT_TIMEOUT


@dataclass
class RisuSettings:
    """``char.loreSettings`` or the global defaults (``db.loreBookDepth`` 5, ``db.loreBookToken`` 800,
    recursive on, full-word off)."""

    scan_depth: int = 5
    token_budget: int = 800
    recursive: bool = True
    full_word: bool = False
    migrate_legacy: bool = True  # apply updateLorebooks to entries without bookVersion >= 2
    regex_timeout: float = DEFAULT_TIMEOUT
