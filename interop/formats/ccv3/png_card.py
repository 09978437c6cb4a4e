"""PNG/APNG character cards: base64 card JSON in ``ccv3`` / ``chara`` text chunks.

Reading (spec: ``character-card-v3.txt``; apps: ``sillytavern.md`` 4, ``risu.md`` 4.4):

* keywords match case-insensitively (``chara``, ``Chara``, ``ccv3``) in
  ``tEXt``, ``zTXt`` and ``iTXt``;
* ``ccv3`` is preferred and only the chunk used is decoded; ``chara`` is the
  fallback when ``ccv3`` is absent or is not valid base64 JSON (warning);
  a ``chara`` backfill loses the spec's "loaded as V2" notice on import;
* ``chara-ext-asset_:N`` (or ``chara-ext-asset_N``) chunks become
  ``doc.assets["__asset:N"]``.

Writing removes every stale card chunk (all kinds, any case, asset chunks
too), then adds ``chara`` (the V2 backfill) and ``ccv3`` before ``IEND``, in
the order SillyTavern writes them, without touching any other chunk. The
``chara`` payload is the card as read when it was V2 (or V1) at the source,
so such a PNG round-trips; a V3 card gets ``to_v2(strip_decorators=True)``
plus the spec's notice in ``creator_notes``.
"""

from __future__ import annotations

import binascii
import json
import re
from dataclasses import dataclass, field
from typing import Any

from ...cardkit.asset_origin import load_origins, move, origin
from ...cardkit.card_image import DATA_URL, base_image, main_icon
from ...cardkit.card_io import read_card_document
from ...containers.png import (
    CARD_KEYS,
    PNG_SIGNATURE,
    PngScan,
    TextChunk,
    asset_name,
    find_text,
    is_card_keyword,
    is_stale_keyword,
    scan,
    splice_text_chunks,
)
from ...document import Document
from ...errors import CorruptInputError, FormatError, InteropError, InvalidCardError
from ...jsonio import dump_json, load_json
from ...limits import DEFAULT_LIMITS, Limits
from ...model import Card
from ...model.versions import spec_of, to_v2, to_v3
from ...platform.registry import Format, Probe, ReadContext, WriteContext, get_platform
from ...transforms.card_for_target import card_for

BACKFILL_NOTICE = (
    "This character card is Character Card V3, but it is loaded as a Character Card V2. "
    "Please use a Character Card V3 compatible application to use this character card properly."
)
ASSET_URI = "__asset:"
LEGACY_RISU_KEY = "risuai"  # RisuAI's legacy msgpack chunk (formats/risu/legacy_png.py)

# Fallback for detection when the chunk stream cannot be walked at all.
_CARD_TAG = re.compile(rb"(?:tEXt|zTXt|iTXt)(?i:chara|ccv3)\x00")


@dataclass
class Extraction:
    """The card JSON found in a PNG and where it came from."""

    card_json: dict[str, Any]
    used: TextChunk
    card_chunks: list[TextChunk]
    scan: PngScan
    warnings: list[str] = field(default_factory=list)
    notes_before_trim: str | None = None
    """``creator_notes`` as stored when the card came from a ``chara`` backfill whose notice was removed."""


def decode_payload(chunk: TextChunk, limits: Limits = DEFAULT_LIMITS) -> dict[str, Any]:
    """Base64(UTF-8 JSON) of one card chunk -> the JSON object. Raw JSON text is tolerated too."""
    # An uncompressed value is decoded straight from the file's buffer (no copy).
    raw = chunk.payload() if chunk.compressed else chunk.raw
    head = bytes(raw[:16]).lstrip()
    if head.startswith(b"{"):
        json_bytes = bytes(raw)
    elif head.startswith(b"rcc||"):
        raise FormatError("encrypted RisuAI card (rcc) is not supported", location=chunk.location)
    else:
        try:
            json_bytes = binascii.a2b_base64(raw)
        except binascii.Error as exc:
            raise CorruptInputError(f"card payload is not valid base64 ({exc})", location=chunk.location) from None
    value = load_json(json_bytes, location=chunk.location, limits=limits)
    if not isinstance(value, dict):
        raise InvalidCardError("card JSON is not an object", location=chunk.location)
    return value


