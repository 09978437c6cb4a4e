"""Issue 19 items 3, 4, 7: one report view, grouped by rule, entries named, wrapped, and as JSON.

Checked on real books of the shared corpus; expectations come from the source files themselves
(their entries' comments, their entry count), not from the code under test.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from interop import api
from interop.cli import cli
from interop.fidelity import fidelity_report
from interop.fidelity.entrydiff import diff_documents
from interop.fidelity.names import entry_name
from interop.fidelity.render import ADDED_SHOWN, packed
from tests.conftest import SHARED_CORPUS

ELDEN = SHARED_CORPUS / "st-worldinfo" / "eldenring_nightreign_master_complete_st_2025.json"
ELDORIA = SHARED_CORPUS / "st-worldinfo" / "st_Eldoria.json"
ARLEIGH = SHARED_CORPUS / "cards-png" / "cf_Arleigh_the_Cheerful_Assassin.png"


def need(*paths: Path) -> None:
    for path in paths:
        if not path.exists():
            pytest.skip(f"{path} not found (is ../shared beside the repo?)")


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout


def world_comments(path: Path) -> list[str]:
    """The comments of a SillyTavern world's entries, in file order, read straight from the JSON."""
    return [str(e.get("comment", "")) for e in json.loads(path.read_text())["entries"].values()]


def test_an_entry_is_named_by_comment_then_name_then_keys_then_index() -> None:
    assert entry_name(4, {"comment": "Wylder", "name": "w", "keys": ["k"]}) == "Wylder"
    assert entry_name(4, {"comment": " ", "name": "Duchess", "keys": ["k"]}) == "Duchess"
    assert entry_name(4, {"comment": "", "keys": ["king", "queen", "royalty"]}) == "keys: king, queen"
    assert entry_name(4, {"comment": "", "keys": []}) == "#4"
    assert len(entry_name(0, {"comment": "x" * 300})) == 40  # a label, not a quote


def test_roundtrip_of_a_real_book_is_one_line_per_rule_naming_entries() -> None:
    need(ELDEN)
    code, text = run("roundtrip", str(ELDEN), "--via", "novelai-lorebook")
    assert code == 0, text
    code, raw = run("roundtrip", str(ELDEN), "--via", "novelai-lorebook", "--json")
    leg = json.loads(raw)["files"][0]["legs"][0]
    view = leg["view"]
    changes = leg["changes"]
    assert len(changes) > 1000  # every entry loses its SillyTavern settings in NovelAI
    assert sum(g["count"] for g in view["groups"]) == len(changes)  # every difference in one group
    keys = [(g["fate"], g["label"]) for g in view["groups"]]
    assert len(keys) == len(set(keys))  # one group per status and rule/field
    assert len(text.splitlines()) < len(changes) / 10
    assert text.splitlines()[1].startswith("  via novelai-lorebook -> sillytavern-world: ")  # verdict first
    assert " ".join(view["verdict"].split()) in " ".join(text.split())
    comments = world_comments(ELDEN)
    every = [g for g in view["groups"] if g["all_entries"]]
    assert every and all(g["entries"] == comments for g in every)  # named by their comments, in order
    assert f"entries: all {len(comments)}" in text
    assert "entry[4]" not in text  # entries are named, not numbered


def test_details_never_cut_a_reason(tmp_path: Path) -> None:
    need(ARLEIGH)
    report = tmp_path / "r.json"
    args = ["convert", str(ARLEIGH), "--to", "sillytavern-world", "-o", str(tmp_path / "w.json")]
    code, text = run(*args, "--report", str(report), "--details")
    assert code == 0, text
    flat = " ".join(text.split())
    details = {item["detail"] for item in json.loads(report.read_text())["items"] if item["detail"]}
    assert details
    for detail in details:
        assert " ".join(detail.split()) in flat, detail
    code, grouped = run(*args[:-1], str(tmp_path / "w2.json"))  # without --details: grouped
    assert code == 0 and len(grouped.splitlines()) < len(text.splitlines())
    for line in grouped.splitlines()[1:]:  # the first names the files (convert's own line)
        assert len(line) <= 100 or " " not in line.strip(), line  # wrapped at 100 when not a terminal


def test_diff_app_section_pairs_entries_as_the_body_does(tmp_path: Path) -> None:
    """B is A's book as a CCv3 card with the entries reversed: SillyTavern loads every entry with
    A's settings, so the app section says nothing (compared by position it saw 4 entries differ).
    Then one entry's depth is changed in B: the app section names that entry, by A's comment/keys."""
    need(ELDORIA)
    a = api.read(ELDORIA)
    card = json.loads(api.write(a, "ccv3"))
    entries = card["data"]["character_book"]["entries"]
    entries.reverse()
    b_bytes = json.dumps(card).encode()
    result = diff_documents(a, api.read_bytes(b_bytes, filename="b.json"), b_bytes)
    assert result.reordered and result.apps == []
    first_key = entries[0]["keys"][0]  # B's first entry is A's last
    entries[0]["extensions"]["depth"] = 9
    path = tmp_path / "b.json"
    path.write_bytes(json.dumps(card).encode())
    code, raw = run("diff", str(ELDORIA), str(path), "--json")
    data = json.loads(raw)
    assert code == 1
    findings = [f for app in data["apps"] for f in app["findings"]]
    a_index = [e["key"][0] for e in json.loads(ELDORIA.read_text())["entries"].values()].index(first_key)
    assert findings and {f["path"].split(".")[0] for f in findings} == {f"entry[{a_index}]"}
    named = {name for app in data["view"]["apps"] for g in app["groups"] for name in g["entries"]}
    assert len(named) == 1 and first_key in named.pop()  # Eldoria's entries have no comment: named by keys


def test_validate_json_says_what_the_text_says(shared_corpus: Path) -> None:
    paths = [str(p) for p in sorted((shared_corpus / "cards-json").iterdir())]
    code_text, text = run("validate", "--strict", *paths)
    code_json, raw = run("validate", "--strict", "--json", *paths)
    data = json.loads(raw)
    assert code_text == code_json
    assert [f"{f['path']}: {f['status']} ({f['format']})" for f in data["files"]] == [
        line for line in text.splitlines() if not line.startswith("  ")
    ]
    problems = [f"  {p['severity']}: {p['path']}: {p['message']}" for f in data["files"] for p in f["problems"]]
    assert problems == [line for line in text.splitlines() if line.startswith("  ")]


def test_many_added_fields_are_packed_per_object_none_left_out() -> None:
    need(ELDEN)
    report = fidelity_report(api.read(ELDEN), "ccv3")
    assert len(report.added) > ADDED_SHOWN
    lines = packed(report.added)
    assert len(lines) < len(report.added)
    text = " ".join(lines)
    for line in report.added:
        path, sep, value = line.partition(" = ")
        assert (f"{path.rpartition('.')[2]} = {value}" if sep else line) in text, line
