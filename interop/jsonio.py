"""JSON in and out with typed errors and a nesting-depth guard."""

from __future__ import annotations

import json
from typing import Any

from .errors import CorruptInputError, LimitExceededError
from .limits import DEFAULT_LIMITS, Limits

_KEEP_BRACKETS = bytes(range(256)).translate(None, b"[]{}")
_BRACES_AS_BRACKETS = bytes.maketrans(b"{}", b"[]")


def _deeper_than(raw: bytes, limit: int) -> bool:
    """True if arrays/objects nest deeper than ``limit``.

    Works on bytes with C-speed operations only (a per-character Python loop
    costs milliseconds on a large lorebook): drop escaped quotes, keep the
    text outside strings, keep only brackets, then peel innermost ``[]``
    pairs once per level.
    """
    if b"\\\\" in raw:
        raw = raw.replace(b"\\\\", b"")
    raw = raw.replace(b'\\"', b"")
    brackets = b"".join(raw.split(b'"')[::2]).translate(_BRACES_AS_BRACKETS, _KEEP_BRACKETS)
    for _ in range(limit):
        if not brackets:
            return False
        peeled = brackets.replace(b"[]", b"")
        if len(peeled) == len(brackets):
            return False  # unbalanced: the parser reports it
        brackets = peeled
    return bool(brackets)


def load_json(
    data: bytes | str,
    *,
    file: str | None = None,
    location: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> Any:
    """Parse JSON text (UTF-8, optional BOM). Raises CorruptInputError or LimitExceededError."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if len(raw) > limits.max_text_bytes:
        raise LimitExceededError(
            f"JSON text of {len(raw)} bytes exceeds the limit of {limits.max_text_bytes}",
            file=file,
            location=location,
        )
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    # Depth can only exceed the limit if there are more openers than the limit.
    if raw.count(b"[") + raw.count(b"{") > limits.max_json_depth and _deeper_than(raw, limits.max_json_depth):
        raise LimitExceededError(
            f"JSON nesting deeper than {limits.max_json_depth} levels", file=file, location=location
        )
    try:
        return json.loads(raw)
    except UnicodeDecodeError as exc:
        raise CorruptInputError(f"text is not valid UTF-8 ({exc.reason})", file=file, location=location) from None
    except json.JSONDecodeError as exc:
        raise CorruptInputError(
            f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}", file=file, location=location
        ) from None
    except RecursionError:
        raise LimitExceededError("JSON nesting too deep", file=file, location=location) from None


def dump_json(obj: Any, *, pretty: bool = True) -> bytes:
    """Serialize to UTF-8 JSON. Non-ASCII is written as is (cards are full of CJK and emoji)."""
    if pretty:
        return json.dumps(obj, ensure_ascii=False, indent=2).encode("utf-8") + b"\n"
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