def extract_card(
    data: bytes, limits: Limits = DEFAULT_LIMITS, *, file: str | None = None, walked: PngScan | None = None
) -> Extraction:
    """Walk the chunks once and decode only the card chunk used (``ccv3`` first, then ``chara``).
    ``walked``: the detectors' walk of ``data`` under ``limits`` (its chunks are reused)."""
    found = scan(data, limits, file=file, chunks=walked.chunks if walked is not None else None)
    by_key: dict[str, list[TextChunk]] = {key: [] for key in CARD_KEYS}
    for text in found.texts:
        key = text.keyword.lower()
        if key in by_key:
            by_key[key].append(text)
    candidates = by_key["ccv3"] + by_key["chara"]
    if not candidates:
        raise FormatError("PNG carries no character card (no chara/ccv3 text chunk)", file=file)
    notes: list[str] = []
    failure: InteropError | None = None
    for chunk in candidates:
        try:
            value = decode_payload(chunk, limits)
        except (CorruptInputError, InvalidCardError, FormatError) as exc:
            failure = failure or exc
            notes.append(f"{chunk.location}: {exc.reason}; trying the next card chunk")
            continue
        if not chunk.crc_ok:
            notes.append(f"{chunk.location}: CRC mismatch; the card text was used anyway since it parses")
        for key in CARD_KEYS:
            if len(by_key[key]) > 1:
                notes.append(f"{len(by_key[key])} {key!r} chunks; the first readable one is used")
        trimmed = None
        if chunk.keyword.lower() == "chara":
            if by_key["ccv3"]:
                notes.append("ccv3 chunk unreadable; the card was read from the chara (V2) chunk")
            trimmed = _trim_notice(value)
            if trimmed is not None:
                notes.append("removed the 'loaded as V2' backfill notice from creator_notes")
        gap = sum(c.gap_before for c in found.chunks)
        if gap:
            notes.append(f"skipped {gap} malformed bytes in the chunk stream")
        return Extraction(value, chunk, candidates, found, notes, trimmed)
    raise (failure or FormatError("no readable card chunk")).with_file(file)


def _trim_notice(card_json: dict[str, Any]) -> str | None:
    """Remove the spec's backfill notice from ``data.creator_notes``; returns the notes as they were."""
    data = card_json.get("data")
    if not isinstance(data, dict):
        return None
    notes = data.get("creator_notes")
    if not isinstance(notes, str) or BACKFILL_NOTICE not in notes:
        return None
    if notes.startswith(BACKFILL_NOTICE):
        trimmed = notes[len(BACKFILL_NOTICE) :].removeprefix("\n\n")
    elif notes.endswith(BACKFILL_NOTICE):
        trimmed = notes[: -len(BACKFILL_NOTICE)].removesuffix("\n\n")
    else:
        trimmed = notes.replace(BACKFILL_NOTICE, "")
    data["creator_notes"] = trimmed
    return notes


def _add_notice(card_json: dict[str, Any]) -> None:
    data = card_json.setdefault("data", {})
    notes = data.get("creator_notes")
    if notes is None or notes == "":
        data["creator_notes"] = BACKFILL_NOTICE
    elif isinstance(notes, str):
        data["creator_notes"] = f"{BACKFILL_NOTICE}\n\n{notes}"


def _restore_notice(card_json: dict[str, Any], original: str) -> None:
    data = card_json.get("data")
    if isinstance(data, dict) and isinstance(original, str):
        probe = {"data": {"creator_notes": original}}
        _trim_notice(probe)
        if data.get("creator_notes") == probe["data"]["creator_notes"]:
            data["creator_notes"] = original


def _detect(probe: Probe) -> int:
    data = probe.data
    if data[:8] != PNG_SIGNATURE:
        return 0
    walked = probe.png
    if walked is None:
        # Broken stream: claim it if a card chunk is visible so read() reports the real error.
        return 100 if _CARD_TAG.search(data) else 0
    return 100 if any(is_card_keyword(t.keyword) for t in walked.texts) else 0


