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

from collections import Counter
from typing import TYPE_CHECKING

from ..findings import FATE_ORDER, FATE_RANK, TABLE_FATES, TABLE_NAMES, Fate, Finding, Journal, worst
from ..mappings import Fate as TableFate
from .hooks import Finding as HazardFinding
from .paths import render

if TYPE_CHECKING:
    from .report import FidelityReport

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


def added_lines(findings: list[Finding]) -> list[str]:
    """``added`` findings as report lines: ``entry.extensions.vectorized = false (5 entries)``.

    Per-entry paths (``("entry", 3, ...)``) are counted together under ``entry.<field>``.
    """
    counts: Counter[tuple[str, str]] = Counter()
    for finding in findings:
        path = finding.path
        is_entry = len(path) > 1 and path[0] == "entry" and isinstance(path[1], int)
        name = "entry." + render(path[2:]) if is_entry else render(path)
        counts[(name, finding.value if finding.value is not None else finding.detail)] += 1 if is_entry else 0
    by_path: dict[str, list[tuple[str, int]]] = {}
    for (name, value), count in sorted(counts.items()):
        by_path.setdefault(name, []).append((value, count))
    lines = []
    for name, values in by_path.items():
        total = sum(count for _, count in values)
        many = f" ({total} entries)" if name.startswith("entry.") else ""
        if len(values) > SAME_VALUES_SHOWN:
            lines.append(f"{name} = ({len(values)} different values){many}")
            continue
        for value, count in values:
            lines.append(f"{name} = {value}" + (f" ({count} entries)" if many else ""))
    return lines


def fold_added(report: FidelityReport, journal: Journal) -> None:
    """The journal's additions in ``report.added`` (a field the read-back comparison found already
    stays as it is); an addition that is no field (a whole new card) is also a warning."""
    added = journal.by_fate("added")
    if not added:
        return
    have = {line.split(" = ", 1)[0] for line in report.added}
    for line in added_lines([f for f in added if f.value is not None]):
        if line.split(" = ", 1)[0] not in have:
            report.added.append(line)
    for finding in added:
        line = f"{render(finding.path)}: {finding.detail}"
        if finding.value is None and line not in report.added:  # a writer may build the card twice
            report.added.append(line)
            report.warnings.append(finding.detail)
