"""CHARX container: a zip archive with ``card.json`` at its root, optionally after a JPEG.

Bytes in, parts out; no card semantics. Reading is defensive because a CHARX
is untrusted input unpacked into memory:

* member paths must be relative, normalised, ``/``-separated and free of
  ``..``, drive letters, backslashes and control characters (zip-slip);
* symlinks and other special files, and encrypted members are refused;
* entry count, per-member size, total size and compression ratio are checked
  against ``Limits`` twice: on the sizes the central directory declares, and
  again while inflating, in bounded chunks, because declared sizes can lie;
* duplicate member names are refused (``UnsafeInputError``): readers disagree
  on which copy wins (zipfile takes the last, streaming readers such as Risu's
  the first), so a file with two ``card.json`` can show different cards to
  different apps, and a path-keyed mapping could not write both back;
* only STORED and DEFLATE members are read (what CHARX writers produce);
* directory entries and the zip comment are dropped and listed in ``notes``:
  folders are implicit in member paths, and no CHARX app reads the comment.

Risu's ``charxJpeg`` export is a JPEG with the zip appended unchanged, so the
zip's own offsets do not count the JPEG. ``zipfile`` finds the end-of-central-
directory record at the end and shifts every offset by the difference; the
bytes before the first local header are returned as ``prefix``.

Writing is deterministic: fixed timestamps and attributes, ``card.json``
first, members in the order given, so the same input gives the same bytes.
"""

from __future__ import annotations

import bisect
import io
import re
import stat
import struct
import zipfile
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ..errors import CorruptInputError, FormatError, InteropError, LimitExceededError, OutputError, UnsafeInputError
from ..limits import DEFAULT_LIMITS, Limits, MiB

CARD_JSON = "card.json"
ZIP_STORED = zipfile.ZIP_STORED
ZIP_DEFLATED = zipfile.ZIP_DEFLATED
# bzip2 and LZMA are refused: zipfile inflates them without an output bound
# (one small read can expand to gigabytes) and no CHARX writer uses them.
READABLE_METHODS = frozenset({zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED})
RATIO_FLOOR = MiB
"""The compression ratio is only judged past this many uncompressed bytes (tiny files compress absurdly well)."""

_CHUNK = 64 * 1024
_FIXED_DATE = (1980, 1, 1, 0, 0, 0)
_FILE_MODE = (stat.S_IFREG | 0o644) << 16
_UNIX = 3
_FLAG_ENCRYPTED = 0x1
_FLAG_STRONG_ENCRYPTION = 0x40
# What zipfile raises on malformed central directories (found by fuzzing, see tests).
_ZIP_ERRORS = (
    zipfile.LargeZipFile,
    NotImplementedError,  # "zip file version 6.4" from a flipped byte
    ValueError,
    OSError,
    EOFError,
    UnicodeError,
    IndexError,
    struct.error,
    OverflowError,
)
_DRIVE = re.compile(r"^[A-Za-z]:")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass
class CharxArchive:
    """The parts of a CHARX file.

    ``members`` holds every file member except ``card.json``, in zip order;
    ``order`` every file member name including ``card.json``; ``compression``
    the compress type of each (``zipfile.ZIP_STORED`` / ``ZIP_DEFLATED`` ...)
    so a write-back can mimic it; ``prefix`` the bytes before the zip (a JPEG
    for Risu's ``charxJpeg``, ``b""`` for a plain zip). ``notes`` lists
    harmless oddities that were not kept (directory entries, a zip comment).
    """

    card_raw: bytes
    members: dict[str, bytes]
    order: list[str]
    prefix: bytes = b""
    compression: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def check_member_name(name: str, *, file: str | None = None) -> None:
    """Raise UnsafeInputError unless ``name`` is a safe relative ``/``-separated path."""
    reason = _unsafe_reason(name)
    if reason:
        raise UnsafeInputError(f"unsafe member path: {reason}", file=file, location=_shown(name))


def is_safe_member_name(name: str) -> bool:
    """True for a relative, normalised, ``/``-separated file path (no directory entry)."""
    return _unsafe_reason(name) is None and not name.endswith("/")


def _unsafe_reason(name: str) -> str | None:
    if not name:
        return "empty name"
    if "\\" in name:
        return "backslash in path"
    if _CONTROL.search(name):
        return "control character in path"
    if name.startswith("/"):
        return "absolute path"
    if _DRIVE.match(name):
        return "drive letter in path"
    parts = name.rstrip("/").split("/")
    if ".." in parts:
        return "'..' in path (zip-slip)"
    if "." in parts or "" in parts:
        return "path is not normalised ('.' or empty segment)"
    return None


def _shown(name: str) -> str:
    return repr(name) if _CONTROL.search(name) else name


def find_zip(data: bytes) -> bool:
    """Cheap content test: does ``data`` look like a zip, possibly after a JPEG?"""
    if data.startswith(b"PK\x03\x04"):
        return True
    return data.startswith(b"\xff\xd8\xff") and b"PK\x05\x06" in data[-(65536 + 22) :]