def _read(data: bytes, ctx: ReadContext) -> Document:
    probe = ctx.probe
    walked = probe.png if probe is not None and probe.data is data and probe.limits is ctx.limits else None
    found = extract_card(data, ctx.limits, file=ctx.filename, walked=walked)
    doc = read_card_document(found.card_json, "png", ctx)
    for note in found.warnings:
        doc.warn(note)
    doc.image = data
    for text in found.scan.texts:
        name = asset_name(text.keyword)
        if name is None:
            continue
        try:
            doc.assets[ASSET_URI + name] = binascii.a2b_base64(text.payload())
        except (binascii.Error, CorruptInputError) as exc:
            doc.warn(f"{text.location}: asset unreadable ({exc}); it is dropped on write")
    doc.native["container"] = {
        "chunks": [c.type for c in found.scan.chunks],
        "text_keys": [t.keyword for t in found.scan.texts],
    }
    doc.native["png"] = {
        "card_chunks": [_chunk_label(c) for c in sorted(found.card_chunks, key=lambda c: c.index)],
        "used": _chunk_label(found.used),
        "notes_before_trim": found.notes_before_trim,
    }
    _read_legacy_risu(doc, found, ctx)
    return doc


def _read_legacy_risu(doc: Document, found: Extraction, ctx: ReadContext) -> None:
    """RisuAI's legacy ``risuai`` chunk (msgpack of its own character, emotion images included).

    Read as RisuAI read it (only beside a V1 ``chara``): the card becomes the Risu character as a V3
    card whose emotion images are ``__asset:N`` assets (the risu platform's ``legacy_png_character``
    service), and the picture loses the chunk, now carried by the card and its asset chunks.
    """
    legacy = find_text(found.scan.texts, LEGACY_RISU_KEY)
    if not legacy or doc.card is None:
        return
    chunk = legacy[0]
    if found.card_json.get("spec") is not None:
        doc.warn(
            f"{chunk.location}: RisuAI's legacy chunk is not read: RisuAI reads the {found.used.keyword} card instead"
        )
        return
    service = _risu_service()
    if service is None:
        doc.warn(f"{chunk.location}: RisuAI's legacy chunk is kept unread (no risu platform registered)")
        return
    numbers = [int(uri[len(ASSET_URI) :]) for uri in doc.assets if uri[len(ASSET_URI) :].isdigit()]
    try:
        legacy_card = service(
            chunk.payload(), ctx.limits, first_index=max(numbers, default=-1) + 1, location=chunk.location
        )
    except InteropError as exc:
        doc.warn(f"{chunk.location}: RisuAI's legacy chunk is unreadable ({exc.reason}); kept as it is")
        return
    doc.card = _over_the_v1_card(doc, doc.card, legacy_card.card)
    doc.assets.update(legacy_card.assets)
    for note in legacy_card.notes:
        doc.warn(note)
    doc.native.setdefault("png", {})["legacy_risuai"] = {
        "chunk": _chunk_label(chunk),
        "assets": len(legacy_card.assets),
    }
    if doc.image is not None:
        doc.image = splice_text_chunks(doc.image, [], lambda keyword: keyword.lower() == LEGACY_RISU_KEY)


# What RisuAI's exportChar wrote into the V1 chara for fields the Risu character holds (its own values win).
_EXPORT_PLACEHOLDERS = ("", "<START>", None)


def _over_the_v1_card(doc: Document, v1: Card, risu: Card) -> Card:
    """The V1 card upgraded to V3 (its own fields kept: SillyTavern reads them, e.g. talkativeness), with
    the Risu character's fields, extensions and assets over it, as RisuAI read the chunk instead."""
    base = to_v3(v1)
    raw, risu_data = base.dump(), risu.dump()["data"]
    data = raw.setdefault("data", {})
    for key, value in risu_data.items():
        if key == "extensions" and isinstance(value, dict) and isinstance(data.get(key), dict):
            data[key] = {**data[key], **value}
            continue
        before = data.get(key)
        if before not in _EXPORT_PLACEHOLDERS and before != value and not isinstance(before, list | dict):
            doc.warn(f"the V1 card's {key} differs from RisuAI's legacy chunk; RisuAI's is used (as RisuAI read it)")
        data[key] = value
    card = Card.model_validate(raw)
    card.filled = {path for path in base.filled if path.removeprefix("data.") not in risu_data}
    return card


