"""Agnai characters: the native character JSON (``agnai-character``) and the V2 card Agnai imports (``agnai-card``).

Native -> canonical (renames from ``mappings/agnai.json``): ``greeting`` ->
``first_mes``, ``sampleChat`` -> ``mes_example``, ``description`` ->
``creator_notes``, ``insert`` -> ``extensions.depth_prompt``, ``characterBook``
-> ``character_book``; every other Agnai key (``persona``, ``appearance``,
``voice``, ``avatar``, ...) is kept verbatim in ``extensions.agnai``, where
Agnai's own V2 export puts persona and voice. The canonical ``description`` is
the persona rendered as text (what Agnai exports as ``description``).
``extensions.agnai["$interop"]`` records what the native file did not have
(``absent``) and the native ``extensions`` keys that clash with ours.

Canonical -> native: what Agnai has no field for (``personality``, V3-only
fields, a description that is not the persona's rendering) is stashed in
``extensions.interop_agnai.card`` (Agnai keeps character ``extensions``
verbatim) and restored on read; the book follows ``agnai.memory_book_from_lorebook``.
"""

from __future__ import annotations

import copy
from typing import Any

from pydantic import ValidationError

from ...cardkit.as_kind import as_card
from ...cardkit.card_io import card_from_json
from ...document import Document
from ...errors import InvalidCardError
from ...jsonio import dump_json
from ...jsonvalue import ABSENT
from ...mappings import load as load_mapping
from ...model import V2_SPEC, V3_SPEC, Card, Lorebook
from ...model.stash import Stash, take
from ...model.versions import required_defaults, spec_of, to_v2, to_v3
from ...platform.registry import Format, Probe, ReadContext, WriteContext
from ...transforms.card_for_target import card_for
from .memory import (
    NAMESPACE,
    STASH,
    STASH_VERSION,
    describe_book,
    lorebook_from_memory_book,
    memory_book_from_lorebook,
    restore_agnai_stash,
)

KIND = "character"
MARKERS = "$interop"
INSERT = "insert"
DEPTH_PROMPT = "depth_prompt"
CLASHING = (NAMESPACE, DEPTH_PROMPT)  # native extensions keys we also write
_TABLE = load_mapping("agnai")
CARD_FIELDS = [
    (f.native, f.canonical)
    for f in _TABLE.fields_at("card")
    if f.canonical and f.native != "*" and "." not in f.canonical and f.native != "characterBook"
]
_CANONICAL_BY_NATIVE = dict(CARD_FIELDS)
# Fields Agnai's editor and import expect on every character.
DEFAULT_ROOT = {"spec": V3_SPEC, "spec_version": "3.0"}
REQUIRED = {name: _TABLE.card_defaults("card")[name] for name in _TABLE.required_fields("card")}
NATIVE_ORDER = _TABLE.key_order["card"]  # Agnai's own key order of a character


# --- persona text ----------------------------------------------------------------------


def render_persona(name: Any, persona: Any) -> str:
    """The persona as Agnai renders it into a V2 ``description`` (W++, SBF, Boostyle, text, attributes)."""
    if not isinstance(persona, dict) or not isinstance(persona.get("attributes"), dict):
        return ""
    attrs = {
        str(k): [str(v) for v in vs] if isinstance(vs, list) else [str(vs)] for k, vs in persona["attributes"].items()
    }
    label = name if isinstance(name, str) else ""
    kind = persona.get("kind")
    if kind == "wpp":
        lines = [f"{key}({' + '.join(_quoted(v) for v in values)})" for key, values in attrs.items()]
        return "\n".join([f'[character("{label}") {{', "\n".join(lines), "}]"])
    if kind == "sbf":
        parts = [f"{key}: {', '.join(_quoted(v) for v in values)}" for key, values in attrs.items()]
        return f'[ character: "{label}"; {"; ".join(parts)} ]'
    if kind == "boostyle":
        return " + ".join([label, *(v for values in attrs.values() for v in values)])
    if kind == "text":
        text = attrs.get("text") or [""]
        return text[0]
    return "\n".join(f"{key}: {', '.join(values)}" for key, values in attrs.items())


def _quoted(value: str) -> str:
    return f'"{value}"'


def text_persona(text: str) -> dict[str, Any]:
    return {"kind": "text", "attributes": {"text": [text]}}


# --- native -> canonical -------------------------------------------------------------


