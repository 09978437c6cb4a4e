"""SillyTavern's regex keys: a key written ``/pattern/flags`` is a JavaScript regex in ST."""

from __future__ import annotations

import re
from typing import Any

_REGEX_KEY = re.compile(r"^/([\s\S]+?)/([gimsuy]*)$")


def is_regex_key(key: Any) -> bool:
    """ST's rule: ``/pattern/flags`` with flags from ``gimsuy`` and no unescaped ``/`` inside."""
    if not isinstance(key, str):
        return False
    match = _REGEX_KEY.match(key)
    if not match:
        return False
    return re.search(r"(?<!\\)(?:\\\\)*/", match.group(1)) is None


def as_regex_key(key: str, case_sensitive: bool) -> str:
    """A plain key as the ST regex that matches it literally (its ``/`` escaped)."""
    if is_regex_key(key):
        return key
    return "/" + re.sub(r"(?<!\\)((?:\\\\)*)/", r"\1\\/", key) + "/" + ("" if case_sensitive else "i")
