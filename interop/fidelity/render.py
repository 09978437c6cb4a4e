"""The human form of a fidelity report: counts per fate, then the fields grouped by what happened."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..mappings import FATES, fate_label
from .paths import render
from .report import FidelityItem, FidelityReport

DETAIL_ORDER = ("lost", "approximated", "stashed", "translated", "kept_default", "not_applicable")
APP_FINDINGS_SHOWN = 10
ADDED_SHOWN = 12
_INDEX = re.compile(r"\[\d+\]")


@dataclass(frozen=True)
class Group:
    label: str
    detail: str
    count: int


def _group_key(item: FidelityItem) -> str:
    if item.rule and "*" in item.rule:
        return item.rule
    return _INDEX.sub("[*]", item.path)  # entry[3].keys -> entry[*].keys


def groups(items: list[FidelityItem]) -> list[Group]:
    """Items with the same (generic path or wildcard rule, detail), in first-seen order.

    A group of one is labelled with the item's own path.
    """
    found: dict[tuple[str, str], list[FidelityItem]] = {}
    for item in items:
        found.setdefault((_group_key(item), item.detail), []).append(item)
    return [
        Group(label if len(members) > 1 else members[0].path, detail, len(members))
        for (label, detail), members in found.items()
    ]


def summary_lines(report: FidelityReport, *, verbose: bool = False, width: int = 110) -> list[str]:
    counts = report.counts
    lines = [f"fidelity {report.source_format} -> {report.target_format}: {len(report.items)} fields"]
    lines += [f"  {fate_label(fate):<15} {counts[fate]:>6}" for fate in FATES]
    for fate in (*DETAIL_ORDER, "kept") if verbose else DETAIL_ORDER:
        items = report.by_fate(fate)
        if not items:
            continue
        lines.append(f"  {fate_label(fate)} ({len(items)}):")
        if verbose:
            rows = [(item.path, item.detail) for item in items]
        else:
            rows = [(g.label + (f" ({g.count})" if g.count > 1 else ""), g.detail) for g in groups(items)]
        pad = min(max(len(label) for label, _ in rows), 48)
        for label, detail in rows:
            text = f"    {label:<{pad}}  {detail}".rstrip()
            lines.append(text if len(text) <= width else text[: width - 3] + "...")
    lines += app_lines(report, verbose=verbose, width=width)
    for warning in report.warnings:
        lines.append(f"  warning: {warning}")
    return lines


def app_lines(report: FidelityReport, *, verbose: bool = False, width: int = 110) -> list[str]:
    """What each target application loads: settings compared, the differences, notes; then added fields."""
    lines = []
    for verdict in report.apps:
        kept = verdict.compared - verdict.differing
        lines.append(
            f"  at {verdict.app} ({verdict.via or 'not imported'}): {kept}/{verdict.compared} entry settings "
            "load as in the source"
        )
        shown = verdict.findings if verbose else verdict.findings[:APP_FINDINGS_SHOWN]
        for finding in shown:
            text = f"    {finding.fate}: {render(finding.path)}: {finding.detail}"
            lines.append(text if len(text) <= width else text[: width - 3] + "...")
        if len(shown) < len(verdict.findings):
            lines.append(f"    ... and {len(verdict.findings) - len(shown)} more (--report FILE lists them all)")
        lines += [f"    note: {note}" for note in verdict.notes]
    if report.added:
        lines.append("  added (the source lacks them; the output has them): " + "; ".join(report.added[:ADDED_SHOWN]))
    return lines
