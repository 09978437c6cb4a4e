"""How reports name a lorebook entry: by its comment or title, else its first keys, else its index.

``entry[4]`` means nothing to a user; ``Wylder`` (the comment they typed) does. Shared by the
fidelity report view, ``roundtrip`` and ``diff``.
"""

from __future__ import annotations

from typing import Any

NAME_CHARS = 40
"""A name longer than this is shortened (with an ellipsis): it labels an entry, it does not quote it."""
KEYS_NAMED = 2
"""Keys that name an entry without a comment or title."""


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= NAME_CHARS else text[: NAME_CHARS - 1] + "…"


def entry_name(index: int, entry: Any) -> str:
    """``Wylder`` (comment or name), ``keys: king, queen`` when it has neither, ``#4`` when it has no keys."""
    if isinstance(entry, dict):
        for field in ("comment", "name"):
            value = entry.get(field)
            if isinstance(value, str) and value.strip():
                return _clip(value)
        keys = entry.get("keys")
        if isinstance(keys, list):
            shown = [str(k).strip() for k in keys if str(k).strip()][:KEYS_NAMED]
            if shown:
                return _clip("keys: " + ", ".join(shown))
    return f"#{index}"


def entry_names(entries: list[Any] | None) -> list[str]:
    return [entry_name(i, e) for i, e in enumerate(entries or ())]
