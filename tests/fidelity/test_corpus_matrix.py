"""Every corpus card and lorebook through every writable target (issue 6, item 5).

For each (file, target): the conversion succeeds (a ConversionError, e.g. a card
without a lorebook to a lorebook format, is accepted and shows up as a skip),
the report accounts for every source field exactly once, and the way back
keeps the report's promises: every field it called kept, translated or
stashed comes back equal (so a report without approximated/lost items means
source -> target -> source is deep-equal on every source field).

The reports of the project's own corpus files are snapshotted
(tests/fidelity/snapshots/; update with ``pytest --snapshot-update`` and
review the diff).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from pytest_snapshot.plugin import Snapshot

from interop.api import read
from interop.errors import ConversionError
from interop.fidelity import fidelity_report
from interop.fidelity.containers import container_paths
from interop.fidelity.paths import render
from interop.fidelity.render import summary_lines
from interop.fidelity.roundtrip import Leg, roundtrip
from interop.fidelity.view import leaves, view_of
from interop.formats.registry import writable_formats
from tests.conftest import PROJECT_CORPUS, SHARED_CORPUS, corpus_params

NOT_SAMPLES = {".py", ".md", ".txt", ".jsonl", ".tsv"}
SNAPSHOTS = Path(__file__).parent / "snapshots"


def _samples(root: Path) -> list[Path]:
    if not root.is_dir():
        return []
    return sorted(
        p
        for p in root.rglob("*")
        if p.is_file() and p.suffix.lower() not in NOT_SAMPLES and not p.name.startswith(".") and "chats" not in p.parts
    )


PROJECT = _samples(PROJECT_CORPUS)
SHARED = _samples(SHARED_CORPUS)
TARGETS = sorted(f.name for f in writable_formats())


# Round-trip failures already traced to an adapter (not to the report): the
# forward report promised the field back and the way back loses it. Each
# entry: (target regex, source format regex, changed-path regex, reason). A case is
# xfailed only when every unkept promise matches an entry; fix the adapter and
# delete the entry (the xfail is not strict, so a fixed case just passes).
KNOWN_WAY_BACK_BUGS: list[tuple[str, str, str, str]] = []
# Conversions that crash (a bug outside interop.fidelity): (target, exception text regex, reason).
KNOWN_CRASHES: list[tuple[str, str, str]] = []


def _known(leg: Leg, source_format: str) -> str | None:
    reasons = set()
    for change in leg.unpredicted:
        path = render(change.path)
        match = next(
            (
                reason
                for target, source, rx, reason in KNOWN_WAY_BACK_BUGS
                if re.fullmatch(target, leg.target) and re.fullmatch(source, source_format) and re.fullmatch(rx, path)
            ),
            None,
        )
        if match is None:
            return None
        reasons.add(match)
    return "; ".join(sorted(reasons))


def _check(path: Path, target: str) -> None:
    doc = read(path)
    try:
        leg = roundtrip(doc, target)
    except Exception as exc:
        crash = next((r for t, rx, r in KNOWN_CRASHES if t == target and re.search(rx, str(exc))), None)
        if crash is None:
            raise
        pytest.xfail(f"{type(exc).__name__}: {crash}")
    if leg.skipped is not None:
        pytest.skip(f"ConversionError: {leg.skipped}")
    report = leg.forward
    assert report is not None
    paths = [item.path for item in report.items]
    duplicates = [p for p, n in Counter(paths).items() if n > 1]
    assert duplicates == [], "a field got two fates"
    view = view_of(doc)
    expected = {render(p) for p in leaves(view)} | {render(p) for p in container_paths(view)}
    assert set(paths) == expected, "the report must account for every source field"
    if not leg.ok:
        known = _known(leg, doc.format)
        shown = [f"{render(c.path)}: {c.describe()} [way back {leg.way_back(render(c.path))}]" for c in leg.unpredicted]
        if known:
            pytest.xfail(known)
        pytest.fail("promised back but changed:\n" + "\n".join(shown[:10]))
    if not report.has_losses:
        # Without a way back (a read-only source) the target itself is compared: a part
        # the report says moved must be at its new address, byte-identical (leg.moved).
        assert [c for c in leg.changes if c.kind != "added" and render(c.path) not in leg.moved] == []


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("path", corpus_params(PROJECT, "project corpus"))
def test_project_corpus(path: Path, target: str) -> None:
    _check(path, target)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("path", corpus_params(SHARED, "shared corpus"))
def test_shared_corpus(path: Path, target: str) -> None:
    _check(path, target)


def _snapshot_text(path: Path) -> str:
    doc = read(path)
    out = [f"# {path.relative_to(PROJECT_CORPUS)} ({doc.format})"]
    for target in TARGETS:
        try:
            report = fidelity_report(doc, target)
        except ConversionError as exc:
            out += ["", f"-> {target}: ConversionError: {exc.reason}"]
            continue
        out += ["", *summary_lines(report, width=160)]
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("path", corpus_params(PROJECT, "project corpus"))
def test_project_corpus_reports(path: Path, snapshot: Snapshot) -> None:
    snapshot.snapshot_dir = SNAPSHOTS
    name = str(path.relative_to(PROJECT_CORPUS)).replace("/", "__") + ".txt"
    snapshot.assert_match(_snapshot_text(path), name)
