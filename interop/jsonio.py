"""JSON in and out with typed errors and a nesting-depth guard."""

from __future__ import annotations

import json
from itertools import chain
from typing import Any

from .errors import CorruptInputError, LimitExceededError
from .limits import DEFAULT_LIMITS, Limits

try:
    import orjson as _orjson
except ImportError:  # optional speed-up: json alone writes the same bytes
    _orjson = None  # type: ignore[assignment]


def _depth_within(value: Any, limit: int) -> bool:
    """Do the parsed arrays/objects nest at most ``limit`` deep (the root container is level 1)?

    Walks one level at a time; the children of a level are gathered with
    ``itertools.chain`` over ``dict.values`` so the Python-level work is one
    type test per value. Counting on the parsed value is cheaper than scanning
    the text (which must skip string literals): the parse is needed anyway.
    """
    level = [value]
    depth = 1
    values = dict.values
    while level:
        if depth > limit:
            return False
        dicts = [v for v in level if v.__class__ is dict]
        lists = [v for v in level if v.__class__ is list]
        children = chain(chain.from_iterable(map(values, dicts)), chain.from_iterable(lists))
        level = [v for v in children if v.__class__ is dict or v.__class__ is list]
        depth += 1
    return True


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
    try:
        value = json.loads(raw)
    except UnicodeDecodeError as exc:
        raise CorruptInputError(f"text is not valid UTF-8 ({exc.reason})", file=file, location=location) from None
    except json.JSONDecodeError as exc:
        raise CorruptInputError(
            f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}", file=file, location=location
        ) from None
    except RecursionError:
        raise LimitExceededError("JSON nesting too deep", file=file, location=location) from None
    # The C parser is guarded by the interpreter's recursion limit; our own limit is
    # checked on the result, and only when there are enough brackets to exceed it.
    limit = limits.max_json_depth
    if raw.count(b"[") + raw.count(b"{") > limit and not _depth_within(value, limit):
        raise LimitExceededError(f"JSON nesting deeper than {limit} levels", file=file, location=location)
    return value


def _orjson_float_differs(out: bytes) -> bool:
    """Could ``out`` hold a float orjson writes differently from json: between 1e-9 and 1e-4
    (orjson "0.00001" / "1e-9", Python "1e-05" / "1e-09")? May say yes for text inside a
    string (then json is used, just slower); substring search keeps the usual case fast."""
    if b"0.0000" in out:
        return True
    at = out.find(b"e-")
    while at != -1:
        # a digit, "e-", one digit: a one-digit exponent (Python always writes two)
        if out[at - 1 : at].isdigit() and out[at + 2 : at + 3].isdigit() and not out[at + 3 : at + 4].isdigit():
            return True
        at = out.find(b"e-", at + 2)
    return False


def _pretty_fast(obj: Any) -> bytes | None:
    """``json.dumps(obj, ensure_ascii=False, indent=2)`` as UTF-8, written by orjson in C.

    The stdlib has no C encoder for indented output (its Python encoder takes
    ~65 µs for a typical 6 KB card, this ~13 µs with the checks). orjson writes
    the same bytes for the same data; where it would not, None is returned and
    the caller uses json: values orjson refuses (lone surrogates, non-string
    keys, huge ints), values it writes differently (NaN as null, tuples, enums:
    caught by reading the output back and comparing), and small floats
    (``_orjson_float_differs``).
    """
    if _orjson is None:
        return None
    try:
        out = _orjson.dumps(obj, option=_orjson.OPT_INDENT_2)
    except (TypeError, ValueError):  # orjson.JSONEncodeError is a TypeError
        return None
    if _orjson_float_differs(out) or _orjson.loads(out) != obj:
        return None
    return out


def dump_json(obj: Any, *, pretty: bool = True) -> bytes:
    """Serialize to UTF-8 JSON. Non-ASCII is written as is (cards are full of CJK and emoji)."""
    if pretty:
        fast = _pretty_fast(obj)
        if fast is not None:
            return fast + b"\n"
    indent, separators, tail = (2, None, b"\n") if pretty else (None, (",", ":"), b"")
    text = json.dumps(obj, ensure_ascii=False, indent=indent, separators=separators)
    try:
        return text.encode("utf-8") + tail
    except UnicodeEncodeError:
        # A lone surrogate (half an emoji, written by some broken exporters) has no UTF-8
        # form; \uXXXX escapes keep it exactly, so the file reads back the same.
        return json.dumps(obj, ensure_ascii=True, indent=indent, separators=separators).encode("ascii") + tail
