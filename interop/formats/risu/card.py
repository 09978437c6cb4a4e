"""Risu cards: CHARX as Risu writes it (``risu-charx``) and Risu's own character JSON (``risu-character``).

``risu-charx`` (risu.md 4.1/4.2): a stored zip with ``card.json`` (CCv3),
``module.risum`` (lorebook as raw internal entries, regex, triggers),
``assets/<type>/<kind>/<name>.<ext>`` with Risu's singular ``image`` kind and
``x_meta/<name>.json``. Reading does what Risu does: the module's lorebook is
authoritative (RisuAI PR #952), so ``character_book.entries`` becomes the
module's entries while the book settings still come from ``card.json``; the
module's ``regex``/``trigger`` fill ``extensions.risuai.customScripts`` /
``triggerscript``. Both views stay available: ``doc.native["risu"]`` holds
``card_book`` (card.json's own ``character_book``) and ``module`` (the module
JSON). Only files holding ``module.risum`` are claimed (confidence 110, above
the plain ``charx`` format's 100); ``charx`` still reads and writes them byte
for byte. Writing such a file read as plain ``charx`` reads its module as Risu
does, so ``module.risum`` and ``x_meta`` come back unchanged. Writing any other
card embeds its picture as the main icon (``assets/icon/image/main.<ext>``) and
records moved asset URIs (``asset_origin``) so the way back restores them.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from ...cardkit.asset_origin import ORIGINS_MEMBER, load_origins, move, origins_bytes
from ...cardkit.card_image import plain_picture, sniff_image
from ...cardkit.card_io import card_from_json
from ...containers.charx import (
    CARD_JSON,
    ZIP_DEFLATED,
    ZIP_STORED,
    is_safe_member_name,
    write_charx,
)
from ...containers.png import text_chunks
from ...containers.risum import MODULE_TYPE, read_risum, write_risum
from ...document import Document
from ...errors import FormatError, InteropError, InvalidCardError
from ...jsonio import dump_json, load_json
from ...jsonvalue import drop_empty
from ...limits import DEFAULT_LIMITS, Limits
from ...mappings import load as load_mapping
from ...model import Card, Lorebook
from ...model.versions import check_spec_version, to_v3
from ...platform.registry import Format, Probe, ReadContext, WriteContext, get_format
from ...transforms.card_for_target import card_for
from .all_chats import describe_chats
from .describe import describe_risu_book
from .entries import CARD_ENTRY_FIELDS, NS, lorebook_from_risu_entries, risu_entries_from_lorebook
from .module import book_from_module, module_assets, module_from_book

MODULE_MEMBER = "module.risum"
EMBED = "embeded://"
SCRIPT_KEYS = {"regex": "customScripts", "trigger": "triggerscript"}  # module key -> extensions.risuai key
MS_THRESHOLD = 100_000_000_000  # seconds after the year 5000: such a date is in milliseconds
KIND_BY_EXT: dict[str, str] = {
    **dict.fromkeys(("png", "jpg", "jpeg", "gif", "webp", "avif"), "image"),
    **dict.fromkeys(("mp3", "wav", "ogg", "flac"), "audio"),
    **dict.fromkeys(("mp4", "webm", "mov", "avi", "mkv"), "video"),
    **dict.fromkeys(("mmd", "obj"), "model"),
    **dict.fromkeys(("safetensors", "cpkt", "onnx"), "ai"),
    **dict.fromkeys(("otf", "ttf", "woff", "woff2"), "fonts"),
    **dict.fromkeys(("js", "ts", "lua"), "code"),
}
TYPE_FOLDERS = ("icon", "emotion", "background", "user_icon")
_SUFFIXES = {"jpeg": ("jpg", "jpeg")}


# --- Risu's card quirks ---------------------------------------------------------------


def note_card_quirks(doc: Document) -> None:
    """Warn about what Risu writes off-spec; values are kept as read, facts go to ``doc.native["risu"]``."""
    card = doc.card
    if card is None:
        return
    data = card.data
    facts = doc.native.setdefault("risu", {})
    date = data.creation_date
    if isinstance(date, int | float) and not isinstance(date, bool) and date > MS_THRESHOLD:
        facts["creation_date_seconds"] = date / 1000
        doc.warn(f"creation_date {date} is in milliseconds (Risu writes Date.now()); kept, seconds = {date / 1000:g}")
    if data.character_version == "undefined":
        doc.warn("character_version is the literal 'undefined' (Risu's export of a missing version); kept")
    for index, asset in enumerate(data.assets or []):
        blob = doc.assets.get(asset.uri) if isinstance(asset.uri, str) else None
        claimed = (asset.ext or "").lower() if isinstance(asset.ext, str) else ""
        actual = sniff_image(blob) if blob else None
        if blob and claimed == "png" and actual not in (None, "png"):
            facts.setdefault("image_types", {})[asset.uri] = actual
            doc.warn(f"data.assets[{index}] is named .png but holds {actual.upper()} bytes (Risu image compression)")
    card_book = facts.get("card_book")
    entries = card_book.get("entries") if isinstance(card_book, dict) else None
    if isinstance(entries, list):
        odd = sorted({k for e in entries if isinstance(e, dict) for k in CARD_ENTRY_FIELDS if k in e})
    else:
        odd = sorted({k for e in data.character_book.entries for k in CARD_ENTRY_FIELDS if e.has(k)}) if (
            data.character_book is not None
        ) else []
    if odd:
        doc.warn(f"character_book entries carry Risu's non-spec fields {', '.join(odd)}; kept")


def creation_date_seconds(doc: Document) -> float | int | None:
    """The card's creation date in seconds, undoing Risu's milliseconds (for the fidelity report)."""
    if doc.card is None:
        return None
    facts = doc.native.get("risu") or {}
    if "creation_date_seconds" in facts:
        return facts["creation_date_seconds"]
    date = doc.card.data.creation_date
    return date if isinstance(date, int | float) and not isinstance(date, bool) else None


# --- risu-charx -------------------------------------------------------------------


def _detect_charx(probe: Probe) -> int:
    names = probe.zip_names
    return 110 if names is not None and CARD_JSON in names and MODULE_MEMBER in names else 0


def _read_charx(data: bytes, ctx: ReadContext) -> Document:
    reader = get_format("charx").read  # the plain CHARX reader does the zip; Risu's view is added here
    if reader is None:
        raise FormatError("the charx format cannot be read", file=ctx.filename)
    doc = reader(data, ctx)
    doc.format = "risu-charx"
    _add_risu_view(doc, ctx.limits, ctx.filename)
    note_card_quirks(doc)
    return doc


def _add_risu_view(doc: Document, limits: Limits, filename: str | None) -> None:
    """What Risu makes of a CHARX read by the plain reader: the module's lorebook and scripts win."""
    raw_module = doc.members.get(MODULE_MEMBER)
    card = doc.card
    if raw_module is None or card is None:
        raise InvalidCardError("CHARX holds no module.risum", file=filename, location=MODULE_MEMBER)
    archive = read_risum(raw_module, limits=limits, filename=filename)
    module = archive.module
    lorebook = module.get("lorebook")
    if lorebook is not None and not isinstance(lorebook, list):
        raise InvalidCardError("module lorebook is not a list", file=filename, location=f"{MODULE_MEMBER}:lorebook")
    raw_card = card.dump()
    data = raw_card["data"]
    card_book = data.get("character_book")
    scripts = {SCRIPT_KEYS[k]: copy.deepcopy(module[k]) for k in SCRIPT_KEYS if k in module}
    created: list[str] = []
    card_scripts: dict[str, Any] = {}
    if scripts:  # Risu: the module's regex and triggers replace the card's
        if "extensions" not in data:
            data["extensions"] = {}
            created.append("extensions")
        ext = data["extensions"]
        if isinstance(ext, dict) and "risuai" not in ext:
            ext["risuai"] = {}
            created.append("extensions.risuai")
        risuai = ext.get("risuai") if isinstance(ext, dict) else None
        if isinstance(risuai, dict):
            card_scripts = {key: risuai[key] for key in scripts if key in risuai}
            risuai.update(scripts)
    meta = {k: v for k, v in module.items() if k not in SCRIPT_KEYS}
    module_book = book_from_module(meta, location=MODULE_MEMBER, standalone=False)
    if card_book is not None or module_book.entries or module_book.ext(NS).get("folders"):
        data["character_book"] = _merged_book(card_book, module_book).dump()
    doc.card = Card.model_validate(raw_card)
    doc.native["risu"] = {
        "card_book": card_book,
        "module": module,
        "module_lorebook": lorebook,
        "card_scripts": card_scripts,
        "created": created,
        "module_json_text": archive.json_text,
        "module_assets": archive.assets,
    }


