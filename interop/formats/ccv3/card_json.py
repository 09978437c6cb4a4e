"""Character card JSON: CCv3 (``chara_card_v3``), CCv2 (``chara_card_v2``) and V1 (TavernAI).

A card read from a PNG keeps its picture in CCv3 JSON: the main icon asset gets it as a base64 data
URL (the spec allows them in ``assets[].uri``), so ``png -> ccv3 -> png`` gives the same image back;
its asset chunks (RisuAI emotion images) become data URLs too.
``WriteContext.options["embed_picture"] = False`` (CLI ``--no-embed-picture``) leaves them out.
"""

from __future__ import annotations

from typing import Any

from ...cardkit.as_kind import as_card
from ...cardkit.card_image import data_url, is_default_avatar, plain_picture, sniff_image
from ...cardkit.card_io import card_version, read_card_document
from ...document import Document
from ...errors import InteropError
from ...jsonio import dump_json, dump_json_orjson, record_written
from ...model import Asset, Card
from ...model.base import CanonicalModel
from ...model.versions import as_displayed, to_v1, to_v2, to_v3
from ...model.view import dump_view
from ...platform.registry import Format, Probe, ReadContext, WriteContext
from ...transforms.card_for_target import card_for


def _reader(fmt: str):
    def read(data: bytes, ctx: ReadContext) -> Document:
        return read_card_document(ctx.json(data), fmt, ctx)

    return read


def _detector(version: str):
    def detect(probe: Probe) -> int:
        obj = probe.json_object
        return 100 if obj is not None and card_version(obj) == version else 0

    return detect


def card_json_bytes(card: Card, version: str, ctx: WriteContext) -> bytes:
    converted = {"v3": to_v3, "v2": to_v2, "v1": to_v1}[version](card)
    return model_json(converted, ctx.pretty)


def model_json(model: CanonicalModel, pretty: bool, wrapper: dict[str, Any] | None = None) -> bytes:
    """``dump_json(model.dump())`` (under ``wrapper["data"]`` if given), from ``dump_view``: no copy of
    every value on the way. Where the view's values are not plain JSON (which only a model built in
    code, not read, can hold: ``dump`` converts them) it fails to write, and ``dump`` is used."""

    def wrapped(data: dict[str, Any]) -> dict[str, Any]:
        return data if wrapper is None else {**wrapper, "data": data}

    view = dump_view(model)  # ``model.dump()`` without the copy (``interop.model.view``)
    payload = wrapped(view)
    fast = dump_json_orjson(payload, pretty=pretty)
    if fast is not None:
        record_written(model, view)  # the report's view of the model is made from it (``fidelity.view``)
        return fast
    try:
        return dump_json(payload, pretty=pretty)
    except (TypeError, ValueError, InteropError):
        return dump_json(wrapped(model.dump()), pretty=pretty)


EMBED_PICTURE = "embed_picture"
"""Write option: keep the card picture in CCv3 JSON as a data URL (default True)."""
MAIN_ICON = {"type": "icon", "name": "main"}
CCDEFAULT = "ccdefault:"
ASSET_CHUNK = "__asset:"  # a PNG chara-ext-asset_:N chunk, which JSON cannot reference


def _writer(version: str):
    def write(doc: Document, ctx: WriteContext) -> bytes:
        card = as_card(doc) if version == "v1" else card_for(doc, {"v3": "ccv3", "v2": "ccv2"}[version])
        if version == "v3":
            card = with_picture(card, doc, ctx)
        return card_json_bytes(card, version, ctx)

    return write


