"""Character card JSON: CCv3 (``chara_card_v3``), CCv2 (``chara_card_v2``) and V1 (TavernAI)."""

from __future__ import annotations

from typing import Any

from ...convert import as_card
from ...document import Document
from ...jsonio import dump_json
from ...model import Card
from ...model.versions import as_displayed, to_v1, to_v2, to_v3
from ...transforms.card_books import card_for
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


def _writer(version: str):
    def write(doc: Document, ctx: WriteContext) -> bytes:
        card = as_card(doc) if version == "v1" else card_for(doc, {"v3": "ccv3", "v2": "ccv2"}[version])
        return card_json_bytes(card, version, ctx)

    return write


def _describe(doc: Document) -> dict[str, Any]:
    card = doc.card
    if card is None:
        return {}
    data = as_displayed(card).data
    return {
        "alternate_greetings": len(data.alternate_greetings) if isinstance(data.alternate_greetings, list) else 0,
        "group_only_greetings": len(data.group_only_greetings)
        if isinstance(data.group_only_greetings, list)
        else 0,
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
