"""The one registry of formats: each format registers a detector, a reader and a writer.

A format module calls ``register(Format(...))`` at import time; ``interop.formats``
imports every format module once. Adding a platform means adding one module
here, one mapping table in ``mappings/`` and one test file.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from ..document import Document, Kind
from ..errors import CorruptInputError, InteropError, LimitExceededError
from ..jsonio import load_json
from ..limits import DEFAULT_LIMITS, Limits


class Probe:
    """Lazy views of an input for detectors, computed once and shared by all of them."""

    def __init__(self, data: bytes, filename: str | None = None, limits: Limits = DEFAULT_LIMITS) -> None:
        self.data = data
        self.filename = filename
        self.limits = limits

    @property
    def suffix(self) -> str:
        return PurePath(self.filename).suffix.lower() if self.filename else ""

    json_error: InteropError | None = None
    """Why input that looks like JSON did not parse (reported when no format claims it)."""

    @functools.cached_property
    def json(self) -> Any:
        """The parsed JSON if the input is JSON text, else None."""
        head = self.data[:64].lstrip(b"\xef\xbb\xbf \t\r\n")
        if head[:1] not in (b"{", b"["):
            return None
        try:
            return load_json(self.data, file=self.filename, limits=self.limits)
        except InteropError as exc:
            self.json_error = exc
            return None

    @property
    def json_object(self) -> dict[str, Any] | None:
        value = self.json
        return value if isinstance(value, dict) else None


@dataclass
class ReadContext:
    filename: str | None = None
    limits: Limits = DEFAULT_LIMITS
    probe: Probe | None = None  # reuse the detector's parse

    def json(self, data: bytes) -> Any:
        if self.probe is not None and self.probe.data is data and self.probe.json is not None:
            return self.probe.json
        return load_json(data, file=self.filename, limits=self.limits)


@dataclass
class WriteContext:
    """Options for writers. ``image`` overrides the picture a PNG card is written into."""

    image: bytes | None = None
    pretty: bool = True
    options: dict[str, Any] = field(default_factory=dict)


Detector = Callable[[Probe], int]
"""Returns a confidence: 0 = not this format, higher wins (100 = certain by content)."""
Reader = Callable[[bytes, ReadContext], Document]
Writer = Callable[[Document, WriteContext], bytes]
Describer = Callable[[Document], dict[str, Any]]


@dataclass(frozen=True)
class Format:
    name: str
    kind: Kind
    title: str
    suffix: str
    platform: str
    detect: Detector | None = None
    read: Reader | None = None
    write: Writer | None = None
    describe: Describer | None = None
    """Platform-specific facts for ``interop inspect``."""
    aliases: tuple[str, ...] = ()


_FORMATS: dict[str, Format] = {}
_ALIASES: dict[str, str] = {}


def register(fmt: Format) -> Format:
    if fmt.name in _FORMATS:
        raise ValueError(f"format {fmt.name!r} registered twice")
    _FORMATS[fmt.name] = fmt
    for alias in fmt.aliases:
        _ALIASES[alias] = fmt.name
    return fmt


def get_format(name: str) -> Format:
    from . import load_all

    load_all()
    key = _ALIASES.get(name, name)
    if key not in _FORMATS:
        raise KeyError(name)
    return _FORMATS[key]


def all_formats() -> list[Format]:
    from . import load_all

    load_all()
    return list(_FORMATS.values())


def writable_formats() -> list[Format]:
    return [f for f in all_formats() if f.write is not None]


def readable_formats() -> list[Format]:
    return [f for f in all_formats() if f.read is not None]


def check_size(data: bytes, filename: str | None, limits: Limits) -> None:
    if len(data) > limits.max_file_bytes:
        raise LimitExceededError(
            f"file of {len(data)} bytes exceeds the limit of {limits.max_file_bytes}", file=filename
        )
    if not data:
        raise CorruptInputError("file is empty", file=filename)
