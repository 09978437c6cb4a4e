"""SillyTavern's World Info activation (``Platform.profile``): ``entries`` reads world entries as ST's
runtime sees them, ``profile`` pools books into a key index, ``scan`` runs ``checkWorldInfo`` and
``assembly`` places what fired into the prompt."""

from __future__ import annotations

from .entries import STBook, STEntry, STPool, STSettings
from .profile import SillyTavernProfile

__all__ = ["STBook", "STEntry", "STPool", "STSettings", "SillyTavernProfile"]
