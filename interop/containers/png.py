"""PNG/APNG chunk walker and text-chunk splicer. Pixels are never decoded.

A PNG is an 8-byte signature followed by chunks: a 4-byte big-endian length
(at most 2**31-1), a 4-letter type, the data and a CRC-32 of type + data.
Cards live in text chunks (``tEXt``, ``zTXt``, ``iTXt``); everything else
(``IHDR``, ``IDAT``, APNG ``acTL``/``fcTL``/``fdAT``, ``iCCP``, foreign text)
is copied byte for byte when the card chunks are replaced.

Tolerance policy (apps write sloppy PNGs, a card must still load):

* CRCs are not checked while walking: hashing every ``IDAT`` would cost more
  than reading the card. ``Chunk.crc_ok`` checks on demand; the card reader
  checks the text chunk it actually uses and reports a mismatch as a warning
  (the payload is still validated as base64 + JSON). The splicer copies other
  chunks verbatim, bad CRC included, since it never re-encodes anything.
* A malformed chunk header (type not four ASCII letters, length past the end
  or over 2**31-1) is resynchronised: the walker searches forward for the next
  header of a known chunk type whose CRC matches and resumes there, recording
  the skipped byte count in ``Chunk.gap_before`` (the bytes hashed while
  searching are capped at twice the file size, so fake headers cannot make
  this quadratic). RisuAI's stream writer can
  produce such a stream (it copies a foreign ``tEXt`` chunk without its first
  bytes, ``risu.md`` 4.4). Without a valid chunk further on the file is
  really truncated and ``CorruptInputError`` is raised. ``strict=True``
  disables the resync.
* A missing ``IEND`` is accepted when the data ends on a chunk boundary;
  bytes after ``IEND`` are not walked, and the splicer keeps them.

Errors carry the location ``chunk #N <type> at offset X`` (``#0`` is the
first chunk after the signature, normally ``IHDR``).
"""

from __future__ import annotations

import re
import struct
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

from ..errors import ConversionError, CorruptInputError, LimitExceededError
from ..limits import DEFAULT_LIMITS, Limits

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
TEXT_TYPES = ("tEXt", "zTXt", "iTXt")
TextKind = Literal["tEXt", "zTXt", "iTXt"]

_MAX_LENGTH = 0x7FFFFFFF
_KINDS = {k.encode(): k for k in ("IHDR", "PLTE", "IDAT", "IEND", "tEXt", "zTXt", "iTXt", "acTL", "fcTL", "fdAT")}
_MAX_KEYWORD = 79
_HEADER = struct.Struct(">I4s")
_UINT = struct.Struct(">I")
# Chunk types a resync may land on: the standard ones plus APNG's.
_RESYNC = re.compile(
    rb"IHDR|PLTE|IDAT|IEND|tEXt|zTXt|iTXt|tRNS|gAMA|cHRM|sRGB|iCCP|sBIT|bKGD|hIST|pHYs|sPLT|tIME|eXIf|"
    rb"acTL|fcTL|fdAT|cICP|mDCv|cLLi"
)


# The records below are plain slotted dataclasses, not frozen ones: a frozen
# dataclass costs ~0.5 us per instance, which is a tenth of the budget for
# reading a typical card. Treat them as read-only.


@dataclass(slots=True, eq=False)
class Chunk:
    """One chunk. ``data`` and ``crc`` are read from the file buffer on access (zero copy)."""

    type: str
    offset: int
    """Offset of the chunk's length field in the file."""
    length: int
    index: int
    buffer: memoryview
    """The whole file."""
    gap_before: int = 0
    """Malformed bytes skipped by a resync right before this chunk (0 normally)."""

    @property
    def data(self) -> memoryview:
        start = self.offset + 8
        return self.buffer[start : start + self.length]

    @property
    def crc(self) -> int:
        """The CRC stored in the file (not verified while walking)."""
        return _UINT.unpack_from(self.buffer, self.offset + 8 + self.length)[0]

    @property
    def end(self) -> int:
        """Offset just past the CRC."""
        return self.offset + 12 + self.length

    @property
    def crc_ok(self) -> bool:
        return zlib.crc32(self.data, zlib.crc32(self.type.encode("latin-1"))) == self.crc

    @property
    def location(self) -> str:
        return _location(self.index, self.type, self.offset)


@dataclass(slots=True, eq=False)
class InflateBudget:
    """Bytes the compressed text chunks of one file may still inflate to (``Limits.max_inflated_total``).

    Each chunk is bounded by ``max_text_bytes`` alone, so 30 near-limit zTXt
    card chunks would each be inflated (and tried as a card) in turn: seconds
    of CPU for a 2 MB file. A chunk is charged once, however often it is read.
    """

    remaining: int
    charged: set[int]

    @classmethod
    def of(cls, limits: Limits) -> InflateBudget:
        return cls(limits.max_inflated_total, set())


