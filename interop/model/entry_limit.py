"""``Limits.max_entries`` while reading: a small compressed upload must not expand into hours of
work (a 120 KB ``.byaf`` holds 50,000 lore items; converting them takes ~10 s of CPU).

Readers run inside ``reading(limits)`` (``api.read_probe``); every canonical lorebook built
there is counted before its entries are validated, whatever the format. Outside a read
(conversion, writing) books are not counted: what was read within the caller's limits stays
usable. Readers that can count earlier, on the native list, call ``check_entries`` themselves.
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from types import TracebackType

from ..errors import LimitExceededError
from ..limits import Limits

_READING: ContextVar[Limits | None] = ContextVar("reading_limits", default=None)


class _Reading:
    """``with reading(limits):`` (a class: a generator context manager costs every read a few µs)."""

    __slots__ = ("_limits", "_token")

    def __init__(self, limits: Limits) -> None:
        self._limits = limits

    def __enter__(self) -> None:
        self._token: Token[Limits | None] = _READING.set(self._limits)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        _READING.reset(self._token)


def reading(limits: Limits) -> _Reading:
    """Within the ``with`` block, ``check_entries`` counts against ``limits``."""
    return _Reading(limits)


def check_entries(
    count: int, *, limits: Limits | None = None, file: str | None = None, location: str | None = None
) -> None:
    """Raise ``LimitExceededError`` when ``count`` entries exceed ``limits.max_entries`` (default: the
    limits of the read in progress; no check outside a read)."""
    limits = limits or _READING.get()
    if limits is not None and count > limits.max_entries:
        raise LimitExceededError(
            f"{count} lorebook entries, more than the limit of {limits.max_entries} (raise max_entries to read it)",
            file=file,
            location=location,
        )
