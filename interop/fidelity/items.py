"""``FidelityItem``: one source field and its fate, the unit of every fidelity report.

Its own module so that the parts that make items (the report's field walk, behaviour
comparison) import it from below instead of from each other.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..mappings import Fate


class FidelityItem(NamedTuple):
    """One source field and its fate (a tuple: a 300-entry lorebook has thousands)."""

    path: str
    fate: Fate
    detail: str = ""
    rule: str | None = None
    """The mapping-table pattern that decided the fate, if any."""

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "fate": self.fate, "detail": self.detail, "rule": self.rule}
