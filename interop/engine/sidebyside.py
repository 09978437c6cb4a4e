"""One lorebook and one chat on several platforms at once: which entries fire where, and why.

What the service's activation playground shows. Each platform gets the book as
``load_book`` would give it (its native shape, else converted by that
platform's adapter, as a migration would), runs every turn of the chat with its
own semantics, and the last turn's request log is lined up entry by entry:
entries are paired with the first platform's by native id, then keys and
content (``compare.pair_entries``, the same pairing as behavioural fidelity).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..activation.chat import Chat
from ..activation.jsregex import regex_budget
from ..activation.result import LogRecord, Result
from ..errors import InteropError
from .firing_diff import pair_entries
from .platform_profiles import get_profile
from .run import simulate


def setting_names(platform: str) -> set[str]:
    return {f.name for f in dataclasses.fields(get_profile(platform).default_settings())}


def settings_with(platform: str, changes: Mapping[str, Any]) -> Any:
    """The profile's default settings with ``changes`` applied (lists become tuples)."""
    settings = get_profile(platform).default_settings()
    known = setting_names(platform)
    unknown = sorted(set(changes) - known)
    if unknown:
        raise InteropError(f"unknown {platform} setting {unknown[0]!r}; known: {', '.join(sorted(known))}")
    fixed = {k: tuple(v) if isinstance(v, list) else v for k, v in changes.items()}
    return dataclasses.replace(settings, **fixed)


@dataclass
class Cell:
    entry_id: str
    fired: bool
    reason: str
    detail: str = ""
    key: str | None = None
    where: str | None = None

    @classmethod
    def of(cls, record: LogRecord) -> Cell:
        return cls(record.entry_id, record.fired, record.reason, record.detail, record.key, record.where)


@dataclass
class Row:
    title: str
    cells: dict[str, Cell | None] = field(default_factory=dict)
    """platform -> that platform's record of the entry (None: it has no such entry)."""

    @property
    def differs(self) -> bool:
        return len({bool(c and c.fired) for c in self.cells.values()}) > 1

    def to_json(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "differs": self.differs,
            "cells": {p: dataclasses.asdict(c) if c else None for p, c in self.cells.items()},
        }


@dataclass
class SideBySide:
    platforms: list[str]
    results: dict[str, Result]
    rows: list[Row]

    def to_json(self) -> dict[str, Any]:
        return {
            "platforms": self.platforms,
            "rows": [row.to_json() for row in self.rows],
            "differences": sum(row.differs for row in self.rows),
            "results": {p: r.to_dict() for p, r in self.results.items()},
        }


def side_by_side(
    books: Mapping[str, Sequence[Any]],
    chat: Chat,
    *,
    seed: int = 0,
    settings: Mapping[str, Any] | None = None,
) -> SideBySide:
    """``books[platform]`` (as ``load_books`` gives them) run on each platform over ``chat``; last turn compared."""
    platforms = list(books)
    if not platforms:
        raise InteropError("no platform chosen")
    infos = {}
    results: dict[str, Result] = {}
    with regex_budget():  # one regex time budget for all platforms together
        for platform in platforms:
            profile = get_profile(platform)
            chosen = (settings or {}).get(platform) or profile.default_settings()
            prepared = profile.prepare(books[platform], chosen)
            infos[platform] = profile.entries(prepared)
            results[platform] = simulate(
                books[platform], chat, platform, settings=chosen, seed=seed, prepared=prepared
            )[-1]
    first = platforms[0]
    records = {p: {r.entry_id: r for r in results[p].log} for p in platforms}
    rows: list[Row] = []
    paired: dict[str, set[str]] = {p: set() for p in platforms}
    pairs = {p: pair_entries(infos[first], infos[p]) for p in platforms[1:]}
    for info in infos[first]:
        row = Row(info.title)
        row.cells[first] = _cell(records[first].get(info.entry_id))
        for p in platforms[1:]:
            other = pairs[p].get(info.entry_id)
            if other is not None:
                paired[p].add(other)
            row.cells[p] = _cell(records[p].get(other)) if other is not None else None
        rows.append(row)
    for p in platforms[1:]:
        for info in infos[p]:
            if info.entry_id not in paired[p]:
                row = Row(info.title, dict.fromkeys(platforms))
                row.cells[p] = _cell(records[p].get(info.entry_id))
                rows.append(row)
    return SideBySide(platforms, results, rows)


def _cell(record: LogRecord | None) -> Cell | None:
    return Cell.of(record) if record is not None else None
