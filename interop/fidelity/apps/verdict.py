"""``AppVerdict``: one application's judgement of a conversion (what its import loads, compared).

Its own module, below the package and the per-app checks: every check builds one, and the
package only collects them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..hooks import Finding
from ..paths import render


@dataclass
class AppVerdict:
    app: str
    via: str = ""
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    compared: int = 0
    """Entry settings compared (entries x fields)."""
    differing: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "app": self.app,
            "via": self.via,
            "compared": self.compared,
            "differing": self.differing,
            "findings": [{"path": render(f.path), "fate": f.fate, "detail": f.detail} for f in self.findings],
            "notes": list(self.notes),
        }
