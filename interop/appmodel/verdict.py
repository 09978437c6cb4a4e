"""What an app model answers: ``Finding`` records gathered in one ``AppVerdict``, and ``AppModel``,
the object a platform registers as its ``Platform.app_check``.

Below the platform packages (each builds its verdicts here) and below the fidelity report
(which collects them and treats a ``Finding`` like any other platform finding).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..document import Document
from ..mappings import Fate
from .paths import Path, render


@dataclass(frozen=True)
class Finding:
    path: Path
    fate: Fate
    detail: str


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


Check = Callable[[Document, bytes, str], "AppVerdict | None"]
"""``check(source_doc, output_bytes, target_format)``: the app's verdict on one conversion."""


@dataclass(frozen=True)
class AppModel:
    """One application's import model: what it loads from a file, compared with the source.

    A platform package builds it from its own ``app_model`` module and registers it as
    ``Platform.app_check``; the fidelity report calls it (``app_model(source, output, target)``)
    and the docs generator renders ``docs`` (and ``table``) into docs/fidelity.md.
    """

    check: Check
    docs: tuple[str | None, ...] = ()
    """The facts the model stands on, as text (its modules' docstrings), for docs/fidelity.md."""
    table: Callable[[], list[str]] | None = None
    """Extra Markdown lines for docs/fidelity.md after ``docs`` (SillyTavern's import table)."""
    judges_own_formats: bool = False
    """Also judge a conversion into this platform's own formats (SillyTavern: its card and world
    imports differ from what our writer wrote); otherwise only generic targets (ccv3 family)."""
    judges_generic: bool = False
    """Judge a conversion from a generic source into a generic target (the app most people load
    CCv3 files into)."""

    def __call__(self, source: Document, output: bytes, target_format: str) -> AppVerdict | None:
        return self.check(source, output, target_format)
