"""Loading lorebook files for a profile: native files as they are, anything else through the reader.

A file already in the platform's native shape (an ST world, a Risu ``type:risu``
export or entry list, an Agnai ``kind:memory`` book) is evaluated exactly as
read. Any other file goes through ``interop.read`` into the canonical model,
and the profile converts it with the platform adapter, as a migration would.
"""

from __future__ import annotations

import json
from pathlib import Path, PurePath
from typing import Any

from ..api import read_bytes
from ..errors import ConversionError, CorruptInputError
from ..limits import DEFAULT_LIMITS, Limits


def native_kind(obj: Any) -> str | None:
    """The platform whose native lorebook shape ``obj`` has, if any."""
    if isinstance(obj, dict):
        if obj.get("kind") == "memory" and isinstance(obj.get("entries"), list):
            return "agnai"
        if obj.get("type") == "risu" and isinstance(obj.get("data"), list):
            return "risu"
        entries = obj.get("entries")
        if "spec" not in obj and isinstance(entries, dict):
            values = [v for v in entries.values() if isinstance(v, dict)]
            if not values or any("key" in v or "uid" in v for v in values):
                return "sillytavern"
    risu_fields = ("insertorder", "secondkey", "alwaysActive")
    if (
        isinstance(obj, list)
        and obj
        and all(isinstance(e, dict) for e in obj)
        and any(f in e for e in obj for f in risu_fields)
    ):
        return "risu"
    return None


def load_book(path: str | Path, platform: str) -> Any:
    """One lorebook file, ready for ``platform``'s profile (a native object or a canonical Lorebook)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CorruptInputError(exc.strerror or "cannot read file", file=str(path)) from None
    return book_from_bytes(data, str(path), platform)


def book_from_bytes(data: bytes, filename: str, platform: str, *, limits: Limits = DEFAULT_LIMITS) -> Any:
    """``load_book`` on bytes already in memory (``filename`` names the book when it has no name)."""
    stem = PurePath(filename).stem
    obj: Any = None
    try:
        obj = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        obj = None
    if obj is not None and platform != "ccv3" and native_kind(obj) == platform:
        return (stem, obj)
    doc = read_bytes(data, filename=filename, limits=limits)
    book = doc.book
    if book is None:
        raise ConversionError("the file holds no lorebook", file=filename)
    if not (isinstance(book.name, str) and book.name):
        book = book.model_copy(update={"name": stem})
    return book


def load_books(paths: list[str] | list[Path], platform: str) -> list[Any]:
    return [load_book(p, platform) for p in paths]
