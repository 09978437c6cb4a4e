"""Character card JSON: CCv3 (``chara_card_v3``), CCv2 (``chara_card_v2``) and V1 (TavernAI)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from ..convert import as_card
from ..document import Document
from ..errors import InvalidCardError
from ..jsonio import dump_json
from ..model import V2_SPEC, V3_SPEC, Card
from ..model.versions import STASH, V1_FIELDS, as_displayed, check_spec_version, to_v1, to_v2, to_v3
from .card_books import card_for
from .registry import Format, Probe, ReadContext, WriteContext, register


def card_from_json(value: Any, *, file: str | None = None, location: str | None = None) -> Card:
    """Validate parsed card JSON into the canonical model (typed error on a wrong shape)."""
    if not isinstance(value, dict):
        raise InvalidCardError("card JSON is not an object", file=file, location=location)
    try:
        return Card.model_validate(value)
    except ValidationError as exc:
        raise InvalidCardError(_first_error(exc), file=file, location=location) from None


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"]).lstrip(".")
    return f"{path or 'card'}: {err['msg']}"


def card_version(obj: dict[str, Any]) -> str | None:
    """"v3"/"v2"/"v1" by content, or None if this is not a card."""
    spec = obj.get("spec")
    if spec == V3_SPEC:
        return "v3"
    if spec == V2_SPEC:
        return "v2"
    if (
        spec is None
        and isinstance(obj.get("name"), str)
        and "entries" not in obj
        and sum(1 for f in V1_FIELDS[1:] if f in obj) >= 2
    ):
        return "v1"
    data = obj.get("data")
    if spec is None and isinstance(data, dict) and "name" in data and "first_mes" in data:
        return "v2"  # unlabelled V2 data wrapper
    return None


def read_card_document(value: Any, fmt: str, ctx: ReadContext) -> Document:
    card = card_from_json(value, file=ctx.filename)
    doc = Document(format=fmt, card=card, source=ctx.filename)
    warning = check_spec_version(card)
    if warning:
        doc.warn(warning)
    if card.spec is None and isinstance(card.get_extra("extensions"), dict) and STASH in card.get_extra(
        "extensions"
    ):
        doc.warn("V1 card carries an interop stash; it is restored when converting to V2/V3")
    return doc


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


for _version, _name, _title, _aliases in (
    ("v3", "ccv3", "Character Card V3 JSON", ("chara_card_v3", "v3")),
    ("v2", "ccv2", "Character Card V2 JSON", ("chara_card_v2", "v2")),
    ("v1", "ccv1", "TavernAI V1 card JSON", ("v1",)),
):
    register(
        Format(
            name=_name,
            kind="card",
            title=_title,
            suffix=".json",
            platform="ccv3",
            detect=_detector(_version),
            read=_reader(_name),
            write=_writer(_version),
            describe=_describe,
            aliases=_aliases,
        )
    )
