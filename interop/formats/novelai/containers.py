"""NovelAI files that carry a lorebook inside something else.

* ``novelai-scenario``: ``.scenario`` files, ``{scenarioVersion, title, ..., lorebook}``;
* ``novelai-story``: story exports, ``{storyContainerVersion, metadata, content: {..., lorebook}}``;
* ``novelai-png``: PNGs whose ``naidata`` text chunk holds the lorebook (base64 JSON;
  plain JSON is accepted too). A PNG that also has a card chunk (``chara``/``ccv3``)
  belongs to the ``png`` card format.

The lorebook is read with ``novelai.lorebook_from_novelai``; everything around it
is kept in ``Document.native`` so the same container is written back unchanged
except for the lorebook. ``inspect`` shows the container and the lorebook facts.
"""

from __future__ import annotations

import binascii
import copy
from typing import Any

from ...cardkit.as_kind import as_card, as_lorebook
from ...cardkit.card_image import base_image
from ...containers.png import (
    TextChunk,
    find_text,
    is_card_keyword,
    is_png,
    is_stale_keyword,
    splice_text_chunks,
    text_chunks,
)
from ...document import Document
from ...errors import ConversionError, CorruptInputError, InvalidCardError
from ...jsonio import dump_json, load_json
from ...limits import Limits
from ...model import as_str_list
from ...model.versions import to_v3
from ...platform.registry import Format, Probe, ReadContext, WriteContext
from .lorebook import check_version, describe_book, lorebook_from_novelai, novelai_from_lorebook
from .story_card import stashed_wrapper

NAIDATA = "naidata"
SCENARIO_VERSION = 1
# Context blocks of a new scenario: Memory and Author's Note with NovelAI's defaults.
MEMORY_CONFIG = {
    "prefix": "", "suffix": "\n", "tokenBudget": 2048, "reservedTokens": 0, "budgetPriority": 800,
    "trimDirection": "trimBottom", "insertionType": "newline", "maximumTrimType": "sentence", "insertionPosition": 0,
}  # fmt: skip
AUTHORS_NOTE_CONFIG = {
    "prefix": "", "suffix": "\n", "tokenBudget": 2048, "reservedTokens": 2048, "budgetPriority": -400,
    "trimDirection": "trimBottom", "insertionType": "newline", "maximumTrimType": "sentence", "insertionPosition": -4,
}  # fmt: skip


def _with_title(doc: Document, title: Any) -> Document:
    if isinstance(title, str) and title and doc.lorebook is not None and not doc.lorebook.has("name"):
        doc.lorebook.name = title
    return doc


def _read_nested(obj: Any, path: tuple[str, ...], fmt: str, ctx: ReadContext, title: Any) -> Document:
    """A document for the lorebook at ``path`` inside ``obj``; the rest goes to ``native``."""
    if not isinstance(obj, dict):
        raise InvalidCardError(f"{fmt} file is not a JSON object", file=ctx.filename)
    parent = obj
    for key in path[:-1]:
        parent = parent.get(key)
        if not isinstance(parent, dict):
            raise InvalidCardError(f"'{key}' is not an object", file=ctx.filename, location=".".join(path[:-1]))
    location = ".".join(path)
    lorebook = parent.get(path[-1], {})
    book = lorebook_from_novelai(lorebook, file=ctx.filename, location=location)
    wrapper = copy.deepcopy(obj)
    doc = Document(format=fmt, lorebook=book, source=ctx.filename)
    doc.native[fmt] = {"wrapper": wrapper, "path": list(path), "lorebook_absent": path[-1] not in parent}
    if isinstance(lorebook, dict):
        check_version(doc, lorebook.get("lorebookVersion"))
    return _with_title(doc, title)


def _write_nested(doc: Document, fmt: str, lorebook: dict[str, Any]) -> dict[str, Any] | None:
    """The container ``doc`` was read from with ``lorebook`` put back in place (None if not from ``fmt``)."""
    saved = doc.native.get(fmt) if doc.format == fmt else None
    if not saved:
        return None
    wrapper = copy.deepcopy(saved["wrapper"])
    parent = wrapper
    for key in saved["path"][:-1]:
        parent = parent[key]
    if not (saved.get("lorebook_absent") and not lorebook.get("entries")):
        parent[saved["path"][-1]] = lorebook
    return wrapper


# --- .scenario ----------------------------------------------------------------------


def _detect_scenario(probe: Probe) -> int:
    obj = probe.json_object
    return 100 if obj is not None and "scenarioVersion" in obj and isinstance(obj.get("lorebook", {}), dict) else 0


def _read_scenario(data: bytes, ctx: ReadContext) -> Document:
    obj = ctx.json(data)
    return _read_nested(
        obj, ("lorebook",), "novelai-scenario", ctx, obj.get("title") if isinstance(obj, dict) else None
    )


