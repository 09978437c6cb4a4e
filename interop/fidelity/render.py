"""The one view of a fidelity report: what the CLI prints, the API returns and the web page shows.

``report_view(report)`` folds a report into a verdict line, the counts, one group per rule
(its fate, what it says, how many fields, which entries by name), each application's verdict
grouped the same way, the fields the output added and the warnings. ``ReportView.to_json``
is that view as data (``POST /convert`` answers it as ``view``; ``static/report.js`` draws it);
``ReportView.lines`` is the same view as text, wrapped, never cut.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..appmodel.paths import render
from ..mappings import FATES, fate_label
from .entrydiff import DocumentDiff, entry_label
from .groups import INDEX, SHOWN_ORDER, WIDTH, Group, group_items, sectioned, wrap
from .report import FidelityItem, FidelityReport

if TYPE_CHECKING:
    from .roundtrip import Leg


@dataclass
class AppView:
    app: str
    via: str
    summary: str
    groups: list[Group]
    notes: list[str]

    def to_json(self) -> dict[str, Any]:
        return {
            "app": self.app,
            "via": self.via,
            "summary": self.summary,
            "groups": [g.to_json() for g in self.groups],
            "notes": list(self.notes),
        }


@dataclass
class ReportView:
    verdict: str
    has_losses: bool
    source_format: str
    target_format: str
    counts: dict[str, int]
    groups: list[Group]
    apps: list[AppView]
    added: list[str]
    warnings: list[str]
    reading: list[str] = field(default_factory=list)
    """What reading the source warned about (``Document.warnings``), when the caller passes it."""

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "has_losses": self.has_losses,
            "source": self.source_format,
            "target": self.target_format,
            "counts": dict(self.counts),
            "fates": [{"fate": f, "label": fate_label(f), "count": self.counts.get(f, 0)} for f in FATES],
            "groups": [g.to_json() for g in self.groups],
            "apps": [a.to_json() for a in self.apps],
            "added": list(self.added),
            "warnings": list(self.warnings),
            "reading_warnings": list(self.reading),
        }

    def lines(self, *, details: bool = False, width: int = WIDTH) -> list[str]:
        out = wrap(self.verdict, width, "")
        out += wrap(counts_line(self.counts), width, "  ")
        for fate in (*SHOWN_ORDER,) if details else [f for f in SHOWN_ORDER if f != "kept"]:
            groups = [g for g in self.groups if g.fate == fate]
            if not groups:
                continue
            out.append(f"  {fate_label(fate)} ({sum(g.count for g in groups)}):")
            for group in groups:
                out += group.lines(details=details, width=width)
        out += self.tail_lines(details=details, width=width)
        return out

    def tail_lines(self, *, details: bool = False, width: int = WIDTH) -> list[str]:
        """App verdicts, added fields and warnings: what every rendering of a report ends with."""
        out: list[str] = []
        for app in self.apps:
            out += wrap(app.summary, width, "  ")
            out += sectioned(app.groups, details=details, width=width, indent="    ", label=fate_label)
            for note in app.notes:
                out += wrap(f"note: {note}", width, "    ")
        if self.added:
            out.append("  added (the source lacks them; the output has them):")
            for line in self.added if details or len(self.added) <= ADDED_SHOWN else packed(self.added):
                out += wrap(line, width, "    ")
        for warning in self.warnings:
            out += wrap(f"warning: {warning}", width, "  ")
        for warning in self.reading:
            out += wrap(f"warning (reading the source): {warning}", width, "  ")
        return out


ADDED_SHOWN = 8
"""Added fields listed one per line; more are packed per object (``packed``), none left out."""


def packed(added: list[str]) -> list[str]:
    """``a.b.c = v`` lines as one line per object: ``a.b: c = v; d = w`` (in first-seen order)."""
    found: dict[str, list[str]] = {}
    for line in added:
        path, sep, value = line.partition(" = ")
        head, dot, last = path.rpartition(".")
        if not (sep and dot):
            found.setdefault(line, [])
            continue
        found.setdefault(head, []).append(f"{last} = {value}")
    return [f"{head}: " + "; ".join(items) if items else head for head, items in found.items()]


def counts_line(counts: dict[str, int]) -> str:
    total = sum(counts.values())
    parts = [f"{fate_label(f)} {counts[f]}" for f in FATES if counts.get(f)]
    return f"{total} field{'s' if total != 1 else ''}: " + (", ".join(parts) if parts else "none")


def verdict_line(report: FidelityReport) -> str:
    """One line saying whether a user loses anything, and what."""
    counts = report.counts
    head = f"{report.source_format} -> {report.target_format}: "
    losses = [f"{counts[f]} {fate_label(f)}" for f in ("lost", "approximated") if counts[f]]
    if report.app_losses:
        apps = ", ".join(v.app for v in report.apps if v.findings)
        losses.append(f"{report.app_losses} setting(s) loaded differently by {apps}")
    text = head + ("LOSSES: " + ", ".join(losses) if losses else "nothing a user would miss")
    apart = [f"{counts[f]} {fate_label(f)}" for f in ("not_applicable", "kept_default") if counts[f]]
    if apart:
        text += f" ({', '.join(apart)}: counted apart, not lost)"
    if not report.verified:
        text += "; not verified: the output cannot be read back, fates come from the mapping tables"
    return text


def _label(item: FidelityItem) -> str:
    if item.rule and "*" in item.rule:
        return item.rule
    return INDEX.sub("[*]", item.path)  # entry[3].keys -> entry[*].keys


def report_view(report: FidelityReport, reading: list[str] | None = None) -> ReportView:
    """The view of ``report``; ``reading``: the source's reading warnings, shown with the report's own
    (the CLI prints them on stderr as it reads, so it leaves them out)."""
    names = report.entry_names
    groups = group_items(((i.fate, _label(i), i.path, i.detail) for i in report.items), names)
    apps = _app_views(report.apps, names, what="report")
    return ReportView(
        verdict=verdict_line(report),
        has_losses=report.has_losses,
        source_format=report.source_format,
        target_format=report.target_format,
        counts=report.counts,
        groups=groups,
        apps=apps,
        added=list(report.added),
        warnings=list(report.warnings),
        reading=list(reading or ()),
    )


def summary_lines(report: FidelityReport, *, verbose: bool = False, width: int = WIDTH) -> list[str]:
    """The report as text: ``report_view(report).lines`` (``verbose`` = ``--details``)."""
    return report_view(report).lines(details=verbose, width=width)


def app_lines(report: FidelityReport, *, verbose: bool = False, width: int = WIDTH) -> list[str]:
    """App verdicts, added fields and warnings of a report, as text."""
    return report_view(report).tail_lines(details=verbose, width=width)


def _app_views(verdicts: list[Any], names: list[str], *, what: str) -> list[AppView]:
    views = []
    for verdict in verdicts:
        if what == "report":
            kept = verdict.compared - verdict.differing
            summary = (
                f"at {verdict.app} ({verdict.via or 'not imported'}): {kept}/{verdict.compared} entry settings "
                "load as in the source"
            )
        else:
            summary = f"at {verdict.app} ({verdict.via}): {len(verdict.findings)} setting(s) load differently from A's"
        rows = ((f.fate, INDEX.sub("[*]", render(f.path)), render(f.path), f.detail) for f in verdict.findings)
        views.append(AppView(verdict.app, verdict.via, summary, group_items(rows, names), list(verdict.notes)))
    return views


CHANGE_ORDER = ("removed", "changed", "added")


@dataclass
class DiffView:
    """``interop diff`` as one view: a verdict line, the book's and card's changes, the entries'
    changes grouped by field (naming the entries), entries only on one side, B's app verdicts."""

    verdict: str
    identical: bool
    sections: list[Group]
    entries: list[Group]
    only_a: list[str]
    only_b: list[str]
    reordered: str
    containers: list[Group]
    apps: list[AppView]
    per_entry: list[tuple[str, list[str]]]
    """``(entry label, change lines)`` for ``--details``."""

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "identical": self.identical,
            "sections": [g.to_json() for g in self.sections],
            "entries": [g.to_json() for g in self.entries],
            "only_a": list(self.only_a),
            "only_b": list(self.only_b),
            "reordered": self.reordered,
            "containers": [g.to_json() for g in self.containers],
            "apps": [a.to_json() for a in self.apps],
        }

    def lines(self, *, details: bool = False, width: int = WIDTH) -> list[str]:
        out = wrap(self.verdict, width, "")
        for group in self.sections + self.containers:
            out += group.lines(details=True, width=width, indent="  ")
        if details:
            for label, changes in self.per_entry:
                out += wrap(f"{label}:", width, "  ")
                for change in changes:
                    out += wrap(change, width, "    ")
        elif self.entries:
            out.append("  entries changed, by field:")
            out += sectioned(self.entries, details=False, width=width, indent="    ", label=str)
        for side, names in (("A", self.only_a), ("B", self.only_b)):
            if names:
                out += wrap(f"only in {side} ({len(names)}): " + "; ".join(names), width, "  ")
        if self.reordered:
            out += wrap(self.reordered, width, "  ")
        for app in self.apps:
            out += wrap(app.summary, width, "  ")
            out += sectioned(app.groups, details=details, width=width, indent="    ", label=fate_label)
            for note in app.notes:
                out += wrap(f"note: {note}", width, "    ")
        return out


