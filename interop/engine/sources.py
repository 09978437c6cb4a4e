"""Loading lorebook files for a profile: native files as they are, anything else through the reader.

A file already in the platform's native lorebook shape (``Platform.native_book_kind``:
an ST world, a Risu ``type:risu`` export or entry list, an Agnai ``kind:memory``
book) is evaluated exactly as read. Any other file goes through the registry's
detectors and readers into the canonical model, and the profile converts it with
the platform adapter, as a migration would. Both paths parse the bytes once, with
the reader's size limits (one ``Probe``).
"""

from __future__ import annotations

from pathlib import Path, PurePath
from typing import Any

from ..api import read_probe
from ..errors import ConversionError
from ..io import read_limited
from ..limits import DEFAULT_LIMITS, Limits
from ..platform.registry import Platform, Probe, all_platforms, check_size
from .platform_profiles import find_profile


def native_platform(obj: Any) -> Platform | None:
    """The platform whose native lorebook shape ``obj`` has, if any (first in platform order)."""
    for platform in all_platforms():
        if platform.native_book_kind is not None and platform.native_book_kind(obj):
            return platform
    return None


def native_kind(obj: Any) -> str | None:
    """The name of the platform whose native lorebook shape ``obj`` has, if any."""
    platform = native_platform(obj)
    return platform.name if platform is not None else None


def load_book(path: str | Path, platform: str) -> Any:
    """One lorebook file, ready for profile ``platform`` (a native object or a canonical Lorebook)."""
    path = Path(path)
    data = read_limited(path, DEFAULT_LIMITS.max_file_bytes)  # regular files only, bounded while read
    return book_from_bytes(data, str(path), platform)


def book_from_bytes(data: bytes, filename: str, platform: str, *, limits: Limits = DEFAULT_LIMITS) -> Any:
    """``load_book`` on bytes already in memory (``filename`` names the book when it has no name)."""
    stem = PurePath(filename).stem
    check_size(data, filename, limits)
    probe = Probe(data, filename, limits)
    obj = probe.json
    native = native_platform(obj) if obj is not None else None
    if native is not None and native.profile is not None and native.profile is find_profile(platform):
        # already what the profile reads
        return (stem, obj)
    doc = read_probe(probe)
    book = doc.book
    if book is None:
        raise ConversionError("the file holds no lorebook", file=filename)
    if not (isinstance(book.name, str) and book.name):
        book = book.model_copy(update={"name": stem})
    return book


def load_books(paths: list[str] | list[Path], platform: str) -> list[Any]:
    return [load_book(p, platform) for p in paths]
