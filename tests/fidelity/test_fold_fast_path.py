"""``fold_added``'s check in C (``_all_known``) gives what its walk gives: nothing is folded only when
the walk would fold nothing either."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interop.fidelity import journal_fold
from interop.fidelity.journal_fold import fold_added
from interop.findings import Finding, Journal


@dataclass
class _Report:
    added: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


_TAILS = [("enabled",), ("extensions", "vectorized"), ("extensions", "depth"), ("x", 1), ("x", True)]
entry_path = st.tuples(st.sampled_from([0, 1, 2, True]), st.sampled_from(_TAILS)).map(
    lambda pair: ("entry", pair[0], *pair[1])
)
other_path = st.sampled_from([("card", "name"), ("book", "scan_depth"), ("entry", 0), ("entry",), ("card",)])
finding = st.builds(
    Finding,
    fate=st.sampled_from(["added", "added", "added", "lost", "changed"]),
    path=st.one_of(entry_path, entry_path, other_path),
    detail=st.sampled_from(["required", "a new card"]),
    value=st.sampled_from(["true", "false", "4", None]),
)
_LINES = [
    "entry.enabled = true (2 entries)",
    "entry.extensions.vectorized = false (1 entries)",
    "entry.extensions.depth = 4",
    "entry.x[1] = 1",
    "card.name = x",
    "book.scan_depth = 4",
    "unrelated",
]
report_lines = st.one_of(st.lists(st.sampled_from(_LINES), max_size=6), st.just(_LINES))  # all: the usual report


def _folded(lines: list[str], findings: list[Finding]) -> _Report:
    report = _Report(added=list(lines))
    fold_added(report, Journal(findings=list(findings)))
    return report


@settings(max_examples=400, deadline=None)
@given(report_lines, st.lists(finding, max_size=8), st.booleans())
def test_the_check_in_c_folds_what_the_walk_folds(lines: list[str], findings: list[Finding], warm: bool) -> None:
    if warm:  # the names the check looks up, as a run has them after its first report
        _folded([], [Finding("added", ("entry", 0, *tail), "d", value="1") for tail in _TAILS])
    fast = _folded(lines, findings)
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(journal_fold, "_all_known", lambda found, have: False)
        slow = _folded(lines, findings)
    assert fast == slow


def test_a_field_the_read_back_missed_is_folded_in() -> None:
    """The usual journal (every entry's added fields), one of them not in the report's lines."""
    findings = [Finding("added", ("entry", i, *tail), "d", value="1") for i in range(3) for tail in _TAILS[:3]]
    _folded([], findings)  # the names are known from now on
    lines = ["entry.enabled = 1 (3 entries)", "entry.extensions.vectorized = 1 (3 entries)"]
    assert journal_fold._all_known(findings, {"entry.enabled", "entry.extensions.vectorized"}) is False
    assert _folded(lines, findings).added == [*lines, "entry.extensions.depth = 1 (3 entries)"]
    every = [*lines, "entry.extensions.depth = 1 (3 entries)"]
    assert journal_fold._all_known(findings, {line.split(" = ")[0] for line in every}) is True
    assert _folded(every, findings).added == every


def test_an_addition_that_is_no_field_is_worded_whatever_its_path() -> None:
    findings = [Finding("added", ("entry", 0, "enabled"), "d", value="1")]
    lines = _folded([], findings).added
    worded = [*findings, Finding("added", ("entry", 1, "enabled"), "a whole new entry")]
    report = _Report(added=list(lines))
    fold_added(report, Journal(findings=worded))
    assert report.added == [*lines, "entry[1].enabled: a whole new entry"]
    assert report.warnings == ["a whole new entry"]


def test_kept_paths_with_a_true_index_are_walked() -> None:
    """``("entry", True, ...)`` equals a kept ``("entry", 1, ...)`` but names no entry: the walk decides."""
    lines = ["entry.enabled = 1 (1 entries)"]
    ints = [Finding("added", ("entry", 1, "enabled"), "d", value="1")]
    assert _folded(lines, ints).added == _folded(lines, ints).added == lines  # the second one meets the kept paths
    bools = [Finding("added", ("entry", True, "enabled"), "d", value="1")]
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(journal_fold, "_all_known", lambda found, have: False)
        walked = _folded(lines, bools).added
    assert walked != lines
    assert _folded(lines, bools).added == walked
