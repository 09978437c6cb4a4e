"""The findings vocabulary as the report uses it, and how a conversion's journal is folded in.

The vocabulary itself (``Fate``, ``FATE_ORDER``, ``Finding``, ``Journal``) lives in
``interop.findings``, the bottom layer, so that writers and transforms can record; it is
re-exported here for the report's views. ``fold`` puts a writer's journal into a report:
an ``added`` finding becomes a line of ``report.added``, a ``lost`` / ``changed`` finding worsens
the item it names (as a platform hazard does), and a finding about something that is no source
field (the card a standalone lorebook was wrapped in) becomes a warning as well, so it is never
silent.
"""

from __future__ import annotations

import operator
from collections import Counter
from typing import Protocol

from ..appmodel.paths import render
from ..findings import FATE_ORDER, FATE_RANK, TABLE_FATES, TABLE_NAMES, Fate, Finding, Journal, worst
from ..mappings import Fate as TableFate
from .hooks import Finding as HazardFinding

__all__ = [
    "FATE_ORDER",
    "FATE_RANK",
    "TABLE_FATES",
    "TABLE_NAMES",
    "Fate",
    "Finding",
    "Journal",
    "added_lines",
    "hazard_findings",
    "worst",
]

SAME_VALUES_SHOWN = 3
"""Distinct values of one added field listed; more are counted (as ``added.added_fields``)."""


def hazard_findings(journal: Journal, fates: tuple[Fate, ...] = ("lost", "changed")) -> list[HazardFinding]:
    """The journal's findings of ``fates`` as the report's item findings (table fate names)."""
    found = []
    for finding in journal:
        if finding.fate in fates:
            fate: TableFate = TABLE_NAMES[finding.fate]  # type: ignore[assignment]
            found.append(HazardFinding(finding.path, fate, finding.detail))
    return found


_ENTRY_NAMES: dict[tuple[object, ...], str] = {}


def _name(path: tuple[object, ...]) -> str:
    """``("entry", 3, "extensions", "x")`` as an added line names it: ``entry.extensions.x``."""
    if len(path) > 2 and path[0] == "entry" and type(path[1]) is int:
        tail = path[2:]
        name = _ENTRY_NAMES.get(tail)
        if name is None:  # a field is rendered once per run, not once per entry and report
            name = "entry." + render(tail)  # type: ignore[arg-type]
            if len(_ENTRY_NAMES) < 4096:
                _ENTRY_NAMES[tail] = name
        return name
    return render(path)  # type: ignore[arg-type]


def added_lines(findings: list[Finding]) -> list[str]:
    """``added`` findings as report lines: ``entry.extensions.vectorized = false (5 entries)``.

    Per-entry paths (``("entry", 3, ...)``) are counted together under ``entry.<field>``.
    """
    per_entry: Counter[tuple[str, str]] = Counter()
    others: dict[tuple[str, str], None] = {}
    for finding in findings:
        path, value = finding.path, finding.value
        if value is None:
            continue  # not a field: fold_added words it
        if len(path) > 2 and path[0] == "entry" and type(path[1]) is int:
            per_entry[(_name(path), value)] += 1
        else:
            others[(_name(path), value)] = None
    by_name: dict[str, list[tuple[str, int]]] = {}
    for (name, value), count in per_entry.items():
        by_name.setdefault(name, []).append((value, count))
    lines = [f"{name} = {value}" for name, value in sorted(others)]
    for name, values in sorted(by_name.items()):
        values.sort()
        total = sum(count for _, count in values)
        if len(values) > SAME_VALUES_SHOWN:
            lines.append(f"{name} = ({len(values)} different values) ({total} entries)")
            continue
        lines += [f"{name} = {value} ({count} entries)" for value, count in values]
    return lines


class AddedLines(Protocol):
    """What ``fold_added`` writes into: a ``FidelityReport`` (named by shape, not imported, so this
    module stays below report.py with no import cycle, type-only ones included)."""

    added: list[str]
    warnings: list[str]


