"""convert --report/--strict, roundtrip and diff on the command line."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from interop.cli import EXIT_CHECK_FAILED, cli
from interop.document import Document
from interop.platform import registry
from interop.platform.registry import WriteContext, get_format
from tests.st_exporter import ENTRY_REQUIRED, FLAT

SCHEMA = json.loads((Path(__file__).parents[2] / "docs" / "fidelity-report.schema.json").read_text())

CARD: dict[str, Any] = {
    "spec": "chara_card_v3",
    "spec_version": "3.0",
    "data": {
        "name": "Ilse",
        "description": "A captain.",
        "tags": ["sea"],
        "nickname": "Cap",
        "extensions": {},
        **dict.fromkeys(("personality", "scenario", "first_mes", "mes_example", "creator_notes", "system_prompt"), ""),
        **dict.fromkeys(("post_history_instructions", "creator", "character_version"), ""),
        "alternate_greetings": [],
        "group_only_greetings": [],
        "character_book": {
            "name": "Harbour",
            "entries": [
                {"keys": ["dock"], "content": "The docks.", "id": 1, "enabled": True},
                {"keys": ["tide"], "content": "Tides.", "id": 2, "enabled": False},
                {"keys": ["ship"], "content": "Ships.", "id": 3, "enabled": True},
            ],
        },
    },
}


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def card(tmp_path: Path) -> Path:
    path = tmp_path / "ilse.json"
    path.write_text(json.dumps(CARD), encoding="utf-8")
    return path


def test_convert_prints_the_table_and_writes_a_valid_report(card: Path, tmp_path: Path) -> None:
    out, report = tmp_path / "book.json", tmp_path / "report.json"
    code, stdout, _ = run("convert", str(card), "--to", "lorebook_v3", "-o", str(out), "--report", str(report))
    assert code == 0
    assert out.exists()
    assert (
        stdout.splitlines()[1]
        == "ccv3 -> lorebook_v3: nothing a user would miss (16 not applicable: counted apart, not lost)"
    )
    assert "card.** (16 fields)" in stdout and "a standalone lorebook holds no character" in stdout
    data = json.loads(report.read_text())
    jsonschema.validate(data, SCHEMA)
    # issue 19 item 6: the character has no place in a lorebook: not applicable, not lost
    assert data["counts"]["not_applicable"] == 16 and data["counts"]["lost"] == 0
    assert data["source"]["format"] == "ccv3" and data["target"]["format"] == "lorebook_v3"


def test_strict_fails_on_losses_but_still_writes(card: Path, tmp_path: Path) -> None:
    out = tmp_path / "book.json"
    code, _, stderr = run("convert", str(card), "--to", "lorebook_v3", "-o", str(out), "--strict", "-q")
    assert code == 0, stderr  # the character is not applicable to a lorebook: nothing a user misses
    card.write_text(json.dumps({**CARD, "x_top": 1}), encoding="utf-8")  # an unknown top-level key: no place
    code, _, stderr = run("convert", str(card), "--to", "lorebook_v3", "-o", str(out), "--strict", "-q")
    assert code == EXIT_CHECK_FAILED
    assert out.exists()
    assert "strict: 0 approximated and 1 lost" in stderr


def test_strict_passes_when_everything_is_kept_or_stashed(card: Path, tmp_path: Path) -> None:
    code, stdout, _ = run("convert", str(card), "--to", "ccv2", "-o", str(tmp_path / "v2.json"), "--strict")
    assert code == 0
    assert "stashed (2):" in stdout and "card.nickname" in stdout and "card.group_only_greetings" in stdout


def test_quiet_and_details(card: Path, tmp_path: Path) -> None:
    code, stdout, _ = run("convert", str(card), "--to", "ccv3", "-o", str(tmp_path / "a.json"), "-q")
    assert code == 0 and len(stdout.strip().splitlines()) == 1
    code, stdout, _ = run("convert", str(card), "--to", "ccv3", "-o", str(tmp_path / "b.json"), "--details")
    assert "entry[2].content" in stdout  # every field listed


def test_report_never_overwrites_an_input(card: Path, tmp_path: Path) -> None:
    code, _, stderr = run("convert", str(card), "--to", "ccv3", "-o", str(tmp_path / "o.json"), "--report", str(card))
    assert code != 0
    assert "refusing to overwrite an input file" in stderr
    assert json.loads(card.read_text()) == CARD


def test_roundtrip_prints_identical_and_predicted_differences(card: Path) -> None:
    code, stdout, _ = run("roundtrip", str(card), "--via", "ccv2", "--via", "lorebook_v3")
    assert code == 0, stdout
    assert "via ccv2 -> ccv3: identical but for" in stdout  # SillyTavern's flat keys (tests/st_exporter.py)
    assert "via lorebook_v3 -> ccv3: differs, as reported" in stdout
    assert "card.** (4 fields): card.name, card.description, card.tags, card.nickname" in stdout
    assert "not applicable: a standalone lorebook holds no character" in stdout


def test_roundtrip_skips_a_lorebook_target_for_a_card_without_book(tmp_path: Path) -> None:
    path = tmp_path / "nobook.json"
    path.write_text(json.dumps({"spec": "chara_card_v3", "spec_version": "3.0", "data": {"name": "X"}}))
    code, stdout, _ = run("roundtrip", str(path), "--via", "lorebook_v3")
    assert code == 0
    assert "via lorebook_v3: skipped (the card has no lorebook" in stdout


def test_roundtrip_exits_1_when_a_promised_field_does_not_come_back(
    card: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ccv3 written from a V2 document drops the tags: the forward report
    # (ccv3 -> ccv2) promised them back, so the round trip must fail.
    ccv3 = get_format("ccv3")
    original = ccv3.write
    assert original is not None

    def lossy(doc: Document, ctx: WriteContext) -> bytes:
        data = json.loads(original(doc, ctx))
        if doc.format == "ccv2":
            data["data"].pop("tags", None)
        return json.dumps(data).encode()

    monkeypatch.setitem(registry._FORMATS, "ccv3", dataclasses.replace(ccv3, write=lossy))
    code, stdout, _ = run("roundtrip", str(card), "--via", "ccv2")
    assert code == EXIT_CHECK_FAILED
    assert "DIFFERS: 1 change(s) the report did not predict" in stdout
    assert "! not predicted by the report (1):\n      card.tags removed (1 field)\n" in stdout
    assert 'removed (was ["sea"]) [way back lost: not in the ccv3 output' in stdout


def test_diff_matches_entries_by_id_then_content(card: Path, tmp_path: Path) -> None:
    other = json.loads(json.dumps(CARD))
    entries = other["data"]["character_book"]["entries"]
    entries[0]["content"] = "The old docks."  # same id, changed content
    entries[1]["id"] = 20  # id changed, keys and content equal: matched by content
    del entries[2]  # only in A
    entries.append({"keys": ["gull"], "content": "Gulls.", "id": 4})  # only in B
    other["data"]["name"] = "Ilse V."
    b = tmp_path / "other.json"
    b.write_text(json.dumps(other))
    code, stdout, _ = run("diff", str(card), str(b))
    assert code == EXIT_CHECK_FAILED
    assert "DIFFERENT: 5 difference(s)" in stdout.splitlines()[2]  # the verdict comes first
    assert '  card.name (1 field)\n    "Ilse" -> "Ilse V."' in stdout
    assert "entry[*].content (1 field in 1 entry)" in stdout and "entries: keys: dock (#0)" in stdout
    assert "only in A (1): keys: ship (#2)" in stdout and "only in B (1): keys: gull (#2)" in stdout
    code, stdout, _ = run("diff", str(card), str(b), "--details")
    assert "keys: dock (#0) (B #0, matched by id):" in stdout
    assert '    content: "The docks." -> "The old docks."' in stdout
    assert "keys: tide (#1) (B #1, matched by keys and content):" in stdout
    assert "    id: 2 -> 20" in stdout
    code, stdout, _ = run("diff", str(card), str(b), "--json")
    data = json.loads(stdout)
    assert code == EXIT_CHECK_FAILED and data["count"] == 5 and data["view"]["verdict"].startswith("DIFFERENT: 5")
    assert [(e["a"], e["b"], e["matched_by"]) for e in data["entries"]] == [(0, 0, "id"), (1, 1, "keys and content")]
    assert data["view"]["only_a"] == ["keys: ship (#2)"] and data["view"]["only_b"] == ["keys: gull (#2)"]


def test_diff_across_formats_sees_only_what_the_writer_adds(card: Path, tmp_path: Path) -> None:
    v2 = tmp_path / "ilse.v2.json"
    assert run("convert", str(card), "--to", "ccv2", "-o", str(v2), "-q")[0] == 0
    code, stdout, _ = run("diff", str(card), str(v2), "--json")
    data = json.loads(stdout)
    changes = data["sections"] + [c for entry in data["entries"] for c in entry["changes"]]
    assert code == 1 and changes, stdout
    for change in changes:  # ST's flat keys, and our note that entry 1's use_regex is real (not ST's constant)
        line = f"{change['path']}: {change['detail']}"
        assert change["kind"] == "added" and change["detail"].startswith("added: "), line
        path, value = change["path"], change["detail"][len("added: ") :]
        if path == "extensions":  # the entry had none: the whole object is new
            assert set(json.loads(value)) <= FLAT, line
        elif "." not in path:
            assert path in ENTRY_REQUIRED, line
        else:
            assert path.split(".")[1] in FLAT or path == "extensions.sillytavern.entry.card_fields.use_regex", line
    assert data["apps"] == [] and data["view"]["apps"] == []  # SillyTavern loads B with A's settings


def test_diff_sees_a_file_sillytavern_loads_differently(card: Path, tmp_path: Path) -> None:
    """Same fields, other settings at the app: ST's ``convertCharacterBook`` (public/scripts/world-info.js)
    reads ``extensions.depth``, not our namespace, so a stale flat key wins there."""
    v2 = tmp_path / "ilse.v2.json"
    assert run("convert", str(card), "--to", "ccv2", "-o", str(v2), "-q")[0] == 0
    data = json.loads(v2.read_text())
    data["data"]["character_book"]["entries"][0]["extensions"]["depth"] = 9
    v2.write_text(json.dumps(data))
    code, stdout, _ = run("diff", str(card), str(v2))
    assert code == 1
    assert "at sillytavern" in stdout and "depth = 9" in stdout, stdout
