"""RisuAI ``.risum`` module files: the binary container, no lorebook semantics.

Layout (risu.md 2.3), all lengths u32 little-endian::

    0x6F (magic 111) | 0x00 (version) | len | RPack(JSON {"module": {...}, "type": "risuModule"})
    then per asset: 0x01 | len | RPack(asset bytes)      (same order as module.assets)
    then 0x00 (terminator)

``read_risum`` checks every length against the bytes that are really there and
raises a typed error naming the byte offset; ``write_risum`` is its inverse.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import CorruptInputError, FormatError, InvalidCardError, LimitExceededError
from ..jsonio import dumps_text, encode_json_text, load_json
from ..limits import DEFAULT_LIMITS, Limits
from . import rpack

MAGIC = 111
VERSION = 0
ASSET_MARK = 0x01
END_MARK = 0x00
MODULE_TYPE = "risuModule"
_U32 = struct.Struct("<I")


@dataclass
class RisumArchive:
    """A decoded module: the JSON text exactly as stored, its parsed form, and the asset payloads."""

    json_text: bytes
    payload: dict[str, Any]
    assets: list[bytes] = field(default_factory=list)
    trailing: bytes = b""  # bytes after the terminator (Risu ignores them)

    @property
    def module(self) -> dict[str, Any]:
        return self.payload["module"]


def looks_like_risum(data: bytes) -> bool:
    """Magic, version and a first length that fits the file: enough for detection."""
    if len(data) < 7 or data[0] != MAGIC or data[1] != VERSION:
        return False
    (length,) = _U32.unpack_from(data, 2)
    return 6 + length < len(data)


def _offset(pos: int) -> str:
    return f"offset {pos}"


def _read_u32(data: bytes, pos: int, what: str, filename: str | None) -> int:
    if pos + 4 > len(data):
        raise CorruptInputError(
            f"truncated {what}: needs 4 bytes, {len(data) - pos} left", file=filename, location=_offset(pos)
        )
    return _U32.unpack_from(data, pos)[0]


def _read_block(data: bytes, pos: int, what: str, filename: str | None, limits: Limits) -> tuple[bytes, int]:
    length = _read_u32(data, pos, f"{what} length", filename)
    start = pos + 4
    if start + length > len(data):
        raise CorruptInputError(
            f"{what} length {length} runs past the end of the file ({len(data) - start} bytes left)",
            file=filename,
            location=_offset(pos),
        )
    if length > limits.max_member_bytes:
        raise LimitExceededError(
            f"{what} of {length} bytes exceeds the limit of {limits.max_member_bytes}",
            file=filename,
            location=_offset(pos),
        )
    return data[start : start + length], start + length


def read_risum(data: bytes, *, limits: Limits = DEFAULT_LIMITS, filename: str | None = None) -> RisumArchive:
    """Decode a ``.risum`` file. Raises FormatError / CorruptInputError / InvalidCardError with the offset."""
    if not data or data[0] != MAGIC:
        found = f"0x{data[0]:02x}" if data else "an empty file"
        raise FormatError(f"not a RisuAI module: magic byte is {found}, expected 0x6f", file=filename,
                          location=_offset(0))
    if len(data) < 2:
        raise CorruptInputError("truncated header: no version byte", file=filename, location=_offset(1))
    if data[1] != VERSION:
        raise FormatError(f"unsupported RisuAI module version {data[1]} (only 0 is known)", file=filename,
                          location=_offset(1))
    packed, pos = _read_block(data, 2, "module JSON", filename, limits)
    if len(packed) > limits.max_text_bytes:
        raise LimitExceededError(
            f"module JSON of {len(packed)} bytes exceeds the limit of {limits.max_text_bytes}",
            file=filename,
            location=_offset(6),
        )
    json_text = rpack.decode(packed)
    payload = load_json(json_text, file=filename, location=f"{_offset(6)} (module JSON)", limits=limits)
    if not isinstance(payload, dict) or not isinstance(payload.get("module"), dict):
        raise InvalidCardError("module JSON has no 'module' object", file=filename, location=_offset(6))
    if payload.get("type") != MODULE_TYPE:
        raise InvalidCardError(
            f"module JSON type is {payload.get('type')!r}, expected {MODULE_TYPE!r}", file=filename,
            location=_offset(6)
        )
    assets: list[bytes] = []
    while True:
        if pos >= len(data):
            raise CorruptInputError("truncated module: missing the 0x00 terminator", file=filename,
                                    location=_offset(pos))
        mark = data[pos]
        if mark == END_MARK:
            break
        if mark != ASSET_MARK:
            raise CorruptInputError(f"unknown record marker 0x{mark:02x} (expected 0x01 or 0x00)",
                                    file=filename, location=_offset(pos))
        packed_asset, pos = _read_block(data, pos + 1, f"asset {len(assets)}", filename, limits)
        assets.append(rpack.decode(packed_asset))
    return RisumArchive(json_text=json_text, payload=payload, assets=assets, trailing=data[pos + 1 :])


def module_json_text(payload: dict[str, Any]) -> bytes:
    """The JSON text Risu writes: 2-space indent, UTF-8 (lone surrogates escaped, as JSON.stringify does)."""
    return encode_json_text(dumps_text(payload, ensure_ascii=False, indent=2))


def write_risum(payload: dict[str, Any] | bytes, assets: Sequence[bytes] = ()) -> bytes:
    """Encode a module. ``payload`` is the ``{"module":..., "type":"risuModule"}`` object or its exact JSON text."""
    text = payload if isinstance(payload, bytes) else module_json_text(payload)
    parts = [bytes((MAGIC, VERSION)), _U32.pack(len(text)), rpack.encode(text)]
    for asset in assets:
        parts += [bytes((ASSET_MARK,)), _U32.pack(len(asset)), rpack.encode(asset)]
    parts.append(bytes((END_MARK,)))
    return b"".join(parts)