def with_picture(card: Card, doc: Document, ctx: WriteContext) -> Card:
    """The card with its binary data inline: the picture and PNG asset chunks as data URLs.

    Asset chunks (``__asset:N``, e.g. RisuAI emotion images) cannot be referenced from a JSON file,
    so their descriptors get the bytes as data URLs (the PNG writer puts them back into chunks).
    The picture (``--image``, else the PNG the card was read from) becomes the main icon: one that
    is ``ccdefault:`` or has no URI receives it (in a PNG, ``ccdefault:`` is that picture); a main
    icon pointing elsewhere is the card's own choice and stays. ``embed_picture=False``: neither.
    """
    if ctx.options.get(EMBED_PICTURE, True) is False:
        return card
    if ctx.image is None and doc.image is None and not any(uri.startswith(ASSET_CHUNK) for uri in doc.assets):
        return card  # nothing to inline (most JSON sources): no dump and validation of the whole card
    # Only the assets change: they are dumped, changed and validated, not the whole card (what
    # ``Card.model_validate(card.dump())`` with the new assets gives: tests/formats/test_ccv3_picture.py).
    source = card.data
    data: dict[str, Any] = {}
    if "assets" in source.model_fields_set:
        if not isinstance(source.assets, list):
            return card
        data["assets"] = [asset.dump() for asset in source.assets]
    assets = data.get("assets", [])
    inlined = _inline_asset_chunks(assets, doc)
    if not (_picture_as_icon(card, data, assets, doc, ctx) or inlined):
        return card
    new_assets = [Asset.model_validate(asset) for asset in data["assets"]]
    out = card.model_copy(update={"data": source.model_copy(update={"assets": new_assets})})
    out.filled = set(card.filled)
    return out


def _inline_asset_chunks(assets: list[Any], doc: Document) -> bool:
    inlined = False
    for asset in assets:
        uri = asset.get("uri") if isinstance(asset, dict) else None
        if isinstance(uri, str) and uri.startswith(ASSET_CHUNK) and uri in doc.assets:
            asset["uri"] = data_url(doc.assets[uri], asset.get("ext"))
            inlined = True
    return inlined


def _picture_as_icon(card: Card, data: dict[str, Any], assets: list[Any], doc: Document, ctx: WriteContext) -> bool:
    picture = ctx.image if ctx.image is not None else doc.image
    if picture is None:
        return False
    mains = [a for a in assets if isinstance(a, dict) and all(a.get(k) == v for k, v in MAIN_ICON.items())]
    if any(not _stands_for_the_picture(a.get("uri"), doc) for a in mains):
        return False
    plain = plain_picture(doc, picture)
    if ctx.image is None and is_default_avatar(plain, as_displayed(card).data.name):
        return False  # the PNG writer's stand-in for a card without a picture (ccv3 -> png -> ccv3)
    ext = sniff_image(plain) or "png"
    if mains:
        if mains[0].get("uri") not in (None, "", CCDEFAULT):
            doc.warn(f"the main icon {mains[0]['uri']} has no bytes here; the card picture replaces it as a data URL")
        mains[0].update(uri=data_url(plain), ext=ext)
    else:
        data["assets"] = [*assets, {"type": "icon", "uri": data_url(plain), "name": "main", "ext": ext}]
    return True


def _stands_for_the_picture(uri: object, doc: Document) -> bool:
    """A main icon URI the picture fills: none, ``ccdefault:``, or a container path with no bytes here
    (a PNG read from a CHARX keeps ``embeded://...`` while its picture is that icon)."""
    if uri in (None, "", CCDEFAULT):
        return True
    return isinstance(uri, str) and uri.startswith(("embeded://", "embedded://", "__asset:")) and uri not in doc.assets


def _describe(doc: Document) -> dict[str, Any]:
    card = doc.card
    if card is None:
        return {}
    data = as_displayed(card).data
    return {
        "alternate_greetings": len(data.alternate_greetings) if isinstance(data.alternate_greetings, list) else 0,
        "group_only_greetings": len(data.group_only_greetings) if isinstance(data.group_only_greetings, list) else 0,
        "extensions": sorted(data.extensions) if isinstance(data.extensions, dict) else [],
    }


FORMATS = tuple(
    Format(
        name=name,
        kind="card",
        title=title,
        suffix=".json",
        platform="ccv3",
        detect=_detector(version),
        detect_max=100,
        read=_reader(name),
        write=_writer(version),
        describe=_describe,
        aliases=aliases,
    )
    for version, name, title, aliases in (
        ("v3", "ccv3", "Character Card V3 JSON", ("chara_card_v3", "v3")),
        ("v2", "ccv2", "Character Card V2 JSON", ("chara_card_v2", "v2")),
        ("v1", "ccv1", "TavernAI V1 card JSON", ("v1",)),
    )
)
"""This module's formats, registered by the package ``__init__`` (in this order)."""