@dataclass(slots=True)
class TextChunk:
    """A ``tEXt``/``zTXt``/``iTXt`` chunk. The value is decoded only when asked for."""

    keyword: str
    kind: TextKind
    index: int
    """Position of the chunk in the file (``Chunk.index``)."""
    chunk: Chunk
    raw: memoryview
    """The value as stored (still compressed for ``zTXt`` and compressed ``iTXt``)."""
    compressed: bool
    limits: Limits = DEFAULT_LIMITS
    budget: InflateBudget | None = None
    """Shared by the text chunks of one scan; None: a fresh budget per chunk."""

    @property
    def location(self) -> str:
        return f"{self.chunk.location} ({self.keyword!r})"

    @property
    def crc_ok(self) -> bool:
        return self.chunk.crc_ok

    def payload(self) -> bytes:
        """The value bytes, inflated if compressed: latin-1 text for tEXt/zTXt, UTF-8 for iTXt.

        Raises LimitExceededError when inflating past ``Limits.max_text_bytes``,
        CorruptInputError on a broken zlib stream.
        """
        if not self.compressed:
            if len(self.raw) > self.limits.max_text_bytes:
                raise LimitExceededError(
                    f"text of {len(self.raw)} bytes exceeds the limit of {self.limits.max_text_bytes}",
                    location=self.location,
                )
            return self.raw.tobytes()
        budget = self.budget if self.budget is not None else InflateBudget.of(self.limits)
        if self.index in budget.charged:
            return _inflate(self.raw, self.limits.max_text_bytes, self.location)
        if budget.remaining < self.limits.max_text_bytes:
            out = _inflate(self.raw, budget.remaining, self.location, total=self.limits.max_inflated_total)
        else:
            out = _inflate(self.raw, self.limits.max_text_bytes, self.location)
        budget.remaining -= len(out)
        budget.charged.add(self.index)
        return out

    @property
    def text(self) -> str:
        """The value as a string (latin-1 per the PNG spec for tEXt/zTXt, UTF-8 for iTXt)."""
        value = self.payload()
        if self.kind != "iTXt":
            return value.decode("latin-1")
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CorruptInputError(f"iTXt text is not valid UTF-8 ({exc.reason})", location=self.location) from None


@dataclass(slots=True)
class PngScan:
    """One walk over a PNG: every chunk in order, the text chunks, where the trailing bytes start."""

    chunks: list[Chunk]
    texts: list[TextChunk]
    end: int
    """Offset just past IEND (or the data length when IEND is missing)."""
    has_iend: bool


def _location(index: int, kind: str, offset: int) -> str:
    return f"chunk #{index} {kind} at offset {offset}"


def is_png(data: bytes | bytearray | memoryview) -> bool:
    return bytes(data[:8]) == PNG_SIGNATURE


def _check_signature(data: bytes, file: str | None) -> None:
    if len(data) < 8 or data[:8] != PNG_SIGNATURE:
        reason = "file too short to be a PNG" if len(data) < 8 else "not a PNG file (bad signature)"
        raise CorruptInputError(reason, file=file, location="signature at offset 0")


def _as_bytes(data: bytes | bytearray | memoryview) -> bytes:
    return data if isinstance(data, bytes) else bytes(data)


def iter_chunks(
    data: bytes | bytearray | memoryview,
    limits: Limits = DEFAULT_LIMITS,
    *,
    strict: bool = False,
    file: str | None = None,
) -> Iterator[Chunk]:
    """Yield every chunk up to and including ``IEND``. See the module docstring for the tolerance rules.

    Raises CorruptInputError (bad signature, truncated or unrecoverable chunk)
    and LimitExceededError (a chunk larger than ``limits.max_chunk_bytes``).
    """
    yield from _walk(_as_bytes(data), limits, strict, file)


def _walk(data: bytes, limits: Limits, strict: bool, file: str | None) -> list[Chunk]:
    """The chunk loop behind ``iter_chunks`` and ``scan`` (a list: cheaper than a generator per chunk)."""
    _check_signature(data, file)
    view = memoryview(data)
    size = len(data)
    pos = 8
    index = 0
    gap = 0
    max_chunk = limits.max_chunk_bytes
    unpack = _HEADER.unpack_from
    budget = [2 * size + 65536]  # bytes a resync may hash in this walk
    chunks: list[Chunk] = []
    append = chunks.append
    while pos < size:
        if size - pos < 12:
            raise CorruptInputError(
                f"truncated chunk: {size - pos} bytes left, a chunk needs at least 12",
                file=file,
                location=_location(index, "?", pos),
            )
        length, raw_type = unpack(data, pos)
        end = pos + 12 + length
        if end > size or length > _MAX_LENGTH or not raw_type.isalpha():
            resumed = None if strict else _resync(data, pos + 1, limits, budget)
            if resumed is None:
                raise _bad_header(data, pos, index, file)
            gap += resumed - pos
            pos = resumed
            continue
        kind = _KINDS.get(raw_type) or raw_type.decode("ascii")
        if length > max_chunk:
            raise LimitExceededError(
                f"chunk of {length} bytes exceeds the limit of {max_chunk}",
                file=file,
                location=_location(index, kind, pos),
            )
        append(Chunk(kind, pos, length, index, view, gap))
        gap = 0
        index += 1
        pos = end
        if kind == "IEND":
            break
    return chunks