def _write_scenario(doc: Document, ctx: WriteContext) -> bytes:
    lorebook = novelai_from_lorebook(as_lorebook(doc)) if doc.book is not None else None
    same = _write_nested(doc, "novelai-scenario", lorebook or {})
    return dump_json(same if same is not None else new_scenario(doc, lorebook), pretty=ctx.pretty)


def new_scenario(doc: Document, lorebook: dict[str, Any] | None) -> dict[str, Any]:
    """A NovelAI scenario built from a card (or a standalone lorebook): see mappings/novelai.json.

    A card made from a scenario (``extensions.novelai.scenario``) gives that scenario back."""
    card = to_v3(as_card(doc))  # a V1 card keeps its fields (and its stash) at the root
    stashed = stashed_wrapper(card, "scenario")
    if stashed is not None:
        if lorebook is not None:
            stashed["lorebook"] = lorebook
        return stashed
    data = card.data
    memory = "\n\n".join(t for t in (data.description, data.personality, data.scenario) if isinstance(t, str) and t)
    out: dict[str, Any] = {
        "scenarioVersion": SCENARIO_VERSION,
        "title": _text(data.name),
        "author": _text(data.creator),
        "description": _text(data.creator_notes),
        "prompt": _text(data.first_mes),
        "tags": as_str_list(data.tags),
        "context": [
            {"text": memory, "contextConfig": dict(MEMORY_CONFIG)},
            {"text": "", "contextConfig": dict(AUTHORS_NOTE_CONFIG)},
        ],
        "placeholders": [],
    }
    if lorebook is not None:
        out["lorebook"] = lorebook
    return out


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _describe_scenario(doc: Document) -> dict[str, Any]:
    wrapper = (doc.native.get("novelai-scenario") or {}).get("wrapper") or {}
    facts = {
        "scenarioVersion": wrapper.get("scenarioVersion"),
        "title": wrapper.get("title"),
        "placeholders": len(wrapper.get("placeholders") or []),
        "context_blocks": len(wrapper.get("context") or []),
    }
    return {**facts, **describe_book(doc.book)}


# --- story export -------------------------------------------------------------------


def _detect_story(probe: Probe) -> int:
    obj = probe.json_object
    if obj is None or not isinstance(obj.get("content"), dict):
        return 0
    content = obj["content"]
    if isinstance(content.get("lorebook"), dict) and (
        "storyContainerVersion" in obj or "storyContentVersion" in content
    ):
        return 100
    return 0


def _read_story(data: bytes, ctx: ReadContext) -> Document:
    obj = ctx.json(data)
    metadata = obj.get("metadata") if isinstance(obj, dict) else None
    title = metadata.get("title") if isinstance(metadata, dict) else None
    return _read_nested(obj, ("content", "lorebook"), "novelai-story", ctx, title)


def _write_story(doc: Document, ctx: WriteContext) -> bytes:
    lorebook = novelai_from_lorebook(as_lorebook(doc))
    story = _write_nested(doc, "novelai-story", lorebook)
    if story is None and doc.format != "novelai-story":
        story = stashed_wrapper(to_v3(as_card(doc)), "story")
        if story is not None:
            content = story.setdefault("content", {})
            if isinstance(content, dict):
                content["lorebook"] = lorebook
    if story is None:
        raise ConversionError(
            "a NovelAI story can only be written back from a story export (it holds the story text); "
            "use --to novelai-scenario or novelai-lorebook",
            file=doc.source,
        )
    return dump_json(story, pretty=ctx.pretty)


def _describe_story(doc: Document) -> dict[str, Any]:
    wrapper = (doc.native.get("novelai-story") or {}).get("wrapper") or {}
    metadata = wrapper.get("metadata") if isinstance(wrapper.get("metadata"), dict) else {}
    content = wrapper.get("content") if isinstance(wrapper.get("content"), dict) else {}
    facts = {
        "storyContainerVersion": wrapper.get("storyContainerVersion"),
        "title": metadata.get("title"),
        "context_blocks": len(content.get("context") or []),
    }
    return {**facts, **describe_book(doc.book)}


# --- PNG with a naidata chunk ------------------------------------------------------------


def _naidata(data: bytes, limits: Limits, file: str | None) -> tuple[list[TextChunk], list[TextChunk]]:
    texts = text_chunks(data, limits, file=file)
    return texts, find_text(texts, NAIDATA)


def _detect_png(probe: Probe) -> int:
    walked = probe.png  # the probe's one chunk walk (None: no PNG, or one that cannot be walked)
    if walked is None:
        return 0
    texts = walked.texts
    nai = find_text(texts, NAIDATA)
    if not nai or any(is_card_keyword(t.keyword) for t in texts):
        return 0
    return 100


