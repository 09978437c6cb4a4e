"""RisuAI's lorebook activation (``Platform.profile``): ``profile`` runs ``loadLoreBookV3Prompt``,
``hook`` is what its decorators see and change of the entry being parsed."""

from __future__ import annotations

from .profile import RisuProfile, RisuSettings, migrate_entry

__all__ = ["RisuProfile", "RisuSettings", "migrate_entry"]
