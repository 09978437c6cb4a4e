"""RPack: the byte substitution RisuAI applies to ``.risum`` module payloads.

RPack maps every byte through one fixed 256-entry permutation; it does not
depend on position and keeps the length (risu.md 2.3). The encode table below
is format data (``shared/reference/rpack-encode-table.hex``, SHA-256
``RPACK_TABLE_SHA256`` over its 256 bytes); decoding uses its inverse. Both
directions are a single ``bytes.translate`` call.
"""

from __future__ import annotations

import hashlib

RPACK_TABLE_SHA256 = "2d880e6ead42e267fd55b03cb961491c21576ceba38eb09ea71906e0ef1b3af9"

ENCODE_TABLE = bytes.fromhex(
    "c40d1e0bbd2b3f55fc456ef566534f1ae0bb309486ba6bbf41506f9befdeb710"
    "611720df3289a89d6dabc990000c5dafd2c156e516649182657497ca23d652d1"
    "ffb4a0e82f8a58385a60199649dbd7c83b3e434ba56347aa6a2992f415cf6234"
    "78d31d3ce2058e2a570e1bcd4c2df2402c2579480fb27ab5a76c37e69c7b547e"
    "fe87dc9a02e433a2ebb12e03dd99a6b0e7d58818837cf6bee15c9fc321461f08"
    "4ed076125feefd8f44eaa35e8b2809359e69cc0ac78507ad4af377e967d4da84"
    "8093b64d73fa27267f04c6fbf1723951c236a968acf8edc5b9cbce75a43d81d9"
    "42701c9511bcd88c98f959a113f7147db3ec71c0e38df001ae5b310624223ab8"
)


def _inverse(table: bytes) -> bytes:
    inverse = bytearray(256)
    for plain, packed in enumerate(table):
        inverse[packed] = plain
    return bytes(inverse)


DECODE_TABLE = _inverse(ENCODE_TABLE)


def table_digest() -> str:
    """SHA-256 of the embedded encode table (tests compare it with risu.md)."""
    return hashlib.sha256(ENCODE_TABLE).hexdigest()


def encode(data: bytes) -> bytes:
    """RPack-encode ``data`` (same length)."""
    return data.translate(ENCODE_TABLE)


def decode(data: bytes) -> bytes:
    """Undo ``encode`` (same length)."""
    return data.translate(DECODE_TABLE)