def decode_naidata(chunk: TextChunk, limits: Limits, file: str | None = None) -> tuple[Any, str]:
    """The JSON of a ``naidata`` chunk and how it was stored (``"base64"`` or ``"json"``)."""
    raw = chunk.payload().strip()
    if raw[:1] in (b"{", b"["):
        return load_json(raw, file=file, location=chunk.location, limits=limits), "json"
    try:
        decoded = binascii.a2b_base64(raw)
    except binascii.Error:
        raise CorruptInputError("naidata is neither base64 nor JSON", file=file, location=chunk.location) from None
    return load_json(decoded, file=file, location=chunk.location, limits=limits), "base64"


def _read_png(data: bytes, ctx: ReadContext) -> Document:
    texts, nai = _naidata(data, ctx.limits, ctx.filename)
    if not nai:
        raise InvalidCardError("PNG has no naidata chunk", file=ctx.filename)
    chunk = nai[0]
    obj, encoding = decode_naidata(chunk, ctx.limits, ctx.filename)
    if isinstance(obj, dict) and "scenarioVersion" in obj:
        doc = _read_nested(obj, ("lorebook",), "novelai-png", ctx, obj.get("title"))
        doc.native["novelai-png"]["scenario"] = True
    else:
        doc = _read_png_lorebook(obj, ctx)
    doc.native["novelai-png"]["encoding"] = encoding
    doc.native["container"] = {"text_keys": [t.keyword for t in texts], "naidata": f"{chunk.kind} chunk #{chunk.index}"}
    if len(nai) > 1:
        doc.warn(f"{len(nai)} naidata chunks; the first is read and the others are replaced on write")
    doc.image = data
    return doc


def _read_png_lorebook(obj: Any, ctx: ReadContext) -> Document:
    if not isinstance(obj, dict):
        raise InvalidCardError("naidata is not a JSON object", file=ctx.filename, location=NAIDATA)
    doc = Document(format="novelai-png", lorebook=lorebook_from_novelai(obj, file=ctx.filename, location=NAIDATA))
    doc.native["novelai-png"] = {}
    check_version(doc, obj.get("lorebookVersion"))
    return doc


def _write_png(doc: Document, ctx: WriteContext) -> bytes:
    lorebook = novelai_from_lorebook(as_lorebook(doc))
    saved = doc.native.get("novelai-png") if doc.format == "novelai-png" else None
    payload: dict[str, Any] = lorebook
    if saved and saved.get("scenario"):
        payload = _write_nested(doc, "novelai-png", lorebook) or lorebook
    text = dump_json(payload, pretty=False)
    if saved and saved.get("encoding") == "json":
        value = text.decode("utf-8")
        if not value.isascii():  # tEXt is latin-1: non-ASCII JSON goes base64
            value = binascii.b2a_base64(text, newline=False).decode("ascii")
    else:
        value = binascii.b2a_base64(text, newline=False).decode("ascii")
    image = base_image(doc, ctx, as_card(doc))
    if not is_png(image):
        raise ConversionError("the picture for a NovelAI PNG is not a PNG", file=doc.source)
    # Card chunks go too: the result is a NovelAI lorebook picture, not a character card.
    return splice_text_chunks(image, [(NAIDATA, value)], lambda key: key.lower() == NAIDATA or is_stale_keyword(key))


def _describe_png(doc: Document) -> dict[str, Any]:
    saved = doc.native.get("novelai-png") or {}
    facts = {"naidata_encoding": saved.get("encoding"), "naidata_scenario": bool(saved.get("scenario"))}
    return {**facts, **describe_book(doc.book)}


FORMATS = (
    Format(
        name="novelai-scenario",
        kind="lorebook",
        title="NovelAI scenario (.scenario) with its lorebook",
        suffix=".scenario",
        platform="novelai",
        detect=_detect_scenario,
        detect_max=100,
        read=_read_scenario,
        write=_write_scenario,
        describe=_describe_scenario,
    ),
    Format(
        name="novelai-story",
        kind="lorebook",
        title="NovelAI story export (content.lorebook)",
        suffix=".story",
        platform="novelai",
        detect=_detect_story,
        detect_max=100,
        read=_read_story,
        write=_write_story,
        describe=_describe_story,
    ),
    Format(
        name="novelai-png",
        kind="lorebook",
        title="PNG with a NovelAI lorebook in its naidata chunk",
        suffix=".png",
        platform="novelai",
        detect=_detect_png,
        detect_max=100,
        read=_read_png,
        write=_write_png,
        describe=_describe_png,
    ),
)
"""This module's formats, registered by the package ``__init__`` (in this order)."""