def _risu_service() -> Any:
    try:
        return get_platform("risu").service("legacy_png_character")
    except KeyError:
        return None


def _chunk_label(chunk: TextChunk) -> str:
    return f"{chunk.keyword} ({chunk.kind}, chunk #{chunk.index})"


# --- writing ------------------------------------------------------------------


def card_chunks(
    card: Card, assets: dict[str, bytes] | None = None, *, notes_before_trim: str | None = None
) -> list[tuple[str, str]]:
    """The text chunks a card write adds: ``chara`` backfill, ``ccv3``, then ``chara-ext-asset_:N``.

    ``notes_before_trim`` restores the notice the reader trimmed from a V2 card
    read from a backfill (when ``creator_notes`` is unchanged since), so such a
    ``chara`` is written back as read.
    """
    if spec_of(card) == "v3":
        backfill = to_v2(card, strip_decorators=True).dump()
        _add_notice(backfill)
    else:
        backfill = card.dump()  # V2/V1 at the source: written back exactly as read
        if notes_before_trim is not None:
            _restore_notice(backfill, notes_before_trim)
    chunks = [("chara", _b64_json(backfill)), ("ccv3", _b64_json(to_v3(card).dump()))]
    for uri, blob in (assets or {}).items():
        if uri.startswith(ASSET_URI):
            chunks.append(
                ("chara-ext-asset_:" + uri[len(ASSET_URI) :], binascii.b2a_base64(blob, newline=False).decode("ascii"))
            )
    return chunks