def diff_view(result: DocumentDiff) -> DiffView:
    a_names = [entry_label(i, e) for i, e in enumerate(result.a_entries)]
    b_names = [entry_label(j, e) for j, e in enumerate(result.b_entries)]
    sections = group_items(
        ((c.kind, render(c.path), render(c.path), c.describe()) for c in result.sections),
        a_names,
        order=CHANGE_ORDER,
        by_detail=False,
    )
    rows = []
    per_entry = []
    for pair in result.pairs:
        if not pair.changes:
            continue
        label = f"{a_names[pair.a]} (B #{pair.b}, matched by {pair.how})"
        lines = []
        for change in pair.changes:
            path = render(("entry", pair.a, *change.path))
            rows.append((change.kind, INDEX.sub("[*]", path), path, change.describe()))
            lines.append(f"{render(change.path) if change.path else '(entry)'}: {change.describe()}")
        per_entry.append((label, lines))
    entries = group_items(rows, a_names, order=CHANGE_ORDER, by_detail=False)
    containers = group_items(
        ((c.kind, render(c.path), render(c.path), c.describe()) for c in result.containers),
        a_names,
        order=CHANGE_ORDER,
        by_detail=False,
    )
    reordered = ""
    if result.reordered:
        order = [p.b for p in sorted(result.pairs, key=lambda p: p.a)]
        reordered = f"entries reordered: A's entries appear in B at positions {order}"
    return DiffView(
        verdict=_diff_verdict(result),
        identical=result.identical,
        sections=sections,
        entries=entries,
        only_a=[a_names[i] for i in result.only_a],
        only_b=[b_names[j] for j in result.only_b],
        reordered=reordered,
        containers=containers,
        apps=_app_views(result.apps, a_names, what="diff"),
        per_entry=per_entry,
    )


