"""Independent PNG byte builders for tests (deliberately not the module under test)."""

from __future__ import annotations

import io
import struct
import zlib

from PIL import Image

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def chunk(kind: bytes, body: bytes) -> bytes:
    """One chunk: length, type, body, CRC."""
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def solid_png(size: tuple[int, int], color: tuple[int, int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, format="PNG")
    return out.getvalue()


def split(png: bytes) -> list[bytes]:
    """Raw chunks of a well-formed PNG, found without the walker under test."""
    out, pos = [], 8
    while pos < len(png):
        (length,) = struct.unpack_from(">I", png, pos)
        out.append(png[pos : pos + 12 + length])
        pos += 12 + length
    return out


def with_chunks(png: bytes, *extra: bytes) -> bytes:
    """``png`` with ``extra`` chunks inserted just before IEND."""
    parts = split(png)
    return PNG_SIGNATURE + b"".join(parts[:-1]) + b"".join(extra) + parts[-1]
