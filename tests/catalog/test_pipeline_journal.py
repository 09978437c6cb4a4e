"""A migration's report gets the writer's journal (issue 19), and an output that is its input
again is judged as if it had been read back."""

from __future__ import annotations

import json
from pathlib import Path

from interop.api import read, read_bytes, write
from interop.catalog.pipeline import RunConfig, process_file
from interop.conversion import convert_document
from interop.fidelity import fidelity_report

from .samples import make_card, write_card


def _config(tmp_path: Path, *targets: str) -> RunConfig:
    return RunConfig(targets=targets, out_dir=tmp_path / "out", data_dir=tmp_path / "data")


def test_migrating_a_lorebook_to_a_card_says_it_was_wrapped(tmp_path: Path) -> None:
    book = tmp_path / "in" / "harbour_lore.json"
    book.parent.mkdir()
    entry = {"keys": ["harbour"], "content": "Old.", "extensions": {}, "enabled": True, "insertion_order": 0}
    book.write_text(json.dumps({"entries": [entry], "extensions": {}}))
    outcome = process_file(_config(tmp_path, "ccv3"), book)
    report = json.loads(outcome.targets[0].report_json or "{}")
    assert any("wrapped in a new card named 'harbour_lore'" in w for w in report["warnings"])
    assert [f["path"] for f in report["findings"]] == [["card"]]


def test_an_output_identical_to_its_input_gets_the_read_back_report(tmp_path: Path) -> None:
    src = write_card(tmp_path / "in" / "a.json", make_card("Ilse", book_entries=3))
    written = tmp_path / "in" / "b.json"
    written.write_bytes(write(read(src), "ccv3"))  # our own ccv3 bytes: writing them again is identical
    doc = read(written)
    assert write(doc, "ccv3") == written.read_bytes()
    outcome = process_file(_config(tmp_path, "ccv3"), written)
    shortcut = json.loads(outcome.targets[0].report_json or "{}")
    read_back = convert_document(read_bytes(written.read_bytes(), filename=str(written)), "ccv3").report.to_json()
    assert shortcut["items"] == read_back["items"]
    assert shortcut["counts"] == read_back["counts"] and shortcut["added"] == read_back["added"]
    assert fidelity_report(doc, "ccv3", written.read_bytes()).to_json()["items"] == shortcut["items"]