def _merged_book(card_book: Any, module_book: Lorebook) -> Lorebook:
    """Entries (and folders, module metadata) from the module; settings from card.json, as Risu does."""
    data = copy.deepcopy(card_book) if isinstance(card_book, dict) else {}
    module_data = module_book.dump()
    data["entries"] = module_data.get("entries", [])
    ns = module_book.ext(NS)
    if ns:
        ext = data.get("extensions")
        if not isinstance(ext, dict):
            ext = data["extensions"] = {}
        target = ext.get(NS) if isinstance(ext.get(NS), dict) else {}
        ext[NS] = {**target, **ns}
    return Lorebook.model_validate(data)


def _settings(book: Any) -> dict[str, Any]:
    if not isinstance(book, dict):
        return {}
    out = {k: v for k, v in book.items() if k != "entries"}
    ext = out.get("extensions")
    if isinstance(ext, dict):
        out["extensions"] = {k: v for k, v in ext.items() if k != NS}
        if not out["extensions"]:
            del out["extensions"]  # the merge may have created it for the module's folders
    return out


def _unchanged(book: Lorebook, risu: dict[str, Any]) -> bool:
    """Are entries and settings still what the CHARX held? Then card.json keeps its own book view."""
    card_book = risu.get("card_book")
    return risu_entries_from_lorebook(book) == risu.get("module_lorebook") and _settings(book.dump()) == _settings(
        card_book
    )


