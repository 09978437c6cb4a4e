"""SillyTavern's regex keys: a key written ``/pattern/flags`` is a JavaScript regex in ST."""

from __future__ import annotations

import re

from ...model.keys import is_sillytavern_regex_key


def as_regex_key(key: str, case_sensitive: bool) -> str:
    """A plain key as the ST regex that matches it literally (its ``/`` escaped)."""
    if is_sillytavern_regex_key(key):
        return key
    return "/" + re.sub(r"(?<!\\)((?:\\\\)*)/", r"\1\\/", key) + "/" + ("" if case_sensitive else "i")
