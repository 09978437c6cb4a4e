"""Risu lorebook folders through a SillyTavern world (issue 19 item 2): kept, and the report agrees with the table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from interop.api import read, read_bytes, write
from interop.fidelity import fidelity_report
from interop.mappings import load
from tests.conftest import corpus_params, project_files, shared_files


def _rows(path: Path) -> list[dict[str, Any]]:
    value = json.loads(path.read_bytes())
    data = value.get("data") if isinstance(value, dict) else None
    return data if isinstance(data, list) else []


FOLDER_BOOKS = [
    p
    for p in shared_files("risu") + project_files("risu")
    if p.suffix == ".json" and "character" not in p.name and any(e.get("mode") == "folder" for e in _rows(p))
]


def _folder_rows(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(e.get("key"), e.get("comment"), e.get("folder")) for e in rows if e.get("mode") == "folder"]


@pytest.mark.parametrize("path", corpus_params(FOLDER_BOOKS, "Risu lorebook export with folders"))
def test_folders_come_back_through_a_sillytavern_world(path: Path) -> None:
    """risu-lorebook -> sillytavern-world -> risu-lorebook gives the folders back, and the report says stashed.

    The folders travel in the world's ``originalData.extensions``: SillyTavern's ``/import`` route
    (src/endpoints/worldinfo.js) writes an uploaded world file as it is (it only checks ``entries``) and
    ``/edit`` saves the editor's whole object, whose entries keep their ``extensions`` (reference
    sillytavern.md 1.1 and 2; the editor only syncs mapped keys into ``originalData``:
    public/scripts/world-info.js ``originalWIDataKeyMap``).
    """
    raw = _rows(path)
    source = read(path)
    world = write(source, "sillytavern-world")
    assert "folders" in json.loads(world)["originalData"]["extensions"]["risuai"]
    back = json.loads(write(read_bytes(world, filename="world.json"), "risu-lorebook"))["data"]
    assert _folder_rows(back) == _folder_rows(raw) != []
    assert [e.get("folder") for e in back] == [e.get("folder") for e in raw]
    assert [e.get("comment") for e in back] == [e.get("comment") for e in raw]
    # The report and the table say the same thing: stashed, not lost.
    item = fidelity_report(source, "sillytavern-world", world).item("book.extensions.risuai.folders")
    rule = load("sillytavern").rule_for("sillytavern-world", "book.extensions.risuai.folders")
    assert item is not None and rule is not None
    assert (item.fate, rule.fate) == ("stashed", "stashed")