def member_names(data: bytes, *, limits: Limits = DEFAULT_LIMITS) -> list[str] | None:
    """Member names from the central directory without inflating anything; None if not a zip."""
    if not find_zip(data):
        return None
    try:
        _check_entry_count(data, limits, None)
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            return zf.namelist()
    except (InteropError, zipfile.BadZipFile, *_ZIP_ERRORS):
        return None


def read_charx(data: bytes, *, limits: Limits = DEFAULT_LIMITS, filename: str | None = None) -> CharxArchive:
    """Unpack a CHARX safely. Raises FormatError, CorruptInputError, UnsafeInputError or LimitExceededError."""
    archive = read_zip(data, limits=limits, filename=filename, require=_require_card_json)
    archive.card_raw = archive.members.pop(CARD_JSON)
    return archive


def read_zip(
    data: bytes,
    *,
    limits: Limits = DEFAULT_LIMITS,
    filename: str | None = None,
    require: Callable[[list[str], str | None], None] | None = None,
) -> CharxArchive:
    """Unpack any untrusted zip with every CHARX safety check (module docstring); ``card_raw`` stays empty.

    ``require(names, filename)`` runs on the member names before anything is
    inflated, to refuse an archive that lacks what its format needs. Other
    zip-based formats (Backyard ``.byaf``) read through here.
    """
    if not find_zip(data):
        raise FormatError("not a zip archive (nor a JPEG followed by one)", file=filename)
    _check_entry_count(data, limits, filename)
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise CorruptInputError(f"zip archive is truncated or damaged ({exc})", file=filename) from None
    except _ZIP_ERRORS as exc:
        raise CorruptInputError(f"unreadable zip central directory ({exc})", file=filename) from None
    with zf:
        infos, compressed = _checked_infos(zf, limits, filename)
        if require is not None:
            require([i.filename for i in infos], filename)
        archive = CharxArchive(card_raw=b"", members={}, order=[])
        if zf.comment:
            archive.notes.append(f"zip comment of {len(zf.comment)} bytes not kept")
        total = 0
        for info in infos:
            if info.is_dir():
                archive.notes.append(f"directory entry {info.filename} not kept (folders are implicit)")
                continue
            content = _inflate(zf, info, compressed[info.filename], limits, total, filename)
            total += len(content)
            archive.order.append(info.filename)
            archive.compression[info.filename] = info.compress_type
            archive.members[info.filename] = content
        archive.prefix = data[: min(i.header_offset for i in infos)] if infos else data[:0]
    return archive


def _require_card_json(names: list[str], filename: str | None) -> None:
    if CARD_JSON in names:
        return
    nested = [n for n in names if n.rsplit("/", 1)[-1] == CARD_JSON]
    hint = f" (found {nested[0]}, which is not at the root)" if nested else ""
    raise FormatError(f"zip archive has no card.json at its root{hint}", file=filename)


def _check_entry_count(data: bytes, limits: Limits, filename: str | None) -> None:
    """Refuse too many entries before zipfile builds an object for each of them."""
    try:
        endrec = zipfile._EndRecData(io.BytesIO(data))  # type: ignore[attr-defined]  # stdlib's own EOCD parser
        count = endrec[zipfile._ECD_ENTRIES_TOTAL] if endrec else None  # type: ignore[attr-defined]
    except (AttributeError, zipfile.BadZipFile, *_ZIP_ERRORS):
        return  # the post-parse count below still applies
    if isinstance(count, int) and count > limits.max_zip_entries:
        raise LimitExceededError(
            f"zip declares {count} entries, more than the limit of {limits.max_zip_entries}", file=filename
        )


def _checked_infos(
    zf: zipfile.ZipFile, limits: Limits, filename: str | None
) -> tuple[list[zipfile.ZipInfo], dict[str, int]]:
    """Validate every central-directory entry before anything is inflated.

    Also returns each member's compressed size as judged for the ratio check:
    the declared size, but never more than the bytes the member really spans
    up to the next header, so a lying ``compress_size`` cannot hide a bomb.
    """
    infos = zf.infolist()
    if len(infos) > limits.max_zip_entries:
        raise LimitExceededError(
            f"zip has {len(infos)} entries, more than the limit of {limits.max_zip_entries}", file=filename
        )
    compressed = _compressed_bounds(zf, infos, filename)
    seen: set[str] = set()
    declared_total = 0
    for info in infos:
        name = info.filename
        where = _shown(name)
        check_member_name(name, file=filename)
        if name in seen:
            raise UnsafeInputError(
                "duplicate member name (apps disagree on which copy wins)", file=filename, location=where
            )
        seen.add(name)
        mode = info.external_attr >> 16
        kind = stat.S_IFMT(mode)
        if stat.S_ISLNK(mode):
            raise UnsafeInputError("member is a symbolic link", file=filename, location=where)
        if kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
            raise UnsafeInputError("member is a special file (device, fifo or socket)", file=filename, location=where)
        if info.flag_bits & (_FLAG_ENCRYPTED | _FLAG_STRONG_ENCRYPTION):
            raise UnsafeInputError("member is encrypted (CHARX must not be encrypted)", file=filename, location=where)
        if info.compress_type not in READABLE_METHODS:
            raise FormatError(
                f"unsupported compression method {info.compress_type} (CHARX uses stored or deflate)",
                file=filename,
                location=where,
            )
        if info.is_dir() and info.file_size:
            raise CorruptInputError("directory entry with content", file=filename, location=where)
        _check_sizes(info.file_size, compressed[name], limits, filename, where, "declares")
        declared_total += info.file_size
        if declared_total > limits.max_total_uncompressed:
            raise LimitExceededError(
                f"members declare {declared_total} uncompressed bytes in total, more than the limit of "
                f"{limits.max_total_uncompressed}",
                file=filename,
                location=where,
            )
    return infos, compressed


