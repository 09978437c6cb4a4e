"""A structured record of a value an app would read differently: returned by adapters and
transforms, turned into report findings by fidelity (never parsed out of English sentences)."""

from __future__ import annotations

from dataclasses import dataclass

PathPart = str | int


@dataclass(frozen=True)
class Conflict:
    path: tuple[PathPart, ...]
    """Canonical report path: ``("entry", 3, "extensions", "sillytavern", "entry", "sticky")``."""
    detail: str
    """One human sentence for the report and the CLI."""
    fate: str = "approximated"
    """The report fate this conflict gives the path at least ("approximated" or "lost")."""