def _bad_header(data: bytes, pos: int, index: int, file: str | None) -> CorruptInputError:
    length, raw_type = _HEADER.unpack_from(data, pos)
    kind = raw_type.decode("latin-1") if raw_type.isalpha() else "?"
    if kind == "?":
        reason = f"invalid chunk type {raw_type!r}"
    elif length > _MAX_LENGTH:
        reason = f"chunk length {length} over the PNG maximum of 2**31-1"
    else:
        reason = f"chunk length {length} runs past the end of the file ({len(data) - pos - 12} bytes left)"
    return CorruptInputError(reason, file=file, location=_location(index, kind, pos))


def _resync(data: bytes, start: int, limits: Limits, budget: list[int]) -> int | None:
    """Offset of the next well-formed chunk (known type, fits, CRC matches) at or after ``start``.

    ``budget`` holds the bytes the walk may still hash: a crafted file full of
    fake chunk headers must not make resyncing quadratic.
    """
    size = len(data)
    view = memoryview(data)
    for match in _RESYNC.finditer(data, start + 4):
        offset = match.start() - 4
        length = _UINT.unpack_from(data, offset)[0]
        end = offset + 12 + length
        if length > limits.max_chunk_bytes or end > size:
            continue
        budget[0] -= length
        if budget[0] < 0:
            return None
        if zlib.crc32(view[offset + 4 : end - 4]) == _UINT.unpack_from(data, end - 4)[0]:
            return offset
    return None


def _text_chunk(data: bytes, chunk: Chunk, limits: Limits, budget: InflateBudget | None = None) -> TextChunk | None:
    """Parse the header of a text chunk; None when it has no keyword terminator (kept, never read)."""
    start = chunk.offset + 8
    stop = start + chunk.length
    nul = data.find(b"\0", start, min(stop, start + _MAX_KEYWORD + 1))
    if nul <= start:
        return None
    keyword = data[start:nul].decode("latin-1")
    view = chunk.data
    rel = nul - start + 1
    kind = chunk.type
    if kind == "tEXt":
        return TextChunk(keyword, "tEXt", chunk.index, chunk, view[rel:], False, limits, budget)
    if kind == "zTXt":
        return TextChunk(keyword, "zTXt", chunk.index, chunk, view[rel + 1 :], True, limits, budget)
    # iTXt: compression flag, method, language tag\0, translated keyword\0, text
    if stop - nul < 3:
        return None
    flag = data[nul + 1]
    lang_end = data.find(b"\0", nul + 3, stop)
    if lang_end < 0:
        return None
    trans_end = data.find(b"\0", lang_end + 1, stop)
    if trans_end < 0:
        return None
    return TextChunk(keyword, "iTXt", chunk.index, chunk, view[trans_end + 1 - start :], flag == 1, limits, budget)


def scan(
    data: bytes | bytearray | memoryview,
    limits: Limits = DEFAULT_LIMITS,
    *,
    strict: bool = False,
    file: str | None = None,
    chunks: list[Chunk] | None = None,
) -> PngScan:
    """Walk the whole chunk stream once: chunks in order plus the parsed text-chunk headers.

    ``chunks``: the walk of this very ``data`` under these ``limits`` made already (``Probe.png``, whose
    detectors walked it): only the text headers are parsed again, with a fresh inflate budget."""
    data = _as_bytes(data)
    if chunks is None:
        chunks = _walk(data, limits, strict, file)
    texts: list[TextChunk] = []
    budget = InflateBudget.of(limits)
    for chunk in chunks:
        if chunk.type in TEXT_TYPES:
            text = _text_chunk(data, chunk, limits, budget)
            if text is not None:
                texts.append(text)
    has_iend = bool(chunks) and chunks[-1].type == "IEND"
    end = chunks[-1].end if has_iend else len(data)
    return PngScan(chunks, texts, end, has_iend)


def text_chunks(
    data: bytes | bytearray | memoryview,
    limits: Limits = DEFAULT_LIMITS,
    *,
    strict: bool = False,
    file: str | None = None,
) -> list[TextChunk]:
    """Every tEXt/zTXt/iTXt chunk in file order; values are decoded lazily (``.text``, ``.payload()``)."""
    return scan(data, limits, strict=strict, file=file).texts


