"""Lorebook key syntax shared by every platform (no platform owns it)."""

from __future__ import annotations

import re

_REGEX_KEY = re.compile(r"^/(.+)/([a-z]*)$", re.DOTALL)


def is_regex_key(key: str) -> bool:
    """True for a key written ``/pattern/flags`` (the SillyTavern and NovelAI per-key regex syntax)."""
    return bool(_REGEX_KEY.match(key.strip()))