def _card_book_view(book: Lorebook) -> dict[str, Any]:
    """character_book for card.json: the canonical book without the module's own metadata."""
    data = book.dump()
    ext = data.get("extensions")
    if isinstance(ext, dict) and isinstance(ext.get(NS), dict) and "module" in ext[NS]:
        ns = {k: v for k, v in ext[NS].items() if k != "module"}
        if ns:
            ext[NS] = ns
        else:
            del ext[NS]
    return data


def _risu_path(asset: dict[str, Any], index: int, blob: bytes, taken: set[str]) -> tuple[str, str]:
    """assets/<type>/<kind>/<name>.<ext> as Risu names it, and the x_meta member."""
    ext = asset.get("ext") if isinstance(asset.get("ext"), str) and asset.get("ext") else sniff_image(blob) or "png"
    ext = str(ext).lower()
    kind = KIND_BY_EXT.get(ext, "other")
    if ext == "unknown":
        ext, kind = "png", "image"
    atype = asset.get("type")
    folder = atype if atype in TYPE_FOLDERS else "other"
    name = asset.get("name") if isinstance(asset.get("name"), str) and asset.get("name") else f"asset_{index}"
    stem = "".join("_" if c in '<>:"/\\|?*' or ord(c) < 32 else c for c in name)[:100].rstrip(". ") or f"asset_{index}"
    candidate, number = stem, 1
    while f"assets/{folder}/{kind}/{candidate}.{ext}" in taken:
        candidate = f"{stem}_{number}"
        number += 1
    path = f"assets/{folder}/{kind}/{candidate}.{ext}"
    taken.add(path)
    return path, f"x_meta/{candidate}.json"


def _x_meta(blob: bytes) -> bytes:
    """Risu's x_meta: a PNG's tEXt chunks as a map, else the image type."""
    kind = sniff_image(blob)
    if kind == "png":
        try:
            chunks = text_chunks(blob)
            return dump_json({c.keyword: c.payload().decode("latin-1") for c in chunks if c.kind == "tEXt"})
        except InteropError:
            pass  # a damaged chunk stream: fall back to the type label
    label = {"png": "PNG", "jpeg": "JPEG", "gif": "GIF", "webp": "WEBP", "avif": "AVIF"}.get(kind or "", "Unknown")
    return dump_json({"type": label})


