"""CHARX cards (``.charx``): a zip with a CCv3 ``card.json`` at its root, plus assets.

Reading keeps everything: assets referenced by ``embeded://<path>`` URIs go to
``doc.assets`` (keyed by the URI as spelled), every other member
(``module.risum``, ``x_meta/*.json``, other root JSON, unreferenced files) to
``doc.members`` as opaque bytes. ``doc.native["charx"]`` remembers member
order, per-member compression, the JPEG prefix of Risu's ``charxJpeg`` and the
original ``card.json`` bytes, so writing a CHARX read from a CHARX gives the
same members, byte for byte, under the same names.

Writing a card from another format places assets where the CCv3 spec says
(``assets/{type}/{images|audio|...}/<name>.<ext>``), rewrites their URIs to
``embeded://<path>`` and embeds a PNG card's picture as the main icon. Every URI
it moves is recorded in ``x_interop/asset_origins.json`` (``asset_origin``), and
an asset another writer moved (Risu's layout) goes back to its recorded path.
Anything that cannot be carried is listed in ``doc.warnings``.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from typing import Any

from ...cardkit.asset_origin import ORIGINS_MEMBER, load_origins, move, origin, origins_bytes
from ...cardkit.card_image import plain_picture, sniff_image
from ...cardkit.card_io import card_from_json
from ...containers.charx import (
    CARD_JSON,
    ZIP_DEFLATED,
    ZIP_STORED,
    is_safe_member_name,
    read_charx,
    write_charx,
)
from ...document import Document
from ...errors import InteropError
from ...jsonio import dump_json, load_json
from ...jsonvalue import json_equal
from ...model import V3_SPEC
from ...model.versions import check_spec_version, to_v3
from ...platform.registry import Format, Probe, ReadContext, WriteContext
from ...transforms.card_for_target import card_for

FORMAT = "charx"
EMBED = "embeded://"
MISSPELLED_EMBED = "embedded://"
MAIN_ICON_TYPE = "icon"
MAIN_NAME = "main"

# Folder of each file extension under assets/{type}/ (CCv3 spec, CHARX section).
KIND_BY_EXT: dict[str, str] = {
    **dict.fromkeys(("png", "apng", "jpg", "jpeg", "gif", "webp", "avif", "bmp", "svg", "jxl"), "images"),
    **dict.fromkeys(("mp3", "wav", "ogg", "flac", "m4a", "aac", "opus"), "audio"),
    **dict.fromkeys(("mp4", "webm", "mov", "avi", "mkv"), "video"),
    **dict.fromkeys(("moc3", "moc"), "l2d"),
    **dict.fromkeys(("mmd", "pmx", "pmd", "obj", "fbx", "glb", "gltf", "vrm"), "3d"),
    **dict.fromkeys(("safetensors", "ckpt", "onnx", "pt"), "ai"),
    **dict.fromkeys(("otf", "ttf", "woff", "woff2"), "fonts"),
    **dict.fromkeys(("lua", "js", "ts", "py"), "code"),
}
_EXT_SUFFIXES = {
    "png": (".png",),
    "jpeg": (".jpg", ".jpeg"),
    "gif": (".gif",),
    "webp": (".webp",),
    "avif": (".avif",),
}
_UNSAFE_CHARS = re.compile(r"[^A-Za-z0-9._-]+")
_EXT = re.compile(r"^[a-z0-9]{1,16}$")
_NAME_MAX = 100


def _detect(probe: Probe) -> int:
    names = probe.zip_names
    return 100 if names is not None and CARD_JSON in names else 0


def _read(data: bytes, ctx: ReadContext) -> Document:
    archive = read_charx(data, limits=ctx.limits, filename=ctx.filename)
    value = load_json(archive.card_raw, file=ctx.filename, location=CARD_JSON, limits=ctx.limits)
    card = card_from_json(value, file=ctx.filename, location=CARD_JSON)
    doc = Document(format=FORMAT, card=card, source=ctx.filename)
    for note in archive.notes:
        doc.warn(note)
    warning = check_spec_version(card)
    if warning:
        doc.warn(warning)
    if card.spec != V3_SPEC:
        doc.warn(f"card.json has spec {card.spec!r}, not chara_card_v3 (Risu rejects such CHARX files)")

    referenced: set[str] = set()
    for index, asset in enumerate(card.data.assets or []):
        path = _embedded_path(asset.uri)
        if path is None:
            continue
        if asset.uri.startswith(MISSPELLED_EMBED):
            doc.warn(f"data.assets[{index}] uses 'embedded://', the spec spells it 'embeded://'")
        if path in archive.members:
            doc.assets[asset.uri] = archive.members[path]
            referenced.add(path)
        else:
            doc.warn(f"data.assets[{index}] ({asset.uri}) refers to a member the archive does not hold")
    doc.members = {name: content for name, content in archive.members.items() if name not in referenced}

    prefix_kind = None
    if archive.prefix:
        prefix_kind = "jpeg" if archive.prefix.startswith(b"\xff\xd8\xff") else f"{len(archive.prefix)} bytes"
        if prefix_kind != "jpeg":
            doc.warn(f"{len(archive.prefix)} bytes before the zip are not a JPEG; kept as they are")
    methods = Counter(_method_name(m) for m in archive.compression.values())
    doc.native["container"] = {
        "type": FORMAT,
        "members": list(archive.order),
        "prefix": prefix_kind,
        "compression": dict(methods),
    }
    doc.native["charx"] = {
        "order": list(archive.order),
        "compression": dict(archive.compression),
        "prefix": archive.prefix,
        "card_json": archive.card_raw,
    }
    return doc


def _embedded_path(uri: Any) -> str | None:
    if not isinstance(uri, str):
        return None
    for scheme in (EMBED, MISSPELLED_EMBED):
        if uri.startswith(scheme):
            return uri[len(scheme) :]
    return None


def _method_name(method: int) -> str:
    return {ZIP_STORED: "stored", ZIP_DEFLATED: "deflate"}.get(method, str(method))


class _Layout:
    """Member paths being assembled for one write, with collision-free naming."""

    def __init__(self) -> None:
        self.members: dict[str, bytes] = {}
        self.compression: dict[str, int] = {}

    def add(self, path: str, content: bytes, method: int) -> None:
        self.members[path] = content
        self.compression[path] = method

    def free_path(self, folder: str, stem: str, ext: str) -> str:
        candidate = f"{folder}/{stem}.{ext}"
        number = 1
        while candidate in self.members or candidate == CARD_JSON:
            candidate = f"{folder}/{stem}_{number}.{ext}"
            number += 1
        return candidate


def _write(doc: Document, ctx: WriteContext) -> bytes:
    card = to_v3(card_for(doc, "charx"))
    raw = card.dump()
    data = raw.setdefault("data", {})
    source = doc.native.get("charx") if isinstance(doc.native.get("charx"), dict) else None
    methods: dict[str, int] = dict(source.get("compression") or {}) if source is not None else {}
    default_method = methods.get(CARD_JSON, ZIP_DEFLATED)
    layout = _Layout()
    assets = data.get("assets")
    origins = load_origins(doc)
    if source is not None:
        moving = _moving_back(doc, assets, origins)
        _copy_source_members(doc, [n for n in source.get("order") or [] if n not in moving], methods, layout)

    # The picture first: it may fill the member a dangling main-icon URI names.
    picture = ctx.image if ctx.image is not None else doc.image
    if picture is not None:
        _embed_main_icon(doc, raw, picture, layout, default_method, origins, ctx_image=ctx.image is not None)
    assets = data.get("assets")
    placed: dict[str, str] = {}  # uri as the source spelled it -> member path
    if isinstance(assets, list):
        for index, asset in enumerate(assets):
            if isinstance(asset, dict):
                _place_asset(doc, asset, index, layout, placed, default_method, origins)

    for uri, content in doc.assets.items():
        path = _embedded_path(uri)
        if uri in placed or (path is not None and path in layout.members):
            continue
        ext = sniff_image(content) or "bin"
        stem = _safe_stem(uri.rsplit("/", 1)[-1].rsplit(".", 1)[0], "asset")
        new_path = layout.free_path(f"assets/other/{_kind_of(ext)}", stem, ext)
        layout.add(new_path, content, default_method)
        doc.warn(f"asset bytes {uri} are not referenced by data.assets; kept as member {new_path}")

    for name, content in doc.members.items():
        if name in layout.members or name == ORIGINS_MEMBER:
            continue
        if source is not None and name != CARD_JSON and is_safe_member_name(name):
            layout.add(name, content, methods.get(name, default_method))
        else:
            doc.warn(f"{doc.format} part {name!r} has no place in a CHARX; not carried")

    _write_origins(doc, origins, layout, methods.get(ORIGINS_MEMBER, default_method))
    card_bytes = dump_json(raw, pretty=ctx.pretty)
    if source is not None and ctx.pretty and _same_json(source.get("card_json"), raw):
        card_bytes = source["card_json"]  # unchanged card: keep its original bytes (key order, spacing)
    prefix = source.get("prefix", b"") if source is not None else b""
    compression = {CARD_JSON: default_method, **layout.compression}
    return write_charx(card_bytes, layout.members, prefix=prefix or b"", compression=compression)


def _copy_source_members(doc: Document, order: list[str], methods: dict[str, int], layout: _Layout) -> None:
    """A CHARX read from a CHARX: every member back under its own name, in its own order."""
    for name in order:
        if name == CARD_JSON:
            continue
        content = doc.members.get(name)
        if content is None:
            content = doc.assets.get(EMBED + name, doc.assets.get(MISSPELLED_EMBED + name))
        if content is None:
            doc.warn(f"member {name} was removed from the document; not written")
            continue
        layout.add(name, content, methods.get(name, ZIP_DEFLATED))


def _write_origins(doc: Document, origins: dict[str, str], layout: _Layout, method: int) -> None:
    """The record of moved asset URIs (``asset_origin``), in place; dropped once nothing is left to undo."""
    blob = origins_bytes(doc, origins)
    if blob is None:
        layout.members.pop(ORIGINS_MEMBER, None)
        layout.compression.pop(ORIGINS_MEMBER, None)
    else:
        layout.add(ORIGINS_MEMBER, blob, layout.compression.get(ORIGINS_MEMBER, method))


def _moving_back(doc: Document, assets: Any, origins: dict[str, str]) -> set[str]:
    """Members of the source CHARX that another writer moved (Risu's layout): they go back to their own path."""
    moving: set[str] = set()
    staying: set[str] = set()
    for asset in assets if isinstance(assets, list) else []:
        if not isinstance(asset, dict):
            continue
        path = _embedded_path(asset.get("uri"))
        if path is None:
            continue
        old = _embedded_path(origin(origins, asset))
        if old is not None and old != path and is_safe_member_name(old) and _str_in(asset.get("uri"), doc.assets):
            moving.add(path)
        else:
            staying.add(path)
    return moving - staying


def _place_asset(
    doc: Document,
    asset: dict[str, Any],
    index: int,
    layout: _Layout,
    placed: dict[str, str],
    method: int,
    origins: dict[str, str],
) -> None:
    uri = asset.get("uri")
    path = _embedded_path(uri)
    if path is not None and path in layout.members:
        return  # already where its URI points
    if not isinstance(uri, str) or uri not in doc.assets:
        if path is not None or (isinstance(uri, str) and uri.startswith("__asset:")):
            doc.warn(f"data.assets[{index}] ({uri}) has no bytes in the source; its URI is kept as is")
        return
    if uri not in placed:
        content = doc.assets[uri]
        ext = _asset_ext(asset, content)
        kind = _kind_of(ext)
        folder = f"assets/{_safe_stem(asset.get('type'), 'other')}/{kind}"
        old = _embedded_path(origin(origins, asset))
        if old is not None and is_safe_member_name(old) and old not in layout.members and old != CARD_JSON:
            new_path = old  # moved by an earlier conversion: back to the path the card had
        else:
            new_path = layout.free_path(folder, _safe_stem(asset.get("name"), f"asset_{index}"), ext)
        layout.add(new_path, content, method)
        placed[uri] = new_path
    move(origins, asset, EMBED + placed[uri])


def _embed_main_icon(
    doc: Document,
    raw: dict[str, Any],
    picture: bytes,
    layout: _Layout,
    method: int,
    origins: dict[str, str],
    *,
    ctx_image: bool,
) -> None:
    """The card's picture (PNG card, or ``--image``) becomes the main icon unless one with bytes exists."""
    data = raw["data"]
    assets = data.get("assets")
    if assets is not None and not isinstance(assets, list):
        doc.warn("data.assets is not a list; the card picture is not embedded")
        return
    assets = assets if isinstance(assets, list) else []
    mains = [
        a for a in assets if isinstance(a, dict) and a.get("type") == MAIN_ICON_TYPE and a.get("name") == MAIN_NAME
    ]
    if any(_embedded_path(a.get("uri")) in layout.members or _str_in(a.get("uri"), doc.assets) for a in mains):
        if ctx_image:
            doc.warn("the card already has a main icon; the given image is not embedded")
        return
    ext = sniff_image(picture) or "png"
    picture = plain_picture(doc, picture)  # a PNG without its card chunks; other pictures as they are
    for main in mains:
        dangling = _embedded_path(main.get("uri"))
        # A CHARX -> PNG -> CHARX trip: the icon's member is gone but the picture is that icon.
        if dangling and is_safe_member_name(dangling) and dangling.lower().endswith(_EXT_SUFFIXES[ext]):
            layout.add(dangling, picture, method)
            return
    replaceable = [a for a in mains if a.get("uri") in (None, "", "ccdefault:") or _embedded_path(a.get("uri"))]
    if mains and not replaceable:
        doc.warn(f"the main icon points to {mains[0].get('uri')}; the card picture is not embedded")
        return
    path = layout.free_path(f"assets/{MAIN_ICON_TYPE}/images", MAIN_NAME, ext)
    layout.add(path, picture, method)
    if replaceable:
        old_uri = replaceable[0].get("uri")
        if old_uri not in (None, "", "ccdefault:"):
            doc.warn(f"the main icon {old_uri} has no bytes; the card picture replaces it as {EMBED + path}")
        move(origins, replaceable[0], EMBED + path)
        replaceable[0]["ext"] = ext
    else:
        assets.append({"type": MAIN_ICON_TYPE, "uri": EMBED + path, "name": MAIN_NAME, "ext": ext})
        data["assets"] = assets


def _str_in(value: Any, mapping: dict[str, bytes]) -> bool:
    return isinstance(value, str) and value in mapping


def _asset_ext(asset: dict[str, Any], content: bytes) -> str:
    ext = asset.get("ext")
    if isinstance(ext, str) and _EXT.match(ext.lower()):
        return ext.lower()
    return sniff_image(content) or "bin"


def _kind_of(ext: str) -> str:
    return KIND_BY_EXT.get(ext, "other")


def _safe_stem(value: Any, fallback: str) -> str:
    """An ASCII file-name stem: accents folded, anything else unsafe becomes ``_``, at most 100 chars."""
    if not isinstance(value, str):
        return fallback
    folded = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode("ascii")
    stem = _UNSAFE_CHARS.sub("_", folded).strip("._")[:_NAME_MAX].strip("._")
    return stem or fallback


def _same_json(original: Any, new: dict[str, Any]) -> bool:
    """``original`` (bytes) holds the same JSON as ``new``: key order ignored, types not."""
    if not isinstance(original, bytes):
        return False
    try:
        return json_equal(load_json(original), new)
    except (InteropError, ValueError, TypeError):  # any doubt means: write the new bytes
        return False


def _describe(doc: Document) -> dict[str, Any]:
    """Facts for ``inspect``; the full member list is already in ``native["container"]["members"]``."""
    source = doc.native.get("charx") or {}
    order: list[str] = list(source.get("order") or [])
    types = Counter(
        a.type if isinstance(a.type, str) else "?" for a in (doc.card.data.assets or [] if doc.card else [])
    )
    return {
        "member_count": len(order),
        "asset_types": dict(types),
        "module_risum": "module.risum" in order,
        "x_meta": sum(1 for n in order if n.startswith("x_meta/")),
        "opaque_members": list(doc.members),
    }


FORMATS = (
    Format(
        name=FORMAT,
        kind="card",
        title="CHARX card (zip with card.json and assets)",
        suffix=".charx",
        platform="ccv3",
        detect=_detect,
        detect_max=100,
        read=_read,
        write=_write,
        describe=_describe,
    ),
)
"""This module's formats, registered by the package ``__init__`` (in this order)."""
