"""Lorebook key syntax, one rule per app (no platform package owns these; every layer may use them).

The apps really differ, so the rules stay apart, each named for its app:

- ``is_regex_key``: a key *written* as ``/pattern/flags`` (lower-case flags,
  surrounding space ignored). NovelAI's per-key regex syntax, and the rule for
  "the source meant this key as a regex" (Agnai's hazards).
- ``is_sillytavern_regex_key``: SillyTavern's ``parseRegexFromString``
  (public/scripts/world-info.js): ``/pattern/flags`` with flags from ``gimsuy``
  and no unescaped ``/`` inside; the key is not trimmed here (ST trims before).
- ``agnai_keyword``: what Agnai's matcher keeps of a keyword (``buildMemoryPrompt``
  deletes ``\\ ^ $ + . ( ) | [ ] { } _`` after trimming).
"""

from __future__ import annotations

import re
from typing import Any

_REGEX_KEY = re.compile(r"^/(.+)/([a-z]*)$", re.DOTALL)
_ST_REGEX_KEY = re.compile(r"^/([\s\S]+?)/([gimsuy]*)$")
_ST_UNESCAPED_SLASH = re.compile(r"(?<!\\)(?:\\\\)*/")

AGNAI_STRIPPED = frozenset("\\^$+.()|[]{}_")
"""The characters Agnai deletes from a keyword before matching it."""


def is_regex_key(key: str) -> bool:
    """True for a key written ``/pattern/flags`` (the NovelAI per-key regex syntax)."""
    return bool(_REGEX_KEY.match(key.strip()))


def is_sillytavern_regex_key(key: Any) -> bool:
    """SillyTavern's rule: ``/pattern/flags`` with flags from ``gimsuy`` and no unescaped ``/`` inside."""
    if not isinstance(key, str):
        return False
    match = _ST_REGEX_KEY.match(key)
    if not match:
        return False
    return _ST_UNESCAPED_SLASH.search(match.group(1)) is None


def agnai_keyword(key: str) -> str:
    """The keyword as Agnai's matcher sees it: trimmed, with its deleted characters removed."""
    return "".join(ch for ch in key.strip() if ch not in AGNAI_STRIPPED)