def _risu_view_of(doc: Document) -> Document:
    """A CHARX read by the plain reader but holding ``module.risum`` (Risu's own file): read it as Risu does.

    Its module and members are then written back as they were instead of being rebuilt. Only for an
    unedited card: after edits the module is rebuilt from the card, as for any other source.
    """
    if doc.format == "risu-charx" or doc.card is None or MODULE_MEMBER not in doc.members:
        return doc
    source = doc.native.get("charx")
    original = source.get("card_json") if isinstance(source, dict) else None
    if not isinstance(original, bytes):
        return doc
    try:
        if load_json(original) != doc.card.dump():
            return doc  # the card was edited since: it, not the old module, says what to write
    except InteropError:
        return doc
    view = dataclasses.replace(doc, format="risu-charx", card=doc.card.model_copy(deep=True), native=dict(doc.native))
    try:
        _add_risu_view(view, DEFAULT_LIMITS, doc.source)
    except InteropError as exc:
        doc.warn(f"{MODULE_MEMBER} could not be read ({exc.reason}); the module is rebuilt from the card")
        return doc
    return view


def _main_icon_slot(
    doc: Document, data: dict[str, Any], members: dict[str, bytes], picture: bytes, *, given: bool
) -> tuple[dict[str, Any] | None, bool]:
    """Where the card picture goes as Risu's main icon (the plain CHARX writer's rule, in Risu's layout).

    A main icon with bytes wins; a dangling ``embeded://`` main icon (CHARX -> PNG -> CHARX) gets its
    member back; otherwise the returned descriptor (``ccdefault:``, empty, or new: then True) receives
    the picture.
    """
    assets = data.get("assets")
    if assets is not None and not isinstance(assets, list):
        doc.warn("data.assets is not a list; the card picture is not embedded")
        return None, False
    assets = assets if isinstance(assets, list) else []
    mains = [a for a in assets if isinstance(a, dict) and a.get("type") == "icon" and a.get("name") == "main"]
    uris = [a.get("uri") for a in mains]
    if any(
        isinstance(u, str) and (u in doc.assets or (u.startswith(EMBED) and u[len(EMBED) :] in members)) for u in uris
    ):
        if given:
            doc.warn("the card already has a main icon; the given image is not embedded")
        return None, False
    plain = plain_picture(doc, picture)
    ext = sniff_image(plain) or "png"
    for main, uri in zip(mains, uris, strict=True):
        path = uri[len(EMBED) :] if isinstance(uri, str) and uri.startswith(EMBED) else None
        if path and is_safe_member_name(path) and path.rsplit(".", 1)[-1].lower() in _SUFFIXES.get(ext, (ext,)):
            members[path] = plain
            return None, False
        if uri in (None, "", "ccdefault:"):
            return main, False
    if mains:
        doc.warn(f"the main icon points to {uris[0]}; the card picture is not embedded")
        return None, False
    slot: dict[str, Any] = {"type": "icon", "uri": "ccdefault:", "name": "main", "ext": ext}
    assets.append(slot)
    data["assets"] = assets
    return slot, True


