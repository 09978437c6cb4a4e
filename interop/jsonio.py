"""JSON in and out with typed errors and a nesting-depth guard."""

from __future__ import annotations

import json
import math
import re
from itertools import chain
from typing import Any

from .errors import ConversionError, CorruptInputError, LimitExceededError
from .limits import DEFAULT_LIMITS, Limits, int_digits_limit
from .memo import memoized

try:
    import orjson as _orjson
except ImportError:  # optional speed-up: json alone writes the same bytes
    _orjson = None  # type: ignore[assignment]


_NON_FINITE = (b"NaN", b"Infinity")
_SURROGATE = re.compile("[\ud800-\udfff]")
_SHAPE = bytes(0x30 if 0x30 <= b <= 0x39 else 0x5B if b in (0x5B, 0x7B) else 0x20 for b in range(256))
"""``bytes.translate`` table: digits -> "0", "[" and "{" -> "[", every other byte -> " ". One C pass
then answers both questions orjson's parse raises (a long digit run, how many brackets)."""
_LONG_RUN = b"0" * 19


def _shape(raw: bytes) -> tuple[bool, int]:
    """``(long_run, brackets)``: 19 digits in a row somewhere (maybe an integer past 64 bits, which
    orjson would read as a float; may fire on digits inside a string: json then, just slower), and
    the count of "[" and "{" (also inside strings: an upper bound of the nesting depth).

    One translate and two searches (a regex takes ~10x longer on a 7 KB card)."""
    shape = raw.translate(_SHAPE)
    return _LONG_RUN in shape, shape.count(b"[")


_ORJSON_MAX_DEPTH = 512
"""orjson refuses nesting past 1024; below this ``json.loads`` never hits the recursion limit either."""


def loads(raw: bytes | str) -> Any:
    """``json.loads(raw)``: the same value or the same error, parsed by orjson when it is sure to agree.

    orjson refuses everything json refuses (and more: NaN, lone surrogates, UTF-16 text, nesting
    past 1024), so on its refusal json parses as before; text with more brackets than
    ``_ORJSON_MAX_DEPTH`` (maybe nested deeper than ``json.loads`` reads: it raises RecursionError
    near the interpreter's limit, 1000, where orjson reads on to 1024) goes to json;
    its floats are json's (correctly rounded), and the one value it reads differently, an
    integer past 64 bits, is kept from it by ``_shape``'s digit run.
    """
    as_bytes = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    if _orjson is not None:
        long_run, brackets = _shape(as_bytes)
        if not long_run and brackets <= _ORJSON_MAX_DEPTH:
            try:
                return _orjson.loads(raw)
            except _orjson.JSONDecodeError:
                pass
    return json.loads(raw)


_MISS: Any = object()
NOT_WRITTEN = _MISS
"""``written_json``'s answer for text it does not know as orjson's."""


def _orjson_value(raw: bytes, limit: int) -> Any:
    """``load_json``'s value parsed by orjson, or ``_MISS`` when the checked path must decide.

    A text orjson accepts holds no bare NaN/Infinity and is valid UTF-8 JSON, so ``load_json``
    would return the same value unless it holds a long digit run (an integer past 64 bits) or nests
    past ``limit`` (then its own error, told the usual way); on orjson's refusal json says why.
    """
    try:
        value = _orjson.loads(raw)
    except _orjson.JSONDecodeError:
        return _MISS
    long_run, brackets = _shape(raw)
    if long_run or (brackets > limit and not _depth_within(value, limit)):
        return _MISS
    return value


