"""Token counting for lorebook budgets: a pluggable protocol and an offline default.

The platforms count with the model's tokenizer, which usually needs files this
library cannot download. The default, ``ApproxTokenizer``, splits text with the
cl100k pre-tokenizer pattern (the regex tiktoken applies before BPE merges) and
estimates each piece's tokens from its length and script; its accuracy against
the real cl100k BPE is measured in docs/engine.md. A real encoding is used
whenever the caller has one: anything with ``encode(text)`` (a tiktoken
``Encoding``, a Hugging Face ``tokenizers.Tokenizer``) is wrapped by ``as_tokenizer``.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import regex

from ..errors import InteropError


@runtime_checkable
class Tokenizer(Protocol):
    name: str

    def count(self, text: str) -> int: ...


# The cl100k_base pre-tokenizer split (a published fact of the encoding).
_PIECES = regex.compile(
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"""
    r"""| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
_PIECE_COSTS: dict[str, int] = {}  # piece -> whole tokens, shared by all ApproxTokenizers
_WIDE = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\p{Thai}]")


# Expected cl100k tokens of an ASCII letter piece by length (index = length), measured on
# 760k characters of lorebook text (docs/engine.md); longer pieces cost _LONG_RATE per character.
_ASCII_COST = (1.0, 1.0, 1.0, 1.02, 1.06, 1.16, 1.22, 1.23, 1.3, 1.39, 1.31, 1.34, 1.47, 1.49, 1.42, 1.5)
_LONG_RATE = 0.13
_PUNCT_COST = (1.0, 1.0, 1.02, 1.4, 1.54, 1.96)
_ACCENT_RATE = 0.53  # tokens per character of a non-ASCII, non-CJK letter piece
_WIDE_RATE = 1.45  # tokens per CJK/Hangul/Thai character


class ApproxTokenizer:
    """Offline estimate of cl100k token counts (no download, deterministic).

    Text is split with the cl100k pre-tokenizer pattern; each piece costs the
    measured average for its class and length (ASCII words, punctuation runs,
    accented words, CJK). Fractional averages become whole tokens per piece by
    a fixed hash of the piece, so totals stay unbiased, identical runs agree,
    and ``count(a + b) == count(a) + count(b)`` whenever ``a`` ends with a
    newline and ``b`` starts with a non-space (the split never joins them):
    the engine uses that to count growing prompt text incrementally.
    """

    name = "approx-cl100k"
    splits_after_newline = True

    def __init__(self) -> None:
        self._cache: dict[str, int] = {}
        self._pieces = _PIECE_COSTS

    def count(self, text: str) -> int:
        if not text:
            return 0
        cached = self._cache.get(text)
        if cached is not None:
            return cached
        total = 0
        costs = self._pieces
        for piece in _PIECES.findall(text):
            cost = costs.get(piece)
            if cost is None:
                cost = _whole(piece, _expected(piece))
                if len(costs) < 262144:
                    costs[piece] = cost
            total += cost
        if len(self._cache) < 65536:
            self._cache[text] = total
        return total


def _expected(piece: str) -> float:
    core = piece.lstrip(" ")
    if not core or core.isspace():
        return 1.0
    wide = len(_WIDE.findall(core))
    if wide:
        return max(1.0, wide * _WIDE_RATE + (len(core) - wide) * _ACCENT_RATE)
    if core[0].isalpha() or (len(core) > 1 and core[1:2].isalpha()):
        if not core.isascii():
            return max(1.0, len(core) * _ACCENT_RATE)
        n = len(core)
        return _ASCII_COST[n] if n < len(_ASCII_COST) else n * _LONG_RATE
    if core[0].isdigit():
        return 1.0
    n = len(core.rstrip("\r\n"))
    return _PUNCT_COST[n] if n < len(_PUNCT_COST) else n * 0.4


def _whole(piece: str, expected: float) -> int:
    """Round ``expected`` up or down by a fixed per-piece hash, so the average stays ``expected``."""
    base = int(expected)
    fraction = expected - base
    if fraction and zlib.crc32(piece.encode("utf-8")) / 2**32 < fraction:
        base += 1
    return max(1, base)


class CharsTokenizer:
    """``ceil(length / ratio)``: the crude fallback several apps use.

    SillyTavern's ``guesstimate`` (public/scripts/tokenizers.js) is ``Math.ceil(str.length / 3.35)``
    in 1.15 and earlier: ``length`` counts UTF-16 code units, so an emoji or any character outside
    the BMP costs two (``unit="utf16"``, the default). Later versions divide the UTF-8 byte length
    instead (``BYTES_PER_TOKEN``); ``unit="utf8"`` gives that.
    """

    def __init__(self, ratio: float = 3.35, unit: str = "utf16") -> None:
        if unit not in ("utf16", "utf8", "codepoints"):
            raise InteropError(f"unknown length unit {unit!r}")
        self.ratio = ratio
        self.unit = unit
        self.name = f"chars/{ratio:g}" + ("" if unit == "utf16" else f" ({unit})")

    def length(self, text: str) -> int:
        if self.unit == "utf8":
            return len(text.encode("utf-8", "surrogatepass"))
        if self.unit == "codepoints":
            return len(text)
        return len(text.encode("utf-16-le", "surrogatepass")) // 2  # JavaScript's length: UTF-16 code units

    def count(self, text: str) -> int:
        return math.ceil(self.length(text) / self.ratio) if text else 0


class EncodingTokenizer:
    """Wraps a real encoding: tiktoken ``Encoding`` or Hugging Face ``tokenizers.Tokenizer``."""

    def __init__(self, encoding: Any, name: str | None = None) -> None:
        encode: Callable[[str], Any] | None = getattr(encoding, "encode", None)
        if encode is None:
            raise InteropError("tokenizer object has no encode() method")
        self._encoding = encoding
        self.name = name or str(getattr(encoding, "name", type(encoding).__name__))
        self._cache: dict[str, int] = {}

    def count(self, text: str) -> int:
        if not text:
            return 0
        cached = self._cache.get(text)
        if cached is not None:
            return cached
        encoded = self._encode(text)
        ids = getattr(encoded, "ids", encoded)  # tokenizers returns an Encoding with .ids
        result = len(ids)
        if len(self._cache) < 65536:
            self._cache[text] = result
        return result

    def _encode(self, text: str) -> Any:
        try:
            # tiktoken refuses special-token text by default; lore text is plain text.
            return self._encoding.encode(text, disallowed_special=())
        except TypeError:
            return self._encoding.encode(text)


def as_tokenizer(value: Any = None) -> Tokenizer:
    """A Tokenizer from ``None`` (the offline default), a Tokenizer, an encoding object or a callable."""
    if value is None:
        return ApproxTokenizer()
    if isinstance(value, Tokenizer):
        return value
    if hasattr(value, "encode"):
        return EncodingTokenizer(value)
    if callable(value):
        return _CallableTokenizer(value)
    raise InteropError(f"cannot use {type(value).__name__} as a tokenizer")


class _CallableTokenizer:
    def __init__(self, fn: Callable[[str], int]) -> None:
        self._fn = fn
        self.name = getattr(fn, "__name__", "callable")

    def count(self, text: str) -> int:
        return int(self._fn(text)) if text else 0
