"""SillyTavern/CCv3 keys -> Agnai keywords: what Agnai would match differently, recorded, never changed.

Agnai's ``buildMemoryPrompt`` does not evaluate regular expressions, deletes
``\\ ^ $ + . ( ) | [ ] { } _`` from keywords, treats ``*``/``?`` as wildcards,
wraps keywords in ASCII word boundaries and ignores case; its book import
drops entries without text. A key the source platform matches one way and
Agnai another is a hazard: listed per key (``KeyHazard``, for ``interop
inspect`` and tests) and per entry as ``Conflict`` records (the agnai
``Platform.hazards``, turned into fidelity findings).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..model import Lorebook, as_str_list
from ..model.conflict import Conflict
from ..model.keys import AGNAI_STRIPPED, agnai_keyword, is_regex_key

__all__ = [
    "KeyHazard",
    "agnai_entry_hazards",
    "agnai_key_hazards",
    "key_conflicts",
]

_ASCII_WORD = re.compile(r"[A-Za-z0-9_]")

REASON_REGEX = (
    "regex key: Agnai does not evaluate regular expressions; it matches the text left after deleting metacharacters"
)
REASON_STRIPPED = "Agnai deletes {chars} from keywords"
REASON_WILDCARD = "Agnai treats '*' and '?' in keywords as wildcards"
REASON_BOUNDARY = (
    "Agnai wraps keywords in ASCII word boundaries; a key that starts or ends with non-Latin text rarely matches"
)
REASON_CASE = "case-sensitive entry: Agnai matches keywords case-insensitively"
REASON_EMPTY = "keyword is empty after Agnai deletes its metacharacters; it can never match as intended"
REASON_NO_TEXT = "entry text is empty: Agnai's book import drops the entry"
REASON_NO_KEYS = "entry has no keywords: Agnai never activates it (constant entries are not force-inserted)"
_LOST = (REASON_REGEX, REASON_EMPTY, REASON_NO_TEXT, REASON_NO_KEYS)
_SHOWN = 3
"""Reasons spelled out per entry in a conflict; the rest are counted."""


class KeyHazard(NamedTuple):
    """A key Agnai would not match as written: where, which, why."""

    path: str
    key: str
    reason: str

    @property
    def fate(self) -> str:
        """``lost`` when the key cannot work at all in Agnai, ``approximated`` when it matches differently."""
        return "lost" if self.reason in _LOST else "approximated"


def agnai_key_hazards(book: Lorebook) -> list[KeyHazard]:
    """Every entry key Agnai would match differently from the source platform, never changed silently.

    Paths are ``entries[i].keys[j]`` (``secondary_keys`` are not listed: Agnai
    ignores them altogether, which the mapping table reports).
    """
    hazards: list[KeyHazard] = []
    for i, entry in enumerate(book.entries):
        regex_entry = entry.use_regex is True
        for j, key in enumerate(as_str_list(entry.keys) if entry.keys is not None else []):
            path = f"entries[{i}].keys[{j}]"
            hazards.extend(KeyHazard(path, key, reason) for reason in _key_reasons(key, regex_entry))
            if entry.case_sensitive is True and key.lower() != key.upper():
                hazards.append(KeyHazard(path, key, REASON_CASE))
    return hazards


def agnai_entry_hazards(book: Lorebook) -> list[KeyHazard]:
    """Entries Agnai drops on import (``entries[i].content``) or can never activate (``entries[i].keys``)."""
    hazards: list[KeyHazard] = []
    for i, entry in enumerate(book.entries):
        if not (isinstance(entry.content, str) and entry.content):
            hazards.append(KeyHazard(f"entries[{i}].content", "", REASON_NO_TEXT))
        if not any(k.strip() for k in as_str_list(entry.keys)):
            hazards.append(KeyHazard(f"entries[{i}].keys", "", REASON_NO_KEYS))
    return hazards


def key_conflicts(book: Lorebook) -> list[Conflict]:
    """The key hazards per entry: one ``Conflict(("entry", i, "keys"), detail, fate)`` for each entry that has any.

    The fate is ``lost`` when one key of the entry cannot work at all; the detail
    names the first three keys and reasons and counts the rest.
    """
    per_entry: dict[int, list[KeyHazard]] = {}
    for hazard in agnai_key_hazards(book):
        index = _entry_of(hazard.path)
        if index is not None:
            per_entry.setdefault(index, []).append(hazard)
    conflicts = []
    for index, hazards in per_entry.items():
        fate = "lost" if any(h.fate == "lost" for h in hazards) else "approximated"
        reasons = [f"{h.key!r}: {h.reason}" for h in hazards]
        more = f"; and {len(reasons) - _SHOWN} more" if len(reasons) > _SHOWN else ""
        conflicts.append(Conflict(("entry", index, "keys"), "; ".join(reasons[:_SHOWN]) + more, fate))
    return conflicts


def _entry_of(path: str) -> int | None:
    """``entries[4].keys[0]`` -> 4."""
    if not path.startswith("entries["):
        return None
    number = path[len("entries[") : path.find("]")]
    return int(number) if number.isdigit() else None


def _key_reasons(key: str, regex_entry: bool) -> list[str]:
    if regex_entry or is_regex_key(key):
        return [REASON_REGEX]
    reasons = []
    kept = agnai_keyword(key)
    if not kept.strip(" *?"):
        return [REASON_EMPTY]
    deleted = sorted({ch for ch in key.strip() if ch in AGNAI_STRIPPED})
    if deleted:
        reasons.append(REASON_STRIPPED.format(chars=" ".join(repr(c) for c in deleted)) + f" (matches {kept!r})")
    if "*" in key or "?" in key:
        reasons.append(REASON_WILDCARD)
    core = kept.strip(" *?")  # wildcards match word characters, so they never break a boundary
    if not _ASCII_WORD.match(core[0]) or not _ASCII_WORD.match(core[-1]):
        reasons.append(REASON_BOUNDARY)
    return reasons
