"""``risu-lorebook``: the ``{"type":"risu","ver":1,"data":[...]}`` lorebook export.

The entry conversion lives in ``entries``; the package's ``__init__`` registers the format.
"""

from __future__ import annotations

from typing import Any

from ...cardkit.as_kind import as_lorebook
from ...document import Document
from ...errors import InvalidCardError
from ...jsonio import dump_json
from ...jsonvalue import ABSENT, json_equal
from ...model import Lorebook
from ...model.stash import Stash
from ...platform.registry import Format, Probe, ReadContext, WriteContext
from .describe import describe_risu_book
from .entries import (
    BOOK_ABSENT,
    BOOK_KEEP,
    STASH,
    book_stash,
    book_with_stash,
    lorebook_from_risu_entries,
    risu_entries_from_lorebook,
)

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
    raw_stash = wrapper.pop(STASH, ABSENT)
    stash = Stash.from_json(raw_stash, BOOK_KEEP, BOOK_ABSENT)
    if stash.keep:
        book = book_with_stash(entries_book, stash.keep)
        if not json_equal(export_object(book, wrapper), obj):  # edited or not ours: an unknown key
            book = entries_book
            wrapper[STASH] = raw_stash
    elif raw_stash is not ABSENT:
        wrapper[STASH] = raw_stash  # not ours after all: keep it as an unknown key
    doc = Document(format="risu-lorebook", lorebook=book, source=ctx.filename, native={"wrapper": wrapper})
    if obj.get("ver") != 1:
        doc.warn(f"Risu lorebook export version {obj.get('ver')!r}; only 1 is known")
    return doc


def export_object(book: Lorebook, wrapper: dict[str, Any] | None = None, *, record: bool = False) -> dict[str, Any]:
    """The export object for ``book``: type/ver first, entries, then the book stash if any
    (``record``: the conversion's output, see ``risu_entries_from_lorebook``)."""
    head = dict(wrapper or {})
    out: dict[str, Any] = {"type": head.pop("type", EXPORT_TYPE), "ver": head.pop("ver", 1)}
    out["data"] = risu_entries_from_lorebook(book, record=record)
    out.update(head)
    stash = Stash(keep=book_stash(book))
    if stash:
        out[STASH] = stash.to_json(BOOK_KEEP, BOOK_ABSENT)
    return out


def _write(doc: Document, ctx: WriteContext) -> bytes:
    wrapper = doc.native.get("wrapper") if doc.format == "risu-lorebook" else None
    return dump_json(export_object(as_lorebook(doc), wrapper, record=True), pretty=ctx.pretty)


def _describe(doc: Document) -> dict[str, Any]:
    return describe_risu_book(doc.book)


FORMATS = (
    Format(
        name="risu-lorebook",
        kind="lorebook",
        title='RisuAI lorebook export ({"type":"risu","ver":1,"data":[...]})',
        suffix=".json",
        platform="risu",
        detect=_detect,
        detect_max=100,
        read=_read,
        write=_write,
        describe=_describe,
        aliases=("risu",),
    ),
)
