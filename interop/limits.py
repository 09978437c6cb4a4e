"""Size limits applied to untrusted input. Defaults are generous for real cards
(the largest real CHARX files carry tens of MB of assets) and small enough to
stop decompression bombs and absurd nesting."""

from __future__ import annotations

import sys
from dataclasses import dataclass

MiB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    max_file_bytes: int = 512 * MiB
    """Largest input file read at all."""
    max_chunk_bytes: int = 128 * MiB
    """Largest single PNG chunk."""
    max_text_bytes: int = 64 * MiB
    """Largest inflated zTXt/iTXt payload or card JSON text."""
    max_inflated_total: int = 128 * MiB
    """Sum of the inflated sizes of all compressed PNG text chunks of one file (two max-size card chunks)."""
    max_member_bytes: int = 256 * MiB
    """Largest uncompressed zip member."""
    max_total_uncompressed: int = 1024 * MiB
    """Sum of uncompressed sizes of all zip members."""
    max_compression_ratio: float = 200.0
    """Uncompressed/compressed ratio above which a zip member is a bomb (only checked past 1 MiB)."""
    max_zip_entries: int = 20_000
    max_json_depth: int = 256
    """Deepest nesting of JSON arrays/objects accepted."""
    max_entries: int = 10_000
    """Most lorebook entries in one book: a few KB compressed can hold enough to cost minutes of work."""


DEFAULT_LIMITS = Limits()


def int_digits_limit() -> int:
    """Python's limit on int <-> decimal text conversions (4,300 digits unless changed): past it
    ``int()`` raises ValueError (CVE-2020-10735 guard), which readers turn into LimitExceededError."""
    return sys.get_int_max_str_digits() or 4300
