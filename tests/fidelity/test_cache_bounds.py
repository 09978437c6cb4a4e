"""The report's per-run caches keep short keys only: a card with megabyte key names is judged the same,
but nothing of it outlives its report (rev1's finding: ~4 MB kept per such file until a cache cleared)."""

from __future__ import annotations

from interop.fidelity import added, view
from interop.fidelity.added import added_fields
from interop.fidelity.view import CanonicalView
from interop.limits import DEFAULT_LIMITS

LONG = "k" * 100_000


def test_a_long_key_order_is_checked_but_not_kept() -> None:
    value = {"name": "A", LONG: 1}
    short = {"name": "A", "x": 1}
    assert view._as_dumped(value, "card_data", DEFAULT_LIMITS) == view._as_dumped(short, "card_data", DEFAULT_LIMITS)
    assert not any(LONG in keys for _, keys in view._ORDERED)
    assert ("card_data", ("name", "x")) in view._ORDERED  # short orders are still kept


def test_added_lines_naming_a_long_key_are_rendered_but_not_kept() -> None:
    source = CanonicalView(kind="card", card={"name": "A"}, book={}, entries=[])
    output = CanonicalView(kind="card", card={"name": "A", LONG: 1}, book={}, entries=[])
    first = added_fields(source, output)
    assert first == added_fields(source, output) and any(LONG in line for line in first)
    assert not any(LONG in line for lines in added._LINES.values() for line in lines)


def test_journal_paths_naming_a_long_key_are_folded_but_not_kept() -> None:
    from dataclasses import dataclass, field

    from interop.fidelity import journal_fold
    from interop.findings import Finding, Journal

    @dataclass
    class Report:
        added: list[str] = field(default_factory=list)
        warnings: list[str] = field(default_factory=list)

    journal = Journal(findings=[Finding("added", ("entry", 0, LONG), "d", value="1")])
    for _ in range(2):  # the first names the field, the second meets the check in C
        report = Report(added=[f"entry.{LONG} = 1 (1 entries)"])
        journal_fold.fold_added(report, journal)
        assert report.added == [f"entry.{LONG} = 1 (1 entries)"]
    assert not any(LONG in path for key in journal_fold._NAMES_OF for p in key for path in p[2:])


def test_a_layout_naming_a_long_key_is_made_but_not_kept() -> None:
    from interop.fidelity import report

    source = CanonicalView(kind="card", card={"name": "A", LONG: 1}, book={}, entries=[])
    assert report._layout_of(source).paths == report._layout_of(source).paths
    assert any(LONG in path for path in report._layout_of(source).paths)
    assert not any(LONG in str(key) for key in report._LAYOUTS)
