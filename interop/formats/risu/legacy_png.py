"""RisuAI's legacy PNG export: the ``risuai`` text chunk (base64 msgpack of Risu's own character).

Facts (kwaroran/RisuAI ``src/ts/characterCards.ts``, 2023 versions: ``exportChar`` writes it,
``importCharacter`` reads it): the chunk holds ``base64(msgpack({type: 101, data: <character>}))``
beside a ``chara`` chunk with a plain TavernAI V1 card (``mes_example`` "<START>", empty
personality and scenario). The character's ``emotionImages`` are ``[name, <image bytes>]`` pairs
(WEBP in Risu's own sample), the rest is Risu's internal character (``firstMessage``, ``desc``,
``sdData``, ``viewScreen``, ...). Risu used this chunk when ``chara`` was not a V2 card; today's
Risu no longer reads it, so its data only reaches Risu again as a V3 card: emotion images as
``emotion`` assets, the rest where ``risu-character`` puts it (``extensions.risuai``).

The chunk is bounded by ``Limits``: the PNG walker's chunk limit, ``max_text_bytes`` for the
decoded msgpack and ``max_json_depth`` for its nesting.
"""

from __future__ import annotations

import binascii
from dataclasses import dataclass, field
from typing import Any

import msgpack

from ...cardkit.card_image import sniff_image
from ...errors import CorruptInputError, InvalidCardError, LimitExceededError
from ...limits import Limits
from ...model import Card
from .card import card_from_risu_character

LEGACY_KEYWORD = "risuai"
LEGACY_TYPE = 101  # exportChar's msgpack envelope {type: 101, data: character}
EMOTIONS = "emotionImages"
ADDITIONAL = "additionalAssets"  # [name, data, file name] in later characters: Risu's "x-risu-asset" type


@dataclass
class LegacyCharacter:
    """What the chunk holds, as a V3 card and the image bytes its assets point to."""

    card: Card
    assets: dict[str, bytes] = field(default_factory=dict)
    """``__asset:N`` URI -> bytes, as PNG ``chara-ext-asset_:N`` chunks would hold them."""
    notes: list[str] = field(default_factory=list)


def read_legacy_chunk(
    raw: bytes, limits: Limits, *, first_index: int = 0, location: str = LEGACY_KEYWORD
) -> LegacyCharacter:
    """The ``risuai`` chunk's text -> a V3 card with ``emotion`` assets at ``__asset:<first_index + i>``."""
    character = _unpack(raw, limits, location)
    notes: list[str] = []
    character = dict(character)
    uris: dict[str, bytes] = {}
    assets: list[dict[str, Any]] = []
    for key, kind in ((EMOTIONS, "emotion"), (ADDITIONAL, "x-risu-asset")):
        pairs = character.pop(key, None)
        if pairs is None:
            continue
        kept = []
        for pair in pairs if isinstance(pairs, list) else []:
            blob = pair[1] if isinstance(pair, list) and len(pair) >= 2 else None
            if not isinstance(blob, bytes) or not isinstance(pair[0], str):
                kept.append(pair)  # not an image record we understand: stays in the character
                continue
            uri = f"__asset:{first_index + len(uris)}"
            uris[uri] = blob
            assets.append({"type": kind, "uri": uri, "name": pair[0], "ext": sniff_image(blob) or "png"})
        if kept or not isinstance(pairs, list):
            character[key] = kept if isinstance(pairs, list) else pairs
            notes.append(f"{location}: {key} entries that are not [name, image bytes] stay in the Risu character")
    if character.get("globalLore") == []:
        del character["globalLore"]  # no lorebook: not an empty character_book
    character = _without_bytes(character, "", notes, location)
    card = card_from_risu_character(character)
    raw_card = card.dump()
    if assets:
        raw_card["data"]["assets"] = assets
    return LegacyCharacter(Card.model_validate(raw_card), uris, notes)


def _unpack(raw: bytes, limits: Limits, location: str) -> dict[str, Any]:
    try:
        packed = binascii.a2b_base64(raw)
    except binascii.Error as exc:
        raise CorruptInputError(f"risuai chunk is not valid base64 ({exc})", location=location) from None
    if len(packed) > limits.max_text_bytes:
        raise LimitExceededError(
            f"risuai chunk holds {len(packed)} bytes, over the {limits.max_text_bytes}-byte text limit",
            location=location,
        )
    try:
        value = msgpack.unpackb(packed, raw=False, strict_map_key=False)
    except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError, TypeError) as exc:
        raise CorruptInputError(f"risuai chunk is not valid msgpack ({exc})", location=location) from None
    _check_depth(value, limits.max_json_depth, location)
    if not isinstance(value, dict) or value.get("type") != LEGACY_TYPE or not isinstance(value.get("data"), dict):
        raise InvalidCardError("risuai chunk is not a Risu character export (type 101)", location=location)
    return value["data"]


def _check_depth(value: Any, limit: int, location: str) -> None:
    """Iterative nesting check (msgpack's own stack is deeper than a JSON card may be)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            raise LimitExceededError(f"risuai chunk nests deeper than {limit} levels", location=location)
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)


def _without_bytes(value: Any, path: str, notes: list[str], location: str) -> Any:
    """JSON has no bytes: binary values other than images are named and left out (None)."""
    if isinstance(value, bytes):
        notes.append(f"{location}: {path or 'character'} holds {len(value)} bytes of binary data; not carried")
        return None
    if isinstance(value, dict):
        return {str(k): _without_bytes(v, f"{path}.{k}" if path else str(k), notes, location) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_bytes(v, f"{path}[{i}]", notes, location) for i, v in enumerate(value)]
    return value
