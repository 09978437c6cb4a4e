"""One exception hierarchy for everything the library rejects.

Every error carries the file it came from, the location inside it (a PNG
chunk, a zip member, a JSON path) and the reason, so the CLI can print one
line that a person can act on.
"""

from __future__ import annotations


class InteropError(Exception):
    """Base class of every error raised on purpose by interop."""

    def __init__(self, reason: str, *, file: str | None = None, location: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.file = file
        self.location = location

    def with_file(self, file: str | None) -> InteropError:
        """Attach the file name once it is known (readers often work on bytes)."""
        if file is not None and self.file is None:
            self.file = file
        return self

    def __str__(self) -> str:
        parts = [p for p in (self.file, self.location) if p]
        prefix = ": ".join(parts)
        return f"{prefix}: {self.reason}" if prefix else self.reason


class FormatError(InteropError):
    """The input is not in the format it claims, or in no format we know."""


class UnknownFormatError(FormatError):
    """Detection found no format for the input."""


class CorruptInputError(InteropError):
    """The input is truncated or malformed (bad CRC, bad JSON, short record)."""


class LimitExceededError(InteropError):
    """The input exceeds a configured size limit (file, chunk, inflated size, nesting)."""


class UnsafeInputError(InteropError):
    """The input tries something dangerous: zip-slip paths, symlinks, encryption."""


class InvalidCardError(InteropError):
    """The JSON parsed but does not have the shape of the format (e.g. `data` is not an object)."""


class ConversionError(InteropError):
    """The requested conversion cannot be done at all (e.g. a card without a lorebook to a world file)."""


class OutputError(InteropError):
    """An output could not be written safely (it would overwrite an input, ...)."""


class CatalogError(InteropError):
    """The catalog database is unreachable, out of date or inconsistent."""
