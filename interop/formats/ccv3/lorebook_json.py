"""Standalone lorebooks in spec shape: the ``lorebook_v3`` wrapper and a bare ``character_book`` object."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from ...cardkit.card_io import first_error
from ...document import Document
from ...errors import InvalidCardError
from ...model import LOREBOOK_SPECS, Lorebook
from ...platform.registry import Format, Probe, ReadContext, WriteContext
from ...transforms.card_for_target import book_for
from .card_json import model_json


def lorebook_from_json(value: Any, *, file: str | None = None, location: str | None = None) -> Lorebook:
    if not isinstance(value, dict):
        raise InvalidCardError("lorebook is not an object", file=file, location=location)
    try:
        return Lorebook.__pydantic_validator__.validate_python(value)  # Lorebook.model_validate minus its wrapper
    except ValidationError as exc:
        raise InvalidCardError(first_error(exc), file=file, location=location) from None


# --- lorebook_v3 wrapper -------------------------------------------------------


def _detect_v3(probe: Probe) -> int:
    obj = probe.json_object
    if obj is not None and obj.get("spec") in LOREBOOK_SPECS and isinstance(obj.get("data"), dict):
        return 100
    return 0


def _read_v3(data: bytes, ctx: ReadContext) -> Document:
    obj = ctx.json(data)
    if not isinstance(obj, dict) or not isinstance(obj.get("data"), dict):
        raise InvalidCardError("lorebook_v3 file has no 'data' object", file=ctx.filename)
    book = lorebook_from_json(obj["data"], file=ctx.filename, location="data")
    wrapper = {k: v for k, v in obj.items() if k != "data"}
    doc = Document(format="lorebook_v3", lorebook=book, source=ctx.filename, native={"wrapper": wrapper})
    if obj.get("spec") != "lorebook_v3":
        doc.warn(f"non-standard lorebook spec {obj.get('spec')!r}; written back as read, 'lorebook_v3' elsewhere")
    return doc


def _write_v3(doc: Document, ctx: WriteContext) -> bytes:
    book = book_for(doc, "lorebook_v3")
    wrapper = dict(doc.native.get("wrapper", {})) if doc.format == "lorebook_v3" else {}
    wrapper.setdefault("spec", "lorebook_v3")
    return model_json(book, ctx.pretty, wrapper)


# --- bare character_book -----------------------------------------------------


def looks_like_character_book(obj: dict[str, Any]) -> bool:
    entries = obj.get("entries")
    if "spec" in obj or not isinstance(entries, list):
        return False
    if not entries:
        return any(k in obj for k in ("scan_depth", "token_budget", "recursive_scanning", "extensions"))
    first = entries[0]
    return isinstance(first, dict) and ("keys" in first or "insertion_order" in first)


def _detect_book(probe: Probe) -> int:
    obj = probe.json_object
    return 80 if obj is not None and looks_like_character_book(obj) else 0


def _read_book(data: bytes, ctx: ReadContext) -> Document:
    book = lorebook_from_json(ctx.json(data), file=ctx.filename)
    return Document(format="character_book", lorebook=book, source=ctx.filename)


def _write_book(doc: Document, ctx: WriteContext) -> bytes:
    return model_json(book_for(doc, "character_book"), ctx.pretty)


def _describe(doc: Document) -> dict[str, Any]:
    book = doc.book
    if book is None:
        return {}
    return {
        "scan_depth": book.scan_depth,
        "token_budget": book.token_budget,
        "recursive_scanning": book.recursive_scanning,
    }


FORMATS = (
    Format(
        name="lorebook_v3",
        kind="lorebook",
        title="CCv3 standalone lorebook ({spec: lorebook_v3, data})",
        suffix=".json",
        platform="ccv3",
        detect=_detect_v3,
        detect_max=100,
        read=_read_v3,
        write=_write_v3,
        describe=_describe,
        aliases=("lorebook-v3",),
    ),
    Format(
        name="character_book",
        kind="lorebook",
        title="Bare CCv2/CCv3 character_book object",
        suffix=".json",
        platform="ccv3",
        detect=_detect_book,
        detect_max=80,
        read=_read_book,
        write=_write_book,
        describe=_describe,
        aliases=("ccv2-book",),
    ),
)
"""This module's formats, registered by the package ``__init__`` (in this order)."""