def fold_added(report: AddedLines, journal: Journal) -> None:
    """The journal's additions in ``report.added`` (a field the read-back comparison found already
    stays as it is); an addition that is no field (a whole new card) is also a warning."""
    findings = journal.findings
    if not findings:
        return
    have = set(map(_HEAD, map(_SPLIT, report.added)))  # what reading the output back found (in C)
    if _all_known(findings, have):
        return
    added = [finding for finding in findings if finding[0] == "added"]  # fate: as ``by_fate``, in C
    if not added:
        return
    in_entries: dict[tuple[object, ...], bool] = {}  # a field's path inside an entry -> already in ``have``
    fresh = []
    words = False  # an addition that is no field (``value`` None), worded below
    for finding in added:
        _, path, _, _, value = finding
        if value is None:
            words = True
            continue
        if len(path) > 2 and path[0] == "entry" and type(path[1]) is int:  # the same field of every entry
            tail = path[2:]
            known = in_entries.get(tail)
            if known is None:
                known = in_entries[tail] = _name(path) in have
        else:
            known = _name(path) in have
        if not known:
            fresh.append(finding)
    if fresh:
        report.added.extend(added_lines(fresh))
    if not words:
        return
    for finding in added:
        if finding.value is not None:
            continue
        line = f"{render(finding.path)}: {finding.detail}"
        if line not in report.added:  # a writer may build the card twice
            report.added.append(line)
            report.warnings.append(finding.detail)


def _all_known(findings: list[Finding], have: set[str]) -> bool:
    """Whether ``fold_added`` has nothing to add, checked in C over the findings (the usual journal: a
    card-book writer's ``added`` values of the same few fields in every entry, all read back already).
    True only when every finding is an ``added`` value of an entry field (``("entry", i, ...)``) whose
    name is known to ``_name`` and in ``have``; False when unsure (the walk then decides)."""
    fates = list(map(_FATE, findings))
    if fates.count("added") != len(fates) or list(map(_VALUE, findings)).count(None):
        return False
    names = _field_names(list(map(_PATH, findings)))
    return names is not None and have.issuperset(names)


def _field_names(paths: list[tuple[object, ...]]) -> tuple[str, ...] | None:
    """The names ``_name`` gives ``paths`` when they are all entry fields (``("entry", i, ...)``, ``i`` an
    int) whose names are known, else None; kept per the paths (a run's card books repeat one journal's)."""
    key = tuple(paths)  # hashed in C
    names = _NAMES_OF.get(key)
    if names is not None:  # equal to kept entry paths: only ``True`` equals an index ``1`` and is not one
        return names if set(map(type, map(_SECOND, paths))) == _INT else None
    if min(map(len, paths)) < 3 or set(map(_FIRST, paths)) != _ENTRY or set(map(type, map(_SECOND, paths))) != _INT:
        return None
    found = list(map(_ENTRY_NAMES.get, set(map(_TAIL, paths))))  # a field's name, once per field
    if found.count(None):
        return None
    names = tuple(found)  # type: ignore[arg-type]
    if len(key) <= _NAMES_PATHS and sum(map(len, names)) <= _NAMES_CHARS:  # a bound on what a key holds
        if len(_NAMES_OF) >= _NAMES_KEPT:
            _NAMES_OF.clear()
        _NAMES_OF[key] = names
    return names


_NAMES_OF: dict[tuple[tuple[object, ...], ...], tuple[str, ...]] = {}
"""A journal's paths -> their fields' names (``_field_names``)."""
_NAMES_KEPT = 64
_NAMES_PATHS = 1024
"""Paths of a journal at most for them to be kept (~80 bytes each: a few MB for all keys at most)."""
_NAMES_CHARS = 4096
"""Characters of their names at most (the names render every key the paths hold)."""


_FATE = operator.itemgetter(0)
_PATH = operator.itemgetter(1)
_VALUE = operator.itemgetter(4)
_FIRST = operator.itemgetter(0)
_SECOND = operator.itemgetter(1)
_TAIL = operator.itemgetter(slice(2, None))
_ENTRY = {"entry"}
_INT = {int}
_SPLIT = operator.methodcaller("partition", " = ")
_HEAD = operator.itemgetter(0)