def _write_charx(doc: Document, ctx: WriteContext) -> bytes:
    doc = _risu_view_of(doc)
    card = to_v3(card_for(doc, "risu-charx"))  # V3-required fields, ST flat keys, dates (card_for_target)
    raw = card.dump()
    data = raw.setdefault("data", {})
    risu = doc.native.get("risu") if doc.format == "risu-charx" else None
    source = doc.native.get("charx") if risu is not None else None
    book = card.data.character_book
    if book is None:  # Risu always writes a module; keep the one read, if any
        meta = {k: v for k, v in ((risu or {}).get("module") or {}).items() if k not in (*SCRIPT_KEYS, "lorebook")}
        book = Lorebook.model_validate({"entries": [], **({"extensions": {NS: {"module": meta}}} if meta else {})})
    module = module_from_book(book, standalone=False, default_name=f"{data.get('name') or 'Character'} Module")
    module.setdefault("lorebook", [])
    _scripts_to_module(data, module, risu or {})
    drop_empty(data, list((risu or {}).get("created") or []))
    if card.data.character_book is not None:
        _card_json_book(data, book, risu)
    members, methods = _members_in_order(doc, source, _module_bytes(doc, module, risu))
    origins = _embed_assets(doc, ctx, data, members, methods)
    _carry_other_members(doc, members)
    _origins_member(doc, origins, members, methods)
    compression = {name: methods.get(name, ZIP_STORED) for name in members}
    compression[CARD_JSON] = source.get("compression", {}).get(CARD_JSON, ZIP_STORED) if source else ZIP_STORED
    prefix = source.get("prefix", b"") if isinstance(source, dict) else b""
    return write_charx(_card_bytes(raw, source, ctx), members, prefix=prefix or b"", compression=compression)


def _scripts_to_module(data: dict[str, Any], module: dict[str, Any], risu: dict[str, Any]) -> None:
    """The card's regex and triggers move into the module, as Risu writes CHARX.

    A card.json that had its own copy keeps it, unless the scripts were edited since.
    """
    ext = data.get("extensions")
    risuai = ext.get("risuai") if isinstance(ext, dict) else None
    if not isinstance(risuai, dict):
        return
    card_scripts = risu.get("card_scripts") or {}
    original = risu.get("module") or {}
    for module_key, card_key in SCRIPT_KEYS.items():
        if card_key not in risuai:
            continue
        module[module_key] = risuai.pop(card_key)
        if card_key in card_scripts:
            same = module[module_key] == original.get(module_key)
            risuai[card_key] = card_scripts[card_key] if same else module[module_key]


def _card_json_book(data: dict[str, Any], book: Lorebook, risu: dict[str, Any] | None) -> None:
    """card.json's ``character_book``: its own view while entries and settings are unchanged, else the book."""
    if risu is not None and _unchanged(book, risu):
        data["character_book"] = copy.deepcopy(risu.get("card_book"))
        if data["character_book"] is None:
            del data["character_book"]
    else:
        data["character_book"] = _card_book_view(book)


def _module_bytes(doc: Document, module: dict[str, Any], risu: dict[str, Any] | None) -> bytes:
    """module.risum: the JSON text read when the module is unchanged, and the module's own asset records."""
    payload: dict[str, Any] = {"module": module, "type": MODULE_TYPE}
    # A module's own asset records travel inside module.risum (a .risum read as a lorebook, or a Risu CHARX).
    assets: list[bytes] = module_assets(doc) if doc.format == "risum" else []
    text = None
    if risu is not None:
        assets = list(risu.get("module_assets") or [])
        if risu.get("module") == module:
            text = risu.get("module_json_text")
    return write_risum(text if isinstance(text, bytes) else payload, assets)


def _members_in_order(
    doc: Document, source: Any, module_bytes: bytes
) -> tuple[dict[str, bytes], dict[str, int]]:
    """The members of the CHARX read (in its order and compression), with the new module.risum."""
    members: dict[str, bytes] = {}
    methods: dict[str, int] = {}
    if isinstance(source, dict):
        for name in source.get("order") or []:
            if name == CARD_JSON:
                continue
            blob = module_bytes if name == MODULE_MEMBER else doc.members.get(name, doc.assets.get(EMBED + name))
            if blob is not None:
                members[name] = blob
                methods[name] = source.get("compression", {}).get(name, ZIP_STORED)
    members[MODULE_MEMBER] = module_bytes
    return members, methods