def _refuse_constant(token: str) -> Any:
    # JSON.parse (every app) rejects these bare tokens; Python alone accepts them.
    raise CorruptInputError(f"{token} is not valid JSON (JavaScript's JSON.parse refuses it)")


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
    limit = limits.max_json_depth
    if _orjson is not None and limit <= _ORJSON_MAX_DEPTH:
        # The usual case, one C parse and one C scan; anything else takes the checked path below.
        value = _orjson_value(raw, limit)
        if value is not _MISS:
            return value
    try:
        if any(token in raw for token in _NON_FINITE):  # rare: keep json.loads' fast path otherwise
            value = json.loads(raw, parse_constant=_refuse_constant)
        elif limit <= _ORJSON_MAX_DEPTH:
            value = loads(raw)
        else:
            value = json.loads(raw)
    except CorruptInputError as exc:
        raise CorruptInputError(exc.reason, file=file, location=location) from None
    except UnicodeDecodeError as exc:
        raise CorruptInputError(f"text is not valid UTF-8 ({exc.reason})", file=file, location=location) from None
    except json.JSONDecodeError as exc:
        raise CorruptInputError(
            f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}", file=file, location=location
        ) from None
    except RecursionError:
        raise LimitExceededError("JSON nesting too deep", file=file, location=location) from None
    except ValueError:
        # int() refuses decimal text past the interpreter's digit limit (CVE-2020-10735 guard)
        raise LimitExceededError(
            f"JSON integer with more than {int_digits_limit()} digits", file=file, location=location
        ) from None
    # The C parser is guarded by the interpreter's recursion limit; our own limit is
    # checked on the result, and only when there are enough brackets to exceed it.
    if raw.count(b"[") + raw.count(b"{") > limit and not _depth_within(value, limit):
        raise LimitExceededError(f"JSON nesting deeper than {limit} levels", file=file, location=location)
    return value


_ORJSON_TEXT = "jsonio_orjson_text"
_WRITTEN_VALUE = "jsonio_written_value"
_ORJSON_DUMP_DEPTH = 254
"""orjson refuses to write nesting deeper than this (the root container is level 1)."""


def written_json(raw: bytes, limits: Limits = DEFAULT_LIMITS) -> Any:
    """``load_json(raw, limits=limits)`` by ``orjson.loads`` alone when ``raw`` is text ``dump_json_orjson``
    wrote in the open ``document_scope`` (the same bytes object), else ``NOT_WRITTEN``. orjson writes no integer
    past 64 bits (it refuses them), no BOM, NaN or lone surrogate, and nests at most ``_ORJSON_DUMP_DEPTH``
    deep, so none of ``load_json``'s checks can change or refuse its parse (tests/test_jsonio.py)."""
    if (
        _orjson is None
        or len(raw) > limits.max_text_bytes
        or limits.max_json_depth < _ORJSON_DUMP_DEPTH
        or memoized(_ORJSON_TEXT, raw, (), _no) is not True
    ):
        return _MISS
    return _orjson.loads(raw)


def _no() -> bool:
    return False


def dump_json_orjson(obj: Any, *, pretty: bool = True) -> bytes | None:
    """``dump_json(obj, pretty=pretty)`` when orjson writes it, else None (json is to write it). In a
    ``document_scope`` the bytes are marked as orjson's text (``load_written``)."""
    fast = orjson_dump(obj, _PRETTY_OPTIONS if pretty else 0)
    if fast is None:
        return None
    out = fast + b"\n" if pretty else fast
    memoized(_ORJSON_TEXT, out, (), _yes)
    return out


def _yes() -> bool:
    return True


def record_written(source: object, value: Any) -> None:
    """Keep, in the open ``document_scope``, ``value`` as what ``source`` was written as: a value (or part
    of one) ``dump_json_orjson`` wrote, so orjson took it (``written_value``)."""
    memoized(_WRITTEN_VALUE, source, (), lambda: value)


def written_value(source: object) -> Any:
    """What ``source`` was written as in the open ``document_scope`` (``record_written``; read-only), else None.
    orjson wrote it, so it holds no subclass of str/int/list/dict, no dataclass, datetime, set or model
    (orjson refuses them); tuples, Enum members, UUIDs and NaN/Infinity may be in it, as in ``source``."""
    return memoized(_WRITTEN_VALUE, source, (), _none)


def _none() -> None:
    return None


def _orjson_float_differs(out: bytes) -> bool:
    """Could ``out`` hold a float orjson writes differently from json: between 1e-9 and 1e-4
    (orjson "0.00001" / "1e-9", Python "1e-05" / "1e-09")? May say yes for text inside a
    string (then json is used, just slower); substring search keeps the usual case fast."""
    if b"0.0000" in out:
        return True
    if b"-" not in out:  # one memchr; the "e-" search below stops at every "e" of the text
        return False
    at = out.find(b"e-")
    while at != -1:
        # a digit, "e-", one digit: a one-digit exponent (Python always writes two)
        if out[at - 1 : at].isdigit() and out[at + 2 : at + 3].isdigit() and not out[at + 3 : at + 4].isdigit():
            return True
        at = out.find(b"e-", at + 2)
    return False


