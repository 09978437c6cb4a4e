"""Character card JSON: CCv3 (``chara_card_v3``), CCv2 (``chara_card_v2``) and V1 (TavernAI).

A card read from a PNG keeps its picture in CCv3 JSON: the main icon asset gets it as a base64 data
URL (the spec allows them in ``assets[].uri``), so ``png -> ccv3 -> png`` gives the same image back.
``WriteContext.options["embed_picture"] = False`` (CLI ``--no-embed-picture``) leaves it out.
"""

from __future__ import annotations

from typing import Any

from ...convert import as_card
from ...document import Document
from ...jsonio import dump_json
from ...model import Card
from ...model.versions import as_displayed, to_v1, to_v2, to_v3
from ...transforms.card_books import card_for
from ..card_image import data_url, is_default_avatar, plain_picture, sniff_image
from ..card_io import card_version, read_card_document
from ..registry import Format, Probe, ReadContext, WriteContext


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
    return dump_json(converted.dump(), pretty=ctx.pretty)


EMBED_PICTURE = "embed_picture"
"""Write option: keep the card picture in CCv3 JSON as a data URL (default True)."""
MAIN_ICON = {"type": "icon", "name": "main"}
CCDEFAULT = "ccdefault:"


def _writer(version: str):
    def write(doc: Document, ctx: WriteContext) -> bytes:
        card = as_card(doc) if version == "v1" else card_for(doc, {"v3": "ccv3", "v2": "ccv2"}[version])
        if version == "v3":
            card = with_picture(card, doc, ctx)
        return card_json_bytes(card, version, ctx)

    return write


def with_picture(card: Card, doc: Document, ctx: WriteContext) -> Card:
    """The card with its picture (``--image``, else the PNG it was read from) as the main icon's data URL.

    A main icon that is ``ccdefault:`` or has no URI receives it (in a PNG, ``ccdefault:`` is that
    picture); a main icon pointing elsewhere is the card's own choice and stays.
    """
    picture = ctx.image if ctx.image is not None else doc.image
    if picture is None or ctx.options.get(EMBED_PICTURE, True) is False:
        return card
    raw = card.dump()
    data = raw.setdefault("data", {})
    assets = data.get("assets", [])
    if not isinstance(assets, list):
        doc.warn("data.assets is not a list; the card picture is not embedded")
        return card
    mains = [a for a in assets if isinstance(a, dict) and all(a.get(k) == v for k, v in MAIN_ICON.items())]
    if any(not _stands_for_the_picture(a.get("uri"), doc) for a in mains):
        return card
    plain = plain_picture(doc, picture)
    if ctx.image is None and is_default_avatar(plain, as_displayed(card).data.name):
        return card  # the PNG writer's stand-in for a card without a picture (ccv3 -> png -> ccv3)
    ext = sniff_image(plain) or "png"
    if mains:
        if mains[0].get("uri") not in (None, "", CCDEFAULT):
            doc.warn(f"the main icon {mains[0]['uri']} has no bytes here; the card picture replaces it as a data URL")
        mains[0].update(uri=data_url(plain), ext=ext)
    else:
        data["assets"] = [*assets, {"type": "icon", "uri": data_url(plain), "name": "main", "ext": ext}]
    out = Card.model_validate(raw)
    out.filled = set(card.filled)
    return out


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
