"""RisuAI ``.risum`` modules as a lorebook format (``risum``).

A module is a lorebook plus regex scripts, triggers, ``cjs`` and assets. It is
read as a lorebook: ``module.lorebook`` gives the entries (see
``entries``), ``module.name``/``description`` the book's name and
description, and the rest of the module object is kept whole in
``book.extensions.risuai.module``. Asset records go to ``Document.assets``
under ``risum-asset:<index>`` (index = position in ``module.assets``).

Writing a module read from a module gives back the same JSON and the same
asset bytes; when nothing changed, even the same JSON text (``native``).
A book from elsewhere gets what Risu's importer requires (``name``, ``id``),
recorded in ``module.interop_stash.filled`` (the absent part of its stash,
``interop.model.stash``) so reading removes it again.
In the kept module object, ``lorebook`` is ``"absent"`` / ``null`` for a module
that had no ``lorebook`` key / a null one (otherwise it is not kept there: the
entries are the book's).
"""

from __future__ import annotations

import copy
import re
import uuid
from typing import Any

from ...cardkit.as_kind import as_lorebook
from ...containers.risum import MODULE_TYPE, looks_like_risum, read_risum, write_risum
from ...document import Document
from ...errors import InvalidCardError
from ...jsonio import escape_lone_surrogates
from ...jsonvalue import json_equal
from ...mappings import load as load_mapping
from ...model import Lorebook
from ...model.stash import Stash, take
from ...platform.registry import Format, Probe, ReadContext, WriteContext
from .describe import describe_risu_book
from .entries import (
    BOOK_ABSENT,
    BOOK_KEEP,
    NS,
    STASH,
    book_stash,
    book_with_stash,
    lorebook_from_risu_entries,
    risu_entries_from_lorebook,
)

ASSET_URI = "risum-asset:{}"
_ASSET_INDEX = re.compile(r"^risum-asset:(\d+)$")


def asset_uri(index: int) -> str:
    return ASSET_URI.format(index)


def book_from_module(module: dict[str, Any], *, location: str = "module", standalone: bool = True) -> Lorebook:
    """The canonical book of a module object (not modified).

    ``standalone``: the module is the whole book (a ``.risum`` file), so its name
    and description are the book's; inside a CHARX the card holds those. A
    module stash that does not write back to the same module (edited or
    hand-made) is kept as an ordinary module key.
    """
    book = _book_from_module(module, location=location, standalone=standalone, use_stash=True)
    name = module.get("name") if isinstance(module.get("name"), str) else None
    if STASH in module and not json_equal(module_from_book(book, standalone=standalone, default_name=name), module):
        book = _book_from_module(module, location=location, standalone=standalone, use_stash=False)
    return book


def _book_from_module(module: dict[str, Any], *, location: str, standalone: bool, use_stash: bool) -> Lorebook:
    meta = copy.deepcopy(module)
    lorebook = meta.pop("lorebook", [])
    book = lorebook_from_risu_entries(lorebook if lorebook is not None else [], location=f"{location}.lorebook")
    data = book.dump()
    stash = Stash.from_json(take(meta, STASH) if use_stash else None, BOOK_KEEP, BOOK_ABSENT)
    filled = [k for k in stash.absent if isinstance(k, str)]
    for name in ("name", "description") if standalone else ():
        if name in meta:
            value = meta.pop(name)
            if name not in filled:
                data[name] = value
    for name in filled:
        meta.pop(name, None)
    if "lorebook" not in module:
        meta["lorebook"] = "absent"  # a module without the key: written back without it
    elif lorebook is None:
        meta["lorebook"] = None
    if meta or not filled:
        data.setdefault("extensions", {}).setdefault(NS, {})["module"] = meta
    book = Lorebook.model_validate(data)
    if stash.keep:
        book = book_with_stash(book, stash.keep)
    return book


