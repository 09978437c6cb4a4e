"""The card or book an application imports from our output bytes (PNG, CHARX or JSON).

Shared by the app models: SillyTavern reads the JSON its import takes (``parse_output``), the
Risu and Agnai models the card's ``character_book`` (``card_book``, ``open_verdict``). The PNG
chunk read is ``ccv3`` first, then ``chara`` (both hold the same book in our output).
"""

from __future__ import annotations

import base64
import zipfile
from io import BytesIO
from typing import Any

from ..containers.png import find_text, is_png, text_chunks
from ..document import Document
from ..jsonio import loads
from ..memo import memoized
from .verdict import AppVerdict

_OUTPUT_JSON = "appmodel_output_json"
"""Memo kind: an output's JSON text parsed (keyed on the output bytes object, read-only)."""


def share_output_json(data: bytes, value: Any) -> None:
    """Leave ``data``'s parsed JSON for ``parse_output`` in the open ``document_scope`` (the report's
    read-back parsed the output already). ``value`` must be ``Probe(data).json``: ``load_json``'s
    value is ``loads(data)`` whenever it has one and no BOM was stripped (it refuses more, never
    reads differently); None (not JSON, refused) leaves nothing."""
    if value is not None and not data.startswith(b"\xef\xbb\xbf"):
        memoized(_OUTPUT_JSON, data, (), lambda: value)


def parse_output(data: bytes) -> tuple[Any, str]:
    """The card or book JSON an app imports from output bytes (PNG chunk, CHARX card.json or JSON)
    and where it was read; raises when there is none."""
    if is_png(data):
        chunks = [c for c in text_chunks(data) if c.kind == "tEXt"]  # ST reads tEXt only
        for keyword in ("ccv3", "chara"):
            found = find_text(chunks, keyword)
            if found:
                return loads(base64.b64decode(found[0].payload()).decode("utf-8")), f"PNG {keyword} chunk"
        found = find_text(chunks, "naidata")
        if found:
            return loads(base64.b64decode(found[0].payload()).decode("utf-8")), "PNG naidata chunk"
        raise ValueError("no card chunk")
    if data[:2] == b"PK" or b"PK\x03\x04" in data[:1 << 16]:
        with zipfile.ZipFile(BytesIO(data)) as archive:
            return loads(archive.read("card.json")), "CHARX card.json"
    return memoized(_OUTPUT_JSON, data, (), lambda: loads(data)), "JSON"  # maybe the read-back's parse


def card_book(data: bytes) -> tuple[list[dict[str, Any]], str] | None:
    """The output's card book entries and where they were read, or None when it is not a card."""
    try:
        obj, via = parse_output(data)
    except Exception:
        return None
    if not isinstance(obj, dict):
        return None
    book: Any = None
    if "spec" in obj and obj.get("spec") != "lorebook_v3":
        book = (obj.get("data") or {}).get("character_book") if isinstance(obj.get("data"), dict) else None
    elif obj.get("spec") == "lorebook_v3":
        book = obj.get("data")
    elif isinstance(obj.get("entries"), list):
        book = obj
    if not isinstance(book, dict) or not isinstance(book.get("entries"), list):
        return None
    return [e for e in book["entries"] if isinstance(e, dict)], via


def open_verdict(
    app: str, label: str, importer: str, source: Document, output: bytes, target_format: str
) -> tuple[AppVerdict, list[dict[str, Any]] | None]:
    """A fresh verdict for ``app`` and the card book entries its ``importer`` reads from ``output``
    (None, with a note on the verdict, when the output holds no card book or the source no book)."""
    verdict = AppVerdict(app)
    found = card_book(output)
    if found is None or source.book is None:
        verdict.notes.append(f"{label}'s card import does not read a {target_format} file as a card book")
        return verdict, None
    entries, via = found
    verdict.via = f"{importer} ({via})"
    return verdict, entries
