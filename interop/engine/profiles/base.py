"""What every platform profile provides, and the bridge to the platform adapters."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from typing import Any

from ...errors import ConversionError
from ...model import Lorebook
from ...platform.registry import Platform, all_platforms
from ..chat import Chat
from ..jsvalue import js_trim
from ..result import EntryInfo, Result
from ..state import ChatState
from ..tokenizers import Tokenizer


class Profile(ABC):
    """One platform's activation semantics over that platform's native entries."""

    name: str

    @abstractmethod
    def default_settings(self) -> Any: ...

    @abstractmethod
    def prepare(self, books: Sequence[Any], settings: Any = None) -> Any:
        """Native books (or canonical ``Lorebook`` objects, converted by the adapter) -> a prepared pool."""

    @abstractmethod
    def entries(self, prepared: Any) -> list[EntryInfo]:
        """Every entry of the pool, in pool order, with its identity."""

    @abstractmethod
    def evaluate(
        self,
        prepared: Any,
        chat: Chat,
        settings: Any,
        state: ChatState,
        rng: random.Random,
        tokenizer: Tokenizer,
    ) -> Result: ...


def simulated_platform(profile: str) -> Platform | None:
    """The registry platform whose ``engine_profile`` names ``profile`` (first in platform order)."""
    return next((p for p in all_platforms() if p.engine_profile == profile), None)


def adapter_convert(book: Lorebook, platform: str) -> Any:
    """Convert a canonical lorebook to the native shape of profile ``platform`` with the adapter of
    the platform it simulates (found in the registry through ``Platform.engine_profile``).

    The engine never carries its own converter: a migrated file must be judged
    exactly as the adapter writes it.
    """
    simulated = simulated_platform(platform)
    convert = simulated.book_to_native if simulated is not None else None
    if convert is None:
        raise ConversionError(
            f"no {platform} adapter converts a canonical lorebook, so it cannot be evaluated with the "
            f"{platform} profile; pass a native {platform} lorebook instead"
        )
    return convert(book)


def native_books(books: Sequence[Any], platform: str) -> Iterator[tuple[str, Any]]:
    """``(name, native book)`` for each input book of a profile.

    An input is a native object (named ``book<N>``), a ``(name, book)`` pair, or a
    canonical ``Lorebook`` (converted by the platform's adapter, named after the book).
    """
    for number, book in enumerate(books):
        name = f"book{number}"
        if isinstance(book, tuple) and len(book) == 2:
            name, book = str(book[0]), book[1]
        if isinstance(book, Lorebook):
            if isinstance(book.name, str) and book.name:
                name = book.name
            book = adapter_convert(book, platform)
        yield name, book


def js_parse_int(value: Any) -> int | None:
    """JavaScript ``parseInt(String(value))`` (no radix): leading white space and sign, then a
    ``0x``/``0X`` prefix means hexadecimal (``parseInt("0x4")`` is 4), else decimal digits; None for NaN."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value == value and abs(value) != float("inf") else None
    text = js_trim(str(value))
    sign = 1
    if text[:1] in ("+", "-"):
        sign = -1 if text[0] == "-" else 1
        text = text[1:]
    base, allowed = 10, "0123456789"
    if text[:2] in ("0x", "0X"):
        base, allowed, text = 16, "0123456789abcdefABCDEF", text[2:]
    digits = ""
    for ch in text:
        if ch not in allowed:
            break
        digits += ch
    return sign * int(digits, base) if digits else None


def js_slice(items: Sequence[Any], start: int, end: int | None = None) -> list[Any]:
    """``Array.prototype.slice`` with JavaScript's negative-index rules."""
    n = len(items)

    def clamp(i: int) -> int:
        return max(n + i, 0) if i < 0 else min(i, n)

    lo = clamp(start)
    hi = n if end is None else clamp(end)
    return list(items[lo:hi]) if lo < hi else []
