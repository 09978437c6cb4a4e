"""Uploaded files: read within the limits, named safely, never written anywhere unless catalogued."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from urllib.parse import quote

from fastapi import UploadFile

from ..errors import CorruptInputError, LimitExceededError
from ..formats.registry import get_format
from ..limits import Limits

_UNSAFE = re.compile(r"[^\w.\- ()\[\]+,@]+", re.UNICODE)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
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


def content_disposition(name: str) -> str:
    """``attachment`` with an ASCII fallback and the UTF-8 name (RFC 6266 / 5987)."""
    name = safe_name(name, "download")
    ascii_name = name.encode("ascii", "replace").decode("ascii").replace("?", "_").replace('"', "_")
    return f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(name, safe='')}"


def media_type(target: str) -> str:
    return MEDIA_TYPES.get(get_format(target).suffix, "application/octet-stream")