def _diff_verdict(result: DocumentDiff) -> str:
    if result.identical:
        return "no differences: A and B hold the same data"
    changed = sum(1 for p in result.pairs if p.changes)
    parts = [
        (len(result.sections), "book/card field(s) differ"),
        (changed, f"of {len(result.pairs)} matched entries differ"),
        (len(result.only_a), "entries only in A"),
        (len(result.only_b), "entries only in B"),
        (len(result.containers), "picture/asset/member difference(s)"),
        (sum(len(v.findings) for v in result.apps), "setting(s) B's app loads differently from A's"),
    ]
    said = [f"{n} {what}" for n, what in parts if n]
    if result.reordered:
        said.append("entries reordered")
    return f"DIFFERENT: {result.count} difference(s): " + "; ".join(said)


LEG_ORDER = ("not predicted", "as reported", "added")


@dataclass
class LegView:
    """One ``roundtrip`` leg: its verdict line, its differences grouped by field (naming the
    entries, those the report did not predict first), then the forward report's app verdicts,
    added fields and warnings."""

    target: str
    verdict: str
    ok: bool
    behaviour: list[str]
    groups: list[Group]
    report: ReportView | None

    def to_json(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "verdict": self.verdict,
            "ok": self.ok,
            "behaviour": list(self.behaviour),
            "groups": [g.to_json() for g in self.groups],
            "report": self.report.to_json() if self.report is not None else None,
        }

    def lines(self, *, details: bool = False, width: int = WIDTH) -> list[str]:
        out = wrap(self.verdict, width, "  ")
        for line in self.behaviour:
            out += wrap(line, width, "    ")
        out += sectioned(self.groups, details=details, width=width, indent="    ", label=_leg_heading)
        if self.report is not None:
            out += [
                ("  " + line) if line else line for line in self.report.tail_lines(details=details, width=width - 2)
            ]
        return out