def find_text(chunks: list[TextChunk], keyword: str) -> list[TextChunk]:
    """The chunks whose keyword matches ``keyword`` case-insensitively (card keys: chara, Chara, ccv3)."""
    wanted = keyword.lower()
    return [c for c in chunks if c.keyword.lower() == wanted]


def _inflate(raw: memoryview, limit: int, location: str, *, total: int | None = None) -> bytes:
    """Inflate at most ``limit`` bytes; ``total``: the limit is what is left of the file's budget of ``total``."""
    decompressor = zlib.decompressobj()
    try:
        out = decompressor.decompress(raw, limit + 1)
    except zlib.error as exc:
        raise CorruptInputError(f"bad zlib stream ({exc})", location=location) from None
    if len(out) > limit:
        if total is not None:
            raise LimitExceededError(
                f"compressed text chunks of this file inflate to more than {total} bytes in all "
                "(limit max_inflated_total)",
                location=location,
            )
        raise LimitExceededError(f"inflated text exceeds the limit of {limit} bytes", location=location)
    if not decompressor.eof:
        raise CorruptInputError("truncated zlib stream", location=location)
    return out


def make_chunk(kind: str, data: bytes) -> bytes:
    """A complete chunk (length, type, data, CRC)."""
    raw_type = kind.encode("ascii")
    if len(raw_type) != 4 or not raw_type.isalpha():
        raise ConversionError(f"invalid PNG chunk type {kind!r}")
    return _UINT.pack(len(data)) + raw_type + data + _UINT.pack(zlib.crc32(data, zlib.crc32(raw_type)))


def make_text_chunk(keyword: str, text: str) -> bytes:
    """A ``tEXt`` chunk. Both parts must be latin-1 (card payloads are base64 ASCII)."""
    try:
        key = keyword.encode("latin-1")
        value = text.encode("latin-1")
    except UnicodeEncodeError:
        raise ConversionError(f"tEXt keyword/text must be latin-1: {keyword!r}") from None
    if not 1 <= len(key) <= _MAX_KEYWORD or b"\0" in key:
        raise ConversionError(f"invalid tEXt keyword {keyword!r} (1-79 latin-1 characters, no NUL)")
    if b"\0" in value:
        raise ConversionError(f"tEXt text for {keyword!r} contains a NUL byte")
    return make_chunk("tEXt", key + b"\0" + value)


def splice_text_chunks(
    png: bytes | bytearray | memoryview,
    new_chunks: list[tuple[str, str]],
    remove: Callable[[str], bool],
    *,
    limits: Limits = DEFAULT_LIMITS,
    file: str | None = None,
) -> bytes:
    """Drop the text chunks (all three kinds) whose keyword ``remove`` accepts, add ``tEXt`` chunks before IEND.

    Every other chunk is copied byte for byte and in order; the image is never
    re-encoded. Bytes skipped by a resync are dropped (that repairs the
    stream); bytes after IEND are kept. A missing IEND is added.
    """
    data = _as_bytes(png)
    found = scan(data, limits, file=file)
    dropped = {t.index for t in found.texts if remove(t.keyword)}
    inserted = b"".join(make_text_chunk(k, v) for k, v in new_chunks)
    view = memoryview(data)
    pieces: list[bytes | memoryview] = []
    run_start = 0  # start of the current run of bytes copied verbatim
    run_end = 8
    for chunk in found.chunks:
        if chunk.index in dropped or chunk.gap_before or chunk.type == "IEND":
            pieces.append(view[run_start:run_end])
            run_start = chunk.offset
            if chunk.type == "IEND":
                pieces.append(inserted)
            elif chunk.index in dropped:
                run_start = chunk.end
        run_end = chunk.end
    pieces.append(view[run_start:run_end])
    if not found.has_iend:
        pieces.append(inserted)
        pieces.append(make_chunk("IEND", b""))
    pieces.append(view[found.end :])
    return b"".join(pieces)


# --- card chunk keywords (every app's PNG card uses these names) ---------------

CARD_KEYS = ("ccv3", "chara")  # preference order
ASSET_PREFIXES = ("chara-ext-asset_:", "chara-ext-asset_")


def is_card_keyword(keyword: str) -> bool:
    return keyword.lower() in CARD_KEYS


def asset_name(keyword: str) -> str | None:
    """``N`` for a ``chara-ext-asset_:N`` / ``chara-ext-asset_N`` keyword, else None."""
    lowered = keyword.lower()
    for prefix in ASSET_PREFIXES:
        if lowered.startswith(prefix) and len(keyword) > len(prefix):
            return keyword[len(prefix) :]
    return None


def is_stale_keyword(keyword: str) -> bool:
    """Chunks a card write replaces: the card itself and its embedded assets."""
    return is_card_keyword(keyword) or asset_name(keyword) is not None
