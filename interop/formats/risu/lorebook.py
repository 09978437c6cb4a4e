"""RisuAI: the ``{"type":"risu","ver":1,"data":[...]}`` lorebook export, plus the other Risu formats.

This module is the platform's entry point (listed in ``FORMAT_MODULES``): it
registers ``risu-lorebook`` and imports ``risu_module`` (``risum``) and
``risu_card`` (``risu-charx``, ``risu-character``) so they register too.
The entry conversion lives in ``risu_entries``; its two public functions are
re-exported here, as docs/architecture.md lists them.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ...convert import as_lorebook
from ...document import Document
from ...errors import InvalidCardError
from ...jsonio import dump_json
from ...model import Lorebook
from ...transforms.st_risu import decorator_counts
from ..registry import Format, Probe, ReadContext, WriteContext, register
from .entries import (
    NS,
    STASH,
    book_stash,
    book_with_stash,
    lorebook_from_risu_entries,
    risu_entries_from_lorebook,
    same_json,
)

__all__ = ["describe_risu_book", "lorebook_from_risu_entries", "risu_entries_from_lorebook"]

EXPORT_TYPE = "risu"


def _detect(probe: Probe) -> int:
    obj = probe.json_object
    return 100 if obj is not None and obj.get("type") == EXPORT_TYPE else 0


def _read(data: bytes, ctx: ReadContext) -> Document:
    obj = ctx.json(data)
    if not isinstance(obj, dict) or obj.get("type") != EXPORT_TYPE:
        raise InvalidCardError("not a Risu lorebook export (type is not 'risu')", file=ctx.filename)
    if not isinstance(obj.get("data"), list):
        raise InvalidCardError("Risu lorebook export has no 'data' list", file=ctx.filename, location="data")
    entries_book = lorebook_from_risu_entries(obj["data"], location="data")
    book = entries_book
    wrapper = {k: v for k, v in obj.items() if k != "data"}
    has_stash = STASH in wrapper
    stash = wrapper.pop(STASH, None)
    if isinstance(stash, dict) and isinstance(stash.get("book"), dict):
        book = book_with_stash(entries_book, stash["book"])
        if not same_json(export_object(book, wrapper), obj):  # edited or not ours: an unknown key
            book = entries_book
            wrapper[STASH] = stash
    elif has_stash:
        wrapper[STASH] = stash  # not ours after all: keep it as an unknown key
    doc = Document(format="risu-lorebook", lorebook=book, source=ctx.filename, native={"wrapper": wrapper})
    if obj.get("ver") != 1:
        doc.warn(f"Risu lorebook export version {obj.get('ver')!r}; only 1 is known")
    return doc


def export_object(book: Lorebook, wrapper: dict[str, Any] | None = None) -> dict[str, Any]:
    """The export object for ``book``: type/ver first, entries, then the book stash if any."""
    head = dict(wrapper or {})
    out: dict[str, Any] = {"type": head.pop("type", EXPORT_TYPE), "ver": head.pop("ver", 1)}
    out["data"] = risu_entries_from_lorebook(book)
    out.update(head)
    stash = book_stash(book)
    if stash:
        out[STASH] = {"book": stash}
    return out


def _write(doc: Document, ctx: WriteContext) -> bytes:
    wrapper = doc.native.get("wrapper") if doc.format == "risu-lorebook" else None
    return dump_json(export_object(as_lorebook(doc), wrapper), pretty=ctx.pretty)


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


def _describe(doc: Document) -> dict[str, Any]:
    return describe_risu_book(doc.book)


register(
    Format(
        name="risu-lorebook",
        kind="lorebook",
        title='RisuAI lorebook export ({"type":"risu","ver":1,"data":[...]})',
        suffix=".json",
        platform="risu",
        detect=_detect,
        read=_read,
        write=_write,
        describe=_describe,
        aliases=("risu",),
    )
)