_COMPACT_OPTIONS = _PRETTY_OPTIONS = 0
if _orjson is not None:
    # Refuse (TypeError, so json writes or refuses as before) what orjson would write and json
    # not, or not alike: subclasses of str/int/list/dict, dataclasses, dates and times.
    _COMPACT_OPTIONS = (
        _orjson.OPT_PASSTHROUGH_SUBCLASS | _orjson.OPT_PASSTHROUGH_DATACLASS | _orjson.OPT_PASSTHROUGH_DATETIME
    )
    _PRETTY_OPTIONS = _COMPACT_OPTIONS | _orjson.OPT_INDENT_2


def _pretty_fast(obj: Any) -> bytes | None:
    """``json.dumps(obj, ensure_ascii=False, indent=2)`` as UTF-8, written by orjson in C.

    The stdlib has no C encoder for indented output (its Python encoder takes
    ~65 µs for a typical 6 KB card, orjson ~10 µs). orjson writes the same bytes
    for the same data: strings escaped alike (``"``, ``\\``, control characters;
    non-ASCII, U+2028 and U+2029 as is), ints and floats alike (shortest repr, ``1e+16``),
    ``[]``/``{}`` for empty containers, tuples as arrays, NaN and Infinity as ``null`` (what
    ``dump_json`` writes for them too). Where it would not, None is returned and the caller
    uses json: values orjson refuses (lone surrogates, non-string keys, ints past 64 bits,
    nesting past 255, and by ``_PRETTY_OPTIONS`` subclasses, dataclasses, datetimes) and small
    floats (``_orjson_float_differs``). Left to orjson: Enum members (a str or int Enum, the
    only kind json writes, gives the same text) and ``uuid.UUID``, which json refuses and
    interop's documents never hold. No read-back: it cost more than the dump.
    """
    return orjson_dump(obj, _PRETTY_OPTIONS)


def orjson_dump(obj: Any, options: int = 0) -> bytes | None:
    """orjson's text for ``obj`` (``_pretty_fast``'s rules; without ``OPT_INDENT_2`` json's
    ``separators=(",", ":")`` form; other orjson ``options`` such as ``OPT_SORT_KEYS`` may be
    added), or None where json is to write it. NaN and Infinity come out ``null``."""
    if _orjson is None:
        return None
    try:
        out = _orjson.dumps(obj, option=options | _COMPACT_OPTIONS)
    except (TypeError, ValueError):  # orjson.JSONEncodeError is a TypeError
        return None
    if _orjson_float_differs(out):
        return None
    return out


def escape_lone_surrogates(text: str) -> str:
    """``\\uXXXX`` for each lone surrogate in JSON text, as JavaScript's (well-formed) JSON.stringify writes them.

    Surrogates only occur inside string literals of text written by ``json.dumps``,
    so the escape is exact: the file reads back to the same string, in Python and
    in the apps, and everything else (CJK, emoji) stays unescaped.
    """
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def encode_json_text(text: str) -> bytes:
    """UTF-8 of JSON text; lone surrogates (half an emoji, from broken exporters) written escaped."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return escape_lone_surrogates(text).encode("utf-8")


def finite(value: Any) -> Any:
    """``value`` with NaN and +-Infinity replaced by None, as JSON.stringify writes them (``null``)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def dumps_text(obj: Any, **options: Any) -> str:
    """``json.dumps`` that never writes bare NaN/Infinity (null instead, as the apps' JSON.stringify does)
    and raises ConversionError for what JSON cannot hold (integers past the digit limit)."""
    try:
        return json.dumps(obj, allow_nan=False, **options)
    except ValueError:
        pass
    try:
        return json.dumps(finite(obj), allow_nan=False, **options)
    except ValueError:
        raise ConversionError(f"an integer with more than {int_digits_limit()} digits cannot be written") from None


def dump_json(obj: Any, *, pretty: bool = True) -> bytes:
    """Serialize to UTF-8 JSON. Non-ASCII is written as is (cards are full of CJK and emoji).

    NaN and Infinity (from ``1e400`` or YAML ``.nan``) are written ``null``, as
    JSON.stringify does; lone surrogates are written ``\\uXXXX``.
    """
    fast = orjson_dump(obj, _PRETTY_OPTIONS if pretty else 0)
    if fast is not None:
        return fast + b"\n" if pretty else fast
    indent, separators, tail = (2, None, b"\n") if pretty else (None, (",", ":"), b"")
    text = dumps_text(obj, ensure_ascii=False, indent=indent, separators=separators)
    return encode_json_text(text) + tail
