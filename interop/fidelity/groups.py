"""Grouping report lines: fields (or changes) that share a fate and a rule become one line naming
the entries they affect, wrapped, never cut. Used by the fidelity report view (``render``),
``roundtrip`` and ``diff``."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..mappings import FATES, fate_label

SHOWN_ORDER = tuple(reversed(FATES))
"""Groups are listed worst fate first (``FATES`` runs best to worst)."""
NAMES_SHOWN = 8
"""Entry names listed per group without ``--details``; the rest are counted."""
WIDTH = 100
_ENTRY = re.compile(r"^entry\[(\d+)\]")
INDEX = re.compile(r"\[\d+\]")
_CHANGED = "came back changed"


@dataclass
class Group:
    """Fields that share a fate and a rule (or, without one, a field name): one line of the report."""

    fate: str
    label: str
    detail: str
    count: int = 0
    fields: list[str] = field(default_factory=list)
    """The fields in the group, entry fields as ``entry[*].<field>``."""
    entries: list[str] = field(default_factory=list)
    """The entries it affects, by name (``names.entry_name``)."""
    details: list[str] = field(default_factory=list)
    """Each distinct detail of the group's fields (values that came back changed differ per field)."""
    paths: list[str] = field(default_factory=list)
    indexes: set[int] = field(default_factory=set, repr=False)
    of_entries: int = 0
    """How many entries the document has (a group affecting all of them says so)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "fate": self.fate,
            "fate_label": fate_label(self.fate),
            "label": self.label,
            "detail": self.detail,
            "count": self.count,
            "fields": list(self.fields),
            "entries": list(self.entries),
            "details": list(self.details),
            "paths": list(self.paths),
            "all_entries": bool(self.entries) and len(self.entries) == self.of_entries,
        }

    def lines(self, *, details: bool = False, width: int = WIDTH, indent: str = "    ") -> list[str]:
        """``label (count, n entries)  detail``, then the entries by name, wrapped."""
        size = f"{self.count} field{'s' if self.count != 1 else ''}"
        if self.entries:
            size += f" in {len(self.entries)} entr{'ies' if len(self.entries) != 1 else 'y'}"
        head = f"{self.label} ({size})"
        fields = self.paths if details else self.fields
        if len(fields) == 1 and self.label.startswith(fields[0]):
            fields = []  # the label names it already
        if fields:
            head += ": " + ", ".join(fields if details else fields[:NAMES_SHOWN])
            if not details and len(fields) > NAMES_SHOWN:
                head += f" and {len(fields) - NAMES_SHOWN} more"
        out = wrap(head, width, indent)
        shown = self.details if details else self.details[:1]
        for text in shown:
            out += wrap(text, width, indent + "  ")
        if not details and len(self.details) > 1:
            out += wrap(f"(and {len(self.details) - 1} other value(s); --details lists each)", width, indent + "  ")
        if self.entries and not details and len(self.entries) == self.of_entries > NAMES_SHOWN:
            out += wrap(f"entries: all {self.of_entries}", width, indent + "  ")
        elif self.entries:
            names = self.entries if details else self.entries[:NAMES_SHOWN]
            text = "entries: " + "; ".join(names)
            if len(names) < len(self.entries):
                text += f"; and {len(self.entries) - len(names)} more"
            out += wrap(text, width, indent + "  ")
        return out


def wrap(text: str, width: int, indent: str) -> list[str]:
    """``text`` over as many lines as it needs (continuation lines indented two more)."""
    return textwrap.wrap(
        text,
        width=max(width, len(indent) + 20),
        initial_indent=indent,
        subsequent_indent=indent + "  ",
        break_long_words=False,
        break_on_hyphens=False,
    ) or [indent.rstrip()]


def _group_detail(detail: str) -> str:
    """Details that differ only by the values a field came back with group together."""
    return _CHANGED if detail.startswith(_CHANGED) else detail


def group_items(
    rows: Iterable[tuple[str, str, str, str]],
    names: list[str],
    *,
    order: tuple[str, ...] = SHOWN_ORDER,
    by_detail: bool = True,
) -> list[Group]:
    """``(fate, label, path, detail)`` rows grouped by fate, label and detail, worst fate first,
    then in first-seen order; ``names`` names ``entry[i]`` paths. ``by_detail=False``: one group
    per fate and label whatever the details say (a diff's changes differ in their values)."""
    found: dict[tuple[str, str, str], Group] = {}
    for fate, label, path, detail in rows:
        key = (fate, label, _group_detail(detail) if by_detail else "")
        group = found.get(key)
        if group is None:
            group = found[key] = Group(fate, label, detail, of_entries=len(names))
        group.count += 1
        group.paths.append(path)
        generic = INDEX.sub("[*]", path) if path.startswith("entry[") else path
        if generic not in group.fields:
            group.fields.append(generic)
        if detail and detail not in group.details:
            group.details.append(detail)
        match = _ENTRY.match(path)
        if match:
            index = int(match.group(1))
            if index not in group.indexes:
                group.indexes.add(index)
                group.entries.append(names[index] if index < len(names) else f"#{index}")
    rank = {fate: i for i, fate in enumerate(order)}
    return sorted(found.values(), key=lambda g: rank.get(g.fate, len(rank)))


def sectioned(groups: list[Group], *, details: bool, width: int, indent: str, label: Callable[[str], str]) -> list[str]:
    """Groups under one heading per fate (``label(fate)``), in the groups' order."""
    out: list[str] = []
    last = None
    for group in groups:
        if group.fate != last:
            last = group.fate
            same = [g for g in groups if g.fate == group.fate]
            out += wrap(f"{label(group.fate)} ({sum(g.count for g in same)}):", width, indent)
        out += group.lines(details=details, width=width, indent=indent + "  ")
    return out