def leg_view(leg: Leg) -> LegView:
    names = leg.forward.entry_names if leg.forward is not None else []
    behaviour = (
        [f"{i.path}: {i.detail}" for i in leg.forward.items if i.path.startswith("behaviour[")] if leg.forward else []
    )
    report = report_view(leg.forward) if leg.forward is not None else None
    if leg.skipped is not None:
        return LegView(leg.target, f"via {leg.target}: skipped ({leg.skipped})", True, [], [], None)
    back = f" -> {leg.back_format}" if leg.back_format else f" (not back: {leg.no_way_back})"
    rows = _leg_rows(leg)
    groups = group_items(rows, names, order=LEG_ORDER, by_detail=False)
    return LegView(leg.target, f"via {leg.target}{back}: {_leg_verdict(leg)}", leg.ok, behaviour, groups, report)


def _leg_rows(leg: Leg) -> list[tuple[str, str, str, str]]:
    """``(status, label, path, detail)`` per difference: one the report did not predict by field;
    a predicted one by the report's rule and reason; an addition by its field's first parts."""
    predicted = leg.predicted_paths()
    reasons = {i.path: i for i in leg.forward.items} if leg.forward is not None else {}
    unpredicted = {id(c) for c in leg.unpredicted}
    rows = []
    for change in leg.changes:
        path = render(change.path)
        generic = INDEX.sub("[*]", path)
        if id(change) in unpredicted:
            why = leg.way_back(path)
            rows.append(
                (
                    "not predicted",
                    f"{generic} {change.kind}",
                    path,
                    change.describe() + (f" [way back {why}]" if why else ""),
                )
            )
        elif path in predicted and path in reasons:
            item = reasons[path]
            rows.append(("as reported", _label(item), path, f"{fate_label(item.fate)}: {item.detail}"))
        elif change.kind == "added":
            parts = 2 if generic.startswith("entry[") else 3  # entry[*].extensions, book.extensions.sillytavern
            rows.append(("added", ".".join(generic.split(".")[:parts]), path, change.describe()))
        else:
            rows.append(("as reported", f"{generic} {change.kind}", path, change.describe()))
    return rows


def _leg_heading(status: str) -> str:
    return {"not predicted": "! not predicted by the report", "as reported": "as the report predicted"}.get(
        status, "added by the target"
    )


def _leg_verdict(leg: Leg) -> str:
    if leg.identical:
        return "identical"
    if leg.only_additions:
        return f"identical but for {len(leg.changes)} added field(s)"
    counts = leg.forward.counts if leg.forward is not None else dict.fromkeys(FATES, 0)
    said = ", ".join(
        f"{counts[f]} {fate_label(f)}" for f in ("approximated", "lost", "not_applicable", "kept_default") if counts[f]
    )
    at_app = f", {leg.app_losses} setting(s) loaded differently by the target app" if leg.app_losses else ""
    verdict = (
        "differs, as reported" if leg.ok else f"DIFFERS: {len(leg.unpredicted)} change(s) the report did not predict"
    )
    return f"{verdict} ({len(leg.changes)} difference(s); report: {said or 'no losses'}{at_app})"