def module_from_book(
    book: Lorebook, *, standalone: bool = True, default_name: str | None = None, record: bool = False
) -> dict[str, Any]:
    """The module object for ``book`` (entries, metadata, stash of what a module cannot hold).

    ``standalone=False`` (a CHARX's module): the card carries the book's own
    fields, so they are neither written as module name/description nor stashed.
    A book that did not come from a module gets what Risu's importer needs
    (``name``, ``description``, ``id``), listed in ``interop_stash.filled`` so
    reading drops it again.
    """
    meta = book.ext(NS).get("module")
    module: dict[str, Any] = dict(meta) if isinstance(meta, dict) else {}
    filled: list[str] = []
    for name in ("name", "description") if standalone else ():
        if book.has(name):
            module[name] = getattr(book, name)
    name = default_name or (book.name if isinstance(book.name, str) and book.name else "Lorebook")
    defaults = {
        "name": name,
        "description": "",
        "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"interop:risum:{escape_lone_surrogates(name)}")),
    }
    for key, value in defaults.items() if not isinstance(meta, dict) else ():
        if key not in module:
            module[key] = value
            filled.append(key)
    folders = book.ext(NS).get("folders")
    held = module.pop("lorebook", [])  # the module's own lorebook value when it had no entries
    if book.entries or folders or held not in ("absent", None):
        module["lorebook"] = risu_entries_from_lorebook(book, record=record)  # record: the output's
    elif held is None:
        module["lorebook"] = None
    kept = book_stash(book, native=(f"extensions.{NS}.folders", f"extensions.{NS}.module")) if standalone else {}
    for name in ("name", "description"):
        kept.pop(name, None)
    stash = Stash(keep=kept, absent=filled)
    if stash:
        module[STASH] = stash.to_json(BOOK_KEEP, BOOK_ABSENT)
    return _ordered(module)


_MODULE_ORDER = load_mapping("risu").key_order["module"]  # the key order of Risu's own module export


def _ordered(module: dict[str, Any]) -> dict[str, Any]:
    head = {k: module[k] for k in _MODULE_ORDER if k in module}
    return {**head, **{k: v for k, v in module.items() if k not in head}}


def _detect(probe: Probe) -> int:
    return 100 if looks_like_risum(probe.data) else 0


def _read(data: bytes, ctx: ReadContext) -> Document:
    archive = read_risum(data, limits=ctx.limits, filename=ctx.filename)
    module = archive.module
    if "lorebook" in module and module["lorebook"] is not None and not isinstance(module["lorebook"], list):
        raise InvalidCardError("module lorebook is not a list", file=ctx.filename, location="module.lorebook")
    book = book_from_module(module)
    payload_rest = {k: v for k, v in archive.payload.items() if k not in ("module", "type")}
    doc = Document(
        format="risum",
        lorebook=book,
        source=ctx.filename,
        assets={asset_uri(i): blob for i, blob in enumerate(archive.assets)},
        native={"json_text": archive.json_text, "payload": payload_rest, "module_json": module},
    )
    declared = module.get("assets")
    if isinstance(declared, list) and len(declared) != len(archive.assets):
        doc.warn(f"module lists {len(declared)} assets but holds {len(archive.assets)} asset records")
    if archive.trailing:
        doc.warn(f"{len(archive.trailing)} bytes after the module terminator were ignored")
    return doc


def module_assets(doc: Document) -> list[bytes]:
    """The asset records to write, in index order."""
    found = sorted((int(m.group(1)), blob) for uri, blob in doc.assets.items() if (m := _ASSET_INDEX.match(uri)))
    return [blob for _, blob in found]


def module_bytes(doc: Document, book: Lorebook) -> bytes:
    module = module_from_book(book, record=True)
    rest = doc.native.get("payload") if doc.format == "risum" else None
    payload = {"module": module, "type": MODULE_TYPE, **(rest or {})}
    original = doc.native.get("module_json") if doc.format == "risum" else None
    text = doc.native.get("json_text") if original == module and rest is not None else None
    assets = module_assets(doc) if doc.format == "risum" else []
    if doc.format == "risu-charx":  # the CHARX's module.risum records
        assets = list((doc.native.get("risu") or {}).get("module_assets") or [])
    return write_risum(text if isinstance(text, bytes) else payload, assets)


def _write(doc: Document, ctx: WriteContext) -> bytes:
    return module_bytes(doc, as_lorebook(doc))


def _describe(doc: Document) -> dict[str, Any]:
    book = doc.book
    module = doc.native.get("module_json") if doc.format == "risum" else None
    if not isinstance(module, dict):  # the module as written, ids included; else the canonical metadata
        module = book.ext(NS).get("module") if book is not None else None
    module = module if isinstance(module, dict) else {}
    facts: dict[str, Any] = {"module": book.name if book is not None else None, "module_id": module.get("id")}
    for key in ("regex", "trigger", "assets"):
        value = module.get(key)
        facts[key] = len(value) if isinstance(value, list) else 0
    facts["cjs_chars"] = len(module["cjs"]) if isinstance(module.get("cjs"), str) else 0
    facts.update(describe_risu_book(book))
    return facts


FORMATS = (
    Format(
        name="risum",
        kind="lorebook",
        title="RisuAI module (.risum: lorebook, regex, triggers, assets)",
        suffix=".risum",
        platform="risu",
        detect=_detect,
        detect_max=100,
        read=_read,
        write=_write,
        describe=_describe,
    ),
)