def _embed_assets(
    doc: Document, ctx: WriteContext, data: dict[str, Any], members: dict[str, bytes], methods: dict[str, int]
) -> dict[str, str]:
    """The card picture as main icon and every asset with bytes as a member in Risu's layout.

    Returns the asset origins with the moves recorded (``asset_origin``).
    """
    picture = ctx.image if ctx.image is not None else doc.image
    slot, added = (None, False)
    if picture is not None:
        slot, added = _main_icon_slot(doc, data, members, picture, given=ctx.image is not None)
    taken = set(members)
    origins = load_origins(doc)
    assets = data.get("assets")
    for index, asset in enumerate(assets if isinstance(assets, list) else []):
        blob = _asset_blob(doc, asset, members, picture if asset is slot else None)
        if blob is None:
            continue
        path, meta = _risu_path(asset, index, blob, taken)
        members[path] = blob
        members.setdefault(meta, _x_meta(blob))
        methods.setdefault(meta, ZIP_DEFLATED)
        move(origins, asset, EMBED + path)  # recorded: the way back (PNG, plain CHARX) puts it where it was
        if asset is slot and added:
            origins.pop(EMBED + path, None)  # a main icon we added has no place to go back to
    return origins


def _origins_member(doc: Document, origins: dict[str, str], members: dict[str, bytes], methods: dict[str, int]) -> None:
    origins_blob = origins_bytes(doc, origins)
    if origins_blob is None:
        members.pop(ORIGINS_MEMBER, None)
    else:
        members[ORIGINS_MEMBER] = origins_blob
        methods.setdefault(ORIGINS_MEMBER, ZIP_DEFLATED)


def _asset_blob(doc: Document, asset: Any, members: dict[str, bytes], picture: bytes | None) -> bytes | None:
    """The bytes to embed for one asset descriptor; None when it has none or already points at a member.

    ``picture``: the card picture, given only for the main-icon slot that receives it.
    """
    if picture is not None:
        return plain_picture(doc, picture)
    uri = asset.get("uri") if isinstance(asset, dict) else None
    if not isinstance(uri, str) or (uri.startswith(EMBED) and uri[len(EMBED) :] in members):
        return None
    blob = doc.assets.get(uri)
    if blob is None and uri == "ccdefault:" and doc.image is not None:
        blob = plain_picture(doc, doc.image)
    return blob


def _carry_other_members(doc: Document, members: dict[str, bytes]) -> None:
    """Other CHARX members (x_meta, app JSON, ...) travel as they are; parts of other formats are reported."""
    from_charx = isinstance(doc.native.get("charx"), dict)
    for name, blob in doc.members.items():
        if name in members or name in (CARD_JSON, ORIGINS_MEMBER):
            continue
        if from_charx and is_safe_member_name(name):
            members[name] = blob
        else:
            doc.warn(f"{doc.format} part {name!r} has no place in a Risu CHARX; not carried")


def _card_bytes(raw: dict[str, Any], source: Any, ctx: WriteContext) -> bytes:
    """card.json: the bytes read when the card is unchanged (pretty output), else freshly dumped."""
    card_bytes = dump_json(raw, pretty=ctx.pretty)
    original = source.get("card_json") if isinstance(source, dict) else None
    if isinstance(original, bytes) and ctx.pretty and load_json(original) == raw:
        return original
    return card_bytes


def _describe_charx(doc: Document) -> dict[str, Any]:
    facts = describe_risu_book(doc.book)
    module = (doc.native.get("risu") or {}).get("module") or {}
    for key in ("regex", "trigger"):
        value = module.get(key)
        facts[f"module_{key}"] = len(value) if isinstance(value, list) else 0
    facts["module"] = module.get("name")
    return facts


# --- risu-character: Risu's internal camelCase character object ---------------------

_MAPPING = load_mapping("risu")
# Risu character key -> canonical data field: the table's card rows that are plain renames.
CARD_FIELDS: tuple[tuple[str, str], ...] = tuple(
    (f.native, f.canonical) for f in _MAPPING.fields_at("card") if f.canonical and "." not in f.canonical
)
LORE_SETTINGS_KEY = "loreSettings"
# loreSettings key -> canonical book field (the table's ``loreSettings.*`` book rows).
LORE_SETTINGS: tuple[tuple[str, str], ...] = tuple(
    (f.native.removeprefix(f"{LORE_SETTINGS_KEY}."), f.canonical)
    for f in _MAPPING.fields_at("book")
    if f.canonical and f.native.startswith(f"{LORE_SETTINGS_KEY}.")
)
_RISUAI_PREFIX = "extensions.risuai."
# Risu character key -> its key in extensions.risuai (the table's card rows that land there, one key each;
# ``(other keys)`` is the rest of the character, kept whole under ``character``).
_RISUAI_KEYS: dict[str, str] = {
    f.native: f.canonical.removeprefix(_RISUAI_PREFIX)
    for f in _MAPPING.fields_at("card")
    if f.canonical and f.canonical.startswith(_RISUAI_PREFIX) and f.native.isidentifier()
}
_MARKERS = ("firstMessage", "chaId", "globalLore", "exampleMessage", "desc")


