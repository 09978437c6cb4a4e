"""A fidelity report's JSON text cut in two for storage: the part many reports share, and the rest.

A report's ``items`` (95 % of its text) depend only on the source's layout and the target, so a
run over thousands of cards of a few shapes has a few distinct item lists. The recorder stores
each once (``report_parts``, keyed by SHA-256) and keeps the rest of the report with the place
the part goes back. The cut is on the exact text, so joining always gives the original back,
byte for byte, whatever the part holds; the anchors only decide what is shared.
"""

from __future__ import annotations

import hashlib
from typing import NamedTuple

_OPEN = '"items":['
"""The items list's key in the compact JSON ``FidelityReport.to_json_text`` writes. Inside a JSON
string every quote is escaped, so this text can only be the key itself."""
_CLOSE = '],"warnings":'
"""What follows the items list (the next key), for the same reason found nowhere inside it."""
MIN_PART = 256
"""Smaller item lists stay in the report: a shared row would cost more than it saves."""


class Split(NamedTuple):
    rest: str
    """The report without the part (valid JSON: its items list is empty)."""
    at: int
    """Where the part goes back into ``rest``."""
    part: str
    sha256: str


_RECENT: dict[int, tuple[str, str]] = {}
"""Part length -> (the last part of that length, its SHA-256). A run's reports repeat a few item lists:
a part equal to one of these (compared in full, without copying it out) is not hashed again."""
_RECENT_KEPT = 256
_RECENT_CHARS = 4_000_000
"""Characters all remembered parts may hold together. A module global outlives the run (``interop serve``):
256 parts of big, distinct books held hundreds of MB. A typical run's few parts take ~100 KB."""
_recent_held = 0


def split_report(text: str) -> Split | None:
    """The report's items list cut out of ``text``, or None when there is nothing worth sharing."""
    start = text.find(_OPEN)
    if start < 0:
        return None
    start += len(_OPEN)
    end = text.rfind(_CLOSE, start)  # from the end: what follows the items is short
    size = end - start
    if size < MIN_PART:
        return None
    known = _RECENT.get(size)
    if known is not None and text.startswith(known[0], start):
        part, digest = known
    else:
        part = text[start:end]
        digest = hashlib.sha256(part.encode("utf-8", "surrogatepass")).hexdigest()
        _remember(size, part, digest)
    return Split(text[:start] + text[end:], start, part, digest)


def _remember(size: int, part: str, digest: str) -> None:
    """``_RECENT[size] = (part, digest)`` within ``_RECENT_KEPT`` parts and ``_RECENT_CHARS`` characters."""
    global _recent_held
    if size > _RECENT_CHARS // 4:  # one huge part is not worth what it would keep alive
        return
    old = _RECENT.get(size)
    held = _recent_held - (len(old[0]) if old is not None else 0)
    if len(_RECENT) >= _RECENT_KEPT or held + size > _RECENT_CHARS:
        _RECENT.clear()
        held = 0
    _RECENT[size] = (part, digest)
    _recent_held = held + size


def join_report(rest: str, at: int, part: str) -> str:
    """The full report text: ``part`` put back into ``rest`` at ``at``."""
    return rest[:at] + part + rest[at:]
