"""The library entry points: detect, read, write."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

from .document import Document, Kind
from .errors import FormatError, InteropError, LimitExceededError, UnknownFormatError
from .findings import Journal, recording
from .io import read_limited
from .limits import DEFAULT_LIMITS, Limits
from .model.entry_limit import reading
from .platform.registry import Format, Probe, ReadContext, WriteContext, all_formats, check_size, get_format


@dataclass(frozen=True)
class Detection:
    format: str
    kind: Kind
    confidence: int


def detect_all(data: bytes, filename: str | None = None, *, limits: Limits = DEFAULT_LIMITS) -> list[Detection]:
    """Every format that claims the input, best first. Detection is by content only."""
    probe = Probe(data, filename, limits)
    return _detect(probe)


def _detect(probe: Probe) -> list[Detection]:
    found = []
    for fmt in all_formats():
        if fmt.detect is None:
            continue
        try:
            score = fmt.detect(probe)
        except InteropError:
            score = 0
        if score > 0:
            found.append(Detection(fmt.name, fmt.kind, score))
    found.sort(key=lambda d: -d.confidence)
    return found


_Plan = tuple[tuple[float, int, Format], ...]
_plan: tuple[tuple[Format, ...], _Plan] = ((), ())
"""The formats ``best_format`` last planned for and the plan (replaced whole: threads see either)."""


def _detection_plan(formats: list[Format]) -> _Plan:
    """``(bound, position, format)`` of each format that detects: those whose bound is not said
    first, then by bound, highest first; equal bounds in ``all_formats`` order (which breaks ties)."""
    global _plan
    key = tuple(formats)
    if key != _plan[0]:  # compared by identity, item by item: cheap while the registry is unchanged
        ranked = [
            (math.inf if fmt.detect_max is None else fmt.detect_max, position, fmt)
            for position, fmt in enumerate(formats)
            if fmt.detect is not None
        ]
        ranked.sort(key=lambda r: (-r[0], r[1]))
        _plan = (key, tuple(ranked))
    return _plan[1]


def best_format(probe: Probe) -> str | None:
    """``_detect(probe)[0].format`` (None when no format claims the input), asking only the detectors
    that could still win: the highest confidence wins, and of equal ones the first in ``all_formats``
    order. A detector is asked in ``_detection_plan`` order until none left could beat the best
    claim by its ``Format.detect_max``: a usual card is put to 5 detectors of 28, not all."""
    best: Format | None = None
    best_score: float = 0
    best_position = 0
    for bound, position, fmt in _detection_plan(all_formats()):
        if best is not None and (bound < best_score or (bound == best_score and position > best_position)):
            break  # the rest are bounded lower, or as high but later in order
        try:
            score = fmt.detect(probe)  # type: ignore[misc]  # the plan holds formats that detect
        except InteropError:
            continue
        if score > best_score or (best is not None and score == best_score and position < best_position):
            best, best_score, best_position = fmt, score, position
    return best.name if best is not None else None


def detect(data: bytes, filename: str | None = None, *, limits: Limits = DEFAULT_LIMITS) -> str:
    """Name the format of ``data`` (``"ccv3"``, ``"png"``, ``"sillytavern-world"``, ...).

    Raises UnknownFormatError when no format recognises it.
    """
    found = best_format(Probe(data, filename, limits))
    if found is None:
        raise UnknownFormatError(_unknown_reason(data), file=filename)
    return found


def _unknown_reason(data: bytes) -> str:
    head = data[:8]
    if head.startswith(b"\x89PNG"):
        return "PNG file carries no character card (no chara/ccv3/naidata text chunk)"
    if head.startswith(b"PK") or head.startswith(b"\xff\xd8"):
        return "archive/JPEG is not a CHARX card (no card.json)"
    stripped = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if stripped in (b"{", b"["):
        return "JSON does not match any known card, lorebook or chat format"
    return "not a known card, lorebook or chat format"


def read_bytes(
    data: bytes,
    *,
    filename: str | None = None,
    format: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> Document:
    """Read ``data`` into a Document, detecting the format unless ``format`` is given."""
    return read_probe(Probe(data, filename, limits), format=format)


def read_probe(probe: Probe, *, format: str | None = None) -> Document:
    """``read_bytes`` on a ``Probe`` a caller already made (its JSON parse is reused, not repeated)."""
    data, filename, limits = probe.data, probe.filename, probe.limits
    check_size(data, filename, limits)
    if format is None:
        format = best_format(probe)
        if format is None:
            if probe.json_error is not None:
                raise probe.json_error  # JSON that does not parse: say where, not just "unknown"
            raise UnknownFormatError(_unknown_reason(data), file=filename)
    try:
        fmt = get_format(format)
    except KeyError:
        raise FormatError(f"unknown format {format!r}", file=filename) from None
    if fmt.read is None:
        raise FormatError(f"format {fmt.name!r} cannot be read", file=filename)
    ctx = ReadContext(filename=filename, limits=limits, probe=probe)
    try:
        with reading(limits):  # Limits.max_entries for every lorebook the reader builds
            doc = fmt.read(data, ctx)
    except InteropError as exc:
        raise exc.with_file(filename) from exc.__cause__
    except RecursionError:
        raise LimitExceededError("input nested too deeply", file=filename) from None
    doc.source = doc.source or filename
    return doc


def read(
    source: str | os.PathLike[str] | bytes,
    *,
    format: str | None = None,
    filename: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> Document:
    """Read a file path (or bytes) into a Document."""
    if isinstance(source, bytes):
        return read_bytes(source, filename=filename, format=format, limits=limits)
    path = Path(source)
    data = read_limited(path, limits.max_file_bytes)  # regular files only, bounded by the limit
    return read_bytes(data, filename=filename or str(path), format=format, limits=limits)


def writable_format(name: str) -> Format:
    """The registered format ``name`` if it can be written; FormatError otherwise."""
    try:
        fmt = get_format(name)
    except KeyError:
        raise FormatError(f"unknown target format {name!r}") from None
    if fmt.write is None:
        raise FormatError(f"format {fmt.name!r} cannot be written")
    return fmt


def write(doc: Document, format: str, *, image: bytes | None = None, pretty: bool = True, **options: object) -> bytes:
    """Serialize ``doc`` as ``format``. Raises FormatError / ConversionError."""
    fmt = writable_format(format)
    ctx = WriteContext(image=image, pretty=pretty, options=dict(options))
    return fmt.write(doc, ctx)


@dataclass(frozen=True)
class Written:
    """A writer's output and what it recorded while writing it (``interop.findings``)."""

    data: bytes
    journal: Journal


def write_with_journal(
    doc: Document, format: str, *, image: bytes | None = None, pretty: bool = True, **options: object
) -> Written:
    """``write`` and the journal of what the writer and its transforms translated, added or could not express."""
    with recording() as journal:
        data = write(doc, format, image=image, pretty=pretty, **options)
    return Written(data, journal)