def _detect_character(probe: Probe) -> int:
    obj = probe.json_object
    if obj is None or "spec" in obj or not isinstance(obj.get("name"), str):
        return 0
    hits = sum(1 for key in _MARKERS if key in obj)
    # Above ccv1's 100: a Risu character also has V1's field names, but never a V1 card's firstMessage.
    return 110 if "firstMessage" in obj and hits >= 2 else 0


def card_from_risu_character(obj: dict[str, Any], *, file: str | None = None) -> Card:
    rest = dict(obj)
    data: dict[str, Any] = {}
    for native, canonical in CARD_FIELDS:
        if native in rest:
            data[canonical] = rest.pop(native)
    additional = rest.get("additionalData")
    if isinstance(additional, dict):  # Risu's exporter takes these two from additionalData
        for native, canonical in (("creator", "creator"), ("character_version", "character_version")):
            if native in additional:
                data[canonical] = additional[native]
    extensions: dict[str, Any] = {}
    if isinstance(rest.get("extentions"), dict):
        extensions.update(rest.pop("extentions"))
    risuai = {_RISUAI_KEYS[k]: rest.pop(k) for k in list(rest) if k in _RISUAI_KEYS}
    lore = rest.pop("globalLore", None)
    if lore is not None:
        book = lorebook_from_risu_entries(lore, location="globalLore").dump()
        settings = rest.pop(LORE_SETTINGS_KEY, None)
        if isinstance(settings, dict):
            for native, canonical in LORE_SETTINGS:
                if native in settings:
                    book[canonical] = settings[native]
        lore_ext = rest.pop("loreExt", None)
        if isinstance(lore_ext, dict):
            book["extensions"] = {**lore_ext, **book.get("extensions", {})}
        data["character_book"] = book
    risuai["character"] = rest  # everything else of the Risu character, whole
    extensions["risuai"] = risuai
    data["extensions"] = extensions
    return card_from_json({"spec": "chara_card_v3", "spec_version": "3.0", "data": data}, file=file)


def _read_character(data: bytes, ctx: ReadContext) -> Document:
    obj = ctx.json(data)
    if not isinstance(obj, dict):
        raise InvalidCardError("Risu character JSON is not an object", file=ctx.filename)
    doc = Document(format="risu-character", card=card_from_risu_character(obj, file=ctx.filename),
                   source=ctx.filename)
    note_card_quirks(doc)
    warning = check_spec_version(doc.card) if doc.card is not None else None
    if warning:
        doc.warn(warning)
    return doc


def _describe_character(doc: Document) -> dict[str, Any]:
    facts = describe_risu_book(doc.book)
    try:  # the chats the character keeps, by index (``convert``/``activate --chat-index``)
        chats = describe_chats(doc)
    except InvalidCardError as exc:
        doc.warn(f"the chats this character keeps do not read: {exc.reason}")
        chats = []
    return {**facts, "chats": chats} if chats else facts


FORMATS = (
    Format(
        name="risu-charx",
        kind="card",
        title="RisuAI CHARX (card.json + module.risum, Risu's asset layout)",
        suffix=".charx",
        platform="risu",
        detect=_detect_charx,
        detect_max=110,
        read=_read_charx,
        write=_write_charx,
        describe=_describe_charx,
    ),
    Format(
        name="risu-character",
        kind="card",
        title="RisuAI internal character JSON (camelCase: firstMessage, globalLore, ...)",
        suffix=".json",
        platform="risu",
        detect=_detect_character,
        detect_max=110,
        read=_read_character,
        describe=_describe_character,
    ),
)
