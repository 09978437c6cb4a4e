"""Every corpus card and lorebook through every writable target (issue 6, item 5).

For each (file, target) pair that applies (``tests.validator.split_pairs``; the pairs
that do not, e.g. a card without a lorebook to a lorebook format, are checked to be
refused with a ConversionError, not skipped): the conversion succeeds, the report
accounts for every source field exactly once, and the way back keeps the report's
promises: every field it called kept, translated or stashed comes back equal (so a
report without approximated/lost items means source -> target -> source is deep-equal
on every source field). Each file written back in its own format is identical.

The reports of the project's own corpus files are snapshotted
(tests/fidelity/snapshots/; update with ``pytest --snapshot-update`` and
review the diff).
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from pytest_snapshot.plugin import Snapshot

from interop.api import read
from interop.document import Document
from interop.errors import ConversionError
from interop.fidelity import fidelity_report
from interop.fidelity.render import summary_lines
from interop.platform.registry import get_format, writable_formats
from tests.conftest import PROJECT_CORPUS, SHARED_CORPUS, corpus_params
from tests.validator import (
    assert_identity,
    assert_refused,
    assert_via,
    pair_params,
    split_pairs,
)

NOT_SAMPLES = {".py", ".md", ".txt", ".jsonl", ".tsv"}
SNAPSHOTS = Path(__file__).parent / "snapshots"


def _samples(root: Path) -> list[Path]:
    if not root.is_dir():
        return []
    return sorted(
        p
        for p in root.rglob("*")
        if p.is_file()
        and p.suffix.lower() not in NOT_SAMPLES
        and not p.name.startswith(".")
        and "chats" not in p.relative_to(root).parts  # not the checkout's own path (a worktree named chats)
    )


PROJECT = _samples(PROJECT_CORPUS)
SHARED = _samples(SHARED_CORPUS)
TARGETS = sorted(f.name for f in writable_formats() if f.kind != "chat")  # chats: tests/formats/test_chats.py


@functools.cache
def _read(path: Path) -> Document:
    """Collection reads each file once to decide which pairs apply (the tests read their own copy)."""
    return read(path)


PROJECT_PAIRS, PROJECT_REFUSED = split_pairs(PROJECT, TARGETS, _read)
SHARED_PAIRS, SHARED_REFUSED = split_pairs(SHARED, TARGETS, _read)
WRITABLE_SOURCES = [p for p in PROJECT + SHARED if get_format(_read(p).format).write is not None]


@pytest.mark.parametrize(("source", "target", "path"), pair_params(PROJECT_PAIRS, "project corpus"))
def test_project_corpus(source: str, target: str, path: Path) -> None:
    assert_via(source, target, path)


@pytest.mark.parametrize(("source", "target", "path"), pair_params(SHARED_PAIRS, "shared corpus"))
def test_shared_corpus(source: str, target: str, path: Path) -> None:
    assert_via(source, target, path)


def test_pairs_that_do_not_apply_are_refused() -> None:
    """The pairs left out above (a card without a book to a lorebook format, a story from
    anything but a story) are exactly those the writers refuse, with the reason given."""
    assert PROJECT_REFUSED, "the project corpus has cards without a lorebook"
    for pair, reason in PROJECT_REFUSED + SHARED_REFUSED:
        assert_refused(read(pair.path), pair.target, reason)


@pytest.mark.parametrize("path", corpus_params(WRITABLE_SOURCES, "writable corpus"))
def test_written_back_in_its_own_format_is_identical(path: Path) -> None:
    assert_identity(_read(path).format, path)


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