def _b64_json(obj: dict[str, Any]) -> str:
    try:
        raw = dump_json(obj, pretty=False)
    except UnicodeEncodeError:
        # Lone surrogates (read from "\ud800" escapes) cannot be UTF-8: keep them as JSON escapes.
        raw = json.dumps(obj, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    return binascii.b2a_base64(raw, newline=False).decode("ascii")


def _write(doc: Document, ctx: WriteContext) -> bytes:
    card = card_for(doc, "png")
    picture = next((i for i in (ctx.image, doc.image, main_icon(card, doc.assets)) if i is not None), None)
    image = base_image(doc, ctx, card)
    if ctx.image is None and doc.image is None:
        card = _icon_is_the_picture(card, doc.assets)
    card, assets, moved = _moved_back(card, doc.assets, picture, load_origins(doc))
    card, chunked = _data_urls_to_chunks(card, doc.assets, assets)
    moved |= chunked
    skipped = sorted(uri for uri in doc.assets if not uri.startswith((ASSET_URI, DATA_URL)) and uri not in moved)
    if skipped:
        doc.warn(f"{len(skipped)} embedded asset(s) cannot be stored in a PNG card and are not written: {skipped[:3]}")
    before = (doc.native.get("png") or {}).get("notes_before_trim") if doc.card is not None else None
    chunks = card_chunks(card, assets, notes_before_trim=before)
    return splice_text_chunks(image, chunks, is_stale_keyword)


def _icon_is_the_picture(card: Card, assets: dict[str, bytes]) -> Card:
    """A main icon carried as a data URL (``png -> ccv3``) became the PNG itself: it is ``ccdefault:`` now.

    The spec's ``ccdefault:`` main icon of a PNG card is the PNG; keeping the data URL too would store
    the picture twice.
    """
    if not any(uri.startswith(DATA_URL) for uri in assets):  # the common case: no card dump to look
        return card
    raw = card.dump()
    descriptors = (raw.get("data") or {}).get("assets")
    icons = [
        a
        for a in (descriptors if isinstance(descriptors, list) else [])
        if isinstance(a, dict) and a.get("type") == "icon" and isinstance(a.get("uri"), str) and a["uri"] in assets
    ]
    icons.sort(key=lambda a: a.get("name") != "main")  # the icon main_icon() chose as the picture
    if not icons or not icons[0]["uri"].startswith(DATA_URL):
        return card
    icons[0]["uri"] = "ccdefault:"
    icons[0]["ext"] = "png"  # the picture is written as PNG (base_image converts any other type)
    back = Card.model_validate(raw)
    back.filled = set(card.filled)
    return back


def _data_urls_to_chunks(card: Card, blobs: dict[str, bytes], chunks: dict[str, bytes]) -> tuple[Card, set[str]]:
    """Data-URL assets (``png -> ccv3`` inlined the PNG's asset chunks) go back into ``__asset:N`` chunks.

    Adds their bytes to ``chunks`` under the next free numbers; returns the card and the URIs that moved.
    """
    if not any(uri.startswith(DATA_URL) for uri in blobs):  # the common case: nothing to move, no card dump
        return card, set()
    raw = card.dump()
    descriptors = (raw.get("data") or {}).get("assets")
    moved: set[str] = set()
    taken = {uri for uri in (*blobs, *chunks) if uri.startswith(ASSET_URI)}
    number = 0
    for asset in descriptors if isinstance(descriptors, list) else []:
        uri = asset.get("uri") if isinstance(asset, dict) else None
        if not isinstance(uri, str) or not uri.startswith(DATA_URL) or uri not in blobs:
            continue
        while f"{ASSET_URI}{number}" in taken:
            number += 1
        target = f"{ASSET_URI}{number}"
        taken.add(target)
        chunks[target] = blobs[uri]
        asset["uri"] = target
        moved.add(uri)
    if not moved:
        return card, moved
    back = Card.model_validate(raw)
    back.filled = set(card.filled)
    return back, moved


def _moved_back(
    card: Card, assets: dict[str, bytes], picture: bytes | None, origins: dict[str, str]
) -> tuple[Card, dict[str, bytes], set[str]]:
    """Assets a CHARX writer moved out of a PNG go back: ``__asset:N`` chunks, ``ccdefault:`` for the picture.

    Only assets whose origin a container writer recorded (``asset_origin``) move.
    Returns the card, the ``__asset:N`` bytes to write as chunks, and the URIs that moved.
    """
    raw = card.dump()
    descriptors = (raw.get("data") or {}).get("assets")
    out = {uri: blob for uri, blob in assets.items() if uri.startswith(ASSET_URI)}
    moved: set[str] = set()
    for asset in descriptors if isinstance(descriptors, list) else []:
        if not isinstance(asset, dict):
            continue
        old, uri = origin(origins, asset), asset.get("uri")
        if old is None or not isinstance(uri, str) or uri not in assets:
            continue
        if old == "ccdefault:" and picture is not None and assets[uri] is picture:
            move(origins, asset, old)
            moved.add(uri)
        elif old.startswith(ASSET_URI) and old not in out:
            out[old] = assets[uri]
            move(origins, asset, old)
            moved.add(uri)
    if not moved:
        return card, out, moved
    back = Card.model_validate(raw)
    back.filled = set(card.filled)
    return back, out, moved


def _describe(doc: Document) -> dict[str, Any]:
    facts: dict[str, Any] = {}
    container = doc.native.get("container") or {}
    if container.get("chunks"):
        facts["chunk_runs"] = _runs(container["chunks"])
    png = doc.native.get("png") or {}
    if png:
        facts["card_chunks"] = png.get("card_chunks", [])
        facts["used_chunk"] = png.get("used")
    facts["asset_chunks"] = sum(1 for key in doc.assets if key.startswith(ASSET_URI))
    return facts


def _runs(types: list[str]) -> list[str]:
    """``["IHDR", "IDAT", "IDAT"]`` -> ``["IHDR", "IDAT x2"]`` (a 3 MB PNG has dozens of IDAT chunks)."""
    runs: list[str] = []
    count = 0
    for i, kind in enumerate(types):
        count += 1
        if i + 1 == len(types) or types[i + 1] != kind:
            runs.append(kind if count == 1 else f"{kind} x{count}")
            count = 0
    return runs


FORMATS = (
    Format(
        name="png",
        kind="card",
        title="PNG/APNG character card (ccv3 + chara text chunks)",
        suffix=".png",
        platform="ccv3",
        detect=_detect,
        detect_max=100,
        read=_read,
        write=_write,
        describe=_describe,
        aliases=("apng", "png-card"),
    ),
)
"""This module's formats, registered by the package ``__init__`` (in this order)."""
