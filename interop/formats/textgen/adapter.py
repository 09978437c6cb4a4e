"""text-generation-webui character YAML (``user_data/characters/<name>.yaml``): read and write.

Facts (oobabooga/text-generation-webui ``modules/chat.py``): a character is a
YAML mapping ``name``, ``greeting``, ``context`` (``generate_character_yaml``
writes those three, dropping empty ones, in that order, unwrapped);
``load_character`` reads them and uses ``context`` as the prompt's character
block. Its TavernAI import (``upload_tavern_character``) folds a card into
``context`` as ``"{name}'s Persona: {description}"``, ``"Scenario: {scenario}"``
and the example dialogue (``build_pygmalion_style_context``); ``personality``
is dropped there. SillyTavern's import (``importFromYaml`` in
``src/endpoints/characters.js``) maps ``name`` -> name, ``context`` ->
description, ``greeting`` -> first_mes and fills every other field empty.

Native -> canonical: as SillyTavern does, from ``mappings/textgen.json``; every
other key (``your_name``, ``example_dialogue``, ``user_bio``, ...) is kept
verbatim in ``data.extensions.textgen`` and written back at the top level.

Canonical -> native: ``context`` is the description alone when personality,
scenario and examples are empty, else built the way text-generation-webui's own
TavernAI import builds it, plus a ``Personality:`` line rather than dropping it.
Everything else a card holds has no place in the file (the fidelity report
names it, ``mappings/textgen.json``).
"""

from __future__ import annotations

import re
from typing import Any

from ...cardkit.as_kind import as_card
from ...document import Document
from ...errors import InteropError, InvalidCardError, LimitExceededError
from ...mappings import load
from ...model import CardData
from ...model.versions import imported_card, to_v3
from ...platform.registry import Format, Probe, ReadContext, WriteContext

FORMAT = "textgen-yaml"
NAMESPACE = "textgen"
_MAPPING = load("textgen")
# native key -> canonical card field (name, greeting -> first_mes, context -> description)
FIELDS = {f.native: f.canonical for f in _MAPPING.fields_at("card") if f.canonical and f.native != "*"}
WRITE_ORDER = tuple(_MAPPING.native_order("card"))  # generate_character_yaml writes them in this order
_KEY_LINE = re.compile(rb"^(?:name|context|greeting)[ \t]*:", re.M)
_PARSED = "_textgen_yaml"  # the detector's parse, cached on the probe for the reader


def _parse(data: bytes, filename: str | None, limits: Any, probe: Probe | None = None) -> Any:
    if probe is not None and probe.data is data and _PARSED in probe.__dict__:
        return probe.__dict__[_PARSED]
    from ...yamlio import load_yaml  # PyYAML is imported once a YAML file is met, not by every run

    value = load_yaml(data, file=filename, limits=limits)
    if probe is not None and probe.data is data:
        probe.__dict__[_PARSED] = value
    return value


def is_character(obj: Any) -> bool:
    """A text-generation-webui character: a string ``name`` and a ``context`` or ``greeting``, no card markers."""
    return (
        isinstance(obj, dict)
        and isinstance(obj.get("name"), str)
        and ("context" in obj or "greeting" in obj)
        and "spec" not in obj
        and "char_name" not in obj
    )


def _detect(probe: Probe) -> int:
    data = probe.data
    head = data[:64].lstrip(b"\xef\xbb\xbf \t\r\n")
    if not head or head[:1] in (b"{", b"[") or b"\x00" in data[:4096]:
        return 0  # JSON (a JSON character is not this format) or binary
    if len(data) > probe.limits.max_text_bytes or not _KEY_LINE.search(data[:65536]):
        return 0
    try:
        obj = _parse(data, probe.filename, probe.limits, probe)
    except LimitExceededError:
        return 100  # has the character keys but is over a limit: the reader says which (not "unknown format")
    except InteropError:
        return 0
    return 100 if is_character(obj) else 0


def card_from_character(obj: dict[str, Any]) -> dict[str, Any]:
    """Canonical ``data`` of a character mapping: the three fields renamed, the rest in ``extensions.textgen``."""
    data: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in obj.items():
        if key in FIELDS:
            data[FIELDS[key]] = value
        else:
            extra[key] = value
    if extra:
        data["extensions"] = {NAMESPACE: extra}
    return data


def _read(data: bytes, ctx: ReadContext) -> Document:
    obj = _parse(data, ctx.filename, ctx.limits, ctx.probe)
    if not is_character(obj):
        raise InvalidCardError(
            "YAML is not a text-generation-webui character (needs a string name and a context or greeting)",
            file=ctx.filename,
        )
    doc = Document(format=FORMAT, card=imported_card(card_from_character(obj)), source=ctx.filename)
    doc.native["keys"] = list(obj)
    return doc


def context_of(data: CardData) -> Any:
    """The ``context`` text for a card (module docstring); the description as it is when nothing else is set."""
    others = [
        (label, value)
        for label, value in (
            ("Personality: ", data.personality),
            ("Scenario: ", data.scenario),
            ("", data.mes_example),
        )
        if isinstance(value, str) and value.strip()
    ]
    if not others:
        return data.description
    name = data.name if isinstance(data.name, str) else ""
    parts = [f"{name}'s Persona: {data.description}"] if isinstance(data.description, str) and data.description else []
    parts += [f"{label}{value.strip() if not label else value}" for label, value in others]
    return "\n".join(parts)


def _write(doc: Document, ctx: WriteContext) -> bytes:
    card = to_v3(as_card(doc))  # a V1 card keeps its fields at the root
    data = card.data
    values = {"name": data.name, "greeting": data.first_mes, "context": context_of(data)}
    extra = data.ext(NAMESPACE)
    out: dict[str, Any] = {}
    native_keys = doc.native.get("keys") if doc.format == FORMAT else None
    if isinstance(native_keys, list):  # same format: the keys the file had, in its order
        for key in native_keys:
            if key in values:
                out[key] = values[key]
            elif key in extra:
                out[key] = extra[key]
    for key in WRITE_ORDER:
        if key not in out and values[key] not in (None, ""):
            out[key] = values[key]  # text-generation-webui drops empty fields too
    for key, value in extra.items():
        if key not in out and key not in values:
            out[key] = value
    if "name" not in out:
        out = {"name": "", **out}  # load_character reads data['name'] unconditionally
    if "context" not in out and "greeting" not in out:
        out["context"] = ""  # an empty character is still recognisable as one
    from ...yamlio import dump_yaml

    return dump_yaml(out)


def _describe(doc: Document) -> dict[str, Any]:
    keys = doc.native.get("keys") or []
    return {"keys": [k for k in keys if isinstance(k, str)]}


FORMATS = (
    Format(
        name=FORMAT,
        kind="card",
        title="text-generation-webui character YAML (name, greeting, context)",
        suffix=".yaml",
        platform="textgen",
        detect=_detect,
        detect_max=100,
        read=_read,
        write=_write,
        describe=_describe,
        aliases=("tgw-yaml", "oobabooga"),
    ),
)
"""This module's formats, registered by the package ``__init__`` (in this order)."""