def _compressed_bounds(zf: zipfile.ZipFile, infos: list[zipfile.ZipInfo], filename: str | None) -> dict[str, int]:
    ends = sorted({i.header_offset for i in infos} | {zf.start_dir})
    starts: set[int] = set()
    bounds: dict[str, int] = {}
    for info in infos:
        if info.header_offset in starts:
            raise UnsafeInputError(
                "member shares its data with another member (overlapping entries)",
                file=filename,
                location=_shown(info.filename),
            )
        starts.add(info.header_offset)
        after = bisect.bisect_right(ends, info.header_offset)
        span = ends[after] - info.header_offset if after < len(ends) else info.compress_size
        bounds[info.filename] = min(info.compress_size, span)
    return bounds


def _check_sizes(size: int, compressed: int, limits: Limits, filename: str | None, where: str, verb: str) -> None:
    if size > limits.max_member_bytes:
        raise LimitExceededError(
            f"member {verb} {size} uncompressed bytes, more than the limit of {limits.max_member_bytes}",
            file=filename,
            location=where,
        )
    if size > RATIO_FLOOR and size / max(compressed, 1) > limits.max_compression_ratio:
        raise LimitExceededError(
            f"member {verb} a compression ratio of {size / max(compressed, 1):.0f}:1, more than the limit of "
            f"{limits.max_compression_ratio:.0f}:1 (zip bomb?)",
            file=filename,
            location=where,
        )


def _inflate(
    zf: zipfile.ZipFile, info: zipfile.ZipInfo, compressed: int, limits: Limits, total: int, filename: str | None
) -> bytes:
    """Read one member in bounded chunks, enforcing the limits on the bytes actually produced."""
    where = _shown(info.filename)
    out = bytearray()
    try:
        with zf.open(info) as stream:
            while True:
                chunk = stream.read(_CHUNK)
                if not chunk:
                    break
                out += chunk
                _check_sizes(len(out), compressed, limits, filename, where, "inflates to")
                if total + len(out) > limits.max_total_uncompressed:
                    raise LimitExceededError(
                        f"members inflate to more than {limits.max_total_uncompressed} bytes in total",
                        file=filename,
                        location=where,
                    )
    except InteropError:
        raise
    except zipfile.BadZipFile as exc:
        raise CorruptInputError(f"damaged member ({exc})", file=filename, location=where) from None
    except (zlib.error, RuntimeError, LookupError, *_ZIP_ERRORS) as exc:
        raise CorruptInputError(f"cannot inflate member ({exc})", file=filename, location=where) from None
    return bytes(out)


def write_charx(
    card_json: bytes,
    members: Mapping[str, bytes],
    *,
    prefix: bytes = b"",
    compression: int | Mapping[str, int] = ZIP_DEFLATED,
) -> bytes:
    """Build a CHARX: ``card.json`` first, then ``members`` in order, after ``prefix`` (e.g. a JPEG).

    ``compression`` is one method for all, or a per-member mapping (names it
    lacks are deflated). The zip is built on its own and appended to
    ``prefix``, as Risu does, so its offsets are relative to the zip start.
    """
    if CARD_JSON in members:
        raise OutputError("card.json is written from card_json, not from members", location=CARD_JSON)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, content in ((CARD_JSON, card_json), *members.items()):
            reason = _unsafe_reason(name)
            if reason or name.endswith("/"):
                raise OutputError(f"cannot write member: {reason or 'directory name'}", location=_shown(name))
            method = compression if isinstance(compression, int) else compression.get(name, ZIP_DEFLATED)
            if method not in READABLE_METHODS:
                raise OutputError(f"unsupported compression method {method}", location=name)
            info = zipfile.ZipInfo(name, date_time=_FIXED_DATE)
            info.compress_type = method
            info.create_system = _UNIX
            info.external_attr = _FILE_MODE
            zf.writestr(info, content)
    return prefix + buffer.getvalue()
