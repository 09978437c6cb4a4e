"""Uploaded files: read within the limits, named safely, never written anywhere unless catalogued."""

from __future__ import annotations

import os
import re
import shutil
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from urllib.parse import quote

from fastapi import UploadFile

from ..errors import CorruptInputError, LimitExceededError
from ..limits import Limits
from ..platform.registry import get_format

_UNSAFE = re.compile(r"[^\w.\- ()\[\]+,@]+", re.UNICODE)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
COPY_CHUNK = 1024 * 1024
ZIP_OR_JPEG = (b"PK\x03\x04", b"\xff\xd8\xff")
"""What ``containers.charx.find_zip`` may take for a zip: such uploads are read to be looked into."""
MEDIA_TYPES = {
    ".json": "application/json",
    ".png": "image/png",
    ".charx": "application/zip",
}


@dataclass(frozen=True)
class Upload:
    name: str
    """The client's file name reduced to a safe base name: a label, never a path."""
    data: bytes


@dataclass(frozen=True)
class SpooledUpload:
    """An upload left where the multipart parser spooled it (memory up to 1 MB, then a temporary
    file): ``POST /migrations`` copies it to the job's folder without holding it in memory."""

    name: str
    file: BinaryIO

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.file.seek(0)
        with path.open("xb") as out:  # a fresh job folder: nothing to replace
            shutil.copyfileobj(self.file, out, COPY_CHUNK)


# Browsers percent-encode exactly these three in multipart file names (WHATWG HTML, "multipart/form-data").
_BROWSER_ESCAPES = {"%22": '"', "%0D": "\r", "%0A": "\n"}


def safe_name(raw: str | None, fallback: str = "upload") -> str:
    """A client-supplied name as a plain base name: no directories, no control or shell-special characters."""
    text = raw or ""
    for escape, char in _BROWSER_ESCAPES.items():
        text = text.replace(escape, char)
    text = unicodedata.normalize("NFKC", text)
    text = _CONTROL.sub("", text).replace("\\", "/").rsplit("/", 1)[-1]
    text = _UNSAFE.sub("_", text).strip(" ._")
    if len(text) > 120:
        stem, dot, ext = text.rpartition(".")
        text = (stem[: 120 - len(ext) - 1] + "." + ext) if dot and len(ext) <= 10 else text[:120]
    return text or fallback


def read_upload(file: UploadFile, limits: Limits) -> Upload:
    """The upload's bytes (the request body was already bounded by ``security.BodyLimit``)."""
    name = safe_name(file.filename)
    data = file.file.read(limits.max_file_bytes + 1)
    if len(data) > limits.max_file_bytes:
        raise LimitExceededError(f"file of {len(data)} bytes exceeds the limit of {limits.max_file_bytes}", file=name)
    if not data:
        raise CorruptInputError("file is empty", file=name)
    return Upload(name, data)


def spooled_upload(file: UploadFile, limits: Limits) -> SpooledUpload | None:
    """The upload as spooled, with the sizes ``read_upload`` checks; ``None`` when it may be a zip
    (a bundle to expand, a CHARX card or a JPEG with one appended: ``containers.charx.find_zip``),
    which is read into memory with ``read_upload`` instead."""
    name = safe_name(file.filename)
    spool = file.file
    size = spool.seek(0, os.SEEK_END)
    if size > limits.max_file_bytes:
        raise LimitExceededError(f"file of {size} bytes exceeds the limit of {limits.max_file_bytes}", file=name)
    if not size:
        raise CorruptInputError("file is empty", file=name)
    spool.seek(0)
    head = spool.read(4)
    spool.seek(0)
    return None if head.startswith(ZIP_OR_JPEG) else SpooledUpload(name, spool)


def content_disposition(name: str) -> str:
    """``attachment`` with an ASCII fallback and the UTF-8 name (RFC 6266 / 5987)."""
    name = safe_name(name, "download")
    ascii_name = name.encode("ascii", "replace").decode("ascii").replace("?", "_").replace('"', "_")
    return f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(name, safe='')}"


def media_type(target: str) -> str:
    return MEDIA_TYPES.get(get_format(target).suffix, "application/octet-stream")
