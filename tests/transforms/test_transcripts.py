"""Runs every transcript case of ``tests/transforms/cases/*.md`` (format: ``transcripts.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from interop.cli import cli
from tests.transforms.transcripts import Case, TranscriptError, all_cases, mismatches, read_cases, report_mismatch

CASES = all_cases()


def test_there_are_cases() -> None:
    assert len(CASES) >= 6


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_transcript(case: Case, tmp_path: Path) -> None:
    source, report = tmp_path / "input.json", tmp_path / "report.json"
    source.write_text(case.input, encoding="utf-8")
    for number, options in enumerate(case.steps, start=1):
        output = tmp_path / f"step{number}.json"
        args = ["convert", str(source), "-o", str(output), "--report", str(report), "--quiet", *options]
        result = CliRunner().invoke(cli, args, catch_exceptions=False)
        assert result.exit_code == 0, result.output
        source = output
    if case.has_output:
        problems = mismatches(case.output, json.loads(output.read_text(encoding="utf-8")))
        assert not problems, "\n".join(problems)
    if case.report is not None:
        problem = report_mismatch(case.report, json.loads(report.read_text(encoding="utf-8")))
        assert not problem, problem


def test_a_case_that_checks_nothing_is_refused(tmp_path: Path) -> None:
    case = tmp_path / "empty.md"
    blocks = ["```command\ninterop convert --to ccv3\n```", "```input\n{}\n```", "```output\n{}\n```"]
    case.write_text("## nothing\n\n" + "\n\n".join(blocks) + "\n")
    with pytest.raises(TranscriptError, match="checks nothing"):
        read_cases(case)


def test_a_report_line_with_an_unknown_fate_is_refused(tmp_path: Path) -> None:
    """A misspelled fate (``lsot -``) matches no report item, so the case would pass having checked nothing."""
    case = tmp_path / "typo.md"
    blocks = ["```command\ninterop convert --to ccv3\n```", "```input\n{}\n```", "```report\nlsot -\n```"]
    case.write_text("## typo\n\n" + "\n\n".join(blocks) + "\n")
    with pytest.raises(TranscriptError, match="unknown fate 'lsot'"):
        read_cases(case)


def test_output_blocks_compare_json_types_lengths_and_absent_keys() -> None:
    assert mismatches({"a": 1}, {"a": True}) == [".a: expected 1, got true"]
    assert mismatches({"a": [1]}, {"a": [1, 2], "b": 3}) == [".a: expected a list of 1, got [1, 2]"]
    assert mismatches({"b": "<absent>", "c": 2}, {"b": None}) == [".b: expected absent, got null", ".c: missing"]
    assert mismatches({"a": {"x": 1}}, {"a": {"x": 1, "y": 2}}) == []


def test_report_blocks_check_the_fates_they_name() -> None:
    report = {"items": [{"fate": "lost", "path": "book.name"}, {"fate": "kept", "path": "entry[0].content"}]}
    assert report_mismatch(("lost book.name", "approximated -"), report) == ""
    assert report_mismatch(("lost -",), report) == "lost: expected [], got ['lost book.name']"
