"""What every card/lorebook writer writes (interop.transforms.card_for_target, interop.cardkit.card_dates):
outputs valid under ``validate --strict`` on the real corpus; V3 dates as the numbers the spec requires."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from interop import api
from interop.cardkit.card_dates import unix_seconds
from interop.errors import ConversionError
from interop.fidelity import fidelity_report
from interop.fidelity.roundtrip import roundtrip
from interop.validation import Problem, validate_document
from tests.conftest import SHARED_CORPUS, corpus_params, shared_files
from tests.validator import assert_identity

CARD_TARGETS = (
    "ccv3", "ccv2", "png", "charx", "character_book", "lorebook_v3", "sillytavern-card", "agnai-card",
    "risu-charx",
)
"""The card/lorebook targets ``validate`` checks (it applies to cards and CCv3 books). ``risu-charx``
writes the V3 entry fields RisuAI's own export writes (``createBaseV3``, src/ts/characterCards.ts:
``enabled: true``, ``insertion_order: lore.insertorder``, ``use_regex: lore.useRegex ?? false``)
into card.json and the module (which its reader, like Risu, takes the entries from);
``agnai-card`` the V2 ones Agnai's export writes (``nativeToMemoryEntry``, common/memory.ts:
``enabled``, ``insertion_order: weight``)."""
REAL_FILES = [p for p in shared_files(".") if p.name != "MANIFEST.tsv"]
SAVVY = SHARED_CORPUS / "cards-json" / "ca_savvy_ccv3.json"


def _errors(data: bytes, fmt: str) -> list[Problem]:
    return [p for p in validate_document(api.read_bytes(data, format=fmt)) if p.severity == "error"]


@pytest.mark.parametrize("path", corpus_params(REAL_FILES, "shared corpus"))
def test_every_cross_format_output_passes_validate_strict(path: Path) -> None:
    """Issue 11 'done when': ``validate --strict`` passes on every output of a real file into
    another card/lorebook format.

    The one exception is an output in the source's own format: the identity rule
    (``write(read(f), fmt) == f``) forbids changing it, so a source that already breaks the spec
    (e.g. a V3 card whose entries lack ``use_regex``) comes back with the same problems, no others.
    """
    doc = api.read(path)
    source_errors = _errors(path.read_bytes(), doc.format) if doc.format in CARD_TARGETS else []
    checked = 0
    for target in CARD_TARGETS:
        try:
            data = api.write(api.read(path), target)
        except ConversionError:
            continue  # no card or book to write (e.g. a card without a lorebook -> lorebook_v3)
        errors = _errors(data, target)
        checked += 1
        if target == doc.format:
            assert errors == source_errors, (target, errors)
        else:
            assert errors == [], (target, errors[:3])
    assert checked > 0


# --- V3 dates (card_dates) ---------------------------------------------------------------


def test_iso_creation_date_is_written_as_unix_seconds_and_restored() -> None:
    """``ca_savvy_ccv3.json`` holds ``creation_date: "2025-11-10T21:55:00.000Z"``; the V3 spec wants
    Unix seconds. png/charx outputs carry the number, the report says translated, and the
    way back into ccv3 gives the source's bytes again."""
    if not SAVVY.exists():
        pytest.skip("shared corpus not found")
    source = json.loads(SAVVY.read_text())
    text = source["data"]["creation_date"]
    assert isinstance(text, str)
    doc = api.read(SAVVY)
    for target in ("png", "charx"):
        data = api.write(doc, target)
        out = api.read_bytes(data, format=target)
        assert out.card is not None and out.card.data.creation_date == 1762811700
        assert _errors(data, target) == []
        assert json.loads(api.write(out, "ccv3")) == source
        report = fidelity_report(doc, target, data)
        item = report.item("card.creation_date")
        assert item is not None and item.fate == "translated" and "1762811700" in item.detail
        assert report.added == [] and roundtrip(doc, target).identical
    assert_identity("ccv3", SAVVY)  # identity: its own format is untouched


def _card(**data: object) -> api.Document:
    card = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {"name": "X", **data}}
    return api.read_bytes(json.dumps(card).encode())


def test_a_changed_number_is_not_overwritten_by_the_recorded_string() -> None:
    """The string comes back only while the number is the one written; the record goes either way."""
    png = api.read_bytes(api.write(_card(creation_date="2024-01-02T03:04:05+02:00"), "png"), format="png")
    assert png.card is not None and png.card.data.creation_date == 1704157445
    png.card.data.creation_date = 1
    back = json.loads(api.write(png, "ccv3"))["data"]
    assert back["creation_date"] == 1 and "interop" not in back["extensions"]


def test_number_dates_and_other_strings_are_left_alone() -> None:
    """Only an ISO 8601 string is translated; anything else is written as it is (and recorded nowhere)."""
    out = api.read_bytes(api.write(_card(creation_date=5, modification_date="soon"), "charx"), format="charx")
    assert out.card is not None
    assert (out.card.data.creation_date, out.card.data.modification_date) == (5, "soon")


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("2025-11-10T21:55:00.000Z", 1762811700), ("2025-11-10T21:55:00", 1762811700),
     ("2025-11-10T22:55:00+01:00", 1762811700), ("2025-11-10T21:55:00.5Z", 1762811700.5), ("soon", None)],
)
def test_unix_seconds(text: str, seconds: float | None) -> None:
    assert unix_seconds(text) == seconds
