"""``Limits.max_entries`` while reading: a small compressed upload must not expand into hours of
work (a 120 KB ``.byaf`` holds 50,000 lore items; converting them takes ~10 s of CPU).

Readers run inside ``reading(limits)`` (``api.read_probe``); every canonical lorebook built
there is counted before its entries are validated, whatever the format. Outside a read
(conversion, writing) books are not counted: what was read within the caller's limits stays
usable. Readers that can count earlier, on the native list, call ``check_entries`` themselves.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from ..errors import LimitExceededError
from ..limits import Limits

_READING: ContextVar[Limits | None] = ContextVar("reading_limits", default=None)


@contextmanager
def reading(limits: Limits) -> Iterator[None]:
    token = _READING.set(limits)
    try:
        yield
    finally:
        _READING.reset(token)


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