def card_from_agnai(obj: dict[str, Any], *, file: str | None = None) -> Card:
    """The canonical card of a native Agnai character (a stash from our writer is restored)."""
    if not isinstance(obj, dict):
        raise InvalidCardError("Agnai character is not an object", file=file)
    data, agnai = _fields_from_agnai(obj, file)
    stash = _pop_card_stash(data)
    ext = _agnai_extensions(data, obj, agnai, [] if "kind" in obj else ["kind"])
    if "persona" in obj:
        data["description"] = render_persona(obj.get("name"), obj["persona"])
    _restore_card(data, ext, stash)
    root = stash.get("root") if isinstance(stash.get("root"), dict) else DEFAULT_ROOT
    filled = set() if stash else _fill_v3_fields(data)  # a character made in Agnai: complete it as a V3 card
    try:
        card = Card.model_validate({**copy.deepcopy(root), "data": data})
    except ValidationError as exc:
        raise InvalidCardError(f"Agnai character does not validate: {exc.errors()[0]['msg']}", file=file) from None
    card.filled = filled
    return card


def _fields_from_agnai(obj: dict[str, Any], file: str | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The renamed card fields, and every other Agnai key (kept verbatim in ``extensions.agnai``)."""
    data: dict[str, Any] = {}
    agnai: dict[str, Any] = {}
    for key, value in obj.items():
        if key == "kind" and value == KIND:
            continue
        canonical = _CANONICAL_BY_NATIVE.get(key)
        if canonical is not None:
            data[canonical] = copy.deepcopy(value)
        elif key == "characterBook":
            data["character_book"] = _book(value, file)
        elif key != INSERT:
            agnai[key] = copy.deepcopy(value)
    return data, agnai


def _agnai_extensions(data: dict[str, Any], obj: dict[str, Any], agnai: dict[str, Any], absent: list[str]) -> Any:
    """``data.extensions`` with ``depth_prompt`` (from ``insert``) and the ``agnai`` namespace, whose
    ``$interop`` markers record what the native file did not have and the clashing keys it had."""
    markers: dict[str, Any] = {}
    ext = data.get("extensions", ABSENT)
    if isinstance(ext, dict):
        clashes = {k: ext.pop(k) for k in CLASHING if k in ext}
        if clashes:
            markers["extensions"] = clashes
    if INSERT in obj or agnai:
        if not isinstance(ext, dict):
            if ext is ABSENT:
                absent.append("extensions")
            else:
                markers["replaced_extensions"] = ext
            ext = data["extensions"] = {}
        if INSERT in obj:
            ext[DEPTH_PROMPT] = copy.deepcopy(obj[INSERT])
    if absent or markers:
        if not isinstance(ext, dict):
            absent.append("extensions")
            ext = data["extensions"] = {}
        if absent:
            markers["absent"] = absent
    if markers:
        agnai[MARKERS] = markers
    if agnai:
        ext[NAMESPACE] = agnai
    return ext


def _restore_card(data: dict[str, Any], ext: Any, stash: dict[str, Any]) -> None:
    """Apply our writer's card stash: kept values back, the replaced persona back, added paths dropped."""
    saved = Stash.from_json(stash)
    for name, value in saved.keep.items():
        data[name] = copy.deepcopy(value)
    if "persona" in stash and isinstance(ext, dict) and isinstance(ext.get(NAMESPACE), dict):
        ext[NAMESPACE]["persona"] = copy.deepcopy(stash["persona"])
    for path in saved.absent:
        _drop(data, path)


def _fill_v3_fields(data: dict[str, Any]) -> set[str]:
    """Fill the fields a V3 card requires; the filled paths (``Card.filled``)."""
    filled = set()
    for name, default in required_defaults().items():
        if name not in data:
            data[name] = default
            filled.add(f"data.{name}")
    return filled


def _book(value: Any, file: str | None) -> Any:
    if isinstance(value, dict):
        return lorebook_from_memory_book(value, file=file, location="characterBook").dump()
    return copy.deepcopy(value)


def _pop_card_stash(data: dict[str, Any]) -> dict[str, Any]:
    card = take(data.get("extensions"), STASH).get("card")
    return card if isinstance(card, dict) else {}


def _drop(data: dict[str, Any], path: str) -> None:
    """Remove a dotted path (``extensions.agnai.persona``) that the writer had to add."""
    *parents, last = path.split(".")
    node: Any = data
    for key in parents:
        node = node.get(key) if isinstance(node, dict) else None
    if isinstance(node, dict):
        node.pop(last, None)
        if len(parents) > 1 and not node:  # an emptied namespace goes, extensions itself stays
            _drop(data, ".".join(parents))


# --- canonical -> native ----------------------------------------------------------------


def agnai_from_card(card: Card, *, fill_required: bool = True) -> dict[str, Any]:
    """The native Agnai character for ``card``; what Agnai cannot hold goes to ``extensions.interop_agnai``."""
    if spec_of(card) == "v1":  # V1 keeps its fields at the root: upgrade first
        card = to_v3(card)
    data = {k: v for k, v in card.data.dump().items() if f"data.{k}" not in card.filled}
    root = {k: v for k, v in card.dump().items() if k != "data"}
    ext, agnai, markers = _split_extensions(data.pop("extensions", ABSENT))
    absent = set(markers.get("absent", []))
    saved = Stash()  # keep: what Agnai has no field for; absent: what we had to add

    out: dict[str, Any] = {} if "kind" in absent else {"kind": KIND}
    for native, canonical in CARD_FIELDS:
        if native != "extensions" and canonical in data:
            out[native] = data.pop(canonical)
    replaced_persona = _persona_to_agnai(out, data, agnai.pop("persona", ABSENT), saved, fill_required)
    book = data.pop("character_book", ABSENT)
    if isinstance(book, dict):
        out["characterBook"] = memory_book_from_lorebook(
            Lorebook.model_validate(book), fill_required=fill_required, default_name="Character book"
        )
    elif book is not ABSENT:
        out["characterBook"] = book
    if isinstance(ext, dict):
        if DEPTH_PROMPT in ext:
            out[INSERT] = ext.pop(DEPTH_PROMPT)
        ext.update(markers.get("extensions", {}))
    if fill_required:
        for native, default in REQUIRED.items():
            if native not in out:
                out[native] = default
                saved.absent.append(_CANONICAL_BY_NATIVE[native])
    saved.keep.update(data)  # nickname, assets, group_only_greetings, dates, unknown keys
    ext = _stash_card(ext, saved, root, replaced_persona)
    _put_extensions(out, ext, markers, absent)
    for key, value in agnai.items():
        out.setdefault(key, value)
    ordered = {k: out[k] for k in NATIVE_ORDER if k in out}
    ordered.update((k, v) for k, v in out.items() if k not in ordered)
    return ordered


def _split_extensions(ext: Any) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """A copy of the card's ``extensions`` without ``agnai``; that namespace; its ``$interop`` markers."""
    ext = copy.deepcopy(ext) if isinstance(ext, dict) else ext
    agnai: dict[str, Any] = {}
    if isinstance(ext, dict) and isinstance(ext.get(NAMESPACE), dict):
        agnai = ext.pop(NAMESPACE)
    markers = agnai.pop(MARKERS, {}) if isinstance(agnai.get(MARKERS), dict) else {}
    return ext, agnai, markers


def _persona_to_agnai(
    out: dict[str, Any], data: dict[str, Any], persona: Any, saved: Stash, fill_required: bool
) -> Any:
    """Write ``persona``: Agnai's own when the description is its rendering, else the description as text
    (the description and personality kept in the stash). Returns the replaced Agnai persona, or ``ABSENT``."""
    description = data.pop("description", None)
    personality = data.pop("personality", None)
    replaced: Any = ABSENT
    if persona is not ABSENT and (description is None or render_persona(out.get("name"), persona) == description):
        out["persona"] = persona
    elif description is not None or personality is not None or fill_required:
        text = "\n".join(t for t in (description, personality) if isinstance(t, str) and t)
        out["persona"] = text_persona(text)
        pairs = (("description", description), ("personality", personality))
        saved.keep.update({k: v for k, v in pairs if v is not None})
        if persona is ABSENT:
            saved.absent.append(f"extensions.{NAMESPACE}.persona")
        else:
            replaced = persona  # the edited description wins; the old persona stays restorable
    if description is None and "persona" in out:
        saved.absent.append("description")  # the reader renders one from the persona
    if personality is not None and "personality" not in saved.keep:
        saved.keep["personality"] = personality
    return replaced


def _stash_card(ext: Any, saved: Stash, root: dict[str, Any], replaced_persona: Any) -> Any:
    """``ext`` with the card stash in it, when there is anything to stash."""
    default_root = root == DEFAULT_ROOT
    if not (saved or not default_root or replaced_persona is not ABSENT):
        return ext
    ext = saved.box(ext, "extensions")
    card_stash = saved.to_json()
    if not default_root:  # spec, spec_version and root keys of a card from elsewhere
        card_stash["root"] = root
    if replaced_persona is not ABSENT:
        card_stash["persona"] = replaced_persona
    ext[STASH] = {"v": STASH_VERSION, "card": card_stash}
    return ext


def _put_extensions(out: dict[str, Any], ext: Any, markers: dict[str, Any], absent: set[str]) -> None:
    """Write ``extensions`` as the Agnai file had it (a replaced value back, a missing one left out)."""
    if isinstance(ext, dict):
        if "replaced_extensions" in markers and not ext:
            out["extensions"] = markers["replaced_extensions"]
        elif not ("extensions" in absent and not ext):
            out["extensions"] = ext
    elif ext is not ABSENT:
        out["extensions"] = ext


# --- the V2 card Agnai imports ------------------------------------------------------------


def agnai_v2_card(card: Card) -> dict[str, Any]:
    """The ``chara_card_v2`` Agnai imports best: persona text in ``description``, ``personality`` empty
    (what Agnai's import would build anyway), ``extensions.agnai`` and ``depth_prompt`` as they are, and a
    lorebook whose Agnai-dropped data sits in the book-level stash. The original description and
    personality go to ``data.extensions.interop_agnai.card`` (Agnai keeps card extensions whole), so
    reading the file back as ``agnai-card`` restores the card."""
    v2 = to_v2(card).dump()
    data = v2.setdefault("data", {})
    ext = data.get("extensions", ABSENT)
    agnai = ext.get(NAMESPACE) if isinstance(ext, dict) and isinstance(ext.get(NAMESPACE), dict) else {}
    description = data.get("description", ABSENT)
    personality = data.get("personality", ABSENT)
    desc_text = description if isinstance(description, str) else ""
    pers_text = personality if isinstance(personality, str) else ""
    persona = agnai.get("persona")
    if persona is not None and not pers_text and render_persona(data.get("name"), persona) == desc_text:
        text = desc_text
    else:
        text = "\n".join(t for t in (desc_text, pers_text) if t)
    keep: dict[str, Any] = {}
    absent: list[str] = []
    for name, value, written in (("description", description, text), ("personality", personality, "")):
        if value is ABSENT:
            absent.append(name)
        elif not isinstance(value, str) or value != written:
            keep[name] = value
    data["description"] = text
    data["personality"] = ""
    book = data.get("character_book")
    if isinstance(book, dict):
        data["character_book"] = character_book_for_agnai(Lorebook.model_validate(book))
    if keep or absent:
        if not isinstance(ext, dict):
            if ext is not ABSENT:
                keep["extensions"] = ext
            absent.append("extensions")
            ext = data["extensions"] = {}
        card_stash: dict[str, Any] = {"keep": keep} if keep else {}
        if absent:
            card_stash["absent"] = absent
        ext[STASH] = {"v": STASH_VERSION, "card": card_stash}
    return v2


def card_from_agnai_card(obj: Any, *, file: str | None = None) -> Card:
    """The card an ``agnai-card`` file was written from (also after a trip through Agnai): the card
    stash and the lorebook stash are applied; the card stays ``chara_card_v2`` as the ``ccv2`` reader
    would give it."""
    raw = card_from_json(obj, file=file).dump()
    data = raw.get("data")
    if not isinstance(data, dict):
        return Card.model_validate(raw)
    ext = data.get("extensions")
    stash = ext.pop(STASH) if isinstance(ext, dict) and isinstance(ext.get(STASH), dict) else {}
    saved = stash.get("card") if isinstance(stash.get("card"), dict) else {}
    for name, value in (saved.get("keep") or {}).items():
        data[name] = copy.deepcopy(value)
    for name in saved.get("absent") or []:
        if name != "extensions":
            data.pop(name, None)
        elif data.get("extensions") == {}:
            data.pop("extensions")
    book = data.get("character_book")
    if isinstance(book, dict):
        data["character_book"] = restore_agnai_stash(Lorebook.model_validate(book)).dump()
    return Card.model_validate(raw)


def is_agnai_card(obj: dict[str, Any]) -> bool:
    """A V2 card carrying our Agnai stash (card level or in its lorebook)."""
    data = obj.get("data")
    if obj.get("spec") != V2_SPEC or not isinstance(data, dict):
        return False
    ext = data.get("extensions")
    book = data.get("character_book")
    book_ext = book.get("extensions") if isinstance(book, dict) else None
    return any(isinstance(e, dict) and isinstance(e.get(STASH), dict) for e in (ext, book_ext))


def character_book_for_agnai(book: Lorebook) -> dict[str, Any]:
    """A V2 ``character_book`` that survives Agnai's import: the memory book mapped back the way
    Agnai exports it, so whatever Agnai drops is already in the book-level stash."""
    native = memory_book_from_lorebook(book, default_name="Character book", for_v2_card=True)
    out: dict[str, Any] = {}
    for key, canonical in (("name", "name"), ("description", "description"), ("scanDepth", "scan_depth"),
                           ("tokenBudget", "token_budget"), ("recursiveScanning", "recursive_scanning"),
                           ("extensions", "extensions")):  # fmt: skip
        if key in native:
            out[canonical] = native[key]
    entries = []
    for entry in native["entries"]:
        v2 = {"keys": entry.get("keywords"), "content": entry.get("entry"), "extensions": {}}
        for key, canonical in (("enabled", "enabled"), ("weight", "insertion_order"), ("name", "name"),
                               ("priority", "priority"), ("id", "id"), ("comment", "comment"),
                               ("selective", "selective"), ("secondaryKeys", "secondary_keys"),
                               ("constant", "constant"), ("position", "position")):  # fmt: skip
            if key in entry:
                v2[canonical] = entry[key]
        entries.append(v2)
    out["entries"] = entries
    return out


# --- formats ----------------------------------------------------------------------------------

_SHAPE_KEYS = ("name", "persona", "greeting", "scenario", "sampleChat")


def looks_like_agnai_character(obj: dict[str, Any]) -> int:
    # Above 100 on purpose: ccv1's heuristic (a name plus any V1 field) also claims these objects.
    if obj.get("kind") == KIND:
        return 110
    if all(k in obj for k in _SHAPE_KEYS) and "spec" not in obj:
        return 105
    return 0


def _detect(probe: Probe) -> int:
    obj = probe.json_object
    return looks_like_agnai_character(obj) if obj is not None else 0


def _read(data: bytes, ctx: ReadContext) -> Document:
    obj = ctx.json(data)
    if not isinstance(obj, dict):
        raise InvalidCardError("Agnai character is not a JSON object", file=ctx.filename)
    return Document(format="agnai-character", card=card_from_agnai(obj, file=ctx.filename), source=ctx.filename)


def _write(doc: Document, ctx: WriteContext) -> bytes:
    native = agnai_from_card(as_card(doc), fill_required=doc.format != "agnai-character")
    return dump_json(native, pretty=ctx.pretty)


def _detect_card(probe: Probe) -> int:
    obj = probe.json_object
    # Above ccv2's 100: only files carrying our stash are claimed, and they need it applied.
    return 110 if obj is not None and is_agnai_card(obj) else 0


def _read_card(data: bytes, ctx: ReadContext) -> Document:
    card = card_from_agnai_card(ctx.json(data), file=ctx.filename)
    return Document(format="agnai-card", card=card, source=ctx.filename)


def _write_card(doc: Document, ctx: WriteContext) -> bytes:
    return dump_json(agnai_v2_card(card_for(doc, "agnai-card")), pretty=ctx.pretty)


def _describe(doc: Document) -> dict[str, Any]:
    card = doc.card
    if card is None:
        return {}
    agnai = card.data.ext(NAMESPACE)
    persona = agnai.get("persona") if isinstance(agnai.get("persona"), dict) else {}
    depth = card.data.ext(DEPTH_PROMPT)
    facts = {
        "persona_kind": persona.get("kind"),
        "insert_depth": depth.get("depth"),
        "agnai_fields": sorted(k for k in agnai if k != MARKERS),
    }
    if card.data.character_book is not None:
        facts.update({f"book_{k}": v for k, v in describe_book(card.data.character_book).items()})
    return facts


FORMATS = (
    Format(
        name="agnai-character",
        kind="card",
        title="Agnai native character JSON ({kind: character})",
        suffix=".json",
        platform="agnai",
        detect=_detect,
        detect_max=110,
        read=_read,
        write=_write,
        describe=_describe,
    ),
    Format(
        name="agnai-card",
        kind="card",
        title="Character Card V2 for Agnai's import (stash restored on read)",
        suffix=".json",
        platform="agnai",
        detect=_detect_card,
        detect_max=110,
        read=_read_card,
        write=_write_card,
        describe=_describe,
    ),
)
"""This module's formats, registered by the package ``__init__`` (in this order)."""
