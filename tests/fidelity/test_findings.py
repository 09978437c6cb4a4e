"""The findings vocabulary and journal (interop/findings.py), and issue 19 items 3 and 4.

Item 3: a change of container (ccv3 JSON -> PNG / CHARX) leaves the card JSON identical or
the report names each addition. The output's card JSON is taken from the container with the
standard library (tEXt chunk, zip member), not with our readers, and compared with the source
file's JSON: every path only the output has must be named in ``report.added``, and no value
the source has may differ.

Item 4: a standalone lorebook written to a card format is wrapped in a new card: the writer
records it and the report says so.
"""

from __future__ import annotations

import base64
import io
import json
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

import pytest

from interop.api import read, read_bytes, write_with_journal
from interop.conversion import convert_document
from interop.fidelity import fidelity_report
from interop.fidelity.journal_fold import added_lines, hazard_findings
from interop.findings import FATE_ORDER, Journal, current, record, recording, worst
from interop.platform.registry import get_platform

CORPUS = Path(__file__).parents[2] / "corpus"
V3_CARDS = [CORPUS / "cards" / "ilse_v3.json"]
SHARED = Path(__file__).parents[3] / "shared" / "corpus" / "cards-json"
SHARED_V3 = ["ca_test_card_luna_v3.json", "tavernkit_full_v3_card.json"]


def test_fate_order_is_the_issues_worst_first() -> None:
    assert FATE_ORDER == (
        "lost",
        "changed",
        "added",
        "moved",
        "stashed",
        "kept (default)",
        "not applicable",
        "kept",
    )
    assert worst(["kept", "stashed", "changed"]) == "changed"
    assert worst([]) == "kept"


def test_record_outside_a_recording_does_nothing_and_inside_collects() -> None:
    record("lost", ("card", "name"), "nowhere to go")  # no journal open: a reader's call is harmless
    assert current() is None
    with recording() as journal:
        record("added", ("entry", 0, "enabled"), "required", value="true")
        record("added", ("entry", 1, "enabled"), "required", value="true")
        record("lost", ("card", "name"), "nowhere to go", by="test writer")
    assert current() is None
    assert [f.fate for f in journal] == ["added", "added", "lost"]
    assert added_lines(journal.by_fate("added")) == ["entry.enabled = true (2 entries)"]
    assert [(h.path, h.fate) for h in hazard_findings(journal)] == [(("card", "name"), "lost")]


EDGE_WORLD = {  # SillyTavern knobs no Risu decorator expresses (tests/transforms/test_risu_losses.py)
    "entries": {
        "0": {"uid": 0, "key": ["a"], "content": "x", "delay": 2.5},
        "1": {"uid": 1, "key": ["b"], "content": "y", "useProbability": True, "probability": 50.5},
        "2": {"uid": 2, "key": ["c"], "content": "z", "matchWholeWords": "yes"},
    }
}


@pytest.mark.parametrize("target", ["risu-lorebook", "risum"])
def test_risu_writer_records_what_no_decorator_expresses(target: str) -> None:
    """The Risu writers record the st_risu rewrite's losses as they write: the records the risu
    platform's ``hazards`` give, which the report then does not compute again."""
    doc = read_bytes(json.dumps(EDGE_WORLD).encode(), filename="edge.json")
    assert doc.book is not None
    written = write_with_journal(doc, target)
    assert written.journal.covers("hazards:risu")
    hazards = get_platform("risu").hazards
    assert hazards is not None
    expected = [(tuple(c.path), c.detail) for c in hazards(doc.book)]
    assert len(expected) == 3
    assert [(f.path, f.detail) for f in written.journal if f.fate in ("lost", "changed")] == expected
    report = fidelity_report(doc, target, written.data, journal=written.journal)
    assert report.item("entry[0].extensions.sillytavern.entry.delay").fate == "approximated"  # type: ignore[union-attr]


def test_reading_a_risu_file_records_nothing() -> None:
    """The readers call the Risu writer's entry code to check their parse: never into a journal."""
    data = write_with_journal(read_bytes(json.dumps(EDGE_WORLD).encode(), filename="e.json"), "risu-lorebook").data
    with recording() as journal:
        read_bytes(data, format="risu-lorebook")
    assert len(journal) == 0 and not journal.covered


# --- item 3 --------------------------------------------------------------------------------


def _png_card_json(data: bytes) -> dict[str, Any]:
    """The ``ccv3`` tEXt chunk (PNG spec: length, type, keyword NUL text, CRC), decoded."""
    pos = 8
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if kind == b"tEXt":
            keyword, _, text = body.partition(b"\0")
            if keyword == b"ccv3":
                return json.loads(base64.b64decode(text))  # type: ignore[no-any-return]
        if kind == b"zTXt":
            keyword, _, rest = body.partition(b"\0")
            if keyword == b"ccv3":
                return json.loads(base64.b64decode(zlib.decompress(rest[1:])))  # type: ignore[no-any-return]
        pos += 12 + length
    raise AssertionError("no ccv3 chunk in the PNG output")


