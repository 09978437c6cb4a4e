"""Pygmalion / Gradio character JSON (``char_name``, ``char_persona``, ...): read only.

Facts: SillyTavern's ``importFromJson`` (``src/endpoints/characters.js``)
takes this branch when the JSON has no ``spec`` and no ``name`` but a
``char_name``, and maps it as ``mappings/pygmalion.json`` lists. Every key it
does not map is kept verbatim in ``data.extensions.pygmalion``, and so is the
original of a value the import changes (the creator-notes placeholder it
removes, the creator-notes spelling it does not use). Why there is no writer:
see the notes of ``mappings/pygmalion.json``.
"""

from __future__ import annotations

from typing import Any

from ...document import Document
from ...errors import InvalidCardError
from ...mappings import load
from ...model.versions import imported_card
from ...platform.registry import Format, Probe, ReadContext

FORMAT = "pygmalion-json"
NAMESPACE = "pygmalion"
NOTES_PLACEHOLDER = "Creator's notes go here."
_MAPPING = load("pygmalion")
# native key -> canonical data path (dotted for extensions.talkativeness)
FIELDS = {
    f.native: f.canonical
    for f in _MAPPING.fields_at("card")
    if f.canonical and f.native not in ("*", "creatorcomment", "creator_notes")
}


def is_pygmalion(obj: Any) -> bool:
    """SillyTavern's test: no ``spec``, no ``name``, a ``char_name`` (``jsonData.char_name !== undefined``)."""
    return isinstance(obj, dict) and "char_name" in obj and "spec" not in obj and "name" not in obj


def _detect(probe: Probe) -> int:
    return 100 if is_pygmalion(probe.json_object) else 0


def card_data(obj: dict[str, Any]) -> dict[str, Any]:
    """Canonical ``data`` of a Pygmalion character, as SillyTavern imports it."""
    data: dict[str, Any] = {}
    extensions: dict[str, Any] = {}
    kept: dict[str, Any] = {}
    for key, value in obj.items():
        target = FIELDS.get(key)
        if target is None:
            if key not in ("creatorcomment", "creator_notes"):
                kept[key] = value
        elif target.startswith("extensions."):
            extensions[target.split(".", 1)[1]] = value
        else:
            data[target] = value
    # ``creatorcomment ?? creator_notes``, after ``creator_notes.replace(placeholder, '')`` when truthy
    comment, notes = obj.get("creatorcomment"), obj.get("creator_notes")
    if isinstance(notes, str) and notes:
        notes = notes.replace(NOTES_PLACEHOLDER, "", 1)  # String.replace with a string: first occurrence
    used, value = ("creatorcomment", comment) if comment is not None else ("creator_notes", notes)
    if value is not None:
        data["creator_notes"] = value
    for key in ("creatorcomment", "creator_notes"):
        if key in obj and not (key == used and obj[key] == value):
            kept[key] = obj[key]  # not used, or changed by the import: the original stays
    if kept:
        extensions[NAMESPACE] = kept
    if extensions:
        data["extensions"] = extensions
    return data


def _read(data: bytes, ctx: ReadContext) -> Document:
    obj = ctx.json(data)
    if not is_pygmalion(obj):
        raise InvalidCardError(
            "JSON is not a Pygmalion character (needs char_name, no spec or name)", file=ctx.filename
        )
    return Document(format=FORMAT, card=imported_card(card_data(obj)), source=ctx.filename)


def _describe(doc: Document) -> dict[str, Any]:
    card = doc.card
    kept = card.data.ext(NAMESPACE) if card is not None else {}
    return {"unmapped_keys": sorted(kept)}


FORMATS = (
    Format(
        name=FORMAT,
        kind="card",
        title="Pygmalion / Gradio character JSON (char_name, char_persona, ...), read only",
        suffix=".json",
        platform="pygmalion",
        detect=_detect,
        detect_max=100,
        read=_read,
        describe=_describe,
        aliases=("gradio-json",),
    ),
)
"""This module's formats, registered by the package ``__init__`` (in this order)."""
