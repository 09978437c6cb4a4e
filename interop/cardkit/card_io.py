"""Card JSON shared by every platform that stores a Character Card (neutral: no platform owns it)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from ..document import Document
from ..errors import CorruptInputError, InvalidCardError
from ..model import V2_SPEC, V3_SPEC, Card
from ..model.versions import STASH, V1_FIELDS, check_spec_version
from ..platform.registry import ReadContext
from .card_image import DATA_URL, data_url_bytes


def card_from_json(value: Any, *, file: str | None = None, location: str | None = None) -> Card:
    """Validate parsed card JSON into the canonical model (typed error on a wrong shape)."""
    if not isinstance(value, dict):
        raise InvalidCardError("card JSON is not an object", file=file, location=location)
    try:
        return Card.__pydantic_validator__.validate_python(value)  # Card.model_validate minus its wrapper
    except ValidationError as exc:
        raise InvalidCardError(first_error(exc), file=file, location=location) from None


def first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"]).lstrip(".")
    return f"{path or 'card'}: {err['msg']}"


def card_version(obj: dict[str, Any]) -> str | None:
    """ "v3"/"v2"/"v1" by content, or None if this is not a card."""
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
    if card.spec is None and isinstance(card.get_extra("extensions"), dict) and STASH in card.get_extra("extensions"):
        doc.warn("V1 card carries an interop stash; it is restored when converting to V2/V3")
    _data_url_assets(doc)
    return doc


def _data_url_assets(doc: Document) -> None:
    """Assets carried inline as base64 data URLs get their bytes in ``doc.assets`` (keyed by the URI), like
    embedded ones, so container writers and the report see the picture (the JSON read was size-limited)."""
    assets = doc.card.data.assets if doc.card is not None else None
    for index, asset in enumerate(assets if isinstance(assets, list) else []):
        uri = asset.get("uri") if isinstance(asset, dict) else getattr(asset, "uri", None)
        if not isinstance(uri, str) or not uri.startswith(DATA_URL) or uri in doc.assets:
            continue
        try:
            doc.assets[uri] = data_url_bytes(uri)
        except CorruptInputError as exc:
            doc.warn(f"data.assets[{index}]: {exc.reason}; its URI is kept as is")