def _charx_card_json(data: bytes) -> dict[str, Any]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return json.loads(archive.read("card.json"))  # type: ignore[no-any-return]


def _differences(a: Any, b: Any, path: str, added: list[str], changed: list[str]) -> None:
    """Leaf paths only ``b`` has (``added``) and paths whose values differ (``changed``);
    entries are named ``entry.<field>`` as the report's added lines name them."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in b:
            child = f"{path}.{key}" if path else key
            if key not in a:
                added.extend(_leaves(b[key], child))
            else:
                _differences(a[key], b[key], child, added, changed)
        changed.extend(f"{path}.{key}" if path else key for key in a if key not in b)
    elif isinstance(a, list) and isinstance(b, list) and path.endswith("character_book.entries"):
        for x, y in zip(a, b, strict=True):
            _differences(x, y, "entry", added, changed)
    elif json.dumps(a, sort_keys=True) != json.dumps(b, sort_keys=True):
        changed.append(path)


def _leaves(value: Any, path: str) -> list[str]:
    if isinstance(value, dict) and value:
        return [leaf for key, item in value.items() for leaf in _leaves(item, f"{path}.{key}")]
    return [path]


def _named(path: str, added: list[str]) -> bool:
    """``path`` (``data.name`` or ``entry.extensions.vectorized``) is named by an added line."""
    name = path.removeprefix("data.").replace("character_book.", "book.")
    name = name if name.startswith("entry.") else f"card.{name}"
    return any(line.split(" = ", 1)[0] in (name, *_parents(name)) for line in added)


def _parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(2, len(parts))]


def _v3_cards() -> list[Path]:
    shared = [SHARED / name for name in SHARED_V3 if (SHARED / name).is_file()]
    return V3_CARDS + shared


@pytest.mark.parametrize("target", ["png", "charx"])
@pytest.mark.parametrize("source", _v3_cards(), ids=lambda p: p.name)
def test_container_change_names_every_addition(source: Path, target: str) -> None:
    original = json.loads(source.read_bytes())
    conversion = convert_document(read(source), target)
    output = (_png_card_json if target == "png" else _charx_card_json)(conversion.data)
    added: list[str] = []
    changed: list[str] = []
    _differences(original, output, "", added, changed)
    assert not changed, f"{target} changed the card JSON without saying so: {changed}"
    unnamed = sorted({path for path in added if not _named(path, conversion.report.added)})
    assert not unnamed, f"{target} added fields the report does not name: {unnamed}"


def test_vectorized_added_to_entries_is_named() -> None:
    """The issue's example: ``extensions.vectorized`` on each entry lacking it, counted per entry."""
    doc = read(V3_CARDS[0])
    assert doc.book is not None
    lacking = sum(1 for e in doc.book.entries if "vectorized" not in (e.extensions or {}))
    assert lacking
    report = convert_document(doc, "png").report
    assert f"entry.extensions.vectorized = false ({lacking} entries)" in report.added
    assert any(f.path[-1] == "vectorized" and f.fate == "added" for f in report.journal or Journal())


# --- item 4 --------------------------------------------------------------------------------


def _unnamed_book(tmp_path: Path) -> Path:
    path = tmp_path / "harbour_lore.json"
    entry = {
        "keys": ["harbour"],
        "content": "The harbour is old.",
        "extensions": {},
        "enabled": True,
        "insertion_order": 0,
        "use_regex": False,
    }
    path.write_text(json.dumps({"entries": [entry], "extensions": {}}))
    return path


@pytest.mark.parametrize("target", ["ccv3", "png", "sillytavern-card"])
def test_lorebook_wrapped_in_a_card_is_said(tmp_path: Path, target: str) -> None:
    doc = read(_unnamed_book(tmp_path))
    assert doc.kind == "lorebook"
    conversion = convert_document(doc, target)
    card = read_bytes(conversion.data, format=target).card
    assert card is not None and card.data.name == "harbour_lore"  # named after the file, as the issue says
    wrapped = [f for f in conversion.report.journal or Journal() if f.path == ("card",)]
    assert [f.fate for f in wrapped] == ["added"]
    assert any("wrapped in a new" in w and "'harbour_lore'" in w for w in conversion.report.warnings)
    assert any(line.startswith("card: ") for line in conversion.report.added)
    assert conversion.report.to_json()["findings"]


def test_lorebook_to_a_lorebook_target_is_not_wrapped(tmp_path: Path) -> None:
    conversion = convert_document(read(_unnamed_book(tmp_path)), "sillytavern-world")
    assert not any("wrapped" in w for w in conversion.report.warnings)
