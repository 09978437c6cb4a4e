"""The findings vocabulary: what a writer or transform did to the source, recorded where it happens.

Modelled on sqlglot's ``Generator.unsupported`` and pandoc's ``LogMessage``: the code that
translates, moves, adds, defaults or cannot express a value says so at that spot, in one small
typed vocabulary, instead of the report guessing it afterwards by re-running the rewrite.
``interop.api.write_with_journal`` opens a ``recording()`` around a writer and returns the
``Journal`` beside the bytes; the fidelity report folds it in (``fidelity/journal_fold.py``) and
still verifies by reading the output back.

This module sits at the bottom layer (no interop imports) so that every writer and transform
may record; outside ``recording()`` a ``record`` call does nothing (a reader, the engine or a
writer's own checks never fill a journal by accident).

The fate order is defined here once, worst first; every ranking, grouping and display of fates
uses ``FATE_ORDER`` / ``FATE_RANK``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Literal, NamedTuple, Protocol

Fate = Literal["lost", "changed", "added", "moved", "stashed", "kept (default)", "not applicable", "kept"]

FATE_ORDER: tuple[Fate, ...] = (
    "lost",  # the target holds no trace of the value: a user would miss it
    "changed",  # the target holds it, but reads or shows it differently (the tables' "approximated")
    "added",  # the output has a value the source lacked (a required field, a default written out)
    "moved",  # same meaning in another place or form (the tables' "translated"; an asset's new URI)
    "stashed",  # kept where the target app does not use it, so the way back restores it
    "kept (default)",  # absent from the output, and the target applies the same value anyway
    "not applicable",  # a field the target's kind has no place for (a card field in a world file)
    "kept",  # came back equal
)
"""Every fate, worst first: the one order for ranking, grouping and display."""

FATE_RANK: dict[str, int] = {fate: rank for rank, fate in enumerate(FATE_ORDER)}
"""Lower is worse: ``FATE_RANK["lost"] == 0``."""

TABLE_FATES: dict[str, Fate] = {
    "lost": "lost",
    "approximated": "changed",
    "translated": "moved",
    "stashed": "stashed",
    "kept_default": "kept (default)",
    "not_applicable": "not applicable",
    "kept": "kept",
}
"""The mapping tables' and ``Conflict``'s fate names (``interop.mappings.FATES``) in this vocabulary."""

TABLE_NAMES: dict[Fate, str] = {
    "lost": "lost",
    "changed": "approximated",
    "added": "translated",
    "moved": "translated",
    "stashed": "stashed",
    "kept (default)": "kept_default",
    "not applicable": "not_applicable",
    "kept": "kept",
}
"""A fate as the report's table-fate items name it (until the report's items use this vocabulary)."""

PathPart = str | int


def worst(fates: Iterable[str]) -> Fate:
    """The worst of ``fates`` (``kept`` for none); unknown names rank as ``changed``."""
    rank = min((FATE_RANK.get(fate, FATE_RANK["changed"]) for fate in fates), default=FATE_RANK["kept"])
    return FATE_ORDER[rank]


class Finding(NamedTuple):
    """One thing a writer or transform did: ``fate`` of the value at ``path``, in one sentence.

    A tuple: a card-book writer records one per field it adds to each entry."""

    fate: Fate
    path: tuple[PathPart, ...]
    """Canonical report path: ``("entry", 3, "extensions", "vectorized")``, ``("card",)``."""
    detail: str
    by: str = ""
    """Who recorded it: the writer (``"png writer"``) or transform (``"transforms.st_risu"``)."""
    value: str | None = None
    """For ``added``: the value written, as JSON (what the report's ``added`` list shows)."""

    def to_json(self) -> dict[str, object]:
        return {"fate": self.fate, "path": list(self.path), "detail": self.detail, "by": self.by, "value": self.value}


class _Conflict(Protocol):  # interop.model.conflict.Conflict, without importing the model layer
    path: tuple[PathPart, ...]
    detail: str
    fate: str


@dataclass
class Journal:
    """What one conversion recorded, in the order it happened, plus the checks it covered."""

    findings: list[Finding] = field(default_factory=list)
    covered: set[str] = field(default_factory=set)
    """Checks the writer already made while writing (``"hazards:risu"``): the report does not redo them."""

    def record(
        self, fate: Fate, path: tuple[PathPart, ...], detail: str, *, by: str = "", value: str | None = None
    ) -> None:
        self.findings.append(Finding(fate, path, detail, by, value))

    def added(self, found: Iterable[tuple[tuple[PathPart, ...], str]], detail: str, *, by: str = "") -> None:
        """Many ``added`` findings at once: ``(path, value as JSON)`` pairs with one sentence."""
        self.findings.extend([Finding("added", path, detail, by, value) for path, value in found])

    def conflicts(self, found: Iterable[_Conflict], *, by: str = "") -> None:
        """``Conflict`` records (a rewrite's ``Losses``) as findings."""
        for conflict in found:
            self.record(TABLE_FATES.get(conflict.fate, "changed"), tuple(conflict.path), conflict.detail, by=by)

    def cover(self, check: str) -> None:
        self.covered.add(check)

    def covers(self, check: str) -> bool:
        return check in self.covered

    def by_fate(self, fate: Fate) -> list[Finding]:
        return [finding for finding in self.findings if finding.fate == fate]

    def __iter__(self) -> Iterator[Finding]:
        return iter(self.findings)

    def __len__(self) -> int:
        return len(self.findings)

    def to_json(self) -> dict[str, object]:
        return {"findings": [f.to_json() for f in self.findings], "covered": sorted(self.covered)}


_CURRENT: ContextVar[Journal | None] = ContextVar("interop_journal", default=None)


@contextmanager
def recording(journal: Journal | None = None) -> Iterator[Journal]:
    """Collect what the code inside records into ``journal`` (a new one by default)."""
    journal = journal if journal is not None else Journal()
    token = _CURRENT.set(journal)
    try:
        yield journal
    finally:
        _CURRENT.reset(token)


@contextmanager
def not_recording() -> Iterator[None]:
    """Suspend recording (a writer that writes something else only to check it, e.g. a picture's card)."""
    token = _CURRENT.set(None)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def current() -> Journal | None:
    """The journal being recorded into, or None outside ``recording()``."""
    return _CURRENT.get()


def record(fate: Fate, path: tuple[PathPart, ...], detail: str, *, by: str = "", value: str | None = None) -> None:
    """Record a finding in the current journal (nothing outside ``recording()``)."""
    journal = _CURRENT.get()
    if journal is not None:
        journal.record(fate, path, detail, by=by, value=value)


def cover(check: str) -> None:
    """Note in the current journal that the writer made ``check`` while writing (nothing outside ``recording()``)."""
    journal = _CURRENT.get()
    if journal is not None:
        journal.cover(check)
