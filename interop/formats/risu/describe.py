"""What a book looks like in Risu: folders, modes and decorators (``describe`` of every Risu format)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from ...model import Lorebook
from ...transforms.st_risu import decorator_counts
from .entries import NS, risu_entries_from_lorebook


def describe_risu_book(book: Lorebook | None) -> dict[str, Any]:
    """Folders, modes and decorators (by name) of the book as Risu would hold it."""
    if book is None:
        return {}
    raw = risu_entries_from_lorebook(book)
    modes = Counter(str(e.get("mode", "(none)")) for e in raw if e.get("mode") != "folder")
    decorators: Counter[str] = Counter()
    for entry in raw:
        decorators.update(decorator_counts(entry.get("content")))
    folders = book.ext(NS).get("folders")
    return {
        "folders": [f.get("name") for f in folders if isinstance(f, dict)] if isinstance(folders, list) else [],
        "entries_in_folders": sum(1 for e in raw if e.get("mode") != "folder" and "folder" in e),
        "modes": dict(sorted(modes.items())),
        "decorators": dict(sorted(decorators.items())),
    }
